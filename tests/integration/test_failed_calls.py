"""Failed calls are not silent holes (benchwright/llm/failures.py): a partition whose run left failed calls is
run again by the next main job, which asks exactly those requests again, until the warehouse is the one a healthy
provider gives; a provider that answers nothing fails the main job and its checks."""

import sqlite3
from pathlib import Path

import dagster as dg
import duckdb

from scripts.compare_warehouses import compare
from scripts.materialize_all import exit_status
from scripts.orchestrate import materialize_everything
from resources.llm import LLMClient
from tests.integration.test_pipeline_loopback import registry_for, simulated_reply
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline import SHIPPED_JUDGES, SMALLER, pick, resources_for, write_registry

HTTP_MODELS = ("openai/http-writer", "openai/http-judge")


def _home(tmp_path: Path, name: str, base_url: str) -> dict:
    home = tmp_path / name
    write_registry(home, *registry_for(base_url, max_concurrency=16))
    resources = resources_for(home)
    # One retry: most injected faults are retried away inside the run, the sticky ones are not.
    resources["llm"] = LLMClient(cache_path=resources["llm"].cache_path, timeout_s=5, max_retries=1)
    return resources


def _journal(resources: dict, sql: str, params=()) -> set:
    con = sqlite3.connect(resources["llm"].cache_path)
    try:
        return {row[0] for row in con.execute(sql, params).fetchall()}
    finally:
        con.close()


def _asked_in(resources: dict, run_ids: list[str]) -> set[str]:
    """Request keys the runs sent to the HTTP models (not cache hits), from the cost ledger."""
    marks = ",".join("?" * len(run_ids))
    return _journal(resources, f"SELECT request_key FROM ledger WHERE run_id IN ({marks}) AND NOT cached "
                               "AND llm_model IN (?, ?)", [*run_ids, *HTTP_MODELS])


def _missing(resources: dict) -> dict[tuple, int]:
    """(view, judge) -> items the HTTP writer's figures miss, from the analyst snapshot's leaderboards."""
    con = duckdb.connect(resources["warehouse"].snapshot_path, read_only=True)
    try:
        return {(view, judge): missing for view in ("creation_leaderboard_overall", "urs_leaderboard_overall",
                                                    "gap_leaderboard")
                for judge, missing in con.execute(f"SELECT judge, missing FROM {view} WHERE model = 'http-writer'")
                .fetchall()}
    finally:
        con.close()


def test_failed_calls_are_asked_again_until_the_warehouse_is_a_healthy_ones(tmp_path):
    with OpenAIServer(reply=simulated_reply, fault_kinds=("500",), seed=3, max_lifetime_s=600) as srv:
        healthy = _home(tmp_path, "healthy", srv.base_url)
        with dg.instance_for_test(set_dagster_home=False) as instance:
            assert materialize_everything(instance, healthy, asset_config=SMALLER)["failed_calls"] == 0

        # 20 % of the requests fail at random (retried away, mostly), and 15 % fail on every attempt of this run.
        srv.fault_rate, srv.sticky_rate = 0.2, 0.15
        faulty = _home(tmp_path, "faulty", srv.base_url)
        with dg.instance_for_test(set_dagster_home=False) as instance:
            first = materialize_everything(instance, faulty, asset_config=SMALLER)
            assert first["failed_calls"] > 0
            failed = _journal(faulty, "SELECT key FROM errors")
            answered = _journal(faulty, "SELECT key FROM responses")
            assert failed and not failed & answered
            # The steps holding failed calls say so in their failed_calls checks (WARN, or ERROR above 10 %, which
            # fails the run: the check is blocking), and only there.
            flagged = {(c["asset"], c["check"]) for c in first["checks"] if not c["passed"]}
            assert {check for _, check in flagged} == {"failed_calls"}
            assert {"creation_generations", "creation_pairwise_judgments"} <= {asset for asset, _ in flagged}

            # The leaderboards say how partial each figure is.
            assert _missing(faulty) and max(_missing(faulty).values()) > 0

            srv.fault_rate = srv.sticky_rate = 0.0
            srv.reset_counts()
            second = materialize_everything(instance, faulty, asset_config=SMALLER)
            asked = _asked_in(faulty, second["run_ids"])
            # Exactly what a healthy provider's job asked and the first job did not get: its failed requests, and
            # those it could not make yet (a judgment of an answer that failed, an MMMT-IF turn after a failed
            # one). A failed request no longer needed (a later turn asked without the failed turn's answer) is not
            # asked, and nothing answered is asked twice.
            needed = _journal(healthy, "SELECT key FROM responses WHERE model IN (?, ?)", HTTP_MODELS)
            assert asked == needed - answered
            assert failed & needed and failed & needed <= asked
            assert srv.count(model="http-writer") + srv.count(model="http-judge") == len(asked)
            assert second["asked_again"] > 0 and second["failed_calls"] == 0 and second["failed_runs"] == 0

            third = materialize_everything(instance, faulty, asset_config=SMALLER)
            assert (third["runs"], third["api_calls"]) == (0, 0), third["materialized"]
            assert set(_missing(faulty).values()) == {0}

    differing = [row for row in compare(healthy["warehouse"].database, faulty["warehouse"].database)
                 if row[1] < 0 or row[3] or row[4]]
    assert differing == []


def test_an_unreachable_provider_fails_the_main_job_with_error_checks(tmp_path):
    with OpenAIServer(max_lifetime_s=5) as srv:
        gone = srv.base_url  # a port nobody listens on once the server stops
    models, _ = registry_for(gone, max_concurrency=64)
    write_registry(tmp_path, models, pick(SHIPPED_JUDGES, "sim-fair-judge"))
    resources = resources_for(tmp_path)
    resources["llm"] = LLMClient(cache_path=resources["llm"].cache_path, timeout_s=5, max_retries=0)
    with dg.instance_for_test(set_dagster_home=False) as instance:
        summary = materialize_everything(instance, resources, asset_config=SMALLER)

    # What the main job prints and returns (scripts/materialize_all.py) comes from this summary.
    assert exit_status(summary) == 1
    generations = {f"{benchmark}_generations [http-writer]" for benchmark in ("creation", "mmmt_if", "urs", "gap")}
    assert generations <= set(summary["all_calls_failed"])
    assert {f"ERROR {line.replace(' ', ':failed_calls ')}" for line in generations} <= set(summary["check_failures"])
    assert summary["failed_calls"] >= 15 and summary["failed_runs"] > 0
