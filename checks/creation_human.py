"""Schema and range suites (great-expectations via benchwright.quality) on the Creation human-alignment tables.

Suites live in benchwright.creation_human.SUITES: MAE in [0, 4], Consistency in [0, 1], one row per
judge × model × mode; stored choices with known winners, strength 0-2, values −2..+2.
"""

import dagster as dg

from assets.creation_human import creation_human_alignment
from benchwright.creation_human import SUITES
from checks.results import schema_result
from resources.warehouse import Warehouse


@dg.asset_check(asset=creation_human_alignment, name="schema_and_ranges")
def creation_human_alignment_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM creation_human_alignment"),
                         SUITES["creation_human_alignment"], "creation_human_alignment")


@dg.asset_check(asset=creation_human_alignment, name="human_pairwise_schema_and_ranges")
def creation_human_pairwise_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM creation_human_pairwise"),
                         SUITES["creation_human_pairwise"], "creation_human_pairwise")
