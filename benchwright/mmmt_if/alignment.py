"""MMMT-IF alignment with people (benchwright/mmmt_if/README.md#alignment-with-people): correlations of human ratings with PIF and the autorater, and
agreement of preference-score outcomes with people's pairwise choices."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchwright import agreement
from benchwright.agreement import pearson


ALIGNMENT_COLUMNS = ["measure", "scope", "variant", "n", "value", "p_value"]


def human_alignment(ratings: pd.DataFrame, preferences: pd.DataFrame, responses: pd.DataFrame) -> pd.DataFrame:
    """Pearson r of PIF with human instruction-following ratings (overall and per model), and the share
    of human pairwise preferences that agree with the PIF order.

    ``ratings``: model, chat_id, turn, variant, sample_index, rating. ``preferences``: chat_id, turn,
    variant, sample_index, model_a, model_b, preferred ('a', 'b' or 'tie'). ``responses``: scored
    responses (model, variant, chat_id, turn, sample_index, pif). Unmatched rows are left out; r is
    NaN with fewer than 3 pairs or a constant side.
    """
    keys = ["model", "variant", "chat_id", "turn", "sample_index"]
    rows = []
    scored = responses[responses["pif"].notna()][keys + ["pif"]]
    if len(ratings):
        joined = ratings.merge(scored, on=keys, how="inner")
        scopes = [("overall", joined)] + [(f"model:{m}", g) for m, g in joined.groupby("model", sort=True)]
        for variant in sorted(set(joined["variant"])):
            for scope, part in scopes:
                part = part[part["variant"] == variant]
                r, p = pearson(part["pif"], part["rating"])
                rows.append({"measure": "pearson_pif_human_rating", "scope": scope, "variant": variant,
                             "n": len(part), "value": r, "p_value": p})
    if len(preferences):
        pif = scored.set_index(keys)["pif"]
        agree = {}
        for row in preferences.itertuples(index=False):
            key_a = (row.model_a, row.variant, row.chat_id, row.turn, row.sample_index)
            key_b = (row.model_b, row.variant, row.chat_id, row.turn, row.sample_index)
            if key_a not in pif.index or key_b not in pif.index or row.preferred == "tie":
                continue
            a, b = float(pif[key_a]), float(pif[key_b])
            if abs(a - b) <= 1e-12:
                continue
            agree.setdefault(row.variant, []).append((row.preferred == "a") == (a > b))
        for variant, flags in sorted(agree.items()):
            rows.append({"measure": "human_preference_agrees_with_pif", "scope": "overall", "variant": variant,
                         "n": len(flags), "value": float(np.mean(flags)), "p_value": np.nan})
    return pd.DataFrame(rows, columns=ALIGNMENT_COLUMNS)


PREFERENCE_AGREEMENT_COLUMNS = ["model_a", "model_b", "n", "human_ties", "agreement", "n_without_ties",
                                "agreement_without_ties", "kappa"]
_SIDE_LABEL = {"a": "first", "b": "second", "tie": "tie"}
_OUTCOME_LABEL = {"win": "first", "loss": "second", "tie": "tie"}


def preference_agreement(outcomes: pd.DataFrame, human: pd.DataFrame) -> pd.DataFrame:
    """How often the preference-score outcome agrees with people's pairwise choice on the same turn.

    ``outcomes``: chat_id, turn, model_a, model_b, outcome ('win'/'tie'/'loss' for model_a, None when
    unjudged). ``human``: chat_id, turn, model_a, model_b, preferred ('a', 'b' or 'tie'), in the
    people's own orientation (a pair may be the other way round; it is turned to match). One row per
    human pair of models and one for all of them (model_a = model_b = 'all'): agreement over the
    three labels (a tie must meet a tie), agreement without ties (turns where either said tie left
    out) and Cohen's kappa (benchwright.agreement). Unjudged turns and turns without an outcome are
    left out.
    """
    ours = {}
    for row in outcomes.itertuples(index=False):
        if row.outcome is None or pd.isna(row.outcome):
            continue
        label = _OUTCOME_LABEL[row.outcome]
        ours[(row.chat_id, row.turn, row.model_a, row.model_b)] = label
        ours[(row.chat_id, row.turn, row.model_b, row.model_a)] = {"first": "second", "second": "first"}.get(label, label)
    pairs = []
    for row in human.itertuples(index=False):
        key = (row.chat_id, row.turn, row.model_a, row.model_b)
        if key in ours:
            pairs.append((row.model_a, row.model_b, ours[key], _SIDE_LABEL[row.preferred]))
    frame = pd.DataFrame(pairs, columns=["model_a", "model_b", "judge", "human"])
    groups = [(a, b, g) for (a, b), g in frame.groupby(["model_a", "model_b"], sort=True)] + [("all", "all", frame)]
    rows = []
    for model_a, model_b, part in groups:
        without_ties = part[(part["judge"] != "tie") & (part["human"] != "tie")]
        rows.append({"model_a": model_a, "model_b": model_b, "n": len(part), "human_ties": int((part["human"] == "tie").sum()),
                     "agreement": agreement.agreement(part["judge"], part["human"]) if len(part) else None,
                     "n_without_ties": len(without_ties),
                     "agreement_without_ties": agreement.agreement(part["judge"], part["human"], ties=False)
                     if len(part) else None,
                     "kappa": agreement.cohen_kappa(part["judge"], part["human"])})
    return pd.DataFrame(rows, columns=PREFERENCE_AGREEMENT_COLUMNS)
