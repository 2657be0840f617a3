"""WARN when a judge favours its own family's candidates (benchwright/families.py, docs/judge_families.md)."""

import dagster as dg

from assets.families import judge_self_preference
from checks.one_step import asset_check
from resources.warehouse import Warehouse


@asset_check(asset=judge_self_preference, name="judge_self_preference_below_threshold",
             description="WARN when a judge's self-preference is certain (its 95 % interval is above 0) and "
                         "above its benchmark's threshold (Creation: 0.10 win score, URS: 0.5 points): its "
                         "scores of its own family's candidates are not to be trusted alone.")
def judge_self_preference_below_threshold(warehouse: Warehouse) -> dg.AssetCheckResult:
    table = warehouse.query("SELECT * FROM judge_self_preference").sort_values(["benchmark", "judge"])
    flagged = table[table["flagged"].astype(bool)]
    shown = [{"benchmark": r.benchmark, "judge": r.judge, "family": r.judge_family,
              "self_preference": round(float(r.self_preference), 4), "interval": [round(float(r.lower), 4),
                                                                                 round(float(r.upper), 4)],
              "threshold": float(r.threshold)} for r in flagged.itertuples(index=False)]
    return dg.AssetCheckResult(
        passed=flagged.empty, severity=dg.AssetCheckSeverity.WARN,
        description=(f"{len(flagged)} of {len(table)} judge rows favour their own family above the threshold"
                     + (": " + ", ".join(f"{r['judge']} on {r['benchmark']}" for r in shown) if shown else "")),
        metadata={"judges_measured": len(table), "flagged": dg.MetadataValue.json(shown)},
    )
