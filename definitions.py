"""The Dagster code location: assets, checks, sensors, resources and the executor, assembled."""

import dagster as dg

from assets import datasets, generations, judgments, metrics, publish
from checks import creation as creation_checks
from checks import schema as schema_checks
from resources import default_resources
from sensors.registry import automation_sensor, registry_sensor

ASSET_MODULES = [datasets, generations, judgments, metrics, publish]
CHECK_MODULES = [creation_checks, schema_checks]

defs = dg.Definitions(
    assets=dg.load_assets_from_modules(ASSET_MODULES),
    asset_checks=dg.load_asset_checks_from_modules(CHECK_MODULES),
    sensors=[registry_sensor, automation_sensor],
    resources=default_resources(),
    # DuckDB allows one writer process: steps run in the run's own process (DESIGN §3).
    executor=dg.in_process_executor,
)
