"""MMMT-IF human ratings: a file-drop sensor for the human-ratings CSV folder.

Watches `<warehouse folder>/drops/mmmt_if_human/*.csv` (see `assets.mmmt_if.human_drop_folder`).
When a file is added, changed or removed, it requests `mmmt_if_human_ratings`, which re-reads the
whole folder; `mmmt_if_human_alignment` follows by eager automation. The cursor is a digest of the
folder's (name, size, modification time) list, so an unchanged folder requests nothing.
"""

import hashlib
import json

import dagster as dg

from assets.mmmt_if import human_drop_folder, mmmt_if_human_ratings
from resources.warehouse import Warehouse


def folder_state(folder) -> str:
    """Digest of the CSV files in the folder (name, size, mtime); '' when there is none."""
    files = sorted(folder.glob("*.csv")) if folder.is_dir() else []
    if not files:
        return ""
    listing = [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files]
    return hashlib.sha256(json.dumps(listing).encode()).hexdigest()[:16]


@dg.sensor(
    name="mmmt_if_human_ratings_sensor",
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    asset_selection=[mmmt_if_human_ratings],
    description="Requests `mmmt_if_human_ratings` when a CSV of human instruction-following ratings or pairwise "
                "preferences is added to, changed in or removed from the MMMT-IF drop folder.",
)
def mmmt_if_human_ratings_sensor(context: dg.SensorEvaluationContext, warehouse: Warehouse) -> dg.SensorResult | dg.SkipReason:
    folder = human_drop_folder(warehouse)
    state = folder_state(folder)
    if state == (context.cursor or ""):
        return dg.SkipReason(f"no change in {folder}")
    context.log.info(f"human ratings folder changed: {folder}")
    return dg.SensorResult(run_requests=[dg.RunRequest(run_key=f"mmmt_if_human:{state or 'empty'}")], cursor=state)
