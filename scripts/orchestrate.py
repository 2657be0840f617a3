"""Materialize the asset graph in dependency order, one Dagster run per step and partition.

Used by the main job (scripts/materialize_all.py), the end-to-end tests and the benchmarks. The
daemon does the same thing incrementally through the sensors; this is the explicit, all-at-once path.
"""

from __future__ import annotations

from collections.abc import Callable

import dagster as dg

from assets.partitions import judges_partitions, models_partitions


def _stat(result: dg.ExecuteInProcessResult, key: str) -> int:
    total = 0
    for event in result.get_asset_materialization_events():
        value = event.materialization.metadata.get(key)
        if value is not None and value.value == value.value:  # skip NaN
            total += int(value.value)
    return total


def materialize_everything(instance: dg.DagsterInstance, resources: dict,
                           log: Callable[[str], None] = lambda _msg: None, log_level: str = "INFO") -> dict:
    """Run every asset for every registered partition; return counts of runs, calls and failed checks.

    `log_level` is the console level of the runs: INFO shows our progress lines, not Dagster's
    per-event DEBUG lines (the UI keeps every event either way).
    """
    run_config = {"loggers": {"console": {"config": {"log_level": log_level}}}}
    from definitions import defs

    registry = resources["registry"]
    for problem in registry.problems():
        log(f"registry entry skipped: {problem}")
    models = [e.slug for e in registry.candidates()]
    judges = [e.slug for e in registry.judges()]
    known_models = set(instance.get_dynamic_partitions(models_partitions.name))
    known_judges = set(instance.get_dynamic_partitions(judges_partitions.name))
    instance.add_dynamic_partitions(models_partitions.name, [m for m in models if m not in known_models])
    instance.add_dynamic_partitions(judges_partitions.name, [j for j in judges if j not in known_judges])

    graph = defs.resolve_asset_graph()
    all_defs = list(defs.assets or []) + list(defs.asset_checks or [])
    summary = {"runs": 0, "failed_runs": 0, "api_calls": 0, "cache_hits": 0, "failed_checks": 0, "check_failures": []}

    def run(keys: list[str], partition_key=None, label: str = "") -> None:
        selection = dg.AssetSelection.assets(*keys)
        log(f"materializing {', '.join(keys)}{f' [{label}]' if label else ''}")
        result = dg.materialize(all_defs, selection=selection, instance=instance, resources=resources,
                                partition_key=partition_key, raise_on_error=False, run_config=run_config)
        summary["runs"] += 1
        summary["failed_runs"] += 0 if result.success else 1
        summary["api_calls"] += _stat(result, "api_calls")
        summary["cache_hits"] += _stat(result, "cache_hits")
        for evaluation in result.get_asset_check_evaluations():
            if not evaluation.passed:
                summary["failed_checks"] += 1
                severity = evaluation.severity.value
                summary["check_failures"].append(f"{severity} {evaluation.asset_key.to_user_string()}:"
                                                 f"{evaluation.check_name} [{label or 'all'}]")
        if not result.success:
            log(f"  run failed: {label or keys}")

    assert graph is not None
    run(["creation_items"])
    run(["creation_references", "creation_image_descriptions"])
    for model in models:
        run(["creation_generations"], partition_key=model, label=model)
    for model in models:
        for judge in judges:
            key = dg.MultiPartitionKey({"model": model, "judge": judge})
            run(["creation_pairwise_judgments", "creation_vfs_judgments"], partition_key=key, label=f"{model} × {judge}")
    run(["creation_leaderboard", "judge_quality"])
    run(["analyst_snapshot"])
    return summary
