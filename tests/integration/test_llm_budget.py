"""Budgets (benchwright/llm/budget.py) on the real provider path: litellm -> HTTP -> the loopback server, at a
price registered for the test's model. A budget stops the run's calls before they cross it, keeps the answers,
says how many requests were not sent, and a larger budget sends exactly those; two processes spending one
budget at the same time stay within it together."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

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
        # A run's cap is kept in its process: calls without a `budget_usd` touch nothing of the shared budgets.
        assert (tmp_path / "provider_slots.sqlite3").exists()  # the provider leases were taken there
        slots = sqlite3.connect(str(tmp_path / "provider_slots.sqlite3"))
        assert not slots.execute("SELECT name FROM sqlite_master WHERE name LIKE 'budget%'").fetchall()
        slots.close()
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


# A process started cold that spends one `budget_usd` with another at the same time: it warms litellm up on a model
# without a budget, says "ready", waits for the go file, then runs its requests and prints what it paid for.
CHILD = """
import json, os, sys, time
from benchwright.llm import LLMRequest, LLMRunner, ModelLimits
from benchwright.llm.litellm_setup import load_litellm

cache, base_url, name, budget, go, model, padding, price_in, price_out = sys.argv[1:10]
load_litellm().register_model({model: {"input_cost_per_token": float(price_in),
                                       "output_cost_per_token": float(price_out), "litellm_provider": "openai",
                                       "mode": "chat"}})
runner = LLMRunner(cache, timeout_s=20, max_retries=1, backoff_base_s=0.01)
runner.run([LLMRequest(model="openai/bw-warm-up", messages=[{"role": "user", "content": name}], api_base=base_url)])
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.005)
requests = [LLMRequest(model=model, messages=[{"role": "user", "content": f"{name}{i}{padding}"}],
                       params={"max_tokens": 2}, api_base=base_url) for i in range(12)]
results, stats = runner.run(requests, limits={model: ModelLimits(max_concurrency=3, budget_usd=float(budget),
                                                                   budget_name="priced")})
print(json.dumps({"costs": [r.cost_usd for r in results if r.text is not None], "not_sent": stats.not_sent,
                  "budgets": stats.budgets}))
"""


def test_two_processes_spending_one_budget_at_once_stay_within_it_and_a_larger_one_sends_only_the_rest(tmp_path):
    root = Path(__file__).resolve().parents[2]
    cache = tmp_path / "llm.sqlite"

    def run_both(srv: OpenAIServer, budget: float, go: Path) -> list[dict]:
        """Two processes started cold, spending `budget` at the same time: what each printed."""
        children = [subprocess.Popen([sys.executable, "-c", CHILD, str(cache), srv.base_url, name, str(budget),
                                      str(go), MODEL, PADDING, str(PRICE_IN), str(PRICE_OUT)], cwd=str(root),
                                     env={**os.environ, "PYTHONPATH": str(root)}, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    for name in ("a", "b")]
        try:
            # Both cold starts are over before either sends a priced call: their calls overlap.
            assert [child.stdout.readline().strip() for child in children] == ["ready", "ready"]
            go.touch()
            outputs = [child.communicate(timeout=60) for child in children]
        finally:
            for child in children:
                child.kill()
        assert all(child.returncode == 0 for child in children), [err[-3000:] for _, err in outputs]
        return [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]

    budget = 0.02
    # Each call takes 0.1 s at the server, 3 at a time per process: what either spends is in flight while the other
    # reserves. Each process alone would spend the whole budget (7 calls of about $0.0026).
    with OpenAIServer(latency_s=0.1, max_lifetime_s=120, reply=lambda body: "ok") as srv:
        first = run_both(srv, budget, tmp_path / "go-1")
        costs = [cost for child in first for cost in child["costs"]]
        not_sent = sum(child["not_sent"] for child in first)
        assert srv.count(model="bw-budget-priced") == len(costs) and costs and not_sent
        assert len(costs) + not_sent == 24
        assert sum(costs) <= budget + max(costs), (len(costs), sum(costs))
        # Each process says the budget was reached, with the spend of both.
        for child in first:
            if child["not_sent"]:
                [message] = child["budgets"]
                spent = float(message.split("$")[1].split(" ")[0])
                assert message.startswith("budget reached (budget_usd of priced)") and spent == pytest.approx(
                    sum(costs), abs=1e-4)

        # A larger budget sends each request not sent before, once, and nothing else.
        requests = [LLMRequest(model=MODEL, messages=[{"role": "user", "content": f"{name}{i}{PADDING}"}],
                               params={"max_tokens": 2}, api_base=srv.base_url) for name in "ab" for i in range(12)]
        with _runner(tmp_path) as runner:
            results, raised = runner.run(requests, limits=_limits(1.0))
        assert raised.api_calls == not_sent and raised.not_sent == 0 and raised.cache_hits == len(costs)
        prompts = [prompt for prompt in _sent_prompts(srv) if prompt not in ("a", "b")]  # not the warm-ups
        assert len(prompts) == len(set(prompts)) == 24  # zero repeats
        assert all(r.text == "ok" for r in results)
