"""Spending caps: a registry entry's `budget_usd` (what its model string may cost in this home, over every run)
and a run's `--max-cost` (what the calls made since the run started may cost).

A budget is kept the way the provider's tpm is: each call reserves its estimated price before it is sent (its
prompt at about four characters a token times the input price, plus the completion tokens reserved for tpm, the
request's `max_tokens` when it has one, times the output price), and the actual price replaces the estimate when
the call ends. A call is sent only while what was spent, plus what is reserved for the calls in flight, plus its
own estimate stays within the limit; a call without room waits while calls of the budget are in flight (their
actual price is often below their estimate). When a call does not fit with none in flight the budget is *reached*:
no further call of the run is sent (not even a smaller one: the run stops, it does not pick the cheap requests),
and the answers are kept. The requests not sent get an error result and nothing in the cache
(neither an answer nor a failure, so `failures.py` never gives them up): the next run, with a larger budget, sends
exactly those, every answered request being a cache hit.

Spend so far is read from the response cache (`ResponseCache.spent_usd`: every answered call's price, kept with
its answer) when a runner's `run` starts, then counted in the process. Two processes running calls of the same
budget at the same time each see the other's spend only from their next `run`: a budget can then be crossed by
what the other process had in flight.

Prices are litellm's (`litellm.cost_per_token`, its base tier; a custom model gets one with
`litellm.register_model`). A model
without a price under a budget is refused, not counted as free.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from benchwright.llm.litellm_setup import load_litellm
from benchwright.llm.providers import estimated_tokens

RUN_BUDGET = "--max-cost"
_PER = 1000  # tokens priced at once by `unit_prices` (so that a tiny price per token is not rounded away)


class Unpriced(ValueError):
    """A model under a budget that litellm's price table does not price: its spend could not be counted."""


@dataclass
class Budget:
    """One spending cap as a run sees it: `name` says which (`budget_usd of <slug or model>` or `--max-cost`)."""

    name: str
    limit_usd: float
    spent_usd: float = 0.0  # before this run (from the cache), plus this run's calls that ended
    reserved_usd: float = 0.0  # estimates of this run's calls in flight
    in_flight: int = 0  # this run's calls holding a reservation
    reached: bool = False
    not_sent: int = 0

    def fits(self, usd: float) -> bool:
        """Whether a call estimated at `usd` may be sent now. One that does not fit with no call in flight never
        will: the budget is then reached, and no call fits any more."""
        if self.reached:
            return False
        if self.spent_usd + self.reserved_usd + usd <= self.limit_usd:
            return True
        self.reached = self.in_flight == 0
        return False

    def message(self) -> str:
        return (f"budget reached ({self.name}): ${self.spent_usd:.4f} of ${self.limit_usd:.4f}, {self.not_sent} "
                f"requests not sent; raise the budget to continue")


@dataclass
class Reservation:
    budgets: list[Budget] = field(default_factory=list)
    usd: float = 0.0

    def settle(self, actual_usd: float) -> None:
        """The call ended: its estimate leaves the reservations, its actual price joins the spend."""
        for budget in self.budgets:
            budget.reserved_usd -= self.usd
            budget.in_flight -= 1
            budget.spent_usd += actual_usd
        self.budgets = []


def unit_prices(model: str) -> tuple[float, float]:
    """USD per prompt token and per completion token of a model in litellm's table (its base tier: a price that
    rises for very long prompts is not followed); `Unpriced` when litellm has none. Looked up once per model and
    run: litellm's lookup costs about as much as the rest of a budget's work per call."""
    try:
        prompt_usd, completion_usd = load_litellm().cost_per_token(model=model, prompt_tokens=_PER,
                                                                   completion_tokens=_PER)
    except Exception as err:  # litellm raises when the model is not in its table
        raise Unpriced(f"{model} has no price in litellm's table, so a budget cannot be kept for it: register one "
                       f"(litellm.register_model) or remove the budget") from err
    return float(prompt_usd) / _PER, float(completion_usd) / _PER


def estimated_price(prices: tuple[float, float], messages: list[dict], tokens_out: int) -> float:
    """USD a call is expected to cost at these `unit_prices`: its prompt at about four characters a token and the
    completion tokens reserved."""
    return estimated_tokens(messages, 0) * prices[0] + tokens_out * prices[1]


def reserve(budgets: list[Budget], usd: float) -> Reservation | None:
    """Reserve `usd` in every budget that applies, or None (reserving nothing) when one of them has no room now:
    the caller waits for a call in flight to end and asks again, unless a budget is `reached`."""
    if not all([budget.fits(usd) for budget in budgets]):  # a list: each budget that can never fit is marked reached
        return None
    for budget in budgets:
        budget.reserved_usd += usd
        budget.in_flight += 1
    return Reservation(list(budgets), usd)
