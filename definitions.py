"""The Dagster code location: assets, checks, sensors, resources and the executor, assembled.

Every module in assets/ and checks/ is picked up, and so is every module named in BENCHWRIGHT_PLUGINS
(a benchmark kept outside this repository, see docs/ARCHITECTURE.md "Adding a benchmark"); the sensors are
the kernel's and those each declared benchmark names (``benchwright.benchmarks``: its declaration's
``sensors``, or a plugin module's ``SENSORS``): a new benchmark plugs in by adding files, with no change here.
"""

import importlib
import pkgutil
from types import ModuleType

import dagster as dg

import assets
import checks
from benchwright import benchmarks
from benchwright.paths import plugin_modules
from checks.one_step import one_step_per_asset
from resources import default_resources
from resources.dagster_event_log import keep_event_log_connections
from resources.warehouse import read_sql
from sensors.failed_calls import failed_calls_sensor
from sensors.redundancy import benchmark_scores_sensor
from sensors.registry import automation_sensor, registry_sensor
from sensors.runs import orphaned_run_sensor


keep_event_log_connections()  # the code server's and step processes' event writes (resources/dagster_event_log.py)


def benchmark_modules() -> list[ModuleType]:
    """The modules of assets/ (by name) and then the plugins."""
    ours = [importlib.import_module(f"assets.{info.name}") for info in pkgutil.iter_modules(assets.__path__)]
    return sorted(ours, key=lambda m: m.__name__) + [importlib.import_module(name) for name in plugin_modules()]


def reports() -> list[tuple[str, str]]:
    """What the main job prints: each declared benchmark's ``reports`` in declaration order, (title, SQL over the
    analyst snapshot) pairs."""
    return [(report.title, read_sql(report.sql_file)) for benchmark in benchmarks.declared()
            for report in benchmark.reports]


_plugins = [importlib.import_module(name) for name in plugin_modules()]


def benchmark_sensors() -> list[dg.SensorDefinition]:
    """The sensors the declared benchmarks name (one benchmark's or several's, each once), then the plugins'
    ``SENSORS``."""
    named = dict.fromkeys(reference for benchmark in benchmarks.declared() for reference in benchmark.sensors)
    found = [benchmarks.load_attribute(reference) for reference in named]
    found += [sensor for module in _plugins for sensor in getattr(module, "SENSORS", [])]
    return list({id(sensor): sensor for sensor in found}.values())


# What the forkserver of step processes imports once (see step_processes below): the code location with its
# asset job already rebuilt (scripts/step_preload.py), and the slow imports steps need (docs/DESIGN.md#pitfalls, 4):
# scipy.stats too, which the code location itself leaves to the functions that use it, with the optimize, sparse and
# special modules the fits use (≈ 0.7 s of a process's start).
PRELOADED = ["scripts.step_preload", "great_expectations", "scipy.stats", "litellm"]


def step_processes(config: dict) -> dict:
    """Dagster's executor config for `step_processes: N`.

    1 (the default, for the UI and the main job): every step in the run's own process; the daemon's runs go
    in parallel through the instance's run queue instead. N > 1 (`--workers N`): up to N steps at once, each in a
    process forked from a forkserver that has PRELOADED imported, so a step starts in a fraction of a second
    instead of importing the code location again. DuckDB's single writer is kept either way by the
    warehouse's inter-process lock around each short section.
    """
    count = config["step_processes"]
    if count <= 1:
        return {"in_process": {}}
    return {"multiprocess": {"max_concurrent": count, "start_method": {"forkserver": {"preload_modules": PRELOADED}}}}


executor = dg.multi_or_in_process_executor.configured(
    step_processes, name="benchwright_executor",
    config_schema={"step_processes": dg.Field(int, default_value=1, description="steps run at once, each in its "
                                              "own process when more than 1")})

# The asset definitions as written, before Definitions binds the resources to them: `dev.py plan` calls them
# directly on a copy of the home with resources of its own (scripts/plan.py).
ASSETS = [*dg.load_assets_from_package_module(assets), *dg.load_assets_from_modules(_plugins)]

defs = dg.Definitions(
    assets=ASSETS,
    # An asset's checks run in one step (checks/one_step.py); a plugin's own-decorator checks keep theirs.
    asset_checks=one_step_per_asset([*dg.load_asset_checks_from_package_module(checks),
                                     *dg.load_asset_checks_from_modules(_plugins)]),
    sensors=[registry_sensor, automation_sensor, benchmark_scores_sensor, orphaned_run_sensor, failed_calls_sensor,
             *benchmark_sensors()],
    resources=default_resources(),
    executor=executor,
)
