"""GAP game logs: `<warehouse folder>/drops/gap_logs/*.jsonl` (see `assets.gap.gap_drop_folder`).

A new log requests `gap_game_logs`, which loads only content hashes it has not stored (exactly
once); the metrics follow by eager automation.
"""

from assets.gap import gap_drop_folder, gap_game_logs
from sensors.drop_folder import drop_folder_sensor

gap_log_drop_sensor = drop_folder_sensor(
    "gap_log_drop_sensor", gap_game_logs, gap_drop_folder, "*.jsonl",
    description="Requests `gap_game_logs` when a JSONL game log with new content arrives in the GAP drop folder.",
)
