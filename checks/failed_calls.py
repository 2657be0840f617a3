"""`failed_calls` on every asset that calls models (a plugin's included): the share of its requests that failed
in its latest materialization. ERROR above `FAILED_CALLS_ERROR_SHARE`, WARN above zero; blocking, so the readers
in the same run wait for a partition that failed wholesale. Failed calls are asked again by the next run (see
sensors/failed_calls.py); given-up ones are counted apart."""

import dagster as dg

from assets.ledger import llm_assets
from benchwright.llm.failures import FAILED_CALLS_ERROR_SHARE, failed_calls, failed_share_severity, requests_of
from sensors.failed_calls import latest_metadata


def failed_calls_check(asset: dg.AssetsDefinition) -> dg.AssetChecksDefinition:
    @dg.asset_check(asset=asset, name="failed_calls", partitions_def=asset.partitions_def, blocking=True,
                    description=f"Share of the step's LLM requests that failed (ERROR above "
                                f"{FAILED_CALLS_ERROR_SHARE:.0%}, WARN above 0); they are asked again by the next run")
    def _check(context: dg.AssetCheckExecutionContext) -> dg.AssetCheckResult:
        partition = context.partition_key if asset.partitions_def is not None else None
        metadata = latest_metadata(context.instance, asset.key, partition)
        errors, requests = failed_calls(metadata), requests_of(metadata)
        given_up = int(getattr(metadata.get("given_up"), "value", 0) or 0)
        severity = failed_share_severity(errors, requests)
        share = errors / requests if requests else 0.0
        return dg.AssetCheckResult(
            passed=severity is None,
            severity=dg.AssetCheckSeverity.ERROR if severity == "ERROR" else dg.AssetCheckSeverity.WARN,
            description=(f"{errors} of {requests} requests failed ({share:.1%}); {given_up} given up, the others "
                         "are asked again by the next run" if errors else f"none of {requests} requests failed"),
            metadata={"failed_calls": errors, "requests": requests, "failed_share": share, "given_up": given_up})

    return _check


FAILED_CALLS_CHECKS = [failed_calls_check(asset) for asset in llm_assets()]
