"""Checks on judge panels' judgments: the same suites as any judge's rows, per model × panel partition.

A panel's parse failure is an item and order on which no member's verdict parsed (members' own failures are
counted in judge_report, never votes), so the blocking threshold means what it means for a judge.
"""

from assets.panels import creation_panel_pairwise_judgments, creation_panel_vfs_judgments, urs_panel_judgments
from assets.partitions import model_panel_partitions
from benchwright.creation.suites import SUITES
from benchwright.urs.suites import SUITES as URS_SUITES
from checks.factories import ParseFailureSpec, SchemaSpec, parse_failure_checks, schema_checks

panel_parse_failure_checks = parse_failure_checks([
    ParseFailureSpec(creation_panel_pairwise_judgments, "panel_pairwise_parse_failures", "creation_pairwise_judgments",
                     "Share of the panel's pairwise judgments with no parsed member verdict.",
                     what="panel judgments", partitions_def=model_panel_partitions),
    ParseFailureSpec(creation_panel_vfs_judgments, "panel_vfs_parse_failures", "creation_vfs_judgments",
                     "Share of the panel's VFS judgments with no parsed member score.",
                     what="panel judgments", partitions_def=model_panel_partitions),
    ParseFailureSpec(urs_panel_judgments, "urs_panel_parse_failures", "urs_judgments",
                     "Share of the panel's URS judgments with no parsed member final score.",
                     what="panel judgments", partitions_def=model_panel_partitions),
])

panel_schema_checks = schema_checks([
    SchemaSpec(creation_panel_pairwise_judgments, "creation_pairwise_judgments", SUITES["creation_pairwise_judgments"],
               scope="model_panel", answered_suite=SUITES["creation_pairwise_judgments_answered"]),
    SchemaSpec(creation_panel_vfs_judgments, "creation_vfs_judgments", SUITES["creation_vfs_judgments"],
               scope="model_panel"),
    SchemaSpec(urs_panel_judgments, "urs_judgments", URS_SUITES["urs_judgments"], scope="model_panel"),
])
