"""Creation (benchwright/creation/README.md): items, baseline answers, image descriptions, generations, judgments, metrics.

Thin wiring: what to ask and what rows answers become live in benchwright.creation.prompts and
benchwright.creation.steps; these assets read the warehouse, call the LLM client and write back.
Groups follow the pipeline's stages (datasets, generations, judgments, metrics).
"""


import dagster as dg
import pandas as pd

from assets.sources import JUDGE_ENTRY, files_source, model_entries, registry_labels, registry_roles
from assets.common import (EAGER, explorer_metadata, LOAD_WHEN_MISSING, ImageWriter, ask_models, store_generations, store_flagged, add_labels, answers_by_item, image_refs, failed_calls_spec, llm_result, record_problems,
                           repo_path, shown_path, table_metadata)
from assets.partitions import by_judge, by_model, model_and_judge, model_judge_partitions, models_partitions
from benchwright import canaries, pairwise, steps
from benchwright.llm import CallStats
from benchwright.creation import metrics, prompts, vfs
from benchwright.creation.declaration import DATASET as CREATION_DATASET
from benchwright.creation import steps as creation_steps
from benchwright.creation import loader as creation_loader
from benchwright.paths import sql_file
from benchwright.creation.loader import images_field, normalize_item_images, stream_creation_items
from benchwright.loading import LoadProblem
from resources.llm import LLMClient
from resources.registry import Registry
from resources.warehouse import Warehouse


def load_items(warehouse: Warehouse) -> list[dict]:
    """Creation items as plain dicts, the shape benchwright.creation.prompts expects."""
    df = warehouse.query_file("creation/queries/items.sql")
    items = df.to_dict("records")
    for item in items:
        # DuckDB lists come back as numpy arrays; the library expects plain lists.
        item["requirements"] = list(item["requirements"])
        item["image_hashes"] = list(item["image_hashes"])
        for key, value in item.items():
            if isinstance(value, float) and pd.isna(value):
                item[key] = None
    return items


# --- datasets ----------------------------------------------------------------------------------------

class CreationDatasetConfig(dg.Config):
    path: str = f"{CREATION_DATASET}/items.jsonl"
    """JSONL (our layout) or TSV (the benchmark's published layout); relative to the repo root."""
    limit: int = 0
    """Only the first N usable items in file order (a limited run, benchwright/scope.py); 0: every item."""
    item_ids: list[str] = []
    """Only these items (a run on the anchor items, `dev.py run --limit anchors`); empty: every item."""


def limited_config(limit: int) -> dict[str, dict]:
    """Run config by asset that keeps only the first `limit` items of this benchmark (`dev.py run --limit`)."""
    return {"creation_items": {"limit": limit}}


def anchored_config(items: dict[str, list[str]]) -> dict[str, dict]:
    """Run config by asset that keeps only this benchmark's anchor items (`dev.py run --limit anchors`), when it has
    an anchor set (`items`: benchmark -> its anchor items, benchwright.anchors.anchored_items)."""
    return {"creation_items": {"item_ids": items["creation"]}} if items.get("creation") else {}


@dg.asset(
    deps=[files_source("creation_dataset_files")],
    group_name="datasets",
    code_version=steps.code_version(creation_loader),
    automation_condition=LOAD_WHEN_MISSING,
    kinds={"duckdb"},
    description="Creation items (benchwright/creation/README.md#items) from the configured file. Images are verified with Pillow, "
                "normalized and content-hashed into `images`; an item with a corrupt image is recorded in "
                "`dataset_problems` and skipped, not the run. Personal data in item text is redacted.",
)
def creation_items(context: dg.AssetExecutionContext, config: CreationDatasetConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    path = repo_path(config.path)
    # One item's pictures in memory at a time: read, normalized, then written in bounded batches.
    load_problems, image_problems = [], []
    item_rows, redactions = [], 0
    wanted = set(config.item_ids)
    images = ImageWriter(warehouse)
    for entry in stream_creation_items(path):
        if isinstance(entry, LoadProblem):
            load_problems.append(entry)
            continue
        if config.limit and len(item_rows) >= config.limit:
            break
        if config.item_ids and str(entry.item_id) not in wanted:
            continue
        normalized, problem = normalize_item_images(entry)
        if problem:
            image_problems.append({"location": f"{path.name}: item {entry.item_id}", "reason": problem,
                                   "field": images_field(path)})
            continue
        row, found = creation_loader.item_row(entry, normalized, path.name)
        item_rows.append(row)
        redactions += found
        for img in normalized:
            images.add(img)
    images.flush()
    problems = load_problems + image_problems
    record_problems(context, warehouse, problems, "creation", path.name, replace_whole_benchmark=True)
    items_df = pd.DataFrame(item_rows)
    if items_df.empty:
        raise dg.Failure(f"No usable Creation items in {path} ({len(problems)} problems; first: {problems[:1]})")
    warehouse.replace_rows("creation_items", items_df, match={})
    context.log.info(f"{len(items_df)} items, {len(images.seen)} images ({images.new} new), {len(problems)} problems")
    return dg.MaterializeResult(metadata=table_metadata(
        items_df, ["item_id", "category", "task", "instruction"],
        images=len(images.seen), new_images=images.new, problems=len(problems), refused_records=len(problems), pii_redactions=redactions,
        categories=dg.MetadataValue.json(items_df["category"].value_counts().to_dict()),
        source=shown_path(path),
    ))


# --- generations -------------------------------------------------------------------------------------

class DescriptionConfig(dg.Config):
    mode: str = "generic"
    """'generic', or 'query_specific' (a strong LLM first says what to look at for each question)."""


@dg.asset(
    check_specs=[failed_calls_spec("creation_references", None)],
    group_name="generations",
    deps=[registry_roles, creation_items],
    code_version=steps.prompt_code_version(prompts.CANDIDATE_PROMPT_VERSION, prompts),
    automation_condition=EAGER,
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
    plan = creation_steps.reference_plan(items, baseline, image_refs(warehouse, items)) if needs_baseline else []
    results, stats = ask_models(context, llm, plan, [baseline], "creation", baseline.slug if baseline else "")
    df = creation_steps.reference_rows(items, baseline, plan, results)
    store_flagged(warehouse, "creation_references", df, registry, match={})
    return llm_result(context, table_metadata(df, ["item_id", "baseline", "answer", "error"]), stats)


@dg.asset(
    check_specs=[failed_calls_spec("creation_image_descriptions", None)],
    group_name="generations",
    deps=[registry_roles, creation_items],
    code_version=steps.prompt_code_version(prompts.DESCRIBE_PROMPT_VERSION, prompts),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Image descriptions by the registry's `role: describer` vision model, for text-only candidates "
                "(the text-only variant of benchwright/creation/README.md#the-query), generic or query-specific.",
)
def creation_image_descriptions(context: dg.AssetExecutionContext, config: DescriptionConfig, warehouse: Warehouse,
                                llm: LLMClient, registry: Registry) -> dg.MaterializeResult:
    if config.mode not in ("generic", "query_specific"):
        raise dg.Failure(f"description mode must be 'generic' or 'query_specific', not {config.mode!r}")
    describer = registry.with_role("describer")
    if describer is None:
        context.log.warning("No `role: describer` model in the registry: text-only candidates will be skipped")
        warehouse.replace_rows("creation_image_descriptions", pd.DataFrame(), match={})
        return llm_result(context, {"rows": 0})
    items = load_items(warehouse)
    focus, calls = {}, []
    if config.mode == "query_specific":
        focus_plan = creation_steps.focus_plan(items, describer)
        focus_results, focus_stats = ask_models(context, llm, focus_plan, [describer], "creation", describer.slug)
        focus = {p.item_id: r.text for p, r in zip(focus_plan, focus_results) if r.text}
        calls.append(focus_stats)
    plan = creation_steps.description_plan(items, describer, image_refs(warehouse, items), focus)
    results, stats = ask_models(context, llm, plan, [describer], "creation", describer.slug)
    df = creation_steps.description_rows(describer, config.mode, focus, plan, results)
    store_flagged(warehouse, "creation_image_descriptions", df, registry, match={})
    # The focus calls are the step's too: their cost, and their failures (failed_calls check, re-runs).
    return llm_result(context, table_metadata(df, ["item_id", "mode", "description", "error"]),
                      CallStats.merge([*calls, stats]))


@dg.asset(
    check_specs=[failed_calls_spec("creation_generations", models_partitions)],
    group_name="generations",
    deps=[model_entries, creation_items, creation_image_descriptions],
    partitions_def=models_partitions,
    code_version=steps.prompt_code_version(prompts.CANDIDATE_PROMPT_VERSION, prompts),
    kinds={"duckdb"},
    description="One candidate model's answers to every Creation item (partition: model). Vision models get "
                "the images; text-only models get the image descriptions. Calls go through the cached LLM "
                "client, so re-materializing repeats no finished call. Requested by the registry sensor.",
)
def creation_generations(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient, registry: Registry) -> dg.MaterializeResult:
    model = registry.model(context.partition_key)
    with warehouse.together():  # the inputs' reads on one attach
        items = load_items(warehouse)
        if not items:
            raise dg.Failure("No Creation items in the warehouse: materialize `creation_items` first")
        descriptions = answers_by_item(warehouse.query("SELECT item_id, description FROM creation_image_descriptions"),
                                       "description")
        urls = image_refs(warehouse, items)
    plan, skipped = creation_steps.generation_plan(items, model, urls, descriptions)
    if skipped:
        context.log.warning(f"{len(skipped)} items skipped: no image description for text-only model {model.slug}")
    results, stats = ask_models(context, llm, plan, [model], "creation", model.slug)
    df = creation_steps.generation_rows(model, plan, results)
    store_generations(warehouse, df, creation_steps.BENCHMARK, model.slug, registry)
    return llm_result(context, table_metadata(
        df, ["item_id", "variant", "response", "error"],
        model=model.model, simulated=model.simulated, skipped=len(skipped),
        pii_redactions=int(df["pii_redactions"].sum())), stats)


# --- judgments ---------------------------------------------------------------------------------------

_DEPS = [dg.AssetDep(creation_generations, partition_mapping=by_model), creation_references]


def _inputs(warehouse: Warehouse, model_slug: str):
    with warehouse.together():  # four reads on one attach
        items = load_items(warehouse)
        baseline = answers_by_item(warehouse.query("SELECT item_id, answer FROM creation_references"), "answer")
        candidate = answers_by_item(warehouse.query(
            "SELECT item_id, response FROM generations WHERE benchmark = 'creation' AND model = ? AND sample_index = 0",
            [model_slug]), "response")
        return items, baseline, candidate, image_refs(warehouse, items)


@dg.asset(
    check_specs=[failed_calls_spec("creation_pairwise_judgments", model_judge_partitions)],
    deps=[JUDGE_ENTRY, *_DEPS],
    group_name="judgments",
    partitions_def=model_judge_partitions,
    code_version=steps.prompt_code_version(prompts.PAIRWISE_PROMPT_VERSION, prompts),
    automation_condition=EAGER,
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
    results, stats = ask_models(context, llm, plan, [judge], "creation", model.slug, judge.slug)
    df = creation_steps.pairwise_rows(model, judge, plan, results)
    store_flagged(warehouse, "creation_pairwise_judgments", df, registry, match={"model": model.slug, "judge": judge.slug})
    return llm_result(context, table_metadata(
        df, ["item_id", "judge_order", "verdict", "outcome", "error"],
        parse_failures=int((~df["parse_ok"] & df["error"].isna()).sum()), skipped_items=len(skipped),
        aggregation=("dual evaluation: both orders count as separate judgments; n = parsed judgments"),
    ), stats)


@dg.asset(
    check_specs=[failed_calls_spec("creation_vfs_judgments", model_judge_partitions)],
    deps=[JUDGE_ENTRY, *_DEPS],
    group_name="judgments",
    partitions_def=model_judge_partitions,
    code_version=steps.prompt_code_version(prompts.VFS_PROMPT_VERSION, prompts),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Unitary Visual Factuality judgments (benchwright/creation/README.md#visual-factuality-score): A = baseline answer, B = candidate, "
                "scored 0-10 against the item's visual-factuality criteria (and ground truth when present).",
)
def creation_vfs_judgments(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient,
                           registry: Registry) -> dg.MaterializeResult:
    model_slug, judge_slug = model_and_judge(context)
    model, judge = registry.model(model_slug), registry.judge(judge_slug)
    items, baseline, candidate, urls = _inputs(warehouse, model.slug)
    plan, skipped = creation_steps.vfs_plan(items, baseline, candidate, judge, urls)
    results, stats = ask_models(context, llm, plan, [judge], "creation", model.slug, judge.slug)
    df = creation_steps.vfs_rows(model, judge, plan, results)
    store_flagged(warehouse, "creation_vfs_judgments", df, registry, match={"model": model.slug, "judge": judge.slug})
    return llm_result(context, table_metadata(
        df, ["item_id", "score_a", "score_b", "parse_ok", "error"],
        parse_failures=int((~df["parse_ok"] & df["error"].isna()).sum()), skipped_items=len(skipped),
    ), stats)


# Imports (assets/interop.py) write pairwise verdicts into the same table, so the metrics follow them
# too. By key: interop imports this module.
IMPORTED_JUDGMENTS = [dg.AssetKey(name) for name in ("interop_arena_hard", "interop_alpaca_eval", "interop_auto_j",
                                                     "interop_llmbar")]
# Judge panels (assets/panels.py) write their verdicts and scores into the same tables. By key: panels
# imports this module.
PANEL_JUDGMENTS = [dg.AssetKey("creation_panel_pairwise_judgments"), dg.AssetKey("creation_panel_vfs_judgments")]

# --- metrics -----------------------------------------------------------------------------------------

@dg.asset(
    group_name="metrics",
    deps=[registry_labels, creation_pairwise_judgments, creation_vfs_judgments, *IMPORTED_JUDGMENTS, *PANEL_JUDGMENTS],
    code_version=steps.code_version(metrics, pairwise, files=[sql_file(metrics.LEADERBOARD_SQL)]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    metadata=explorer_metadata("creation"),
    description="Creation leaderboard per judge and model: VFS, Reward, Win Rate, MB/Better/Tie/Worse/MW/Fail, "
                "overall, per category and per task (benchwright/creation/README.md#scoring). Both orders of every pair count as "
                "judgments; n excludes parse failures; failed calls are not counted at all.",
)
def creation_leaderboard(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    # DuckDB aggregates the judgments where they live (1,000,000 rows in well under 2 s); the result
    # equals metrics.leaderboard, the reference (tests/unit/creation/test_metrics_sql.py).
    board = add_labels(warehouse.query_file(metrics.LEADERBOARD_SQL), registry, {"model": "model_display", "judge": "judge_display"})
    warehouse.replace_rows("creation_leaderboard", board, match={})
    overall = board[board["scope"] == "overall"].sort_values(["judge", "reward"], ascending=[True, False])
    return dg.MaterializeResult(metadata=table_metadata(
        board, ["judge", "model_display", "vfs", "reward", "win_rate", "mb", "better", "tie", "worse", "mw", "fail"],
        preview=overall,
        aggregation="Reward = (100·MB + 50·B − 50·W − 100·MW)/n and Win Rate = (MB+B)/n over both orders; "
                    "n = parsed judgments; VFS = mean candidate score",
    ))


@dg.asset(
    group_name="metrics",
    deps=[registry_labels, creation_pairwise_judgments, *IMPORTED_JUDGMENTS, PANEL_JUDGMENTS[0]],
    code_version=steps.code_version(metrics, pairwise, files=[sql_file(metrics.JUDGE_QUALITY_SQL)]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="How far each judge can be trusted: exact and relaxed position-swap consistency, parse rate, "
                "P(prefer first position), P(prefer longer answer).",
)
def judge_quality(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    # In DuckDB, like the leaderboard; equals metrics.judge_quality, the reference.
    table = add_labels(warehouse.query_file(metrics.JUDGE_QUALITY_SQL), registry, {"judge": "judge_display"})
    warehouse.replace_rows("judge_quality", table, match={})
    return dg.MaterializeResult(metadata=table_metadata(table, list(table.columns)))


# --- integrity canaries (benchwright/canaries.py): judged by assets/canaries.py, one judge at a time ------------
# Two judgings, as the leaderboard has two figures: the pairwise Reward / Win Rate and the Visual Factuality Score.

def _canary_inputs(warehouse: Warehouse):
    """The canaries' items (the first ones by item id), the baseline answers and the items' image references."""
    every_item = load_items(warehouse)
    chosen = set(canaries.subset(item["item_id"] for item in every_item))
    items = [item for item in every_item if item["item_id"] in chosen]
    baseline = answers_by_item(warehouse.query("SELECT item_id, answer FROM creation_references"), "answer")
    return chosen, items, baseline, image_refs(warehouse, items)


def _ask_for_canaries(context: dg.AssetExecutionContext, llm: LLMClient, judge, plans: dict[str, list]):
    """Every canary's plan asked in one round, the results back per canary slug."""
    flat = [p for plan in plans.values() for p in plan]
    results, stats = ask_models(context, llm, flat, [judge], creation_steps.BENCHMARK,
                                who=[(slug, judge.slug) for slug, plan in plans.items() for _ in plan])
    return canaries.per_canary(plans, results), stats


def _canary_comparison(warehouse: Warehouse, registry: Registry, sql: str, judge, chosen) -> pd.DataFrame:
    return warehouse.query_file(sql, [judge.slug, sorted(chosen), [e.slug for e in registry.candidates()]])


def _judge_canaries(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient, registry: Registry,
                    judge, entries, plan_of, rows_of, values_of, unit_of, comparison_sql: str):
    """Each canary's fixed answer on the first items through one of Creation's judge prompts and its parser:
    `plan_of` builds the requests (creation_steps), `rows_of` parses the answers into the judgment table's rows,
    `values_of(rows)` gives each unit's value (None when unparsed or failed) and `unit_of(rows)` its unit. Compared
    with the candidates' figure on the same items (`comparison_sql`)."""
    chosen, items, baseline, urls = _canary_inputs(warehouse)
    plans = {e.slug: plan_of(items, baseline, dict.fromkeys(chosen, canaries.answer(e.canary_kind)), judge, urls)[0]
             for e in entries}
    answered, stats = _ask_for_canaries(context, llm, judge, plans)
    frames = []
    for entry in entries:
        plan, mine = plans[entry.slug], answered[entry.slug]
        rows = rows_of(entry, judge, plan, mine)
        frames.append(canaries.units(rows, judge=judge.slug, benchmark=creation_steps.BENCHMARK, model=entry.slug,
                                     kind=entry.canary_kind, values=values_of(rows),
                                     request_keys=[r.key for r in mine], unit=unit_of(rows)))
    comparison = _canary_comparison(warehouse, registry, comparison_sql, judge, chosen)
    return canaries.units_table(frames), comparison, stats


def judge_canaries(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient, registry: Registry,
                   judge, entries) -> tuple[pd.DataFrame, pd.DataFrame, CallStats]:
    """The canaries against the baseline in both orders through the pairwise judge (`creation_steps.pairwise_plan`,
    `pairwise_rows`): a unit (`unit` = the judge order) is worth 1 for a win (MB or B), 0 otherwise."""
    return _judge_canaries(
        context, warehouse, llm, registry, judge, entries, creation_steps.pairwise_plan, creation_steps.pairwise_rows,
        values_of=lambda rows: [None if o in (None, "Fail") or e is not None else float(o in ("MB", "B"))
                                for o, e in zip(rows["outcome"], rows["error"])],
        unit_of=lambda rows: [str(order) for order in rows["judge_order"]], comparison_sql=CANARY_COMPARISON_SQL)


# The unit of a VFS judgment in canary_judgments (one per item): it tells them from the pairwise units ('1', '2').
VFS_UNIT = "vfs"


def judge_canaries_vfs(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient, registry: Registry,
                       judge, entries) -> tuple[pd.DataFrame, pd.DataFrame, CallStats]:
    """The canaries as Response B (the baseline's is A) on those of the first items that have visual factuality
    criteria, through the VFS judge (`creation_steps.vfs_plan`, `vfs_rows`): a unit's value is B's score (0-10).
    The criteria are aspects an answer must get right about the picture: an answer that says nothing about it
    earns none."""
    return _judge_canaries(
        context, warehouse, llm, registry, judge, entries, creation_steps.vfs_plan, creation_steps.vfs_rows,
        values_of=lambda rows: [None if pd.isna(score) or error is not None else float(score)
                                for score, error in zip(rows["score_b"], rows["error"])],
        unit_of=lambda rows: VFS_UNIT, comparison_sql=CANARY_VFS_COMPARISON_SQL)


CANARY_COMPARISON_SQL = "creation/queries/canary_comparison.sql"
CANARY_VFS_COMPARISON_SQL = "creation/queries/canary_vfs_comparison.sql"
CANARY_JUDGINGS = (
    canaries.CanaryJudging(
        benchmark=creation_steps.BENCHMARK, metric="win_rate", null_figure=0.5, multimodal=True, judge=judge_canaries,
        deps=(creation_items, creation_references,
              dg.AssetDep(creation_pairwise_judgments, partition_mapping=by_judge)),
        modules=(prompts, pairwise, creation_steps), files=(sql_file(CANARY_COMPARISON_SQL),)),
    # The null figure is half the aspects (the 0-10 scale's middle): a fixed answer above it would have got most
    # of what the picture shows right without saying anything about it.
    canaries.CanaryJudging(
        benchmark=creation_steps.BENCHMARK, metric="vfs", null_figure=5.0, multimodal=True, judge=judge_canaries_vfs,
        deps=(creation_items, creation_references, dg.AssetDep(creation_vfs_judgments, partition_mapping=by_judge)),
        modules=(prompts, vfs, creation_steps), files=(sql_file(CANARY_VFS_COMPARISON_SQL),)),
)
