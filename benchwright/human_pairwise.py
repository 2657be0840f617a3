"""Human pairwise choices (benchwright/creation/README.md#human-alignment, benchwright/urs/README.md#alignment-with-people): the one file format and the one loader.

Annotators compare two answers side by side and pick one of five points or "cannot tell". The
annotation web app appends one CSV row per choice to ``<round_id>.csv`` in the drop folder
``<warehouse folder>/drops/human_pairwise/`` (UTF-8, header line first). ``COLUMNS`` is that
file's header, in the order the app writes it; both the app and this loader use it.

Columns:

- ``benchmark``: ``creation`` or ``urs``. Files without the column (the older URS layout, e.g.
  ``sample_data/urs/human_pairwise.csv``) are URS.
- ``item_id``: the Creation or URS item id (required for Creation rows).
- ``model_a``, ``model_b``: registry slugs. For Creation, ``model_a`` is the baseline (the model
  that wrote the item's reference answer, ``dataset`` when the dataset ships it) and ``model_b``
  the candidate. For URS, two candidates.
- ``winner``: ``A``, ``B``, ``tie`` or ``undetermined`` ("cannot tell": excluded from every metric).
  Also accepted, any case: ``draw``, ``equal``, ``=`` (tie), ``cannot tell``, ``unknown``.
- ``strength``: ``2`` much better, ``1`` better, ``0`` for a tie, empty for undetermined. Without
  the column a choice of A or B has strength 1 and a tie 0.
- optional, kept when present: ``annotator`` (the app validates handles), ``left_model`` (which of
  the two was shown on the left), ``item_position`` (1-based order in the round), ``round_id``,
  ``recorded_at`` (ISO-8601; stored in UTC, a time without offset is read as UTC as the format
  says), ``seconds_taken`` (seconds, ≥ 0).

Lenient per row, strict per file: a row that breaks a rule above becomes a ``LoadProblem``
(``<file>:row <n>``, n counting records after the header) and the other rows still load. That
includes a torn last line (the app crashed mid-append: fewer fields than the header), a row with
cells beyond the header, broken quoting, bytes that are not UTF-8, and a quoted cell never closed
(one problem at its row: the rows after it cannot be read). A missing file, an empty file, a header
naming a column twice or a header without ``model_a, model_b, winner`` raises, naming the path;
``load_folder`` turns that into a problem for that file (``benchwright.loading.csv_table``).
"""

from __future__ import annotations

import csv
import io
import math
import os
from datetime import datetime, timezone
from pathlib import Path

from benchwright.loading import (LoadProblem, RowError, bad_bytes_cell, csv_table, decode_keeping_bad_bytes,
                                  once_each, problem_of, read_text_keeping_bad_bytes, without_unfinished_line)
from benchwright.pii import pseudonym, redacted

COLUMNS = ["benchmark", "item_id", "model_a", "model_b", "winner", "strength", "annotator", "left_model",
           "item_position", "round_id", "recorded_at", "seconds_taken"]
# What a loaded row holds: the file's columns plus the file it came from (``source_row`` is kept on the
# dicts for locating problems, not stored).
ROW_COLUMNS = [*COLUMNS, "source_file"]
REQUIRED_COLUMNS = ("model_a", "model_b", "winner")

BENCHMARKS = ("creation", "urs")
LEGACY_BENCHMARK = "urs"  # files written before the benchmark column existed
WINNERS = ("A", "B", "tie", "undetermined")
_WINNER_SPELLINGS = {"a": "A", "b": "B", "tie": "tie", "draw": "tie", "equal": "tie", "=": "tie",
                     "undetermined": "undetermined", "cannot tell": "undetermined", "unknown": "undetermined"}
# Strength a choice has when the file has no strength column.
_DEFAULT_STRENGTH = {"A": 1, "B": 1, "tie": 0, "undetermined": None}


def value_for_b(winner: str, strength: int | None) -> float | None:
    """The choice on the −2..+2 scale of benchwright/creation/README.md#human-alignment from model_b's (the candidate's) side.

    B much better +2, B better +1, tie 0, A better −1, A much better −2; 'undetermined' is None
    (no value: it is left out of every metric). A strength that does not fit the winner raises.
    """
    if winner == "undetermined":
        if strength is not None:
            raise ValueError(f"an undetermined choice has no strength, got {strength!r}")
        return None
    if winner == "tie":
        if strength != 0:
            raise ValueError(f"a tie has strength 0, got {strength!r}")
        return 0.0
    if winner not in ("A", "B"):
        raise ValueError(f"unknown winner {winner!r} (expected one of {WINNERS})")
    if strength not in (1, 2):
        raise ValueError(f"a choice of {winner} has strength 1 or 2, got {strength!r}")
    return float(strength if winner == "B" else -strength)


def load_pairwise_csv(path: str | os.PathLike) -> tuple[list[dict], list[LoadProblem]]:
    """Rows (dicts with ``ROW_COLUMNS``) and located problems of one human-pairwise CSV file."""
    path = Path(path)
    return _parse(read_text_keeping_bad_bytes(path, "human pairwise file"), path)


def _parse(text: str, path: Path) -> tuple[list[dict], list[LoadProblem]]:
    unfinished = []
    text, tail = without_unfinished_line(text)
    if tail and text:  # (a file with only a header in progress has nothing to report yet)
        # The drop-folder contract (benchwright.loading): read once it is complete, never half.
        records_so_far = sum(1 for record in csv.reader(io.StringIO(text, newline="")) if any(record)) - 1
        unfinished.append(LoadProblem(f"{path.name}:row {records_so_far + 1}",
                                      f"incomplete last line ({len(tail)} characters, no line end yet): "
                                      "read once it is complete"))
    table = csv_table(text)
    if table.header_problem:
        raise ValueError(f"{path} is empty (no header line)" if not text.strip() else f"{path}: {table.header_problem}")
    header = table.header
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise ValueError(f"{path} lacks required column(s): {', '.join(missing)} (header: {header})")

    rows, problems = [], []
    for record in table.records:
        number = record.row
        try:
            if record.problem:
                raise RowError(record.problem)
            row = _row(header, record.cells)
        except RowError as exc:
            problems.append(problem_of(f"{path.name}:row {number}", exc))
            continue
        # A file named after its annotator (``jean.dupont@exemple.fr.csv``) is stored under a pseudonym.
        rows.append({**row, "source_file": pseudonym(path.name), "source_row": number})
    return rows, problems + unfinished


def load_folder(folder: str | os.PathLike) -> tuple[list[dict], list[LoadProblem]]:
    """Every ``*.csv`` in the folder, in name order: rows (with ``source_file``) and problems.

    A file that cannot be read at all is one problem, located by its name; the other files load.
    Only ``*.csv`` names are read (write ``*.part`` and rename when done). Every choice counts once:
    see ``without_duplicates``. A missing folder holds nothing.
    """
    folder = Path(folder)
    rows, problems = [], []
    for path in sorted(folder.glob("*.csv")) if folder.is_dir() else []:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            problems.append(LoadProblem(path.name, f"cannot read: {exc}"))
            continue
        try:
            file_rows, file_problems = _parse(decode_keeping_bad_bytes(raw), path)
        except ValueError as exc:
            problems.append(LoadProblem(path.name, str(exc)))
            continue
        rows += file_rows
        problems += file_problems
    kept, repeated = without_duplicates(rows)
    return kept, problems + repeated


def without_duplicates(rows: list[dict]) -> tuple[list[dict], list[LoadProblem]]:
    """Each choice once, in order; every repeat is a located problem "duplicate of <file>:row <n>".

    A choice's natural key is its normalized content (all of ``COLUMNS``: benchmark, item, models,
    winner, strength, annotator, sides, position, round, time, seconds), so a copy of a file, the same
    file with other line ends, or a row written twice is recognised whatever file holds it. Rows without
    ``recorded_at`` (the older anonymous URS layout) count by occurrence (``benchwright.loading.once_each``).
    """
    located = [{**row, "source_line": f"row {row['source_row']}"} for row in rows]
    kept, repeated = once_each(located, COLUMNS, identity="recorded_at")
    return ([{k: v for k, v in r.items() if k != "source_line"} for r in kept],
            [LoadProblem(place, reason) for place, reason in repeated])


# --- one row ----------------------------------------------------------------------------------

def _row(header: list[str], record: list[str]) -> dict:
    if bad_cell := bad_bytes_cell(header, record):
        raise RowError("not valid UTF-8", bad_cell)
    cells = {name: value.strip() for name, value in zip(header, record)}

    benchmark = cells.get("benchmark", LEGACY_BENCHMARK).lower()
    if benchmark not in BENCHMARKS:
        raise RowError(f"unknown benchmark {cells['benchmark']!r} (expected one of {', '.join(BENCHMARKS)})", "benchmark")
    item_id = cells.get("item_id") or None
    if benchmark == "creation" and item_id is None:
        raise RowError("a creation choice needs an item_id", "item_id")
    model_a, model_b = cells["model_a"], cells["model_b"]
    if not model_a or not model_b:
        raise RowError("model_a and model_b are required", "model_b" if model_a else "model_a")
    if model_a == model_b:
        raise RowError(f"a model compared with itself ({model_a!r})", "model_b")
    winner = _WINNER_SPELLINGS.get(cells["winner"].lower())
    if winner is None:
        raise RowError(f"unknown winner {cells['winner']!r} (expected A, B, tie or undetermined)", "winner")
    strength = _strength(cells["strength"]) if "strength" in cells else _DEFAULT_STRENGTH[winner]
    try:
        value_for_b(winner, strength)
    except ValueError as exc:
        raise RowError(f"strength {cells.get('strength', '')!r} does not fit winner {winner!r}: {exc}",
                       "strength") from None
    left_model = cells.get("left_model") or None
    if left_model is not None and left_model not in (model_a, model_b):
        raise RowError(f"left_model {left_model!r} is neither model_a nor model_b", "left_model")
    return {
        "benchmark": benchmark, "item_id": item_id, "model_a": model_a, "model_b": model_b,
        # An annotator name that is personal data (an e-mail) is stored as a stable pseudonym.
        "winner": winner, "strength": strength, "annotator": pseudonym(cells.get("annotator") or None),
        "left_model": left_model, "item_position": _position(cells.get("item_position", "")),
        "round_id": redacted(cells.get("round_id") or None), "recorded_at": _utc_time(cells.get("recorded_at", "")),
        "seconds_taken": _seconds(cells.get("seconds_taken", "")),
    }


def _strength(cell: str) -> int | None:
    if cell == "":
        return None
    if cell not in ("0", "1", "2"):
        raise RowError(f"strength {cell!r} is not 0, 1 or 2 (or empty for undetermined)", "strength")
    return int(cell)


def _position(cell: str) -> int | None:
    if cell == "":
        return None
    if not cell.isdigit() or int(cell) < 1:
        raise RowError(f"item_position {cell!r} is not a whole number from 1", "item_position")
    return int(cell)


def _utc_time(cell: str) -> str | None:
    if cell == "":
        return None
    try:
        moment = datetime.fromisoformat(cell)
    except ValueError:
        raise RowError(f"recorded_at {cell!r} is not an ISO-8601 time", "recorded_at") from None
    moment = moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
    return moment.isoformat()


def _seconds(cell: str) -> float | None:
    if cell == "":
        return None
    try:
        seconds = float(cell)
    except ValueError:
        raise RowError(f"seconds_taken {cell!r} is not a number", "seconds_taken") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise RowError(f"seconds_taken {cell!r} is not a number of seconds ≥ 0", "seconds_taken")
    return seconds


__all__ = ["BENCHMARKS", "COLUMNS", "ROW_COLUMNS", "WINNERS", "load_folder", "load_pairwise_csv", "value_for_b"]


# Who may stand in a choice besides registered models: a dataset's own reference answer (Creation).
DATASET_AUTHOR = "dataset"


def with_known_models(rows: list[dict], known: set[str]) -> tuple[list[dict], list[LoadProblem]]:
    """The rows whose two models are registered slugs (or the dataset's reference answer); every other
    row is a located problem, so a typo or a retired slug never joins a fit silently."""
    allowed = set(known) | {DATASET_AUTHOR}
    kept, problems = [], []
    for row in rows:
        unknown = [(side, m) for side, m in (("model_a", row["model_a"]), ("model_b", row["model_b"]))
                   if m not in allowed]
        if unknown:
            problems.append(LoadProblem(f"{row['source_file']}:row {row['source_row']}",
                                        f"unknown model slug(s) {', '.join(repr(m) for _, m in unknown)}: not in the "
                                        "registry", unknown[0][0]))
        else:
            kept.append(row)
    return kept, problems
