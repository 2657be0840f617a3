"""Importers: other tools' judgments and human labels, read into our judgment tables' rows.

Each importer parses whole files into plain DataFrames and raises ``ImportFormatError`` (naming the
file and the line) at the first record that does not match its format. Nothing is written here:
the caller writes the rows only once every file has parsed, so a bad file never leaves a partial
import behind.

What every importer returns (``ImportedSet``):

- ``judgments``: rows of ``creation_pairwise_judgments``. ``item_id`` is the source's question id
  (or the line / record number where the source has none); ``judge_order`` 1 has the baseline (the
  first response) in position A, ``judge_order`` 2 has the candidate (the second response) in A;
  ``verdict`` is as displayed, like our own judges' verdicts; a judge output that could not be
  parsed is ``parse_ok = false`` with outcome ``Fail``; ``source`` is ``<importer>:<dataset>``.
- ``human_labels``: rows of ``interop_human_labels`` (pairwise human-labelled sets only).
- ``preferences``: rows of ``interop_preferences`` (graded preferences, AlpacaEval only).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchwright.pairwise import outcome, parse_pairwise
from benchwright.ratings import STYLE_COLUMNS as ANSWER_STYLE_COLUMNS

JUDGMENT_COLUMNS = [
    "model", "judge", "item_id", "judge_order", "candidate_position", "raw_text", "verdict", "parse_ok",
    "outcome", "error", "candidate_len", "baseline_len", "request_key", "simulated", "source",
]  # fmt: skip
HUMAN_LABEL_COLUMNS = ["source", "item_id", "item_group", "annotator", "label", "value"]
PREFERENCE_COLUMNS = ["source", "judge", "model", "baseline", "item_id", "preference"]


class ImportFormatError(ValueError):
    """A file does not match the format its importer reads; names the file and the line."""

    def __init__(self, path: str | Path, line: int | None, reason: str):
        self.path, self.line, self.reason = str(path), line, reason
        where = f"{path}, line {line}" if line is not None else str(path)
        super().__init__(f"{where}: {reason}")


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


def iter_jsonl(path: Path) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) for every non-blank line; bad JSON raises ImportFormatError."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as error:
        raise ImportFormatError(path, None, f"cannot be read: {error}") from error
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as error:
                raise ImportFormatError(path, number, f"not valid JSON ({error.msg})") from error


def iter_json_array(path: Path) -> Iterator[tuple[int, object]]:
    """(line where the element starts, element) for each element of a file holding one JSON array."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ImportFormatError(path, None, f"cannot be read: {error}") from error
    decoder = json.JSONDecoder()
    position, line = 0, 1

    def skip_space(at: int) -> int:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        return at

    def line_at(at: int) -> int:
        nonlocal position, line
        line += text.count("\n", position, at)
        position = at
        return line

    at = skip_space(0)
    if at >= len(text) or text[at] != "[":
        raise ImportFormatError(path, line_at(at), "expected a JSON array of records")
    at = skip_space(at + 1)
    if at < len(text) and text[at] == "]":
        return
    while True:
        start_line = line_at(at)
        try:
            element, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as error:
            raise ImportFormatError(path, error.lineno, f"not valid JSON ({error.msg})") from error
        yield start_line, element
        at = skip_space(at)
        if at < len(text) and text[at] == ",":
            at = skip_space(at + 1)
            continue
        if at < len(text) and text[at] == "]":
            if skip_space(at + 1) != len(text):
                raise ImportFormatError(path, line_at(skip_space(at + 1)), "unexpected text after the array")
            return
        raise ImportFormatError(path, line_at(at), "expected ',' or ']' between records")


def require(record: object, path: Path, line: int, key: str, kinds: tuple[type, ...], what: str):
    """``record[key]`` when it exists and has one of ``kinds``; otherwise a located error."""
    if not isinstance(record, dict):
        raise ImportFormatError(path, line, f"expected a JSON object, found {type(record).__name__}")
    if key not in record:
        raise ImportFormatError(path, line, f"missing field {key!r} ({what})")
    value = record[key]
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise ImportFormatError(path, line, f"field {key!r} must be {what}, found {value!r:.60}")
    return value


def text_length(value: object) -> int | None:
    return len(value) if isinstance(value, str) else None


def raw_text(value: object) -> str | None:
    """A judge output as text: strings as they are, anything structured as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
