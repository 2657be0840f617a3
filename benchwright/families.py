"""Judge families and self-preference (docs/judge_families.md).

A *family* groups models trained by the same maker (openai, anthropic, google ...): a judge tends to favour
answers written by its own family (Panickssery et al. 2024, "LLM evaluators recognize and favor their own
generations"). A registry entry's family is its `family:` field when given, else derived from its model string
(`derive_family`).

**Self-preference of a judge** (`self_preference`), from per-judge scores of candidates on the same items:

- the *consensus* for a candidate on an item is the mean score of the judges **outside the candidate's family**
  (so a judge's own bias never enters the yardstick it is measured against, and a second self-preferring judge
  does not shift the first one's estimate);
- the judge's *gap* on a candidate and item is its score minus that consensus;
- `own_gap` is the mean gap over same-family candidates (what the judge gives its family above the others'
  consensus), `other_gap` the same over other-family candidates (the judge's general leniency);
- `self_preference` = own_gap − other_gap, paired per item, with a 95 % t interval over items (items are the
  independent units; candidates on one item share its difficulty). With no other-family candidate it is the
  own_gap and its interval.

A judge is flagged when the interval's lower bound is above 0 **and** the estimate is above the threshold of
the score's scale (`THRESHOLDS`): a small but certain bias is reported, not warned about.

**Effective number of independent judges** (`effective_judges`): a panel of n judges whose scores correlate
with mean pairwise correlation ρ is worth n / (1 + (n − 1)·ρ) independent ones (the design effect of Kish;
Verga et al. 2024, "Replacing judges with juries", argue for panels of *diverse* judges for this reason).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from itertools import combinations

import numpy as np
import pandas as pd

# Name fragments of known makers' models, for the family of a model string.
_FAMILY_MARKERS = (
    ("openai", ("gpt", "o1", "o3", "o4", "chatgpt")), ("anthropic", ("claude",)), ("google", ("gemini", "gemma")),
    ("meta", ("llama",)), ("mistral", ("mistral", "mixtral", "pixtral")), ("qwen", ("qwen",)),
    ("deepseek", ("deepseek",)),
)  # fmt: skip

# Above which estimate (in the scale's unit) a certain self-preference is warned about.
THRESHOLDS = {
    "creation_pairwise": 0.10,  # win score (win 1, tie 0.5, loss 0): 10 points of win rate
    "urs": 0.5,                 # URS final score, 1..10
}
LEVEL = 0.95

SELF_PREFERENCE_COLUMNS = [
    "benchmark", "judge", "judge_family", "own_family_models", "items", "own_gap", "own_gap_lower", "own_gap_upper",
    "other_gap", "self_preference", "lower", "upper", "threshold", "flagged",
]


def derive_family(model: str, params: Mapping | None = None) -> str:
    """The family of a litellm model string.

    ``params['family']`` wins when set (MMMT-IF's older way; the registry's `family:` field is the one to use).
    Otherwise the model name is matched against known makers (gpt → openai, claude → anthropic, gemini →
    google, ...), then the provider prefix is used. Each simulated model (``sim/...``) is its own family
    (``sim:<name>``): the simulator's models share no maker.
    """
    if params and params.get("family"):
        return str(params["family"]).lower()
    provider, _, name = model.partition("/")
    if provider == "sim":
        return f"sim:{name}"
    lowered = (name or provider).lower()
    for family, markers in _FAMILY_MARKERS:
        if any(marker in lowered for marker in markers):
            return family
    return provider.lower()


def t_interval(values: Iterable[float], level: float = LEVEL) -> tuple[float, float, float]:
    """Mean and a `level` t interval of `values`; NaN bounds with fewer than two values."""
    x = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if len(x) == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if len(x) < 2:
        return mean, math.nan, math.nan
    from scipy import stats

    half = float(stats.t.ppf(0.5 + level / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return mean, mean - half, mean + half


def self_preference(scores: pd.DataFrame, families: Mapping[str, str], benchmark: str,
                    threshold: float | None = None) -> pd.DataFrame:
    """Each judge's self-preference (module doc) from `scores`: one row per judge × model × item_id with a
    numeric `score` (missing ones left out). `families` maps judge and model slugs to their family (a slug
    not in it is its own family). One row per judge (`SELF_PREFERENCE_COLUMNS`); a judge with no
    same-family candidate that another family's judge also scored has no row.
    """
    threshold = THRESHOLDS[benchmark] if threshold is None else threshold
    scores = scores.dropna(subset=["score"])
    if scores.empty:
        return pd.DataFrame(columns=SELF_PREFERENCE_COLUMNS)
    scores = scores.groupby(["judge", "model", "item_id"], as_index=False)["score"].mean()
    family = lambda slug: families.get(slug, slug)  # noqa: E731
    scores["judge_family"] = scores["judge"].map(family)
    scores["model_family"] = scores["model"].map(family)
    # Consensus per model × item: the mean of the judges outside the model's family.
    outside = scores[scores["judge_family"] != scores["model_family"]]
    rows = []
    for judge, mine in scores.groupby("judge", sort=True):
        judge_family = family(judge)
        # The judge's own score never enters the consensus it is compared with.
        consensus = outside[outside["judge"] != judge].groupby(["model", "item_id"])["score"].mean()
        mine = mine.join(consensus.rename("consensus"), on=["model", "item_id"]).dropna(subset=["consensus"])
        mine["gap"] = mine["score"] - mine["consensus"]
        own = mine[mine["model_family"] == judge_family]
        if own.empty:
            continue
        other = mine[mine["model_family"] != judge_family]
        own_items = own.groupby("item_id")["gap"].mean()
        other_items = other.groupby("item_id")["gap"].mean()
        own_gap, own_lower, own_upper = t_interval(own_items)
        paired = (own_items - other_items).dropna()
        if len(paired):
            estimate, lower, upper = t_interval(paired)
        else:
            estimate, lower, upper = own_gap, own_lower, own_upper
        rows.append({
            "benchmark": benchmark, "judge": judge, "judge_family": judge_family,
            "own_family_models": int(own["model"].nunique()), "items": int(own_items.size),
            "own_gap": own_gap, "own_gap_lower": own_lower, "own_gap_upper": own_upper,
            "other_gap": float(other_items.mean()) if len(other_items) else math.nan,
            "self_preference": estimate, "lower": lower, "upper": upper, "threshold": threshold,
            "flagged": bool(not math.isnan(lower) and lower > 0 and estimate > threshold),
        })
    return pd.DataFrame(rows, columns=SELF_PREFERENCE_COLUMNS)


def effective_judges(wide: pd.DataFrame) -> float | None:
    """n / (1 + (n − 1)·ρ̄) for the judges that are `wide`'s columns (one row per judged unit, numeric scores,
    NaN where a judge has none): ρ̄ the mean Pearson correlation over judge pairs (each on the units both
    scored), clamped to [0, 1] (judges that disagree more than chance are not worth more than n). None
    when no pair has two units with varying scores."""
    n = wide.shape[1]
    correlations = []
    for a, b in combinations(wide.columns, 2):
        both = wide[[a, b]].dropna().astype(float)
        if len(both) >= 2 and both[a].std() > 0 and both[b].std() > 0:
            correlations.append(float(np.corrcoef(both[a], both[b])[0, 1]))
    if n < 2 or not correlations:
        return None
    rho = min(1.0, max(0.0, float(np.mean(correlations))))
    return n / (1 + (n - 1) * rho)
