"""Agreement between judges and people on pairwise comparisons (benchwright/creation/README.md#human-alignment and the usual meta-evaluation figures).

Labels. A pair has a *first* and a *second* response: in our judgment tables the first is the one
shown in position A in order 1 (the baseline), the second is the candidate. A preference label is
``"first"``, ``"second"`` or ``"tie"``; a judge output that could not be parsed is ``None``.
``preferred`` reads a stored verdict (positions as displayed) back into these labels, so order 1
and order 2 can be compared directly.

Numeric scale (benchwright/creation/README.md#human-alignment). From the second response's (the candidate's) side: much better +2,
better +1, tie 0, worse −1, much worse −2. A label without strength maps to ±1. Dual evaluation
averages the two orders' values.

Failures. In the agreement shares a judge failure counts as a disagreement: the judge gave no
usable answer, and this is how the published tools count it (LLMBar's ``correct_*``, Auto-J's
agreement). The number of failures is always reported next to the shares. Numeric measures (MAE,
correlations) leave out items whose judge value is missing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from benchwright.pairwise import OUTCOME_VALUE, outcome
from benchwright.quality import between

FIRST, SECOND, TIE = "first", "second", "tie"
LABELS = (FIRST, SECOND, TIE)
LABEL_VALUE = {FIRST: -1.0, TIE: 0.0, SECOND: 1.0}

_WINNER_SIDE = {"A>>B": "A", "A>B": "A", "A=B": None, "B>A": "B", "B>>A": "B"}


def _missing(value) -> bool:
    """None, NaN or pandas' NA (what a missing verdict or label looks like after a round trip)."""
    return value is None or (not isinstance(value, str) and bool(pd.isna(value)))


def preferred(verdict: str | None, candidate_position: str) -> str | None:
    """'first', 'second' or 'tie' for a displayed verdict; None when the verdict is missing.

    ``candidate_position`` is where the second response stood ('B' in order 1, 'A' in order 2).
    """
    if _missing(verdict):
        return None
    if verdict not in _WINNER_SIDE:
        raise ValueError(f"not a canonical verdict: {verdict!r}")
    side = _WINNER_SIDE[verdict]
    if side is None:
        return TIE
    return SECOND if side == candidate_position else FIRST


def verdict_value(verdict: str | None, candidate_position: str) -> float | None:
    """The verdict on the −2..+2 scale from the second response's side, or None when missing."""
    if _missing(verdict):
        return None
    return float(OUTCOME_VALUE[outcome(verdict, candidate_position)])


def _labels(values: Sequence) -> list[str | None]:
    out = []
    for value in values:
        if _missing(value):
            out.append(None)
        elif value in LABELS:
            out.append(value)
        else:
            raise ValueError(f"not a preference label: {value!r} (expected one of {LABELS} or None)")
    return out


def _pairs(judge: Sequence, human: Sequence) -> tuple[list, list]:
    judge, human = _labels(judge), _labels(human)
    if len(judge) != len(human):
        raise ValueError(f"{len(judge)} judge labels but {len(human)} human labels")
    if any(h is None for h in human):
        raise ValueError("a human label is missing")
    return judge, human


def agreement(judge: Sequence, human: Sequence, ties: bool = True) -> float | None:
    """Share of items where the judge's label equals the human label (a judge failure disagrees).

    ``ties=False`` is agreement *without ties*: items where the human or the judge said 'tie' are
    left out (as in the MT-Bench judge-agreement tables). None when no item is left.
    """
    judge, human = _pairs(judge, human)
    kept = [(j, h) for j, h in zip(judge, human) if ties or (j != TIE and h != TIE)]
    if not kept:
        return None
    return sum(j == h for j, h in kept) / len(kept)


def dual_agreement(order1: Sequence, order2: Sequence, human: Sequence, rule: str = "both") -> float | None:
    """Agreement of a judge that saw every pair in both orders (labels already in original positions).

    rule 'both': an item counts only when *both* orders equal the human label (Auto-J's agreement).
    rule 'average': the mean of the two orders' agreements (LLMBar's ``correct_average``).
    """
    if rule == "average":
        first, second = agreement(order1, human), agreement(order2, human)
        return None if first is None else (first + second) / 2
    if rule != "both":
        raise ValueError(f"rule must be 'both' or 'average', not {rule!r}")
    order1, human = _pairs(order1, human)
    order2 = _labels(order2)
    if len(order2) != len(human):
        raise ValueError(f"{len(order2)} order-2 labels but {len(human)} human labels")
    if not human:
        return None
    return sum(a == h and b == h for a, b, h in zip(order1, order2, human)) / len(human)


def swap_consistency(order1: Sequence, order2: Sequence, failures_match: bool = False) -> float | None:
    """Share of pairs whose two orders give the same label (in original positions).

    By default a pair with a failure in either order is left out (as ``pairwise.swap_consistency``).
    ``failures_match=True`` treats a failure as one more label, so two failures agree: LLMBar's
    ``equal`` statistic counts that way.
    """
    order1, order2 = _labels(order1), _labels(order2)
    if len(order1) != len(order2):
        raise ValueError(f"{len(order1)} order-1 labels but {len(order2)} order-2 labels")
    pairs = list(zip(order1, order2))
    if not failures_match:
        pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
    if not pairs:
        return None
    return sum(a == b for a, b in pairs) / len(pairs)


def cohen_kappa(first: Sequence, second: Sequence) -> float | None:
    """Cohen's kappa between two raters' labels (items where either is missing are left out).

    kappa = (p_o − p_e) / (1 − p_e), p_o the observed agreement, p_e the agreement expected from
    the two raters' label frequencies. None when no item is left or p_e is 1 (one label only).
    """
    pairs = [(a, b) for a, b in zip(first, second) if not _missing(a) and not _missing(b)]
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    # Summed in a fixed order: over a set the float sum's last digit changed from one process to the next.
    labels = sorted({a for a, _ in pairs} | {b for _, b in pairs}, key=str)
    expected = sum((sum(a == k for a, _ in pairs) / n) * (sum(b == k for _, b in pairs) / n) for k in labels)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa from a table of counts: one row per item, one column per category, each row the number
    of raters who chose that category (every row must sum to the same number of raters, at least two).

    kappa = (P̄ − P_e) / (1 − P_e), with P_i = (Σ_j n_ij² − n) / (n (n − 1)) the agreement on item i,
    P̄ their mean, p_j = Σ_i n_ij / (N n) and P_e = Σ_j p_j². None with no item or when P_e is 1 (one
    category only). statsmodels has it, but is not a dependency for one formula.
    """
    table = np.asarray(counts, dtype=float)
    if table.size == 0:
        return None
    raters = table.sum(axis=1)
    if np.any(raters != raters[0]) or raters[0] < 2:
        raise ValueError("every item needs the same number of raters, at least two")
    n = raters[0]
    per_item = ((table ** 2).sum(axis=1) - n) / (n * (n - 1))
    shares = table.sum(axis=0) / table.sum()
    expected = float((shares ** 2).sum())
    if expected >= 1.0:
        return None
    return (float(per_item.mean()) - expected) / (1.0 - expected)


def mae_and_consistency(judge_values: Sequence[float], reference_values: Sequence[float]) -> tuple[float | None, float | None]:
    """Human alignment (benchwright/creation/README.md#human-alignment) on the −2..+2 scale: MAE = mean |J − P| and Consistency = share of |J − P| ≤ 1.

    Items whose J or P is missing are left out; (None, None) when none is left.
    """
    j = np.asarray(judge_values, dtype=float)
    p = np.asarray(reference_values, dtype=float)
    if j.shape != p.shape:
        raise ValueError(f"{len(j)} judge values but {len(p)} reference values")
    keep = ~(np.isnan(j) | np.isnan(p))
    if not keep.any():
        return None, None
    diff = np.abs(j[keep] - p[keep])
    return float(diff.mean()), float(np.mean(diff <= 1.0))


def human_human_mae(values: pd.DataFrame) -> tuple[float | None, float | None, int]:
    """Leave-one-out MAE and Consistency among people (benchwright/creation/README.md#human-alignment): (mae, consistency, comparisons).

    ``values`` has columns item_id, annotator, value. For every item with at least two annotators,
    each annotator's value J is compared with P = the mean of the *other* annotators' values on that
    item; MAE and Consistency are taken over all such comparisons.
    """
    judged, reference = [], []
    for _, item in values.dropna(subset=["value"]).groupby("item_id"):
        if len(item) < 2:
            continue
        item_values = item["value"].to_numpy(dtype=float)
        total = item_values.sum()
        for value in item_values:
            judged.append(value)
            reference.append((total - value) / (len(item_values) - 1))
    mae, consistency = mae_and_consistency(judged, reference)
    return mae, consistency, len(judged)


def pearson(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Pearson r and its two-sided p-value (scipy.stats); both NaN where r is undefined (fewer than 3 pairs,
    or a constant side) — a correlation nobody can compute is not reported as zero."""
    from scipy import stats

    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(a) < 3 or np.all(a == a[0]) or np.all(b == b[0]):
        return float("nan"), float("nan")
    result = stats.pearsonr(a, b)
    return float(result.statistic), float(result.pvalue)


def correlations(x: Sequence[float], y: Sequence[float]) -> dict[str, float | None]:
    """Pearson and Spearman correlations (scipy.stats) over the items where both values exist.

    None where fewer than 3 items are left or either side is constant.
    """
    from scipy import stats

    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    if len(a) < 3 or np.all(a == a[0]) or np.all(b == b[0]):
        return {"pearson": None, "spearman": None, "n": int(len(a))}
    return {"pearson": float(stats.pearsonr(a, b).statistic), "spearman": float(stats.spearmanr(a, b).statistic),
            "n": int(len(a))}


# --- the table written by the agreement asset ---------------------------------------------------

OVERALL = "Overall"

AGREEMENT_COLUMNS = [
    "source", "judge", "item_group", "items", "human_labels", "judge_failures",
    "agreement", "agreement_without_ties", "agreement_order1", "agreement_both", "swap_consistency",
    "kappa_order1", "mae_dual", "consistency_dual", "mae_single", "consistency_single",
    "pearson_dual", "spearman_dual", "human_human_mae", "human_human_consistency",
]  # fmt: skip


def judge_item_labels(judgments: pd.DataFrame) -> pd.DataFrame:
    """One row per (source, judge, item): labels and values of order 1 and order 2.

    ``judgments`` has the columns of ``creation_pairwise_judgments``. An order that is absent or
    did not parse has no label (None) and no value (NaN).
    """
    rows = judgments.assign(
        label=[preferred(v if ok else None, pos) for v, pos, ok in
               zip(judgments["verdict"], judgments["candidate_position"], judgments["parse_ok"].astype(bool))],
        value=[verdict_value(v if ok else None, pos) for v, pos, ok in
               zip(judgments["verdict"], judgments["candidate_position"], judgments["parse_ok"].astype(bool))],
    )
    keys = ["source", "judge", "item_id"]
    out = rows[keys].drop_duplicates()
    for order in (1, 2):
        part = rows.loc[rows["judge_order"] == order, keys + ["label", "value"]].drop_duplicates(keys)
        out = out.merge(part.rename(columns={"label": f"label{order}", "value": f"value{order}"}), on=keys, how="left")
        out[f"label{order}"] = out[f"label{order}"].astype(object).where(out[f"label{order}"].notna(), None)
        out[f"value{order}"] = out[f"value{order}"].astype(float)
    return out.reset_index(drop=True)


def _summary(rows: pd.DataFrame, human_values: pd.DataFrame) -> dict:
    """Figures for one (source, judge, group): rows join human labels with the judge's two orders."""
    human = rows["label"].tolist()
    order1, order2 = rows["label1"].tolist(), rows["label2"].tolist()
    per_item = rows.drop_duplicates("item_id")
    dual = per_item[["value1", "value2"]].mean(axis=1, skipna=False).to_numpy()
    human_mean = per_item["item_id"].map(human_values.groupby("item_id")["value"].mean()).to_numpy(dtype=float)
    mae_dual, consistency_dual = mae_and_consistency(dual, human_mean)
    mae_single, consistency_single = mae_and_consistency(per_item["value1"].to_numpy(dtype=float), human_mean)
    correlation = correlations(dual, human_mean)
    group_humans = human_values[human_values["item_id"].isin(per_item["item_id"])]
    hh_mae, hh_consistency, _ = human_human_mae(group_humans)
    return {
        "items": int(len(per_item)),
        "human_labels": int(len(rows)),
        "judge_failures": int(per_item["label1"].isna().sum() + per_item["label2"].isna().sum()),
        "agreement": agreement(order1 + order2, human + human),
        "agreement_without_ties": agreement(order1 + order2, human + human, ties=False),
        "agreement_order1": agreement(order1, human),
        "agreement_both": dual_agreement(order1, order2, human, rule="both"),
        "swap_consistency": swap_consistency(per_item["label1"].tolist(), per_item["label2"].tolist()),
        "kappa_order1": cohen_kappa(order1, human),
        "mae_dual": mae_dual, "consistency_dual": consistency_dual,
        "mae_single": mae_single, "consistency_single": consistency_single,
        "pearson_dual": correlation["pearson"], "spearman_dual": correlation["spearman"],
        "human_human_mae": hh_mae, "human_human_consistency": hh_consistency,
    }


def agreement_table(judgments: pd.DataFrame, human_labels: pd.DataFrame) -> pd.DataFrame:
    """Judge–human agreement per (source, judge, item_group), plus an 'Overall' row per (source, judge).

    A source whose items all share one group gets the 'Overall' row only.

    ``judgments``: rows of ``creation_pairwise_judgments`` (both orders); ``human_labels``: rows of
    ``interop_human_labels`` (source, item_id, item_group, annotator, label, value). Each human
    label is one comparison (an item labelled by three people counts three times in the shares).

    agreement: pooled over both orders' judgments, ties included. agreement_without_ties: the
    same without items where the human or the judge said tie. agreement_order1: non-dual.
    agreement_both: both orders must match (Auto-J). swap_consistency: pairs whose two orders agree,
    among pairs with both orders parsed. kappa_order1: Cohen's kappa, order 1 vs humans.
    mae/consistency (human alignment): J = the judge's value (dual: mean of both orders; single: order 1),
    P = the mean human value on the item. pearson/spearman_dual: J (dual) vs P across items.
    human_human_*: leave-one-out among people (NaN with fewer than two people per item).
    judge_failures: orders without a usable judge label (unparsed, or absent as in one-order sources).
    """
    if judgments.empty or human_labels.empty:
        return pd.DataFrame(columns=AGREEMENT_COLUMNS)
    labels = judge_item_labels(judgments[judgments["source"].isin(human_labels["source"].unique())])
    rows = []
    for (source, judge), judge_rows in labels.groupby(["source", "judge"]):
        humans = human_labels[human_labels["source"] == source]
        joined = humans.merge(judge_rows, on=["source", "item_id"], how="inner")
        if joined.empty:
            continue
        groups = [(OVERALL, joined)]
        if joined["item_group"].nunique() > 1:  # one group only would repeat the Overall row
            groups += [(g, part) for g, part in joined.groupby("item_group") if g != OVERALL]
        for group, part in groups:
            human_values = humans[humans["item_id"].isin(part["item_id"])][["item_id", "annotator", "value"]]
            rows.append({"source": source, "judge": judge, "item_group": group, **_summary(part, human_values)})
    table = pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)
    for column in AGREEMENT_COLUMNS[6:]:
        table[column] = table[column].astype("float64")
    return table


# great-expectations suite (benchwright.quality.validate_frame) for the agreement table.
AGREEMENT_SUITE: list[dict] = [
    {"type": "columns_exist", "columns": AGREEMENT_COLUMNS},
    *(between(c, 0, 1) for c in ("agreement", "agreement_without_ties", "agreement_order1", "agreement_both",
                                  "swap_consistency", "consistency_dual", "consistency_single",
                                  "human_human_consistency")),
    *(between(c, 0, 4) for c in ("mae_dual", "mae_single", "human_human_mae")),
    *(between(c, -1, 1) for c in ("kappa_order1", "pearson_dual", "spearman_dual")),
    {"type": "columns_unique", "columns": ["source", "judge", "item_group"]},
]
