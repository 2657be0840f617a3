"""The LLM engine: cache lookup, then the misses answered by their back end, concurrently, paced and retried.

Which back end answers a miss is chosen by name (`backends.backend_for`): litellm for real providers (`live`), the
provider's batch API for a model whose limits say `batch`, the estimate in plan mode (`plan`), the offline simulator
for `sim/<name>` models. The runner knows them only by name; it keeps what they share: the cache and its journal,
claims, pacing, provider leases, retries and the statistics.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import logging
import os
import random
import re
import socket
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from benchwright.interrupts import interrupts_deferred
from benchwright.llm.backends import Answer, Attempt, Backend, backend_for, make, own_backend
from benchwright.llm.budget import (RUN_BUDGET, Budget, Reservation, SharedBudgets, estimated_price, reserve,
                                    unit_prices)
from benchwright.llm.cache import CachedResponse, JournalledError, ResponseCache
from benchwright.llm.errors import describe, is_retryable, retry_after_s
from benchwright.llm.journal import CURRENT, Journal, record
from benchwright.llm.providers import (PROVIDER_SLOTS_FILE, LeaseQueue, ProviderEntriesRefused, ProviderGate,
                                       ProviderLimits, estimated_tokens, provider_of, reserved_tokens_out)
from benchwright.llm.request import LLMRequest, request_key
from benchwright import progress_bars
from benchwright.llm.progress import Progress
from benchwright.llm.results import (CallScope, CallStats, LLMResult, from_cache, given_up_result, ledger_rows,
                                     percentile)

__all__ = ["CallScope", "CallStats", "LLMResult", "LLMRunner", "ModelLimits", "ReplayMissError", "ledger_rows"]

log = logging.getLogger("benchwright.llm")

# Plan mode (`dev.py plan`) refuses to run unless this file sits beside the cache: the home is a copy.
PLAN_COPY_MARKER = "PLAN_COPY"
# Honour Retry-After, but a server asking for longer than this is treated as failing for this run.
_RETRY_AFTER_CEILING_S = 300.0
# How often a call waiting for room in a budget looks again (calls in flight of that budget end meanwhile).
_BUDGET_POLL_S = 0.02
# A "\ud800" escape in a provider's JSON decodes to a lone surrogate, which is not Unicode: neither
# SQLite nor DuckDB can store it. Each becomes U+FFFD, as a UTF-8 decoder does with ill-formed input.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class ModelLimits:
    """How a model is called: one run's limits for it (its registry entry's), the provider its calls count
    against when the entry names one (else the model string's provider, `providers.provider_of`), and
    `batch`: its misses go through the provider's batch API (about half the price, answers within 24 h)
    instead of live calls; ignored by sim/ models and in plan mode."""

    max_concurrency: int = 8
    rpm: int | None = None
    provider: str | None = None
    batch: bool = False
    # USD this model string may cost in the home over every run (the registry entry's `budget_usd`; budget.py)
    budget_usd: float | None = None
    budget_name: str | None = None  # what the budget's message calls it (the entry's slug)


@dataclass
class _ProviderSlot:
    """What the calls of one model need to take a lease of their provider's capacity."""

    name: str
    limits: ProviderLimits
    queue: LeaseQueue
    tokens_out: int  # expected completion tokens of a call (what is reserved for tpm before its count is known)
    answered: int = 0
    answered_tokens_out: int = 0

    def observe(self, tokens_out: int) -> None:
        """Expect what this run's answers took so far, rather than the first guess, for the calls still to come."""
        self.answered += 1
        self.answered_tokens_out += tokens_out
        self.tokens_out = max(1, round(self.answered_tokens_out / self.answered))


class ReplayMissError(RuntimeError):
    """Replay mode met requests that are not in the cache."""


def _redact(text: str) -> tuple[str, int]:
    from benchwright.pii import redact  # lazy: a sibling module, and only needed when text arrives

    redacted, findings = redact(text)
    return redacted, len(findings)


class _RateLimiter:
    """Spaces request starts at least `interval` seconds apart (smooth, no bursts): 60/rpm for a model's rpm; none
    while the interval is 0."""

    def __init__(self, rpm: float | None = None):
        self.interval = 60.0 / rpm if rpm else 0.0
        self.next_at = 0.0
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self.lock:
            now = time.monotonic()
            start = max(now, self.next_at)
            self.next_at = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


class _StartSpacing(_RateLimiter):
    """Spaces the starts of one model's calls at least a share of (its latency ÷ its calls in flight) apart.

    Calls started together come back together, and the event loop then works on all of them in turn: each call's
    answer is read, and the next request built and sent, only after the whole wave's share of it, so every call in
    flight waits for the wave (64 × ≈ 4 ms of litellm per call ≈ a quarter of a second per round at 500 ms; with a
    provider whose latency hardly varies the waves never break up). Starts spaced this way go out as a stream, each
    answer handled as it comes. The latency used is the shortest answered yet (as the client sees it, its own delays
    included): never more than any call holds its slot, so by Little's law the spacing allows at least 1 ÷ SHARE
    times the rate the calls in flight reach, however long a few slow calls take (a running mean, tried first,
    jumps with one slow call and would then hold the next starts back). It smooths bursts and does not set the
    rate. The first wave goes at once (no latency known yet)."""

    SHARE = 0.75  # of latency ÷ calls in flight: faster than the calls in flight can go, so it does not bind

    def __init__(self, concurrency: int):
        super().__init__()  # no interval until a latency is known
        self.concurrency = max(1, concurrency)
        self.latency_s: float | None = None

    def observe(self, latency_s: float) -> None:
        self.latency_s = latency_s if self.latency_s is None else min(self.latency_s, latency_s)
        self.interval = self.SHARE * self.latency_s / self.concurrency


class LLMRunner:
    def __init__(
        self,
        cache_path: str,
        mode: str = "live",
        timeout_s: float = 60,
        max_retries: int = 4,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
        default_limits: ModelLimits = ModelLimits(),
        batch_poll_s: float = 30.0,
        batch_poll_max_s: float = 600.0,
        provider_limits: Mapping[str, ProviderLimits] | None = None,
        refused_providers: Mapping[str, Sequence[str]] | None = None,
        provider_gate: ProviderGate | None = None,
        retry_given_up: bool = False,
        max_cost_usd: float | None = None,
        budget_since: float | None = None,
    ):
        if mode not in ("live", "replay", "plan"):
            raise ValueError(f"mode must be 'live', 'replay' or 'plan', not {mode!r}")
        if mode == "plan" and not (Path(cache_path).resolve().parent / PLAN_COPY_MARKER).exists():
            # Planned answers are placeholders: in a real cache they would be served as answers later.
            raise ValueError(f"plan mode runs only on a copy of a home made by `dev.py plan` (no {PLAN_COPY_MARKER} "
                             f"beside {cache_path})")
        self.cache = ResponseCache(cache_path)
        self.mode = mode
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        # Ask requests given up by the rule in failures.py again (the operator fixed what made them fail).
        self.retry_given_up = retry_given_up
        # The run's cap (`--max-cost`): what the calls answered since `budget_since` (the run's start; default: this
        # runner's) may cost, this runner's included (budget.py).
        self.max_cost_usd = max_cost_usd
        self.budget_since = time.time() if budget_since is None else budget_since
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.default_limits = default_limits
        # A batch is polled after batch_poll_s, then twice as long each time, at most batch_poll_max_s apart.
        self.batch_poll_s = batch_poll_s
        self.batch_poll_max_s = batch_poll_max_s
        # Limits per provider (registry/providers.yaml); a provider not listed gets ProviderLimits()'s defaults.
        self.provider_limits = dict(provider_limits or {})
        # Providers whose providers.yaml entry was refused (name -> its faults): never called at the defaults.
        self.refused_providers = {name: list(faults) for name, faults in (refused_providers or {}).items()}
        # The provider leases: the home's, opened at the first call to a provider, unless given (tests shrink the
        # rpm/tpm window of theirs)
        self._gate: ProviderGate | None = provider_gate
        self._budgets: SharedBudgets | None = None  # the registry entries' budgets, in the gate's file (budget.py)
        self._rng = random.Random()
        self._backends: dict[str, Backend] = {}  # by name, made at their first miss (plan's keeps its estimates)
        # Who holds a request while calling it (the cache's claims): another process of the home that needs the same
        # request waits for this one's answer instead of paying for it again.
        self.claim_owner = f"{socket.gethostname()}:{os.getpid()}"

    def close(self) -> None:
        self.cache.close()
        if self._gate is not None:
            self._gate.close()

    def gate(self) -> ProviderGate:
        """The home's provider leases (beside the cache), shared with every other process of the home."""
        if self._gate is None:
            self._gate = ProviderGate(Path(self.cache.path).with_name(PROVIDER_SLOTS_FILE),
                                      lease_s=self.timeout_s * 2 + 60)
        return self._gate

    def shared_budgets(self) -> SharedBudgets:
        """The home's `budget_usd` budgets (budget.py), kept in the provider leases' file, opened at the first call
        under one."""
        if self._budgets is None:
            self._budgets = SharedBudgets(self.gate(), hold_s=self._stale_after_s())
        return self._budgets

    def __enter__(self) -> "LLMRunner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- public -------------------------------------------------------------------------------
    def run(
        self,
        requests: list[LLMRequest],
        limits: dict[str, ModelLimits] | None = None,
        progress: Callable[[str], None] | None = None,
        scope: CallScope | Sequence[CallScope] | None = None,
    ) -> tuple[list[LLMResult], CallStats]:
        """Answer every request (results in request order), calling models only for cache misses.
        With a `scope` (one for all requests, or one per request), every result, call or cache hit, is
        entered in the cost ledger."""
        keys = [request_key(r) for r in requests]
        unique: dict[str, LLMRequest] = {}
        for key, req in zip(keys, requests):
            unique.setdefault(key, req)  # duplicates inside one run are called once
        cached = self.cache.get_many(unique)
        misses = {k: r for k, r in unique.items() if k not in cached}
        given_up = {} if self.retry_given_up else self.cache.given_up(misses)
        misses = {k: r for k, r in misses.items() if k not in given_up}

        if misses and self.mode == "replay":
            by_model = Counter(r.model for r in misses.values())
            models = ", ".join(f"{m} ({n})" for m, n in sorted(by_model.items()))
            raise ReplayMissError(
                f"replay mode: {len(misses)} of {len(unique)} distinct requests are not in the cache "
                f"{self.cache.path}; models: {models}"
            )

        if misses and self.mode == "live" and self.refused_providers:
            self._refuse_unknown_limits(misses, limits or {})
        if misses and self.mode == "live":
            self._refuse_unpriced(misses, limits or {})

        stats = CallStats()
        tracker = Progress(progress, total=len(unique), hits=len(cached))
        fresh: dict[str, LLMResult] = {}
        batched: set[str] = set()  # keys answered through a batch API: no latency of their own
        if misses:
            tracker.emit()  # what is left to call; with nothing to call, the final line says it all
            with progress_bars.bar(len(unique), _bar_label(scope, misses), "call", initial=len(cached)) as tracker.bar:
                with _old_objects_frozen():
                    fresh = _run_coroutine(lambda: self._call_all(misses, limits or {}, stats, tracker, batched))
        tracker.emit()  # the final count, unless the last tick already said it

        results: list[LLMResult] = []
        seen: set[str] = set()
        for key in keys:
            if key in given_up:
                result = given_up_result(key, unique[key], given_up[key])
            elif key in fresh:
                result = fresh[key]
                if key in seen and result.error is None:  # a duplicate, answered by the first occurrence
                    result = LLMResult(**{**result.__dict__, "cached": True})
            else:
                result = from_cache(cached[key])
            seen.add(key)
            results.append(result)

        # not those another process answered meanwhile, nor those a budget kept from being sent
        calls = [r for r in fresh.values() if not r.cached and not r.not_sent]
        stats.requests = len(results)
        stats.api_calls = len(calls)
        stats.cache_hits = sum(r.cached for r in results)
        stats.errors = sum(r.error is not None for r in results)
        stats.given_up = sum(r.key in given_up for r in results)
        stats.not_sent = sum(r.not_sent for r in results)
        stats.cost_usd = sum(r.cost_usd for r in calls)
        stats.latencies_ms = [r.latency_ms for r in calls if r.error is None and r.key not in batched]
        stats.latency_p50_ms = percentile(stats.latencies_ms, 0.50)
        stats.latency_p95_ms = percentile(stats.latencies_ms, 0.95)
        if scope is not None:
            self.cache.put_ledger(ledger_rows(scope, requests, results))
        for message in stats.budgets:
            log.warning("%s", message)
        log.info(
            "LLM run: %d requests, %d api calls, %d cache hits, %d errors (%d given up), %d retries, $%.4f",
            len(requests), stats.api_calls, stats.cache_hits, stats.errors, stats.given_up, stats.retries,
            stats.cost_usd,
        )
        return results, stats

    # -- internals -----------------------------------------------------------------------------
    def _refuse_unknown_limits(self, misses: dict[str, LLMRequest], limits: dict[str, ModelLimits]) -> None:
        """Raise before any call when a miss would go to a provider whose providers.yaml entry was refused: its
        limits are unknown, and the defaults could be far above them. Nothing is lost: nothing was called."""
        called = {provider_of(r.model, r.api_base, limits.get(r.model, self.default_limits).provider)
                  for r in misses.values() if own_backend(r.model) is None}
        refused = {name: self.refused_providers[name] for name in sorted(called & set(self.refused_providers))}
        if refused:
            raise ProviderEntriesRefused(refused)

    def _refuse_unpriced(self, misses: dict[str, LLMRequest], limits: dict[str, ModelLimits]) -> None:
        """Raise `budget.Unpriced` before any call when a model to be called under a budget has no price: its spend
        would count as $0 and the budget would not hold."""
        for req in {r.model: r for r in misses.values()}.values():
            under = self.max_cost_usd is not None or limits.get(req.model, self.default_limits).budget_usd is not None
            if under and own_backend(req.model) is None:
                unit_prices(req.model)

    async def _call_all(
        self, misses: dict[str, LLMRequest], limits: dict[str, ModelLimits], stats: CallStats, tracker: Progress,
        batched: set[str],
    ) -> dict[str, LLMResult]:
        groups: dict[str, dict[str, LLMRequest]] = {}  # back end name -> its misses
        for key, req in misses.items():
            name = backend_for(self.mode, req.model, limits.get(req.model, self.default_limits).batch)
            groups.setdefault(name, {})[key] = req
        backends = {name: self.backend(name) for name in groups}
        for name, group in groups.items():
            if not backends[name].timed:
                batched.update(group)
        run = _Run(self, limits, stats, tracker)
        journal = Journal(self.cache, self.claim_owner, self._stale_after_s())
        token = CURRENT.set(journal)  # the back ends' tasks, made below, see it
        try:
            outcomes = await asyncio.gather(*(backends[name].answer_all(group, run) for name, group in groups.items()))
        finally:
            CURRENT.reset(token)
            try:
                journal.flush()  # every answer committed before the run's results are handed on
            finally:
                run.close_budgets()  # after the answers' commit: from now on the cache has this run's spend
                if self._gate is not None:
                    self._gate.flush()
        results: dict[str, LLMResult] = {}
        for outcome in outcomes:
            results.update(outcome)
        stats.budgets = [budget.message() for budget in run.all_budgets() if budget.not_sent]
        return results

    def backend(self, name: str) -> Backend:
        """This runner's back end of that name (`backends.make`), made once."""
        if name not in self._backends:
            self._backends[name] = make(name)
        return self._backends[name]

    def _stale_after_s(self) -> float:
        """Age after which another process's claim is taken over: longer than any call with its retries."""
        return self.timeout_s * (self.max_retries + 2) + 60

    async def _claimed(self, key: str, call: Callable[[], Any]) -> LLMResult:
        """Call a provider for `key` only while holding its claim in the cache, so that parallel runs of the home
        (two partitions sharing a request) pay for it once: while another live process holds it, wait for its
        answer (served as a cache hit); when that one gives up the claim without an answer (it failed, or died),
        claim and call. A claim outlives no call: it is released as soon as the call ends, with its answer. The claims
        of calls starting together are taken in one transaction (`journal.Journal.claim`)."""
        journal = CURRENT.get()
        held, row = await journal.claim(key)
        delay = 0.1
        while row is None and not held:
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
            mine, answered = self.cache.claim_unanswered([key], self.claim_owner, self._stale_after_s())
            held, row = key in mine, answered.get(key)
        if row is not None:  # answered by another run since this run's cache read
            return from_cache(row)
        try:
            return await call()
        finally:
            journal.release(key)

    async def _call_provider(self, key: str, req: LLMRequest, attempt_call: Attempt, pace: _Pace,
                             stats: CallStats) -> LLMResult:
        """One paid call: each attempt paced (the model's rpm and calls in flight in this run) and under a lease of
        its provider (limits across every process of the home), retried by `is_retryable` with `_backoff`. Under
        budgets (budget.py) its estimated price is reserved as its first attempt is about to go, held over its
        retries and replaced by its actual price when it ends; when a budget has no room it is not sent at all."""
        reservation: Reservation | None = None
        paid = 0.0
        try:
            attempt = 0
            while True:
                attempt += 1
                if reservation is None and any(budget.reached for budget in pace.budgets):
                    return self._not_sent(key, req, pace)  # not worth waiting for the rpm: it will not go
                if pace.limiter is not None:
                    await pace.limiter.wait()
                async with pace.semaphore:  # held per attempt, so backoff sleeps do not block other requests
                    slot = pace.slot
                    while pace.budgets and reservation is None:  # no room yet: wait for a call in flight to end
                        reservation = reserve(pace.budgets, estimated_price(pace.prices, req.messages,
                                                                            slot.tokens_out), self._budgets)
                        if reservation is None and any(budget.reached for budget in pace.budgets):
                            return self._not_sent(key, req, pace)
                        if reservation is None:
                            await asyncio.sleep(_BUDGET_POLL_S)
                    await pace.spacing.wait()  # holding the slot: the wave's calls go one by one
                    gate = self.gate()
                    lease = await gate.acquire(slot.name, slot.limits, estimated_tokens(req.messages, slot.tokens_out),
                                               slot.queue)
                    spent: int | None = None
                    try:
                        # The back end's client has its own timeout per HTTP phase; this one bounds the whole attempt.
                        async with asyncio.timeout(self.timeout_s):
                            answer = await attempt_call(req, self.timeout_s, lambda: gate.sent(lease))
                        pace.spacing.observe(answer.latency_ms / 1000)
                        spent = (answer.tokens_in + answer.tokens_out) or None
                        if answer.tokens_out and not req.params.get("max_tokens"):
                            slot.observe(answer.tokens_out)
                    except Exception as err:  # classified below
                        error: BaseException | None = err
                    else:
                        error = None
                    finally:
                        gate.release(lease, spent)
                if error is None:
                    paid = answer.cost_usd
                    return self._success(key, req, answer)
                if not is_retryable(error) or attempt > self.max_retries:
                    log.warning(
                        "LLM call failed for model %s (%s) after %d attempt(s): %s",
                        req.model, req.tag or "untagged", attempt, type(error).__name__,
                    )
                    return self._failure(key, req, error, attempts=attempt, simulated=False)
                delay = self._backoff(attempt, retry_after_s(error))
                stats.retries += 1
                log.info(
                    "retrying model %s (%s), attempt %d, in %.2fs after %s (status %s)",
                    req.model, req.tag or "untagged", attempt + 1, delay, type(error).__name__,
                    getattr(error, "status_code", None),
                )
                await asyncio.sleep(delay)
        finally:
            if reservation is not None:
                reservation.settle(paid)

    def _not_sent(self, key: str, req: LLMRequest, pace: _Pace) -> LLMResult:
        """The result of a request a reached budget keeps from being sent: an error, and nothing in the cache (no
        answer, no failure for failures.py to give up on), so the next run with more room sends it."""
        reached = [budget for budget in pace.budgets if budget.reached]
        for budget in reached:
            budget.not_sent += 1
        first = reached[0]
        return LLMResult(key=key, model=req.model, text=None,
                         error=f"not sent: budget reached ({first.name}): ${first.spent_usd:.4f} of "
                               f"${first.limit_usd:.4f}; raise the budget to continue",
                         tokens_in=0, tokens_out=0, latency_ms=0.0, cost_usd=0.0, cached=False, simulated=False,
                         pii_redactions=0, not_sent=True)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        # Exponential backoff with full jitter, but never sooner than the server asked.
        cap = min(self.backoff_max_s, self.backoff_base_s * (2 ** (attempt - 1)))
        delay = self._rng.uniform(0, cap)
        if retry_after is not None:
            delay = max(delay, min(retry_after, _RETRY_AFTER_CEILING_S))
        return delay

    def _success(self, key: str, req: LLMRequest, answer: Answer) -> LLMResult:
        text = _LONE_SURROGATE.sub("\ufffd", answer.text) if answer.redact else answer.text
        text, redactions = _redact(text) if answer.redact else (text, 0)
        row = CachedResponse(
            key=key,
            model=req.model,
            prompt_version=req.prompt_version,
            text=text,
            tokens_in=int(answer.tokens_in or 0),
            tokens_out=int(answer.tokens_out or 0),
            latency_ms=answer.latency_ms,
            cost_usd=answer.cost_usd,
            simulated=answer.simulated,
            pii_redactions=redactions,
            created_at=time.time(),
        )
        record(self.cache, response=row)
        return dataclasses.replace(from_cache(row), cached=False)

    def _failure(self, key: str, req: LLMRequest, err: BaseException, attempts: int = 1,
                 simulated: bool = False) -> LLMResult:
        # Provider errors can echo parts of the prompt, so they are redacted like responses.
        message, _ = _redact(_LONE_SURROGATE.sub("\ufffd", describe(err)))
        status = getattr(err, "status_code", None)
        record(self.cache, error=JournalledError(key, req.model, req.prompt_version, message, attempts,
                                                  status if isinstance(status, int) else None))
        return LLMResult(
            key=key,
            model=req.model,
            text=None,
            error=message,
            tokens_in=0,
            tokens_out=0,
            latency_ms=0.0,
            cost_usd=0.0,
            cached=False,
            simulated=simulated,
            pii_redactions=0,
        )


@dataclass
class _Pace:
    """What paces one model's provider calls in one run: its calls in flight, its rpm, its provider's lease."""

    semaphore: asyncio.Semaphore
    limiter: _RateLimiter | None
    slot: _ProviderSlot
    budgets: list[Budget] = dataclasses.field(default_factory=list)  # the model's and the run's (budget.py)
    prices: tuple[float, float] = (0.0, 0.0)  # USD per prompt and completion token, under budgets
    spacing: _StartSpacing = dataclasses.field(default_factory=lambda: _StartSpacing(1))  # its calls' starts


class _Run:
    """One run's misses as its back ends see them (`backends.Run`): where their answers and errors land, the
    progress, and the runner's paid calls, paced per model and provider as the run goes."""

    def __init__(self, runner: LLMRunner, limits: dict[str, ModelLimits], stats: CallStats, tracker: Progress):
        self.runner, self.limits, self.stats, self.tracker = runner, limits, stats, tracker
        # The run's cap, with what was spent since the run began (the cache's answers); the models' budgets, shared
        # with the home's other processes, opened at the first call under each (`_model_budget`).
        self.run_budget = None if runner.max_cost_usd is None else Budget(
            RUN_BUDGET, runner.max_cost_usd, runner.cache.spent_usd(since=runner.budget_since))
        self.model_budgets: dict[str, Budget] = {}
        self.cache = runner.cache
        self.timeout_s, self.max_retries = runner.timeout_s, runner.max_retries
        self.batch_poll_s, self.batch_poll_max_s = runner.batch_poll_s, runner.batch_poll_max_s
        self.success, self.failure = runner._success, runner._failure
        self.tick, self.note = tracker.tick, tracker.note
        self.paces: dict[str, _Pace] = {}  # model -> its pace, made at its first call
        self.queues: dict[str, LeaseQueue] = {}  # provider -> the calls of this run waiting for one of its leases

    def flush(self) -> None:
        CURRENT.get().flush()

    def _model_budget(self, model: str, lim: ModelLimits) -> Budget:
        """The model's `budget_usd`, shared with the home's other processes (budget.SharedBudgets), named by its
        model string and the cache whose answers count."""
        budget = self.model_budgets.get(model)
        if budget is None:
            budget = Budget(f"budget_usd of {lim.budget_name or model}", lim.budget_usd,
                            key=f"{model} in {Path(self.cache.path).resolve()}")
            self.runner.shared_budgets().open(budget, lambda: self.cache.spent_usd(model=model))
            self.model_budgets[model] = budget  # once open: a budget whose spend was never read is never used
        return budget

    def close_budgets(self) -> None:
        for budget in self.model_budgets.values():
            self.runner.shared_budgets().close(budget)

    def all_budgets(self) -> list[Budget]:
        return list(self.model_budgets.values()) + ([self.run_budget] if self.run_budget is not None else [])

    async def provider_call(self, key: str, req: LLMRequest, attempt: Attempt) -> LLMResult:
        """A paid call, made only while holding the request's claim (`LLMRunner._claimed`)."""
        pace = self.paces.get(req.model)
        if pace is None:
            runner = self.runner
            lim = self.limits.get(req.model, runner.default_limits)
            provider = provider_of(req.model, req.api_base, lim.provider)
            slot = _ProviderSlot(name=provider, limits=runner.provider_limits.get(provider, ProviderLimits()),
                                 queue=self.queues.setdefault(provider, LeaseQueue()),
                                 tokens_out=reserved_tokens_out(runner.cache, req))
            budgets = [self.run_budget] if self.run_budget is not None else []
            if lim.budget_usd is not None:
                budgets.insert(0, self._model_budget(req.model, lim))
            pace = self.paces[req.model] = _Pace(asyncio.Semaphore(max(1, lim.max_concurrency)),
                                                 _RateLimiter(lim.rpm) if lim.rpm else None, slot, budgets,
                                                 unit_prices(req.model) if budgets else (0.0, 0.0),
                                                 _StartSpacing(lim.max_concurrency))
        return await self.runner._claimed(key, lambda: self.runner._call_provider(key, req, attempt, pace,
                                                                                  self.stats))


# Process id -> objects were frozen already at this process's first run: a pre-fork server froze its heap before
# forking it (scripts/step_preload.py). Looked at once per process: gc.get_freeze_count walks every frozen object
# (≈ 30 ms for a forkserver's 700,000, copying each page it touches out of the memory shared with the server).
_FROZEN_BEFORE: dict[int, bool] = {}
_OWN_FREEZE = {"runs": 0}  # runs of this process inside the runner's own freeze (threads may overlap)
_OWN_FREEZE_LOCK = threading.Lock()


@contextmanager
def _old_objects_frozen():
    """Keep the objects that exist before the calls out of the garbage collector's passes while they run.

    litellm's import leaves a heap of ≈ 370,000 objects; each full collection walks all of them, 0.2–0.75 s here with
    the event loop stopped (every call in flight waits), and 2,000 calls trigger about two. Frozen (`gc.freeze`), the heap is
    skipped; the calls' own objects are collected as usual, and the heap goes back to the oldest generation after the
    last run in flight. A process whose heap was frozen before its first run (by a pre-fork server) keeps that
    policy: nothing is changed then."""
    pid = os.getpid()
    with _OWN_FREEZE_LOCK:
        if pid not in _FROZEN_BEFORE:
            _FROZEN_BEFORE[pid] = gc.get_freeze_count() > 0
        if not gc.isenabled() or _FROZEN_BEFORE[pid]:
            ours = False
        else:
            ours = True
            if _OWN_FREEZE["runs"] == 0:
                gc.freeze()
            _OWN_FREEZE["runs"] += 1
    try:
        yield
    finally:
        if ours:
            with _OWN_FREEZE_LOCK:
                _OWN_FREEZE["runs"] -= 1
                if _OWN_FREEZE["runs"] == 0:
                    gc.unfreeze()


def _run_coroutine(coroutine: Callable[[], Any]) -> Any:
    """asyncio.run (`_run_to_the_end_or_interrupt`), or in a helper thread when the caller already runs an event loop
    (e.g. a notebook)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_to_the_end_or_interrupt(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coroutine())).result()


def _run_to_the_end_or_interrupt(coroutine: Callable[[], Any]) -> Any:
    """asyncio.run, where an interrupt (Ctrl-C, `kill`) stops the whole batch of calls.

    A signal handler that raises (Python's KeyboardInterrupt, Dagster's interruption of a step) raises in whatever code
    runs at that moment; in an event loop that may be a task of its own, litellm's logging worker say, which then
    dies alone while the calls go on to their end. So while the loop runs, an interrupt cancels the batch's task
    (as asyncio.run does for Ctrl-C when no other handler is set): its calls end, their claims and leases released
    and the answers so far journalled; then it is raised as the handler in place raises it
    (benchwright/interrupts.py `interrupts_deferred`)."""
    batch: list[asyncio.Task] = []

    def cancel() -> None:
        if batch and not batch[0].done():
            batch[0].cancel()

    async def main() -> Any:
        batch.append(asyncio.current_task())
        if interrupted:  # before the batch began
            raise asyncio.CancelledError
        return await coroutine()

    with interrupts_deferred(cancel) as interrupted:
        try:
            return asyncio.run(main())
        except asyncio.CancelledError:
            if not interrupted:
                raise


def _bar_label(scope: CallScope | Sequence[CallScope] | None, misses: dict[str, LLMRequest]) -> str:
    """What a step's progress bar is called: the asking step and who answers (its scope), else the models called."""
    first = scope[0] if isinstance(scope, Sequence) and scope else scope
    if isinstance(first, CallScope):
        return " ".join(part for part in (first.stage, first.model, first.judge and f"by {first.judge}") if part)
    return "LLM calls: " + ", ".join(sorted({r.model for r in misses.values()}))
