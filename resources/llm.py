"""Dagster wiring for the LLM layer; all behaviour lives in benchwright.llm."""

from __future__ import annotations

from typing import Callable, Optional, Sequence, Union

import dagster as dg

from benchwright.llm import CallScope, CallStats, LLMRequest, LLMResult, LLMRunner, ModelLimits


class LLMClient(dg.ConfigurableResource):
    """Cached, concurrent LLM calls for generation and judging assets (DESIGN §4)."""

    cache_path: str
    mode: str = "live"  # "live": call on a cache miss; "replay": a miss is an error
    timeout_s: float = 60.0
    max_retries: int = 4
    default_max_concurrency: int = 8
    default_rpm: Optional[int] = None

    def run(
        self,
        requests: list[LLMRequest],
        limits: Optional[dict[str, ModelLimits]] = None,
        progress: Optional[Callable[[str], None]] = None,
        scope: Union[CallScope, Sequence[CallScope], None] = None,
    ) -> tuple[list[LLMResult], CallStats]:
        # A runner per call: it only opens the SQLite file, and holds no state between assets.
        with LLMRunner(
            cache_path=self.cache_path,
            mode=self.mode,
            timeout_s=self.timeout_s,
            max_retries=self.max_retries,
            default_limits=ModelLimits(self.default_max_concurrency, self.default_rpm),
        ) as runner:
            return runner.run(requests, limits=limits, progress=progress, scope=scope or _asking_asset())


def _asking_asset() -> Optional[CallScope]:
    """The cost ledger's scope of a call that did not name one (a plugin's asset, say): the asset running
    now, its partition and run, the model and judge read off the partition, and for the benchmark the
    first word of the asset's name. Outside an asset (a script, a test) there is none: nothing is entered."""
    try:
        context = dg.AssetExecutionContext.get()
    except dg.DagsterInvariantViolationError:
        return None
    stage = context.asset_key.to_user_string()
    model = judge = partition = ""
    if context.has_partition_key:
        partition = context.partition_key
        if isinstance(partition, dg.MultiPartitionKey):
            dims = partition.keys_by_dimension
            model, judge = dims.get("model", ""), dims.get("judge", "")
        else:
            model = partition
    return CallScope(benchmark=stage.split("_")[0], stage=stage, model=model, judge=judge, partition_key=str(partition),
                     run_id=context.run_id)
