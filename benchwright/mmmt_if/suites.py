"""MMMT-IF schema and range suites (validated with benchwright.quality.validate_frame)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from benchwright.quality import between
from benchwright.mmmt_if.prompts import MAX_INSTRUCTIONS, SCORE_COLUMNS, VARIANTS


_IN_VARIANTS = {"type": "column_values_in_set", "column": "variant", "values": list(VARIANTS)}
SUITES: dict[str, list[dict]] = {
    "mmmt_if_turn_scores": [
        {"type": "columns_exist", "columns": ["model", "variant", "turn_id", "sample_index", "pif", "n_followed"]},
        _IN_VARIANTS,
        between("pif", 0, 1),
        between("n_instructions", 0, MAX_INSTRUCTIONS),
        between("n_followed", 0, MAX_INSTRUCTIONS),
        {"type": "columns_unique", "columns": ["model", "variant", "turn_id", "sample_index"]},
    ],
    "mmmt_if_autorater_judgments": [
        _IN_VARIANTS,
        *(between(c, 1, 10) for c in SCORE_COLUMNS),
        {"type": "columns_unique", "columns": ["model", "judge", "variant", "turn_id", "sample_index"]},
    ],
}


def pif_values(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Every PIF-scale number of the metric tables in one long frame, for one range check.

    Columns: table, model, variant, key (the row's other key: turn, k, instruction ...), measure,
    value. Tables without a given measure are skipped.
    """
    measures = ("pif", "pif_lower", "pif_upper", "pif_iqr_n", "pif_n_n", "pif_n_k")
    frames = []
    for name, df in tables.items():
        if df.empty:
            continue
        keys = [c for c in ("turn", "n_instructions", "instruction_id", "k") if c in df.columns]
        key = df[keys].astype(str).agg("/".join, axis=1) if keys else pd.Series("all", index=df.index)
        for measure in measures:
            if measure in df.columns:
                frames.append(pd.DataFrame({"table": name, "model": df["model"], "variant": df["variant"],
                                            "key": key, "measure": measure, "value": df[measure].astype(float)}))
    columns = ["table", "model", "variant", "key", "measure", "value"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


SUITES["mmmt_if_pif_values"] = [
    {"type": "columns_exist", "columns": ["table", "model", "variant", "key", "measure", "value"]},
    _IN_VARIANTS,
    between("value", 0, 1),
    {"type": "columns_unique", "columns": ["table", "model", "variant", "key", "measure"]},
]
