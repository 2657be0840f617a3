"""Dagster wiring for the LLM layer; all behaviour lives in benchwright.llm."""

from __future__ import annotations

import contextlib
from typing import Callable, Optional, Sequence, Union

import dagster as dg

from benchwright.llm import CallScope, CallStats, LLMRequest, LLMResult, LLMRunner, ModelLimits
from benchwright.registry import load_providers, refused_providers


class LLMClient(dg.ConfigurableResource):
    """Cached, concurrent LLM calls for generation and judging assets (docs/ARCHITECTURE.md#llm-layer)."""

    cache_path: str
    # "live": call on a cache miss; "replay": a miss is an error; "plan": a miss is counted and priced, not
    # called (only on a copy of a home: scripts/plan.py)
    mode: str = "live"
    timeout_s: float = 60.0
    max_retries: int = 4
    default_max_concurrency: int = 8
    default_rpm: Optional[int] = None
    # Models registered with `batch: true`: first poll of a batch after this, then doubling up to the max.
    batch_poll_s: float = 30.0
    batch_poll_max_s: float = 600.0
    # Each provider's limits across processes and runs (registry/providers.yaml; no file: defaults; a refused
    # entry: its provider's models are not called)
    providers_path: str = ""
    # Ask requests given up after repeated permanent failures (benchwright/llm/failures.py) again
    retry_given_up: bool = False
    # A run's cap (`dev.py run --max-cost`): the calls answered since `budget_since` (the run's start, a Unix time)
    # may cost this much, every step of the run together (benchwright/llm/budget.py)
    max_cost_usd: Optional[float] = None
    budget_since: Optional[float] = None

    def run(
        self,
        requests: list[LLMRequest],
        limits: Optional[dict[str, ModelLimits]] = None,
        progress: Optional[Callable[[str], None]] = None,
        scope: Union[CallScope, Sequence[CallScope], None] = None,
    ) -> tuple[list[LLMResult], CallStats]:
        # A runner per call: it only opens the SQLite file, and holds no state between assets.
        from benchwright.llm.backends import own_backend
        from resources.warehouse import Warehouse

        # Never wait on a provider with the warehouse's lock held; models answered in this process (the simulator's
        # sim/...) keep it, as the warehouse sections between their answers would reopen the file for nothing.
        in_process = all(own_backend(request.model) is not None for request in requests)
        with contextlib.nullcontext() if in_process else Warehouse.let_go():
            return self._run(requests, limits, progress, scope)

    def _run(self, requests, limits, progress, scope) -> tuple[list[LLMResult], CallStats]:
        provider_limits, problems = load_providers(self.providers_path) if self.providers_path else ({}, [])
        with LLMRunner(
            cache_path=self.cache_path,
            mode=self.mode,
            timeout_s=self.timeout_s,
            max_retries=self.max_retries,
            default_limits=ModelLimits(self.default_max_concurrency, self.default_rpm),
            batch_poll_s=self.batch_poll_s,
            batch_poll_max_s=self.batch_poll_max_s,
            provider_limits=provider_limits,
            refused_providers=refused_providers(problems),  # their models are not called at the defaults
            retry_given_up=self.retry_given_up,
            max_cost_usd=self.max_cost_usd,
            budget_since=self.budget_since,
        ) as runner:
            return runner.run(requests, limits=limits, progress=progress, scope=scope or _asking_asset())


def llm_with(client: LLMClient, **options) -> LLMClient:
    """The same client with some options changed (e.g. `retry_given_up`, `max_cost_usd` from `dev.py run`)."""
    return type(client)(**{**{name: getattr(client, name) for name in type(client).model_fields}, **options})


def call_scope(context, benchmark: str = "", model: str = "", judge: str = "") -> CallScope:
    """Who is asking, for the cost ledger: the asset running (the stage), its partition and run, and the
    benchmark, model and judge given; those not given are read off the partition (model, or model × judge)
    and, for the benchmark, the first word of the asset's name."""
    stage = context.asset_key.to_user_string()
    partition = context.partition_key if context.has_partition_key else ""
    if isinstance(partition, dg.MultiPartitionKey):
        dims = partition.keys_by_dimension
        model, judge = model or dims.get("model", ""), judge or dims.get("judge", "")
    elif partition:
        model = model or partition
    return CallScope(benchmark=benchmark or stage.split("_")[0], stage=stage, model=model, judge=judge,
                     partition_key=str(partition), run_id=context.run_id)


def _asking_asset() -> Optional[CallScope]:
    """The scope of a call that did not name one (a plugin's asset, say): the asset running now. Outside
    an asset (a script, a test) there is none, and nothing is entered in the ledger."""
    try:
        return call_scope(dg.AssetExecutionContext.get())
    except dg.DagsterInvariantViolationError:
        return None
