"""Integrity canaries (benchwright/canaries.py, docs/CANARIES.md): each judge judges the registry's `role: canary`
answers on the first items of every benchmark it serves, and the check `canaries_lose` fails when one wins.

One asset, partitioned by judge, not a model partition of every judgment asset: a partition run costs about a
second of Dagster's set-up, and the canaries' answers are fixed (no generation). Each declared benchmark with
`canaries` ("module:attribute" of its wiring's `CanaryJudging`) builds the requests with its own prompt and reads
the outputs with its own parser; the calls go to the cost ledger under this asset's stage, `canary_judgments`.
"""

import dagster as dg
import pandas as pd

from assets.chosen import quiet
from assets.common import EAGER, add_labels, failed_calls_spec, llm_result, store_flagged, table_metadata
from assets.partitions import judges_partitions
from assets.sources import judge_entries, model_labels
from benchwright import answer_injection, benchmarks, canaries, steps
from benchwright.llm import CallStats
from benchwright.report import markdown_table
from resources.llm import LLMClient
from resources.registry import Registry
from resources.warehouse import Warehouse

# Each declared benchmark's ways of judging the canaries (one per judged figure), in declaration order.
JUDGINGS: list[canaries.CanaryJudging] = [judging for b in benchmarks.declared() if b.canaries
                                          for judging in canaries.judgings(benchmarks.load_attribute(b.canaries))]


def _deps() -> list[dg.AssetDep]:
    """Every judging's inputs, each asset once (two judgings of one benchmark read the same items)."""
    found: dict[dg.AssetKey, dg.AssetDep] = {}
    # model_labels, not registry_labels: the rows name this judge (its entry) and models, so another judge's
    # entry is no input of them.
    for dep in (judge_entries, model_labels, *(dep for judging in JUDGINGS for dep in judging.deps)):
        dep = dep if isinstance(dep, dg.AssetDep) else dg.AssetDep(dep)
        found.setdefault(dep.asset_key, dep)
    return list(found.values())


CHECK = "canaries_lose"

with quiet():
    CANARIES_LOSE = dg.AssetCheckSpec(
        CHECK, asset="canary_judgments", partitions_def=judges_partitions, blocking=False,
        description="Every canary (a fixed answer: constant, judge formats and instructions, style only, blind) "
                    "gets at most its threshold under this judge in every benchmark: the lower of the weakest "
                    "candidate's figure on the same items and the benchmark's null figure (docs/CANARIES.md). ERROR "
                    "when one beats it: the judge can be won without answering.")


@dg.asset(
    check_specs=[failed_calls_spec("canary_judgments", judges_partitions), CANARIES_LOSE],
    deps=_deps(),
    group_name="judgments",
    partitions_def=judges_partitions,
    code_version=steps.code_version(canaries, answer_injection,
                                    *dict.fromkeys(module for judging in JUDGINGS for module in judging.modules),
                                    files=list(dict.fromkeys(path for judging in JUDGINGS for path in judging.files))),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="The integrity canaries' fixed answers (registry `role: canary`) judged by one judge (partition) on "
                "the first items of each benchmark, with the benchmark's own prompts and parsers; per benchmark × "
                "canary its figure against the weakest candidate's on the same items (canary_results). No "
                "generation call; the judge's calls are in the cost ledger under the stage canary_judgments.",
)
def canary_judgments(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient,
                     registry: Registry) -> dg.MaterializeResult:
    judge = registry.judge(context.partition_key)
    entries = registry.canaries()
    found_units, found_results, calls = [], [], []
    for judging in JUDGINGS:
        chosen = [e for e in entries if e.canary_kind in canaries.kinds_for(judging.multimodal)]
        if not chosen:
            continue
        units, comparison, stats = judging.judge(context, warehouse, llm, registry, judge, chosen)
        found_units.append(units)
        found_results.append(canaries.results(units, comparison, judging))
        calls.append(stats)
    units = canaries.units_table(found_units)
    table = pd.concat(found_results, ignore_index=True) if found_results else \
        pd.DataFrame(columns=canaries.RESULT_COLUMNS)
    store_flagged(warehouse, "canary_judgments", units, registry, match={"judge": judge.slug},
                  sides={"model": "model", "judge": "judge"})
    table = add_labels(table, registry, {"model": "model_display", "judge": "judge_display"})
    warehouse.replace_rows("canary_results", table, match={"judge": judge.slug})
    beaten = canaries.beaten(table)
    for line in beaten:
        context.log.error(f"canary beats judge {judge.slug}: {line}")
    result = llm_result(context, table_metadata(
        table, ["benchmark", "model", "metric", "figure", "threshold", "weakest_model", "beats_threshold"],
        canaries=len(entries), units=len(units), beaten=len(beaten)), CallStats.merge(calls))
    check = dg.AssetCheckResult(
        check_name=CHECK, passed=not beaten, severity=dg.AssetCheckSeverity.ERROR,
        description=("; ".join(beaten) if beaten else
                     f"all {len(table)} canary figures at or below their thresholds"),
        metadata={"beaten": len(beaten), "figures": len(table),
                  "results": dg.MetadataValue.md(markdown_table(
                      table[["benchmark", "model", "metric", "figure", "threshold", "weakest_model", "beats_threshold"]]))})
    return dg.MaterializeResult(metadata=result.metadata, data_version=result.data_version,
                                check_results=[*result.check_results, check])
