"""Schema and range checks (great-expectations via benchwright.quality) on the anchor tables. Empty is no
violation: a warehouse whose benchmarks have too few models or items has no anchor items and no estimates."""

from assets.anchors import anchor_estimates, anchor_sets
from benchwright.anchors import ESTIMATES_SUITE, FITS_SUITE, ITEMS_SUITE
from checks.factories import SchemaSpec, schema_checks

anchor_schema_checks = schema_checks([
    SchemaSpec(anchor_sets, "anchor_fits", FITS_SUITE, allow_empty=True, name="fits_schema_and_ranges",
               description="Status 'fitted' or 'not enough data', counts non-negative, at most 100 anchors, one row "
                           "per source and judge."),
    SchemaSpec(anchor_sets, "anchor_items", ITEMS_SUITE, allow_empty=True, name="items_schema_and_ranges",
               description="Anchor weights within 0-1, item parameters present, one row per source, judge and item."),
    SchemaSpec(anchor_estimates, "anchor_estimates", ESTIMATES_SUITE, allow_empty=True,
               description="Estimates and interval bounds within 0-100, at least one anchor answered, one row per "
                           "source, judge and model."),
])
