"""Materialize the whole asset graph in dependency order, one Dagster run per level and partition.

Used by the main job (scripts/materialize_all.py), the end-to-end tests and the benchmarks. The
daemon does the same thing incrementally through the sensors; this is the explicit, all-at-once path.
The order comes from the asset graph itself, so a new benchmark's assets need no change here.
"""

from __future__ import annotations

from collections.abc import Callable

import dagster as dg

from assets.partitions import judges_partitions, model_judge_partitions, models_partitions
from sensors.runs import fail_orphaned_runs


def _stat(result: dg.ExecuteInProcessResult, key: str) -> int:
    total = 0
    for event in result.get_asset_materialization_events():
        value = event.materialization.metadata.get(key)
        if value is not None and value.value == value.value:  # skip NaN
            total += int(value.value)
    return total


def sync_partitions(instance: dg.DagsterInstance, registry, log: Callable[[str], None]) -> tuple[list[str], list[str]]:
    """Add the registry's candidates and judges as dynamic partitions (what the registry sensor does)."""
    for problem in registry.problems():
        log(f"registry entry skipped: {problem}")
    models = [e.slug for e in registry.candidates()]
    judges = [e.slug for e in registry.judges()]
    for definition, slugs in ((models_partitions, models), (judges_partitions, judges)):
        known = set(instance.get_dynamic_partitions(definition.name))
        instance.add_dynamic_partitions(definition.name, [s for s in slugs if s not in known])
    return models, judges


def materialize_everything(instance: dg.DagsterInstance, resources: dict,
                           log: Callable[[str], None] = lambda _msg: None, log_level: str = "INFO") -> dict:
    """Run every asset for every registered partition; return counts of runs, calls and failed checks,
    and the registry entries that were refused.

    `log_level` is the console level of the runs: INFO shows our progress lines, not Dagster's
    per-event DEBUG lines (the UI keeps every event either way).
    """
    from definitions import defs

    run_config = {"loggers": {"console": {"config": {"log_level": log_level}}}}
    for run_id in fail_orphaned_runs(instance):  # a run killed earlier must not hold anything up
        log(f"run {run_id} was left in progress by a process that is gone: marked failed")
    models, judges = sync_partitions(instance, resources["registry"], log)
    # Repeated at the end of the main job's output, where a user reads it, not only among the first lines.
    registry_problems = [str(problem) for problem in resources["registry"].problems()]
    partition_keys = {
        None: [None],
        models_partitions: models,
        model_judge_partitions: [dg.MultiPartitionKey({"model": m, "judge": j}) for m in models for j in judges],
    }
    graph = defs.resolve_asset_graph()
    all_defs = list(defs.assets or []) + list(defs.asset_checks or [])
    summary = {"runs": 0, "failed_runs": 0, "api_calls": 0, "cache_hits": 0, "failed_checks": 0, "check_failures": [],
               "checks": [], "registry_problems": registry_problems}

    def run(keys: list[str], partition_key) -> None:
        label = f" [{partition_key}]" if partition_key is not None else ""
        log(f"materializing {', '.join(keys)}{label}")
        result = dg.materialize(all_defs, selection=dg.AssetSelection.assets(*keys), instance=instance,
                                resources=resources, partition_key=partition_key, raise_on_error=False,
                                run_config=run_config)
        summary["runs"] += 1
        summary["failed_runs"] += 0 if result.success else 1
        summary["api_calls"] += _stat(result, "api_calls")
        summary["cache_hits"] += _stat(result, "cache_hits")
        for evaluation in result.get_asset_check_evaluations():
            summary["checks"].append({"asset": evaluation.asset_key.to_user_string(), "check": evaluation.check_name,
                                      "partition": partition_key, "passed": evaluation.passed,
                                      "severity": evaluation.severity.value})
            if not evaluation.passed:
                summary["failed_checks"] += 1
                summary["check_failures"].append(f"{evaluation.severity.value} {evaluation.asset_key.to_user_string()}:"
                                                 f"{evaluation.check_name}{label}")
        if not result.success:
            log(f"  run failed: {', '.join(keys)}{label}")

    for level in graph.toposorted_asset_keys_by_level:
        by_partitions: dict = {}
        for key in sorted(level, key=lambda k: k.to_user_string()):
            by_partitions.setdefault(graph.get(key).partitions_def, []).append(key.to_user_string())
        for partitions_def, keys in by_partitions.items():
            if partitions_def not in partition_keys:
                raise ValueError(f"{keys}: unsupported partitions {partitions_def}; use models or model × judge")
            for partition_key in partition_keys[partitions_def]:
                run(keys, partition_key)
    return summary
