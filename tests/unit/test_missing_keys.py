"""The plan names every provider whose API key is missing (benchwright.llm.providers.missing_keys, litellm's
validate_environment; scripts/plan.py missing_api_keys), and the main job's --max-cost refuses a plan above it."""

from __future__ import annotations

import pytest

from benchwright.llm.providers import missing_keys
from scripts.plan import missing_api_keys, refusal
from tests.support.pipeline import resources_for, write_registry

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MISTRAL_API_KEY")


@pytest.fixture
def no_keys(monkeypatch):
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_a_hosted_model_without_its_key_is_named_and_one_with_it_is_not(no_keys):
    assert missing_keys("openai/gpt-4o-mini") == ["OPENAI_API_KEY"]
    assert missing_keys("anthropic/claude-3-haiku-20240307") == ["ANTHROPIC_API_KEY"]
    no_keys.setenv("OPENAI_API_KEY", "sk-test")
    assert missing_keys("openai/gpt-4o-mini") == []


def test_the_simulator_and_a_self_hosted_openai_compatible_server_need_no_key(no_keys):
    assert missing_keys("sim/strong-writer") == []
    # The runner sends a placeholder key to an openai/ model's own api_base (litellm_setup.keyless_server).
    assert missing_keys("openai/house-writer", "http://127.0.0.1:8000/v1") == []
    # Another provider's api_base (a proxy) still needs that provider's key.
    assert missing_keys("anthropic/claude-3-haiku-20240307", "http://127.0.0.1:8000") == ["ANTHROPIC_API_KEY"]


def test_the_plan_names_each_provider_once_with_the_entries_that_would_call_it(tmp_path, no_keys):
    models = {"writer-a": {"model": "openai/gpt-4o-mini", "role": "candidate"},
              "writer-b": {"model": "openai/gpt-4o", "role": "candidate"},
              "house": {"model": "openai/house-writer", "api_base": "http://127.0.0.1:8000/v1", "role": "candidate"},
              "cached-only": {"model": "mistral/mistral-small-latest", "role": "candidate"},
              "sim-baseline": {"model": "sim/baseline-writer", "role": "baseline"}}
    judges = {"claude-judge": {"model": "anthropic/claude-3-haiku-20240307", "role": "judge"}}
    write_registry(tmp_path, models, judges)
    registry = resources_for(tmp_path)["registry"]
    rows = [{"called": model, "calls": calls} for model, calls in (
        ("openai/gpt-4o-mini", 3), ("openai/gpt-4o", 1), ("openai/house-writer", 5),
        ("mistral/mistral-small-latest", 0),  # every answer from the cache: no key needed
        ("anthropic/claude-3-haiku-20240307", 2), ("sim/baseline-writer", 4))]
    assert missing_api_keys(rows, registry) == {
        "anthropic": {"keys": ["ANTHROPIC_API_KEY"], "entries": ["claude-judge"]},
        "openai": {"keys": ["OPENAI_API_KEY"], "entries": ["writer-a", "writer-b"]}}
    no_keys.setenv("OPENAI_API_KEY", "sk-test")
    assert list(missing_api_keys(rows, registry)) == ["anthropic"]


def test_max_cost_refuses_a_plan_above_it_or_one_that_could_not_count_everything():
    planned = {"totals": {"cost_usd": 1.25, "calls": 40}, "runs": 3, "failed_runs": 0}
    assert refusal(planned, 2.0) is None
    assert refusal(planned, 1.25) is None  # at the limit is within it
    assert "$1.2500 (40 calls) is above --max-cost $1.0000" in refusal(planned, 1.0)
    assert "1 of the plan's 3 runs failed" in refusal({**planned, "failed_runs": 1}, 2.0)


@pytest.mark.parametrize("limit", ["-1", "nan", "five"])
def test_max_cost_must_be_a_number_of_dollars(limit, capsys):
    from scripts import materialize_all

    with pytest.raises(SystemExit) as exited:  # refused by the parser, before anything is planned or run
        materialize_all.main(["--max-cost", limit])
    assert exited.value.code == 2
    assert f"must be a number of dollars (at least 0), not {limit!r}" in capsys.readouterr().err


def test_max_cost_also_caps_the_calls_of_the_run_it_lets_start(tmp_path, monkeypatch):
    """The plan is an estimate: the run it lets start carries the limit to its LLM client (benchwright/llm/budget.py),
    counted from the run's start."""
    import time

    from scripts import materialize_all, orchestrate, plan

    class Started(Exception):
        pass

    seen = {}

    def materialize_everything(instance, resources, **options):
        seen["llm"] = resources["llm"]
        raise Started

    monkeypatch.setenv("BENCHWRIGHT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home" / "dagster_home"))  # main sets it: restored after
    planned = []
    # The plan is within the limit; what it was asked to plan is kept.
    monkeypatch.setattr(plan, "check_cost", lambda limit, scope=None, retry_given_up=False:
                        planned.append((limit, retry_given_up)) and 0)
    monkeypatch.setattr(orchestrate, "materialize_everything", materialize_everything)
    before = time.time()
    with pytest.raises(Started):
        materialize_all.main(["--max-cost", "3.5"])
    assert seen["llm"].max_cost_usd == 3.5 and before <= seen["llm"].budget_since <= time.time()
    with pytest.raises(Started):
        materialize_all.main([])
    assert seen["llm"].max_cost_usd is None
    # --retry-given-up: the plan counts the given-up requests, and the run asks them.
    with pytest.raises(Started):
        materialize_all.main(["--max-cost", "2", "--retry-given-up"])
    assert planned == [(3.5, False), (2.0, True)] and seen["llm"].retry_given_up
