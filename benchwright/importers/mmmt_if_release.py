"""The MMMT-IF public release CSV (google-research mmmt_if, ``MMMT-IF_public_release_data*.csv``).

One row per (conversation, turn): ``conversation id``, ``turn count (...)``, the turn's ``prompt``,
``all instructions`` (every instruction in force at that turn: the list is cumulative), ``instruction
count``, ``question topic``, ``LLM capability tested``, five image columns, ``auto eval metric
weights`` ("1 1 1 1 1 1 1 1 20": the 8 criteria and PIF in the preference score), then per model M
the 8 autorater criteria ``<criterion> M`` and ``Programmatic Instruction Following M`` (PIF, 0..1),
and human pairwise preferences ``Preference: 1 for X, 0 for Y``. The models are read from the header.

How the file's quirks are read:

- **Multi-line cells.** Text cells are quoted and hard-wrapped (a line break after a space). The CSV
  module reads a quoted cell across lines; each line break inside a text cell, with the spaces
  around it, becomes one space. ``notes`` count the cells so unwrapped.
- **Stray apostrophes in topic labels** (``Knowledge-Based Reasoning'``): apostrophes (straight or
  curly) at either end of a topic or capability label are dropped, so the label matches its
  unmarked spelling; ``topic_raw`` keeps the label as written. ``notes`` count them.
- **0.5 preferences.** A human preference is 1 (the first-named model preferred), 0 (the second) or
  0.5, read as a tie (``preferred = 'tie'``). Any other value is a format error.
- **Cumulative instructions** are split at each ``Instruction:``; their number must equal ``instruction
  count`` and each turn's list must start with the previous turn's, else a format error.

One bad record never voids the file: a record with another number of cells than the header or broken
quoting, a missing conversation id or turn, a score that is not a number, PIF outside [0, 1], criteria
weights other than 1, an instruction list that does not match its count or the previous turn's, a
(conversation, turn) already read, or bytes that are not UTF-8 is left out with a located problem
(``<file>:<line the record starts on>``, what was wrong) in ``problems``, and every other record is
imported. A quoted cell that is never closed swallows the rest of the file: that is one problem. Only a file
that cannot be read at all raises ``ImportFormatError``: an empty file, a header naming a column twice or
missing a column, fewer than two models, an unreadable preference column, or no usable record. Nothing
is written here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchwright.importers import ImportFormatError, no_usable_record, record_problem, refused
from benchwright.loading import LoadProblem, bad_bytes_cell, csv_table, decode_keeping_bad_bytes, has_bad_bytes

IMPORTER = "mmmt_if_release"

# The release's criterion names -> our autorater score columns (benchwright.mmmt_if.prompts.SCORE_COLUMNS).
CRITERIA = {
    "Creativity": "creativity", "Richness": "richness", "Visual Perception": "visual_perception",
    "Logical Coherence": "logical_coherence", "Answer Accuracy": "answer_accuracy",
    "Image Relationship Understanding": "image_relationship_understanding",
    "Instruction Following": "instruction_following", "Overall score": "overall_quality",
}  # fmt: skip
PIF_PREFIX = "Programmatic Instruction Following "
PREFERENCE_HEADER = re.compile(r"^Preference: 1 for (?P<first>.+?), 0 for (?P<second>.+?)$")
FIXED = {"chat": "conversation id", "turn": "turn count (which turn in this conversation)", "prompt": "prompt",
         "instructions": "all instructions", "count": "instruction count", "topic": "question topic",
         "capability": "LLM capability tested", "weights": "auto eval metric weights"}
HUMAN_VALUES = {1.0: "a", 0.0: "b", 0.5: "tie"}
APOSTROPHES = "'\u2019\u2018`"

RESPONSE_COLUMNS = ["source", "chat_id", "turn", "model", "line", "n_instructions", "instructions", "prompt", "topic",
                    "topic_raw", "capability", *CRITERIA.values(), "pif", "pif_weight"]
HUMAN_COLUMNS = ["source", "chat_id", "turn", "model_a", "model_b", "value", "preferred", "line"]


@dataclass
class ReleaseImport:
    source: str
    path: str
    models: list[str]
    responses: pd.DataFrame          # one row per (chat, turn, model)
    human_preferences: pd.DataFrame  # one row per (chat, turn, preference column)
    pif_weight: float
    notes: list[str] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)  # one per refused record

    @property
    def refused(self) -> int:
        return len(self.problems)


def unwrap(text: str) -> str:
    """A hard-wrapped cell as one line: each line break and the spaces around it become one space."""
    return re.sub(r"[ \t]*\r?\n[ \t]*", " ", text).strip()


def clean_label(text: str) -> str:
    """A topic label without stray apostrophes at either end."""
    return unwrap(text).strip().strip(APOSTROPHES).strip()


def split_instructions(text: str) -> list[str]:
    """The cumulative instruction cell as its instructions, each starting with ``Instruction:``."""
    return [part.strip() for part in re.split(r"(?=Instruction:)", unwrap(text)) if part.strip()]


def _number(cell: str, path: Path, line: int, column: str) -> float:
    try:
        value = float(cell)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ImportFormatError(path, line, f"{column!r} must be a number, found {cell!r:.40}", column)
    return value


def _records(path: Path, problems: list[LoadProblem]) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and (start line, cells) of every readable record; the others (broken quoting, a cell count
    unlike the header's, bytes that are not UTF-8) go to ``problems``. An empty file and a header that cannot
    be read (a column named twice: one of its values would be lost) raise, located."""
    try:
        text = decode_keeping_bad_bytes(path.read_bytes())
    except OSError as error:
        raise ImportFormatError(path, None, f"cannot be read: {error}") from error
    if not text.strip():
        raise ImportFormatError(path, None, "is empty: no header line, no record")
    table = csv_table(text)
    if table.header_problem:
        raise ImportFormatError(path, 1, table.header_problem)
    if has_bad_bytes("".join(table.header)):
        raise ImportFormatError(path, 1, "the header holds bytes that are not UTF-8")
    records = []
    for record in table.records:
        if record.problem or has_bad_bytes("".join(record.cells)):
            problems.append(record_problem(path, record.line, record.problem or "bytes that are not UTF-8",
                                           None if record.problem else bad_bytes_cell(table.header, record.cells)))
        else:
            records.append((record.line, record.cells))
    return table.header, records


def _layout(header: list[str], path: Path) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The models (from their PIF columns) and the preference columns (column, first, second)."""
    missing = [name for name in FIXED.values() if name not in header]
    models = [name[len(PIF_PREFIX):] for name in header if name.startswith(PIF_PREFIX)]
    missing += [f"{criterion} {model}" for model in models for criterion in CRITERIA if f"{criterion} {model}" not in header]
    if missing:
        raise ImportFormatError(path, 1, f"missing columns {missing}")
    if len(models) < 2:
        raise ImportFormatError(path, 1, f"expected at least two models' '{PIF_PREFIX}<model>' columns, found {models}")
    preferences = []
    for name in header:
        match = PREFERENCE_HEADER.match(name)
        if name.startswith("Preference") and not match:
            raise ImportFormatError(path, 1, f"cannot read the preference column {name!r}")
        if match:
            first, second = match["first"], match["second"]
            if first not in models or second not in models:
                raise ImportFormatError(path, 1, f"{name!r} names a model without scores (models: {models})")
            preferences.append((name, first, second))
    return models, preferences


def import_mmmt_if_release(path: str | Path, source: str | None = None) -> ReleaseImport:
    """Every good record parsed, each bad one a located problem; see the module docstring."""
    path = Path(path)
    source = source or f"{IMPORTER}:{path.stem}"
    problems: list[LoadProblem] = []
    header, records = _records(path, problems)
    models, preference_columns = _layout(header, path)
    responses, humans, seen, weights_seen = [], [], {}, None
    previous: dict[str, list[str]] = {}
    unwrapped = stray = ties = 0
    for line, cells in records:
        try:
            turn_rows, turn_humans, key, instructions, pif_weight = _record(
                dict(zip(header, cells)), path, line, source, models, preference_columns, seen, previous, weights_seen)
        except ImportFormatError as error:
            problems.append(refused(error))
            continue
        # Only a record that is used moves the file's state on (the turns seen, each chat's instructions).
        seen[key], previous[key[0]], weights_seen = line, instructions, pif_weight
        responses += turn_rows
        humans += turn_humans
        unwrapped += sum("\n" in cell for cell in cells)
        stray += turn_rows[0]["topic"] != turn_rows[0]["topic_raw"]
        ties += sum(h["value"] == 0.5 for h in turn_humans)
    if not responses:
        raise no_usable_record(path, problems)
    notes = [f"{len(seen)} turns of {len(previous)} conversations, {len(models)} models",
             f"{unwrapped} multi-line cells unwrapped", f"{stray} topic labels with stray apostrophes cleaned",
             f"{ties} human preferences of 0.5 read as ties", f"{len(problems)} records refused"]
    return ReleaseImport(source=source, path=str(path), models=models,
                         responses=pd.DataFrame(responses, columns=RESPONSE_COLUMNS),
                         human_preferences=pd.DataFrame(humans, columns=HUMAN_COLUMNS),
                         pif_weight=float(weights_seen), notes=notes, problems=problems)


def _record(row: dict[str, str], path: Path, line: int, source: str, models: list[str],
            preference_columns: list[tuple[str, str, str]], seen: dict, previous: dict[str, list[str]],
            weights_seen: float | None) -> tuple[list[dict], list[dict], tuple[str, int], list[str], float]:
    """One record's response rows, human preference rows, (chat, turn), instructions and PIF weight; a record
    that cannot be used raises ImportFormatError with its line."""
    chat_id = row[FIXED["chat"]].strip()
    turn_text = row[FIXED["turn"]].strip()
    if not chat_id or not turn_text.isdigit() or int(turn_text) < 1:
        raise ImportFormatError(path, line, f"needs a conversation id and a turn number ≥ 1, found "
                                            f"{chat_id!r} / {turn_text!r}", FIXED["turn"] if chat_id else FIXED["chat"])
    turn = int(turn_text)
    if (chat_id, turn) in seen:
        raise ImportFormatError(path, line, f"conversation {chat_id} turn {turn} was already read at line "
                                            f"{seen[(chat_id, turn)]}", FIXED["turn"])
    weights = [_number(w, path, line, FIXED["weights"]) for w in row[FIXED["weights"]].split()]
    if len(weights) != len(CRITERIA) + 1 or any(w != 1.0 for w in weights[:-1]):
        raise ImportFormatError(path, line, f"{FIXED['weights']!r}: expected '1 ×8 then the PIF weight', found "
                                            f"{row[FIXED['weights']]!r:.60}", FIXED["weights"])
    if weights_seen is not None and weights[-1] != weights_seen:
        raise ImportFormatError(path, line, f"PIF weight {weights[-1]:g} differs from {weights_seen:g} above",
                                FIXED["weights"])
    instructions = split_instructions(row[FIXED["instructions"]])
    count_number = _number(row[FIXED["count"]], path, line, FIXED["count"])
    if not count_number.is_integer():
        raise ImportFormatError(path, line, f"{FIXED['count']!r} must be a whole number, found {row[FIXED['count']]!r}",
                                FIXED["count"])
    count = int(count_number)
    if count != len(instructions):
        raise ImportFormatError(path, line, f"{FIXED['instructions']!r}: instruction count {count} but "
                                            f"{len(instructions)} instructions listed", FIXED["instructions"])
    earlier = previous.get(chat_id, [])
    if instructions[:len(earlier)] != earlier:
        raise ImportFormatError(path, line, f"{FIXED['instructions']!r}: not the previous turn's instructions "
                                            f"plus new ones", FIXED["instructions"])
    topic_raw = unwrap(row[FIXED["topic"]])
    responses = []
    for model in models:
        scores = {column: _number(row[f"{criterion} {model}"], path, line, f"{criterion} {model}")
                  for criterion, column in CRITERIA.items()}
        pif = _number(row[PIF_PREFIX + model], path, line, PIF_PREFIX + model)
        if not 0.0 <= pif <= 1.0:
            raise ImportFormatError(path, line, f"{PIF_PREFIX + model!r}: {pif} is outside [0, 1]", PIF_PREFIX + model)
        responses.append({"source": source, "chat_id": chat_id, "turn": turn, "model": model, "line": line,
                          "n_instructions": count, "instructions": instructions,
                          "prompt": unwrap(row[FIXED["prompt"]]), "topic": clean_label(topic_raw),
                          "topic_raw": topic_raw, "capability": clean_label(row[FIXED["capability"]]),
                          **scores, "pif": pif, "pif_weight": weights[-1]})
    humans = []
    for column, first, second in preference_columns:
        value = _number(row[column], path, line, column)
        if value not in HUMAN_VALUES:
            raise ImportFormatError(path, line, f"{column!r} must be 1, 0 or 0.5, found {row[column]!r}", column)
        humans.append({"source": source, "chat_id": chat_id, "turn": turn, "model_a": first, "model_b": second,
                       "value": value, "preferred": HUMAN_VALUES[value], "line": line})
    return responses, humans, (chat_id, turn), instructions, weights[-1]
