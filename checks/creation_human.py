"""Schema and range suites (great-expectations via benchwright.quality) on the Creation human-alignment tables.

Suites live in benchwright.creation.human.SUITES: MAE in [0, 4], Consistency in [0, 1], one row per
judge × model × mode; stored choices with known winners, strength 0-2, values −2..+2.
"""

from assets.creation_human import creation_human_alignment
from benchwright.creation.human import SUITES
from checks.factories import SchemaSpec, schema_checks

creation_human_schema_checks = schema_checks([
    SchemaSpec(creation_human_alignment, "creation_human_alignment", SUITES["creation_human_alignment"]),
    SchemaSpec(creation_human_alignment, "creation_human_pairwise", SUITES["creation_human_pairwise"],
               name="human_pairwise_schema_and_ranges"),
])
