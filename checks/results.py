"""The check results every benchmark needs, built one way: parse failures, residual PII, schema suites,
answer injection.

The benchmark modules call these with their own queries; the one check that is the same for every
benchmark's generations (``answer_injection``) is made here by a factory, the residual-PII checks by
the factory in checks/residual_pii.py.
"""

import dagster as dg
import pandas as pd

from assets.partitions import models_partitions

from benchwright.pii import redact, scan_texts
from checks.one_step import asset_check
from resources.warehouse import Warehouse
from benchwright.quality import validate_frame

# More than this share of unparsable judge outputs means the judge (or its prompt) is broken.
PARSE_FAILURE_THRESHOLD = 0.2


def parse_failure_result(df: pd.DataFrame, threshold: float = PARSE_FAILURE_THRESHOLD,
                         what: str = "judge outputs") -> dg.AssetCheckResult:
    """Blocking result on the share of unparsable outputs among calls that returned (errors excluded).

    `df` has raw_text, parse_ok, error and, when the parser says why, parse_problem.
    """
    judged = df[df["error"].isna()]
    failed = judged[~judged["parse_ok"].astype(bool)]
    rate = len(failed) / len(judged) if len(judged) else 0.0
    if "parse_problem" in failed:
        examples = [{"problem": p, "text": str(t)[:300]} for p, t in zip(failed["parse_problem"].head(3),
                                                                          failed["raw_text"].head(3))]
    else:
        examples = [str(t)[:300] for t in failed["raw_text"].head(3)]
    return dg.AssetCheckResult(
        passed=rate <= threshold,
        severity=dg.AssetCheckSeverity.ERROR,
        description=f"{len(failed)} of {len(judged)} {what} could not be parsed ({rate:.1%}); threshold {threshold:.0%}",
        metadata={"parse_failure_rate": rate, "parse_failures": len(failed), "judgments": len(judged),
                  "threshold": threshold, "examples": dg.MetadataValue.json(examples),
                  # 'echoed_answer': the only verdict in the output was a copy of what the judge was shown
                  "by_problem": dg.MetadataValue.json(failed["parse_problem"].fillna("unknown").value_counts()
                                                      .to_dict() if "parse_problem" in failed else {})},
    )


def pii_result(rows: list[tuple[str, str]]) -> dg.AssetCheckResult:
    """Result of scanning (location, text) pairs for personal data left after redaction."""
    report = scan_texts(rows)
    return dg.AssetCheckResult(
        passed=report["total"] == 0,
        description=f"{report['total']} personal-data findings left after redaction",
        metadata={"findings": report["total"], "by_kind": dg.MetadataValue.json(report["by_kind"]),
                  "by_detector": dg.MetadataValue.json(report["by_detector"]),
                  "examples": dg.MetadataValue.json(report["examples"])},
    )


def schema_result(df: pd.DataFrame, expectations: list[dict],
                  answered_expectations: list[dict] | None = None) -> dg.AssetCheckResult:
    """Result of a great-expectations suite (benchwright.quality) on a table or partition.

    ``answered_expectations`` hold only for rows whose call returned (``error`` is null): a failed call
    is a recorded row, not a schema violation, and is reported as its own figure (``failed_calls``).
    """
    report = validate_frame(df, expectations)
    evaluated, failures = report.evaluated, list(report.failures)
    metadata: dict = {"rows": len(df)}
    if "error" in df:
        metadata["failed_calls"] = int(df["error"].notna().sum())
    if answered_expectations:
        answered = validate_frame(df[df["error"].isna()], answered_expectations)
        evaluated += answered.evaluated
        failures += answered.failures
    return dg.AssetCheckResult(
        passed=not failures,
        metadata={"expectations": evaluated, "failures": len(failures),
                  "failed_expectations": dg.MetadataValue.json(failures[:10]), **metadata},
    )


def answer_injection_result(df: pd.DataFrame) -> dg.AssetCheckResult:
    """WARN when answers contain judge-format strings (benchwright.answer_injection), per model.

    `df` has model, key (where the answer is), answer and injection_kinds (NULL for a clean answer).
    The parsers already ignore such strings when the judge echoes them; this says who tried.
    """
    answered = df[df["answer"].notna()]
    flagged = answered[answered["injection_kinds"].notna()]
    per_model = {}
    for model, rows in answered.groupby("model", sort=True):
        hits = rows[rows["injection_kinds"].notna()]
        if hits.empty:
            continue
        per_model[model] = {
            "count": len(hits), "share": round(len(hits) / len(rows), 4),
            "examples": [{"where": k, "kinds": kinds, "answer_end": redact(str(a))[0][-200:]}
                         for k, kinds, a in zip(hits["key"].head(3), hits["injection_kinds"].head(3),
                                                hits["answer"].head(3))],
        }
    return dg.AssetCheckResult(
        passed=flagged.empty,
        severity=dg.AssetCheckSeverity.WARN,
        description=(f"{len(flagged)} of {len(answered)} answers contain judge-format strings "
                     f"(models: {', '.join(per_model) or 'none'})"),
        metadata={"answers_with_injection": len(flagged), "answers": len(answered),
                  "share": len(flagged) / len(answered) if len(answered) else 0.0,
                  "by_model": dg.MetadataValue.json(per_model)},
    )


def answer_injection_check(generations_asset, benchmark: str) -> dg.AssetChecksDefinition:
    """The ``answer_injection`` check on a benchmark's (model-partitioned) generations asset."""
    @asset_check(asset=generations_asset, partitions_def=models_partitions, name="answer_injection",
                 description="WARN when this model's answers contain judge-format strings (verdict tokens, "
                             "VFS lines, score dicts, 'Score: x'); the model is flagged in the leaderboards.")
    def _check(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
        return answer_injection_result(warehouse.query_file("core/checks/answer_injection.sql",
                                                            [benchmark, context.partition_key]))

    return _check

