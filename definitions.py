"""The Dagster code location: assets, checks, sensors, resources and the executor, assembled.

Every module in assets/ and checks/ is picked up, so a new benchmark plugs in by adding files
(see docs/ARCHITECTURE.md, "Adding a benchmark").
"""

import dagster as dg

import assets
import checks
from resources import default_resources
from sensors.gap import gap_log_drop_sensor
from sensors.human_pairwise import human_pairwise_drop_sensor
from sensors.mmmt_if import mmmt_if_human_ratings_sensor
from sensors.registry import automation_sensor, registry_sensor
from sensors.runs import orphaned_run_sensor

defs = dg.Definitions(
    assets=dg.load_assets_from_package_module(assets),
    asset_checks=dg.load_asset_checks_from_package_module(checks),
    sensors=[registry_sensor, automation_sensor, mmmt_if_human_ratings_sensor, gap_log_drop_sensor,
             human_pairwise_drop_sensor, orphaned_run_sensor],
    resources=default_resources(),
    # DuckDB allows one writer process: steps run in the run's own process (DESIGN §3).
    executor=dg.in_process_executor,
)
