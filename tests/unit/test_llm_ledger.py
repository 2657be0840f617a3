"""The cost ledger: every result a scoped run returns is journalled, a call or a cache hit, with who asked."""

from __future__ import annotations

import dataclasses

import pytest

from benchwright.llm import LEDGER_COLUMNS, CallScope, LLMRequest, LLMRunner
from tests.support.openai_server import OpenAIServer

SCOPE = CallScope(benchmark="creation", stage="creation_generations", model="writer", partition_key="writer",
                  run_id="run-1")


def _rows(runner: LLMRunner) -> list[dict]:
    return [dict(zip(LEDGER_COLUMNS, row)) for row in runner.cache.ledger_since(0.0)]


def _sim(i: int, sample: int = 0) -> LLMRequest:
    return LLMRequest(model="sim/steady", messages=[{"role": "user", "content": f"Name prime number {i}."}],
                      sample_index=sample)


def test_a_scoped_run_enters_every_result_with_who_asked(tmp_path):
    runner = LLMRunner(str(tmp_path / "llm.sqlite"))
    requests = [_sim(0), _sim(1), _sim(0)]  # the third repeats the first: answered once
    results, stats = runner.run(requests, scope=SCOPE)
    rows = _rows(runner)
    assert len(rows) == 3 and len({r["ledger_id"] for r in rows}) == 3
    assert {(r["benchmark"], r["stage"], r["model"], r["judge"], r["partition_key"], r["run_id"]) for r in rows} == {
        ("creation", "creation_generations", "writer", "", "writer", "run-1")}
    assert [r["request_key"] for r in rows] == [results[0].key, results[1].key, ""]  # the hit row has no one key
    assert [bool(r["cached"]) for r in rows] == [False, False, True] and stats.api_calls == 2
    assert [r["results"] for r in rows] == [1, 1, 1]
    assert all(r["llm_model"] == "sim/steady" and r["simulated"] and r["tokens_in"] > 0 for r in rows)

    # Again: every result is a cache hit, the three counted in one row that keeps the usage of the calls that
    # first answered them (summed).
    runner.run(requests, scope=dataclasses.replace(SCOPE, run_id="run-2"))
    [second] = [r for r in _rows(runner) if r["run_id"] == "run-2"]
    assert second["cached"] and second["results"] == 3
    assert second["tokens_out"] == sum(r.tokens_out for r in results)


def test_an_unscoped_run_enters_nothing_and_scopes_may_be_per_request(tmp_path):
    runner = LLMRunner(str(tmp_path / "llm.sqlite"))
    runner.run([_sim(5)])
    assert _rows(runner) == []
    scopes = [dataclasses.replace(SCOPE, judge=judge) for judge in ("j1", "j2")]
    runner.run([_sim(6), _sim(7)], scope=scopes)
    assert [r["judge"] for r in _rows(runner)] == ["j1", "j2"]
    with pytest.raises(ValueError, match="2 ledger scopes for 3 requests"):
        runner.run([_sim(8), _sim(9), _sim(10)], scope=scopes)


def test_a_failed_call_is_entered_as_an_error_with_no_usage(tmp_path):
    runner = LLMRunner(str(tmp_path / "llm.sqlite"), max_retries=0, timeout_s=5)
    with OpenAIServer(always="400", max_lifetime_s=20) as server:
        request = LLMRequest(model="openai/unit-model", messages=[{"role": "user", "content": "hi"}],
                             api_base=server.base_url)
        [result], stats = runner.run([request], scope=SCOPE)
    [row] = _rows(runner)
    assert result.error and stats.errors == 1
    assert row["error"] and not row["cached"] and row["tokens_in"] == 0 and row["cost_usd"] == 0
