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
