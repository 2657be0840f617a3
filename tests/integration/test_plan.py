"""Cost before you spend (scripts/plan.py): the plan counts, on a copy of the home and without a call,
the calls the main job then makes, and prices them from litellm's table."""

import sqlite3
from pathlib import Path

import dagster as dg
import litellm
import pytest

from benchwright.llm import LLMRunner
from resources import prepare_dagster_home
from scripts.orchestrate import materialize_everything
from scripts.plan import plan
from tests.integration.test_pipeline_loopback import simulated_reply
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, pick, resources_for, write_registry


def _ledger_calls(cache: Path, run_ids: list[str]) -> dict:
    """Calls made per (benchmark, called model) by these runs, from the home's cost ledger."""
    con = sqlite3.connect(cache)
    try:
        rows = con.execute(f"SELECT benchmark, llm_model, count(*) FROM ledger WHERE run_id IN "
                           f"({', '.join('?' * len(run_ids))}) AND NOT cached AND NOT simulated AND NOT error "
                           "GROUP BY benchmark, llm_model", run_ids).fetchall()
    finally:
        con.close()
    return {(benchmark, model): calls for benchmark, model, calls in rows}


def _home_state(home: Path) -> dict:
    # Lock files are left out: the copy takes the warehouse's writer lock, which touches its file.
    return {path.relative_to(home).as_posix(): path.stat().st_mtime_ns for path in home.rglob("*")
            if path.is_file() and path.suffix != ".lock"}


def test_plan_counts_what_the_main_job_then_calls_without_calling_or_touching_the_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    models = pick(SHIPPED_MODELS, "sim-baseline", "sim-describer", "sim-strong")
    judges = pick(SHIPPED_JUDGES, "sim-fair-judge")
    write_registry(home, models, judges)
    monkeypatch.setenv("BENCHWRIGHT_MODELS", str(home / "models.yaml"))
    monkeypatch.setenv("BENCHWRIGHT_JUDGES", str(home / "judges.yaml"))
    dagster_home = prepare_dagster_home(home)
    resources = resources_for(home)
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        assert materialize_everything(instance, resources)["failed_runs"] == 0

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

        by_called = {}
        for row in planned["rows"]:
            by_called[(row["benchmark"], row["called"])] = by_called.get((row["benchmark"], row["called"]), 0) + row["calls"]
        by_called = {key: calls for key, calls in by_called.items() if calls}
        assert {model for _, model in by_called} == {"openai/gpt-4o-mini", "openai/house-writer"}
        assert {benchmark for benchmark, _ in by_called} >= {"creation", "urs", "mmmt_if", "gap"}
        assert planned["unpriced"] == ["openai/house-writer"]
        priced = [row for row in planned["rows"] if row["called"] == "openai/gpt-4o-mini"]
        assert sum(row["cost_usd"] for row in priced) == pytest.approx(sum(
            sum(litellm.cost_per_token(model="openai/gpt-4o-mini", prompt_tokens=row["tokens_in"],
                                       completion_tokens=row["tokens_out"])) for row in priced))
        assert sum(row["cost_usd"] for row in priced) > 0
        # No answer of these models yet and no max_tokens: the documented default length is expected.
        assert planned["expected_tokens_out"] == {"openai/gpt-4o-mini": 500, "openai/house-writer": 500}

        # Then the main job for real: the calls it makes are the calls the plan counted.
        with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
            summary = materialize_everything(instance, resources_for(home))
        assert summary["failed_runs"] == 0
        made = _ledger_calls(Path(resources["llm"].cache_path), summary["run_ids"])
        assert made == by_called
        assert server.count() == sum(made.values())


def test_plan_mode_refuses_a_real_cache(tmp_path):
    # Planned answers are placeholders: written into a real cache they would be served as answers later.
    with pytest.raises(ValueError, match="copy of a home"):
        LLMRunner(str(tmp_path / "llm_cache.sqlite3"), mode="plan")
