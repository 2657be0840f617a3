"""The check results every benchmark needs, built one way: parse failures, residual PII, schema suites.

No asset checks live here; the benchmark modules call these with their own queries.
"""

import dagster as dg
import pandas as pd

from benchwright.pii import scan_texts
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
                  "threshold": threshold, "examples": dg.MetadataValue.json(examples)},
    )


def pii_result(rows: list[tuple[str, str]]) -> dg.AssetCheckResult:
    """Result of scanning (location, text) pairs for personal data left after redaction."""
    report = scan_texts(rows)
    return dg.AssetCheckResult(
        passed=report["total"] == 0,
        description=f"{report['total']} personal-data findings left after redaction",
        metadata={"findings": report["total"], "by_kind": dg.MetadataValue.json(report["by_kind"]),
                  "examples": dg.MetadataValue.json(report["examples"])},
    )


def schema_result(df: pd.DataFrame, expectations: list[dict], table: str) -> dg.AssetCheckResult:
    """Result of a great-expectations suite (benchwright.quality) on a table or partition."""
    report = validate_frame(df, expectations, name=table)
    return dg.AssetCheckResult(
        passed=report.success,
        metadata={"expectations": report.evaluated, "failures": len(report.failures),
                  "failed_expectations": dg.MetadataValue.json(report.failures[:10]), "rows": len(df)},
    )
