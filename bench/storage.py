"""Benchmark: does the warehouse stay bounded when the same work runs again? In one run.

Materializes the demo graph (every registered model and judge, simulated) on a fresh home, then forces
every asset to run again three times (the same work: every answer from the cache). Prints the size of the
warehouse after each run, and of the snapshot, the LLM cache and the Dagster home, and the warehouse's
growth after three re-runs as a ratio to the first run's size (target ≤ 1.10). Space of replaced rows is
given back by `Warehouse.reclaim_space`, which the snapshot asset calls at the end of every run.

    .venv/bin/python bench/storage.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _common import emit


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size if path.exists() else 0


def measure(reruns: int = 3) -> dict:
    import dagster as dg

    from scripts.orchestrate import materialize_everything
    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

    sizes = []
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as dagster_home, \
            dg.instance_for_test(temp_dir=dagster_home) as instance:
        home = Path(tmp)
        write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
        resources = resources_for(home)
        warehouse = resources["warehouse"]
        for run in range(reruns + 1):
            summary = materialize_everything(instance, resources, force=run > 0)
            assert summary["failed_runs"] == 0 and (run == 0 or summary["api_calls"] == 0)
            sizes.append({"warehouse": _size(Path(warehouse.database)),
                          "snapshot": _size(Path(warehouse.snapshot_path)),
                          "llm_cache": _size(Path(resources["llm"].cache_path)),
                          "dagster_home": _size(Path(dagster_home))})
    growth = sizes[-1]["warehouse"] / sizes[0]["warehouse"]
    mb = lambda n: f"{n / 1e6:.1f} MB"  # noqa: E731
    summary = (f"warehouse after the first run {mb(sizes[0]['warehouse'])}, after each of {reruns} forced re-runs "
               f"{', '.join(mb(s['warehouse']) for s in sizes[1:])}: **growth {growth:.2f}× (target ≤ 1.10: "
               f"{'met' if growth <= 1.10 else 'missed'})**; snapshot {mb(sizes[0]['snapshot'])} → "
               f"{mb(sizes[-1]['snapshot'])}, LLM cache {mb(sizes[0]['llm_cache'])} → {mb(sizes[-1]['llm_cache'])}, "
               f"Dagster home {mb(sizes[0]['dagster_home'])} → {mb(sizes[-1]['dagster_home'])}")
    return {"summary": summary, "growth": growth, "sizes": sizes}


def main() -> None:
    emit("Demo: storage after re-running the same work", **measure())


if __name__ == "__main__":
    main()
