"""Sensors: the registry sensor adds partitions for new models/judges; automation does the rest.

It also records the inputs' data versions (registry entries, dataset and drop-folder files: assets/sources.py) that
changed, as the main job does before it runs: what the daemon builds then carries the versions it read, so the
UI's stale marks follow a changed entry or file, and a main job run after the daemon finds the daemon's work fresh.

The registry sensor requests only the *generation* runs of a new model. Judgments and metrics follow
through `AutomationCondition.eager()` (judging before the generations are written would race them),
and a new judge needs no run request at all: its new partitions are "newly missing" for eager(). A new
judge panel (registry/panels.yaml) is the same: its partitions are added, eager() builds them from its
members' judgments.
"""

import importlib

import dagster as dg

import assets
from assets.partitions import judges_partitions, models_partitions, panels_partitions
from assets.sources import current_versions, observation, observed_versions
from benchwright.paths import plugin_modules
from checks.registry import differs_from_latest, registry_check_evaluation
from resources.registry import Registry
from resources.warehouse import Warehouse
from sensors import TICK_INTERVAL_S

_LOADED = [*dg.load_assets_from_package_module(assets),
           *dg.load_assets_from_modules([importlib.import_module(n) for n in plugin_modules()])]
# Every benchmark's generations asset (plugins' too): the assets partitioned by model alone ...
GENERATION_ASSETS = [a for a in _LOADED if isinstance(a, dg.AssetsDefinition) and a.partitions_def == models_partitions]
GENERATION_KEYS = [key for a in GENERATION_ASSETS for key in a.keys]
# ... and the assets they read (items, descriptions), which must exist before a generation run can work
# (the observable sources they list, registry entries and files, are never materialized).
_SOURCE_KEYS = {a.key for a in _LOADED if isinstance(a, dg.SourceAsset)}
GENERATION_INPUTS = sorted({dep for a in GENERATION_ASSETS for dep in a.dependency_keys}
                           - set(GENERATION_KEYS) - _SOURCE_KEYS)


@dg.sensor(
    name="registry_sensor",
    minimum_interval_seconds=TICK_INTERVAL_S,
    default_status=dg.DefaultSensorStatus.RUNNING,
    asset_selection=GENERATION_KEYS,
    description="Watches registry/models.yaml, judges.yaml and panels.yaml: adds the partitions of new candidate "
                "models, judges and judge panels and requests each new model's generations (once the datasets are loaded). "
                "Records the new data versions of changed registry entries and dataset or drop-folder files (the "
                "sources in the `inputs` group), as the main job does. "
                "Malformed entries (a slug defined twice, no role, a non-boolean vision, params that are not "
                "plain JSON) are refused with file, entry, line and the key at fault, shown in the tick's text "
                "and as the failing check registry_entries_accepted on registry_labels, and do not stop the "
                "others. Removed entries keep their results.",
)
def registry_sensor(context: dg.SensorEvaluationContext, registry: Registry, warehouse: Warehouse):
    problems = [str(problem) for problem in registry.problems()]
    for problem in problems:
        context.log.warning(f"registry entry skipped: {problem}")
    # Added to the tick's own text in the UI, next to why it did nothing: the refused entries, the new input versions.
    notes = f" | {len(problems)} registry entries refused: " + "; ".join(problems) if problems else ""
    instance = context.instance
    # ... and in the registry check's result, recorded (as the daemon does with a tick's asset events) when it
    # differs from the latest one, so registry_labels turns red or green in the UI within a tick.
    evaluation = registry_check_evaluation(registry)
    asset_events = [evaluation] if differs_from_latest(instance, evaluation) else []
    # Recorded before the partitions are added and runs requested (the daemon's order), so a new model's first
    # generation run reads its entry's version.
    observed = observed_versions(instance)
    new_versions = [observation(key, partition, version) for key, partition, version
                    in current_versions({"registry": registry, "warehouse": warehouse})
                    if observed.get((key, partition)) != version]
    asset_events += new_versions
    if new_versions:  # why the UI now marks some assets stale
        notes += " | new versions of " + ", ".join(sorted({e.asset_key.to_user_string() for e in new_versions}))
    known_models = set(instance.get_dynamic_partitions(models_partitions.name))
    known_judges = set(instance.get_dynamic_partitions(judges_partitions.name))
    candidates = [e.slug for e in registry.candidates()]
    new_models = [slug for slug in candidates if slug not in known_models]
    new_judges = [e.slug for e in registry.judges() if e.slug not in known_judges]
    known_panels = set(instance.get_dynamic_partitions(panels_partitions.name))
    new_panels = [e.slug for e in registry.panels() if e.slug not in known_panels]
    partition_requests = [
        request for request, keys in ((models_partitions.build_add_request(new_models), new_models),
                                      (judges_partitions.build_add_request(new_judges), new_judges),
                                      (panels_partitions.build_add_request(new_panels), new_panels)) if keys
    ]
    generated = set.intersection(*(instance.get_materialized_partitions(key) for key in GENERATION_KEYS))
    pending = [slug for slug in candidates if slug not in generated]
    missing_inputs = [key.to_user_string() for key in GENERATION_INPUTS
                      if instance.get_latest_materialization_event(key) is None]
    if pending and missing_inputs:
        context.log.info(f"models {pending} wait for their inputs to be materialized: {missing_inputs}")
        pending = []
    waiting = f"waiting for {missing_inputs} to be materialized" if missing_inputs else ""
    if not partition_requests and not pending:
        skip = (waiting or "no new models or judges in the registry") + notes
        return dg.SensorResult(skip_reason=skip, asset_events=asset_events) if asset_events else dg.SkipReason(skip)
    context.log.info(f"new models: {new_models}; new judges: {new_judges}; new panels: {new_panels}; "
                     f"generation runs: {pending}{notes}")
    if not pending:
        # No run to request, so the tick can carry text: what was added, what was refused, what is new.
        added = (f"added models {new_models} and judges {new_judges}" + (f" and panels {new_panels}" if new_panels else "")
                 + (f"; generations are {waiting}" if waiting else ""))
        return dg.SensorResult(dynamic_partitions_requests=partition_requests, skip_reason=added + notes,
                               asset_events=asset_events)
    return dg.SensorResult(
        dynamic_partitions_requests=partition_requests,
        asset_events=asset_events,
        # The run key makes each model's generation run a once-only request.
        run_requests=[dg.RunRequest(run_key=f"generations:{slug}", partition_key=slug, asset_selection=GENERATION_KEYS)
                      for slug in pending],
    )


# Runs eager() conditions (judgments, metrics, publish). Declared RUNNING: the default one starts stopped.
automation_sensor = dg.AutomationConditionSensorDefinition(
    name="automation_sensor",
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=TICK_INTERVAL_S,
)
