"""Budgets through `dev.py run` (scripts/materialize_all.py, in this process), end to end: a candidate answering
over HTTP from the loopback server at a registered price, with a `budget_usd` smaller than its answers cost. The
run keeps the answers it paid for, its step is partial (failed_calls check, metadata) and the summary says how many
requests were not sent; the run after the budget is raised sends exactly those."""

import re
import sqlite3

import litellm
import pytest

from scripts.materialize_all import main
from tests.integration.test_run_scope import http_entry, simulated_reply
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline import SHIPPED_MODELS, pick, write_registry

PRICE_IN, PRICE_OUT = 1e-5, 2e-5  # USD per token of openai/writer-a, registered below
SCOPE = ["--benchmark", "creation", "--model", "writer-a", "--judge", "judge-a", "--parallel-runs", "1"]


@pytest.fixture
def home(tmp_path, monkeypatch):
    litellm.register_model({"openai/writer-a": {"input_cost_per_token": PRICE_IN, "output_cost_per_token": PRICE_OUT,
                                                "litellm_provider": "openai", "mode": "chat"}})
    monkeypatch.setenv("BENCHWRIGHT_MODELS", str(tmp_path / "registry" / "models.yaml"))
    monkeypatch.setenv("BENCHWRIGHT_JUDGES", str(tmp_path / "registry" / "judges.yaml"))
    for variable in ("BENCHWRIGHT_WAREHOUSE", "BENCHWRIGHT_PANELS", "BENCHWRIGHT_LLM_MODE", "BENCHWRIGHT_PROVIDERS",
                     "BENCHWRIGHT_PLUGINS"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("BENCHWRIGHT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home" / "dagster_home"))
    with OpenAIServer(reply=simulated_reply, max_lifetime_s=240) as server:
        def registry(budget: float) -> None:
            writer = {**http_entry("writer-a", "candidate", server.base_url), "budget_usd": budget}
            write_registry(tmp_path / "registry", {**pick(SHIPPED_MODELS, "sim-baseline", "sim-describer"),
                                                   "writer-a": writer},
                           {"judge-a": http_entry("judge-a", "judge", server.base_url)})
        yield tmp_path / "home", server, registry


def _spent(home) -> list[float]:
    con = sqlite3.connect(str(home / "llm_cache.sqlite3"))
    try:
        return [cost for (cost,) in con.execute("SELECT cost_usd FROM responses WHERE model = 'openai/writer-a'")]
    finally:
        con.close()


def test_a_budget_stops_a_run_clearly_and_a_raised_one_sends_only_what_was_not_sent(home, capsys):
    home, server, registry = home
    budget = 0.02
    registry(budget)
    main(SCOPE)  # exit status: 1 when over 10 % of the step's calls were not made (its failed_calls check's ERROR)
    out = capsys.readouterr().out
    sent = server.count(model="writer-a")
    found = re.search(r"Budget reached: (\d+) requests not sent", out)
    assert found, out[-3000:]
    not_sent = int(found.group(1))
    assert sent > 0 and not_sent > 0
    assert re.search(rf"budget reached \(budget_usd of writer-a\): \$[0-9.]+ of \${budget:.4f}, {not_sent} requests "
                     r"not sent; raise the budget to continue \[writer-a\]", out)
    assert "failed_calls" in out  # the step is partial, and its check says so
    costs = _spent(home)
    assert len(costs) == sent and sum(costs) <= budget + max(costs)

    registry(1.0)
    server.reset_counts()
    assert main(SCOPE) == 0
    out = capsys.readouterr().out
    assert "Budget reached" not in out
    # Exactly the requests not sent before: nothing answered is asked again.
    assert server.count(model="writer-a") == not_sent and len(_spent(home)) == sent + not_sent
