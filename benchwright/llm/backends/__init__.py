"""The ways the runner's cache misses are answered, chosen by name from one table.

`live` (litellm, one call per request), `batch` (the provider's batch API), `plan` (no call: what it would cost)
and `sim` (the offline simulator, for `sim/...` model strings). Each is a class registered with `@backend(name)`
by a function that imports it only when it is first asked for, the way inspect_ai registers its providers and its
mock model: the runner never imports a back end it does not use, and knows none of them by module, so the
simulator (and what it knows of the benchmarks) is loaded only by a run with a `sim/` model.

A back end produces answers; the runner (`LLMRunner`) keeps the cache, the journal, claims, retries, pacing,
provider leases and statistics, and hands each back end a `Run` through which it lands its answers and errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Awaitable, Callable, Protocol

from benchwright.llm.cache import ResponseCache
from benchwright.llm.request import LLMRequest
from benchwright.llm.results import LLMResult


@dataclass(frozen=True)
class Answer:
    """One request's answer as a back end got it; the runner redacts, caches and counts it."""

    text: str
    tokens_in: int
    tokens_out: int
    latency_ms: float
    cost_usd: float
    simulated: bool = False
    redact: bool = True  # False only for the plan's placeholder, which holds no personal data


# One attempt at a provider call (`Run.provider_call`): the request, the timeout, and what to call as the request
# is handed to the HTTP client (the provider lease's rpm/tpm start). Raises what the call raised.
Attempt = Callable[[LLMRequest, float, Callable[[], None]], Awaitable[Answer]]


class Run(Protocol):
    """What one run of the runner offers its back ends."""

    cache: ResponseCache
    timeout_s: float
    max_retries: int
    batch_poll_s: float
    batch_poll_max_s: float

    def success(self, key: str, req: LLMRequest, answer: Answer) -> LLMResult:
        """The answer into the cache (redacted unless `answer.redact` is False); its result."""

    def failure(self, key: str, req: LLMRequest, err: BaseException, attempts: int = 1,
                simulated: bool = False) -> LLMResult:
        """The error into the journal; its result."""

    def tick(self, error: bool) -> None:
        """One of the run's requests is answered (progress)."""

    def note(self, text: str) -> None:
        """A progress line of its own."""

    def flush(self) -> None:
        """Commit what the run's journal holds now."""

    async def provider_call(self, key: str, req: LLMRequest, attempt: Attempt) -> LLMResult:
        """A paid call: under the request's claim, the model's pacing and the provider's lease, `attempt` retried
        by the runner's rule; its result (answer or error, journalled)."""


class Backend(Protocol):
    timed: bool  # its answers' latencies count in the run's p50/p95 (not a batch's: its lines have none)

    async def answer_all(self, misses: dict[str, LLMRequest], run: Run) -> dict[str, LLMResult]:
        """Every miss's result (`run.success` / `run.failure`), each counted with `run.tick` as it ends."""


_FACTORIES: dict[str, Callable[[], type]] = {}
# Model-string prefixes answered by a back end of their own, whatever the mode ("sim" for "sim/<name>").
_PREFIXES: dict[str, str] = {}


def backend(name: str, prefix: str | None = None) -> Callable[[Callable[[], type]], Callable[[], type]]:
    """Register `factory` (a function returning the back end's class) under `name`; with `prefix`, the model strings
    "<prefix>/..." are answered by it."""

    def register(factory: Callable[[], type]) -> Callable[[], type]:
        _FACTORIES[name] = factory
        if prefix:
            _PREFIXES[prefix] = name
        return factory

    return register


def make(name: str) -> Backend:
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(f"no LLM back end named {name!r} (known: {', '.join(sorted(_FACTORIES))})") from None
    return factory()()


def own_backend(model: str) -> str | None:
    """The back end a model string names by its prefix (the simulator's `sim/`), else None: a provider's model."""
    prefix, slash, _ = model.partition("/")
    return _PREFIXES.get(prefix) if slash else None


def backend_for(mode: str, model: str, batch: bool = False) -> str:
    """The name of the back end that answers a miss of `model` in this mode: the model's own (sim/), else in plan
    mode the estimate, else the provider's batch API when its limits say `batch`, else a live call."""
    own = own_backend(model)
    if own is not None:
        return own
    if mode == "plan":
        return "plan"
    return "batch" if batch else "live"


# The table. Each function imports its class only when a run first needs that back end.
@backend("live")
def _live() -> type:
    from benchwright.llm.backends.live import Live

    return Live


@backend("batch")
def _batch() -> type:
    from benchwright.llm.backends.batch import Batch

    return Batch


@backend("plan")
def _plan() -> type:
    from benchwright.llm.backends.plan import Plan

    return Plan


@backend("sim", prefix="sim")
def _simulated() -> type:
    from benchwright.llm.backends.simulated import Simulated

    return Simulated
