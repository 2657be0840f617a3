"""The LLM engine: cache lookup, then concurrent, rate-limited, retried calls for the misses.

Real providers go through litellm; ``sim/<name>`` models are answered in-process by
``benchwright.simulate``. Both share the cache, the journal and the statistics. A model whose limits say
``batch`` has its misses sent through the provider's batch API instead (``_call_batch``): the batch is
journalled in the cache before it is polled, and its answers land in the cache like live ones.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import logging
import os
import random
import re
import secrets
import socket
import time
from collections import Counter
from contextvars import ContextVar
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from benchwright.llm.batch import ENDPOINT, FINAL_STATUSES, TAG_KEY, BatchLine, batch_files, batch_lock, result_lines
from benchwright.llm.cache import CachedResponse, JournalledBatch, JournalledError, ResponseCache, has_text
from benchwright.llm.providers import (PROVIDER_SLOTS_FILE, LeaseQueue, ProviderEntriesRefused, ProviderGate,
                                       ProviderLimits, estimated_tokens, provider_of)
from benchwright.llm.request import LLMRequest, request_key, sendable

log = logging.getLogger("benchwright.llm")

SIM_PREFIX = "sim/"
# Plan mode (`dev.py plan`) refuses to run unless this file sits beside the cache: the home is a copy.
PLAN_COPY_MARKER = "PLAN_COPY"
# Expected completion tokens of a call to a model with no answered call yet and no max_tokens.
PLANNED_TOKENS_OUT = 500
# Sent only to a self-hosted OpenAI-compatible server (api_base set) when no OPENAI_API_KEY exists:
# the OpenAI client refuses to start without some key.
_NOAUTH_KEY = "sk-noauth"
# Honour Retry-After, but a server asking for longer than this is treated as failing for this run.
_RETRY_AFTER_CEILING_S = 300.0
_PROGRESS_FIRST_AFTER_S = 60.0
# Pages of the provider's batch list (100 each, newest first) searched for a batch journalled by its tag only.
_BATCH_LIST_PAGES = 50
# A "\ud800" escape in a provider's JSON decodes to a lone surrogate, which is not Unicode: neither
# SQLite nor DuckDB can store it. Each becomes U+FFFD, as a UTF-8 decoder does with ill-formed input.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Finished calls' rows held for one flush at most (`_Journal`): a pass of the event loop that finishes more (simulated
# or planned answers, a batch's lines: no await between them) commits them in transactions of this many.
_JOURNAL_ROWS = 256


@dataclass
class LLMResult:
    key: str
    model: str
    text: str | None
    error: str | None
    tokens_in: int
    tokens_out: int
    latency_ms: float
    cost_usd: float
    cached: bool
    simulated: bool
    pii_redactions: int


@dataclass
class CallStats:
    """Aggregated over one run() call.

    requests: results asked for (duplicates included); api_calls: distinct requests sent to a model (retries
    not counted); cache_hits: results served without a call (from the cache, or a duplicate of a request
    answered earlier in the same run); errors: results with an error, `given_up` ones included; given_up:
    results of requests given up (failures.py), served their last error without a call; cost_usd: spent in
    this run; latencies over this run's successful calls.
    """

    requests: int = 0
    api_calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    given_up: int = 0
    cost_usd: float = 0.0
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    retries: int = 0
    latencies_ms: list[float] = field(default_factory=list, repr=False)
    """The successful calls' latencies behind the percentiles, so that `merge` can compute them again."""

    @classmethod
    def merge(cls, parts: Sequence["CallStats"]) -> "CallStats":
        """The statistics of several run() calls of one step as if they were one: counts and cost summed,
        percentiles over every call's latency."""
        merged = cls()
        for part in parts:
            for name in ("requests", "api_calls", "cache_hits", "errors", "given_up", "cost_usd", "retries"):
                setattr(merged, name, getattr(merged, name) + getattr(part, name))
            merged.latencies_ms += part.latencies_ms
        merged.latency_p50_ms = _percentile(merged.latencies_ms, 0.50)
        merged.latency_p95_ms = _percentile(merged.latencies_ms, 0.95)
        return merged

    def as_metadata(self) -> dict:
        return {
            "requests": self.requests,
            "api_calls": self.api_calls,
            "cache_hits": self.cache_hits,
            "errors": self.errors,
            "given_up": self.given_up,
            "cost_usd": round(self.cost_usd, 6),
            "latency_p50_ms": None if self.latency_p50_ms is None else round(self.latency_p50_ms, 1),
            "latency_p95_ms": None if self.latency_p95_ms is None else round(self.latency_p95_ms, 1),
            "retries": self.retries,
        }


@dataclass(frozen=True)
class CallScope:
    """Who asked for a run's results, for the cost ledger: the benchmark, the stage (the asset that
    asked), its partition, the model answering or being judged, and the judge (empty for answers)."""

    benchmark: str
    stage: str
    model: str = ""
    judge: str = ""
    partition_key: str = ""
    run_id: str = ""


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


class _Malformed(Exception):
    """The provider answered 200 but the body is not a usable completion."""


class BatchLineError(Exception):
    """A request of a provider batch came back without an answer (an error line, or the batch ended first)."""


class NoContent(Exception):
    """The provider answered 200 with no text (a refusal, a content filter, only tool calls).

    Not an empty answer: the call is journalled as an error, never cached as a success, and the next
    run asks again. Not retried within the run, since the same request usually meets the same filter.
    """


def _litellm():
    # Imported lazily: it costs seconds, and without the local cost map it would fetch one at import.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True  # no "Give Feedback" banners on stdout for every error
    return litellm


def _redact(text: str) -> tuple[str, int]:
    from benchwright.pii import redact  # lazy: a sibling module, and only needed when text arrives

    redacted, findings = redact(text)
    return redacted, len(findings)


def _scrub(text: str) -> str:
    """Error text goes to the journal: strip anything that looks like a credential from the environment."""
    for name, value in os.environ.items():
        upper = name.upper()
        if len(value) >= 8 and ("KEY" in upper or "TOKEN" in upper or "SECRET" in upper) and value in text:
            text = text.replace(value, "***")
    return text


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)  # linear interpolation between closest ranks
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def retry_after_s(err: BaseException) -> float | None:
    """Seconds a provider asked us to wait, from the error's response headers, if any.

    litellm keeps the provider's headers on ``err.litellm_response_headers`` (its own
    ``err.response`` is rebuilt and may carry none); ``err.response.headers`` and ``err.headers``
    are read as fallbacks.
    """
    candidates = (
        getattr(err, "litellm_response_headers", None),
        getattr(getattr(err, "response", None), "headers", None),
        getattr(err, "headers", None),
    )
    for headers in candidates:
        if not headers:
            continue
        try:
            lower = {str(k).lower(): str(v) for k, v in headers.items()}
        except AttributeError:
            continue
        if "retry-after-ms" in lower:
            try:
                return max(0.0, float(lower["retry-after-ms"]) / 1000)
            except ValueError:
                pass
        value = lower.get("retry-after")
        if value:
            try:
                return max(0.0, float(value))
            except ValueError:
                try:  # the HTTP-date form
                    when = email.utils.parsedate_to_datetime(value)
                    return max(0.0, when.timestamp() - time.time())
                except (TypeError, ValueError):
                    pass
    return None


def is_retryable(err: BaseException) -> bool:
    if isinstance(err, (asyncio.TimeoutError, TimeoutError, _Malformed, ConnectionError)):
        return True
    status = getattr(err, "status_code", None)
    if isinstance(status, int):
        # 408 timeout, 409/425 transient conflicts, 429 rate limit, 5xx (litellm maps connection
        # errors and unparseable bodies to 500). 400/401/403/404/422 will not get better by waiting.
        return status in (408, 409, 425, 429) or status >= 500
    try:
        import httpx

        return isinstance(err, httpx.TransportError)
    except ImportError:  # pragma: no cover - httpx ships with litellm
        return False


def _describe(err: BaseException) -> str:
    text = f"{type(err).__name__}: {err}".strip()
    return _scrub(text)[:2000]


class _RateLimiter:
    """Spaces request starts at least 60/rpm seconds apart (smooth, no bursts)."""

    def __init__(self, rpm: int):
        self.interval = 60.0 / rpm
        self.next_at = 0.0
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self.lock:
            now = time.monotonic()
            start = max(now, self.next_at)
            self.next_at = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


class _Progress:
    """A few progress lines per batch, not one per slice of it: each line is a row in Dagster's event log, kept
    for every run (the full counts go in the step's materialization metadata). One line when calls start,
    one when the batch is done, and in between one after 1, 2, 4, 8 ... minutes, so a batch of any size
    says it is alive and a day-long one still logs only a dozen lines."""

    def __init__(self, callback: Callable[[str], None] | None, total: int, hits: int):
        self.callback = callback
        self.total = total
        self.done = hits
        self.hits = hits
        self.errors = 0
        self.started_at = time.monotonic()
        self.next_after_s = _PROGRESS_FIRST_AFTER_S
        self.last_done = -1

    def emit(self) -> None:
        if self.callback is None or self.done == self.last_done:
            return
        self.last_done = self.done
        self.callback(
            f"LLM requests: {self.done}/{self.total} done ({self.hits} cache hits, {self.errors} errors)"
        )

    def note(self, text: str) -> None:
        """A line of its own (a batch sent, resumed or finished): a few per batch, never one per poll."""
        if self.callback is not None:
            self.callback(text)

    def tick(self, error: bool) -> None:
        self.done += 1
        self.errors += int(error)
        if time.monotonic() - self.started_at >= self.next_after_s:
            self.next_after_s *= 2
            self.emit()


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
        self._rng = random.Random()
        self._expected_tokens_out: dict[str, int] = {}
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

        stats = CallStats()
        tracker = _Progress(progress, total=len(unique), hits=len(cached))
        fresh: dict[str, LLMResult] = {}
        batched: set[str] = set()  # keys answered through a batch API: no latency of their own
        if misses:
            tracker.emit()  # what is left to call; with nothing to call, the final line says it all
            fresh = _run_coroutine(lambda: self._call_all(misses, limits or {}, stats, tracker, batched))
        tracker.emit()  # the final count, unless the last tick already said it

        results: list[LLMResult] = []
        seen: set[str] = set()
        for key in keys:
            if key in given_up:
                result = _given_up_result(key, unique[key], given_up[key])
            elif key in fresh:
                result = fresh[key]
                if key in seen and result.error is None:  # a duplicate, answered by the first occurrence
                    result = LLMResult(**{**result.__dict__, "cached": True})
            else:
                result = _from_cache(cached[key])
            seen.add(key)
            results.append(result)

        calls = [r for r in fresh.values() if not r.cached]  # not those another process answered meanwhile
        stats.requests = len(results)
        stats.api_calls = len(calls)
        stats.cache_hits = sum(r.cached for r in results)
        stats.errors = sum(r.error is not None for r in results)
        stats.given_up = sum(r.key in given_up for r in results)
        stats.cost_usd = sum(r.cost_usd for r in calls)
        stats.latencies_ms = [r.latency_ms for r in calls if r.error is None and r.key not in batched]
        stats.latency_p50_ms = _percentile(stats.latencies_ms, 0.50)
        stats.latency_p95_ms = _percentile(stats.latencies_ms, 0.95)
        if scope is not None:
            self.cache.put_ledger(ledger_rows(scope, requests, results))
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
                  for r in misses.values() if not r.model.startswith(SIM_PREFIX)}
        refused = {name: self.refused_providers[name] for name in sorted(called & set(self.refused_providers))}
        if refused:
            raise ProviderEntriesRefused(refused)

    async def _call_all(
        self, misses: dict[str, LLMRequest], limits: dict[str, ModelLimits], stats: CallStats, tracker: _Progress,
        batched: set[str],
    ) -> dict[str, LLMResult]:
        # Misses of batch models (live mode, real providers) go to one batch per model and endpoint.
        misses = dict(misses)
        by_batch: dict[tuple[str, str], dict[str, LLMRequest]] = {}
        for key, req in list(misses.items()):
            if (self.mode == "live" and not req.model.startswith(SIM_PREFIX)
                    and limits.get(req.model, self.default_limits).batch):
                by_batch.setdefault((req.model, req.api_base or ""), {})[key] = req
                batched.add(key)
                del misses[key]
        semaphores: dict[str, asyncio.Semaphore] = {}
        limiters: dict[str, _RateLimiter | None] = {}
        slots: dict[str, _ProviderSlot] = {}
        queues: dict[str, LeaseQueue] = {}
        for req in misses.values():
            if req.model not in semaphores:
                lim = limits.get(req.model, self.default_limits)
                semaphores[req.model] = asyncio.Semaphore(max(1, lim.max_concurrency))
                limiters[req.model] = _RateLimiter(lim.rpm) if lim.rpm else None
                if self.mode == "live" and not req.model.startswith(SIM_PREFIX):
                    provider = provider_of(req.model, req.api_base, lim.provider)
                    slots[req.model] = _ProviderSlot(
                        name=provider, limits=self.provider_limits.get(provider, ProviderLimits()),
                        queue=queues.setdefault(provider, LeaseQueue()),
                        tokens_out=reserved_tokens_out(self.cache, req))

        async def one(key: str, req: LLMRequest) -> tuple[str, LLMResult]:
            if req.model.startswith(SIM_PREFIX):
                result = self._simulate(key, req)
            elif self.mode == "plan":
                result = self._plan(key, req)
            else:
                result = await self._claimed(key, lambda: self._call_provider(
                    key, req, semaphores[req.model], limiters[req.model], slots[req.model], stats))
            tracker.tick(result.error is not None)
            return key, result

        journal = _Journal(self.cache, self.claim_owner, self._stale_after_s())
        token = _JOURNAL.set(journal)  # the calls' tasks, made below, see it
        try:
            batches = [self._call_batch(model, api_base, group, tracker)
                       for (model, api_base), group in by_batch.items()]
            outcomes = await asyncio.gather(*(one(k, r) for k, r in misses.items()), *batches)
        finally:
            _JOURNAL.reset(token)
            try:
                journal.flush()  # every answer committed before the run's results are handed on
            finally:
                if self._gate is not None:
                    self._gate.flush()
        results: dict[str, LLMResult] = {}
        for outcome in outcomes:
            results.update(outcome if isinstance(outcome, dict) else [outcome])
        return results

    def _stale_after_s(self) -> float:
        """Age after which another process's claim is taken over: longer than any call with its retries."""
        return self.timeout_s * (self.max_retries + 2) + 60

    async def _claimed(self, key: str, call: Callable[[], Any]) -> LLMResult:
        """Call a provider for `key` only while holding its claim in the cache, so that parallel runs of the home
        (two partitions sharing a request) pay for it once: while another live process holds it, wait for its
        answer (served as a cache hit); when that one gives up the claim without an answer (it failed, or died),
        claim and call. A claim outlives no call: it is released as soon as the call ends, with its answer. The claims
        of calls starting together are taken in one transaction (`_Journal.claim`)."""
        journal = _JOURNAL.get()
        held, row = await journal.claim(key)
        delay = 0.1
        while row is None and not held:
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
            mine, answered = self.cache.claim_unanswered([key], self.claim_owner, self._stale_after_s())
            held, row = key in mine, answered.get(key)
        if row is not None:  # answered by another run since this run's cache read
            return _from_cache(row)
        try:
            return await call()
        finally:
            journal.release(key)

    def _simulate(self, key: str, req: LLMRequest) -> LLMResult:
        from benchwright.simulate import complete  # lazy: sibling package

        t0 = time.perf_counter()
        try:
            sim = complete(req.model, sendable(req.messages), dict(req.params), req.sample_index,
                           prompt_version=req.prompt_version)
        except Exception as err:  # the simulator is deterministic: retrying cannot help
            return self._failure(key, req, err, attempts=1, simulated=True)
        latency_ms = (time.perf_counter() - t0) * 1000
        return self._success(key, req, sim.text, sim.tokens_in, sim.tokens_out, latency_ms, 0.0, simulated=True)

    def _plan(self, key: str, req: LLMRequest) -> LLMResult:
        """Plan mode: what the call would cost, without making it. Prompt tokens are counted by litellm's
        tokenizer for the model; completion tokens are expected (`expected_tokens_out`); the price is
        litellm's table. A placeholder answer of that length stands in, so what is built on it (a judge
        reading it, the next turn of a chat) is planned at about the size it will have."""
        litellm = _litellm()
        tokens_in = int(litellm.token_counter(model=req.model, messages=sendable(req.messages)))
        if req.model not in self._expected_tokens_out:
            self._expected_tokens_out[req.model] = expected_tokens_out(self.cache, req)
        tokens_out = self._expected_tokens_out[req.model]
        cost = price_usd(req.model, tokens_in, tokens_out)
        # Our own placeholder holds no personal data: the redaction pass (a third of a planned call's time) is skipped.
        return self._success(key, req, " ".join(["planned"] * tokens_out), tokens_in, tokens_out, 0.0,
                             cost or 0.0, simulated=False, redact=False)

    async def _call_provider(
        self,
        key: str,
        req: LLMRequest,
        semaphore: asyncio.Semaphore,
        limiter: _RateLimiter | None,
        slot: _ProviderSlot,
        stats: CallStats,
    ) -> LLMResult:
        litellm = _litellm()
        kwargs: dict[str, Any] = {**req.params, **_endpoint_kwargs(req.model, req.api_base, req.params)}
        attempt = 0
        while True:
            attempt += 1
            if limiter is not None:
                await limiter.wait()
            async with semaphore:  # held per attempt, so backoff sleeps do not block other requests
                # The provider's lease: its limits hold across every process and run of the home.
                tokens = estimated_tokens(req.messages, slot.tokens_out)
                lease = await self.gate().acquire(slot.name, slot.limits, tokens, slot.queue)
                spent: int | None = None
                handed_over = _send_stamp(self.gate(), lease)
                t0 = time.perf_counter()
                try:
                    # litellm's own timeout bounds each HTTP phase; ours bounds the whole call (without wait_for's
                    # task per call).
                    async with asyncio.timeout(self.timeout_s):
                        response = await litellm.acompletion(
                            model=req.model,
                            messages=sendable(req.messages),  # pictures read now, per attempt
                            timeout=self.timeout_s,
                            num_retries=0,  # we retry ourselves, with backoff and Retry-After
                            logger_fn=handed_over,  # the lease's rpm/tpm start: when the request is sent
                            **kwargs,
                        )
                    text, tokens_in, tokens_out = _parse(response)
                    spent = (tokens_in + tokens_out) or None
                    if tokens_out and not req.params.get("max_tokens"):
                        slot.observe(tokens_out)
                except Exception as err:  # classified below
                    error: BaseException | None = err
                else:
                    error = None
                finally:
                    self.gate().release(lease, spent)
                latency_ms = (time.perf_counter() - t0) * 1000
            if error is None:
                return self._success(
                    key, req, text, tokens_in, tokens_out, latency_ms, _cost(litellm, response), simulated=False
                )
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

    async def _call_batch(
        self, model: str, api_base: str, misses: dict[str, LLMRequest], tracker: _Progress
    ) -> dict[str, LLMResult]:
        """Answer one model's misses through its provider's batch API. Misses already in an open batch of
        the journal (a run killed while waiting, or another run sending the same requests) wait for that batch;
        the rest go in one new batch. Under the model and endpoint's lock (`batch_lock`), from the look at the
        journal to the new batch's row: the batch is journalled as an intent under a tag before its upload, the
        tag goes to the provider in the batch's metadata, and the row takes the batch's id once it is created;
        an intent left by a killed run is looked up by its tag (`_settle_intent`). Every line that comes back
        lands in the cache or the errors."""
        litellm = _litellm()
        try:
            provider_model, provider = litellm.get_llm_provider(model)[:2]
        except Exception as err:  # an unknown provider: nothing can be sent
            failures = {k: self._failure(k, r, err, attempts=1, simulated=False) for k, r in misses.items()}
            for _ in failures:
                tracker.tick(error=True)
            return failures
        endpoint = {"custom_llm_provider": provider, **_endpoint_kwargs(model, api_base or None, {})}
        results: dict[str, LLMResult] = {}
        waiting = dict(misses)
        jobs: list[tuple[JournalledBatch, dict[str, LLMRequest]]] = []

        def fail(chunk: dict[str, LLMRequest], err: BaseException) -> None:
            for key, req in chunk.items():
                results[key] = self._failure(key, req, err, attempts=1, simulated=False)
                tracker.tick(error=True)

        async with batch_lock(Path(self.cache.path).parent, model, api_base):
            for journalled in self.cache.open_batches(model, api_base):
                if journalled.creating:
                    try:
                        journalled = await self._settle_intent(litellm, endpoint, journalled, tracker)
                    except Exception as err:
                        if is_retryable(err):  # not known whether it was created: not sent again, asked next run
                            fail({k: waiting.pop(k) for k in journalled.prompt_versions if k in waiting},
                                 BatchLineError(f"batch {journalled.batch_id} was journalled by a run that ended "
                                                "before it learnt the batch's id, and the provider's batches could "
                                                f"not be listed to find it; the next run looks again: {_describe(err)}"))
                            continue
                        # The provider lists no batches (litellm cannot, for some): waiting would never end. Sent
                        # anew, said so, as it may pay twice for a batch created before its run was killed.
                        self.cache.set_batch_status(journalled.batch_id, "not listed", final=True)
                        log.warning("LLM batch %s for model %s cannot be looked up (%s); its requests are sent again",
                                    journalled.batch_id, model, type(err).__name__)
                        tracker.note(f"LLM batch {journalled.batch_id} for {model}: journalled by a run that ended "
                                     "before it learnt the batch's id, and the provider's batches cannot be listed; "
                                     "its requests are sent again (a batch it did create is paid twice)")
                        continue
                    if journalled is None:  # never created: its requests are sent anew below
                        continue
                mine = {k: waiting.pop(k) for k in journalled.prompt_versions if k in waiting}
                if mine:
                    tracker.note(f"LLM batch {journalled.batch_id} for {model}: resumed, {len(mine)} of its "
                                 f"{len(journalled.prompt_versions)} requests wanted here (status {journalled.status})")
                    jobs.append((journalled, mine))
            for keys, content in batch_files(waiting, provider_model):
                chunk = {k: waiting[k] for k in keys}
                versions = {k: r.prompt_version for k, r in chunk.items()}
                tag = f"bw-{secrets.token_hex(12)}"
                # Journalled before the upload: a run killed from here on leaves its successor the tag to look for.
                self.cache.put_batch_intent(tag, model, api_base, versions)
                try:
                    # The upload and the download keep litellm's own timeout (10 min): a file can be large.
                    uploaded = await litellm.acreate_file(file=("batch.jsonl", content, "application/jsonl"),
                                                          purpose="batch", **endpoint)
                except Exception as err:  # no file, so no batch: the intent ends, the next run sends anew
                    self.cache.set_batch_status(tag, "not created", final=True)
                    log.warning("LLM batch file for model %s not uploaded: %s", model, type(err).__name__)
                    fail(chunk, err)
                    continue
                try:
                    created = await litellm.acreate_batch(
                        completion_window="24h", endpoint=ENDPOINT, input_file_id=uploaded.id,
                        metadata={TAG_KEY: tag}, timeout=self.timeout_s, **endpoint)
                except Exception as err:  # not retried: a lost answer may still have made a batch; the intent
                    log.warning("LLM batch for model %s not created: %s", model, type(err).__name__)  # stays
                    fail(chunk, BatchLineError(f"batch {tag} not created, or its answer was lost; the next run "
                                               f"looks for it by its tag before sending again: {_describe(err)}"))
                    continue
                self.cache.confirm_batch(tag, created.id, uploaded.id, created.status)
                tracker.note(f"LLM batch {created.id} for {model}: {len(chunk)} requests sent")
                jobs.append((JournalledBatch(created.id, model, api_base, created.status, time.time(), versions),
                             chunk))
        for outcome in await asyncio.gather(*(self._await_batch(litellm, endpoint, j, wanted, tracker)
                                              for j, wanted in jobs)):
            results.update(outcome)
        return results

    async def _settle_intent(self, litellm: Any, endpoint: dict, intent: JournalledBatch,
                             tracker: _Progress) -> JournalledBatch | None:
        """A batch journalled before its create by a run that did not learn its id (killed, or the create's
        answer lost): the provider's batch carrying its tag, now journalled under its id; None when the provider
        has none (never created; the intent ends). Raises when the provider's batches cannot be listed."""
        after: str | None = None
        for _ in range(_BATCH_LIST_PAGES):
            page = await litellm.alist_batches(after=after, limit=100, timeout=self.timeout_s, max_retries=0,
                                               **endpoint)
            listed = list(getattr(page, "data", None) or [])
            for batch in listed:
                if (getattr(batch, "metadata", None) or {}).get(TAG_KEY) == intent.batch_id:
                    self.cache.confirm_batch(intent.batch_id, batch.id, batch.input_file_id, batch.status)
                    tracker.note(f"LLM batch {batch.id} for {intent.model}: found by its tag {intent.batch_id}, "
                                 "created by a run that ended before it learnt its id")
                    return dataclasses.replace(intent, batch_id=batch.id, status=batch.status)
            # Listed newest first: a page reaching back before the intent (an hour for clocks apart) ends the search.
            oldest = min((getattr(batch, "created_at", 0) or 0 for batch in listed), default=0)
            if not listed or not getattr(page, "has_more", False) or oldest < intent.created_at - 3600:
                break
            after = listed[-1].id
        self.cache.set_batch_status(intent.batch_id, "not created", final=True)
        tracker.note(f"LLM batch {intent.batch_id} for {intent.model}: journalled by a run that ended before creating "
                     "it; its requests are sent again")
        return None

    async def _await_batch(
        self, litellm: Any, endpoint: dict, journalled: JournalledBatch, wanted: dict[str, LLMRequest],
        tracker: _Progress,
    ) -> dict[str, LLMResult]:
        """Poll a journalled batch until it ends, then land its lines. A batch that cannot be polled or read
        stays open in the journal (its requests are errors for this run), so the next run collects it."""
        batch_id, delay, failures = journalled.batch_id, self.batch_poll_s, 0
        started, next_note_s = time.monotonic(), _PROGRESS_FIRST_AFTER_S
        while True:
            try:
                batch = await litellm.aretrieve_batch(
                    batch_id=batch_id, timeout=self.timeout_s,
                    litellm_metadata={"batch_ignore_default_logging": True},  # else litellm reads the output per poll
                    **endpoint)
            except Exception as err:
                failures += 1
                if getattr(err, "status_code", None) == 404:  # gone (deleted, or another account's): ask again
                    self.cache.set_batch_status(batch_id, "not found", final=True)
                    return self._batch_unreadable(journalled, wanted, err, tracker, gone=True)
                if not is_retryable(err) or failures > self.max_retries:
                    return self._batch_unreadable(journalled, wanted, err, tracker)
                log.info("polling LLM batch %s failed (%s); trying again", batch_id, type(err).__name__)
            else:
                failures = 0
                if batch.status in FINAL_STATUSES:
                    break
                if batch.status != journalled.status:
                    self.cache.set_batch_status(batch_id, batch.status)
                    journalled.status = batch.status
                if time.monotonic() - started >= next_note_s:  # 1, 2, 4 ... minutes, as _Progress does
                    next_note_s *= 2
                    counts = getattr(batch, "request_counts", None)
                    tracker.note(f"LLM batch {batch_id}: {batch.status}, {getattr(counts, 'completed', '?')}/"
                                 f"{getattr(counts, 'total', '?')} done")
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.batch_poll_max_s)
        lines: list[BatchLine] = []
        try:
            for file_id in (batch.output_file_id, batch.error_file_id):
                if file_id:
                    content = await litellm.afile_content(file_id=file_id, **endpoint)
                    lines += result_lines(content.content)
        except Exception as err:
            return self._batch_unreadable(journalled, wanted, err, tracker)
        results = self._land_batch(journalled, batch, lines, wanted, tracker)
        _JOURNAL.get().flush()  # its answers committed before the batch is final: a final batch is never fetched again
        self.cache.set_batch_status(batch_id, batch.status, final=True)
        return results

    def _land_batch(self, journalled: JournalledBatch, batch: Any, lines: list[BatchLine],
                    wanted: dict[str, LLMRequest], tracker: _Progress) -> dict[str, LLMResult]:
        """Every request of a finished batch into the cache (answers) or the errors (the rest), as a live call
        would have put it; results for the requests this run wants. Requests of the batch that this run does
        not want (another step's, journalled by a killed run) land too, for whoever asks next."""
        litellm = _litellm()
        results: dict[str, LLMResult] = {}
        seen: set[str] = set()
        answered = failed = 0

        def request(key: str) -> LLMRequest:
            return wanted.get(key) or LLMRequest(model=journalled.model, messages=[],
                                                 prompt_version=journalled.prompt_versions[key])

        def done(key: str, result: LLMResult) -> None:
            if key in wanted:
                results[key] = result
                tracker.tick(result.error is not None)

        for line in lines:
            if line.key not in journalled.prompt_versions or line.key in seen:
                continue  # not a request of this batch, or said twice: the first line counts
            seen.add(line.key)
            req = request(line.key)
            if line.body is None:
                done(line.key, self._failure(line.key, req, BatchLineError(line.error), attempts=1, simulated=False))
                failed += 1
                continue
            try:
                response = litellm.ModelResponse(**line.body)
                text, tokens_in, tokens_out = _parse(response)
            except Exception as err:  # NoContent, or a body that is no completion: an error, as live
                done(line.key, self._failure(line.key, req, err, attempts=1, simulated=False))
                failed += 1
                continue
            cost = _batch_cost(req.model, response)
            done(line.key, self._success(line.key, req, text, tokens_in, tokens_out, 0.0, cost, simulated=False))
            answered += 1
        reason = (f"batch {batch.status}: not answered before the batch ended; asked again next run"
                  if batch.status != "completed" else "missing from the completed batch's output and error files")
        errors = getattr(batch, "errors", None)
        if batch.status == "failed" and getattr(errors, "data", None):
            reason += f" ({getattr(errors.data[0], 'message', '')})"
        for key in journalled.prompt_versions:
            if key not in seen:
                done(key, self._failure(key, request(key), BatchLineError(reason), attempts=1, simulated=False))
                failed += 1
        tracker.note(f"LLM batch {journalled.batch_id}: {batch.status}, {answered} answered, {failed} without "
                     "an answer")
        return results

    def _batch_unreadable(self, journalled: JournalledBatch, wanted: dict[str, LLMRequest], err: BaseException,
                          tracker: _Progress, gone: bool = False) -> dict[str, LLMResult]:
        """This run's requests of a batch that could not be polled or read: errors. The batch stays open for
        the next run to collect, unless the provider does not know it (`gone`): then the next run asks anew."""
        then = "the next run asks again" if gone else "the next run collects it"
        log.warning("LLM batch %s could not be read (%s); %s", journalled.batch_id, type(err).__name__, then)
        tracker.note(f"LLM batch {journalled.batch_id}: could not be read ({type(err).__name__}); {then}")
        error = BatchLineError(f"batch {journalled.batch_id} could not be read, {then}: {_describe(err)}")
        results = {}
        for key, req in wanted.items():
            results[key] = self._failure(key, req, error, attempts=1, simulated=False)
            tracker.tick(error=True)
        return results

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        # Exponential backoff with full jitter, but never sooner than the server asked.
        cap = min(self.backoff_max_s, self.backoff_base_s * (2 ** (attempt - 1)))
        delay = self._rng.uniform(0, cap)
        if retry_after is not None:
            delay = max(delay, min(retry_after, _RETRY_AFTER_CEILING_S))
        return delay

    def _success(
        self,
        key: str,
        req: LLMRequest,
        text: str,
        tokens_in: int,
        tokens_out: int,
        latency_ms: float,
        cost_usd: float,
        simulated: bool,
        redact: bool = True,
    ) -> LLMResult:
        text, redactions = _redact(_LONE_SURROGATE.sub("\ufffd", text)) if redact else (text, 0)
        row = CachedResponse(
            key=key,
            model=req.model,
            prompt_version=req.prompt_version,
            text=text,
            tokens_in=int(tokens_in or 0),
            tokens_out=int(tokens_out or 0),
            latency_ms=latency_ms,
            cost_usd=cost_usd,
            simulated=simulated,
            pii_redactions=redactions,
            created_at=time.time(),
        )
        _record(self.cache, response=row)
        return dataclasses.replace(_from_cache(row), cached=False)

    def _failure(self, key: str, req: LLMRequest, err: BaseException, attempts: int, simulated: bool) -> LLMResult:
        # Provider errors can echo parts of the prompt, so they are redacted like responses.
        message, _ = _redact(_LONE_SURROGATE.sub("\ufffd", _describe(err)))
        status = getattr(err, "status_code", None)
        _record(self.cache, error=JournalledError(key, req.model, req.prompt_version, message, attempts,
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


class _Journal:
    """What a run's calls write to the cache as they start and end, written together.

    Calls that end in the same pass of the event loop (the answers of a wave of calls in flight) have their answers,
    journalled errors and the release of their claims committed in one transaction, at the end of that pass (a flush
    scheduled with `call_soon` when the first of them is added), or at once when `_JOURNAL_ROWS` wait. Calls that
    start together take their claims in one transaction too (`claim`). One transaction per call was most of what the
    client added to litellm's own work per call. A finished answer is committed before anything is built on it (the
    run's results are handed on after its last flush, a batch is marked final after its answers); a run killed
    before the end of the pass loses the answers of that pass, as before it lost the one whose commit was under
    way: the next run asks them again. Nothing is repeated within a run, and a claim is released only with its
    call's answer or error, in the same transaction."""

    def __init__(self, cache: ResponseCache, owner: str, stale_after_s: float):
        self.cache = cache
        self.owner = owner
        self.stale_after_s = stale_after_s
        self.responses: list[CachedResponse] = []
        self.errors: list[JournalledError] = []
        self.released: list[str] = []
        self.claims: dict[str, asyncio.Future] = {}
        self.scheduled = False
        self.failure: BaseException | None = None  # a flush that failed: raised to the calls that follow, and at the end
        # A run claims its misses when they are gathered, and the last may wait behind the others for longer than a
        # claim stays fresh: its claims are dated anew with a flush at least this often, while the run lives.
        self.refresh_s = stale_after_s / 4
        self.refreshed_at = time.monotonic()

    def add(self, response: CachedResponse | None = None, error: JournalledError | None = None) -> None:
        if self.failure is not None:
            raise self.failure
        if response is not None:
            self.responses.append(response)
        if error is not None:
            self.errors.append(error)
        if len(self.responses) + len(self.errors) >= _JOURNAL_ROWS:
            self.flush()
        else:
            self._soon()

    def release(self, key: str) -> None:
        """The call of `key` ended: its claim goes with its answer or error."""
        self.released.append(key)
        self._soon()

    async def claim(self, key: str) -> tuple[bool, CachedResponse | None]:
        """Claim `key` for this run: (held, its answer when another run wrote one since this run read the cache)."""
        if self.failure is not None:
            raise self.failure
        future = asyncio.get_running_loop().create_future()
        self.claims[key] = future
        self._soon()
        return await future

    def _soon(self) -> None:
        if not self.scheduled:
            self.scheduled = True
            asyncio.get_running_loop().call_soon(self._flush_soon)

    def _flush_soon(self) -> None:
        try:
            self.flush()
        except Exception:  # kept in `failure`: the calls still to come and the run's end raise it
            pass

    def flush(self) -> None:
        self.scheduled = False
        if self.failure is not None:
            raise self.failure
        responses, errors, released, claims = self.responses, self.errors, self.released, self.claims
        self.responses, self.errors, self.released, self.claims = [], [], [], {}
        refresh = time.monotonic() - self.refreshed_at >= self.refresh_s
        try:
            if responses or errors or released or refresh:
                self.cache.record(responses, errors, released, self.owner, refresh=refresh)
                self.refreshed_at = time.monotonic() if refresh else self.refreshed_at
            if claims:
                held, answered = self.cache.claim_unanswered(claims, self.owner, self.stale_after_s)
        except Exception as err:
            self.failure = err
            for future in claims.values():
                if not future.done():
                    future.set_exception(err)
            raise
        for key, future in claims.items():
            if not future.done():  # not cancelled meanwhile
                future.set_result((key in held, answered.get(key)))
            elif key in held:  # cancelled: the claim is not wanted
                self.release(key)


# The journal of the run whose calls are running (`LLMRunner._call_all`); None outside one.
_JOURNAL: ContextVar[_Journal | None] = ContextVar("benchwright_llm_journal", default=None)


def _record(cache: ResponseCache, response: CachedResponse | None = None, error: JournalledError | None = None) -> None:
    """A finished call into the cache: through the running run's journal, else (no run) at once."""
    journal = _JOURNAL.get()
    if journal is not None:
        journal.add(response=response, error=error)
    else:
        cache.record([response] if response else [], [error] if error else [])


def _send_stamp(gate: ProviderGate, lease: int) -> Callable[[dict], None]:
    """litellm's `logger_fn` for one attempt: at its pre-call event, after the client is set up and right before
    the request goes to the HTTP client, the lease's rpm/tpm start becomes now (`ProviderGate.sent`)."""

    def stamp(details: dict) -> None:
        if details.get("log_event_type") == "pre_api_call":
            gate.sent(lease)

    return stamp


def _given_up_result(key: str, req: LLMRequest, error: str) -> LLMResult:
    """The result of a request given up (failures.py): its last error, without a call."""
    return LLMResult(key=key, model=req.model, text=None, error=error, tokens_in=0, tokens_out=0, latency_ms=0.0,
                     cost_usd=0.0, cached=False, simulated=False, pii_redactions=0)


def reserved_tokens_out(cache: ResponseCache, req: LLMRequest) -> int:
    """Completion tokens a provider's tpm budget holds for a call until its count is known: the request's
    `max_tokens` when it has one (the answer cannot be longer, and providers count it so too), else what is
    expected (`expected_tokens_out`)."""
    return int(req.params.get("max_tokens") or expected_tokens_out(cache, req))


def expected_tokens_out(cache: ResponseCache, req: LLMRequest) -> int:
    """Completion tokens a call is expected to take: the model's mean over its answered calls in the
    cache, else the request's `max_tokens`, else PLANNED_TOKENS_OUT."""
    mean = cache.mean_tokens_out(req.model)
    if mean:
        return max(1, round(mean))
    return int(req.params.get("max_tokens") or PLANNED_TOKENS_OUT)


def price_usd(model: str, tokens_in: int, tokens_out: int) -> float | None:
    """USD for these tokens from litellm's price table; None when the model is not in it."""
    litellm = _litellm()
    try:
        prompt, completion = litellm.cost_per_token(model=model, prompt_tokens=tokens_in,
                                                    completion_tokens=tokens_out)
    except Exception:  # not in the table (self-hosted, new): unknown, said so by the caller
        return None
    return float(prompt) + float(completion)


def ledger_rows(scope: CallScope | Sequence[CallScope], requests: list[LLMRequest],
                results: list[LLMResult]) -> list[tuple]:
    """The ledger's rows for one run (LEDGER_COLUMNS order): one per call made, failed ones included, and one per
    scope × called model × (error, simulated) for the cache hits, counting them in `results` with their usage
    summed. Ids are this run's random prefix and a result's position (a hit row: its first hit's), so copying the
    ledger anywhere is idempotent on them."""
    scopes = [scope] * len(requests) if isinstance(scope, CallScope) else list(scope)
    if len(scopes) != len(requests):
        raise ValueError(f"{len(scopes)} ledger scopes for {len(requests)} requests")
    prefix, now = secrets.token_hex(8), time.time()
    rows, hits = [], {}
    for position, (s, req, result) in enumerate(zip(scopes, requests, results)):
        who = (s.run_id, s.benchmark, s.stage, s.partition_key, s.model, s.judge, req.model)
        error, simulated = int(result.error is not None), int(result.simulated)
        usage = (int(result.tokens_in or 0), int(result.tokens_out or 0), float(result.cost_usd or 0.0),
                 float(result.latency_ms or 0.0))
        if not result.cached:
            rows.append((f"{prefix}:{position}", now, *who, result.key, 0, error, *usage, simulated, 1))
            continue
        total = hits.setdefault((*who, error, simulated), [position, 0, 0, 0, 0.0, 0.0])
        total[1] += 1
        for i, value in enumerate(usage, start=2):
            total[i] += value
    for (*who, error, simulated), (first, count, *usage) in hits.items():
        rows.append((f"{prefix}:{first}", now, *who, "", 1, error, *usage, simulated, count))
    return rows


def _parse(response: Any) -> tuple[str, int, int]:
    choices = getattr(response, "choices", None)
    if not choices:
        raise _Malformed("response has no choices")
    message = getattr(choices[0], "message", None)
    if message is None:
        raise _Malformed("response choice has no message")
    usage = getattr(response, "usage", None)
    tokens_in = getattr(usage, "prompt_tokens", 0) or 0
    tokens_out = getattr(usage, "completion_tokens", 0) or 0
    if not has_text(message.content):
        reason = getattr(choices[0], "finish_reason", None)
        raise NoContent(f"provider returned no content (finish_reason={reason})")
    return message.content, tokens_in, tokens_out


def _endpoint_kwargs(model: str, api_base: str | None, params: dict) -> dict[str, Any]:
    """Where litellm sends a model's calls: its api_base, if any, and the placeholder key a self-hosted
    OpenAI-compatible server needs when no OPENAI_API_KEY is set."""
    kwargs: dict[str, Any] = {}
    if api_base:
        kwargs["api_base"] = api_base
        if keyless_server(model, api_base) and not os.environ.get("OPENAI_API_KEY") and "api_key" not in params:
            kwargs["api_key"] = _NOAUTH_KEY
    return kwargs


def keyless_server(model: str, api_base: str | None) -> bool:
    """An `openai/` model with its own api_base: a self-hosted OpenAI-compatible server, which is sent a placeholder
    key when OPENAI_API_KEY is not set, so it needs none from the environment."""
    return bool(api_base) and model.startswith("openai/")


def _batch_cost(model: str, response: Any) -> float:
    """USD of one batch answer: litellm's batch rates for the model where its table lists them, else half
    its live price (litellm's own rule for batches); 0 for a model not in the table."""
    from litellm.cost_calculator import batch_cost_calculator

    try:
        prompt, completion = batch_cost_calculator(usage=response.usage, model=model)
    except Exception:  # not in the table, or no usage: unknown, not an error
        return 0.0
    return float(prompt or 0.0) + float(completion or 0.0)


def _cost(litellm: Any, response: Any) -> float:
    """USD from litellm's price table. litellm prices each response while building it and keeps the
    result in ``_hidden_params["response_cost"]`` (None when the model is not in its table); pricing
    it a second time would repeat the model lookup, which for an unlisted model is the slow path."""
    hidden = getattr(response, "_hidden_params", None) or {}
    if "response_cost" in hidden:
        return float(hidden["response_cost"] or 0.0)
    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # model missing from the price table (self-hosted, new): unknown, not an error
        return 0.0


def _from_cache(row: CachedResponse) -> LLMResult:
    return LLMResult(
        key=row.key,
        model=row.model,
        text=row.text,
        error=None,
        tokens_in=row.tokens_in,
        tokens_out=row.tokens_out,
        latency_ms=row.latency_ms,
        cost_usd=row.cost_usd,
        cached=True,
        simulated=row.simulated,
        pii_redactions=row.pii_redactions,
    )


def _run_coroutine(make: Callable[[], Any]) -> Any:
    """asyncio.run, or in a helper thread when the caller already runs an event loop (e.g. a notebook)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()
