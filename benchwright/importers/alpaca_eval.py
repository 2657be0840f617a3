"""AlpacaEval annotation files (``results/<model>/<annotator>/annotations.json``).

One JSON array; each record has ``instruction``, ``output_1`` (the baseline's answer, by
``generator_1``), ``output_2`` (the model's, by ``generator_2``), ``annotator`` and ``preference``:
1 = output_1 better, 2 = output_2 better, any value in between for a graded (weighted) annotator,
1.5 a draw, 0 a draw in the older format, null when the annotator gave no usable answer.

AlpacaEval shows the baseline first, which is our judge_order 1 (baseline in A). Each record becomes
one judgment whose verdict is read from the preference: below 1.5 ``A>B``, 1.5 (or 0) ``A=B``,
above 1.5 ``B>A`` (AlpacaEval has no "much better"); a null preference is an unparsed judgment.
The exact graded preference is kept in ``preferences``, from which ``ratings.preference_win_rate``
computes AlpacaEval's leaderboard figures. The source is ``alpaca_eval:<annotator>``, the judge is
the annotator, the model is ``generator_2``, the baseline ``generator_1``.

``item_id`` is the first 16 hex digits of the sha256 of the instruction (the records carry no
id; the same instruction gets the same id in every model's file). A record with a preference outside
{0} ∪ [1, 2], a missing field, invalid JSON or bytes that are not UTF-8, another baseline than the
source's first, or an instruction already annotated for its model is refused: a located problem
(``<file>:<line>``) in the set's ``problems``, the other records imported. A file that is not a JSON
array, or holds no usable record, raises ``ImportFormatError``.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pandas as pd

from benchwright.importers import (
    PREFERENCE_COLUMNS,
    ImportedSet,
    ImportFormatError,
    LoadProblem,
    iter_json_array,
    judgment_row,
    judgments_frame,
    no_usable_record,
    raw_text,
    record_problem,
    refused,
    require,
    source_name,
    text_length,
)

IMPORTER = "alpaca_eval"


def item_id_for(instruction: str) -> str:
    return hashlib.sha256(instruction.encode("utf-8")).hexdigest()[:16]


def verdict_from_preference(preference: float | None) -> str | None:
    """Baseline-first verdict for a preference (see the module docstring); None when missing."""
    if preference is None:
        return None
    if preference == 0 or preference == 1.5:
        return "A=B"
    return "A>B" if preference < 1.5 else "B>A"


def _preference(record: dict, path: Path, line: int) -> float | None:
    if "preference" not in record:
        raise ImportFormatError(path, line, "missing field 'preference'", "preference")
    value = record["preference"]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ImportFormatError(path, line, f"preference must be a number or null, found {value!r:.40}", "preference")
    value = float(value)
    if math.isnan(value):
        return None
    if value != 0 and not 1.0 <= value <= 2.0:
        raise ImportFormatError(path, line, f"preference {value} is outside [1, 2] (0 means a draw)", "preference")
    return value


def parse_annotations_file(path: str | Path, problems: list[LoadProblem]) -> list[dict]:
    """One dict per good record: annotator, baseline, model, item_id, preference, texts and line; the bad
    ones go to ``problems``. A file that is not an array or holds no usable record raises."""
    path = Path(path)
    records, before = [], len(problems)
    for line, record in iter_json_array(path, problems):
        try:
            instruction = require(record, path, line, "instruction", (str,), "the instruction text")
            records.append({
                "line": line,
                "annotator": require(record, path, line, "annotator", (str,), "the annotator name"),
                "baseline": require(record, path, line, "generator_1", (str,), "the baseline's name"),
                "model": require(record, path, line, "generator_2", (str,), "the model's name"),
                "item_id": item_id_for(instruction),
                "preference": _preference(record, path, line),
                "baseline_len": text_length(record.get("output_1")),
                "candidate_len": text_length(record.get("output_2")),
                "raw_completion": record.get("raw_completion"),
            })
        except ImportFormatError as error:
            problems.append(refused(error))
    if not records:
        raise no_usable_record(path, problems[before:])
    return records


def import_alpaca_eval(paths: list[str | Path]) -> list[ImportedSet]:
    """Every file parsed, each bad record a located problem (in the set of its file's first good record's
    annotator); one ImportedSet per annotator."""
    if not paths:
        raise ValueError("no AlpacaEval annotation files given")
    by_annotator: dict[str, dict] = {}
    unplaced: list[LoadProblem] = []  # a file's refused records, until its first good record names their set
    for path in sorted(Path(p) for p in paths):
        file_problems: list[LoadProblem] = []
        records = parse_annotations_file(path, file_problems)
        unplaced += file_problems
        for record in records:
            line, annotator = record["line"], record["annotator"]
            group = by_annotator.setdefault(annotator, {"baseline": record["baseline"], "baseline_at": (path, line),
                                                        "rows": [], "preferences": [], "files": [], "seen": {},
                                                        "problems": []})
            group["problems"] += unplaced
            unplaced = []
            if str(path) not in group["files"]:
                group["files"].append(str(path))
            if record["baseline"] != group["baseline"]:
                first_path, first_line = group["baseline_at"]
                group["problems"].append(record_problem(
                    path, line, f"'generator_1': baseline {record['baseline']!r} differs from {group['baseline']!r} "
                                f"({first_path.name}, line {first_line}) for annotator {annotator!r}", "generator_1"))
                continue
            key = (record["model"], record["item_id"])
            if key in group["seen"]:
                group["problems"].append(record_problem(
                    path, line, f"this instruction was already annotated for model {record['model']!r} at "
                                f"{group['seen'][key]}", "instruction"))
                continue
            group["seen"][key] = f"{path.name}, line {line}"
            source = source_name(IMPORTER, annotator)
            preference = record["preference"]
            raw = raw_text(record["raw_completion"]) or json.dumps({"preference": preference})
            group["rows"].append(judgment_row(
                source=source, model=record["model"], judge=annotator, item_id=record["item_id"], judge_order=1,
                verdict=verdict_from_preference(preference), raw_text=raw,
                candidate_len=record["candidate_len"], baseline_len=record["baseline_len"]))
            group["preferences"].append({"source": source, "judge": annotator, "model": record["model"],
                                         "baseline": record["baseline"], "item_id": record["item_id"],
                                         "preference": preference})
    sets = []
    for annotator, group in sorted(by_annotator.items()):
        preferences = pd.DataFrame(group["preferences"], columns=PREFERENCE_COLUMNS).astype({"preference": "float64"})
        sets.append(ImportedSet(importer=IMPORTER, dataset=annotator, judgments=judgments_frame(group["rows"]),
                                preferences=preferences, baseline=group["baseline"], files=group["files"],
                                notes=["one order per item (baseline first); graded preferences kept in "
                                       "interop_preferences", f"{len(group['problems'])} records refused"],
                                problems=group["problems"]))
    return sets
