"""The budgets' arithmetic (benchwright/llm/budget.py): reservations in flight count with the spend, the first
call without room reaches the budget, and a settled call's actual price replaces its estimate."""

import litellm
import pytest

from benchwright.llm.budget import Budget, Unpriced, estimated_price, reserve, unit_prices

MODEL = "openai/bw-budget-unit"


def test_a_call_waits_for_room_while_calls_are_in_flight_and_the_budget_is_reached_when_none_is():
    budget = Budget("budget_usd of m", limit_usd=1.0, spent_usd=0.25)
    first, second = reserve([budget], 0.3), reserve([budget], 0.3)
    assert first and second and budget.reserved_usd == pytest.approx(0.6) and budget.in_flight == 2
    # 0.25 + 0.6 + 0.3 > 1, but the calls in flight may cost less than their estimates: not reached yet.
    assert reserve([budget], 0.3) is None and not budget.reached
    first.settle(0.1)  # cheaper than estimated
    third = reserve([budget], 0.3)  # 0.35 + 0.3 + 0.3 ≤ 1: room now
    assert third and budget.reserved_usd == pytest.approx(0.6)
    second.settle(0.3)
    third.settle(0.3)
    assert budget.in_flight == 0 and budget.reserved_usd == pytest.approx(0.0) and budget.spent_usd == pytest.approx(0.95)
    assert reserve([budget], 0.3) is None and budget.reached  # nothing in flight: it will never fit
    # Once reached, even a call that would fit is not sent: the run stops rather than picking the cheap requests.
    assert reserve([budget], 0.01) is None
    first.settle(5.0)  # settled once only
    assert budget.spent_usd == pytest.approx(0.95)


def test_a_call_reserves_in_every_budget_that_applies_or_in_none():
    model, run = Budget("budget_usd of m", 1.0), Budget("--max-cost", 0.5, spent_usd=0.4)
    assert reserve([model, run], 0.2) is None
    assert run.reached and not model.reached and model.reserved_usd == run.reserved_usd == 0
    assert model.in_flight == run.in_flight == 0
    assert reserve([model], 0.2) is not None and model.reserved_usd == pytest.approx(0.2)


def test_the_message_says_spent_limit_and_what_was_not_sent():
    budget = Budget("--max-cost", 2.0, spent_usd=1.98764, not_sent=7)
    assert budget.message() == ("budget reached (--max-cost): $1.9876 of $2.0000, 7 requests not sent; raise the "
                                "budget to continue")


def test_the_estimate_is_litellm_price_of_the_prompt_and_the_reserved_completion():
    litellm.register_model({MODEL: {"input_cost_per_token": 1e-6, "output_cost_per_token": 3e-6,
                                    "litellm_provider": "openai", "mode": "chat"}})
    messages = [{"role": "user", "content": "x" * 400}]  # about 100 tokens
    prices = unit_prices(MODEL)
    assert prices == pytest.approx((1e-6, 3e-6))
    assert estimated_price(prices, messages, 50) == pytest.approx(100 * 1e-6 + 50 * 3e-6)
    with pytest.raises(Unpriced, match="openai/bw-budget-unit-nothing has no price"):
        unit_prices(MODEL + "-nothing")


def test_requests_a_budget_kept_back_are_asked_again_by_the_main_job_not_retried_by_the_sensor():
    from benchwright.llm.failures import calls_to_ask_again, calls_to_retry

    held = {"errors": 9, "given_up": 1, "not_sent": 5}
    assert calls_to_ask_again(held) == 8  # the partition is not up to date: the next run asks them
    assert calls_to_retry(held) == 3  # the sensor retries only the failures a later attempt may fix
    assert calls_to_retry({"errors": 5, "not_sent": 5}) == 0 and calls_to_retry({"errors": 2}) == 2


def _shared(path, hold_s: float = 600.0):
    from benchwright.llm.budget import SharedBudgets
    from benchwright.llm.providers import ProviderGate

    return SharedBudgets(ProviderGate(path), hold_s=hold_s)


def test_a_shared_budget_counts_every_process_holds_and_spend(tmp_path):
    # Two books on one file, as two processes of a home have: each sees what the other holds and spent.
    one, two = _shared(tmp_path / "slots.sqlite3"), _shared(tmp_path / "slots.sqlite3")
    mine, theirs = Budget("budget_usd of m", 1.0, key="m"), Budget("budget_usd of m", 1.0, key="m")
    one.open(mine, lambda: 0.25)
    two.open(theirs, lambda: 99.0)  # a run already spends the budget: its spend is the file's, not read anew
    assert theirs.spent_usd == 0.25
    first = reserve([mine], 0.3, one)
    second = reserve([theirs], 0.3, two)
    assert first and second and theirs.in_flight == 2 and theirs.reserved_usd == pytest.approx(0.6)
    # 0.25 + 0.6 + 0.3 > 1 with calls in flight in the other process: not reached, and nothing held.
    assert reserve([mine], 0.3, one) is None and not mine.reached and mine.in_flight == 2
    first.settle(0.1)  # the other process sees its actual price once written
    mine.seen_at = theirs.seen_at = float("-inf")  # look at the file now, not in _SEEN_S
    third = reserve([theirs], 0.3, two)
    assert third and theirs.spent_usd == pytest.approx(0.35) and theirs.in_flight == 2
    second.settle(0.3)
    third.settle(0.3)
    mine.seen_at = float("-inf")
    assert reserve([mine], 0.3, one) is None and mine.reached and mine.spent_usd == pytest.approx(0.95)
    # A local cap beside a shared budget: neither holds anything when one has no room.
    run, other = Budget("--max-cost", 0.1), Budget("budget_usd of n", 1.0, key="n")
    one.open(other, lambda: 0.0)
    assert reserve([other, run], 0.2, one) is None and run.reached and other.in_flight == 0
    assert one.gate.db.execute("SELECT COUNT(*) FROM budget_holds WHERE budget = 'n'").fetchone() == (0,)


def test_the_spend_is_read_from_the_cache_again_when_no_run_spends_the_budget(tmp_path):
    one, two = _shared(tmp_path / "slots.sqlite3"), _shared(tmp_path / "slots.sqlite3")
    first, second = Budget("b", 1.0, key="m"), Budget("b", 1.0, key="m")
    one.open(first, lambda: 0.5)
    reserve([first], 0.1, one).settle(0.2)
    one.close(first)
    one.gate.flush()
    two.open(second, lambda: 0.4)  # what the cache holds now (say, answers of runs without the budget)
    assert second.spent_usd == 0.4


def test_holds_and_runs_of_a_process_that_is_gone_are_dropped(tmp_path):
    import subprocess
    import sys
    import time

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(gone.stdout)
    book = _shared(tmp_path / "slots.sqlite3")
    db = book.gate.db
    db.execute("INSERT INTO budget_runs (budget, pid) VALUES ('m', ?)", (pid,))
    db.execute("INSERT INTO budget_holds (budget, pid, usd, expires) VALUES ('m', ?, 0.9, ?)", (pid, time.time() + 600))
    # An expired hold of a live process goes too.
    db.execute("INSERT INTO budget_holds (budget, pid, usd, expires) VALUES ('m', ?, 0.9, ?)", (1, time.time() - 1))
    budget = Budget("b", 1.0, key="m")
    book.open(budget, lambda: 0.0)  # the gone run does not count: the spend is read anew
    assert budget.in_flight == 0 and budget.reserved_usd == 0
    assert reserve([budget], 0.5, book) is not None
