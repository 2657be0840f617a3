"""Partitions whose last run left failed calls are run again, until none is left or they are given up.

A step that calls models journals a failed call as an error row and records the count in its materialization
metadata (`errors`, of which `given_up`: benchwright/llm/failures.py). Dagster's staleness knows nothing of
that: the code and inputs did not change, so the partition looks fresh. The main job asks `calls_to_ask_again`
of each partition's latest materialization (scripts/orchestrate.py `needs_run`); with the daemon,
`failed_calls_sensor` does: it reads the materializations recorded since its cursor and requests one run of each
asset partition whose latest one left calls to ask again, `BENCHWRIGHT_RETRY_FAILED_AFTER_S` seconds (300 by
default) after it, so a provider that is down is asked every few minutes, not on every tick. Requests a reached
budget kept back (`not_sent`) are not retried by the sensor: only a larger budget sends them, in the next main
job. The re-run asks only the failed requests (the cache serves the rest); its readers follow by eager automation.
"""

from __future__ import annotations

import json
import os
import time

import dagster as dg

from benchwright.llm.failures import calls_to_retry
from sensors import TICK_INTERVAL_S

RETRY_AFTER_S_DEFAULT = 300


def retry_after_s() -> float:
    return float(os.environ.get("BENCHWRIGHT_RETRY_FAILED_AFTER_S") or RETRY_AFTER_S_DEFAULT)


def latest_metadata(instance: dg.DagsterInstance, key: dg.AssetKey, partition_key=None) -> dict:
    """The metadata of an asset partition's latest materialization (empty when it has none)."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=key, asset_partitions=None if partition_key is None else [str(partition_key)]),
        limit=1).records
    materialization = records[0].asset_materialization if records else None
    return dict(materialization.metadata) if materialization is not None else {}


def llm_asset_keys() -> list[dg.AssetKey]:
    from assets.ledger import llm_assets

    return [key for asset in llm_assets() for key in asset.keys]


@dg.sensor(minimum_interval_seconds=TICK_INTERVAL_S, default_status=dg.DefaultSensorStatus.RUNNING,
           asset_selection=llm_asset_keys(),
           description="Runs again the asset partitions whose latest materialization recorded failed LLM calls "
                       "that are not given up (benchwright/llm/failures.py); only those calls are asked again.")
def failed_calls_sensor(context: dg.SensorEvaluationContext):
    cursor = json.loads(context.cursor) if context.cursor else {"after": 0, "pending": {}}
    pending: dict[str, list] = cursor["pending"]  # "asset|partition" -> [storage id, timestamp]
    after = cursor["after"]
    for key in llm_asset_keys():
        records = context.instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=key, after_storage_id=after or None), limit=1000, ascending=True).records
        for record in records:
            materialization = record.asset_materialization
            label = f"{key.to_user_string()}|{materialization.partition or ''}"
            if calls_to_retry(materialization.metadata):  # a reached budget's requests wait for a larger one
                pending[label] = [record.storage_id, record.timestamp]
            else:
                pending.pop(label, None)  # a later run filled the holes (or gave them up)
            cursor["after"] = max(cursor["after"], record.storage_id)
    requests = []
    now = time.time()
    for label, (storage_id, timestamp) in sorted(pending.items()):
        if now - timestamp < retry_after_s():
            continue
        asset, partition = label.split("|", 1)
        requests.append(dg.RunRequest(run_key=f"failed-calls-{storage_id}", asset_selection=[dg.AssetKey.from_user_string(asset)],
                                      partition_key=partition or None, tags={"benchwright/reason": "failed calls"}))
        del pending[label]
    context.update_cursor(json.dumps(cursor))
    if not requests:
        return dg.SkipReason(f"{len(pending)} asset partitions with failed calls wait for their retry time"
                             if pending else "no asset partition has failed calls to ask again")
    return requests
