"""MMMT-IF (benchwright/mmmt_if/README.md): chats, multi-turn generations, programmatic scores, autorater, human ratings, metrics.

Thin wiring: prompts, parsing and every metric live in benchwright.mmmt_if.method and
benchwright.mmmt_if.steps; these assets read the warehouse, call the LLM client, write back and
attach metadata (and the PNG charts of benchwright.mmmt_if.plots).
"""

from pathlib import Path

import time

import dagster as dg
import pandas as pd

from assets.sources import JUDGE_ENTRY, files_source, model_entries, model_labels, registry_labels
from assets.common import (EAGER, explorer_metadata, LOAD_WHEN_MISSING, ask_models, store_generations, store_flagged, add_labels, image_refs, failed_calls_spec, llm_result,
                           record_problems, repo_path, shown_path, table_metadata)
from assets.partitions import by_judge, by_model, model_and_judge, model_judge_partitions, models_partitions
from benchwright import canaries, paths, ratings, steps
from benchwright.mmmt_if import alignment, chat_set, comparisons, declaration, instruction_following, pif, preferences, prompts
from benchwright.mmmt_if.declaration import DATASET as MMMT_IF_DATASET
from benchwright.mmmt_if import loader as mmmt_if_loader
from benchwright.mmmt_if import plots as mmmt_if_plots
from benchwright.mmmt_if import steps as mmmt_if_steps
from benchwright.mmmt_if.loader import load_chats, prepare_chats
from benchwright.llm import CallStats
from benchwright.report import data_url_markdown, markdown_table
from resources.llm import LLMClient
from resources.registry import Registry
from resources.warehouse import Warehouse

DISPLAY = {"model": "model_display"}


class _Labels:
    """The registry's labels, read once per asset run (add_labels would re-read the YAML each call)."""

    def __init__(self, registry: Registry):
        self._labels = registry.labels()

    def labels(self) -> dict:
        return self._labels


# --- datasets ----------------------------------------------------------------------------------------

class MMMTIFSourceConfig(dg.Config):
    path: str = f"{MMMT_IF_DATASET}/chats.jsonl"
    """Our JSONL layout (.jsonl) or the MMDU layout (.json); relative to the repo root."""
    max_turns: int = prompts.MAX_TURNS
    limit: int = 0
    """Only the first N usable chats in file order (a limited run, benchwright/scope.py); 0: every chat."""


def limited_config(limit: int) -> dict[str, dict]:
    """Run config by asset that keeps only the first `limit` items (chats) of this benchmark (`dev.py run --limit`)."""
    return {"mmmt_if_source_chats": {"limit": limit}}


@dg.asset(
    deps=[files_source("mmmt_if_dataset_files")],
    group_name="datasets",
    code_version=steps.code_version(mmmt_if_loader),
    automation_condition=LOAD_WHEN_MISSING,
    kinds={"duckdb"},
    description="MMMT-IF source chats (benchwright/mmmt_if/README.md#chats-and-instructions), before instructions: plain multi-turn chats from the "
                "configured file, filtered (a corrupt or missing image, more than 5 images or a skipped turn drops "
                "a chat; more than 20 turns are cut). Images are normalized and content-hashed into `images`; "
                "dropped chats go to `dataset_problems` with where and why.",
)
def mmmt_if_source_chats(context: dg.AssetExecutionContext, config: MMMTIFSourceConfig,
                         warehouse: Warehouse) -> dg.MaterializeResult:
    path = repo_path(config.path)
    candidates, problems = load_chats(path)
    prepared = prepare_chats(candidates, path.name, max_turns=config.max_turns)
    problems = [*problems, *prepared.problems]
    if config.limit:
        prepared.chats = prepared.chats[:config.limit]
        kept = {sha for chat in prepared.chats for sha in chat.image_hashes}
        prepared.images = {sha: image for sha, image in prepared.images.items() if sha in kept}
    record_problems(context, warehouse, problems, "mmmt_if", path.name, replace_whole_benchmark=True)
    if not prepared.chats:
        raise dg.Failure(f"No usable MMMT-IF chat in {path} ({len(problems)} problems; first: {problems[:1]})")
    chats_df = pd.DataFrame([
        {"chat_id": c.chat_id, "dataset": path.name, "topic": c.topic, "questions": c.questions,
         "image_hashes": c.image_hashes, "truncated": c.chat_id in prepared.truncated}
        for c in prepared.chats
    ])
    images_df = pd.DataFrame([{"sha256": i.sha256, "mime": i.mime, "width": i.width, "height": i.height, "data": i.data}
                              for i in prepared.images.values()])
    new_images = warehouse.add_images(images_df)
    warehouse.replace_rows("mmmt_if_source_chats", chats_df, match={})
    context.log.info(f"{len(chats_df)} chats, {len(images_df)} images, {len(problems)} problems")
    return dg.MaterializeResult(metadata=table_metadata(
        chats_df.assign(turns=chats_df["questions"].map(len), images=chats_df["image_hashes"].map(len)),
        ["chat_id", "topic", "turns", "images", "truncated"],
        images=len(images_df), new_images=new_images, problems=len(problems), refused_records=len(problems),
        source=shown_path(path),
    ))


class MMMTIFChatSetConfig(dg.Config):
    seed: int = 0
    """Seed of the instruction-insertion process (benchwright/mmmt_if/README.md#chats-and-instructions)."""


@dg.asset(
    group_name="datasets",
    deps=[mmmt_if_source_chats],
    code_version=steps.code_version(chat_set),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="The MMMT-IF chat set: instructions inserted into the source chats with the seeded process of "
                "benchwright/mmmt_if/README.md#chats-and-instructions (before each question, with probability 1 − given/6, a new category then an option, "
                "uniformly). Writes `mmmt_if_chats`, `mmmt_if_turns` and `mmmt_if_turn_instructions` (the "
                "instructions in force at each turn).",
)
def mmmt_if_chats(context: dg.AssetExecutionContext, config: MMMTIFChatSetConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    source = warehouse.query_file("mmmt_if/queries/source_chats.sql")
    if source.empty:
        raise dg.Failure("No MMMT-IF source chats in the warehouse: materialize `mmmt_if_source_chats` first")
    chats = [chat_set.Chat(r.chat_id, list(r.questions), list(r.image_hashes), r.topic or "", r.dataset)
             for r in source.itertuples(index=False)]
    turns = [row for chat in chats for row in chat_set.turn_rows(chat, config.seed)]
    in_force_last = {row["chat_id"]: row["n_instructions"] for row in turns}
    chats_df = source.drop(columns=["questions"]).assign(
        n_turns=source["questions"].map(len), n_images=source["image_hashes"].map(len),
        n_instructions=source["chat_id"].map(in_force_last), seed=config.seed)
    turns_df = pd.DataFrame(turns)
    instructions_df = pd.DataFrame(chat_set.instruction_rows(turns))
    warehouse.replace_rows("mmmt_if_chats", chats_df, match={})
    warehouse.replace_rows("mmmt_if_turns", turns_df, match={})
    warehouse.replace_rows("mmmt_if_turn_instructions", instructions_df, match={})
    context.log.info(f"{len(chats_df)} chats, {len(turns_df)} turns, {len(instructions_df)} instructions in force")
    return dg.MaterializeResult(metadata=table_metadata(
        chats_df, ["chat_id", "n_turns", "n_images", "n_instructions"],
        turns=len(turns_df), seed=config.seed,
        instructions_inserted=dg.MetadataValue.json(turns_df["inserted_instruction"].dropna().value_counts().to_dict()),
    ))


def _chat_inputs(warehouse: Warehouse) -> tuple[dict[str, list[dict]], dict[str, list[str]]]:
    """Turn rows grouped by chat (in turn order) and each chat's images (ImageRefs, read when a request is sent)."""
    with warehouse.together():
        turns = warehouse.query_file("mmmt_if/queries/turns.sql")
        chats = warehouse.query_file("mmmt_if/queries/chat_pictures.sql")
        url_by_hash = image_refs(warehouse, [{"image_hashes": list(hashes)} for hashes in chats["image_hashes"]])
    by_chat: dict[str, list[dict]] = {}
    for row in turns.to_dict("records"):
        row["instructions_in_force"] = list(row["instructions_in_force"])
        by_chat.setdefault(row["chat_id"], []).append(row)
    urls = {chat_id: [url_by_hash[h] for h in hashes] for chat_id, hashes in zip(chats["chat_id"], chats["image_hashes"])}
    return by_chat, urls


# --- generations -------------------------------------------------------------------------------------

class MMMTIFGenerationConfig(dg.Config):
    samples: int = 4
    """N responses per turn (benchwright/mmmt_if/README.md#generation), with the model's registry parameters."""
    instructions_appended: bool = True
    """Also run the instructions-appended ablation (variant `instructions_appended`)."""


@dg.asset(
    check_specs=[failed_calls_spec("mmmt_if_generations", models_partitions)],
    group_name="generations",
    deps=[model_entries, mmmt_if_chats, mmmt_if_source_chats],  # turns from the chat set, images from the source load
    partitions_def=models_partitions,
    code_version=steps.prompt_code_version(prompts.CANDIDATE_PROMPT_VERSION, prompts),
    kinds={"duckdb"},
    description="One model's answers to every MMMT-IF turn (partition: model), turn by turn: each answer sees "
                "the model's own earlier answers, the images come with the first user turn, N samples per turn, "
                "plus the instructions-appended variant. All chats' turn k go in one batch of the cached LLM "
                "client, so re-materializing repeats nothing. A failed turn is recorded and the chat goes on.",
)
def mmmt_if_generations(context: dg.AssetExecutionContext, config: MMMTIFGenerationConfig, warehouse: Warehouse,
                        llm: LLMClient, registry: Registry) -> dg.MaterializeResult:
    if config.samples < 1:
        raise dg.Failure(f"samples must be at least 1, got {config.samples}")
    model = registry.model(context.partition_key)
    by_chat, urls = _chat_inputs(warehouse)
    if not by_chat:
        raise dg.Failure("No MMMT-IF turns in the warehouse: materialize `mmmt_if_chats` first")
    variants = prompts.VARIANTS if config.instructions_appended else (prompts.STANDARD,)
    history: dict[str, list] = {chat_id: [] for chat_id in by_chat}
    frames, batches = [], []
    last_turn = max(len(rows) for rows in by_chat.values())
    started, next_line_s = time.monotonic(), 60.0
    for turn in range(1, last_turn + 1):
        plan = mmmt_if_steps.generation_plan(by_chat, turn, model, urls, history, config.samples, variants)
        # No progress lines per turn: the loop reports its own, below.
        results, stats = ask_models(context, llm, plan, [model], "mmmt_if", model.slug, log_progress=False)
        mmmt_if_steps.update_history(history, plan, results)
        frames.append(mmmt_if_steps.generation_rows(model, plan, results))
        batches.append(stats)
        # A long step says it is alive, as the LLM layer does: after 1, 2, 4 ... minutes, not every turn.
        if time.monotonic() - started >= next_line_s:
            next_line_s *= 2
            context.log.info(f"turn {turn} of {last_turn} done, {time.monotonic() - started:.0f} s")
    # One line for all turns (each log line is an event-log row kept for every run); the counts are in the metadata.
    merged = CallStats.merge(batches)
    context.log.info(f"{last_turn} turns: {sum(len(f) for f in frames)} requests, {merged.api_calls} calls, "
                     f"{merged.cache_hits} cache hits, {merged.errors} errors")
    df = pd.concat(frames, ignore_index=True)
    store_generations(warehouse, df, prompts.BENCHMARK, model.slug, registry)
    failed_history = sum(answer is None for answers in history.values() for answer in answers)
    return llm_result(context, table_metadata(
        df, ["item_id", "variant", "sample_index", "response", "error"],
        model=model.model, simulated=model.simulated, samples=config.samples, turns=last_turn,
        variants=dg.MetadataValue.json(list(variants)), turns_without_answer=failed_history,
    ), merged)


# --- programmatic scoring and autorater ----------------------------------------------------------

@dg.asset(
    group_name="judgments",
    deps=[mmmt_if_generations, mmmt_if_chats],
    partitions_def=models_partitions,
    code_version=steps.code_version(mmmt_if_steps, instruction_following),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Programmatic instruction following (no judge), partition: model. Every stored MMMT-IF response "
                "of the model checked against every instruction in force at its turn "
                "(benchwright.mmmt_if.instruction_following). Writes `mmmt_if_turn_scores` (PIF per response; NULL "
                "for a failed call) and `mmmt_if_instruction_results`. Per model, so a new candidate is scored "
                "alone; a new chat set or checker code makes every model's scores stale.",
)
def mmmt_if_turn_scores(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    model = context.partition_key
    with warehouse.together():  # two reads on one attach
        generations = warehouse.query("SELECT model, item_id, variant, sample_index, response, error FROM generations "
                                      "WHERE benchmark = ? AND model = ?", [prompts.BENCHMARK, model])
        turns = warehouse.query("SELECT turn_id, chat_id, turn, instructions_in_force FROM mmmt_if_turns")
    scores, results = mmmt_if_steps.score_rows(generations, turns)
    warehouse.write_tables([("mmmt_if_turn_scores", scores, {"model": model}),
                            ("mmmt_if_instruction_results", results, {"model": model})])
    by_variant = scores.groupby("variant")["pif"].mean().round(4)
    return dg.MaterializeResult(metadata=table_metadata(
        scores, ["turn_id", "variant", "sample_index", "n_instructions", "n_followed", "pif"],
        instruction_results=len(results), failed_calls=int(scores["pif"].isna().sum()),
        mean_pif=dg.MetadataValue.json(by_variant.to_dict()),
    ))


@dg.asset(
    check_specs=[failed_calls_spec("mmmt_if_autorater_judgments", model_judge_partitions)],
    group_name="judgments",
    deps=[JUDGE_ENTRY, dg.AssetDep(mmmt_if_generations, partition_mapping=by_model), mmmt_if_chats],
    partitions_def=model_judge_partitions,
    code_version=steps.prompt_code_version(prompts.AUTORATER_PROMPT_VERSION, prompts),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Autorater judgments (benchwright/mmmt_if/README.md#autorater-and-preferences) of one model's first sample at every turn and variant by one "
                "judge: the 8 criteria as a dict. Raw text, scores, parse_ok and the parse problem are separate "
                "columns; a failed call has an error and is neither a judgment nor a parse failure.",
)
def mmmt_if_autorater_judgments(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient,
                                registry: Registry) -> dg.MaterializeResult:
    model_slug, judge_slug = model_and_judge(context)
    model, judge = registry.model(model_slug), registry.judge(judge_slug)
    with warehouse.together():  # the inputs' reads on one attach
        by_chat, urls = _chat_inputs(warehouse)
        generations = warehouse.query("SELECT item_id, variant, sample_index, response, error FROM generations "
                                      "WHERE benchmark = ? AND model = ?", [prompts.BENCHMARK, model.slug])
    plan, skipped = mmmt_if_steps.autorater_plan(by_chat, generations, judge, urls)
    if skipped:
        context.log.warning(f"{skipped} responses not judged: their generation call failed")
    results, stats = ask_models(context, llm, plan, [judge], "mmmt_if", model.slug, judge.slug)
    df = mmmt_if_steps.autorater_rows(model, judge, plan, results)
    store_flagged(warehouse, "mmmt_if_autorater_judgments", df, registry, match={"model": model.slug, "judge": judge.slug})
    return llm_result(context, table_metadata(
        df, ["turn_id", "variant", "instruction_following", "overall_quality", "parse_ok", "error"],
        parse_failures=int((~df["parse_ok"] & df["error"].isna()).sum()),
        skipped_failed_generations=skipped,
    ), stats)


# --- human ratings -------------------------------------------------------------------------------

class MMMTIFHumanConfig(dg.Config):
    folder: str = ""
    """CSV drop folder; empty means `<warehouse folder>/drops/mmmt_if_human` (watched by the sensor)."""


def human_drop_folder(warehouse: Warehouse, configured: str = "") -> Path:
    """Where human-rating CSVs are dropped: next to the warehouse unless configured."""
    return paths.drop_folder(warehouse.database, declaration.HUMAN_DROPS, configured)


@dg.asset(
    deps=[files_source("mmmt_if_human_files")],
    group_name="datasets",
    code_version=steps.code_version(mmmt_if_loader),
    # Loaded once by itself (an empty folder gives empty tables, so the metrics do not wait on it);
    # after that, the sensor requests it when the folder changes.
    automation_condition=LOAD_WHEN_MISSING,
    kinds={"duckdb"},
    description="Human instruction-following ratings (1-10) and pairwise preferences for MMMT-IF responses, read "
                "from every CSV in the drop folder (layouts in benchwright/mmmt_if/loader.py). Requested by "
                "`mmmt_if_human_ratings_sensor` when a file is added or changed; bad rows are recorded in "
                "`dataset_problems` with file and line.",
)
def mmmt_if_human_ratings(context: dg.AssetExecutionContext, config: MMMTIFHumanConfig,
                          warehouse: Warehouse) -> dg.MaterializeResult:
    folder = human_drop_folder(warehouse, config.folder)
    human = mmmt_if_loader.load_human_folder(folder)
    record_problems(context, warehouse, human.problems, "mmmt_if_human", str(folder), replace_whole_benchmark=True)
    warehouse.replace_rows("mmmt_if_human_ratings", human.ratings, match={})
    warehouse.replace_rows("mmmt_if_human_preferences", human.preferences, match={})
    return dg.MaterializeResult(metadata={
        "folder": dg.MetadataValue.path(str(folder)), "files": len(human.files), "ratings": len(human.ratings),
        "preferences": len(human.preferences), "problems": len(human.problems),
        "refused_records": len(human.problems),
    })


# --- metrics -----------------------------------------------------------------------------------------

def plots_folder(warehouse: Warehouse) -> Path:
    """The folder next to the analyst snapshot where the charts are written."""
    snapshot = Path(warehouse.snapshot_path or f"{Path(warehouse.database).with_suffix('')}.analyst.duckdb")
    folder = snapshot.resolve().parent / "plots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _plot_metadata(warehouse: Warehouse, png: bytes, name: str, alt: str) -> dict:
    path = plots_folder(warehouse) / name
    path.write_bytes(png)
    return {"chart": dg.MetadataValue.md(data_url_markdown(png, alt)),
            "chart_path": dg.MetadataValue.path(str(path))}


def _scored_responses(warehouse: Warehouse) -> pd.DataFrame:
    return warehouse.query("SELECT * FROM mmmt_if_turn_scores")


def _contexts(responses: pd.DataFrame) -> pd.DataFrame:
    return pif.contexts(responses) if len(responses) else pd.DataFrame(columns=pif.CONTEXT_COLUMNS)


@dg.asset(
    group_name="metrics",
    deps=[model_labels, mmmt_if_turn_scores],  # models' labels only: no judge scores PIF
    code_version=steps.code_version(pif, comparisons),
    automation_condition=EAGER,
    kinds={"duckdb"},
    metadata=explorer_metadata("mmmt_if"),
    description="PIF metrics per model and variant (benchwright/mmmt_if/README.md#scoring): corpus PIF with conservative 95% bounds, "
                "PIF-IQR-N and PIF-N-N (`mmmt_if_summary`), PIF by turn, by number of instructions and per "
                "instruction with bounds, PIF-N-K for K = 1..N, and the instructions-appended uplift. The PIF-by-"
                "turn chart is attached and written next to the analyst snapshot.",
)
def mmmt_if_pif_metrics(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    responses = _scored_responses(warehouse)
    results = warehouse.query("SELECT * FROM mmmt_if_instruction_results")
    contexts = _contexts(responses)
    labels = _Labels(registry)
    summary = pif.summary(contexts)
    tables = {
        "mmmt_if_summary": summary,
        "mmmt_if_pif_by_turn": pif.pif_by_turn(contexts),
        "mmmt_if_pif_by_count": pif.pif_by_instruction_count(contexts),
        "mmmt_if_pif_by_instruction": pif.pif_by_instruction(results),
        "mmmt_if_pif_n_k": pif.pif_n_k(contexts),
        "mmmt_if_uplift": comparisons.appended_uplift(contexts, summary),
    }
    for table, df in tables.items():
        warehouse.replace_rows(table, add_labels(df, labels, DISPLAY), match={})
    png = mmmt_if_plots.pif_by_turn_chart(tables["mmmt_if_pif_by_turn"])
    labelled = add_labels(summary, labels, DISPLAY).sort_values(["variant", "pif"], ascending=[False, False])
    return dg.MaterializeResult(metadata={
        **table_metadata(labelled, ["model_display", "variant", "pif", "pif_lower", "pif_upper", "pif_n_n",
                                    "pif_iqr_n", "failed"]),
        **_plot_metadata(warehouse, png, "mmmt_if_pif_by_turn.png", "PIF by turn"),
        "uplift": dg.MetadataValue.md(markdown_table(tables["mmmt_if_uplift"])),
        "n_k_violations": dg.MetadataValue.json(pif.n_k_violations(tables["mmmt_if_pif_n_k"])),
        "aggregation": "context = (model, variant, chat, turn); its PIF = mean of its samples; corpus PIF = mean "
                       "over contexts; bounds p ± 1.96·sqrt(p(1−p)/n), n = contexts",
    })


@dg.asset(
    group_name="metrics",
    deps=[mmmt_if_turn_scores],
    code_version=steps.code_version(comparisons),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Model comparisons on PIF (benchwright/mmmt_if/README.md#comparing-models): empirical CDFs of the response PIF per model, variant "
                "and turn (`mmmt_if_ecdf`), stochastic-dominance verdicts per model pair (`mmmt_if_dominance`) "
                "and one-sided Wilcoxon signed-rank p-values on paired per-turn PIF (`mmmt_if_wilcoxon`). The "
                "ECDF chart is attached and written next to the analyst snapshot.",
)
def mmmt_if_model_comparisons(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    responses = _scored_responses(warehouse)
    contexts = _contexts(responses)
    ecdf = comparisons.ecdf(responses)
    dominance = comparisons.dominance(responses)
    wilcoxon = comparisons.wilcoxon_pairs(contexts)
    warehouse.replace_rows("mmmt_if_ecdf", ecdf, match={})
    warehouse.replace_rows("mmmt_if_dominance", dominance, match={})
    warehouse.replace_rows("mmmt_if_wilcoxon", wilcoxon, match={})
    png = mmmt_if_plots.ecdf_chart(ecdf)
    return dg.MaterializeResult(metadata={
        **table_metadata(dominance, ["variant", "model_a", "model_b", "turns", "verdict"]),
        "wilcoxon": dg.MetadataValue.md(markdown_table(wilcoxon)),
        **_plot_metadata(warehouse, png, "mmmt_if_ecdf.png", "ECDF of response PIF"),
    })


class MMMTIFPreferencesConfig(dg.Config):
    bootstrap_rounds: int = 1000
    """Bootstrap rounds for the rating bounds (0: no bounds), each resampling contexts (chat, turn) with all
    their battles; every (judge, variant) is fitted apart."""
    seed: int = 0
    """The bootstrap's seed, stored with the ratings: the same seed gives the same bounds."""


@dg.asset(
    group_name="metrics",
    deps=[registry_labels, mmmt_if_autorater_judgments, mmmt_if_turn_scores],
    code_version=steps.code_version(preferences, ratings),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Autorater preferences (benchwright/mmmt_if/README.md#autorater-and-preferences): preference score = (8 criteria + 20·PIF)/28 per judged "
                "response, win/tie/loss per turn for every model pair (`mmmt_if_preferences`), Bradley-Terry "
                "ratings on the Elo scale with bootstrap bounds (`mmmt_if_ratings`, benchwright.ratings), and the "
                "judge self-preference table (`mmmt_if_self_preference`). Unparsed judgments take part in nothing.",
)
def mmmt_if_preferences(context: dg.AssetExecutionContext, config: MMMTIFPreferencesConfig, warehouse: Warehouse,
                        registry: Registry) -> dg.MaterializeResult:
    judgments = warehouse.query("SELECT * FROM mmmt_if_autorater_judgments")
    responses = _scored_responses(warehouse)
    scores = preferences.preference_scores(judgments, responses)
    outcomes = preferences.pairwise_outcomes(scores)
    win_tie_loss = preferences.win_tie_loss(outcomes)
    rating_df, unrated = preferences.rating_tables(outcomes, config.bootstrap_rounds, config.seed)
    for line in unrated:
        context.log.warning(line)
    families = {e.slug: e.family_name for kind in ("models", "judges")
                for e in registry.entries(kind)}
    parsed = judgments[judgments["parse_ok"].astype(bool) & judgments["error"].isna()]
    self_pref = preferences.self_preference(parsed, families)
    warehouse.replace_rows("mmmt_if_preference_scores", scores, match={})
    warehouse.replace_rows("mmmt_if_preferences", win_tie_loss, match={})
    warehouse.replace_rows("mmmt_if_ratings", add_labels(rating_df, _Labels(registry), DISPLAY), match={})
    warehouse.replace_rows("mmmt_if_self_preference", self_pref, match={})
    return dg.MaterializeResult(metadata={
        **table_metadata(rating_df.sort_values(["judge", "variant", "rating"], ascending=[True, True, False]),
                         ["judge", "variant", "model", "rating", "rating_lower", "rating_upper", "wins", "ties",
                          "losses"]),
        "preferences": dg.MetadataValue.md(markdown_table(win_tie_loss)),
        "unscored_judgments": int(scores["preference"].isna().sum()),
        "aggregation": "preference = (sum of 8 criteria + 20·PIF) / 28 on sample 0; per turn the higher wins, "
                       "equal is a tie; ratings: Bradley-Terry, ties half a win, mean 1000, "
                       f"{config.bootstrap_rounds} bootstrap rounds for the bounds",
    })


@dg.asset(
    group_name="metrics",
    deps=[mmmt_if_human_ratings, mmmt_if_turn_scores],
    code_version=steps.code_version(alignment),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Human alignment of PIF (benchwright/mmmt_if/README.md#alignment-with-people): Pearson correlation of PIF with human instruction-"
                "following ratings, overall and per model, and the share of human pairwise preferences that "
                "agree with the PIF order. Empty until ratings are dropped in the human-ratings folder.",
)
def mmmt_if_human_alignment(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    human = warehouse.query("SELECT * FROM mmmt_if_human_ratings")
    human_preferences = warehouse.query("SELECT * FROM mmmt_if_human_preferences")
    table = alignment.human_alignment(human, human_preferences, _scored_responses(warehouse))
    warehouse.replace_rows("mmmt_if_human_alignment", table, match={})
    return dg.MaterializeResult(metadata=table_metadata(table, list(table.columns),
                                                        human_ratings=len(human), human_preferences=len(human_preferences)))


# --- integrity canaries (benchwright/canaries.py): judged by assets/canaries.py, one judge at a time ------------

def judge_canaries(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient, registry: Registry,
                   judge, entries) -> tuple[pd.DataFrame, pd.DataFrame, CallStats]:
    """Each canary's fixed answer as the model's answer at every turn of the first turns (by turn id: the first
    chats from their first turn, so each judged turn's history is the canary's own earlier answers), standard
    variant, rated by the autorater's own prompt and parser (`mmmt_if_steps.autorater_plan`, `autorater_rows`) and
    checked by the instruction checkers (code, no call: `mmmt_if_steps.score_rows`). A unit's value is MMMT-IF's
    preference score of the response, (8 criteria + 20 x PIF) / 28 (`preferences.preference_scores`), compared
    with the candidates' on the same turns."""
    by_chat, urls = _chat_inputs(warehouse)
    chosen = canaries.subset(row["turn_id"] for rows in by_chat.values() for row in rows)
    turns = pd.DataFrame([row for rows in by_chat.values() for row in rows])
    answers, plans = {}, {}
    for entry in entries:
        answers[entry.slug] = pd.DataFrame({"model": entry.slug, "item_id": chosen, "variant": prompts.STANDARD,
                                            "sample_index": 0, "response": canaries.answer(entry.canary_kind),
                                            "error": None})
        plans[entry.slug] = mmmt_if_steps.autorater_plan(by_chat, answers[entry.slug], judge, urls)[0]
    flat = [p for plan in plans.values() for p in plan]
    results, stats = ask_models(context, llm, flat, [judge], prompts.BENCHMARK,
                                who=[(slug, judge.slug) for slug, plan in plans.items() for _ in plan])
    found, answered = [], canaries.per_canary(plans, results)
    for entry in entries:
        plan, mine = plans[entry.slug], answered[entry.slug]
        rows = mmmt_if_steps.autorater_rows(entry, judge, plan, mine)
        scored = preferences.preference_scores(rows, mmmt_if_steps.score_rows(answers[entry.slug], turns)[0])
        values = [None if pd.isna(score) else float(score) for score in scored["preference"]]
        found.append(canaries.units(rows.rename(columns={"turn_id": "item_id"}), judge=judge.slug,
                                    benchmark=prompts.BENCHMARK, model=entry.slug, kind=entry.canary_kind,
                                    values=values, request_keys=[r.key for r in mine]))
    comparison = warehouse.query_file(CANARY_COMPARISON_SQL, [preferences.PIF_WEIGHT, judge.slug, chosen,
                                                              [e.slug for e in registry.candidates()]])
    return canaries.units_table(found), comparison, stats


CANARY_COMPARISON_SQL = "mmmt_if/queries/canary_comparison.sql"
# The null figure is the preference of a response rated at the middle of the 1-10 scale on every criterion that
# follows half its instructions: (8 x 5.5 + 20 x 0.5) / 28.
CANARY_JUDGING = canaries.CanaryJudging(
    benchmark=prompts.BENCHMARK, metric="preference", null_figure=(8 * 5.5 + preferences.PIF_WEIGHT * 0.5)
    / (8 + preferences.PIF_WEIGHT), multimodal=True, judge=judge_canaries,
    deps=(mmmt_if_chats, dg.AssetDep(mmmt_if_autorater_judgments, partition_mapping=by_judge),
          dg.AssetDep(mmmt_if_turn_scores, partition_mapping=dg.AllPartitionMapping())),
    modules=(prompts, mmmt_if_steps, preferences, instruction_following), files=(paths.sql_file(CANARY_COMPARISON_SQL),))
