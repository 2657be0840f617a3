"""Benchmark: the test suite's temporary folder on disk or in memory (tests/conftest.py puts it in /dev/shm when
the machine has room). In one run, alternately.

What moves is the cost of Dagster's SQLite storage: the event log commits every event, and on disk each commit
waits for the sync. Two Dagster test instances, one in a fresh folder on disk (the system's default, /tmp) and
one in /dev/shm, each record `--batch` runless asset observations (one stored event each, as a run's events
are), alternately, `--rounds` times: the median milliseconds per event in each, and their ratio. Alternating in
small batches keeps a shared machine's changing load out of the ratio (whole graph builds, one after the other,
were not comparable at a load of 8 to 19). With `--build`, the small demo graph the integration tests start from
(tests/integration/conftest.py `small_demo`) is built once on disk first, to count the events a build stores.

    .venv/bin/python bench/temp_folder.py [--rounds 20] [--batch 25] [--build]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from _common import emit

MEMORY = Path("/dev/shm")


def events_of_a_small_build() -> int:
    """How many events the small demo graph's cold build stores (its runs' event logs)."""
    import dagster as dg

    from scripts.orchestrate import materialize_everything
    from tests.integration.conftest import SMALL_JUDGES, SMALL_MODELS
    from tests.support.pipeline import resources_for, write_registry

    with tempfile.TemporaryDirectory() as tmp:
        write_registry(Path(tmp) / "home", SMALL_MODELS, SMALL_JUDGES)
        (Path(tmp) / "dagster").mkdir()
        with dg.instance_for_test(temp_dir=str(Path(tmp) / "dagster"), set_dagster_home=False) as instance:
            summary = materialize_everything(instance, resources_for(Path(tmp) / "home"))
            assert summary["failed_runs"] == 0
            return sum(len(instance.all_logs(run_id)) for run_id in summary["run_ids"])


def ms_per_event(instance, batch: int, start: int) -> float:
    import dagster as dg

    began = time.perf_counter()
    for n in range(start, start + batch):
        instance.report_runless_asset_event(dg.AssetObservation(asset_key="bench_temp_folder", metadata={"n": n}))
    return (time.perf_counter() - began) / batch * 1000


def main() -> None:
    import dagster as dg

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--batch", type=int, default=25)
    parser.add_argument("--build", action="store_true", help="count the events of one small demo build first")
    args = parser.parse_args()
    if not MEMORY.is_dir():
        raise SystemExit(f"{MEMORY} is not here: nothing to compare")
    events = events_of_a_small_build() if args.build else None
    disk, memory = [], []
    with tempfile.TemporaryDirectory() as on_disk, tempfile.TemporaryDirectory(dir=MEMORY) as in_memory, \
            dg.instance_for_test(temp_dir=on_disk, set_dagster_home=False) as disk_instance, \
            dg.instance_for_test(temp_dir=in_memory, set_dagster_home=False) as memory_instance:
        for round_ in range(args.rounds):
            disk.append(ms_per_event(disk_instance, args.batch, round_ * args.batch))
            memory.append(ms_per_event(memory_instance, args.batch, round_ * args.batch))
    on_disk_ms, in_memory_ms = statistics.median(disk), statistics.median(memory)
    summary = (f"one stored Dagster event, median of {args.rounds} alternating batches of {args.batch}: disk "
               f"{on_disk_ms:.2f} ms, memory {in_memory_ms:.2f} ms: **memory ÷ disk {in_memory_ms / on_disk_ms:.2f}**")
    if events is not None:
        summary += (f"; the small demo graph's cold build stores {events} events: ≈ "
                    f"{events * (on_disk_ms - in_memory_ms) / 1000:.1f} s of its wall time on disk are these waits")
    emit("Test suite: temporary folder on disk or in memory", summary, disk_ms=on_disk_ms, memory_ms=in_memory_ms,
         ratio=in_memory_ms / on_disk_ms, events=events)


if __name__ == "__main__":
    main()
