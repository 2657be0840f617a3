"""Benchmark: the test suite's temporary folder on disk or in memory (tests/conftest.py puts it in /dev/shm when
the machine has room). In one run, alternately.

Builds the small demo graph the integration tests start from (tests/integration/conftest.py `small_demo`: one
candidate, one judge) from an empty home, with the home and its Dagster test instance in a fresh temporary
folder on disk (the system's default, /tmp) and then in /dev/shm, `--rounds` times each, interleaved. Prints
the wall and CPU seconds of each build (this process; children have none: every step runs here), the median
memory ÷ disk wall ratio, and the number of SQLite commits the build's Dagster events made (the event log
commits every event, and on disk each commit waits for the sync). The rows are the same either way: the build
is the tests' own, only the folder moves.

    .venv/bin/python bench/temp_folder.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from _common import emit

MEMORY = Path("/dev/shm")


def build_once(folder: Path) -> dict:
    import dagster as dg

    from scripts.orchestrate import materialize_everything
    from tests.integration.conftest import SMALL_JUDGES, SMALL_MODELS
    from tests.support.pipeline import resources_for, write_registry

    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        home = Path(tmp) / "home"
        write_registry(home, SMALL_MODELS, SMALL_JUDGES)
        with dg.instance_for_test(temp_dir=str(Path(tmp) / "dagster"), set_dagster_home=False) as instance:
            wall, cpu = time.perf_counter(), time.process_time()
            summary = materialize_everything(instance, resources_for(home))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            events = sum(len(instance.all_logs(run_id)) for run_id in summary["run_ids"])
    assert summary["failed_runs"] == 0 and summary["api_calls"] > 0
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "runs": summary["runs"], "events": events}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not MEMORY.is_dir():
        raise SystemExit(f"{MEMORY} is not here: nothing to compare")
    disk, memory = [], []
    for _ in range(args.rounds):
        disk.append(build_once(Path(tempfile.gettempdir())))
        memory.append(build_once(MEMORY))
        print(f"disk {disk[-1]}  memory {memory[-1]}", flush=True)
    ratio = statistics.median(m["wall_s"] / d["wall_s"] for d, m in zip(disk, memory))
    summary = (f"the small demo graph ({disk[0]['runs']} runs, {disk[0]['events']} Dagster events) built "
               f"{args.rounds}× each, interleaved: disk wall {', '.join(str(d['wall_s']) for d in disk)} s "
               f"(CPU {', '.join(str(d['cpu_s']) for d in disk)} s); memory wall "
               f"{', '.join(str(m['wall_s']) for m in memory)} s (CPU {', '.join(str(m['cpu_s']) for m in memory)} s): "
               f"**memory ÷ disk wall {ratio:.2f}**")
    emit("Test suite: temporary folder on disk or in memory", summary, ratio=ratio, disk=disk, memory=memory)


if __name__ == "__main__":
    main()
