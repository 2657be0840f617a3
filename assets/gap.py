"""GAP (benchwright/gap/README.md): game images, tainted answers, game-log ingest, reliability and selection, rewards, the player
interaction model, the GAP-VQA dataset, its scoring on val and engagement analytics.

Wiring: the method is in the package benchwright.gap (images, logs, reliability, interaction, vqa, answering,
scoring, engagement, steps) and the simulator's GAP answers in benchwright.simulate; a game-log file is read by
`logs.read_log_file`, and `ingest_log_files` here stores each in one transaction.
"""

from datetime import datetime, timezone
from pathlib import Path

import dagster as dg
import pandas as pd

from assets.sources import JUDGE_ENTRY, files_source, model_entries, registry_labels, registry_roles
from assets.common import (EAGER, explorer_metadata, LOAD_WHEN_MISSING, ask_models, store_generations, add_labels, image_refs,
                           failed_calls_spec, llm_result, log_first, record_problems, repo_path,
                           rows_version, table_metadata)
from assets.partitions import by_judge, by_model, model_and_judge, model_judge_partitions, models_partitions
from benchwright import canaries, paths, steps
from benchwright.llm import CallStats
from benchwright.gap import answering, declaration, engagement, interaction, logs, reliability, scoring, vqa
from benchwright.gap.declaration import SAMPLE_LOGS as GAP_SAMPLE_LOGS
from benchwright.gap import images as image_sets
from benchwright.gap import steps as gap_steps
from benchwright.gap.images import generate_images, load_image_folder
from benchwright.report import data_url_markdown, markdown_table
from resources.llm import LLMClient
from resources.registry import Registry
from resources.warehouse import Warehouse


def gap_drop_folder(warehouse: Warehouse, configured: str = "") -> Path:
    """Where the game front end drops JSONL logs: next to the warehouse unless configured."""
    return paths.drop_folder(warehouse.database, declaration.LOG_DROPS, configured)


def gap_export_folder(warehouse: Warehouse, configured: str = "") -> Path:
    return paths.export_folder(warehouse.database, "gap_vqa", configured)


def _marks(warehouse: Warehouse) -> pd.DataFrame:
    return warehouse.query_file("gap/queries/marks.sql")


# --- datasets ----------------------------------------------------------------------------------------

class GapImagesConfig(dg.Config):
    n_tainted: int = 20
    n_untainted: int = 20
    seed: int = 0
    real_image_folder: str = ""
    """Optional folder of real (untainted) images to register as well; no ground truth."""


@dg.asset(
    group_name="datasets",
    code_version=steps.code_version(image_sets),
    automation_condition=LOAD_WHEN_MISSING,
    kinds={"duckdb"},
    description="GAP game images: seeded tainted-style (≤ 2 shapes, plain) and untainted-style (cluttered) "
                "images with exact ground truth, plus an optional real-image folder; content-hashed into `images`.",
)
def gap_images(context: dg.AssetExecutionContext, config: GapImagesConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    images = generate_images(config.n_tainted, config.n_untainted, config.seed)
    problems = []
    if config.real_image_folder:
        real, problems = load_image_folder(repo_path(config.real_image_folder))
        images += real
    blobs = pd.DataFrame([{"sha256": im.image.sha256, "mime": im.image.mime, "width": im.image.width,
                           "height": im.image.height, "data": im.image.data} for im in images]).drop_duplicates("sha256")
    new = warehouse.add_images(blobs)
    rows = pd.DataFrame([{"image_id": im.image_id, "image_set": im.image_set, "sha256": im.image.sha256,
                          "truth": im.truth_json()} for im in images])
    warehouse.replace_rows("gap_images", rows, match={})
    record_problems(context, warehouse, problems, "gap", "images")
    return dg.MaterializeResult(metadata=table_metadata(rows, ["image_id", "image_set", "sha256"], new_images=new,
                                                        problems=len(problems), refused_records=len(problems)))


# What the ingest writes, so its data version (and so whether its readers and the snapshot run) follows them all.
GAME_LOG_TABLES = ["gap_marks", "gap_log_quarantine", "gap_log_files", ("dataset_problems", {"benchmark": "gap",
                                                                                            "dataset": "game_logs"})]


class GapLogsConfig(dg.Config):
    sample_folder: str = GAP_SAMPLE_LOGS
    """Bundled simulated logs (relative to the repo root); '' to skip."""
    drop_folder: str = ""
    """The front end's drop folder; default `<warehouse folder>/drops/gap_logs`."""


def ingest_log_files(warehouse: Warehouse, paths: list[Path], log=None) -> dict:
    """Store every mark once by its natural key (session, picture order, question index), each file in
    one transaction that checks and writes; returns counts. Files follow the drop-folder contract
    (benchwright.loading): only `*.jsonl` names are read, only complete lines are records."""
    read = warehouse.query("SELECT file_sha256, file_name FROM gap_log_files")
    known = set(zip(read["file_sha256"], read["file_name"]))
    counts = {"files_seen": len(paths), "files_new": 0, "marks_stored": 0, "marks_duplicate": 0,
              "lines_quarantined": 0, "unfinished_lines": 0}
    for path in paths:
        file = logs.read_log_file(path, datetime.now(timezone.utc).replace(tzinfo=None))
        if file.unfinished:
            counts["unfinished_lines"] += 1
            if log:
                log.info(f"{file.name}: last line has no line end yet (still being written): read when complete")
        if (file.digest, file.name) in known:
            continue  # these very bytes were read from this file before: nothing in them can be new
        known.add((file.digest, file.name))
        if log:
            log_first(log.warning, [f"quarantined {file.name}:{line.line_no}: {line.reason}"
                                    for line in file.quarantine.itertuples(index=False)], "the gap_log_quarantine table")
        # Marks, duplicates, quarantine and the file's record land together: never half a file, never twice.
        result = warehouse.ingest_records(
            "gap_marks", file.marks, logs.MARK_KEY, logs.MARK_PLACE, problems_of=("gap", "game_logs"),
            also=[("gap_log_quarantine", file.quarantine, ["file_name", "line_no"]),
                  ("gap_log_files", file.record, ["file_sha256", "file_name"])])
        if result["duplicates"] and log:
            log.warning(f"{file.name}: {result['duplicates']} marks already stored from elsewhere (see dataset_problems)")
        counts["files_new"] += 1
        counts["marks_stored"] += result["stored"]
        counts["marks_duplicate"] += result["duplicates"]
        counts["lines_quarantined"] += len(file.quarantine)
    return counts


@dg.asset(
    deps=[files_source("gap_log_files")],
    group_name="datasets",
    code_version=steps.code_version(logs),
    # Loaded once by itself; after that `gap_log_drop_sensor` requests it when new files arrive.
    automation_condition=LOAD_WHEN_MISSING,
    kinds={"duckdb"},
    description="GAP game logs (JSONL, one question per line) from the bundled sample and the drop folder. "
                "Each mark is stored once by its natural key (session, picture order, question index): a "
                "re-delivered mark (a copy, other line ends, a file read again) is a `dataset_problems` row, "
                "not data. Only `*.jsonl` files and complete lines are read (write `*.part`, rename when done); "
                "malformed lines go to `gap_log_quarantine` with a reason while the good lines load.",
)
def gap_game_logs(context: dg.AssetExecutionContext, config: GapLogsConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    folders = [gap_drop_folder(warehouse, config.drop_folder)]
    if config.sample_folder:
        folders.insert(0, repo_path(config.sample_folder))
    paths = [p for folder in folders if folder.is_dir() for p in sorted(folder.glob("*.jsonl"))]
    counts = ingest_log_files(warehouse, paths, context.log)
    totals = warehouse.query_file("gap/queries/log_line_counts.sql").iloc[0]
    return dg.MaterializeResult(metadata={**counts, "marks_total": int(totals["marks"]),
                                          "quarantined_total": int(totals["quarantined"]),
                                          "folders": dg.MetadataValue.json([str(f) for f in folders])},
                               data_version=rows_version(warehouse, GAME_LOG_TABLES))


# --- metrics -----------------------------------------------------------------------------------------

class GapSelectionConfig(dg.Config):
    theta: float = reliability.DEFAULT_THETA
    p_planted: float = reliability.DEFAULT_P_PLANTED
    """The game's planting probability P(I=1)."""


@dg.asset(
    group_name="metrics",
    code_version=steps.code_version(reliability),
    deps=[gap_game_logs],
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Per-player reliability P(M=0 | H=0) after every tainted mark (Beta(1,1) priors; benchwright/gap/README.md#which-questions-are-kept), "
                "adversarial questions kept above θ, points (20 per caught planted error), weekly leaderboard, "
                "image rotation (untainted image with > 10 kept questions).",
)
def gap_reliability(context: dg.AssetExecutionContext, config: GapSelectionConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    marks = _marks(warehouse)
    players = reliability.player_reliability(marks, config.p_planted)
    history = reliability.reliability_history(marks, config.p_planted)
    kept = reliability.select_adversarial(marks, players, config.theta).assign(theta=config.theta)
    board = reliability.weekly_leaderboard(marks) if len(marks) else pd.DataFrame(columns=["week", "player_id", "points", "rank"])
    rotation = reliability.image_rotation(kept)
    # One transaction: the kept questions never disagree with the estimates they came from.
    written = [("gap_player_reliability", players, {}), ("gap_reliability_history", history, {}),
               ("gap_adversarial_questions", kept, {}), ("gap_weekly_leaderboard", board, {}),
               ("gap_image_rotation", rotation, {})]
    warehouse.write_tables(written)
    return dg.MaterializeResult(data_version=rows_version(warehouse, [table for table, _, _ in written]),
                                metadata=table_metadata(
        players.sort_values("reliability", ascending=False), ["player_id", "planted_total", "honest_total", "reliability"],
        kept_questions=len(kept), players_above_theta=int((players["reliability"] > config.theta).sum()),
        images_to_rotate=int(rotation["move_to_tainted"].sum()) if len(rotation) else 0))


INTERACTION_TABLES = ["gap_interaction_parameters", "gap_interaction_cv", "gap_interaction_calibration"]


class GapInteractionConfig(dg.Config):
    folds: int = 5
    seed: int = 0
    theta: float = reliability.DEFAULT_THETA


@dg.asset(
    group_name="metrics",
    code_version=steps.code_version(interaction),
    deps=[gap_game_logs],
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="The player interaction model (benchwright/gap/README.md#player-interaction-model) fitted by maximum likelihood (L-BFGS-B, bounded) on tainted "
                "marks; k-fold cross-validated ROC AUC, calibration table; untainted questions with P(S) > θ counted.",
)
def gap_interaction_model(context: dg.AssetExecutionContext, config: GapInteractionConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    marks = _marks(warehouse)
    rows = interaction.interaction_outcomes(marks)
    if rows["revealed"].nunique() < 2 or len(rows) < 2 * config.folds:
        context.log.warning(f"{len(rows)} tainted marks: too few (or one outcome only) to fit the model")
        warehouse.write_tables([(table, pd.DataFrame(), {}) for table in INTERACTION_TABLES])
        return dg.MaterializeResult(metadata={"rows": len(rows), "fitted": False},
                                    data_version=rows_version(warehouse, INTERACTION_TABLES))
    model = interaction.fit_interaction_model(rows)
    cv, out_of_fold = interaction.cross_validate(rows, config.folds, config.seed)
    calibration = interaction.calibration_table(rows["revealed"].to_numpy(), out_of_fold)
    params = model.parameters()
    above = model.untainted_above(marks, config.theta)
    warehouse.write_tables([("gap_interaction_parameters", params, {}), ("gap_interaction_cv", cv, {}),
                            ("gap_interaction_calibration", calibration, {})])
    pooled_auc = interaction.roc_auc(rows["revealed"].to_numpy(), out_of_fold)
    return dg.MaterializeResult(data_version=rows_version(warehouse, INTERACTION_TABLES), metadata={
        "rows": len(rows), "fitted": True, "cv_auc": float(pooled_auc),
        "untainted_above_theta": above,
        **{name: float(getattr(model, name)) for name in interaction.STRUCTURAL},
        "calibration": dg.MetadataValue.md(markdown_table(calibration.round(3))),
    })


class GapVqaConfig(dg.Config):
    labels_path: str = ""
    """Optional JSONL of expert labels {image_id, question, answer}; else answers come from ground truth."""
    val_fraction: float = 0.3
    seed: int = 0
    export_folder: str = ""
    """Default `<warehouse folder>/exports/gap_vqa`."""


@dg.asset(
    group_name="datasets",
    code_version=steps.code_version(vqa, image_sets),
    deps=[gap_reliability, gap_images],
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="GAP-VQA: kept (image, question) pairs with labelled answers and a rule-based category (13 of "
                "benchwright/gap/README.md#gap-vqa), split train/val by image (seeded, no image in both); train.jsonl in the "
                "ShareGPT/LLaMA-Factory format and val.jsonl written with the images to the export folder.",
)
def gap_vqa_dataset(context: dg.AssetExecutionContext, config: GapVqaConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    kept = warehouse.query_file("gap/queries/kept_questions.sql")
    images = warehouse.query_file("gap/queries/pictures_with_bytes.sql").set_index("image_id")
    labels, problems = vqa.read_labels(repo_path(config.labels_path)) if config.labels_path else ({}, [])
    df, item_problems = vqa.vqa_items(kept, images, labels, config.val_fraction, config.seed)
    problems += item_problems
    folder = gap_export_folder(warehouse, config.export_folder)
    vqa.write_export(folder, df, images["data"])
    warehouse.replace_rows("gap_vqa_items", df, match={})
    record_problems(context, warehouse, problems, "gap", "vqa")
    # The same items (a game round that keeps the same questions) leave every model's answers fresh.
    version = rows_version(warehouse, ["gap_vqa_items", ("dataset_problems", {"benchmark": "gap", "dataset": "vqa"})])
    return dg.MaterializeResult(data_version=version, metadata=table_metadata(
        df, ["item_id", "image_id", "question", "answer", "category", "split"],
        train=int((df["split"] == "train").sum()), val=int((df["split"] == "val").sum()),
        problems=len(problems), refused_records=len(problems), export=dg.MetadataValue.path(str(folder)),
        categories=dg.MetadataValue.json(df["category"].value_counts().to_dict())))


# --- scoring on val (benchwright/gap/README.md#scoring): generations per model, judgments per model × judge, then the summary ------

class GapGenerationsConfig(dg.Config):
    max_val_items: int = 40
    """Keep the LLM work small; the first N val items by id."""


def limited_config(limit: int) -> dict[str, dict]:
    """Run config by asset that keeps only the first `limit` items of this benchmark (`dev.py run --limit`): the
    val questions each model answers and the tainted images the game's model is asked about. The game's own
    data (images, logs, reliability) is cheap and stays whole."""
    return {"gap_generations": {"max_val_items": min(limit, GapGenerationsConfig.model_fields["max_val_items"].default)},
            "gap_tainted_answers": {"max_images": limit}}


def _val_items(warehouse: Warehouse, limit: int | None = None) -> pd.DataFrame:
    return warehouse.query_file("gap/queries/val_items.sql", [limit if limit is not None else 2**31 - 1])


@dg.asset(
    check_specs=[failed_calls_spec("gap_generations", models_partitions)],
    group_name="generations",
    deps=[model_entries, gap_vqa_dataset],
    partitions_def=models_partitions,
    code_version=steps.prompt_code_version(answering.ANSWER_PROMPT_VERSION, answering),
    kinds={"duckdb"},
    description="One candidate's answers to the GAP-VQA val questions, with the image when it has vision "
                "(partition: model; rows in `generations` with benchmark 'gap'). Requested by the registry sensor.",
)
def gap_generations(context: dg.AssetExecutionContext, config: GapGenerationsConfig, warehouse: Warehouse,
                    llm: LLMClient, registry: Registry) -> dg.MaterializeResult:
    model = registry.model(context.partition_key)
    with warehouse.together():  # the inputs' reads on one attach
        val = _val_items(warehouse, config.max_val_items)
        urls = image_refs(warehouse, [{"image_hashes": [h]} for h in val["sha256"]]) if model.vision else {}
    plan = gap_steps.answer_plan(val, model, urls)
    results, stats = ask_models(context, llm, plan, [model], "gap", model.slug)
    df = gap_steps.answer_rows(model, plan, results)
    store_generations(warehouse, df, gap_steps.BENCHMARK, model.slug, registry)
    return llm_result(context, table_metadata(df, ["item_id", "response", "error"]), stats)


@dg.asset(
    check_specs=[failed_calls_spec("gap_score_judgments", model_judge_partitions)],
    group_name="judgments",
    deps=[JUDGE_ENTRY, dg.AssetDep(gap_generations, partition_mapping=by_model), gap_vqa_dataset],
    partitions_def=model_judge_partitions,
    code_version=steps.prompt_code_version(scoring.SCORE_PROMPT_VERSION, scoring),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="One judge's 0-1 scores of one candidate's GAP-VQA val answers against the labelled answers "
                "(benchwright/gap/README.md#scoring; partition: model × judge). Raw text, score, parse_ok and parse_problem are "
                "separate; an answer whose call failed is a row with its error and no score.",
)
def gap_score_judgments(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient,
                        registry: Registry) -> dg.MaterializeResult:
    model_slug, judge_slug = model_and_judge(context)
    model, judge = registry.model(model_slug), registry.judge(judge_slug)
    with warehouse.together():  # the inputs' reads on one attach
        answers = warehouse.query("SELECT * FROM generations WHERE benchmark = ? AND model = ?",
                                  [gap_steps.BENCHMARK, model.slug])
        val = _val_items(warehouse)
    val = val[val["item_id"].isin(answers["item_id"])]
    plan = gap_steps.score_plan(val, answers, judge)
    results, stats = ask_models(context, llm, plan, [judge], "gap", model.slug, judge.slug)
    df = gap_steps.score_rows(model, judge, answers[answers["item_id"].isin(val["item_id"])], plan, results)
    warehouse.replace_rows("gap_score_judgments", df, match={"model": model.slug, "judge": judge.slug})
    return llm_result(context, table_metadata(
        df, ["item_id", "score", "parse_problem", "judge_error"],
        parse_failures=int((~df["parse_ok"] & df["judge_error"].isna() & df["answer_error"].isna()).sum())), stats)


@dg.asset(
    group_name="metrics",
    code_version=steps.code_version(scoring),
    deps=[registry_labels, gap_score_judgments],
    automation_condition=EAGER,
    kinds={"duckdb"},
    metadata=explorer_metadata("gap"),
    description="GAP-VQA scores (benchwright/gap/README.md#scoring): the GPT score per judge × model (mean over parsed val answers), "
                "parse failures, errors, and the answering calls' latency, tokens/s, cost per 1k tokens.",
)
def gap_scores(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    summary = add_labels(scoring.score_summary(warehouse.query("SELECT * FROM gap_score_judgments")), registry,
                         {"model": "model_display", "judge": "judge_display"})
    warehouse.replace_rows("gap_scores", summary, match={})
    return dg.MaterializeResult(metadata=table_metadata(summary, ["judge", "model", "gpt_score", "n", "parse_failures",
                                                                  "simulated"]))


@dg.asset(
    group_name="metrics",
    code_version=steps.code_version(engagement),
    deps=[gap_game_logs],
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Engagement (benchwright/gap/README.md#engagement): sessions per player per week, images per session, players' accuracy "
                "on tainted images (10 % buckets); charts in the metadata.",
)
def gap_engagement(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    table = engagement.engagement(_marks(warehouse))
    warehouse.replace_rows("gap_engagement", table, match={})
    charts = {}
    for measure in ("sessions_per_player_week", "images_per_session", "tainted_accuracy"):
        png = engagement.histogram_png(table[table["measure"] == measure], measure.replace("_", " "))
        charts[f"chart_{measure}"] = dg.MetadataValue.md(data_url_markdown(png, measure))
    return dg.MaterializeResult(metadata={**table_metadata(table), **charts},
                                data_version=rows_version(warehouse, ["gap_engagement"]))


class GapTaintedConfig(dg.Config):
    model: str = ""
    """Registry slug of the game's model; default the `role: describer` model, else the first candidate."""
    questions_per_image: int = 2
    max_images: int = 0
    """Only the first N tainted images by id (a limited run, benchwright/scope.py); 0: every one. The questions
    are drawn image by image in that order, so the first N images get the questions of a full run."""
    p_planted: float = reliability.DEFAULT_P_PLANTED
    seed: int = 0


@dg.asset(
    check_specs=[failed_calls_spec("gap_tainted_answers", None)],
    group_name="generations",
    code_version=steps.prompt_code_version(answering.TAINT_PROMPT_VERSION, answering),
    deps=[registry_roles, gap_images],
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="The game's generation side (benchwright/gap/README.md#the-game): seeded questions on tainted images; for each, a seeded "
                "draw decides (P(I=1) = p_planted) whether the model is instructed to answer subtly wrong. Records "
                "the answer, the instruction and whether the answer matches the exact ground truth.",
)
def gap_tainted_answers(context: dg.AssetExecutionContext, config: GapTaintedConfig, warehouse: Warehouse,
                        llm: LLMClient, registry: Registry) -> dg.MaterializeResult:
    entry = registry.game_model(config.model)
    if entry is None:
        raise dg.Failure("No model for the game: register a describer or a candidate, or set config `model`")
    images = warehouse.query_file("gap/queries/tainted_pictures.sql", [config.max_images or 2**31 - 1])
    urls = image_refs(warehouse, [{"image_hashes": [h]} for h in images["sha256"]])
    plan = gap_steps.tainted_plan(images, entry, urls, config.questions_per_image, config.p_planted, config.seed)
    results, stats = ask_models(context, llm, plan, [entry], "gap", entry.slug)
    df = gap_steps.tainted_rows(entry, plan, results)
    warehouse.replace_rows("gap_tainted_answers", df, match={})
    return llm_result(context, table_metadata(
        df, ["image_id", "question", "true_answer", "instructed_wrong", "answer"], model=entry.slug,
        **gap_steps.tainted_summary(df)), stats)


# --- integrity canaries (benchwright/canaries.py): judged by assets/canaries.py, one judge at a time ------------

def judge_canaries(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient, registry: Registry,
                   judge, entries) -> tuple[pd.DataFrame, pd.DataFrame, CallStats]:
    """Each canary's fixed answer scored against the labelled answer on the first val questions, through the GAP
    scoring prompt and reader (`gap_steps.score_plan`, `score_rows`): a unit's value is its 0-1 score. Compared
    with the candidates' mean scores on the same questions."""
    val = _val_items(warehouse)
    chosen = canaries.subset(val["item_id"])
    val = val[val["item_id"].isin(chosen)]
    frames, plans = {}, {}
    for entry in entries:  # the canary's answers as `generations` rows: what score_plan and score_rows read
        frames[entry.slug] = pd.DataFrame({"item_id": chosen, "response": canaries.answer(entry.canary_kind),
                                           **dict.fromkeys(["error", "tokens_in", "tokens_out", "latency_ms",
                                                            "cost_usd"])})
        plans[entry.slug] = gap_steps.score_plan(val, frames[entry.slug], judge)
    flat = [p for plan in plans.values() for p in plan]
    results, stats = ask_models(context, llm, flat, [judge], gap_steps.BENCHMARK,
                                who=[(slug, judge.slug) for slug, plan in plans.items() for _ in plan])
    found, answered = [], canaries.per_canary(plans, results)
    for entry in entries:
        plan, mine = plans[entry.slug], answered[entry.slug]
        rows = gap_steps.score_rows(entry, judge, frames[entry.slug], plan, mine)  # one row per item, by item id
        keys = {p.item_id: r.key for p, r in zip(plan, mine)}
        values = [None if pd.isna(score) else float(score) for score in rows["score"]]
        found.append(canaries.units(rows, judge=judge.slug, benchmark=gap_steps.BENCHMARK, model=entry.slug,
                                    kind=entry.canary_kind, values=values, error_column="judge_error",
                                    request_keys=[keys.get(item) for item in rows["item_id"]]))
    comparison = warehouse.query_file(CANARY_COMPARISON_SQL, [judge.slug, chosen, [e.slug for e in registry.candidates()]])
    return canaries.units_table(found), comparison, stats


CANARY_COMPARISON_SQL = "gap/queries/canary_comparison.sql"
# The null figure is a coin's: a fixed answer right on half the questions or more is not losing.
CANARY_JUDGING = canaries.CanaryJudging(
    benchmark=gap_steps.BENCHMARK, metric="mean_score", null_figure=0.5, multimodal=True, judge=judge_canaries,
    deps=(gap_vqa_dataset, dg.AssetDep(gap_score_judgments, partition_mapping=by_judge)),
    modules=(scoring, gap_steps), files=(paths.sql_file(CANARY_COMPARISON_SQL),))
