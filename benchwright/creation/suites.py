"""Creation schema and range suites (validated with benchwright.quality.validate_frame)."""

from __future__ import annotations

from benchwright.quality import GENERATIONS, between

SUITES: dict[str, list[dict]] = {
    "generations": GENERATIONS,  # the shared table's suite, applied to Creation's answers
    "creation_pairwise_judgments": [
        {
            "type": "columns_exist",
            "columns": [
                "model", "judge", "item_id", "judge_order", "candidate_position",
                "raw_text", "verdict", "parse_ok", "outcome",
            ],
        },
        {"type": "column_values_in_set", "column": "judge_order", "values": [1, 2]},
        {"type": "column_values_in_set", "column": "candidate_position", "values": ["A", "B"]},
        # A verdict is null when the judge's text did not parse (outcome is then 'Fail').
        {
            "type": "column_values_in_set",
            "column": "verdict",
            "values": ["A>>B", "A>B", "A=B", "B>A", "B>>A"],
            "allow_null": True,
        },
        # A failed call is a row with an error and no outcome (neither a loss nor a parse failure);
        # every call that returned has one: see "creation_pairwise_judgments_answered".
        {"type": "column_values_in_set", "column": "outcome", "values": ["MB", "B", "T", "W", "MW", "Fail"],
         "allow_null": True},
        {"type": "columns_unique", "columns": ["model", "judge", "item_id", "judge_order"]},
    ],
    # Applied to the rows whose call returned (error is null).
    "creation_pairwise_judgments_answered": [
        {"type": "column_not_null", "column": "outcome"},
    ],
    "creation_vfs_judgments": [
        {
            "type": "columns_exist",
            "columns": ["model", "judge", "item_id", "raw_text", "score_a", "score_b", "parse_ok"],
        },
        between("score_a", 0, 10),
        between("score_b", 0, 10),
        {"type": "columns_unique", "columns": ["model", "judge", "item_id"]},
    ],
    "creation_leaderboard": [
        # Nulls allowed throughout: a scope where every judgment failed to parse has n = 0 and so
        # no reward or win rate; a model without VFS judgments has no VFS.
        between("reward", -100, 100),
        between("win_rate", 0, 1),
        between("vfs", 0, 10),
        {"type": "columns_unique", "columns": ["judge", "model", "scope", "scope_value"]},
    ],
    "judge_quality": [
        *(
            between(col, 0, 1)
            for col in ("exact_consistency", "relaxed_consistency", "parse_rate", "p_prefer_first", "p_prefer_longer")
        ),
        {"type": "columns_unique", "columns": ["judge"]},
    ],
}
