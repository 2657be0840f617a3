"""GAP game logs: a file-drop sensor for the front end's JSONL log folder.

Watches `<warehouse folder>/drops/gap_logs/*.jsonl` (see `assets.gap.gap_drop_folder`). The cursor
is a digest of the folder's file *contents* (sha256 per file), so re-delivering a file already seen,
or touching it, requests nothing; a new or changed file requests `gap_game_logs`, which loads only
content hashes it has not stored (exactly once). The metrics follow by eager automation.
"""

import hashlib
import json

import dagster as dg

from assets.gap import gap_drop_folder, gap_game_logs
from resources.warehouse import Warehouse


def content_state(folder) -> str:
    """Digest of the set of file content hashes in the folder; '' when there is none."""
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    hashes = sorted({hashlib.sha256(p.read_bytes()).hexdigest() for p in files})
    return hashlib.sha256(json.dumps(hashes).encode()).hexdigest()[:16] if hashes else ""


@dg.sensor(
    name="gap_log_drop_sensor",
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    asset_selection=[gap_game_logs],
    description="Requests `gap_game_logs` when a JSONL game log with new content arrives in the GAP drop folder.",
)
def gap_log_drop_sensor(context: dg.SensorEvaluationContext, warehouse: Warehouse) -> dg.SensorResult | dg.SkipReason:
    folder = gap_drop_folder(warehouse)
    state = content_state(folder)
    if state == (context.cursor or ""):
        return dg.SkipReason(f"no new log content in {folder}")
    context.log.info(f"new game logs in {folder}")
    return dg.SensorResult(run_requests=[dg.RunRequest(run_key=f"gap_logs:{state or 'empty'}")], cursor=state)
