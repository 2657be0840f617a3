"""MMMT-IF programmatic instruction following (benchwright/mmmt_if/README.md#scoring): contexts, PIF by turn, by instruction count and by
instruction, PIF-N-K and the summary."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


Z95 = 1.96
CONTEXT_KEYS = ["model", "variant", "chat_id", "turn"]


def bounds(p: float, n: int) -> tuple[float, float]:
    """Conservative 95% bounds p ± 1.96·sqrt(p(1−p)/n), clipped to [0, 1]; (nan, nan) when n = 0."""
    if n <= 0 or p is None or not math.isfinite(p):
        return float("nan"), float("nan")
    half = Z95 * math.sqrt(max(p * (1.0 - p), 0.0) / n)
    return max(0.0, p - half), min(1.0, p + half)


def contexts(responses: pd.DataFrame) -> pd.DataFrame:
    """One row per context from scored responses (columns of ``mmmt_if_turn_scores``).

    Failed responses (``pif`` null) are left out of the means; ``samples`` counts the scored ones,
    ``failed`` the others, ``perfect`` those at PIF 1, and ``iqr`` is the inter-quartile range of
    the scored PIFs (linear interpolation, as numpy's default percentile).
    """
    df = responses.assign(scored=responses["pif"].notna(), is_perfect=responses["pif"] == 1.0)
    grouped = df.groupby(CONTEXT_KEYS, sort=True)
    out = grouped.agg(n_instructions=("n_instructions", "first"), pif=("pif", "mean"), samples=("scored", "sum"),
                      rows=("scored", "size"), perfect=("is_perfect", "sum"))
    out["failed"] = out["rows"] - out["samples"]
    out["iqr"] = grouped["pif"].quantile(0.75) - grouped["pif"].quantile(0.25)
    out = out.drop(columns="rows").reset_index()
    return out.astype({"samples": "int64", "failed": "int64", "perfect": "int64"})


CONTEXT_COLUMNS = [*CONTEXT_KEYS, "n_instructions", "pif", "samples", "perfect", "failed", "iqr"]


def _bounded(group: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    rows = []
    for key, part in group.groupby(keys, sort=True):
        scored = part[part["pif"].notna()]
        p = float(scored["pif"].mean()) if len(scored) else float("nan")
        lo, hi = bounds(p, len(scored))
        rows.append({**dict(zip(keys, key if isinstance(key, tuple) else (key,))),
                     "n": len(scored), "pif": p, "pif_lower": lo, "pif_upper": hi})
    return pd.DataFrame(rows, columns=[*keys, "n", "pif", "pif_lower", "pif_upper"])


def pif_by_turn(context_df: pd.DataFrame) -> pd.DataFrame:
    """PIF by turn j over the chats that reach turn j, with bounds."""
    return _bounded(context_df, ["model", "variant", "turn"])


def pif_by_instruction_count(context_df: pd.DataFrame) -> pd.DataFrame:
    """PIF by the number of instructions in force, with bounds."""
    return _bounded(context_df, ["model", "variant", "n_instructions"])


def pif_by_instruction(results: pd.DataFrame) -> pd.DataFrame:
    """Per-instruction PIF from per-instruction results (columns of ``mmmt_if_instruction_results``).

    Each context's share of samples that followed the instruction, then the mean over contexts.
    """
    if results.empty:
        return pd.DataFrame(columns=["model", "variant", "instruction_id", "category", "n", "pif", "pif_lower", "pif_upper"])
    per_context = results.groupby([*CONTEXT_KEYS, "instruction_id", "category"], as_index=False)["followed"].mean()
    per_context = per_context.rename(columns={"followed": "pif"})
    return _bounded(per_context, ["model", "variant", "instruction_id", "category"])


def samples_per_context(context_df: pd.DataFrame) -> int:
    """N: the most samples (scored or failed) any context of this group has."""
    return int((context_df["samples"] + context_df["failed"]).max()) if len(context_df) else 0


def pif_n_k(context_df: pd.DataFrame, n_samples: int | None = None) -> pd.DataFrame:
    """PIF-N-K for K = 1..N over the contexts whose N samples all succeeded.

    N is ``n_samples`` or, when None, ``samples_per_context`` of each (model, variant).
    """
    rows = []
    for (model, variant), part in context_df.groupby(["model", "variant"], sort=True):
        n = n_samples or samples_per_context(part)
        complete = part[(part["samples"] == n) & (part["failed"] == 0)]
        for k in range(1, n + 1):
            value = float((complete["perfect"] >= k).mean()) if len(complete) else float("nan")
            rows.append({"model": model, "variant": variant, "n_samples": n, "k": k,
                         "contexts": len(complete), "pif_n_k": value})
    return pd.DataFrame(rows, columns=["model", "variant", "n_samples", "k", "contexts", "pif_n_k"])


def n_k_violations(table: pd.DataFrame) -> list[str]:
    """(model, variant) where PIF-N-K increases with K: must be none (PIF-N-i ≤ PIF-N-j for i > j)."""
    problems = []
    for (model, variant), part in table.groupby(["model", "variant"]):
        values = part.sort_values("k")["pif_n_k"].dropna().to_numpy()
        if np.any(np.diff(values) > 1e-12):
            problems.append(f"{model}/{variant}: {np.round(values, 4).tolist()}")
    return problems


SUMMARY_COLUMNS = ["model", "variant", "contexts", "responses", "failed", "pif", "pif_lower", "pif_upper",
                   "pif_iqr_n", "complete_contexts", "pif_n_n", "n_samples"]


def summary(context_df: pd.DataFrame, n_samples: int | None = None) -> pd.DataFrame:
    """Corpus PIF with bounds, PIF-IQR-N and PIF-N-N per (model, variant) (N as in ``pif_n_k``)."""
    rows = []
    for (model, variant), part in context_df.groupby(["model", "variant"], sort=True):
        n = n_samples or samples_per_context(part)
        scored = part[part["pif"].notna()]
        p = float(scored["pif"].mean()) if len(scored) else float("nan")
        lo, hi = bounds(p, len(scored))
        complete = part[(part["samples"] == n) & (part["failed"] == 0)]
        rows.append({
            "model": model, "variant": variant, "contexts": len(scored), "responses": int(part["samples"].sum()),
            "failed": int(part["failed"].sum()), "pif": p, "pif_lower": lo, "pif_upper": hi,
            "pif_iqr_n": float(complete["iqr"].mean()) if len(complete) else float("nan"),
            "complete_contexts": len(complete),
            "pif_n_n": float((complete["perfect"] >= n).mean()) if len(complete) else float("nan"),
            "n_samples": n,
        })
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
