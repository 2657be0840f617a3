"""With the daemon, `failed_calls_sensor` asks for one run of each asset partition whose latest materialization
left failed calls that are not given up, once its retry time has passed, and for none other."""

import dagster as dg

from sensors.failed_calls import failed_calls_sensor


def _materialized(instance, asset: str, partition: str | None, errors: int, given_up: int = 0) -> None:
    instance.report_runless_asset_event(dg.AssetMaterialization(
        asset_key=asset, partition=partition,
        metadata={"requests": 10, "api_calls": 10, "cache_hits": 0, "errors": errors, "given_up": given_up}))


def _tick(instance, cursor: str | None):
    context = dg.build_sensor_context(instance=instance, cursor=cursor)
    result = failed_calls_sensor(context)
    requests = [] if isinstance(result, dg.SkipReason) else list(result)
    return [(r.asset_selection[0].to_user_string(), r.partition_key) for r in requests], context.cursor, result


def test_partitions_with_failed_calls_are_requested_once_after_their_retry_time(monkeypatch):
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("models", ["m1", "m2", "m3"])
        _materialized(instance, "creation_generations", "m1", errors=2)
        _materialized(instance, "creation_generations", "m2", errors=0)
        _materialized(instance, "creation_generations", "m3", errors=3, given_up=3)  # only given-up calls
        _materialized(instance, "urs_references", None, errors=1)
        _materialized(instance, "creation_items", None, errors=5)  # not an asset that calls models

        monkeypatch.setenv("BENCHWRIGHT_RETRY_FAILED_AFTER_S", "3600")
        requested, cursor, result = _tick(instance, None)
        assert requested == [] and "2 asset partitions with failed calls wait" in result.skip_message

        monkeypatch.setenv("BENCHWRIGHT_RETRY_FAILED_AFTER_S", "0")
        requested, cursor, _ = _tick(instance, cursor)
        assert sorted(requested, key=str) == [("creation_generations", "m1"), ("urs_references", None)]
        requested, cursor, _ = _tick(instance, cursor)
        assert requested == []  # once per materialization

        # The re-run of m1 failed again (asked again), urs_references' was complete (done).
        _materialized(instance, "creation_generations", "m1", errors=1)
        _materialized(instance, "urs_references", None, errors=0)
        requested, cursor, _ = _tick(instance, cursor)
        assert requested == [("creation_generations", "m1")]
