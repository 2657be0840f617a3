"""Wiring helpers shared by the asset modules: reading inputs, metadata for the UI."""


import dataclasses
import hashlib
import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

import dagster as dg
import pandas as pd

from assets.chosen import quiet
from benchwright import answer_injection
from benchwright.images import ImageRef, ImageSource, NormalizedImage
from benchwright.llm import CallStats, LLMResult
from benchwright.llm.failures import FAILED_CALLS_ERROR_SHARE, failed_calls, failed_share_severity, requests_of
from benchwright.pii import redacted
from benchwright.report import markdown_table
from benchwright.paths import ROOT, explorer_url, plugin_modules
from benchwright.steps import limits_for
from resources.llm import call_scope  # noqa: F401  (the asset modules take it from here)
from resources.warehouse import read_sql


# For dataset assets: on a fresh instance the daemon loads them by itself (on_missing() skips assets
# that were missing from the first evaluation on), and a failed load is not retried in a loop.
# The observable sources (assets/sources.py): registry entries and files, observed by the main job and the registry
# sensor.
INPUTS_GROUP = "inputs"
# eager() that looks past the sources: Dagster counts a source that was only observed as a missing dependency,
# which would hold every reader back.
with quiet():
    EAGER = dg.AutomationCondition.eager().ignore(dg.AssetSelection.groups(INPUTS_GROUP, include_sources=True))
LOAD_WHEN_MISSING = (dg.AutomationCondition.missing() & ~dg.AutomationCondition.in_progress()
                     & ~dg.AutomationCondition.execution_failed())


PROBLEM_COLUMNS = ["location", "field", "reason"]


def explorer_metadata(page: str) -> dict:
    """A leaderboard asset's link to its page in the web app's results explorer (web/explorer.py), shown in the
    Dagster UI with the asset's definition."""
    return {"explorer": dg.MetadataValue.url(explorer_url(page))}


def store_generations(warehouse, rows: pd.DataFrame, benchmark: str, model: str, registry) -> None:
    """Replace one model's answers to one benchmark in ``generations``, each answer flagged with the judge
    formats it contains (``injection_kinds``, read by the ``answer_injection`` check and the leaderboards) and
    with whether its model is a simulation (`flagged_rows`: `model_simulated`; an answer has no judge, so
    `judge_simulated` is NULL). Every generation asset stores through here, so no benchmark's answers go
    unflagged."""
    flagged = rows.assign(injection_kinds=[answer_injection.kinds_text(text) for text in rows["response"]])
    store_flagged(warehouse, "generations", flagged, registry, match={"benchmark": benchmark, "model": model})


def problems_frame(problems: list, benchmark: str, dataset: str) -> pd.DataFrame:
    """`dataset_problems` rows from LoadProblem objects or {location, reason[, field]} dicts; `field` is the
    column or key at fault as the file names it, None when the record (or file) as a whole is."""
    rows = [p if isinstance(p, dict) else {"location": p.location, "field": p.field, "reason": p.reason}
            for p in problems]
    frame = pd.DataFrame(rows, columns=PROBLEM_COLUMNS).assign(benchmark=benchmark, dataset=dataset)
    frame["field"] = frame["field"].astype(object).where(frame["field"].notna(), None)  # a dict without one: NULL
    return frame


# Log lines per list of row problems: each line is an event-log row kept for every run, and a bad file can have
# thousands; every problem is in the `dataset_problems` table (or the quarantine) either way.
MAX_PROBLEM_LINES = 10


def log_first(log: Callable[[str], None], lines: list[str], where_the_rest_are: str) -> None:
    """Log the first MAX_PROBLEM_LINES lines, then one line saying how many more there are and where."""
    for line in lines[:MAX_PROBLEM_LINES]:
        log(line)
    if len(lines) > MAX_PROBLEM_LINES:
        log(f"... and {len(lines) - MAX_PROBLEM_LINES} more, all in {where_the_rest_are}")


def stored_problems(problems: list, benchmark: str, dataset: str) -> pd.DataFrame:
    """`dataset_problems` rows as they are stored: a reason may quote the bad value (someone's text), so it is
    redacted like any other stored text."""
    frame = problems_frame(problems, benchmark, dataset)
    frame["reason"] = frame["reason"].map(redacted)
    frame["location"] = frame["location"].map(redacted)
    frame["field"] = frame["field"].map(lambda name: redacted(name) if isinstance(name, str) else None)
    return frame


def record_problems(context, warehouse, problems: list, benchmark: str, dataset: str, *,
                    replace_whole_benchmark: bool = False) -> None:
    """Log the first problems and replace their rows in `dataset_problems`: those of (benchmark, dataset), or all
    of the benchmark's when the asset owns them all (one source file at a time)."""
    frame = stored_problems(problems, benchmark, dataset)
    log_first(context.log.warning, [f"skipped {row.location}: {row.reason}" for row in frame.itertuples(index=False)],
              "the dataset_problems table")
    match = {"benchmark": benchmark} if replace_whole_benchmark else {"benchmark": benchmark, "dataset": dataset}
    warehouse.replace_rows("dataset_problems", frame, match=match)


def repo_path(path_text: str | Path) -> Path:
    """A configured path: absolute as given, relative to the repository root otherwise."""
    path = Path(path_text)
    return path if path.is_absolute() else ROOT / path


def shown_path(path: Path) -> str:
    """A path as metadata shows it: relative to the repository root when it lies inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def table_metadata(df: pd.DataFrame, preview_columns: list[str] | None = None, *, preview: pd.DataFrame | None = None,
                   **extra: Any) -> dict[str, Any]:
    """The written table's row count and a markdown preview, plus whatever the asset adds (LLM stats,
    problems). ``preview``: the rows to show when they are a part of the table (say, its overall rows);
    ``rows`` always counts the whole table."""
    shown = df if preview is None else preview
    shown = shown[preview_columns] if preview_columns else shown
    return {"rows": len(df), "preview": dg.MetadataValue.md(markdown_table(shown)), **extra}


def rows_version(warehouse, tables: list[str | tuple[str, dict]]) -> dg.DataVersion:
    """The data version of what an asset wrote: a hash of the rows of its tables (a table name, or (name, the
    column values of its own rows) when it owns a part of the table), computed in DuckDB in a stable order.

    Returned as ``MaterializeResult(data_version=...)``, it is what Dagster compares for the asset's readers:
    a re-run that wrote the same rows leaves them fresh (a game mark that changes no VQA item leaves every
    `gap_generations` partition fresh); without it, an asset's data version is a hash of its code and its
    inputs' versions, new whenever an input is, whatever the rows."""
    parts = []
    for table in tables:
        name, owned = (table, {}) if isinstance(table, str) else table
        found = warehouse.query_file("core/queries/rows_version.sql", [name, json.dumps(owned, sort_keys=True)]).iloc[0]
        parts.append(f"{name}{json.dumps(owned, sort_keys=True)}:{int(found['n_rows'])}:{found['rows_md5']}")
    return dg.DataVersion(hashlib.sha256("\n".join(parts).encode()).hexdigest())


def graph_assets(keep: Callable[[dg.AssetsDefinition], bool], besides: tuple[str, ...]) -> list[dg.AssetsDefinition]:
    """The assets of every module in assets/ (but the modules named in `besides`, which ask) and of every
    plugin that `keep` accepts: an asset that follows a whole kind of assets needs no list to edit."""
    import assets  # the package this module belongs to, imported when asked: its modules import this one

    names = [f"assets.{info.name}" for info in pkgutil.iter_modules(assets.__path__) if info.name not in besides]
    modules = [importlib.import_module(name) for name in [*names, *plugin_modules()]]
    return [a for a in dg.load_assets_from_modules(modules) if isinstance(a, dg.AssetsDefinition) and keep(a)]


def llm_metadata(stats) -> dict[str, Any]:
    return {key: (value if value is not None else float("nan")) for key, value in stats.as_metadata().items()}


def ask_models(context, llm, plan: Sequence, entries: Iterable, benchmark: str, model: str = "", judge: str = "",
               who: Optional[Sequence[tuple[str, str]]] = None,
               log_progress: bool = True) -> tuple[list[LLMResult], CallStats]:
    """The one way an asset calls models: each planned request (`plan` rows carry a `request`) sent through the
    cached client with the registry entries' limits, its progress in the step's log (unless the caller reports
    its own), and every call entered in the cost ledger under this asset, for `model` and `judge` (or, when one
    step asks for a grid, each request's own (model, judge) in `who`). Returns the results in plan order and
    the statistics that `llm_result` turns into the step's metadata and `failed_calls` check."""
    scope = call_scope(context, benchmark, model, judge)
    if who is not None:
        scope = [dataclasses.replace(scope, model=m, judge=j) for m, j in who]
    return llm.run([p.request for p in plan], limits=limits_for(e for e in entries if e is not None),
                   progress=context.log.info if log_progress else None, scope=scope)


FAILED_CALLS_CHECK = "failed_calls"


def failed_calls_spec(asset: str, partitions_def: dg.PartitionsDefinition | None = None) -> dg.AssetCheckSpec:
    """The `failed_calls` check of an asset that calls models, computed by the asset itself (`llm_result`), so it
    costs no step of its own. Blocking: an ERROR fails the step and the readers in the same run wait."""
    with quiet():
        return dg.AssetCheckSpec(FAILED_CALLS_CHECK, asset=asset, blocking=True, partitions_def=partitions_def,
                                 description=f"Share of the step's LLM requests that failed (ERROR above "
                                             f"{FAILED_CALLS_ERROR_SHARE:.0%}, WARN above 0); asked again by the next run")


def failed_calls_result(metadata: dict[str, Any]) -> dg.AssetCheckResult:
    """The `failed_calls` check from a step's LLM metadata (benchwright/llm/failures.py)."""
    errors, requests = failed_calls(metadata), requests_of(metadata)
    given_up = failed_calls({"errors": metadata.get("given_up")})
    severity = failed_share_severity(errors, requests)
    share = errors / requests if requests else 0.0
    return dg.AssetCheckResult(
        check_name=FAILED_CALLS_CHECK, passed=severity is None,
        severity=dg.AssetCheckSeverity.ERROR if severity == "ERROR" else dg.AssetCheckSeverity.WARN,
        description=(f"{errors} of {requests} requests failed ({share:.1%}); {given_up} given up, the others are "
                     "asked again by the next run" if errors else f"none of {requests} requests failed"),
        metadata={"failed_calls": errors, "requests": requests, "failed_share": share, "given_up": given_up})


def llm_result(context, metadata: dict[str, Any], stats: Optional[CallStats] = None) -> dg.MaterializeResult:
    """What an asset that calls models returns: its metadata with the counts of `stats` (all of the step's calls:
    `CallStats.merge` them when it made several rounds), its `failed_calls` check (declared with
    `failed_calls_spec`) and, when some of its calls failed, a data version of this run's own.

    Without failed calls Dagster's own version stands (code version and inputs), so a re-run with nothing new
    changes nothing downstream. With failed calls the rows are partial: the next run (asked by the main job or
    `failed_calls_sensor`, see benchwright/llm/failures.py) fills them in from the same inputs, and Dagster's
    version would then be the same as the partial one's, leaving the readers of the holes looking fresh. A
    version of the partial run's own makes the filled-in one differ from it, so the readers run again.
    """
    if stats is not None:
        metadata = {**metadata, **llm_metadata(stats)}
        for message in stats.budgets:  # its requests not sent are failed calls too: the step is partial
            context.log.warning(message)
    version = None if failed_calls(metadata) == 0 else dg.DataVersion(f"with-failed-calls-{context.run_id}")
    return dg.MaterializeResult(metadata=metadata, data_version=version, check_results=[failed_calls_result(metadata)])


IMAGE_BATCH_BYTES = 32 * 2**20
"""Normalized image bytes an asset holds before it writes them to `images` (see `ImageWriter`)."""


IMAGE_READ_AHEAD = 16
"""Pictures read per query when requests are sent (`image_refs`): each query scans the `images` table's blobs,
so reading one picture at a time would scan it once per picture."""


class ImageWriter:
    """Adds normalized images to the content-addressed `images` table, each picture once, in batches of at
    most `max_bytes` (an image larger than that is a batch of its own), so an asset reading a dataset of
    gigabytes of pictures holds one batch, never all of them. Call `flush` after the last `add`."""

    def __init__(self, warehouse, max_bytes: int | None = None):
        self.warehouse = warehouse
        self.max_bytes = IMAGE_BATCH_BYTES if max_bytes is None else max_bytes
        self.seen: set[str] = set()  # hashes added, written or waiting
        self.new = 0                 # images the table did not hold yet
        self._batch: list[dict] = []
        self._batch_bytes = 0

    def add(self, img: NormalizedImage) -> None:
        if img.sha256 in self.seen:
            return
        self.seen.add(img.sha256)
        if self._batch and self._batch_bytes + len(img.data) > self.max_bytes:
            self.flush()
        self._batch.append({"sha256": img.sha256, "mime": img.mime, "width": img.width, "height": img.height,
                            "data": img.data})
        self._batch_bytes += len(img.data)

    def flush(self) -> None:
        if self._batch:
            self.new += self.warehouse.add_images(pd.DataFrame(self._batch))
        self._batch, self._batch_bytes = [], 0


def image_refs(warehouse, items: list[dict]) -> dict[str, ImageRef]:
    """Content hash -> ImageRef for every image the items use (items carry `image_hashes`), in the order they use
    them. Only hashes and types are read here: a request's cache key needs no more, and each picture is read
    when a request showing it is sent (`IMAGE_READ_AHEAD` of them per query), so a model-calling asset holds a
    few pictures, not all of a dataset's."""
    hashes = list(dict.fromkeys(h for item in items for h in item["image_hashes"]))
    mimes = dict(warehouse.query_file("core/queries/images/types.sql", [hashes]).itertuples(index=False, name=None)
                 ) if hashes else {}
    read_bytes_sql = read_sql("core/queries/images/bytes.sql")

    def fetch(wanted: list[str]) -> dict[str, bytes]:
        with warehouse.session() as con:
            return dict(con.execute(read_bytes_sql, [wanted]).fetchall())

    source = ImageSource(fetch, order=hashes, ahead=IMAGE_READ_AHEAD)
    return {h: source.ref(h, mimes[h]) for h in hashes if h in mimes}


def answers_by_item(df: pd.DataFrame, column: str) -> dict[str, str]:
    return {row.item_id: getattr(row, column) for row in df.itertuples(index=False) if isinstance(getattr(row, column), str)}


def simulation_flags(slugs: pd.Series, labels: dict) -> pd.Series:
    """Per slug: is that registry entry a simulation? A slug no longer in the registry counts as real (False)."""
    return slugs.map(lambda s: labels.get(s, (s, False))[1]).astype(bool)


def with_simulation_flags(df: pd.DataFrame, labels: dict, sides: dict[str, str]) -> pd.DataFrame:
    """The one place the three simulation columns are computed, for every table that has them.

    ``sides``: slug column -> what it names: ``"model"`` (the answering model: `model_simulated`), ``"judge"``
    (`judge_simulated`) or ``"other"`` (another model the row rests on, such as URS's reference model: counted
    in `simulated` only). A side the table does not have is left out, so its flag is NULL in the table (no
    judge of an answer, no model of a per-judge figure). `simulated` = any named slug is a simulation, i.e.
    model_simulated OR judge_simulated (OR another named model's)."""
    df = df.copy()
    if df.empty and not set(sides) <= set(df.columns):  # an empty table written to clear a table
        return df
    simulated = pd.Series(False, index=df.index)
    for slug_column, side in sides.items():
        flags = simulation_flags(df[slug_column], labels)
        if side in ("model", "judge"):
            df[f"{side}_simulated"] = flags
        simulated |= flags
    df["simulated"] = simulated
    return df


# The answer and verdict tables, with the slug columns their simulation flags read (`flagged_rows`): who
# answered (a baseline, a describer, a reference model answers too), who judged, and for URS's cross grid the
# model whose other answer is the reference.
_JUDGED = {"model": "model", "judge": "judge"}
SIMULATION_SIDES: dict[str, dict[str, str]] = {
    "generations": {"model": "model"},
    "creation_references": {"baseline": "model"},
    "creation_image_descriptions": {"describer": "model"},
    "urs_references": {"reference_model": "model"},
    "creation_pairwise_judgments": _JUDGED,
    "creation_vfs_judgments": _JUDGED,
    "mmmt_if_autorater_judgments": _JUDGED,
    "urs_judgments": _JUDGED,
    "urs_cross_judgments": {**_JUDGED, "reference_model": "other"},
}


def flagged_rows(table: str, rows: pd.DataFrame, registry, sides: dict[str, str] | None = None) -> pd.DataFrame:
    """An answer or verdict table's rows with their simulation flags, as they are stored: every asset (and
    importer) writing one of those tables passes its rows through here. ``sides``: the table's slug columns
    (`with_simulation_flags`), by default its entry in `SIMULATION_SIDES` (a plugin's own table names its own)."""
    return with_simulation_flags(rows, registry.labels(), SIMULATION_SIDES[table] if sides is None else sides)


def store_flagged(warehouse, table: str, rows: pd.DataFrame, registry, match: dict,
                  sides: dict[str, str] | None = None) -> int:
    """`warehouse.replace_rows` of an answer or verdict table, its rows flagged by `flagged_rows`."""
    return warehouse.replace_rows(table, flagged_rows(table, rows, registry, sides), match=match)


def add_labels(df: pd.DataFrame, registry, columns: dict[str, str]) -> pd.DataFrame:
    """Add display-name columns and the simulation flags (`with_simulation_flags`) to a metric table.

    `model_simulated` (when a `model` column is named) and `judge_simulated` (when a `judge` column is named)
    say whether that registry entry is a simulation; a table without the column leaves its flag NULL (no
    judge in MMMT-IF, for instance). `simulated` = any named slug column is a simulation, i.e.
    model_simulated OR judge_simulated (OR another named model's, such as URS's reference model).
    """
    labels = registry.labels()
    df = df.copy()
    for slug_column, display_column in columns.items():
        # Slugs no longer in the registry keep their slug as name; imported rows say so in `source`.
        df[display_column] = df[slug_column].map(lambda s: labels.get(s, (s, False))[0])
    sides = {c: c if c in ("model", "judge") else "other" for c in columns}
    return with_simulation_flags(df, labels, sides)
