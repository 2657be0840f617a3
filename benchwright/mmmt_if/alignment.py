"""MMMT-IF alignment with people (METHODS §2.5): correlations of human ratings with PIF and the autorater, and
per-response preference scores."""

from __future__ import annotations

import numpy as np
import pandas as pd

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
