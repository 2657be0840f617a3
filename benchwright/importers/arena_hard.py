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

Format errors (bad JSON, a missing or mistyped field, zero or more than two games, the same
(model, judge, question) twice) raise ``ImportFormatError`` with the file and line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from benchwright.importers import (
    ImportedSet,
    ImportFormatError,
    canonical_verdict,
    iter_jsonl,
    judgment_row,
    judgments_frame,
    raw_text,
    require,
    source_name,
)

IMPORTER = "arena_hard"


def parse_arena_hard_file(path: str | Path, source: str) -> tuple[list[dict], int]:
    """Judgment rows of one file, and how many of its records had a single game."""
    path = Path(path)
    rows, single_game = [], 0
    for line, record in iter_jsonl(path):
        if not isinstance(record, dict):
            raise ImportFormatError(path, line, f"expected a JSON object, found {type(record).__name__}")
        id_key = "question_id" if "question_id" in record else "uid"
        question_id = require(record, path, line, id_key, (str, int), "the question id (question_id or uid)")
        model = require(record, path, line, "model", (str,), "the model name")
        judge = require(record, path, line, "judge", (str,), "the judge name")
        games = require(record, path, line, "games", (list,), "a list of one or two games")
        if not model or not judge:
            raise ImportFormatError(path, line, "model and judge must not be empty")
        if not 1 <= len(games) <= 2:
            raise ImportFormatError(path, line, f"expected one or two games, found {len(games)}")
        single_game += len(games) == 1
        for order, game in enumerate(games, start=1):
            if not isinstance(game, dict) or "score" not in game:
                raise ImportFormatError(path, line, f"game {order} has no 'score' field")
            score = game["score"]
            if score is not None and not isinstance(score, str):
                raise ImportFormatError(path, line, f"game {order}: score must be a verdict string or null, "
                                                    f"found {score!r:.40}")
            verdict = canonical_verdict(score) if score else None
            rows.append(judgment_row(source=source, model=model, judge=judge, item_id=str(question_id),
                                     judge_order=order, verdict=verdict,
                                     raw_text=raw_text(game.get("judgment")) or score))
            rows[-1]["_line"] = line
    return rows, single_game


def import_arena_hard(paths: list[str | Path], dataset: str, baseline: str,
                      style_metadata: str | Path | None = None) -> ImportedSet:
    """Every file parsed (or the first located error raised); one source ``arena_hard:<dataset>``.

    ``baseline`` is the model every record was compared with (Arena-Hard keeps it in its judge
    config, not in the judgment files). ``style_metadata``: a table of the answers' style counts
    (``read_answer_style``) for style-controlled ratings; the notes say which judged models it lacks.
    """
    if not paths:
        raise ValueError("no Arena-Hard judgment files given")
    source = source_name(IMPORTER, dataset)
    rows, single_game, seen = [], 0, {}
    for path in sorted(Path(p) for p in paths):
        file_rows, file_single = parse_arena_hard_file(path, source)
        single_game += file_single
        for row in file_rows:
            line = row.pop("_line")
            key = (row["model"], row["judge"], row["item_id"], row["judge_order"])
            if key in seen:
                raise ImportFormatError(path, line, f"question {row['item_id']} of model {row['model']!r} "
                                                    f"(judge {row['judge']!r}) was already read at {seen[key]}")
            seen[key] = f"{path.name}, line {line}"
            rows.append(row)
    notes = [f"{single_game} records with a single game (Arena-Hard reuses game 1 as game 2 when scoring)"]
    files = [str(p) for p in sorted(Path(p) for p in paths)]
    style = {}
    if style_metadata is not None:
        style["answer_style"] = read_answer_style(style_metadata, source)
        files.append(str(style_metadata))
        lacking = sorted(({row["model"] for row in rows} | {baseline}) - set(style["answer_style"]["model"]))
        notes.append(f"answer style for {style['answer_style']['model'].nunique()} models, none for {lacking} "
                     f"(their battles are left out of style-controlled ratings)")
    return ImportedSet(importer=IMPORTER, dataset=dataset, judgments=judgments_frame(rows), baseline=baseline,
                       files=files, notes=notes, **style)


STYLE_METADATA_COLUMNS = ["model", "question_id", "token_len", "h1", "h2", "h3", "h4", "h5", "h6",
                          "list_ordered", "list_unordered", "bold_star", "bold_underscore"]


def read_answer_style(path: str | Path, source: str) -> pd.DataFrame:
    """Style counts of the answers (``ratings.STYLE_COLUMNS``) from a table of Arena-Hard's ``conv_metadata``.

    One CSV row per answer with the columns ``STYLE_METADATA_COLUMNS`` (each answer's ``conv_metadata``
    flattened: ``token_len``, header counts ``h1``–``h6``, ordered and unordered list items, ``**`` and
    ``__`` bold spans). Arena-Hard's style control sums each group: headers = h1 + … + h6, lists =
    ordered + unordered, bold = both kinds; ``tokens`` = token_len. A missing column or a count that is
    not a non-negative integer raises ``ImportFormatError`` with the line.
    """
    path = Path(path)
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in STYLE_METADATA_COLUMNS if c not in table.columns]
    if missing:
        raise ImportFormatError(path, 1, f"style metadata lacks columns {missing}")
    counts = table[STYLE_METADATA_COLUMNS[2:]]
    bad = ~counts.apply(lambda column: column.str.fullmatch(r"\d+")).all(axis=1)
    if bad.any():
        line = int(np.flatnonzero(bad.to_numpy())[0]) + 2  # the header is line 1
        raise ImportFormatError(path, line, "style counts must be non-negative integers")
    counts = counts.astype("int64")
    return pd.DataFrame({
        "source": source, "model": table["model"], "item_id": table["question_id"],
        "tokens": counts["token_len"],
        "headers": counts[[f"h{k}" for k in range(1, 7)]].sum(axis=1),
        "lists": counts["list_ordered"] + counts["list_unordered"],
        "bold": counts["bold_star"] + counts["bold_underscore"],
    })
