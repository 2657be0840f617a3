"""Interop: import other tools' judgments and human labels; ratings, win rates and agreement.

Thin wiring: parsing lives in benchwright.importers, the statistics in benchwright.ratings and
benchwright.agreement. Imported judgments go to `creation_pairwise_judgments` with
`source = '<importer>:<dataset>'`, next to our own (`source = 'benchwright'`).

Imports are explicit: each import asset writes only when its run config says `enabled: true`
(the main job materializes every asset and must not pull other tools' data into the demo). Its
file paths default to the public files in `../shared/data/external/` when they are present.
Every file is parsed before anything is written, and all of an import's rows are written in one
transaction. One bad record never voids a file: each refused record is a located `dataset_problems` row
(benchmark 'interop', dataset = the source, location `<file>:<line>`), written in the same transaction,
and the asset's metadata counts them (`refused_records`). Only a file that cannot be read at all fails
the run, and then the warehouse is left as it was.
"""

import glob
from datetime import datetime, timezone
from pathlib import Path

import dagster as dg
import pandas as pd

from assets.sources import registry_labels
from assets.common import EAGER, LOAD_WHEN_MISSING, add_labels, explorer_metadata, flagged_rows, log_first, repo_path, stored_problems, table_metadata
from assets.creation import PANEL_JUDGMENTS, creation_pairwise_judgments
from benchwright import agreement, importers, length_control, ratings, steps
from benchwright.mmmt_if import release as release_method
from benchwright.importers import ImportedSet, ImportFormatError, alpaca_eval, arena_hard, pairwise_human
from benchwright.importers.alpaca_eval import import_alpaca_eval
from benchwright.importers.arena_hard import import_arena_hard
from benchwright.importers import mmmt_if_release
from benchwright.importers.mmmt_if_release import import_mmmt_if_release
from benchwright.importers.pairwise_human import import_auto_j, import_llmbar, load_scenario_groups
from benchwright.paths import sql_file
from resources.registry import Registry
from resources.warehouse import Warehouse

EXTERNAL = "../shared/data/external"
IMPORT_TABLES = ("creation_pairwise_judgments", "interop_human_labels", "interop_preferences", "answer_style",
                 "interop_imports")
PROBLEMS_BENCHMARK = "interop"  # dataset_problems.benchmark of refused imported records; dataset = the source
ENABLE_HINT = "Imports run only when asked: materialize with run config `enabled: true`."
IMPORTER_MODULES = (alpaca_eval, arena_hard, pairwise_human)
PAIRWISE_SQL = "core/queries/interop/pairwise_for_ratings.sql"
STYLE_ANSWERS_SQL = "core/queries/interop/creation_answers_for_style.sql"


def _paths(patterns: list[str]) -> list[Path]:
    """Files matching the patterns (relative to the repo root; `**` recurses), or a clear failure."""
    found = []
    for pattern in patterns:
        pattern = str(repo_path(pattern))
        found += [Path(p) for p in sorted(glob.glob(pattern, recursive=True)) if Path(p).is_file()]
    if not found:
        raise dg.Failure(f"No file matches {patterns}. The defaults point at ../shared/data/external/, which is "
                         f"not present here: set `paths` in the run config to your own files.")
    return list(dict.fromkeys(found))


def _one_path(path: str, what: str) -> Path:
    resolved = repo_path(path)
    if not resolved.is_file():
        raise dg.Failure(f"{what} not found: {resolved}. The defaults point at ../shared/data/external/; set it "
                         f"in the run config to your own file.")
    return resolved


def _parse(read):
    """Run an importer; a file that cannot be read at all fails the run with its location (a bad record does
    not: the importer refuses it into its problems)."""
    try:
        return read()
    except ImportFormatError as error:
        raise dg.Failure(f"Nothing imported: {error}", metadata={"file": error.path, "line": error.line or 0}) from error


def _write(warehouse: Warehouse, sets: list[ImportedSet], registry: Registry) -> None:
    """Replace the imported sources' rows in every import table, in one transaction; the verdicts flagged like
    ours (`flagged_rows`: a file's model and judge names are no registry entry, so they read as real)."""
    sources = [s.source for s in sets]
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    frames = {
        "creation_pairwise_judgments": flagged_rows("creation_pairwise_judgments",
                                                    pd.concat([s.judgments for s in sets], ignore_index=True), registry),
        "interop_human_labels": pd.concat([s.human_labels for s in sets], ignore_index=True),
        "interop_preferences": pd.concat([s.preferences for s in sets], ignore_index=True),
        "answer_style": pd.concat([s.answer_style for s in sets], ignore_index=True),
        "interop_imports": pd.DataFrame([{
            "source": s.source, "importer": s.importer, "dataset": s.dataset, "baseline": s.baseline,
            "files": s.files, "judgments": len(s.judgments), "parse_failures": s.parse_failures,
            "human_labels": len(s.human_labels), "preferences": len(s.preferences), "notes": "; ".join(s.notes),
            "imported_at": now} for s in sets]),
    }
    problems = pd.concat([stored_problems(s.problems, PROBLEMS_BENCHMARK, s.source) for s in sets], ignore_index=True)
    warehouse.write_tables([(table, frames[table], {"source": sources}) for table in IMPORT_TABLES]
                           + [("dataset_problems", problems, {"benchmark": PROBLEMS_BENCHMARK, "dataset": sources})])


def _log_refused(context: dg.AssetExecutionContext, source: str, problems: list) -> None:
    log_first(context.log.warning, [f"{source}: refused {p.location}: {p.reason}" for p in problems],
              "the dataset_problems table")


def _result(context: dg.AssetExecutionContext, warehouse: Warehouse, sets: list[ImportedSet],
            registry: Registry) -> dg.MaterializeResult:
    _write(warehouse, sets, registry)
    summary = pd.DataFrame([{"source": s.source, "files": len(s.files), "judgments": len(s.judgments),
                             "parse_failures": s.parse_failures, "human_labels": len(s.human_labels),
                             "refused_records": s.refused, "baseline": s.baseline, "notes": "; ".join(s.notes)}
                            for s in sets])
    for s in sets:
        context.log.info(f"imported {s.source}: {len(s.judgments)} judgments ({s.parse_failures} unparsed), "
                         f"{len(s.human_labels)} human labels from {len(s.files)} files; {s.refused} records refused")
        _log_refused(context, s.source, s.problems)
    return dg.MaterializeResult(metadata=table_metadata(
        summary, judgments=int(summary["judgments"].sum()), parse_failures=int(summary["parse_failures"].sum()),
        refused_records=int(summary["refused_records"].sum()), sources=dg.MetadataValue.json([s.source for s in sets])))


def _skipped(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
    context.log.info(f"import not enabled; nothing written. {ENABLE_HINT}")
    return dg.MaterializeResult(metadata={"enabled": False, "note": ENABLE_HINT})


# --- imports -----------------------------------------------------------------------------------------

def import_asset(name: str, config_type: type[dg.Config], read, description: str) -> dg.AssetsDefinition:
    """An import asset: when its config says ``enabled``, ``read(config)`` parses every file into
    ImportedSets (a file that cannot be read fails the run with its location; a bad record is refused into
    `dataset_problems`) and all are written in one transaction."""

    @dg.asset(
        name=name,
        group_name="judgments",
        code_version=steps.code_version(importers, *IMPORTER_MODULES),
        kinds={"duckdb"},
        # Materialized once (a no-op while disabled) so eager assets downstream are never left waiting.
        automation_condition=LOAD_WHEN_MISSING,
        description=description,
    )
    def _import(context: dg.AssetExecutionContext, config: config_type, warehouse: Warehouse,
                registry: Registry) -> dg.MaterializeResult:
        if not config.enabled:
            return _skipped(context)
        return _result(context, warehouse, _parse(lambda: read(config)), registry)

    return _import


class ImportConfig(dg.Config):
    enabled: bool = False
    """Write the import. Off by default: the main job must not pull external data into the demo."""


class ArenaHardImportConfig(ImportConfig):
    paths: list[str] = [f"{EXTERNAL}/ko-arena-hard-auto/data/ko-arena-hard-v0.1/model_judgment/ensemble/*.jsonl"]
    """Judgment JSONL files or globs (relative to the repo root)."""
    dataset: str = "ko-arena-hard-v0.1"
    baseline: str = "claude-3.7-sonnet"
    """The model every record was compared with (in Arena-Hard's judge config, not in its files)."""
    style_metadata: str = f"{EXTERNAL}/ko-arena-hard-auto/answer_style_metadata.csv"
    """The answers' style counts (Arena-Hard's conv_metadata as a CSV) for style-controlled ratings; empty: none."""


interop_arena_hard = import_asset(
    "interop_arena_hard", ArenaHardImportConfig,
    lambda config: [import_arena_hard(_paths(config.paths), config.dataset, config.baseline,
                                      _one_path(config.style_metadata, "style metadata") if config.style_metadata
                                      else None)],
    "Imports Arena-Hard judgment JSONL (game 1: baseline is A = our order 1; game 2 swapped) into "
    "creation_pairwise_judgments with source 'arena_hard:<dataset>'. Runs only with `enabled: true`; "
    "defaults to ko-arena-hard-auto's ensemble judgments. A bad record is refused (dataset_problems); "
    "only a file that cannot be read fails the run, writing nothing.")


class AlpacaEvalImportConfig(ImportConfig):
    paths: list[str] = [f"{EXTERNAL}/alpaca_eval/results/*/*/annotations.json"]
    """annotations.json files or globs (relative to the repo root); one source per annotator."""


interop_alpaca_eval = import_asset(
    "interop_alpaca_eval", AlpacaEvalImportConfig, lambda config: import_alpaca_eval(_paths(config.paths)),
    "Imports AlpacaEval annotations (baseline first = our order 1) into creation_pairwise_judgments, "
    "source 'alpaca_eval:<annotator>', and keeps the graded preferences in interop_preferences. "
    "Runs only with `enabled: true`. A bad record is refused (dataset_problems); "
    "only a file that cannot be read fails the run, writing nothing.")


class AutoJImportConfig(ImportConfig):
    pairs: str = f"{EXTERNAL}/auto-j/data/test/testdata_pairwise.jsonl"
    original: str = f"{EXTERNAL}/auto-j/data/outputs/pairwise_example_output.jsonl"
    swapped: str = f"{EXTERNAL}/auto-j/data/outputs/pairwise_exchange_example_output.jsonl"
    """The judge's outputs on the swapped pairs, not mapped back (0 = the response shown first)."""
    scenario_groups: str = f"{EXTERNAL}/auto-j/scenario_groups.json"
    """Scenario -> group mapping; empty: the scenario is the group."""
    judge: str = "auto-j-13b"
    dataset: str = ""
    """Empty: the pairs file's name."""


def _read_auto_j(config: AutoJImportConfig) -> list[ImportedSet]:
    pairs, original, swapped = (_one_path(config.pairs, "pairs file"), _one_path(config.original, "original-order outputs"),
                                _one_path(config.swapped, "swapped-order outputs"))
    groups_path = _one_path(config.scenario_groups, "scenario groups file") if config.scenario_groups else None
    return [import_auto_j(pairs, original, swapped, config.judge, config.dataset or None,
                          load_scenario_groups(groups_path) if groups_path else None)]


interop_auto_j = import_asset(
    "interop_auto_j", AutoJImportConfig, _read_auto_j,
    "Imports an Auto-J-style triple (human-labelled pairs, the judge's outputs in the original and in "
    "the swapped order) into creation_pairwise_judgments and interop_human_labels, source "
    "'auto_j:<dataset>'. Runs only with `enabled: true`. A bad record is refused (dataset_problems); "
    "only a file that cannot be read fails the run, writing nothing.")


class LLMBarImportConfig(ImportConfig):
    paths: list[str] = [f"{EXTERNAL}/llmbar/Dataset/**/evaluators/**/result.json"]
    """result.json files or globs in LLMBar's layout Dataset/<set>/evaluators/<judge>/result.json."""


interop_llmbar = import_asset(
    "interop_llmbar", LLMBarImportConfig, lambda config: import_llmbar(_paths(config.paths)),
    "Imports LLMBar evaluator runs (result.json: both orders, winners mapped back, gold labels) into "
    "creation_pairwise_judgments and interop_human_labels, source 'llmbar:<set>', judge "
    "'<model>/<method>'. Runs only with `enabled: true`. A bad record is refused (dataset_problems); "
    "only a file that cannot be read fails the run, writing nothing.")


IMPORT_ASSETS = [interop_arena_hard, interop_alpaca_eval, interop_auto_j, interop_llmbar]


class MMMTIFReleaseImportConfig(ImportConfig):
    path: str = f"{EXTERNAL}/mmmt-if/MMMT-IF_public_release_data.SAMPLE_first_40_rows.csv"
    """The MMMT-IF public release CSV (relative to the repo root)."""


RELEASE_TABLES = ("mmmt_if_release_responses", "mmmt_if_release_human_preferences")


@dg.asset(
    group_name="judgments",
    code_version=steps.code_version(importers, mmmt_if_release),
    kinds={"duckdb"},
    automation_condition=LOAD_WHEN_MISSING,
    description="Imports the MMMT-IF public release CSV (per conversation and turn: the cumulative instructions, "
                "8 autorater scores and PIF per model, pairwise preference columns) into "
                "mmmt_if_release_responses and mmmt_if_release_human_preferences, source "
                "'mmmt_if_release:<file stem>'. Multi-line cells are unwrapped, stray apostrophes around topic "
                "labels dropped, 0.5 preferences read as ties. Runs only with `enabled: true`; a bad record is "
                "refused (dataset_problems), and only a file that cannot be read fails the run, writing nothing.",
)
def interop_mmmt_if_release(context: dg.AssetExecutionContext, config: MMMTIFReleaseImportConfig,
                            warehouse: Warehouse) -> dg.MaterializeResult:
    if not config.enabled:
        return _skipped(context)
    release = _parse(lambda: import_mmmt_if_release(_one_path(config.path, "MMMT-IF release file")))
    problems = stored_problems(release.problems, PROBLEMS_BENCHMARK, release.source)
    warehouse.write_tables([("mmmt_if_release_responses", release.responses, {"source": release.source}),
                            ("mmmt_if_release_human_preferences", release.human_preferences, {"source": release.source}),
                            ("dataset_problems", problems, {"benchmark": PROBLEMS_BENCHMARK, "dataset": release.source})])
    for note in release.notes:
        context.log.info(f"{release.source}: {note}")
    _log_refused(context, release.source, release.problems)
    return dg.MaterializeResult(metadata={
        "source": release.source, "models": dg.MetadataValue.json(release.models),
        "responses": len(release.responses), "human_preferences": len(release.human_preferences),
        "pif_weight": release.pif_weight, "refused_records": release.refused, "notes": "; ".join(release.notes)})


class MMMTIFReleaseMetricsConfig(dg.Config):
    bootstrap_rounds: int = 1000  # each resamples contexts (chat, turn) with all their battles
    seed: int = 0  # stored with the ratings: the same seed gives the same bounds


@dg.asset(
    group_name="metrics",
    deps=[interop_mmmt_if_release],
    code_version=steps.code_version(release_method, release_method.pif, release_method.comparisons,
                                    release_method.preferences, release_method.alignment, ratings),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Our MMMT-IF metrics on each imported release (benchwright.mmmt_if.release): PIF by turn with "
                "bounds, ECDF dominance, preference score = (8 criteria + 20·PIF)/28 → win/tie/loss per turn and "
                "Bradley–Terry ratings, and the agreement of those outcomes with the file's pairwise preferences.",
)
def mmmt_if_release_metrics(context: dg.AssetExecutionContext, config: MMMTIFReleaseMetricsConfig,
                            warehouse: Warehouse) -> dg.MaterializeResult:
    responses = warehouse.query("SELECT * FROM mmmt_if_release_responses")
    human = warehouse.query("SELECT * FROM mmmt_if_release_human_preferences")
    tables: dict[str, list[pd.DataFrame]] = {table: [] for table in release_method.METRIC_TABLES}
    for source, rows in responses.groupby("source", sort=True):
        computed = release_method.release_metrics(
            rows, human[human["source"] == source], float(rows["pif_weight"].iloc[0]), config.bootstrap_rounds,
            config.seed)
        for table, frame in computed.items():
            tables.setdefault(table, []).append(frame.assign(source=source))
    # Every table is replaced, emptied when no release is imported any more: nothing outlives its source.
    warehouse.write_tables([(table, pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(), {})
                            for table, frames in tables.items()])
    agreement_rows = pd.concat(tables["mmmt_if_release_agreement"] or [pd.DataFrame()], ignore_index=True)
    return dg.MaterializeResult(metadata=table_metadata(
        agreement_rows, list(agreement_rows.columns), sources=dg.MetadataValue.json(sorted(set(responses["source"])))))


# --- metrics -----------------------------------------------------------------------------------------

class RatingsConfig(dg.Config):
    bootstrap_rounds: int = 1000
    """Bootstrap rounds over prompts (each round resamples prompts, all of a prompt's battles together)."""
    quantile_low: float = 0.025
    quantile_high: float = 0.975
    seed: int = 42
    arena_hard_strong_weight: float = 3.0
    """How many battles an A>>B / B>>A verdict counts for in arena_hard sources (Arena-Hard: 3)."""
    arena_hard_compatible: bool = True
    """In arena_hard sources, a record with one game reuses game 1 as game 2 (Arena-Hard's rule)."""
    controls: list[str] = list(ratings.CONTROLS)
    """Style controls to rate with (benchwright.ratings.CONTROLS): none, style, length, markdown."""


def _anchors(warehouse: Warehouse) -> dict[str, str]:
    """source -> baseline: imported sources with a baseline, and our own Creation judgments."""
    imports = warehouse.query("SELECT source, baseline FROM interop_imports WHERE baseline IS NOT NULL")
    anchors = dict(zip(imports["source"], imports["baseline"]))
    ours = warehouse.query("SELECT DISTINCT baseline FROM creation_references")["baseline"].tolist()
    anchors["benchwright"] = ours[0] if len(ours) == 1 else "baseline"
    return anchors


def _answer_style(warehouse: Warehouse, anchor: str) -> pd.DataFrame:
    """Style counts of every compared answer: imported ones as imported, our own Creation answers counted now.
    Our battles name the reference side by the anchor (``anchor``), so its answers carry that name here too:
    counted under the writer's slug they matched no battle and every style control was left empty."""
    answers = warehouse.query_file(STYLE_ANSWERS_SQL)
    answers["model"] = answers["model"].where(~answers["is_reference"].astype(bool), anchor)
    ours = pd.DataFrame([ratings.answer_style(text) for text in answers["answer"]],
                        columns=list(ratings.STYLE_FEATURES))
    ours = pd.concat([answers[["model", "item_id"]].reset_index(drop=True), ours], axis=1).assign(source="benchwright")
    return pd.concat([warehouse.query("SELECT * FROM answer_style"), ours[ratings.STYLE_COLUMNS]], ignore_index=True)


@dg.asset(
    group_name="metrics",
    deps=[registry_labels, creation_pairwise_judgments, PANEL_JUDGMENTS[0], *IMPORT_ASSETS],
    code_version=steps.code_version(ratings, files=[sql_file(q) for q in (PAIRWISE_SQL, STYLE_ANSWERS_SQL)]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    metadata=explorer_metadata("ratings"),
    description="Bradley–Terry ratings (Elo scale, baseline anchored at 1000) per source, judge and style control "
                "(none | style | length | markdown: answer length and markdown counts fitted jointly as covariates, "
                "Arena-Hard's method), with intervals from a seeded bootstrap over prompts, ranks by upper bound (1 + the models clearly above) and the win "
                "rate against the baseline, for our own and imported pairwise judgments. Ties count half a win for "
                "each side; arena_hard sources weight A>>B/B>>A x3.",
)
def interop_ratings(context: dg.AssetExecutionContext, config: RatingsConfig, warehouse: Warehouse,
                    registry: Registry) -> dg.MaterializeResult:
    judgments = warehouse.query_file(PAIRWISE_SQL)
    anchors = _anchors(warehouse)
    arena_hard = {s for s in anchors if s.startswith("arena_hard:")}
    weights = {s: ratings.arena_hard_weights(config.arena_hard_strong_weight) for s in arena_hard}
    table, problems = ratings.ratings_by_source(
        judgments, anchors, weights, reuse_single_game=arena_hard if config.arena_hard_compatible else set(),
        rounds=config.bootstrap_rounds, quantiles=(config.quantile_low, config.quantile_high), seed=config.seed,
        controls=config.controls, style=_answer_style(warehouse, anchors["benchwright"]))
    for problem in problems:
        context.log.warning(f"not rated: {problem}")
    table = add_labels(table, registry, {"model": "model_display", "judge": "judge_display"})
    warehouse.replace_rows("interop_ratings", table, match={})
    return dg.MaterializeResult(metadata=table_metadata(
        table, ["source", "judge", "control", "model", "rating", "rating_lower", "rating_upper", "win_rate", "rank",
                "at_bound"],
        not_rated=dg.MetadataValue.json(problems),
        aggregation=f"Bradley–Terry MLE (style controls {', '.join(config.controls)}); ties = half a win; "
                    f"{config.bootstrap_rounds} bootstrap rounds over prompts (seed {config.seed}); quantiles "
                    f"{config.quantile_low}/{config.quantile_high}; ranks: 1 + the models clearly above (benchwright.ratings.upper_bound_ranks)",
    ))


@dg.asset(
    group_name="metrics",
    deps=[interop_alpaca_eval],
    code_version=steps.code_version(ratings),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="AlpacaEval-style head-to-head figures from graded preferences: win rate (draws count half), "
                "standard error of the mean preference, wins, base wins, draws, discrete win rate.",
)
def interop_win_rates(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    table = ratings.win_rates_by_model(warehouse.query("SELECT * FROM interop_preferences"))
    warehouse.replace_rows("interop_win_rates", table, match={})
    return dg.MaterializeResult(metadata=table_metadata(
        table, ["source", "model", "win_rate", "standard_error", "n_wins", "n_draws", "n_total"]))


class LengthControlConfig(dg.Config):
    weights_dir: str = f"{EXTERNAL}/alpaca_eval/src/alpaca_eval/metrics/weights"
    """AlpacaEval's shared GLM weights, <annotator>/length_controlled_v1/baseline_<baseline>.csv below it;
    a missing folder or file means the length slope is fitted."""
    instruction_difficulty: str = ""
    """CSV with columns `instruction` and `instruction_difficulty` (AlpacaEval's per-instruction
    difficulty, joined to its evaluation set's instructions); empty: the difficulty term is left out."""


def _glm_weights(config: LengthControlConfig, pairs: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    found = {}
    for judge, baseline in pairs.itertuples(index=False):
        path = repo_path(config.weights_dir) / judge / "length_controlled_v1" / f"baseline_{baseline}.csv"
        if path.is_file():
            found[(judge, baseline)] = length_control.load_glm_weights(path)
    return found


def _instruction_difficulty(config: LengthControlConfig) -> dict[str, float] | None:
    if not config.instruction_difficulty:
        return None
    table = pd.read_csv(_one_path(config.instruction_difficulty, "instruction difficulty file"))
    return dict(zip(table["instruction"].map(alpaca_eval.item_id_for), table["instruction_difficulty"].astype(float)))


@dg.asset(
    group_name="metrics",
    deps=[interop_alpaca_eval],
    code_version=steps.code_version(length_control),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="AlpacaEval 2's length-controlled win rate per AlpacaEval source and model "
                "(benchwright.length_control): a GLM on each annotation with the model term, tanh of the "
                "standardized length difference and the instruction difficulty, predicted with the length term "
                "at zero and averaged. The length slope comes from AlpacaEval's shared weights where they have "
                "the model; the difficulty term only when a difficulty file is configured.",
)
def interop_lc_win_rates(context: dg.AssetExecutionContext, config: LengthControlConfig,
                         warehouse: Warehouse) -> dg.MaterializeResult:
    rows = warehouse.query_file("core/queries/interop/alpaca_preferences_with_lengths.sql")
    weights = _glm_weights(config, rows[["judge", "baseline"]].drop_duplicates())
    table = length_control.lc_win_rates(rows, weights, _instruction_difficulty(config))
    warehouse.replace_rows("interop_lc_win_rates", table, match={})
    return dg.MaterializeResult(metadata=table_metadata(
        table, ["source", "model", "lc_win_rate", "length_coef", "length_coef_from", "difficulty_used"],
        shared_weights=dg.MetadataValue.json([f"{judge} / {baseline}" for judge, baseline in weights])))


@dg.asset(
    group_name="metrics",
    deps=[registry_labels, creation_pairwise_judgments, interop_auto_j, interop_llmbar],
    code_version=steps.code_version(agreement),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Judge–human agreement per source, judge and item group: agreement with and without ties, "
                "both-orders agreement, swap consistency, Cohen's kappa, MAE and consistency on the −2..+2 "
                "scale (benchwright/creation/README.md#human-alignment, leave-one-out among people), Pearson and Spearman.",
)
def interop_agreement(context: dg.AssetExecutionContext, warehouse: Warehouse,
                      registry: Registry) -> dg.MaterializeResult:
    humans = warehouse.query("SELECT * FROM interop_human_labels")
    judgments = warehouse.query_file("core/queries/interop/pairwise_with_human_labels.sql")
    table = add_labels(agreement.agreement_table(judgments, humans), registry, {"judge": "judge_display"})
    warehouse.replace_rows("interop_agreement", table, match={})
    overall = table[table["item_group"] == agreement.OVERALL]
    return dg.MaterializeResult(metadata=table_metadata(
        table, preview=overall, preview_columns=["source", "judge", "items", "agreement", "agreement_both", "swap_consistency", "mae_dual"],
        aggregation="a judge failure counts as a disagreement; swap consistency over pairs with both orders parsed"))
