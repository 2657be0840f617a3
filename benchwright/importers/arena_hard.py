"""Arena-Hard judgment files (``model_judgment/<judge>/<model>.jsonl``).

One JSON object per line: ``question_id`` (v0.1) or ``uid`` (v2), ``model``, ``judge`` and
``games``: a list of one or two games, each with a ``score`` (a verdict such as ``A>>B``, or null
when Arena-Hard's own parser found none) and optionally the judge's text (``judgment``, a string or
a structured object). Game 1 has the baseline as A and the model as B; game 2 swaps them. They
become our judge_order 1 and 2.

A score that is null or not a verdict is kept as an unparsed judgment (``parse_ok`` false), which is
how Arena-Hard treats it too (weight 0). A record with a single game gets one row only; Arena-Hard's
scoring reuses game 1 as game 2 for such a record, which ``ratings.battles_from_judgments``
reproduces with ``reuse_single_game=True`` (the row itself is never invented).

A bad record (bad JSON or bytes that are not UTF-8 on its line, a missing or mistyped field, zero or
more than two games, the same (model, judge, question) twice) is refused: it becomes a located problem
(``<file>:<line>``) in ``problems`` and the file's other records are imported.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from benchwright.importers import (
    ImportedSet,
    ImportFormatError,
    LoadProblem,
    canonical_verdict,
    iter_jsonl,
    judgment_row,
    judgments_frame,
    no_usable_record,
    raw_text,
    record_problem,
    refused,
    require,
    source_name,
)
from benchwright.loading import bad_bytes_cell, csv_table, has_bad_bytes, read_text_keeping_bad_bytes

IMPORTER = "arena_hard"


def parse_arena_hard_file(path: str | Path, source: str, problems: list[LoadProblem]) -> tuple[list[dict], int]:
    """Judgment rows of one file, and how many of its records had a single game; bad records go to ``problems``.
    A file without one usable record raises."""
    path = Path(path)
    rows, single_game, file_problems = [], 0, []
    for line, record in iter_jsonl(path, file_problems):
        try:
            record_rows = _record_rows(record, path, line, source)
        except ImportFormatError as error:
            file_problems.append(refused(error))
            continue
        single_game += len(record_rows) == 1
        rows += record_rows
    if not rows:
        raise no_usable_record(path, file_problems)
    problems += file_problems
    return rows, single_game


def _record_rows(record: object, path: Path, line: int, source: str) -> list[dict]:
    if not isinstance(record, dict):
        raise ImportFormatError(path, line, f"expected a JSON object, found {type(record).__name__}")
    id_key = "question_id" if "question_id" in record else "uid"
    question_id = require(record, path, line, id_key, (str, int), "the question id (question_id or uid)")
    model = require(record, path, line, "model", (str,), "the model name")
    judge = require(record, path, line, "judge", (str,), "the judge name")
    games = require(record, path, line, "games", (list,), "a list of one or two games")
    if not model or not judge:
        raise ImportFormatError(path, line, "model and judge must not be empty", "judge" if model else "model")
    if not 1 <= len(games) <= 2:
        raise ImportFormatError(path, line, f"'games': expected one or two games, found {len(games)}", "games")
    rows = []
    for order, game in enumerate(games, start=1):
        if not isinstance(game, dict) or "score" not in game:
            raise ImportFormatError(path, line, f"game {order} has no 'score' field", f"games[{order - 1}].score")
        score = game["score"]
        if score is not None and not isinstance(score, str):
            raise ImportFormatError(path, line, f"game {order}: score must be a verdict string or null, "
                                                f"found {score!r:.40}", f"games[{order - 1}].score")
        verdict = canonical_verdict(score) if score else None
        rows.append(judgment_row(source=source, model=model, judge=judge, item_id=str(question_id),
                                 judge_order=order, verdict=verdict,
                                 raw_text=raw_text(game.get("judgment")) or score))
        rows[-1]["_line"] = line
    return rows


def import_arena_hard(paths: list[str | Path], dataset: str, baseline: str,
                      style_metadata: str | Path | None = None) -> ImportedSet:
    """Every file parsed, each bad record a located problem; one source ``arena_hard:<dataset>``.

    ``baseline`` is the model every record was compared with (Arena-Hard keeps it in its judge
    config, not in the judgment files). ``style_metadata``: a table of the answers' style counts
    (``read_answer_style``) for style-controlled ratings; the notes say which judged models it lacks.
    """
    if not paths:
        raise ValueError("no Arena-Hard judgment files given")
    source = source_name(IMPORTER, dataset)
    rows, single_game, seen, problems = [], 0, {}, []
    for path in sorted(Path(p) for p in paths):
        file_rows, file_single = parse_arena_hard_file(path, source, problems)
        single_game += file_single
        by_record: dict[int, list[dict]] = {}
        for row in file_rows:
            by_record.setdefault(row.pop("_line"), []).append(row)
        for line, record_rows in by_record.items():
            first = record_rows[0]
            key = (first["model"], first["judge"], first["item_id"])
            if key in seen:
                problems.append(record_problem(path, line, f"question {first['item_id']} of model "
                                                           f"{first['model']!r} (judge {first['judge']!r}) was "
                                                           f"already read at {seen[key]}", "question_id"))
                single_game -= len(record_rows) == 1
                continue
            seen[key] = f"{path.name}, line {line}"
            rows += record_rows
    notes = [f"{single_game} records with a single game (Arena-Hard reuses game 1 as game 2 when scoring)",
             f"{len(problems)} records refused"]
    files = [str(p) for p in sorted(Path(p) for p in paths)]
    style = {}
    if style_metadata is not None:
        style["answer_style"] = read_answer_style(style_metadata, source, problems)
        files.append(str(style_metadata))
        lacking = sorted(({row["model"] for row in rows} | {baseline}) - set(style["answer_style"]["model"]))
        notes.append(f"answer style for {style['answer_style']['model'].nunique()} models, none for {lacking} "
                     f"(their battles are left out of style-controlled ratings)")
    return ImportedSet(importer=IMPORTER, dataset=dataset, judgments=judgments_frame(rows), baseline=baseline,
                       files=files, notes=notes, problems=problems, **style)


STYLE_METADATA_COLUMNS = ["model", "question_id", "token_len", "h1", "h2", "h3", "h4", "h5", "h6",
                          "list_ordered", "list_unordered", "bold_star", "bold_underscore"]


def read_answer_style(path: str | Path, source: str, problems: list[LoadProblem] | None = None) -> pd.DataFrame:
    """Style counts of the answers (``ratings.STYLE_COLUMNS``) from a table of Arena-Hard's ``conv_metadata``.

    One CSV row per answer with the columns ``STYLE_METADATA_COLUMNS`` (each answer's ``conv_metadata``
    flattened: ``token_len``, header counts ``h1``–``h6``, ordered and unordered list items, ``**`` and
    ``__`` bold spans). Arena-Hard's style control sums each group: headers = h1 + … + h6, lists =
    ordered + unordered, bold = both kinds; ``tokens`` = token_len. A row that cannot be read (broken
    quoting, a cell count unlike the header's, bytes that are not UTF-8, a count that is not a non-negative
    integer) is refused into ``problems`` (``<file>:<line>``); without ``problems`` the first one raises. A
    file without a header or without a column raises ``ImportFormatError``.
    """
    path = Path(path)
    try:
        text = read_text_keeping_bad_bytes(path, "style metadata")
    except (OSError, ValueError) as error:
        raise ImportFormatError(path, None, f"cannot be read: {error}") from error
    table = csv_table(text)
    if table.header_problem:
        raise ImportFormatError(path, 1, table.header_problem)
    missing = [c for c in STYLE_METADATA_COLUMNS if c not in table.header]
    if missing:
        raise ImportFormatError(path, 1, f"style metadata lacks columns {missing}")
    refused_rows: list[LoadProblem] = []
    rows = []
    for record in table.records:
        cells = dict(zip(table.header, record.cells))
        bad = [c for c in STYLE_METADATA_COLUMNS[2:] if not cells.get(c, "").isascii() or not cells.get(c, "").isdigit()]
        if record.problem or has_bad_bytes("".join(record.cells)):
            refused_rows.append(record_problem(path, record.line, record.problem or "bytes that are not UTF-8",
                                               None if record.problem else bad_bytes_cell(table.header, record.cells)))
        elif bad:
            refused_rows.append(record_problem(path, record.line, f"{bad[0]!r}: style counts must be non-negative "
                                                                  f"integers, found {cells[bad[0]]!r:.40}", bad[0]))
        else:
            rows.append(cells)
    if problems is None and refused_rows:
        first = refused_rows[0]
        raise ImportFormatError(path, int(first.location.rsplit(":", 1)[1]), first.reason)
    if problems is not None:
        problems += refused_rows
    counts = pd.DataFrame(rows, columns=STYLE_METADATA_COLUMNS)
    numbers = counts[STYLE_METADATA_COLUMNS[2:]].astype("int64")
    return pd.DataFrame({
        "source": source, "model": counts["model"], "item_id": counts["question_id"],
        "tokens": numbers["token_len"],
        "headers": numbers[[f"h{k}" for k in range(1, 7)]].sum(axis=1),
        "lists": numbers["list_ordered"] + numbers["list_unordered"],
        "bold": numbers["bold_star"] + numbers["bold_underscore"],
    })
