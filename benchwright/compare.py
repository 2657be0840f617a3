"""Comparisons, item by item: two candidates under one judge, or two judges on the same judged items.

The counting is SQL (sql/core/queries/compare/: the item tables and their summaries, views `compare_models` and
`compare_judges`); this module reads those rows for people: which side a row puts first, the summary of one
pair, the items that flipped. Used by the comparison asset's preview and by `scripts/compare.py`.

An item *flipped* when one side has the candidate win where the other has it lose (a tie on either side
is no flip); *agreement* is the share of items where both sides give the same result (win, tie, loss).
"""

from __future__ import annotations

import pandas as pd

from benchwright.report import markdown_table, text_table

KINDS = {
    # kind: (side column in the tables, the columns naming what both sides share, item key columns)
    "models": ("model", ["judge"], ["item_id"]),
    "judges": ("judge", ["model"], ["item_id", "judge_order"]),
}
SUMMARY_COLUMNS = ["compared", "wins_a", "wins_b", "win_delta", "losses_a", "losses_b", "loss_delta",
                   "flipped", "agreement"]


def orient(items: pd.DataFrame, side: str, a: str, b: str) -> pd.DataFrame:
    """The rows of `items` (stored once per pair, `<side>_a` < `<side>_b`) for the pair (a, b), with a's
    columns as `*_a` whichever way they were stored."""
    forward = items[(items[f"{side}_a"] == a) & (items[f"{side}_b"] == b)]
    backward = items[(items[f"{side}_a"] == b) & (items[f"{side}_b"] == a)]
    swapped = backward.rename(columns={c: c[:-2] + ("_b" if c.endswith("_a") else "_a")
                                       for c in backward.columns if c.endswith(("_a", "_b"))})
    return pd.concat([forward, swapped[list(forward.columns)]], ignore_index=True)


def flipped_items(items: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The flipped rows of an oriented item table, with the columns that say why."""
    side, shared, keys = KINDS[kind]
    values = ["result_a", "result_b"] + (["verdict_a", "verdict_b"] if kind == "judges" else ["value_a", "value_b"])
    flipped = items[items["flipped"].fillna(False).astype(bool)]
    return flipped[shared + keys + values].sort_values(shared + keys).reset_index(drop=True)


def preview(summary: pd.DataFrame, kind: str) -> str:
    """Markdown for the asset's metadata: the pairs with the most flips first."""
    side, shared, _ = KINDS[kind]
    if summary.empty:
        return "_(no pairs to compare)_"
    once = summary[summary[f"{side}_a"] < summary[f"{side}_b"]]  # each pair once
    shown = once.sort_values(["flipped", "compared"], ascending=False)
    return markdown_table(shown[shared + [f"{side}_a", f"{side}_b"] + SUMMARY_COLUMNS], max_rows=15)


def report(kind: str, a: str, b: str, summary: pd.DataFrame, items: pd.DataFrame, max_items: int = 20) -> str:
    """The console text of one comparison: the summary rows of (a, b) and the items that flipped."""
    side, shared, _ = KINDS[kind]
    lines = [f"{kind[:-1]} {a} (a) vs {b} (b)"]
    if summary.empty:
        return "\n".join(lines + [f"nothing to compare: no items both were judged on (is each a {kind[:-1]} slug "
                                  "in the snapshot?)"])
    lines += ["", text_table(summary[shared + SUMMARY_COLUMNS + (["exact_agreement"] if kind == "judges" else [])])]
    flips = flipped_items(items, kind)
    lines += ["", f"{len(flips)} items flipped" + (f" (first {max_items})" if len(flips) > max_items else "")]
    if len(flips):
        lines.append(text_table(flips.head(max_items)))
    return "\n".join(lines)
