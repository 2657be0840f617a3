"""Loader for URS questions (benchwright/urs/README.md#data): the release's CSV layout, and its older spelling.

Release layout (Alice1998/URS ``data/data_all.csv``): CSV, UTF-8 with a byte-order mark, header
``question, reference_ans, user_intent, language``; intents ``Factual_QA,
Solve_Professional_Problem, Text_Assistant, Ask_for_Advice, Seek_Creativity, Leisure, API``;
languages ``EN`` / ``CN``. The older layout writes intents with spaces (``Factual QA``,
``Solve Professional Problem``, ``Usage through API`` ...); both map to the intent names of
``benchwright.urs.intents.INTENTS``, and languages to ``en`` / ``zh``. An optional ``item_id`` column
(our sample uses none) names items; otherwise an item is ``urs-<row>``, row being its record
number after the header (1 = first question), which is also how problems are located.

Lenient per row, strict per file: a row with an unknown intent or language, an empty question,
the wrong number of fields, bytes that are not UTF-8 or a duplicate item_id becomes a
``LoadProblem`` (``<file>:row <n>`` and the reason) and is skipped. A missing file or a header
without the required columns raises, naming the path. An empty reference answer is kept as None
(the reference model fills it in).
"""

from __future__ import annotations

import csv
import os
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from benchwright.loading import (LoadProblem, LoadResult, RowError, bad_bytes_cell, csv_table, has_bad_bytes,
                                  problem_of, read_text_keeping_bad_bytes)
from benchwright.human_pairwise import (ROW_COLUMNS, load_pairwise_csv,  # the one loader, re-exported
                                        with_known_models, without_duplicates)
from benchwright.urs.intents import INTENTS

REQUIRED_COLUMNS = ("question", "reference_ans", "user_intent", "language")

_INTENT_ALIASES = {
    **{intent: intent for intent in INTENTS},
    "solve problem": "Solve Professional Problem",
    "api": "Usage through API",
    "use through api": "Usage through API",
    "use through apis": "Usage through API",
    "usage through apis": "Usage through API",
}
_INTENT_BY_KEY = {re.sub(r"[\s_-]+", " ", name).strip().lower(): intent for name, intent in _INTENT_ALIASES.items()}
_LANGUAGE_BY_KEY = {"en": "en", "english": "en", "cn": "zh", "zh": "zh", "chinese": "zh"}


def normalize_intent(label: str | None) -> str | None:
    """Our intent name (benchwright/urs/README.md#data) for a release label ('Factual_QA', 'Factual QA', 'API' ...), or None."""
    if not isinstance(label, str):
        return None
    return _INTENT_BY_KEY.get(re.sub(r"[\s_-]+", " ", label).strip().lower())


def normalize_language(label: str | None) -> str | None:
    """'en' or 'zh' for a release label ('EN', 'CN', 'zh' ...), or None."""
    return _LANGUAGE_BY_KEY.get(label.strip().lower()) if isinstance(label, str) else None


@dataclass
class UrsItem:
    item_id: str
    intent: str
    language: str
    question: str
    reference_answer: str | None
    source_intent: str  # the label as the file wrote it
    source_row: int

    def to_row(self) -> dict:
        return asdict(self)


def load_urs_csv(path: str | os.PathLike) -> LoadResult:
    path = Path(path)
    # Bad bytes survive as surrogate escapes; the rows holding them are reported below.
    text = read_text_keeping_bad_bytes(path, "URS dataset file")
    csv.field_size_limit(sys.maxsize)  # some reference answers are long
    # Read strictly: a stray quote or a quoted cell never closed is a problem of its record (the default csv
    # reader would merge `"a"b` silently, or swallow every row after an open quote into one cell).
    table = csv_table(text)
    if table.header_problem:
        raise ValueError(f"{path} is not a readable CSV: {table.header_problem}")
    header = table.header
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise ValueError(f"{path} lacks required column(s): {', '.join(missing)} (header: {header})")

    items: list[UrsItem] = []
    problems: list[LoadProblem] = []
    seen: set[str] = set()
    for record in table.records:
        location = f"{path.name}:row {record.row}"
        try:
            if record.problem:
                raise RowError(record.problem)
            item = _item(header, record.cells, record.row)
            if item.item_id in seen:
                raise RowError(f"duplicate item_id {item.item_id!r}", "item_id")
        except RowError as exc:
            problems.append(problem_of(location, exc))
            continue
        seen.add(item.item_id)
        items.append(item)
    return LoadResult(items, problems)


def _item(header: list[str], row: list[str], row_number: int) -> UrsItem:
    if len(row) != len(header):
        raise RowError(f"has {len(row)} fields, header has {len(header)}")
    if bad_cell := bad_bytes_cell(header, row):
        raise RowError("not valid UTF-8", bad_cell)
    record = dict(zip(header, row))
    question = record["question"].strip()
    if not question:
        raise RowError("empty question", "question")
    intent = normalize_intent(record["user_intent"])
    if intent is None:
        raise RowError(f"unknown user_intent {record['user_intent']!r}", "user_intent")
    language = normalize_language(record["language"])
    if language is None:
        raise RowError(f"unknown language {record['language']!r} (expected EN or CN)", "language")
    item_id = (record.get("item_id") or "").strip() or f"urs-{row_number:04d}"
    reference = record["reference_ans"].strip() or None
    return UrsItem(item_id=item_id, intent=intent, language=language, question=question,
                   reference_answer=reference, source_intent=record["user_intent"].strip(), source_row=row_number)


# --- alignment inputs (benchwright/urs/README.md#alignment-with-people), dropped as files --------------------------------------------

def _read_records(path: Path, required: tuple[str, ...], what: str) -> list[tuple[int, dict, LoadProblem | None]]:
    """(row number, cells by column, why the row cannot be read or None) of every record of a CSV file."""
    # Bytes that are not UTF-8 survive as surrogate escapes: the record holding them is refused, not the file.
    text = read_text_keeping_bad_bytes(path, f"{what} file")
    table = csv_table(text)
    if table.header_problem or has_bad_bytes("".join(table.header)):
        raise ValueError(f"{path}: {table.header_problem or 'the header holds bytes that are not UTF-8'}")
    missing = [c for c in required if c not in table.header]
    if missing:
        raise ValueError(f"{path} lacks required column(s): {', '.join(missing)} (header: {table.header})")
    return [(record.row, dict(zip(table.header, record.cells)), _record_problem(path, table.header, record))
            for record in table.records]


def _record_problem(path: Path, header: list[str], record) -> LoadProblem | None:
    location = f"{path.name}:row {record.row}"
    if record.problem:
        return LoadProblem(location, record.problem)
    bad_cell = bad_bytes_cell(header, record.cells)
    return LoadProblem(location, "bytes that are not UTF-8", bad_cell) if bad_cell else None


def load_satisfaction_csv(path: str | os.PathLike) -> tuple[list[dict], list[LoadProblem]]:
    """Users' satisfaction per intent (1-5): columns intent, satisfaction, optional model."""
    path = Path(path)
    rows, problems = [], []
    for number, record, problem in _read_records(path, ("intent", "satisfaction"), "user-satisfaction"):
        location = f"{path.name}:row {number}"
        if problem:
            problems.append(problem)
            continue
        intent = normalize_intent(record.get("intent"))
        try:
            satisfaction = float(record.get("satisfaction") or "")
        except ValueError:
            satisfaction = float("nan")
        if intent is None:
            problems.append(LoadProblem(location, f"unknown intent {record.get('intent')!r}", "intent"))
        elif not 1 <= satisfaction <= 5:
            problems.append(LoadProblem(location, f"satisfaction {record.get('satisfaction')!r} is not a number in 1-5",
                                        "satisfaction"))
        else:
            rows.append({"intent": intent, "satisfaction": satisfaction,
                         "model": (record.get("model") or "").strip() or None})
    return rows, problems


HUMAN_PAIRWISE_COLUMNS = ["item_id", "model_a", "model_b", "winner", "strength", "annotator", "left_model",
                          "item_position", "round_id", "recorded_at", "seconds_taken", "source_file"]


def human_choices(configured: list[dict], dropped: list[dict], known: set[str]) -> tuple[pd.DataFrame, list]:
    """The human pairwise choices URS aligns with: the configured file's rows for registered models and the
    drop folder's `urs` rows (already checked against the registry by the folder's loader), as one set in which
    a choice counts once, so a copy of the file dropped in the folder adds nothing. Returns the
    `urs_human_pairwise` rows and the refused records (unknown models, repeats), located."""
    configured, unknown = with_known_models(configured, known)
    rows, repeated = without_duplicates([*configured, *(r for r in dropped if r["benchmark"] == "urs")])
    return pd.DataFrame(rows, columns=ROW_COLUMNS)[HUMAN_PAIRWISE_COLUMNS], unknown + repeated


__all__ = ["UrsItem", "LoadResult", "load_pairwise_csv", "human_choices", "load_satisfaction_csv", "load_urs_csv",
           "normalize_intent", "normalize_language"]
