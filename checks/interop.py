"""Schema and range checks (great-expectations via benchwright.quality) on the interop metric tables.
They are empty until an import is enabled, which is not a violation."""

from assets.interop import interop_agreement, interop_ratings, interop_win_rates
from benchwright.agreement import AGREEMENT_SUITE
from benchwright.ratings import RATINGS_SUITE, WIN_RATES_SUITE
from checks.factories import SchemaSpec, schema_checks

interop_schema_checks = schema_checks([
    SchemaSpec(interop_ratings, "interop_ratings", RATINGS_SUITE, allow_empty=True,
               description="Ratings present, win rates within 0-100, one row per source, judge and model."),
    SchemaSpec(interop_win_rates, "interop_win_rates", WIN_RATES_SUITE, allow_empty=True,
               description="Win rates within 0-100, standard errors non-negative, one row per model."),
    SchemaSpec(interop_agreement, "interop_agreement", AGREEMENT_SUITE, allow_empty=True,
               description="Shares within 0-1, MAE within 0-4, correlations and kappa within -1..1."),
])
