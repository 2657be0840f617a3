"""Judgment assets (partition: model × judge): pairwise verdicts in both orders, and VFS scores.

A new model's partitions run once its generations exist; a new judge's partitions run for every
model at once. Both follow from `AutomationCondition.eager()`, not from the sensor (DESIGN §2).
"""


import dagster as dg

from assets.common import answers_by_item, image_urls, llm_metadata, load_items, table_metadata
from assets.generations import creation_generations, creation_references
from assets.partitions import by_model, model_and_judge, model_judge_partitions
from benchwright import creation, creation_steps
from resources.llm import LLMClient
from resources.registry import Registry
from resources.warehouse import Warehouse

_DEPS = [dg.AssetDep(creation_generations, partition_mapping=by_model), creation_references]


def _inputs(warehouse: Warehouse, model_slug: str):
    items = load_items(warehouse)
    baseline = answers_by_item(warehouse.query("SELECT item_id, answer FROM creation_references"), "answer")
    candidate = answers_by_item(warehouse.query(
        "SELECT item_id, response FROM generations WHERE benchmark = 'creation' AND model = ? AND sample_index = 0",
        [model_slug]), "response")
    return items, baseline, candidate, image_urls(warehouse, items)


@dg.asset(
    group_name="judgments",
    deps=_DEPS,
    partitions_def=model_judge_partitions,
    code_version=creation.PAIRWISE_PROMPT_VERSION,
    automation_condition=dg.AutomationCondition.eager(),
    kinds={"duckdb"},
    description="Pairwise judgments of one candidate against the baseline by one judge, in both orders "
                "(order 1: baseline is A; order 2: candidate is A). Raw text, parsed verdict and parse_ok "
                "are separate columns; a failed call has an error and no outcome.",
)
def creation_pairwise_judgments(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient,
                                registry: Registry) -> dg.MaterializeResult:
    model_slug, judge_slug = model_and_judge(context)
    model, judge = registry.model(model_slug), registry.judge(judge_slug)
    items, baseline, candidate, urls = _inputs(warehouse, model.slug)
    plan, skipped = creation_steps.pairwise_plan(items, baseline, candidate, judge, urls)
    if skipped:
        context.log.warning(f"{len(skipped)} items not judged: missing baseline or candidate answer ({skipped[:5]})")
    results, stats = llm.run([p.request for p in plan], limits=creation_steps.limits_for([judge]), progress=context.log.info)
    df = creation_steps.pairwise_rows(model, judge, plan, results)
    warehouse.replace_rows("creation_pairwise_judgments", df, match={"model": model.slug, "judge": judge.slug})
    return dg.MaterializeResult(metadata=table_metadata(
        df, ["item_id", "judge_order", "verdict", "outcome", "error"], **llm_metadata(stats),
        parse_failures=int((~df["parse_ok"] & df["error"].isna()).sum()), skipped_items=len(skipped),
        aggregation=("dual evaluation: both orders count as separate judgments; n = parsed judgments"),
    ))


@dg.asset(
    group_name="judgments",
    deps=_DEPS,
    partitions_def=model_judge_partitions,
    code_version=creation.VFS_PROMPT_VERSION,
    automation_condition=dg.AutomationCondition.eager(),
    kinds={"duckdb"},
    description="Unitary Visual Factuality judgments (METHODS §1.4): A = baseline answer, B = candidate, "
                "scored 0-10 against the item's visual-factuality criteria (and ground truth when present).",
)
def creation_vfs_judgments(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient,
                           registry: Registry) -> dg.MaterializeResult:
    model_slug, judge_slug = model_and_judge(context)
    model, judge = registry.model(model_slug), registry.judge(judge_slug)
    items, baseline, candidate, urls = _inputs(warehouse, model.slug)
    plan, skipped = creation_steps.vfs_plan(items, baseline, candidate, judge, urls)
    results, stats = llm.run([p.request for p in plan], limits=creation_steps.limits_for([judge]), progress=context.log.info)
    df = creation_steps.vfs_rows(model, judge, plan, results)
    warehouse.replace_rows("creation_vfs_judgments", df, match={"model": model.slug, "judge": judge.slug})
    return dg.MaterializeResult(metadata=table_metadata(
        df, ["item_id", "score_a", "score_b", "parse_ok", "error"], **llm_metadata(stats),
        parse_failures=int((~df["parse_ok"] & df["error"].isna()).sum()), skipped_items=len(skipped),
    ))
