"""Generation assets: baseline answers, image descriptions, and candidate answers (partition: model)."""


import dagster as dg
import pandas as pd

from assets.common import answers_by_item, image_urls, llm_metadata, load_items, table_metadata
from assets.datasets import creation_items
from assets.partitions import models_partitions
from benchwright import creation, creation_steps
from resources.llm import LLMClient
from resources.registry import Registry
from resources.warehouse import Warehouse


class DescriptionConfig(dg.Config):
    mode: str = "generic"
    """'generic', or 'query_specific' (a strong LLM first says what to look at for each question)."""


@dg.asset(
    group_name="generations",
    deps=[creation_items],
    code_version=creation.CANDIDATE_PROMPT_VERSION,
    automation_condition=dg.AutomationCondition.eager(),
    kinds={"duckdb"},
    description="The baseline answer every candidate is compared with: the dataset's own reference answer "
                "where it has one, else the registry's `role: baseline` model's answer.",
)
def creation_references(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient, registry: Registry) -> dg.MaterializeResult:
    items = load_items(warehouse)
    baseline = registry.with_role("baseline")
    needs_baseline = any(not item.get("reference_answer") for item in items)
    if needs_baseline and baseline is None:
        raise dg.Failure("Some items have no reference answer and registry/models.yaml has no `role: baseline` model")
    plan = creation_steps.reference_plan(items, baseline, image_urls(warehouse, items)) if needs_baseline else []
    results, stats = llm.run([p.request for p in plan], limits=creation_steps.limits_for([baseline] if baseline else []),
                             progress=context.log.info)
    rows = [{"item_id": i["item_id"], "baseline": "dataset", "answer": i["reference_answer"], "error": None,
             "request_key": None, "simulated": False} for i in items if i.get("reference_answer")]
    rows += [{"item_id": p.item_id, "baseline": baseline.slug, "answer": r.text, "error": r.error,
              "request_key": r.key, "simulated": baseline.simulated} for p, r in zip(plan, results)]
    df = pd.DataFrame(rows)
    warehouse.replace_rows("creation_references", df, match={})
    return dg.MaterializeResult(metadata=table_metadata(df, ["item_id", "baseline", "answer", "error"], **llm_metadata(stats)))


@dg.asset(
    group_name="generations",
    deps=[creation_items],
    code_version=creation.DESCRIBE_PROMPT_VERSION,
    automation_condition=dg.AutomationCondition.eager(),
    kinds={"duckdb"},
    description="Image descriptions by the registry's `role: describer` vision model, for text-only candidates "
                "(METHODS §1.2 text-only variant), generic or query-specific.",
)
def creation_image_descriptions(context: dg.AssetExecutionContext, config: DescriptionConfig, warehouse: Warehouse,
                                llm: LLMClient, registry: Registry) -> dg.MaterializeResult:
    if config.mode not in ("generic", "query_specific"):
        raise dg.Failure(f"description mode must be 'generic' or 'query_specific', not {config.mode!r}")
    describer = registry.with_role("describer")
    if describer is None:
        context.log.warning("No `role: describer` model in the registry: text-only candidates will be skipped")
        warehouse.replace_rows("creation_image_descriptions", pd.DataFrame(), match={})
        return dg.MaterializeResult(metadata={"rows": 0})
    items = load_items(warehouse)
    limits = creation_steps.limits_for([describer])
    focus, focus_stats = {}, None
    if config.mode == "query_specific":
        focus_plan = creation_steps.focus_plan(items, describer)
        focus_results, focus_stats = llm.run([p.request for p in focus_plan], limits=limits, progress=context.log.info)
        focus = {p.item_id: r.text for p, r in zip(focus_plan, focus_results) if r.text}
    plan = creation_steps.description_plan(items, describer, image_urls(warehouse, items), focus)
    results, stats = llm.run([p.request for p in plan], limits=limits, progress=context.log.info)
    df = pd.DataFrame([{"item_id": p.item_id, "describer": describer.slug, "mode": config.mode,
                        "focus": focus.get(p.item_id), "description": r.text, "error": r.error,
                        "simulated": describer.simulated} for p, r in zip(plan, results)])
    warehouse.replace_rows("creation_image_descriptions", df, match={})
    meta = llm_metadata(stats)
    if focus_stats:
        meta["api_calls"] += focus_stats.api_calls
        meta["cache_hits"] += focus_stats.cache_hits
    return dg.MaterializeResult(metadata=table_metadata(df, ["item_id", "mode", "description", "error"], **meta))


@dg.asset(
    group_name="generations",
    deps=[creation_items, creation_image_descriptions],
    partitions_def=models_partitions,
    code_version=creation.CANDIDATE_PROMPT_VERSION,
    kinds={"duckdb"},
    description="One candidate model's answers to every Creation item (partition: model). Vision models get "
                "the images; text-only models get the image descriptions. Calls go through the cached LLM "
                "client, so re-materializing repeats no finished call. Requested by the registry sensor.",
)
def creation_generations(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient, registry: Registry) -> dg.MaterializeResult:
    model = registry.model(context.partition_key)
    items = load_items(warehouse)
    if not items:
        raise dg.Failure("No Creation items in the warehouse: materialize `creation_items` first")
    descriptions = answers_by_item(warehouse.query("SELECT item_id, description FROM creation_image_descriptions"), "description")
    plan, skipped = creation_steps.generation_plan(items, model, image_urls(warehouse, items), descriptions)
    if skipped:
        context.log.warning(f"{len(skipped)} items skipped: no image description for text-only model {model.slug}")
    results, stats = llm.run([p.request for p in plan], limits=creation_steps.limits_for([model]), progress=context.log.info)
    df = creation_steps.generation_rows(model, plan, results)
    warehouse.replace_rows("generations", df, match={"benchmark": "creation", "model": model.slug})
    return dg.MaterializeResult(metadata=table_metadata(
        df, ["item_id", "variant", "response", "error"], **llm_metadata(stats),
        model=model.model, simulated=model.simulated, skipped=len(skipped)))
