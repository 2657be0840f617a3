"""Materialize the whole asset graph in dependency order, one Dagster run per level and partition,
running only what is missing or stale.

Used by the main job (scripts/materialize_all.py), the end-to-end tests and the benchmarks. The
daemon does the same thing incrementally through the sensors; this is the explicit, all-at-once path.
The order comes from the asset graph itself, so a new benchmark's assets need no change here.

With `workers` > 1 a run executes its steps (each asset and each check is a step) in parallel processes
through Dagster's multiprocess executor (see `step_processes` in definitions.py). Resources reach the step
processes as run config (they are ConfigurableResources), so a caller's resources are the ones every step
uses. The default is one process: measured at full size (bench/full_size.py), two step processes were
slower than one (bench/README.md), so parallel steps are a choice, not the default.

What to run is Dagster's own staleness, the one the UI shows: the observable sources (assets/sources.py)
are observed first, so a changed registry entry or dataset file has a new data version; then, level by
level, an asset partition runs when it is missing or stale (a new code version, or an input with a new
data version). With nothing new, nothing runs and no model is called.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import dagster as dg
# The resolver behind the UI's 'stale' labels; Dagster exports no public name for it.
from dagster._core.asset_graph_view.asset_graph_view import AssetGraphView, TemporalContext
from dagster._core.definitions.assets.job.asset_job import IMPLICIT_ASSET_JOB_NAME
from dagster._core.definitions.data_version import DATA_VERSION_TAG, CachingStaleStatusResolver, StaleStatus
from dagster._core.definitions.reconstruct import ReconstructableJob, ReconstructableRepository
from dagster._time import get_current_datetime

from assets.partitions import (judges_partitions, model_judge_partitions, model_panel_partitions, models_partitions,
                               panels_partitions)
from benchwright.paths import ROOT
from sensors.runs import fail_orphaned_runs


def default_workers() -> int:
    """Step processes at once: BENCHWRIGHT_WORKERS, else 1 (every step in the run's process)."""
    return int(os.environ.get("BENCHWRIGHT_WORKERS") or 1)


def asset_job() -> ReconstructableJob:
    """The code location's job of every asset, in a form step processes can rebuild by importing it.

    The assets have several partitions definitions, which only Dagster's implicit asset job allows (a named
    job must have one); it is reached the way `dagster job execute -m definitions -j __ASSET_JOB` does.
    """
    return ReconstructableRepository.for_module("definitions", "defs", working_directory=str(ROOT)) \
        .get_reconstructable_job(IMPLICIT_ASSET_JOB_NAME)


def resources_config(resources: dict) -> dict:
    """Run config that rebuilds these resources in every step process, field by field."""
    config = {}
    for name, resource in resources.items():
        if not isinstance(resource, dg.ConfigurableResource):
            raise TypeError(f"resource {name!r} is a {type(resource).__name__}: step processes can only rebuild "
                            "ConfigurableResources from their fields")
        config[name] = {"config": {field: getattr(resource, field) for field in type(resource).model_fields}}
    return config


def _stat(result, key: str) -> int:
    total = 0
    for event in result.get_asset_materialization_events():
        value = event.materialization.metadata.get(key)
        if value is not None and value.value == value.value:  # skip NaN
            total += int(value.value)
    return total


def sync_partitions(instance: dg.DagsterInstance, registry, log: Callable[[str], None]) -> tuple[list[str], list[str]]:
    """Add the registry's candidates, judges and judge panels as dynamic partitions (what the registry sensor
    does); returns the candidates and judges (the panels are `registry.panels()`)."""
    for problem in registry.problems():
        log(f"registry entry skipped: {problem}")
    models = [e.slug for e in registry.candidates()]
    judges = [e.slug for e in registry.judges()]
    panels = [e.slug for e in registry.panels()]
    for definition, slugs in ((models_partitions, models), (judges_partitions, judges), (panels_partitions, panels)):
        known = set(instance.get_dynamic_partitions(definition.name))
        instance.add_dynamic_partitions(definition.name, [s for s in slugs if s not in known])
    return models, judges


def stale_status_resolver(instance: dg.DagsterInstance, graph) -> CachingStaleStatusResolver:
    """A fresh resolver (it caches what it read) of the statuses the UI shows: missing, stale, fresh."""
    view = AssetGraphView(temporal_context=TemporalContext(effective_dt=get_current_datetime(), last_event_id=None),
                          instance=instance, asset_graph=graph)
    return CachingStaleStatusResolver(instance=instance, asset_graph=graph, loading_context=view)


def observe_sources(instance: dg.DagsterInstance, resources: dict, log: Callable[[str], None]) -> int:
    """Record the current data version of every observable source (assets/sources.py) whose version
    changed, as runless observations (what "Observe sources" records in the UI, without a run; an unchanged
    version adds no event). Returns the number of observations recorded."""
    from assets.sources import VERSIONS
    from definitions import defs

    resolver = stale_status_resolver(instance, defs.resolve_asset_graph())
    recorded = 0
    for name, version_of in VERSIONS.items():
        versions = version_of(resources)
        for partition, version in (versions.items() if isinstance(versions, dict) else [(None, versions)]):
            key = dg.AssetKey(name)
            if resolver.get_current_data_version(key, partition).value != version:
                instance.report_runless_asset_event(dg.AssetObservation(
                    asset_key=key, partition=partition, tags={DATA_VERSION_TAG: version}))
                recorded += 1
    if recorded:
        log(f"inputs: {recorded} new data versions of registry entries or files")
    return recorded


def materialize_everything(instance: dg.DagsterInstance, resources: dict,
                           log: Callable[[str], None] = lambda _msg: None, log_level: str = "INFO",
                           force: bool = False, asset_config: dict[str, dict] | None = None,
                           workers: int | None = None, observed_inputs: dict | None = None) -> dict:
    """Run every asset partition that is missing or stale (every one with ``force``) for every registered
    partition; return counts of runs, calls, up-to-date asset partitions and failed checks, and the registry
    entries that were refused.

    `log_level` is the console level of the runs: INFO shows our progress lines, not Dagster's
    per-event DEBUG lines (the UI keeps every event either way). `asset_config` is run config by asset name
    (e.g. another dataset path for `creation_items`), applied to every run that materializes that asset.
    `workers` is how many step processes a run may use at once (default: `default_workers()`).
    `observed_inputs` are the resources whose inputs (registry, dataset files, drop folders) are observed,
    when they are not `resources`' own: a copy of a home (scripts/plan.py) observes the original's, so a drop
    folder copied elsewhere does not look changed.
    """
    from definitions import defs

    run_config = {"loggers": {"console": {"config": {"log_level": log_level}}},
                  "execution": {"config": {"step_processes": workers or default_workers()}},
                  "resources": resources_config(resources)}
    job = asset_job()
    for run_id in fail_orphaned_runs(instance):  # a run killed earlier must not hold anything up
        log(f"run {run_id} was left in progress by a process that is gone: marked failed")
    models, judges = sync_partitions(instance, resources["registry"], log)
    panels = [e.slug for e in resources["registry"].panels()]
    # Repeated at the end of the main job's output, where a user reads it, not only among the first lines.
    registry_problems = [str(problem) for problem in resources["registry"].problems()]
    partition_keys = {
        None: [None],
        models_partitions: models,
        model_judge_partitions: [dg.MultiPartitionKey({"model": m, "judge": j}) for m in models for j in judges],
        model_panel_partitions: [dg.MultiPartitionKey({"model": m, "judge": p}) for m in models for p in panels],
    }
    graph = defs.resolve_asset_graph()
    summary = {"runs": 0, "failed_runs": 0, "api_calls": 0, "cache_hits": 0, "failed_checks": 0, "check_failures": [],
               "checks": [], "registry_problems": registry_problems, "up_to_date": 0, "materialized": [],
               "run_ids": []}
    observe_sources(instance, observed_inputs or resources, log)
    ran: set[dg.AssetKey] = set()

    def run(keys: list[str], partitions_def, partition_key) -> None:
        label = f" [{partition_key}]" if partition_key is not None else ""
        log(f"materializing {', '.join(keys)}{label}")
        ops = {key: {"config": (asset_config or {})[key]} for key in keys if key in (asset_config or {})}
        tags = {} if partition_key is None else partitions_def.get_tags_for_partition_key(str(partition_key))
        with dg.execute_job(job, instance, run_config={**run_config, **({"ops": ops} if ops else {})}, tags=tags,
                            asset_selection=[dg.AssetKey(key) for key in keys]) as result:
            summary["runs"] += 1
            summary["run_ids"].append(result.run_id)
            summary["failed_runs"] += 0 if result.success else 1
            summary["materialized"] += [(key, partition_key) for key in keys]
            summary["api_calls"] += _stat(result, "api_calls")
            summary["cache_hits"] += _stat(result, "cache_hits")
            for evaluation in result.get_asset_check_evaluations():
                summary["checks"].append({"asset": evaluation.asset_key.to_user_string(), "check": evaluation.check_name,
                                          "partition": partition_key, "passed": evaluation.passed,
                                          "severity": evaluation.severity.value})
                if not evaluation.passed:
                    summary["failed_checks"] += 1
                    summary["check_failures"].append(f"{evaluation.severity.value} "
                                                     f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}{label}")
            if not result.success:
                log(f"  run failed: {', '.join(keys)}{label}")

    def needs_run(key: dg.AssetKey, partition_key, resolver: CachingStaleStatusResolver) -> bool:
        if force or resolver.get_status(key, partition_key) != StaleStatus.FRESH:
            return True
        # An unpartitioned asset also runs after any of its parents ran in this job: its data version in
        # Dagster does not always change with a partitioned parent's (and past 100 upstream partitions Dagster
        # stops comparing them), so a reader of all models' judgments could look fresh when it is not.
        return graph.get(key).partitions_def is None and any(parent in ran for parent in graph.get(key).parent_keys)

    for level in graph.toposorted_asset_keys_by_level:
        # One resolver per level: it caches, and the previous level's runs changed what is stale.
        resolver = stale_status_resolver(instance, graph)
        by_partitions: dict = {}
        for key in sorted(level, key=lambda k: k.to_user_string()):
            if graph.get(key).is_materializable:
                by_partitions.setdefault(graph.get(key).partitions_def, []).append(key)
        for partitions_def, keys in by_partitions.items():
            if partitions_def not in partition_keys:
                raise ValueError(f"{[k.to_user_string() for k in keys]}: unsupported partitions {partitions_def}; "
                                 "use models, model × judge or model × panel")
            for partition_key in partition_keys[partitions_def]:
                stale = [key for key in keys if needs_run(key, partition_key, resolver)]
                summary["up_to_date"] += len(keys) - len(stale)
                if stale:
                    ran.update(stale)
                    run([key.to_user_string() for key in stale], partitions_def, partition_key)
    log(f"{summary['runs']} runs; {summary['up_to_date']} asset partitions were up to date and not run")
    return summary
