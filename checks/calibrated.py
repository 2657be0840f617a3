"""Schema and range checks (great-expectations via benchwright.quality) on the human-calibrated estimates.
Empty is not a violation: without human labels there is nothing to calibrate."""

from assets.calibrated import calibrated_estimates
from benchwright.calibrated import CALIBRATED_SUITE
from checks.factories import SchemaSpec, schema_checks

calibrated_schema_checks = schema_checks([
    SchemaSpec(calibrated_estimates, "calibrated_estimates", CALIBRATED_SUITE, allow_empty=True,
               description="Rates and interval bounds within 0-1, λ within 0-1, at least two human labels, "
                           "one row per benchmark, source, judge, model, opponent and estimand."),
])
