"""What a run hands back: one result per request, and the cost ledger's rows for them."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Sequence

from benchwright.llm.cache import CachedResponse
from benchwright.llm.request import LLMRequest

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
    not_sent: bool = False  # kept back by a reached budget (budget.py): an error, but no call was made




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



def from_cache(row: CachedResponse) -> LLMResult:
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



def given_up_result(key: str, req: LLMRequest, error: str) -> LLMResult:
    """The result of a request given up (failures.py): its last error, without a call."""
    return LLMResult(key=key, model=req.model, text=None, error=error, tokens_in=0, tokens_out=0, latency_ms=0.0,
                     cost_usd=0.0, cached=False, simulated=False, pii_redactions=0)



def ledger_rows(scope: CallScope | Sequence[CallScope], requests: list[LLMRequest],
                results: list[LLMResult]) -> list[tuple]:
    """The ledger's rows for one run (LEDGER_COLUMNS order): one per call made, failed ones included (not the requests
    a budget kept from being sent: no call), and one per
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
        if result.not_sent:
            continue
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
    not_sent: int = 0  # requests a reached budget kept from being sent (errors too; budget.py)
    budgets: list[str] = field(default_factory=list)  # each reached budget's message
    latencies_ms: list[float] = field(default_factory=list, repr=False)
    """The successful calls' latencies behind the percentiles, so that `merge` can compute them again."""

    @classmethod
    def merge(cls, parts: Sequence["CallStats"]) -> "CallStats":
        """The statistics of several run() calls of one step as if they were one: counts and cost summed,
        percentiles over every call's latency."""
        merged = cls()
        for part in parts:
            for name in ("requests", "api_calls", "cache_hits", "errors", "given_up", "cost_usd", "retries",
                         "not_sent"):
                setattr(merged, name, getattr(merged, name) + getattr(part, name))
            merged.budgets += [message for message in part.budgets if message not in merged.budgets]
            merged.latencies_ms += part.latencies_ms
        merged.latency_p50_ms = percentile(merged.latencies_ms, 0.50)
        merged.latency_p95_ms = percentile(merged.latencies_ms, 0.95)
        return merged

    def as_metadata(self) -> dict:
        budget = {"not_sent": self.not_sent, "budget": "; ".join(self.budgets)} if self.not_sent else {}
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
        } | budget


def percentile(values: list[float], q: float) -> float | None:
    """The q-quantile of `values`, linearly interpolated between the closest ranks; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)  # linear interpolation between closest ranks
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)
