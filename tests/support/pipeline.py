"""Helpers for tests that run the Dagster graph on a temporary home with a chosen registry."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import yaml

from benchwright.paths import ROOT
from resources import default_resources

SHIPPED_MODELS = yaml.safe_load((ROOT / "registry" / "models.yaml").read_text())
SHIPPED_JUDGES = yaml.safe_load((ROOT / "registry" / "judges.yaml").read_text())
# The sample, smaller where it costs time and not coverage, for a test that asserts nothing of what it changes:
# fewer MMMT-IF turns and samples, GAP items and bootstrap rounds (materialize_everything's `asset_config`; the
# same for every job of a test, so warehouses stay comparable).
SMALLER = {"mmmt_if_source_chats": {"max_turns": 2}, "mmmt_if_generations": {"samples": 2},
           "gap_generations": {"max_val_items": 8}, "interop_ratings": {"bootstrap_rounds": 50},
           "mmmt_if_release_metrics": {"bootstrap_rounds": 50}}


def write_registry(home: Path, models: dict, judges: dict) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "models.yaml").write_text(yaml.safe_dump(models))
    (home / "judges.yaml").write_text(yaml.safe_dump(judges))


def resources_for(home: Path, llm_mode: str = "live") -> dict:
    from resources.llm import LLMClient
    from resources.registry import Registry

    resources = default_resources(home=home, llm_mode=llm_mode)
    resources["registry"] = Registry(models_path=str(home / "models.yaml"), judges_path=str(home / "judges.yaml"))
    resources["llm"] = LLMClient(cache_path=resources["llm"].cache_path, mode=resources["llm"].mode,
                                 providers_path=resources["registry"].providers_file())
    return resources


def pick(entries: dict, *slugs: str) -> dict:
    return {slug: entries[slug] for slug in slugs}


def materialize(keys: list[str], instance, resources, partition_key=None, run_config=None) -> dg.ExecuteInProcessResult:
    from definitions import defs

    return dg.materialize(list(defs.assets) + list(defs.asset_checks), selection=dg.AssetSelection.assets(*keys),
                          instance=instance, resources=resources, partition_key=partition_key, raise_on_error=False,
                          run_config=run_config)


def metadata_total(result: dg.ExecuteInProcessResult, key: str) -> int:
    return sum(int(e.materialization.metadata[key].value) for e in result.get_asset_materialization_events()
               if key in e.materialization.metadata)


def check_results(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetCheckEvaluation]:
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


def sensor_tick(instance, resources):
    """One tick of the registry sensor, with what the daemon does with its result."""
    from sensors.registry import registry_sensor

    context = dg.build_sensor_context(instance=instance, resources={"registry": resources["registry"],
                                                                    "warehouse": resources["warehouse"]})
    result = registry_sensor(context)
    # build_sensor_context does not record asset events nor apply partition adds (docs/DESIGN.md#pitfalls, 10): do
    # what the daemon does, in its order.
    if isinstance(result, dg.SensorResult):
        for event in result.asset_events or []:
            instance.report_runless_asset_event(event)
        for request in result.dynamic_partitions_requests or []:
            instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
    return result
