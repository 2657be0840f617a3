"""Concurrency around the one-writer DuckDB warehouse, with real processes.

- Several Dagster runs of different partitions at once, each in its own process, on one Dagster
  instance, one warehouse and one response cache: no lock crash, no lost or duplicated rows.
- An analyst process holding the read-only snapshot open while a run writes and re-publishes:
  the run is not blocked, the analyst keeps a consistent view, a new connection sees the new data.
"""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import dagster as dg
import duckdb
from filelock import FileLock

from benchwright.paths import ROOT
from tests.reliability._support import http_entry
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, materialize, pick, resources_for, write_registry

ITEMS, VFS_ITEMS = 15, 14
WRITERS = 3
JUDGE = "sim-fair-judge"

# One child process = what a run launcher does for one partition: a generation run, then the judgment
# run of that model, against the shared instance (DAGSTER_HOME), warehouse and cache. The asset checks
# are left out only to spare each child the great-expectations import; they are not what is tested here.
CHILD = """
import json, sys
from pathlib import Path
import dagster as dg
from definitions import defs
from tests.support.pipeline import resources_for
home, model, judge = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
resources = resources_for(home)

def run(keys, partition_key):
    # The failed_calls check is computed by each LLM asset itself, so it comes with the asset; the others stay out.
    own_checks = dg.AssetSelection.checks(*[dg.AssetCheckKey(dg.AssetKey(k), "failed_calls") for k in keys])
    return dg.materialize(list(defs.assets), selection=dg.AssetSelection.assets(*keys).without_checks() | own_checks,
                          instance=instance, resources=resources, partition_key=partition_key,
                          raise_on_error=False).success

with dg.DagsterInstance.get() as instance:
    generated = run(["creation_generations"], model)
    judged = run(["creation_pairwise_judgments", "creation_vfs_judgments"],
                 dg.MultiPartitionKey({"model": model, "judge": judge}))
print(json.dumps({"model": model, "generated": generated, "judged": judged}))
"""

# The analyst: opens the snapshot read-only and keeps querying it until told to stop.
ANALYST = """
import json, sys, time
from pathlib import Path
import duckdb
snapshot, stop = sys.argv[1], Path(sys.argv[2])
con = duckdb.connect(snapshot, read_only=True)
def look():  # a table and a view
    gens = con.execute("SELECT count(*) FROM generations").fetchall()[0][0]
    board = con.execute("SELECT count(*) FROM creation_leaderboard_overall").fetchall()[0][0]
    return [gens, board]
print(json.dumps({"ready": look()}), flush=True)
seen, errors, queries, deadline = set(), [], 0, time.monotonic() + 120
while not stop.exists() and time.monotonic() < deadline:
    try:
        seen.add(tuple(look()))
        queries += 1
    except Exception as exc:
        errors.append(repr(exc))
    time.sleep(0.02)
con.close()
print(json.dumps({"seen": sorted(seen), "errors": errors, "queries": queries}), flush=True)
"""


def _prepare(home: Path, models: dict, judges: dict, instance: dg.DagsterInstance) -> dict:
    """Items, baseline answers and image descriptions (all simulated), as every run needs them."""
    write_registry(home, models, judges)
    resources = resources_for(home)
    for key in ("creation_items", "creation_references", "creation_image_descriptions"):
        assert materialize([key], instance, resources).success, key
    return resources


def _child_env(dagster_home: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "DAGSTER_HOME": str(dagster_home),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def test_parallel_partition_runs_in_separate_processes_lose_and_duplicate_nothing(tmp_path):
    writers = [f"http-writer-{i}" for i in range(WRITERS)]
    everyone_arrived = threading.Event()

    def reply_when_all_writers_wait(body: dict) -> str:
        # A barrier: no writer gets an answer until every writer has a request in flight, so all the
        # runs are provably mid-flight together and then write the warehouse at about the same time.
        if len(srv.by_model) >= WRITERS:
            everyone_arrived.set()
        everyone_arrived.wait(timeout=90)
        return f"answer of {body['model']} to: {str(body['messages'])[-60:]}"

    dagster_home = tmp_path / "dagster_home"
    dagster_home.mkdir()
    (dagster_home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    with OpenAIServer(reply=reply_when_all_writers_wait, latency_s=0.05, max_lifetime_s=170) as srv:
        models = {**pick(SHIPPED_MODELS, "sim-baseline", "sim-describer"),
                  **{slug: http_entry(srv.base_url, slug, "candidate", max_concurrency=4) for slug in writers}}
        with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
            resources = _prepare(tmp_path, models, pick(SHIPPED_JUDGES, JUDGE), instance)
            instance.add_dynamic_partitions("models", writers)
            instance.add_dynamic_partitions("judges", [JUDGE])

        children = [subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path), slug, JUDGE], cwd=ROOT,
                                     env=_child_env(dagster_home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                    for slug in writers]
        outputs = []
        try:
            for child in children:
                out, err = child.communicate(timeout=150)
                assert child.returncode == 0, err.decode(errors="replace")[-3000:]
                outputs.append(json.loads(out.decode().strip().splitlines()[-1]))
        finally:
            for child in children:
                if child.poll() is None:
                    child.kill()
                    child.wait()
        assert everyone_arrived.is_set(), "the writers never had requests in flight together"
        assert srv.max_in_flight >= WRITERS
        # Each writer's items were called once: no run repeated another's work or its own.
        assert {slug: srv.count(model=slug) for slug in writers} == dict.fromkeys(writers, ITEMS)

    assert all(o["generated"] and o["judged"] for o in outputs), outputs
    wh = resources["warehouse"]
    # The warehouse opens cleanly and nobody holds its lock any more.
    with FileLock(f"{wh.database}.lock", timeout=1):
        con = duckdb.connect(wh.database, read_only=True)
        try:
            def per_model(sql: str) -> dict:
                return {m: (n, k) for m, n, k in con.execute(sql).fetchall()}

            generations = per_model("SELECT model, count(*), count(DISTINCT item_id) FROM generations "
                                    "WHERE response IS NOT NULL GROUP BY model")
            pairwise = per_model("SELECT model, count(*), count(DISTINCT (item_id, judge_order)) "
                                 "FROM creation_pairwise_judgments WHERE error IS NULL GROUP BY model")
            vfs = per_model("SELECT model, count(*), count(DISTINCT item_id) FROM creation_vfs_judgments "
                            "WHERE error IS NULL GROUP BY model")
            references = con.execute("SELECT count(*) FROM creation_references").fetchall()[0][0]
        finally:
            con.close()
    assert generations == dict.fromkeys(writers, (ITEMS, ITEMS))
    assert pairwise == dict.fromkeys(writers, (2 * ITEMS, 2 * ITEMS))
    assert vfs == dict.fromkeys(writers, (VFS_ITEMS, VFS_ITEMS))
    assert references == ITEMS  # rows written before the parallel runs are untouched

    # Every run is recorded as a success in the shared Dagster instance.
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        statuses = [record.dagster_run.status for record in instance.get_run_records()]
    assert statuses.count(dg.DagsterRunStatus.SUCCESS) == 3 + 2 * WRITERS and len(statuses) == 3 + 2 * WRITERS


def test_an_analyst_holding_the_snapshot_open_does_not_block_a_run(tmp_path):
    write_registry(tmp_path, pick(SHIPPED_MODELS, "sim-strong", "sim-weak"), {})
    resources = resources_for(tmp_path)
    snapshot = resources["warehouse"].snapshot_path
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("models", ["sim-strong", "sim-weak"])
        assert materialize(["creation_items"], instance, resources).success
        assert materialize(["creation_generations"], instance, resources, partition_key="sim-strong").success
        assert materialize(["analyst_snapshot"], instance, resources).success

        stop = tmp_path / "analyst.stop"
        analyst = subprocess.Popen([sys.executable, "-c", ANALYST, snapshot, str(stop)], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            ready = json.loads(analyst.stdout.readline() or "null")
            assert ready == {"ready": [ITEMS, 0]}, analyst.stderr.read()
            # While the analyst holds the snapshot: a run writes the warehouse, then one re-publishes.
            started = time.monotonic()
            assert materialize(["creation_generations"], instance, resources, partition_key="sim-weak").success
            assert materialize(["analyst_snapshot"], instance, resources).success
            elapsed = time.monotonic() - started
            time.sleep(0.2)  # the analyst keeps querying its handle after the publish
            stop.touch()
            out, err = analyst.communicate(timeout=30)
        finally:
            if analyst.poll() is None:
                analyst.kill()
                analyst.wait()
    report = json.loads(out.strip().splitlines()[-1])
    # The analyst was never interrupted and saw one consistent (old) snapshot throughout.
    assert report["errors"] == [] and report["queries"] > 10, err
    assert report["seen"] == [[ITEMS, 0]]
    assert elapsed < 60, f"the runs took {elapsed:.0f} s next to an open snapshot"
    fresh = duckdb.connect(snapshot, read_only=True)
    try:
        counts = fresh.execute("SELECT model, count(*) FROM generations GROUP BY model ORDER BY model").fetchall()
    finally:
        fresh.close()
    assert counts == [("sim-strong", ITEMS), ("sim-weak", ITEMS)]
    assert not list(Path(snapshot).parent.glob(".*.tmp")), "a temporary snapshot was left behind"
