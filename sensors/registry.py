"""Sensors: the registry sensor adds partitions for new models/judges; automation does the rest.

The registry sensor requests only the *generation* run of a new model. Judgments and metrics follow
through `AutomationCondition.eager()` (judging before the generations are written would race them),
and a new judge needs no run request at all: its new partitions are "newly missing" for eager().
"""


import dagster as dg

import assets
from assets.partitions import judges_partitions, models_partitions
from resources.registry import Registry

# Every benchmark's generations asset: the assets partitioned by model alone.
GENERATION_ASSETS = [a for a in dg.load_assets_from_package_module(assets)
                     if isinstance(a, dg.AssetsDefinition) and a.partitions_def == models_partitions]
GENERATION_KEYS = [key for a in GENERATION_ASSETS for key in a.keys]


@dg.sensor(
    name="registry_sensor",
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    asset_selection=GENERATION_KEYS,
    description="Watches registry/models.yaml and registry/judges.yaml: adds the partitions of new candidate "
                "models and judges and requests each new model's generations. Malformed entries are logged "
                "with file and entry and do not stop the others. Removed entries keep their results.",
)
def registry_sensor(context: dg.SensorEvaluationContext, registry: Registry) -> dg.SensorResult | dg.SkipReason:
    for problem in registry.problems():
        context.log.warning(f"registry entry skipped: {problem}")
    known_models = set(context.instance.get_dynamic_partitions(models_partitions.name))
    known_judges = set(context.instance.get_dynamic_partitions(judges_partitions.name))
    new_models = [e.slug for e in registry.candidates() if e.slug not in known_models]
    new_judges = [e.slug for e in registry.judges() if e.slug not in known_judges]
    if not new_models and not new_judges:
        return dg.SkipReason("no new models or judges in the registry")
    context.log.info(f"new models: {new_models}; new judges: {new_judges}")
    return dg.SensorResult(
        dynamic_partitions_requests=[
            request for request, keys in ((models_partitions.build_add_request(new_models), new_models),
                                          (judges_partitions.build_add_request(new_judges), new_judges)) if keys
        ],
        run_requests=[
            dg.RunRequest(run_key=f"generations:{slug}", partition_key=slug, asset_selection=GENERATION_KEYS)
            for slug in new_models
        ],
    )


# Runs eager() conditions (judgments, metrics, publish). Declared RUNNING: the default one starts stopped.
automation_sensor = dg.AutomationConditionSensorDefinition(
    name="automation_sensor",
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
)
