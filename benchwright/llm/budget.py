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

A `budget_usd` holds across processes, as the provider limits do (providers.py): its spend and the reservations of
its calls in flight, every process's, are kept in the home's provider-slots file (`PROVIDER_SLOTS_FILE`, through
the `ProviderGate`'s connection, busy timeout and deferred writes), by `SharedBudgets`:

- `budget_holds`: a call in flight under the budget and its estimate. A call reserves in a write transaction that
  reads the spend and every process's holds first, so two processes never fill the same room; its hold is deleted
  and its actual price added to the spend when it ends (written with the lease releases, at the end of the event
  loop's pass). The budget is reached when a call does not fit and no process has a call of it in flight.
- `budget_spend`: the spend. The first run to spend the budget while no other does reads it from the response cache
  (`ResponseCache.spent_usd`: every answered call's price, kept with its answer, the calls of runs without the budget
  included); from then on the runs spending it add their calls' prices there, as the cache may hold a call's answer
  a pass of the event loop after its price counted.
- `budget_runs`: the runs spending the budget now, each from its first call under it until its answers are
  committed to the cache; while one lives, `budget_spend` is the spend, and when none does, the cache is.
- the holds and runs of a process that is gone (killed mid-call) are dropped, at most a second after (a killed call's
  answer is not in the cache, so it is counted by nobody, as before); a hold that outlives a call with its retries
  (`LLMRunner._stale_after_s`, the age a claim goes stale) too.

A run's `--max-cost` is kept per process: its spend so far is read from the cache (the calls answered since the
run's start) when a runner's `run` starts, then counted in the process. Two processes of one run (parallel
partitions) each see the other's spend only from their next `run`, so the run's cap can be crossed by what the
other had in flight.

Prices are litellm's (`litellm.cost_per_token`, its base tier; a custom model gets one with
`litellm.register_model`). A model without a price under a budget is refused, not counted as free. A call with no
budget touches none of this.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from typing import Callable

from benchwright.llm.litellm_setup import load_litellm
from benchwright.llm.providers import CLEAN_EVERY_S, ProviderGate, estimated_tokens, process_alive

RUN_BUDGET = "--max-cost"
_PER = 1000  # tokens priced at once by `unit_prices` (so that a tiny price per token is not rounded away)
# How long a process trusts what it last read of a shared budget that had no room: its calls waiting for room look
# at the file at most this often together, not each every time it wakes.
_SEEN_S = 0.02
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS budget_spend (budget TEXT PRIMARY KEY, spent REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS budget_holds (id INTEGER PRIMARY KEY, budget TEXT NOT NULL, pid INTEGER NOT NULL, "
    "usd REAL NOT NULL, expires REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS budget_holds_budget ON budget_holds (budget)",
    "CREATE TABLE IF NOT EXISTS budget_runs (id INTEGER PRIMARY KEY, budget TEXT NOT NULL, pid INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS budget_runs_budget ON budget_runs (budget)",
)


class Unpriced(ValueError):
    """A model under a budget that litellm's price table does not price: its spend could not be counted."""


@dataclass
class Budget:
    """One spending cap as a run sees it: `name` says which (`budget_usd of <slug or model>` or `--max-cost`). A
    budget with a `key` is shared by the home's processes (`SharedBudgets`): its spend, reservations and calls in
    flight are every process's, as last read from the file."""

    name: str
    limit_usd: float
    spent_usd: float = 0.0  # before this run (from the cache), plus the calls that ended
    reserved_usd: float = 0.0  # estimates of the calls in flight
    in_flight: int = 0  # calls holding a reservation
    reached: bool = False
    not_sent: int = 0
    key: str | None = None  # its name in the provider-slots file when shared; None: this process's alone
    run_id: int | None = None  # this run's row in `budget_runs`
    seen_at: float = -math.inf  # when the shared figures were last read (time.monotonic)

    def room(self, usd: float) -> bool:
        return self.spent_usd + self.reserved_usd + usd <= self.limit_usd

    def fits(self, usd: float) -> bool:
        """Whether a call estimated at `usd` may be sent now. One that does not fit with no call in flight never
        will: the budget is then reached, and no call fits any more."""
        if self.reached:
            return False
        if self.room(usd):
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
    holds: list[tuple[str, int]] = field(default_factory=list)  # (key, hold id) in the shared budgets
    shared: "SharedBudgets | None" = None

    def settle(self, actual_usd: float) -> None:
        """The call ended: its estimate leaves the reservations, its actual price joins the spend."""
        for budget in self.budgets:
            budget.reserved_usd -= self.usd
            budget.in_flight -= 1
            budget.spent_usd += actual_usd
        for key, hold in self.holds:
            self.shared.settle(key, hold, actual_usd)
        self.budgets, self.holds = [], []


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


def reserve(budgets: list[Budget], usd: float, shared: "SharedBudgets | None" = None) -> Reservation | None:
    """Reserve `usd` in every budget that applies, or None (reserving nothing) when one of them has no room now:
    the caller waits for a call in flight to end and asks again, unless a budget is `reached`. Shared budgets are
    reserved in `shared`'s file; None too when the file is taken by another writer at this moment (ask again)."""
    if not any(budget.key is not None for budget in budgets):
        return _reserve_here(budgets, usd)
    if any(budget.reached for budget in budgets):
        return None
    now = time.monotonic()
    if any(budget.key is not None and not budget.room(usd) and now - budget.seen_at < _SEEN_S for budget in budgets):
        return None  # no room a moment ago: not worth a transaction of the file yet
    done, reservation = shared.gate.transaction_at_once(lambda: shared.reserve(budgets, usd))
    return reservation if done else None


def _reserve_here(budgets: list[Budget], usd: float) -> Reservation | None:
    if not all([budget.fits(usd) for budget in budgets]):  # a list: each budget that can never fit is marked reached
        return None
    for budget in budgets:
        budget.reserved_usd += usd
        budget.in_flight += 1
    return Reservation(list(budgets), usd)


class SharedBudgets:
    """The `budget_usd` budgets of a home's processes, in its provider-slots file (the module's docstring)."""

    def __init__(self, gate: ProviderGate, hold_s: float):
        self.gate = gate
        self.hold_s = hold_s  # a hold's expiry: longer than a call with its retries
        self._cleaned_at: dict[str, float] = {}  # budget key -> when this process last dropped dead holds and runs

        def schema() -> None:
            for statement in _SCHEMA:
                gate.db.execute(statement)

        gate.transaction(schema)

    def open(self, budget: Budget, seed: Callable[[], float]) -> None:
        """This run starts spending `budget`: its run is entered in `budget_runs`, and when no other run spends the
        budget, the spend is read anew with `seed` (the cache's)."""
        db = self.gate.db

        def work() -> None:
            self._clean(budget.key, time.time())
            (runs,) = db.execute("SELECT COUNT(*) FROM budget_runs WHERE budget = ?", (budget.key,)).fetchone()
            if not runs:
                db.execute("INSERT OR REPLACE INTO budget_spend (budget, spent) VALUES (?, ?)", (budget.key, seed()))
            budget.run_id = db.execute("INSERT INTO budget_runs (budget, pid) VALUES (?, ?)",
                                       (budget.key, os.getpid())).lastrowid
            self._read(budget)

        self.gate.transaction(work)

    def close(self, budget: Budget) -> None:
        """This run's answers are in the cache: it no longer spends `budget` (written with the next deferred writes)."""
        if budget.run_id is not None:
            self.gate.defer("DELETE FROM budget_runs WHERE id = ?", (budget.run_id,))
            budget.run_id = None

    def reserve(self, budgets: list[Budget], usd: float) -> Reservation | None:
        """Inside a transaction of the file: `reserve` with the shared budgets' figures read from it."""
        now = time.time()
        shared = [budget for budget in budgets if budget.key is not None]
        for budget in shared:
            if now - self._cleaned_at.get(budget.key, 0.0) >= CLEAN_EVERY_S:
                self._clean(budget.key, now)
            self._read(budget)
        reservation = _reserve_here(budgets, usd)
        if reservation is not None:
            reservation.shared = self
            for budget in shared:
                hold = self.gate.db.execute("INSERT INTO budget_holds (budget, pid, usd, expires) VALUES (?, ?, ?, ?)",
                                            (budget.key, os.getpid(), usd, now + self.hold_s)).lastrowid
                reservation.holds.append((budget.key, hold))
        return reservation

    def settle(self, key: str, hold: int, actual_usd: float) -> None:
        self.gate.defer("DELETE FROM budget_holds WHERE id = ?", (hold,))
        if actual_usd:
            self.gate.defer("UPDATE budget_spend SET spent = spent + ? WHERE budget = ?", (actual_usd, key))

    def _read(self, budget: Budget) -> None:
        budget.spent_usd, budget.reserved_usd, budget.in_flight = self.gate.db.execute(
            "SELECT COALESCE((SELECT spent FROM budget_spend WHERE budget = ?1), 0), COALESCE(SUM(usd), 0), COUNT(*) "
            "FROM budget_holds WHERE budget = ?1", (budget.key,)).fetchone()
        budget.seen_at = time.monotonic()

    def _clean(self, key: str, now: float) -> None:
        """Drop the holds past their expiry, and the holds and runs of processes that are gone."""
        db = self.gate.db
        db.execute("DELETE FROM budget_holds WHERE expires < ?", (now,))
        pids = [pid for (pid,) in db.execute("SELECT pid FROM budget_holds WHERE budget = ? UNION "
                                             "SELECT pid FROM budget_runs WHERE budget = ?", (key, key))]
        for pid in pids:
            if pid != os.getpid() and not process_alive(pid):
                db.execute("DELETE FROM budget_holds WHERE pid = ?", (pid,))
                db.execute("DELETE FROM budget_runs WHERE pid = ?", (pid,))
        self._cleaned_at[key] = now
