"""Budgets (benchwright/llm/budget.py) on the real provider path: litellm -> HTTP -> the loopback server, at a
price registered for the test's model. A budget stops the run's calls before they cross it, keeps the answers,
says how many requests were not sent, and a larger budget sends exactly those."""

from __future__ import annotations

import sqlite3

import litellm
import pytest

from benchwright.llm import CallScope, LLMRequest, LLMRunner, ModelLimits
from benchwright.llm.budget import Unpriced
from tests.support.openai_server import OpenAIServer

MODEL = "openai/bw-budget-priced"  # not in litellm's table: priced below, served by the loopback server
PRICE_IN, PRICE_OUT = 1e-5, 2e-5  # USD per token
PADDING = " word" * 200  # prompts of about 250 tokens, so each call costs about $0.0026


@pytest.fixture(scope="module", autouse=True)
def _price():
    litellm.register_model({MODEL: {"input_cost_per_token": PRICE_IN, "output_cost_per_token": PRICE_OUT,
                                    "litellm_provider": "openai", "mode": "chat"}})


def _reqs(srv: OpenAIServer, n: int, model: str = MODEL) -> list[LLMRequest]:
    return [LLMRequest(model=model, messages=[{"role": "user", "content": f"q{i}{PADDING}"}],
                       params={"max_tokens": 2}, api_base=srv.base_url, tag=f"item-{i}") for i in range(n)]


def _runner(tmp_path, **kw) -> LLMRunner:
    return LLMRunner(str(tmp_path / "llm.sqlite"), timeout_s=10, max_retries=1, backoff_base_s=0.01, **kw)


def _limits(budget: float) -> dict[str, ModelLimits]:
    return {MODEL: ModelLimits(max_concurrency=3, budget_usd=budget, budget_name="priced")}


def _sent_prompts(srv: OpenAIServer) -> list[str]:
    return [body["messages"][0]["content"].split(" ", 1)[0] for body in srv.bodies]


def test_a_budget_stops_the_calls_and_a_larger_one_sends_only_those_not_sent(tmp_path):
    budget = 0.02
    with OpenAIServer(max_lifetime_s=30, reply=lambda body: "ok") as srv:
        reqs = _reqs(srv, 20)
        with _runner(tmp_path) as runner:
            results, stats = runner.run(reqs, limits=_limits(budget), scope=CallScope("b", "generations", "priced"))
        answered = [r for r in results if r.text is not None]
        unsent = [r for r in results if r.error is not None]
        one_call = max(r.cost_usd for r in answered)
        assert answered and unsent and len(answered) + len(unsent) == 20
        # Spend is what litellm's table gives these tokens, and stays within the budget plus one call's price.
        assert stats.cost_usd == pytest.approx(sum(r.cost_usd for r in answered)) and stats.cost_usd > 0
        assert stats.cost_usd <= budget + one_call
        assert stats.api_calls == len(answered) == srv.count() and stats.not_sent == len(unsent)
        assert all(r.error.startswith("not sent: budget reached (budget_usd of priced)") for r in unsent)
        assert stats.budgets == [f"budget reached (budget_usd of priced): ${stats.cost_usd:.4f} of ${budget:.4f}, "
                                 f"{len(unsent)} requests not sent; raise the budget to continue"]
        assert stats.as_metadata()["not_sent"] == len(unsent) and "raise the budget" in stats.as_metadata()["budget"]
        # The cost ledger counts the calls made, not the requests kept back (no call, no row).
        con = sqlite3.connect(str(tmp_path / "llm.sqlite"))
        assert con.execute("SELECT count(*), sum(cost_usd) FROM ledger").fetchone() == (
            len(answered), pytest.approx(stats.cost_usd))
        con.close()

        # The same budget again: it was spent by the first run (budget_usd counts every run), nothing is sent.
        with _runner(tmp_path) as runner:
            _, again = runner.run(reqs, limits=_limits(budget))
            assert runner.cache.count_errors() == 0  # nothing recorded as failed: nothing is ever given up
        assert again.api_calls == 0 and again.not_sent == len(unsent) and srv.count() == len(answered)

        # A larger budget sends exactly the requests not sent, each once; the answers are kept.
        with _runner(tmp_path) as runner:
            final, raised = runner.run(reqs, limits=_limits(1.0))
        assert raised.api_calls == len(unsent) and raised.not_sent == 0 and raised.cache_hits == len(answered)
        prompts = _sent_prompts(srv)
        assert len(prompts) == len(set(prompts)) == 20  # zero repeats
        unsent_keys = {r.key for r in unsent}
        assert sorted(prompts[len(answered):]) == sorted(f"q{i}" for i, r in enumerate(results) if r.key in unsent_keys)
        assert all(r.text == "ok" for r in final)


def test_max_cost_caps_this_runs_calls_over_every_model(tmp_path):
    with OpenAIServer(max_lifetime_s=30, reply=lambda body: "ok") as srv:
        reqs = _reqs(srv, 12)
        with _runner(tmp_path, max_cost_usd=0.01) as runner:
            results, stats = runner.run(reqs, limits={MODEL: ModelLimits(max_concurrency=2)})
        one_call = max(r.cost_usd for r in results if r.text is not None)
        assert 0 < stats.api_calls < 12 and stats.api_calls + stats.not_sent == 12
        assert stats.cost_usd <= 0.01 + one_call
        assert stats.budgets[0].startswith("budget reached (--max-cost)")
        # A new run has a cap of its own (it counts the calls since it started): it sends the rest, once each.
        with _runner(tmp_path, max_cost_usd=1.0) as runner:
            _, second = runner.run(reqs, limits={MODEL: ModelLimits(max_concurrency=2)})
        assert second.api_calls == stats.not_sent and len(set(_sent_prompts(srv))) == srv.count() == 12


def test_an_unpriced_model_under_a_budget_is_refused_before_any_call(tmp_path):
    with OpenAIServer(max_lifetime_s=30) as srv:
        with _runner(tmp_path) as runner, pytest.raises(Unpriced, match="no price in litellm's table"):
            runner.run(_reqs(srv, 3, model="openai/bw-budget-unpriced"),
                       limits={"openai/bw-budget-unpriced": ModelLimits(budget_usd=1.0)})
        assert srv.count() == 0
