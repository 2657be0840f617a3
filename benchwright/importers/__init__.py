"""Importers: other tools' judgments and human labels, read into our judgment tables' rows.

Each importer parses whole files into plain DataFrames. One bad record never voids a file: a record
that does not match the format (bad JSON or bytes that are not UTF-8 on its line, a missing or
mistyped field, a value out of range, a repeat of a record already read) is left out and becomes a
located ``LoadProblem`` (``<file>:<line>``, and what was wrong) in ``problems``; every other record
is imported. Only a file that cannot be read at all (missing, not the expected kind of file, no
header, not one usable record) raises ``ImportFormatError`` naming the file (and the line where there
is one).
Nothing is written here: the caller writes the rows only once every file has parsed, so a file
that cannot be read never leaves a partial import behind.

What every importer returns (``ImportedSet``):

- ``judgments``: rows of ``creation_pairwise_judgments``. ``item_id`` is the source's question id
  (or the line / record number where the source has none); ``judge_order`` 1 has the baseline (the
  first response) in position A, ``judge_order`` 2 has the candidate (the second response) in A;
  ``verdict`` is as displayed, like our own judges' verdicts; a judge output that could not be
  parsed is ``parse_ok = false`` with outcome ``Fail``; ``source`` is ``<importer>:<dataset>``.
- ``human_labels``: rows of ``interop_human_labels`` (pairwise human-labelled sets only).
- ``preferences``: rows of ``interop_preferences`` (graded preferences, AlpacaEval only).
- ``problems``: one ``LoadProblem`` per refused record (``refused`` counts them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchwright.loading import (LoadProblem, bad_bytes_field, bad_bytes_json_field, decode_keeping_bad_bytes,
                                 has_bad_bytes)
from benchwright.pairwise import outcome, parse_pairwise
from benchwright.ratings import STYLE_COLUMNS as ANSWER_STYLE_COLUMNS

JUDGMENT_COLUMNS = [
    "model", "judge", "item_id", "judge_order", "candidate_position", "raw_text", "verdict", "parse_ok",
    "outcome", "error", "candidate_len", "baseline_len", "request_key", "simulated", "source",
]  # fmt: skip
HUMAN_LABEL_COLUMNS = ["source", "item_id", "item_group", "annotator", "label", "value"]
PREFERENCE_COLUMNS = ["source", "judge", "model", "baseline", "item_id", "preference"]


class ImportFormatError(ValueError):
    """A file does not match the format its importer reads; names the file and the line, and the field at fault
    when it is one record's (its key or column as the file names it; see ``LoadProblem.field``)."""

    def __init__(self, path: str | Path, line: int | None, reason: str, field: str | None = None):
        self.path, self.line, self.reason, self.field = str(path), line, reason, field
        where = f"{path}, line {line}" if line is not None else str(path)
        super().__init__(f"{where}: {reason}")


def record_problem(path: str | Path, line: int | None, reason: str, field: str | None = None) -> LoadProblem:
    """A refused record, located as ``<file>:<line>``, with the field at fault when one is."""
    return LoadProblem(f"{path}:{line}" if line is not None else str(path), reason, field)


def no_usable_record(path: str | Path, problems: list[LoadProblem]) -> ImportFormatError:
    """The error for a file none of whose records could be used (the wrong kind of file, say): it is refused
    whole, saying how many records were refused and the first reason."""
    first = f", the first: {problems[0].location}: {problems[0].reason}" if problems else ""
    return ImportFormatError(path, None, f"holds no usable record ({len(problems)} refused{first})")


def refused(error: ImportFormatError) -> LoadProblem:
    """The located problem of a record an importer refused (the error raised while reading it)."""
    return record_problem(error.path, error.line, error.reason, error.field)


@dataclass
class ImportedSet:
    importer: str
    dataset: str
    judgments: pd.DataFrame
    human_labels: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=HUMAN_LABEL_COLUMNS))
    preferences: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=PREFERENCE_COLUMNS))
    # Style counts of the compared answers (ratings.STYLE_COLUMNS), for style-controlled ratings.
    answer_style: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=ANSWER_STYLE_COLUMNS))
    baseline: str | None = None
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)  # one per refused record

    @property
    def refused(self) -> int:
        return len(self.problems)

    @property
    def source(self) -> str:
        return source_name(self.importer, self.dataset)

    @property
    def parse_failures(self) -> int:
        return int((~self.judgments["parse_ok"].astype(bool)).sum()) if len(self.judgments) else 0


def source_name(importer: str, dataset: str) -> str:
    return f"{importer}:{dataset}"


def canonical_verdict(token: str) -> str | None:
    """A verdict token as other tools write it (``A>B``, ``B >> A``, ``A<B`` …) in canonical form, or None."""
    return parse_pairwise(f"[[{token}]]")


def judgment_row(*, source: str, model: str, judge: str, item_id: str, judge_order: int, verdict: str | None,
                 raw_text: str | None, candidate_len: int | None = None, baseline_len: int | None = None) -> dict:
    """One ``creation_pairwise_judgments`` row; ``verdict`` None means the judge output did not parse."""
    if judge_order not in (1, 2):
        raise ValueError(f"judge_order must be 1 or 2, got {judge_order}")
    candidate_position = "B" if judge_order == 1 else "A"
    return {
        "model": model, "judge": judge, "item_id": str(item_id), "judge_order": judge_order,
        "candidate_position": candidate_position, "raw_text": raw_text, "verdict": verdict,
        "parse_ok": verdict is not None, "outcome": outcome(verdict, candidate_position), "error": None,
        "candidate_len": candidate_len, "baseline_len": baseline_len, "request_key": None,
        "simulated": False, "source": source,
    }


def judgments_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=JUDGMENT_COLUMNS)
    return frame.astype({"judge_order": "int64", "parse_ok": bool, "simulated": bool,
                         "candidate_len": "Int64", "baseline_len": "Int64"})


def _read_text(path: Path) -> str:
    """A whole file as text; bytes that are not UTF-8 survive (as surrogate escapes) for the record holding them
    to be refused. A file that cannot be read raises ImportFormatError."""
    try:
        return decode_keeping_bad_bytes(path.read_bytes())
    except OSError as error:
        raise ImportFormatError(path, None, f"cannot be read: {error}") from error


def jsonl_records(path: Path, blank_is_missing: bool = False) -> list[tuple[int, object, LoadProblem | None]]:
    """(line number, parsed value or None, the line's problem or None) for every non-blank line, in order:
    bad JSON or bytes that are not UTF-8 make that line's problem, never the file's.

    ``blank_is_missing``: for a format whose records are keyed by their line (Auto-J's outputs: line i answers
    pair i), a blank line before the file's last record is a record missing in its place, a problem of its own;
    blank lines after the last record are only the file's end."""
    out = []
    lines = _read_text(path).split("\n")
    last = max((n for n, line in enumerate(lines, start=1) if line.strip()), default=0)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            if blank_is_missing and number < last:
                out.append((number, None, record_problem(path, number, "blank line: the record of this line is "
                                                                       "missing")))
            continue
        if has_bad_bytes(line):
            out.append((number, None, record_problem(path, number, "bytes that are not UTF-8",
                                                     bad_bytes_json_field(line))))
            continue
        try:
            out.append((number, json.loads(line), None))
        except json.JSONDecodeError as error:
            out.append((number, None, record_problem(path, number, f"not valid JSON ({error.msg}, column "
                                                                   f"{error.colno})")))
    return out


def iter_jsonl(path: Path, problems: list[LoadProblem]) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) for every non-blank line that parses; the others go to ``problems``."""
    for number, value, problem in jsonl_records(path):
        if problem is not None:
            problems.append(problem)
        else:
            yield number, value


SKIPPED = object()  # the place of a refused element, for readers whose ids are places (``keep_places``)


def iter_json_array(path: Path, problems: list[LoadProblem], keep_places: bool = False) -> Iterator[tuple[int, object]]:
    """(line where the element starts, element) for each element of a file holding one JSON array; with
    ``keep_places``, a refused element is yielded as ``SKIPPED`` so that the places of the others stay.

    An element that is not valid JSON (a stray quote, a torn value) or holds bytes that are not UTF-8 goes
    to ``problems`` and reading goes on at the next element that starts a line at the same indentation (one
    element per line, or pretty-printed; where there is none, the rest of the file is that one problem). A file that is
    not a JSON array raises ImportFormatError.
    """
    text = _read_text(path)
    decoder = json.JSONDecoder()

    def skip_space(at: int) -> int:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        return at

    def line_at(at: int) -> int:
        return text.count("\n", 0, at) + 1

    at = skip_space(0)
    if at >= len(text) or text[at] != "[":
        raise ImportFormatError(path, line_at(at), "expected a JSON array of records")
    at = skip_space(at + 1)
    if at < len(text) and text[at] == "]":
        return
    while at < len(text):
        start_line = line_at(at)
        indent = at - (text.rfind("\n", 0, at) + 1)
        try:
            element, end = decoder.raw_decode(text, at)
            after = skip_space(end)
            if after < len(text) and text[after] not in ",]":
                raise json.JSONDecodeError("expected ',' or ']' after the record", text, after)
        except json.JSONDecodeError as error:
            # Where the next record starts: a line that opens one at the same indentation (a record's own
            # fields and nested values are indented deeper in a pretty-printed array).
            restart = re.compile(r"\n" + re.escape(text[at - indent:at]) + re.escape(text[at]))
            found = restart.search(text, at + 1)
            last = line_at(found.start()) if found else line_at(len(text))
            problems.append(record_problem(path, start_line, f"not valid JSON ({error.msg}, line {error.lineno}); "
                                                             f"lines {start_line}-{last} not read"))
            if keep_places:
                yield start_line, SKIPPED
            if not found:
                return
            at = found.start() + 1 + indent
            continue
        if has_bad_bytes(text[at:end]):
            problems.append(record_problem(path, start_line, "bytes that are not UTF-8", bad_bytes_field(element)))
            if keep_places:
                yield start_line, SKIPPED
        else:
            yield start_line, element
        at = skip_space(end)
        if at < len(text) and text[at] == ",":
            at = skip_space(at + 1)
            continue
        if at < len(text) and text[at] == "]":
            if skip_space(at + 1) != len(text):
                raise ImportFormatError(path, line_at(skip_space(at + 1)), "unexpected text after the array")
            return
    raise ImportFormatError(path, line_at(len(text)), "the array is never closed (no ']')")


def require(record: object, path: Path, line: int, key: str, kinds: tuple[type, ...], what: str):
    """``record[key]`` when it exists and has one of ``kinds``; otherwise a located error."""
    if not isinstance(record, dict):
        raise ImportFormatError(path, line, f"expected a JSON object, found {type(record).__name__}")
    if key not in record:
        raise ImportFormatError(path, line, f"missing field {key!r} ({what})", key)
    value = record[key]
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise ImportFormatError(path, line, f"field {key!r} must be {what}, found {value!r:.60}", key)
    return value


def text_length(value: object) -> int | None:
    return len(value) if isinstance(value, str) else None


def raw_text(value: object) -> str | None:
    """A judge output as text: strings as they are, anything structured as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
