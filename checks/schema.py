"""Schema and range suites (great-expectations 1.x, via benchwright.quality) on every Creation table."""

from assets.creation import (creation_generations, creation_leaderboard, creation_pairwise_judgments,
                             creation_vfs_judgments, judge_quality)
from benchwright.creation.suites import SUITES
from checks.factories import SchemaSpec, schema_checks

creation_schema_checks = schema_checks([
    SchemaSpec(creation_generations, "generations", SUITES["generations"], scope="model", benchmark="creation"),
    SchemaSpec(creation_pairwise_judgments, "creation_pairwise_judgments", SUITES["creation_pairwise_judgments"],
               scope="model_judge", answered_suite=SUITES["creation_pairwise_judgments_answered"]),
    SchemaSpec(creation_vfs_judgments, "creation_vfs_judgments", SUITES["creation_vfs_judgments"], scope="model_judge"),
    SchemaSpec(creation_leaderboard, "creation_leaderboard", SUITES["creation_leaderboard"]),
    SchemaSpec(judge_quality, "judge_quality", SUITES["judge_quality"]),
])
