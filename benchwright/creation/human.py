"""Creation human alignment (benchwright/creation/README.md#human-alignment): judge models against people's pairwise choices.

People compare the baseline (model_a) with a candidate (model_b) on an item and pick one of five
points; ``benchwright.human_pairwise`` loads those choices. Every choice and every judge
verdict goes on one scale from the candidate's side (much better +2 … much worse −2).

Per judge × model × mode, over the items people rated for that model:

- J, the judge's value: ``non_dual`` = order 1 (baseline in position A); ``dual`` = the mean of
  both orders' values. P = the mean of the people's values on that (item, model).
- ``mae`` = mean |J − P|; ``consistency`` = share of items with |J − P| ≤ 1.
- A verdict that did not parse is left out and counted in ``judge_failures`` (for ``dual`` an
  item needs both orders); a call that failed is left out and counted in ``judge_errors``.
  Neither is ever turned into a value.

Mode ``human_human`` (judge ``(humans)``): leave-one-out among people, each choice J against
P = the mean of the other choices on that (item, model), over items with at least two choices
(``comparisons`` counts them).

'Cannot tell' (winner 'undetermined') has no value and is left out everywhere. A choice whose
model_a is not the item's baseline (``creation_references.baseline``) compared a different pair
of answers from the one the judges saw: ``check_baselines`` sets it aside with a reason.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from benchwright.agreement import human_human_mae, mae_and_consistency, verdict_value
from benchwright.human_pairwise import value_for_b
from benchwright.quality import between

HUMANS = "(humans)"
MODES = ("dual", "non_dual", "human_human")

ALIGNMENT_COLUMNS = ["judge", "model", "mode", "items", "comparisons", "human_choices", "judge_failures",
                     "judge_errors", "mae", "consistency"]


def with_values(choices: pd.DataFrame) -> pd.DataFrame:
    """The choices with ``value``: model_b's (the candidate's) −2..+2 value, NaN for 'cannot tell'."""
    values = [value_for_b(w, None if pd.isna(s) else int(s)) for w, s in zip(choices["winner"], choices["strength"])]
    return choices.assign(value=pd.Series(values, index=choices.index, dtype="float64"))


def check_baselines(choices: pd.DataFrame, baselines: Mapping[str, str]) -> tuple[pd.DataFrame, list[dict]]:
    """(choices that compared the item's baseline, problems for the rest: location and reason).

    ``baselines`` maps item_id to who wrote its reference answer (a slug, or 'dataset').
    """
    keep, problems = [], []
    for row in choices.itertuples(index=False):
        baseline = baselines.get(row.item_id)
        where = f"{row.source_file}: item {row.item_id}, model_b {row.model_b}, annotator {row.annotator}"
        if baseline is None:
            problems.append({"location": where, "reason": f"item {row.item_id!r} has no Creation reference answer",
                             "field": "item_id"})
        elif row.model_a != baseline:
            problems.append({"location": where, "reason": f"model_a {row.model_a!r} is not the item's baseline "
                                                          f"{baseline!r}: a different comparison from the judges'",
                             "field": "model_a"})
        keep.append(baseline is not None and row.model_a == baseline)
    return choices[pd.Series(keep, index=choices.index, dtype=bool)].reset_index(drop=True), problems


def _order_state(judgments: pd.DataFrame) -> pd.DataFrame:
    """Per judgment: value (NaN unless usable), failed (unparsed), errored (the call failed)."""
    errored = judgments["error"].notna()
    parsed = judgments["parse_ok"].astype(bool) & judgments["verdict"].notna() & ~errored
    values = [verdict_value(v, pos) if ok else None
              for v, pos, ok in zip(judgments["verdict"], judgments["candidate_position"], parsed)]
    return judgments.assign(value=pd.Series(values, index=judgments.index, dtype="float64"),
                            failed=~parsed & ~errored, errored=errored)


def alignment_table(judgments: pd.DataFrame, choices: pd.DataFrame) -> pd.DataFrame:
    """Human alignment per judge × model × mode (see the module docstring).

    ``judgments``: our rows of ``creation_pairwise_judgments`` (both orders); ``choices``: Creation
    choices with ``item_id, model_b, annotator, winner, strength`` (model_a already checked).
    """
    choices = with_values(choices)
    decided = choices[choices["value"].notna()]
    human_mean = decided.groupby(["model_b", "item_id"])["value"].mean()
    rows = []
    if len(judgments):
        judged = _order_state(judgments)
        for (judge, model), own in judged.groupby(["judge", "model"], sort=True):
            if model not in human_mean.index.get_level_values(0):
                continue
            people = human_mean.loc[model]
            own = own[own["item_id"].isin(people.index)]
            human_choices = int(decided["model_b"].eq(model).sum())
            for mode, orders in (("dual", (1, 2)), ("non_dual", (1,))):
                used = own[own["judge_order"].isin(orders)]
                value = used.set_index(["item_id", "judge_order"])["value"].unstack().reindex(columns=list(orders))
                j = value.mean(axis=1, skipna=False).dropna()  # dual: both orders must have a value
                mae, consistency = mae_and_consistency(j.to_numpy(), people.reindex(j.index).to_numpy())
                rows.append({"judge": judge, "model": model, "mode": mode, "items": len(j), "comparisons": len(j),
                             "human_choices": human_choices, "judge_failures": int(used["failed"].sum()),
                             "judge_errors": int(used["errored"].sum()), "mae": mae, "consistency": consistency})
    for model, own in decided.groupby("model_b", sort=True):
        mae, consistency, comparisons = human_human_mae(own[["item_id", "annotator", "value"]])
        rows.append({"judge": HUMANS, "model": model, "mode": "human_human",
                     "items": int((own.groupby("item_id").size() >= 2).sum()), "comparisons": comparisons,
                     "human_choices": len(own), "judge_failures": 0, "judge_errors": 0,
                     "mae": mae, "consistency": consistency})
    table = pd.DataFrame(rows, columns=ALIGNMENT_COLUMNS)
    for column in ("mae", "consistency"):
        table[column] = table[column].astype("float64")
    return table


# great-expectations suites (benchwright.quality.validate_frame), run by checks/creation_human.py.
SUITES: dict[str, list[dict]] = {
    "creation_human_alignment": [
        {"type": "columns_exist", "columns": ALIGNMENT_COLUMNS},
        {"type": "column_values_in_set", "column": "mode", "values": list(MODES)},
        between("mae", 0, 4),
        between("consistency", 0, 1),
        *(between(c, 0, None, allow_null=False) for c in ("items", "comparisons", "human_choices",
                                                             "judge_failures", "judge_errors")),
        {"type": "columns_unique", "columns": ["judge", "model", "mode"]},
    ],
    "creation_human_pairwise": [
        {"type": "column_values_in_set", "column": "benchmark", "values": ["creation"]},
        {"type": "column_values_in_set", "column": "winner", "values": ["A", "B", "tie", "undetermined"]},
        between("strength", 0, 2),
        between("value", -2, 2),
        {"type": "column_not_null", "column": "item_id"},
        {"type": "column_not_null", "column": "source_file"},
    ],
}
