"""Redundancy with other benchmarks (README.md#redundancy-with-other-benchmarks): across models, how well another benchmark's scores
predict ours — Spearman's rank correlation and R² — so a user sees whether a leaderboard measures
something the others do not.

Other benchmarks' scores arrive as CSV files in a drop folder, one row per model: a `model` column, then
one column per benchmark (its header is the benchmark's name), a number or an empty cell (the model was
not scored there; a row may leave out its trailing empty cells). The model is matched to a registry entry
by slug or display name (case and spaces ignored). A cell that is not a number is a problem with its file
and line, never a guess; a (benchmark, model) given twice counts once, the first in file-name order (the
later one is a duplicate). A row with cells beyond the header, or whose quoting is broken, is a problem of
its line; a quoted cell never closed is a problem at the line its row starts on (nothing after it can be
read); a header naming a benchmark twice refuses the file (`benchwright.loading.csv_table`).

R² is the coefficient of determination of the least-squares line through the two scores (for one
predictor, the squared Pearson correlation). Both need at least three models scored on both sides;
with fewer the row says so (`n_models`) and the figures are NULL.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from benchwright.loading import (bad_bytes_cell, csv_table, decode_keeping_bad_bytes, has_bad_bytes, once_each,
                                 without_unfinished_line)

MIN_MODELS = 3
SCORE_COLUMNS = ["benchmark", "model", "model_as_written", "score", "source_file", "source_line"]
REDUNDANCY_COLUMNS = ["leaderboard", "judge", "other_benchmark", "n_models", "spearman", "spearman_p", "r2",
                      "models"]


def model_key(name: str) -> str:
    """How a model name is compared: case and spaces do not matter."""
    return "".join(name.split()).lower()


def read_scores_csv(path: Path, aliases: Mapping[str, str]) -> tuple[list[dict], list[dict]]:
    """Score rows and problems ({location, reason}) of one CSV. `aliases` maps `model_key` of each
    registry slug and display name to the slug; a model not in it is kept under its own name."""
    # Bytes that are not UTF-8 survive as surrogate escapes: the record holding them is refused, not the file.
    text = decode_keeping_bad_bytes(path.read_bytes())
    text, unfinished = without_unfinished_line(text)
    problems = [{"location": path.name, "reason": "last line has no line end (still being written?): not read"}] \
        if unfinished.strip() else []
    table = csv_table(text, short_records_ok=True)  # trailing benchmarks may be left out
    if table.header_problem or has_bad_bytes("".join(table.header)):
        return [], problems + [{"location": f"{path.name}:1",
                                "reason": table.header_problem or "the header holds bytes that are not UTF-8"}]
    header = table.header
    if header[0].lower() != "model" or len(header) < 2:
        return [], problems + [{"location": f"{path.name}:1",
                                "reason": "the first column must be `model`, then one column per benchmark"}]
    benchmarks = header[1:]
    rows = []
    for record in table.records:
        line, cells = record.line, record.cells
        if record.problem or has_bad_bytes("".join(cells)):
            problems.append({"location": f"{path.name}:{line}", "reason": record.problem or "bytes that are not UTF-8",
                             "field": None if record.problem else bad_bytes_cell(header, cells)})
            continue
        written = cells[0].strip()
        if not written:
            problems.append({"location": f"{path.name}:{line}", "reason": "no model name", "field": header[0]})
            continue
        for position, (benchmark, cell) in enumerate(zip(benchmarks, cells[1:]), start=2):
            if not cell.strip():
                continue
            if not benchmark:
                problems.append({"location": f"{path.name}:{line}",
                                 "reason": f"score {cell.strip()!r} of {written} is in a column without a name",
                                 "field": f"column {position}"})
                continue
            try:
                score = float(cell)
            except ValueError:
                score = math.nan
            if not math.isfinite(score):
                problems.append({"location": f"{path.name}:{line}",
                                 "reason": f"score of {written} on {benchmark} is not a number: {cell.strip()!r}",
                                 "field": benchmark})
                continue
            rows.append({"benchmark": benchmark, "model": aliases.get(model_key(written), written),
                         "model_as_written": written, "score": score, "source_file": path.name, "source_line": line})
    return rows, problems


def read_scores_folder(folder: Path, aliases: Mapping[str, str]) -> tuple[pd.DataFrame, list[dict]]:
    """Every complete CSV of the folder (by name), each (benchmark, model) once."""
    rows, problems = [], []
    for path in sorted(folder.glob("*.csv")) if folder.is_dir() else []:
        file_rows, file_problems = read_scores_csv(path, aliases)
        rows += file_rows
        problems += file_problems
    kept, repeats = once_each(rows, ["benchmark", "model"], identity="benchmark")
    problems += [{"location": place, "reason": reason} for place, reason in repeats]
    return pd.DataFrame(kept, columns=SCORE_COLUMNS), problems


def our_scores_sql(queries: list[str]) -> str:
    """One query over every leaderboard of ours, as (leaderboard, judge, model, score): the score queries each
    benchmark declares (``benchwright.benchmarks.ScoreQuery``), in declaration order, one after another."""
    if not queries:
        return ("SELECT NULL::VARCHAR AS leaderboard, NULL::VARCHAR AS judge, NULL::VARCHAR AS model, "
                "NULL::DOUBLE AS score WHERE false")
    # Each as a subquery of its own, so its comments, UNIONs and column names stay its own.
    return "\nUNION ALL\n".join(f"SELECT leaderboard, judge, model, score FROM (\n{query.strip().rstrip(';')}\n)"
                                 for query in queries)


def redundancy(ours: pd.DataFrame, theirs: pd.DataFrame) -> pd.DataFrame:
    """Spearman and R² of each of our leaderboards (`ours`: leaderboard, judge, model, score) against each
    other benchmark (`theirs`: benchmark, model, score), over the models scored on both."""
    from scipy import stats

    out = []
    for (leaderboard, judge), board in ours.dropna(subset=["score"]).groupby(["leaderboard", "judge"], sort=True):
        for benchmark, other in theirs.groupby("benchmark", sort=True):
            both = board.merge(other[["model", "score"]], on="model", suffixes=("", "_other")).sort_values("model")
            n = len(both)
            spearman = p_value = r2 = None
            if n >= MIN_MODELS and both["score"].nunique() > 1 and both["score_other"].nunique() > 1:
                rank = stats.spearmanr(both["score"], both["score_other"])
                spearman, p_value = float(rank.statistic), float(rank.pvalue)
                r2 = float(stats.linregress(both["score_other"], both["score"]).rvalue ** 2)
            out.append({"leaderboard": leaderboard, "judge": judge, "other_benchmark": benchmark, "n_models": n,
                        "spearman": spearman, "spearman_p": p_value, "r2": r2,
                        "models": ", ".join(both["model"])})
    return pd.DataFrame(out, columns=REDUNDANCY_COLUMNS)
