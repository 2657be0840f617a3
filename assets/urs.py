"""URS (benchwright/urs/README.md): items, reference answers, generations, intent-aware judgments, metrics, alignment.

Thin wiring: prompts, parsing and metrics live in benchwright.urs.method, the request/row steps in
benchwright.urs.steps. These assets read the warehouse, call the LLM client and write back.
"""



import dagster as dg
import pandas as pd

from assets.sources import JUDGE_ENTRY, files_source, human_pairwise_files, model_entries, registry_labels, registry_roles
from assets.common import (EAGER, explorer_metadata, LOAD_WHEN_MISSING, ask_models, store_generations, store_flagged, add_labels, failed_calls_spec, llm_result, record_problems, repo_path, shown_path,
                           table_metadata)
from assets.human_pairwise import alignment_version, human_pairwise_drop_folder, known_models, load_human_pairwise_drops
from assets.partitions import by_judge, by_model, model_and_judge, model_judge_partitions, models_partitions
from benchwright import canaries, human_pairwise, ratings, steps
from benchwright.llm import CallStats
from benchwright.urs import loader as urs_loader
from benchwright.urs import metrics, prompts
from benchwright.urs.declaration import DATASET as URS_DATASET
from benchwright.urs import steps as urs_steps
from benchwright.paths import sql_file
from benchwright.urs.loader import load_pairwise_csv, load_satisfaction_csv, load_urs_csv
from benchwright.pii import redact, scan_texts
from benchwright.report import markdown_table
from resources.llm import LLMClient
from resources.registry import Registry
from resources.warehouse import Warehouse

LABELS = {"model": "model_display", "judge": "judge_display"}


def load_urs_items(warehouse: Warehouse) -> list[dict]:
    df = warehouse.query_file("urs/queries/items.sql")
    return [{k: (None if isinstance(v, float) and pd.isna(v) else v) for k, v in row.items()} for row in df.to_dict("records")]


# --- datasets ----------------------------------------------------------------------------------------

class UrsDatasetConfig(dg.Config):
    path: str = f"{URS_DATASET}/questions.csv"
    """URS CSV in the release layout (question, reference_ans, user_intent, language); relative to the repo root."""
    limit: int = 0
    """Only the first N usable questions in file order (a limited run, benchwright/scope.py); 0: every one."""
    item_ids: list[str] = []
    """Only these questions (a run on the anchor items, `dev.py run --limit anchors`); empty: every one."""


def limited_config(limit: int) -> dict[str, dict]:
    """Run config by asset that keeps only the first `limit` items of this benchmark (`dev.py run --limit`)."""
    return {"urs_items": {"limit": limit}}


def anchored_config(items: dict[str, list[str]]) -> dict[str, dict]:
    """Run config by asset that keeps only this benchmark's anchor items (`dev.py run --limit anchors`), when it has
    an anchor set (`items`: benchmark -> its anchor items, benchwright.anchors.anchored_items)."""
    return {"urs_items": {"item_ids": items["urs"]}} if items.get("urs") else {}


@dg.asset(
    deps=[files_source("urs_dataset_files")],
    group_name="datasets",
    code_version=steps.code_version(urs_loader),
    automation_condition=LOAD_WHEN_MISSING,
    kinds={"duckdb"},
    description="URS questions (benchwright/urs/README.md#data) with intent (the card's names) and language (en/zh) from the configured "
                "CSV. Personal data in questions and reference answers is redacted before writing; where it was "
                "found is in the metadata (masked). Bad rows go to `dataset_problems` with their row number.",
)
def urs_items(context: dg.AssetExecutionContext, config: UrsDatasetConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    path = repo_path(config.path)
    loaded = load_urs_csv(path)
    items = loaded.items[:config.limit] if config.limit else loaded.items
    if config.item_ids:
        wanted = set(config.item_ids)
        items = [item for item in items if str(item.item_id) in wanted]
    # What the file itself carries, masked: the demo's planted e-mail and phone number show up here.
    found = scan_texts([(f"{path.name}:row {item.source_row}/{column}", getattr(item, column))
                        for item in items for column in ("question", "reference_answer")
                        if getattr(item, column)])
    rows = []
    for item in items:
        row = item.to_row()
        row["question"], in_question = redact(row["question"])
        row["reference_answer"], in_reference = redact(row["reference_answer"])
        row["pii_redactions"] = len(in_question) + len(in_reference)
        row["dataset"] = path.name
        rows.append(row)
    record_problems(context, warehouse, loaded.problems, "urs", path.name)
    df = pd.DataFrame(rows)
    if df.empty:
        raise dg.Failure(f"No usable URS items in {path} ({len(loaded.problems)} problems; "
                         f"first: {loaded.problems[:1]})")
    warehouse.replace_rows("urs_items", df, match={})
    context.log.info(f"{len(df)} URS items, {len(loaded.problems)} problems, {found['total']} PII spans redacted")
    return dg.MaterializeResult(metadata=table_metadata(
        df, ["item_id", "intent", "language", "question"],
        problems=len(loaded.problems), refused_records=len(loaded.problems), pii_redactions=int(df["pii_redactions"].sum()),
        pii_found=dg.MetadataValue.json(found),
        intents=dg.MetadataValue.json(df["intent"].value_counts().to_dict()),
        languages=dg.MetadataValue.json(df["language"].value_counts().to_dict()),
        source=shown_path(path),
    ))


# --- reference answers and generations --------------------------------------------------------------

class UrsReferenceConfig(dg.Config):
    reference_model: str = ""
    """Empty: the dataset's reference answers, and the registry's `role: baseline` model for items without
    one. A models-registry slug: that model answers every question and its answers are the references."""


@dg.asset(
    check_specs=[failed_calls_spec("urs_references", None)],
    group_name="generations",
    deps=[registry_roles, urs_items],
    code_version=steps.prompt_code_version(prompts.CANDIDATE_PROMPT_VERSION, prompts),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="The reference answer (worth 8, benchwright/urs/README.md#the-judge) every URS answer is judged against: the dataset's, "
                "or a chosen reference model's direct answer to the question.",
)
def urs_references(context: dg.AssetExecutionContext, config: UrsReferenceConfig, warehouse: Warehouse,
                   llm: LLMClient, registry: Registry) -> dg.MaterializeResult:
    items = load_urs_items(warehouse)
    if config.reference_model:
        model, every_item = registry.model(config.reference_model), True
    else:
        model, every_item = registry.with_role("baseline"), False
        if model is None and any(not item["reference_answer"] for item in items):
            raise dg.Failure("Some URS items have no reference answer and registry/models.yaml has no "
                             "`role: baseline` model (or set reference_model in the run config)")
    plan = urs_steps.reference_plan(items, model, every_item) if model else []
    results, stats = ask_models(context, llm, plan, [model], "urs", model.slug if model else "")
    planned = {p.item_id for p in plan}
    rows = [{"item_id": i["item_id"], "reference_model": "dataset", "answer": i["reference_answer"], "error": None,
             "request_key": None, "simulated": False} for i in items if i["item_id"] not in planned]
    rows += [{"item_id": p.item_id, "reference_model": model.slug, "answer": r.text, "error": r.error,
              "request_key": r.key, "simulated": model.simulated} for p, r in zip(plan, results)]
    df = pd.DataFrame(rows)
    store_flagged(warehouse, "urs_references", df, registry, match={})
    return llm_result(context, table_metadata(
        df, ["item_id", "reference_model", "answer", "error"],
        from_model=len(plan), from_dataset=len(rows) - len(plan)), stats)


@dg.asset(
    check_specs=[failed_calls_spec("urs_generations", models_partitions)],
    group_name="generations",
    # After the references: this also puts it on creation_generations' level of the graph, so the
    # orchestrator (scripts/orchestrate.py) runs both in one run per model instead of two.
    deps=[model_entries, urs_items, urs_references],
    partitions_def=models_partitions,
    code_version=steps.prompt_code_version(prompts.CANDIDATE_PROMPT_VERSION, prompts),
    kinds={"duckdb"},
    description="One candidate's answers to every URS question (partition: model), two samples each "
                "(sample_index 0 is judged; 1 serves as the model's own reference for the rating bias). "
                "Written to `generations` with benchmark = 'urs'. Requested by the registry sensor.",
)
def urs_generations(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient,
                    registry: Registry) -> dg.MaterializeResult:
    model = registry.model(context.partition_key)
    items = load_urs_items(warehouse)
    if not items:
        raise dg.Failure("No URS items in the warehouse: materialize `urs_items` first")
    plan = urs_steps.generation_plan(items, model)
    results, stats = ask_models(context, llm, plan, [model], "urs", model.slug)
    df = urs_steps.generation_rows(model, plan, results)
    store_generations(warehouse, df, urs_steps.BENCHMARK, model.slug, registry)
    return llm_result(context, table_metadata(
        df, ["item_id", "sample_index", "response", "error"],
        model=model.model, simulated=model.simulated), stats)


# --- judgments ---------------------------------------------------------------------------------------

def _references(warehouse: Warehouse) -> dict[str, tuple[str, str]]:
    df = warehouse.query("SELECT item_id, answer, reference_model FROM urs_references WHERE answer IS NOT NULL")
    return {r.item_id: (r.answer, r.reference_model) for r in df.itertuples(index=False)}


def _answers(warehouse: Warehouse, models: list[str], sample_indexes: list[int],
             item_ids: list[str] | None = None) -> dict[tuple[str, int], dict[str, str]]:
    """(model, sample index) -> item -> answer; of the given items only, when given."""
    df = warehouse.query(
        "SELECT model, sample_index, item_id, response FROM generations WHERE benchmark = 'urs' "
        "AND response IS NOT NULL AND list_contains(?, model) AND list_contains(?, sample_index) "
        "AND (? IS NULL OR list_contains(?, item_id))",
        [models, sample_indexes, item_ids, item_ids])
    answers: dict[tuple[str, int], dict[str, str]] = {}
    for r in df.itertuples(index=False):
        answers.setdefault((r.model, int(r.sample_index)), {})[r.item_id] = r.response
    return answers


@dg.asset(
    check_specs=[failed_calls_spec("urs_judgments", model_judge_partitions)],
    group_name="judgments",
    deps=[JUDGE_ENTRY, dg.AssetDep(urs_generations, partition_mapping=by_model), urs_references],
    partitions_def=model_judge_partitions,
    code_version=steps.prompt_code_version(prompts.JUDGE_PROMPT_VERSION, prompts),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Intent-aware judgments (benchwright/urs/README.md#the-judge): one judge scores one candidate's answer (sample 0) against "
                "the reference answer on the five criteria of the question's intent, in the question's language. "
                "Raw text, parsed scores and parse_ok are separate columns; a failed call has an error and no score.",
)
def urs_judgments(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient,
                  registry: Registry) -> dg.MaterializeResult:
    model_slug, judge_slug = model_and_judge(context)
    model, judge = registry.model(model_slug), registry.judge(judge_slug)
    with warehouse.together():  # the inputs' reads on one attach
        items = load_urs_items(warehouse)
        answers = _answers(warehouse, [model.slug], [urs_steps.ANSWER_SAMPLE]).get((model.slug, urs_steps.ANSWER_SAMPLE),
                                                                                  {})
        references = _references(warehouse)
    plan, skipped = urs_steps.judgment_plan(items, references, answers, judge, model.slug)
    if skipped:
        context.log.warning(f"{len(skipped)} items not judged: missing reference or answer ({skipped[:5]})")
    results, stats = ask_models(context, llm, plan, [judge], "urs", model.slug, judge.slug)
    items_by_id = {item["item_id"]: item for item in items}
    df = urs_steps.judgment_rows(items_by_id, judge, model.simulated or judge.simulated, plan, results)
    store_flagged(warehouse, "urs_judgments", df, registry, match={"model": model.slug, "judge": judge.slug})
    return llm_result(context, table_metadata(
        df, ["item_id", "intent", "language", "final_score", "error"],
        parse_failures=int((~df["parse_ok"] & df["error"].isna()).sum()), skipped_items=len(skipped)), stats)


class CrossValidationConfig(dg.Config):
    sample_size: int = 6
    """Questions in the cross-validation sample (language-balanced, fixed by item id)."""


@dg.asset(
    check_specs=[failed_calls_spec("urs_cross_judgments", None)],
    group_name="judgments",
    # After the main judgments, so a new judge (whose judgments partitions run first) joins the grid.
    deps=[urs_generations, urs_judgments],
    code_version=steps.prompt_code_version(prompts.JUDGE_PROMPT_VERSION, prompts),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Cross-validation judgments (benchwright/urs/README.md#cross-validation-and-rating-bias) on a small fixed sample: every registered judge scores "
                "every candidate's answer (sample 0) against every candidate's other answer (sample 1) as the "
                "reference. The diagonal (candidate = reference model) is the rating-bias setting.",
)
def urs_cross_judgments(context: dg.AssetExecutionContext, config: CrossValidationConfig, warehouse: Warehouse,
                        llm: LLMClient, registry: Registry) -> dg.MaterializeResult:
    if config.sample_size < 1:
        raise dg.Failure(f"sample_size must be at least 1, not {config.sample_size}")
    items = load_urs_items(warehouse)
    sample = urs_steps.cross_sample(items, config.sample_size)
    judges, candidates = registry.judges(), registry.candidates()
    slugs = [c.slug for c in candidates]
    # The sample's answers only: every model's answers to every question would be read for a few cells.
    answers = _answers(warehouse, slugs, [urs_steps.ANSWER_SAMPLE, urs_steps.REFERENCE_SAMPLE],
                       [item["item_id"] for item in sample])
    plan, skipped = urs_steps.cross_plan(sample, judges, slugs, answers)
    if skipped:
        context.log.warning(f"{skipped} grid cells not judged: a candidate has no answer to a sampled question")
    results, stats = ask_models(context, llm, [p for _, p in plan], judges, "urs",
                                who=[(p.row["model"], judge.slug) for judge, p in plan])
    items_by_id = {item["item_id"]: item for item in items}
    df = urs_steps.cross_rows(items_by_id, plan, results, {c.slug: c.simulated for c in candidates})
    store_flagged(warehouse, "urs_cross_judgments", df, registry, match={})
    return llm_result(context, table_metadata(
        df, ["judge", "reference_model", "model", "item_id", "final_score"],
        sample=dg.MetadataValue.json([item["item_id"] for item in sample]), skipped_cells=skipped,
        parse_failures=int((~df["parse_ok"] & df["error"].isna()).sum())), stats)


# --- metrics -----------------------------------------------------------------------------------------

# A judge panel's URS scores (assets/panels.py) go into urs_judgments too. By key: panels imports this module.
URS_PANEL_JUDGMENTS = dg.AssetKey("urs_panel_judgments")

@dg.asset(
    group_name="metrics",
    deps=[registry_labels, urs_judgments, URS_PANEL_JUDGMENTS],
    code_version=steps.code_version(metrics, files=[sql_file(metrics.LEADERBOARD_SQL)]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    metadata=explorer_metadata("urs"),
    description="URS leaderboard: mean final score (1-10) per judge × model × intent × language, with 'all' rows "
                "for overall, per intent and per language (benchwright/urs/README.md#scoring). n = parsed judgments; parse failures are "
                "counted beside it, never scored.",
)
def urs_leaderboard(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    # DuckDB aggregates (the rows of metrics.leaderboard): the judgments never travel through pandas.
    board = add_labels(warehouse.query_file(metrics.LEADERBOARD_SQL), registry, LABELS)
    warehouse.replace_rows("urs_leaderboard", board, match={})
    overall = board[(board["intent"] == metrics.ALL) & (board["language"] == metrics.ALL)]
    return dg.MaterializeResult(metadata=table_metadata(
        board, preview=overall.sort_values(["judge", "final_score"], ascending=[True, False]), preview_columns=
        ["judge_display", "model_display", "final_score", "n", "parse_failures"],
        aggregation="mean of parsed final scores of sample-0 answers against the reference answer (worth 8)"))


@dg.asset(
    group_name="metrics",
    deps=[registry_labels, urs_judgments, URS_PANEL_JUDGMENTS],
    code_version=steps.code_version(metrics, files=[sql_file(metrics.CRITERION_MEANS_SQL)]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Mean score of each intent criterion per judge × model × intent × language (and 'all' margins).",
)
def urs_criterion_means(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    # DuckDB aggregates (the rows of metrics.criterion_means), the criterion scores read from their JSON.
    table = add_labels(warehouse.query_file(metrics.CRITERION_MEANS_SQL), registry, LABELS)
    warehouse.replace_rows("urs_criterion_means", table, match={})
    shown = table[(table["intent"] == metrics.ALL) & (table["language"] == metrics.ALL)]
    return dg.MaterializeResult(metadata=table_metadata(table, ["judge", "model", "criterion", "mean_score", "n"],
                                                        preview=shown))


def _cross(warehouse: Warehouse) -> pd.DataFrame:
    return warehouse.query("SELECT * FROM urs_cross_judgments WHERE error IS NULL")


@dg.asset(
    group_name="metrics",
    deps=[registry_labels, urs_cross_judgments],
    code_version=steps.code_version(metrics),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Cross-validation grid (benchwright/urs/README.md#cross-validation-and-rating-bias): each candidate's mean score and rank per (evaluator judge, "
                "reference model). Shows whether rankings depend on who judges and whose answer is the reference.",
)
def urs_cross_validation(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    grid = add_labels(metrics.cross_validation_grid(_cross(warehouse)), registry,
                      {**LABELS, "reference_model": "reference_model_display"})
    warehouse.replace_rows("urs_cross_validation", grid, match={})
    return dg.MaterializeResult(metadata=table_metadata(
        grid, ["judge", "reference_model", "model", "mean_score", "rank", "n"],
        reference_answers="the reference model's sample 1; the candidate's sample 0 is judged"))


@dg.asset(
    group_name="metrics",
    deps=[registry_labels, urs_cross_judgments],
    code_version=steps.code_version(metrics),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Rating bias per evaluator (benchwright/urs/README.md#cross-validation-and-rating-bias): bias(A) = mean over models B of (A's score for B's answer "
                "against B's own other answer − 8). A calibrated judge sits near 0. Rows with model 'all' hold bias(A).",
)
def urs_rating_bias(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    table = add_labels(metrics.rating_bias(_cross(warehouse)), registry, LABELS)
    warehouse.replace_rows("urs_rating_bias", table, match={})
    summary = table[table["model"] == metrics.ALL]
    return dg.MaterializeResult(metadata=table_metadata(
        table, ["judge_display", "mean_rating", "bias", "n"], preview=summary,
        bias=dg.MetadataValue.json({r.judge: round(float(r.bias), 3) for r in summary.itertuples()})))


# --- alignment with people (file drops) --------------------------------------------------------------

class UserSatisfactionConfig(dg.Config):
    path: str = f"{URS_DATASET}/user_satisfaction.csv"
    """Survey table (intent, satisfaction 1-5, optional model). Drop a new file here (or point to one) and
    re-materialize. The shipped file is illustrative, written by us, not survey data."""


@dg.asset(
    group_name="metrics",
    deps=[files_source("urs_dataset_files"), registry_labels, urs_leaderboard],
    code_version=steps.code_version(metrics, urs_loader),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Alignment with users (benchwright/urs/README.md#alignment-with-people): Pearson r between the mean benchmark score per intent and "
                "users' reported satisfaction per intent, per judge, from the configured survey file.",
)
def urs_user_alignment(context: dg.AssetExecutionContext, config: UserSatisfactionConfig,
                       warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    path = repo_path(config.path)
    if not path.is_file():
        context.log.warning(f"no user-satisfaction file at {path}: nothing to align with")
        warehouse.replace_rows("urs_user_satisfaction", pd.DataFrame(), match={})
        warehouse.replace_rows("urs_user_alignment", pd.DataFrame(), match={})
        return dg.MaterializeResult(metadata={"rows": 0, "source": f"missing: {shown_path(path)}"})
    rows, problems = load_satisfaction_csv(path)
    record_problems(context, warehouse, problems, "urs", path.name)
    survey = pd.DataFrame(rows, columns=["intent", "satisfaction", "model"])
    board = warehouse.query("SELECT * FROM urs_leaderboard")
    table = add_labels(metrics.user_alignment(board, survey).assign(source_file=path.name), registry,
                       {"judge": "judge_display", "model": "model_display"}).drop(columns="model_display")
    warehouse.replace_rows("urs_user_satisfaction", survey.assign(source_file=path.name), match={})
    warehouse.replace_rows("urs_user_alignment", table, match={})
    return dg.MaterializeResult(metadata=table_metadata(
        table, ["judge", "model", "n_intents", "pearson_r", "p_value"], problems=len(problems), refused_records=len(problems),
        source=shown_path(path)))


class HumanPairwiseConfig(dg.Config):
    path: str = f"{URS_DATASET}/human_pairwise.csv"
    """Human choices (model_a, model_b, winner: A | B | tie | undetermined; optional item_id, annotator). Drop a
    new file here (or point to one) and re-materialize. The shipped file is illustrative, written by us."""
    folder: str = ""
    """The annotation app's drop folder, read too (its `urs` rows); empty means `<warehouse folder>/drops/human_pairwise`."""


URS_ALIGNMENT_TABLES = ["urs_human_pairwise", "urs_bradley_terry", "urs_human_alignment"]


@dg.asset(
    group_name="metrics",
    deps=[files_source("urs_dataset_files"), human_pairwise_files, registry_labels, urs_leaderboard],
    code_version=steps.code_version(metrics, human_pairwise, ratings, urs_loader),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Alignment with annotators (benchwright/urs/README.md#alignment-with-people): Bradley–Terry coefficients from human pairwise choices "
                "('cannot tell' excluded, a tie half a win each), their Pearson and Spearman correlation with each "
                "judge's overall URS scores, and whether the two rank orders agree. The choices are the configured "
                "file's plus the `urs` rows of every CSV in the human pairwise drop folder (requested by "
                "`human_pairwise_drop_sensor` when it changes).",
)
def urs_human_alignment(context: dg.AssetExecutionContext, config: HumanPairwiseConfig,
                        warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    path = repo_path(config.path)
    folder = human_pairwise_drop_folder(warehouse, config.folder)
    sample, problems = load_pairwise_csv(path) if path.is_file() else ([], [])
    dropped, folder_problems = load_human_pairwise_drops(context, warehouse, folder, registry)
    comparisons, refused = urs_loader.human_choices(sample, dropped, known_models(registry))
    problems = problems + refused
    record_problems(context, warehouse, problems, "urs", path.name)
    own_problems = {"benchmark": "urs", "dataset": path.name}
    source = shown_path(path) if path.is_file() else f"missing: {shown_path(path)}"
    if comparisons.empty:
        context.log.warning(f"no human pairwise choices at {path} or in {folder}: nothing to align with")
        warehouse.write_tables([(table, pd.DataFrame(), {}) for table in URS_ALIGNMENT_TABLES])
        return dg.MaterializeResult(metadata={"rows": 0, "source": source, "folder": dg.MetadataValue.path(str(folder)),
                                              "problems": len(problems) + len(folder_problems),
                                              "refused_records": len(problems) + len(folder_problems)},
                                    data_version=alignment_version(warehouse, URS_ALIGNMENT_TABLES, own_problems))
    files = ", ".join(sorted(comparisons["source_file"].unique()))
    try:
        coefficients = metrics.bradley_terry(comparisons)
    except ValueError as exc:  # no decided comparison, or models not connected: say so, keep the inputs
        context.log.warning(f"no Bradley–Terry fit from {files}: {exc}")
        coefficients = pd.DataFrame(columns=metrics.BT_COLUMNS)
    board = warehouse.query("SELECT * FROM urs_leaderboard")
    table = add_labels(metrics.human_alignment(board, coefficients).assign(source_file=files), registry,
                       {"judge": "judge_display"})
    coefficients = add_labels(coefficients.assign(source_file=files), registry, {"model": "model_display"})
    # One transaction: the coefficients never disagree with the choices they were fitted on.
    warehouse.write_tables([("urs_human_pairwise", comparisons, {}), ("urs_bradley_terry", coefficients, {}),
                            ("urs_human_alignment", table, {})])
    return dg.MaterializeResult(data_version=alignment_version(warehouse, URS_ALIGNMENT_TABLES, own_problems),
                                metadata=table_metadata(
        table, ["judge", "n_models", "pearson_r", "spearman_rho", "ranks_agree"],
        problems=len(problems) + len(folder_problems), refused_records=len(problems) + len(folder_problems),
        comparisons=len(comparisons),
        excluded_undetermined=int((comparisons["winner"] == "undetermined").sum()),
        bradley_terry=dg.MetadataValue.md(markdown_table(coefficients)), source=source,
        folder=dg.MetadataValue.path(str(folder)), from_folder=int((comparisons["source_file"] != path.name).sum())))


# --- integrity canaries (benchwright/canaries.py): judged by assets/canaries.py, one judge at a time ------------

def judge_canaries(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient, registry: Registry,
                   judge, entries) -> tuple[pd.DataFrame, pd.DataFrame, CallStats]:
    """Each canary's fixed answer scored against the item's reference on the first questions, through the URS
    judge's own prompt and parser (`urs_steps.judgment_plan`, `judgment_rows`): a unit's value is its final score
    (1-10). Compared with the candidates' mean final scores on the same questions."""
    every_item = load_urs_items(warehouse)
    chosen = set(canaries.subset(item["item_id"] for item in every_item))
    items = [item for item in every_item if item["item_id"] in chosen]
    items_by_id = {item["item_id"]: item for item in items}
    references = _references(warehouse)
    plans = {e.slug: urs_steps.judgment_plan(items, references, dict.fromkeys(chosen, canaries.answer(e.canary_kind)),
                                             judge, e.slug)[0] for e in entries}
    flat = [p for plan in plans.values() for p in plan]
    results, stats = ask_models(context, llm, flat, [judge], urs_steps.BENCHMARK,
                                who=[(slug, judge.slug) for slug, plan in plans.items() for _ in plan])
    frames, answered = [], canaries.per_canary(plans, results)
    for entry in entries:
        plan, mine = plans[entry.slug], answered[entry.slug]
        rows = urs_steps.judgment_rows(items_by_id, judge, judge.simulated, plan, mine)
        values = [None if pd.isna(score) else float(score) for score in rows["final_score"]]
        frames.append(canaries.units(rows, judge=judge.slug, benchmark=urs_steps.BENCHMARK, model=entry.slug,
                                     kind=entry.canary_kind, values=values, request_keys=[r.key for r in mine]))
    comparison = warehouse.query_file(CANARY_COMPARISON_SQL, [judge.slug, sorted(chosen),
                                                              [e.slug for e in registry.candidates()]])
    return canaries.units_table(frames), comparison, stats


CANARY_COMPARISON_SQL = "urs/queries/canary_comparison.sql"
# The null figure is the middle of the 1-10 scale: a fixed answer scoring above it reads as better than middling.
CANARY_JUDGING = canaries.CanaryJudging(
    benchmark=urs_steps.BENCHMARK, metric="mean_score", null_figure=5.5, multimodal=False, judge=judge_canaries,
    deps=(urs_items, urs_references, dg.AssetDep(urs_judgments, partition_mapping=by_judge)),
    modules=(prompts, urs_steps), files=(sql_file(CANARY_COMPARISON_SQL),))
