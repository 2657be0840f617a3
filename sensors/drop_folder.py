"""File-drop sensors: request an asset when files with new content arrive in a folder.

The cursor is a digest of the folder's file *contents* (sha256 per file), so re-delivering a file
already seen, or touching it, requests nothing; a new, changed or removed file requests the asset.
The asset itself decides what to load (e.g. GAP loads only content it has not stored).
"""

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import dagster as dg

from resources.warehouse import Warehouse
from sensors import TICK_INTERVAL_S


def content_digest(folder: Path, pattern: str) -> str:
    """Digest of the set of content hashes of the folder's matching files; '' when there is none."""
    files = sorted(folder.glob(pattern)) if folder.is_dir() else []
    hashes = sorted({hashlib.sha256(p.read_bytes()).hexdigest() for p in files})
    return hashlib.sha256(json.dumps(hashes).encode()).hexdigest()[:16] if hashes else ""


def drop_folder_sensor(name: str, asset: dg.AssetsDefinition | list[dg.AssetsDefinition],
                       folder_of: Callable[[Warehouse], Path], pattern: str, description: str) -> dg.SensorDefinition:
    """A sensor requesting `asset` (one, or a list: all in one run) when the folder's content changes."""
    assets = asset if isinstance(asset, list) else [asset]

    @dg.sensor(name=name, minimum_interval_seconds=TICK_INTERVAL_S, default_status=dg.DefaultSensorStatus.RUNNING,
               asset_selection=assets, description=description)
    def watch(context: dg.SensorEvaluationContext, warehouse: Warehouse):
        folder = folder_of(warehouse)
        state = content_digest(folder, pattern)
        if state == (context.cursor or ""):
            return dg.SkipReason(f"no new content in {folder}")
        context.log.info(f"new content in {folder}: requesting {', '.join(a.key.to_user_string() for a in assets)}")
        return dg.SensorResult(run_requests=[dg.RunRequest(run_key=f"{name}:{state or 'empty'}")], cursor=state)

    return watch
