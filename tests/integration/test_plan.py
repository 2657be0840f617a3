"""Cost before you spend (scripts/plan.py): the plan counts, on a copy of the home and without a call,
the calls the main job then makes (per benchmark, stage, model, judge and called model), and prices them from
litellm's table; the main job's --max-cost refuses to start above it."""

import sqlite3
from pathlib import Path

import dagster as dg
import litellm
import pytest

from benchwright.llm import LLMRunner
from resources import prepare_dagster_home
from scripts import materialize_all
from scripts.orchestrate import materialize_everything
from scripts.plan import plan
from tests.integration.test_pipeline_loopback import simulated_reply
from tests.support.openai_server import OpenAIServer
from tests.integration.conftest import SMALL_JUDGES, SMALL_MODELS, copy_small_demo
from tests.support.pipeline import resources_for, write_registry


def _ledger_calls(cache: Path, run_ids: list[str]) -> dict:
    """Calls made per (benchmark, stage, model, judge, called model) by these runs, from the home's cost ledger."""
    con = sqlite3.connect(cache)
    try:
        rows = con.execute(f"SELECT benchmark, stage, model, judge, llm_model, count(*) FROM ledger WHERE run_id IN "
                           f"({', '.join('?' * len(run_ids))}) AND NOT cached AND NOT simulated AND NOT error "
                           "GROUP BY benchmark, stage, model, judge, llm_model", run_ids).fetchall()
    finally:
        con.close()
    return {tuple(row[:5]): row[5] for row in rows}


def _home_state(home: Path) -> dict:
    # Lock files are left out: the copy takes the warehouse's writer lock, which touches its file.
    return {path.relative_to(home).as_posix(): path.stat().st_mtime_ns for path in home.rglob("*")
            if path.is_file() and path.suffix != ".lock"}


def test_plan_counts_what_the_main_job_then_calls_without_calling_or_touching_the_home(small_demo, tmp_path,
                                                                                      monkeypatch, capsys):
    # A copy of the small demo's home, built by the main job (its instance is in the home).
    home = copy_small_demo(small_demo, tmp_path / "home")
    models, judges = dict(SMALL_MODELS), dict(SMALL_JUDGES)
    assert small_demo["cold"]["failed_runs"] == 0
    monkeypatch.setenv("BENCHWRIGHT_MODELS", str(home / "models.yaml"))
    monkeypatch.setenv("BENCHWRIGHT_JUDGES", str(home / "judges.yaml"))
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    dagster_home = prepare_dagster_home(home)
    resources = resources_for(home)

    # Nothing new: nothing would run, nothing would be called.
    idle = plan(home, dagster_home)
    assert (idle["runs"], idle["totals"]["calls"]) == (0, 0)

    with OpenAIServer(reply=simulated_reply, max_lifetime_s=300) as server:
        # A priced model (in litellm's table) served on loopback, and one litellm has no price for.
        models["priced-writer"] = {"model": "openai/gpt-4o-mini", "api_base": server.base_url, "role": "candidate"}
        models["unpriced-writer"] = {"model": "openai/house-writer", "api_base": server.base_url, "role": "candidate"}
        write_registry(home, models, judges)
        before = _home_state(home)
        planned = plan(home, dagster_home)
        assert server.count() == 0  # not one request
        assert _home_state(home) == before  # the home is only read

        by_key = {(row["benchmark"], row["stage"], row["model"], row["judge"], row["called"]): row["calls"]
                  for row in planned["rows"] if row["calls"]}
        assert {key[-1] for key in by_key} == {"openai/gpt-4o-mini", "openai/house-writer"}
        assert {key[0] for key in by_key} >= {"creation", "urs", "mmmt_if", "gap"}
        assert planned["failed_runs"] == 0
        # Both are served by an OpenAI-compatible server of their own (api_base): no key is missing for them.
        assert planned["missing_keys"] == {}
        assert planned["unpriced"] == ["openai/house-writer"]
        priced = [row for row in planned["rows"] if row["called"] == "openai/gpt-4o-mini"]
        assert sum(row["cost_usd"] for row in priced) == pytest.approx(sum(
            sum(litellm.cost_per_token(model="openai/gpt-4o-mini", prompt_tokens=row["tokens_in"],
                                       completion_tokens=row["tokens_out"])) for row in priced))
        assert sum(row["cost_usd"] for row in priced) > 0
        # No answer of these models yet and no max_tokens: the documented default length is expected.
        assert planned["expected_tokens_out"] == {"openai/gpt-4o-mini": 500, "openai/house-writer": 500}

        # A spending limit below the plan's cost: the main job plans, says why, and does not start.
        monkeypatch.setenv("BENCHWRIGHT_HOME", str(home))
        monkeypatch.setenv("DAGSTER_HOME", str(dagster_home))
        limit = planned["totals"]["cost_usd"] / 2
        assert materialize_all.main(["--max-cost", f"{limit:.6f}"]) == 2
        out = capsys.readouterr().out
        assert f"Not started: the plan's cost ${planned['totals']['cost_usd']:.4f}" in out
        assert f"above --max-cost ${limit:.4f}" in out
        assert server.count() == 0 and _home_state(home) == before  # nothing ran, nothing was called

        # Then the main job for real: the calls it makes are the calls the plan counted, stage by stage.
        with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
            summary = materialize_everything(instance, resources_for(home))
        assert summary["failed_runs"] == 0
        made = _ledger_calls(Path(resources["llm"].cache_path), summary["run_ids"])
        assert made == by_key
        assert server.count() == sum(made.values())


def test_plan_mode_refuses_a_real_cache(tmp_path):
    # Planned answers are placeholders: written into a real cache they would be served as answers later.
    with pytest.raises(ValueError, match="copy of a home"):
        LLMRunner(str(tmp_path / "llm_cache.sqlite3"), mode="plan")


def test_versions_given_to_the_resolver_resolve_as_the_runless_events_would(small_demo, tmp_path):
    """The plan writes no event for what it materializes or the sources it observes: it hands the new versions to
    the resolver (`BatchedStaleStatusResolver.see_unrecorded`). Every asset partition's status and data version must
    then be what Dagster's own resolver says once those versions are stored as runless events."""
    from dagster._core.definitions.data_version import DATA_VERSION_TAG
    from dagster._core.definitions.partitions.context import partition_loading_context
    from dagster._core.instance.ref import InstanceRef

    from definitions import defs
    from scripts.orchestrate import stale_status_resolver
    from scripts.stale_status import plain_stale_status_resolver

    home = copy_small_demo(small_demo, tmp_path / "home")
    graph = defs.resolve_asset_graph()
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(home / "dagster_home"))) as instance:
        def partitions(name: str) -> list:
            node = graph.get(dg.AssetKey(name))
            with partition_loading_context(dynamic_partitions_store=instance):
                return node.partitions_def.get_partition_keys() if node.is_partitioned else [None]

        given = {  # a generation (partitioned parent of judgments), a judgment, an unpartitioned asset, sources
            (dg.AssetKey("creation_generations"), "sim-strong"): "new-generations",
            (dg.AssetKey("urs_judgments"), partitions("urs_judgments")[0]): "new-judgments",
            (dg.AssetKey("creation_references"), None): "new-references",
            (dg.AssetKey("model_entries"), "sim-describer"): "new-entry",
        }
        # and a source observed again with the version it has: no change
        unchanged = (dg.AssetKey("judge_entries"), "sim-fair-judge")
        given[unchanged] = stale_status_resolver(instance, graph).get_current_data_version(*unchanged).value
        keys = sorted(graph.get_all_asset_keys())

        told = stale_status_resolver(instance, graph)
        told.prefetch(keys)
        told.see_unrecorded(given)
        answers = {(key, p): (told.get_status(key, p), told.get_current_data_version(key, p))
                   for key in keys for p in partitions(key.to_user_string())}

        for (key, partition), version in given.items():
            event = dg.AssetObservation if graph.get(key).is_observable else dg.AssetMaterialization
            instance.report_runless_asset_event(event(asset_key=key, partition=partition,
                                                      tags={DATA_VERSION_TAG: version}))
        dagsters = plain_stale_status_resolver(instance, graph)
        for (key, partition), (status, version) in answers.items():
            assert (status, version) == (dagsters.get_status(key, partition),
                                         dagsters.get_current_data_version(key, partition)), (key, partition)
    statuses = {status.value for status, _version in answers.values()}
    assert {"STALE", "FRESH"} <= statuses  # the versions given made some partitions stale, and left others fresh


def test_a_stopped_plan_removes_its_copy_of_the_home(tmp_path):
    """The plan copies the home to memory (/dev/shm) where it can; `kill` (SIGTERM) used to end it at once and leave the
    copy there until the machine restarts. Stopped, it removes the copy and says so (status 130)."""
    import os
    import signal
    import subprocess
    import sys

    from benchwright.paths import ROOT

    home = tmp_path / "home"
    write_registry(home, SMALL_MODELS, SMALL_JUDGES)
    env = {**os.environ, "BENCHWRIGHT_HOME": str(home), "BENCHWRIGHT_MODELS": str(home / "models.yaml"),
           "BENCHWRIGHT_JUDGES": str(home / "judges.yaml"), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "PYTHONPATH": str(ROOT)}
    env.pop("DAGSTER_HOME", None)
    plan_process = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "plan.py")], cwd=ROOT, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen, copy = [], None
    try:
        for line in plan_process.stdout:  # until the plan runs its first assets on the copy
            seen.append(line)
            if line.strip().startswith("the copy: "):
                copy = Path(line.strip()[len("the copy: "):].split(" (")[0])
            if "materializing" in line:
                break
        assert copy is not None and copy.is_dir(), "".join(seen)
        plan_process.send_signal(signal.SIGTERM)
        rest, _ = plan_process.communicate(timeout=60)
    finally:
        if plan_process.poll() is None:
            plan_process.kill()
            plan_process.wait()
    assert plan_process.returncode == 130 and "Stopped (interrupted)" in rest, rest[-3000:]
    assert "Traceback" not in rest, rest[-3000:]
    assert not copy.exists()


def test_the_copies_of_plans_killed_before_their_clean_up_are_removed_by_the_next(tmp_path):
    """SIGKILL (or the system, out of memory) gives the plan no clean-up: its copy would stay in /dev/shm until the
    machine restarts. The next plan removes the copies whose process is gone, and only those."""
    import os
    import socket
    import subprocess
    import sys

    from scripts.plan import COPY_OWNER, COPY_PREFIX, remove_abandoned_copies

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    here = socket.gethostname()
    names = ("killed", "running", "being-made-or-kept", "garbled", "other-host")
    folders = {name: tmp_path / f"{COPY_PREFIX}{name}" for name in names}
    for folder in folders.values():
        (folder / "home").mkdir(parents=True)
    (folders["killed"] / COPY_OWNER).write_text(f"{here}:{int(ended.stdout)}")
    (folders["running"] / COPY_OWNER).write_text(f"{here}:{os.getpid()}")
    (folders["garbled"] / COPY_OWNER).write_text(f"{here}:not a process id")
    (folders["other-host"] / COPY_OWNER).write_text(f"another-{here}:{int(ended.stdout)}")
    (tmp_path / "somebody-else").mkdir()

    assert remove_abandoned_copies(tmp_path) == [folders["killed"]]
    assert not folders["killed"].exists()
    assert all(folders[name].is_dir() for name in names[1:])
    assert (tmp_path / "somebody-else").is_dir()
