"""Creation metrics (benchwright/creation/README.md#scoring): the leaderboard (Reward, Win Rate, VFS per judge × model × scope) and the
judges' quality (position-swap consistency, preference for the first answer and for the longer one).

The assets compute both in DuckDB with the SQL files named below, over the judgment tables (10^6 rows
would take seconds in pandas). The functions here are the reference those queries must equal, row for
row: a test runs both on the same judgments.
"""

from __future__ import annotations


import pandas as pd

from benchwright.pairwise import summarize, swap_consistency

LEADERBOARD_COLUMNS = [
    "judge", "model", "scope", "scope_value", "vfs", "vfs_n", "vfs_fail",
    "reward", "win_rate", "mb", "better", "tie", "worse", "mw", "fail", "n",
]  # fmt: skip

# Under sql/ (Warehouse.query_file): the same tables as leaderboard() and judge_quality() return.
LEADERBOARD_SQL = "creation/queries/leaderboard.sql"
JUDGE_QUALITY_SQL = "creation/queries/judge_quality.sql"

_SCOPES = (("overall", None), ("category", "category"), ("task", "task"))


def _vfs_summary(rows: pd.DataFrame) -> dict:
    parsed = rows[rows["parse_ok"].astype(bool) & rows["score_b"].notna()]
    return {
        "vfs": float(parsed["score_b"].mean()) if len(parsed) else None,
        "vfs_n": int(len(parsed)),
        "vfs_fail": int(len(rows) - len(parsed)),
    }


def _pairwise_summary(rows: pd.DataFrame) -> dict:
    summary = summarize(rows["outcome"])
    return {
        "reward": summary["reward"],
        "win_rate": summary["win_rate"],
        "mb": summary["MB"],
        "better": summary["B"],
        "tie": summary["T"],
        "worse": summary["W"],
        "mw": summary["MW"],
        "fail": summary["Fail"],
        "n": summary["n"],
    }


def leaderboard(pairwise: pd.DataFrame, vfs: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """The results table: one row per (judge, model, scope, scope_value).

    scope is 'overall' (scope_value 'all'), 'category' or 'task'. Pairwise metrics pool all
    judgments of both orders (dual evaluation) through ``summarize``; vfs is the mean of the
    parsed candidate (B) scores, vfs_fail counts VFS judgments without a parsed B score.
    A (judge, model) present in only one of the two tables gets empty metrics for the other.
    vfs, reward and win_rate are float columns: "no parsed judgment" is NaN there (NULL once
    written to DuckDB), never 0. Judgments of items missing from ``items`` count in 'overall'
    only.
    """
    item_scopes = items[["item_id", "category", "task"]].drop_duplicates("item_id")
    pairwise = pairwise.merge(item_scopes, on="item_id", how="left")
    vfs = vfs.merge(item_scopes, on="item_id", how="left")

    rows = []
    for scope, column in _SCOPES:
        keys = ["judge", "model"] + ([column] if column else [])
        pairwise_groups = dict(iter(pairwise.groupby(keys, dropna=True))) if len(pairwise) else {}
        vfs_groups = dict(iter(vfs.groupby(keys, dropna=True))) if len(vfs) else {}
        for key in sorted(set(pairwise_groups) | set(vfs_groups)):
            judge, model = key[0], key[1]
            scope_value = key[2] if column else "all"
            row = {"judge": judge, "model": model, "scope": scope, "scope_value": scope_value}
            row.update(_vfs_summary(vfs_groups.get(key, vfs.iloc[0:0])))
            row.update(_pairwise_summary(pairwise_groups.get(key, pairwise.iloc[0:0])))
            rows.append(row)

    table = pd.DataFrame(rows, columns=LEADERBOARD_COLUMNS)
    for column in ("vfs", "reward", "win_rate"):
        table[column] = table[column].astype("float64")
    return table


JUDGE_QUALITY_COLUMNS = [
    "judge", "pairs", "exact_consistency", "relaxed_consistency",
    "parse_rate", "p_prefer_first", "p_prefer_longer",
]  # fmt: skip


def _share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _judge_quality_row(judge: str, rows: pd.DataFrame) -> dict:
    parsed = rows[rows["parse_ok"].astype(bool)]
    # Pair each (model, item)'s two orders by a join, not a per-pair loop: imports bring 10^4+ pairs.
    by_pair = ["model", "item_id"]
    first = parsed[parsed["judge_order"] == 1].drop_duplicates(by_pair).set_index(by_pair)["verdict"]
    second = parsed[parsed["judge_order"] == 2].drop_duplicates(by_pair).set_index(by_pair)["verdict"]
    both = first.to_frame("order1").join(second.rename("order2"), how="inner")
    checked = [swap_consistency(a, b) for a, b in zip(both["order1"], both["order2"])]
    exact = [e for e, _ in checked if e is not None]
    relaxed = [r for e, r in checked if e is not None]

    decided = parsed[parsed["verdict"].isin(["A>>B", "A>B", "B>A", "B>>A"])]
    winner = decided["verdict"].str[0]  # 'A' or 'B': the position the judge preferred
    # Imported judgments may lack answer lengths (NULL): they count for position, not for length.
    candidate_len = pd.to_numeric(decided["candidate_len"], errors="coerce").astype("float64")
    baseline_len = pd.to_numeric(decided["baseline_len"], errors="coerce").astype("float64")
    candidate_first = decided["candidate_position"] == "A"
    length_a = candidate_len.where(candidate_first, baseline_len)
    length_b = baseline_len.where(candidate_first, candidate_len)
    comparable = length_a.notna() & length_b.notna() & (length_a != length_b)
    longer = (length_a > length_b).map({True: "A", False: "B"})

    return {
        "judge": judge,
        "pairs": len(exact),
        "exact_consistency": _share(exact),
        "relaxed_consistency": _share(relaxed),
        "parse_rate": _share(list(rows["parse_ok"].astype(bool))),
        "p_prefer_first": _share(list(winner == "A")),
        "p_prefer_longer": _share(list((winner == longer)[comparable])),
    }


def judge_quality(pairwise: pd.DataFrame) -> pd.DataFrame:
    """Per-judge quality of pairwise judging (benchwright/creation/README.md#position-consistency; docs/ARCHITECTURE.md#checks).

    pairs: (model, item) pairs whose two orders both parsed; exact/relaxed consistency are
    shares of those pairs (see ``swap_consistency``). parse_rate: parsed judgments / all
    judgments. p_prefer_first: among parsed verdicts that are not ties, the share preferring
    position A (an unbiased judge on balanced pairs sits near 0.5). p_prefer_longer: among
    parsed non-tie verdicts whose two answers differ in length (characters), the share
    preferring the longer answer. Each is None (NaN in the float columns) when its
    denominator is 0.
    """
    rows = [_judge_quality_row(judge, group) for judge, group in pairwise.groupby("judge")]
    table = pd.DataFrame(rows, columns=JUDGE_QUALITY_COLUMNS)
    for column in JUDGE_QUALITY_COLUMNS[2:]:
        table[column] = table[column].astype("float64")
    return table
