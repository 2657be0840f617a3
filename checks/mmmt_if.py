"""Asset checks for MMMT-IF (docs/ARCHITECTURE.md#checks). Thin: the measures come from benchwright.mmmt_if.method.

- PIF-N-K must not increase with K (it is monotone by definition: a rise means a broken table);
- PIF within [0, 1] and unique keys, in the turn scores and every metric table (great-expectations
  suites of benchwright.mmmt_if.suites.SUITES);
- autorater parse failures per judge partition, blocking above a threshold; autorater scores 1-10;
- residual personal data: checks/residual_pii.py.
"""

import dagster as dg

from assets.mmmt_if import (mmmt_if_autorater_judgments, mmmt_if_generations, mmmt_if_pif_metrics, mmmt_if_preferences,
                            mmmt_if_turn_scores)
from benchwright.mmmt_if import pif, prompts, suites
from checks.factories import ParseFailureSpec, SchemaSpec, parse_failure_checks, schema_checks
from checks.one_step import asset_check
from checks.results import answer_injection_check, schema_result
from resources.warehouse import Warehouse

# More than this share of unparsable autorater outputs means the judge (or its prompt) is broken.
AUTORATER_PARSE_FAILURE_THRESHOLD = 0.2
PIF_TABLES = ("mmmt_if_summary", "mmmt_if_pif_by_turn", "mmmt_if_pif_by_count", "mmmt_if_pif_by_instruction",
              "mmmt_if_pif_n_k")


@asset_check(asset=mmmt_if_pif_metrics, blocking=True,
             description="PIF-N-K never increases with K for any model and variant (PIF-N-i ≤ PIF-N-j for i > j).")
def mmmt_if_pif_n_k_monotone(warehouse: Warehouse) -> dg.AssetCheckResult:
    table = warehouse.query("SELECT model, variant, k, pif_n_k FROM mmmt_if_pif_n_k")
    violations = pif.n_k_violations(table)
    return dg.AssetCheckResult(
        passed=not violations,
        severity=dg.AssetCheckSeverity.ERROR,
        description=f"{len(violations)} (model, variant) with PIF-N-K rising in K",
        metadata={"violations": dg.MetadataValue.json(violations[:10]), "rows": len(table)},
    )


@asset_check(asset=mmmt_if_pif_metrics, name="schema_and_ranges",
             description="Every PIF, bound, PIF-IQR-N and PIF-N-K of the metric tables in [0, 1]; unique keys.")
def mmmt_if_metrics_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    with warehouse.session() as con:  # one session for the five tables (each costs tens of ms to open)
        tables = {name: con.execute(f"SELECT * FROM {name}").df() for name in PIF_TABLES}
    return schema_result(suites.pif_values(tables), suites.SUITES["mmmt_if_pif_values"])


mmmt_if_schema_checks = schema_checks([
    SchemaSpec(mmmt_if_turn_scores, "mmmt_if_turn_scores", suites.SUITES["mmmt_if_turn_scores"], scope="model",
               description="PIF in [0, 1], followed ≤ 6, known variants, one row per response."),
    SchemaSpec(mmmt_if_preferences, "mmmt_if_autorater_judgments", suites.SUITES["mmmt_if_autorater_judgments"],
               name="autorater_scores_in_range",
               description="Every parsed autorater score within 1-10, known variants, one judgment per response "
                           "and judge (the preference scores are built from them)."),
])


mmmt_if_parse_failure_checks = parse_failure_checks([
    ParseFailureSpec(mmmt_if_autorater_judgments, "mmmt_if_autorater_parse_failures", "mmmt_if_autorater_judgments",
                     "Share of autorater outputs whose 8-score dict could not be parsed, per judge partition.",
                     threshold=AUTORATER_PARSE_FAILURE_THRESHOLD, what="autorater outputs"),
])


mmmt_if_answer_injection = answer_injection_check(mmmt_if_generations, prompts.BENCHMARK)
