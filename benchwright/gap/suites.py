"""GAP's schema and range suites (validated with benchwright.quality.validate_frame)."""

from __future__ import annotations


from benchwright.quality import between

SUITES = {
    "gap_player_reliability": [
        {"type": "columns_exist", "columns": ["player_id", "reliability", "p_wrong_when_planted", "p_wrong_when_honest"]},
        between("reliability", 0, 1, allow_null=False),
        between("p_wrong_when_planted", 0, 1, allow_null=False),
        between("p_wrong_when_honest", 0, 1, allow_null=False),
        {"type": "columns_unique", "columns": ["player_id"]},
    ],
    "gap_log_quarantine": [
        {"type": "column_not_null", "column": "reason"},
        {"type": "columns_unique", "columns": ["file_sha256", "line_no"]},
    ],
}
