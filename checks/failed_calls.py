"""`failed_calls` on every asset that calls models: the share of its requests that failed in its latest
materialization; ERROR above `FAILED_CALLS_ERROR_SHARE`, WARN above zero; blocking. Our assets compute it themselves
(`assets.common.failed_calls_spec` and `llm_result`: no step of its own, ~0.25 s each saved); this module adds it, as
a check of its own reading the materialization's metadata, to an asset that calls models without declaring it (a
plugin's). Failed calls are asked again by the next run (sensors/failed_calls.py); given-up ones are counted apart."""

import dagster as dg

from assets.common import FAILED_CALLS_CHECK, failed_calls_result
from assets.ledger import llm_assets
from checks.one_step import asset_check
from sensors.failed_calls import latest_metadata


def failed_calls_check(asset: dg.AssetsDefinition) -> dg.AssetChecksDefinition:
    @asset_check(asset=asset, name=FAILED_CALLS_CHECK, partitions_def=asset.partitions_def, blocking=True,
                 description="Share of the step's LLM requests that failed (ERROR above 10 %, WARN above 0); "
                             "they are asked again by the next run")
    def _check(context: dg.AssetCheckExecutionContext) -> dg.AssetCheckResult:
        partition = context.partition_key if asset.partitions_def is not None else None
        return failed_calls_result(latest_metadata(context.instance, asset.key, partition))

    return _check


FAILED_CALLS_CHECKS = [failed_calls_check(asset) for asset in llm_assets()
                       if not any(key.name == FAILED_CALLS_CHECK for key in asset.check_keys)]
