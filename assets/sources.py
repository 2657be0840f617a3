"""What the assets read from outside the warehouse, as observable source assets with data versions.

Dagster decides what is stale from code versions and data versions; these sources give it the data
versions of the inputs it cannot see: the registry entries and the dataset and drop-folder files. An
asset that reads one of them lists it in ``deps``, so a changed entry or file makes exactly its readers
stale (a changed judge: that judge's judgment partitions; a new candidate: nothing but its own new
partitions and the metrics). The main job records their versions before it looks at staleness
(scripts/orchestrate.py); in the UI, "Observe sources" does the same through the same functions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import dagster as dg

from assets.common import INPUTS_GROUP, repo_path
from assets.partitions import judges_partitions, models_partitions, panels_partitions
from benchwright import paths
from benchwright.loading import files_version
from resources.registry import Registry
from resources.warehouse import Warehouse

# The dataset files are the default config's (what the main job and the daemon load); a run launched
# with other paths is not followed here.
CREATION_DATASET = "sample_data/creation"
URS_DATASET = "sample_data/urs"
MMMT_IF_DATASET = "sample_data/mmmt_if"
GAP_SAMPLE_LOGS = "sample_data/gap/logs"

# Each source's version, from the resources: one text, or one per partition. The observable source
# assets below and the main job both call these.
VERSIONS: dict[str, Callable[[dict], str | dict[str, str]]] = {}


def _versioned(name: str, version: Callable[[dict], str | dict[str, str]]) -> None:
    VERSIONS[name] = version


_versioned("model_entries", lambda r: {e.slug: e.version for e in r["registry"].candidates()})
_versioned("judge_entries", lambda r: {e.slug: e.version for e in r["registry"].judges()})
_versioned("panel_entries", lambda r: {e.slug: e.version for e in r["registry"].panels()})
_versioned("registry_roles", lambda r: ",".join(f"{e.slug}={e.version}" for e in r["registry"].entries("models")
                                                if e.role != "candidate"))
_versioned("registry_labels", lambda r: ",".join(f"{e.slug}={e.label}/{e.role}" for kind in ("models", "judges")
                                                 for e in r["registry"].entries(kind))
                                        + "".join(f",{e.slug}={e.display_name}/panel" for e in r["registry"].panels()))


@dg.observable_source_asset(partitions_def=models_partitions, group_name=INPUTS_GROUP,
                            description="Each candidate's registry entry (registry/models.yaml), hashed: a changed "
                                        "entry makes that model's generations stale.")
def model_entries(registry: Registry) -> dg.DataVersionsByPartition:
    return dg.DataVersionsByPartition(VERSIONS["model_entries"]({"registry": registry}))


@dg.observable_source_asset(partitions_def=judges_partitions, group_name=INPUTS_GROUP,
                            description="Each judge's registry entry (registry/judges.yaml), hashed: a changed entry "
                                        "makes that judge's judgments stale.")
def judge_entries(registry: Registry) -> dg.DataVersionsByPartition:
    return dg.DataVersionsByPartition(VERSIONS["judge_entries"]({"registry": registry}))


@dg.observable_source_asset(partitions_def=panels_partitions, group_name=INPUTS_GROUP,
                            description="Each judge panel's entry (registry/panels.yaml: members, rule), hashed: a "
                                        "changed panel makes that panel's judgments stale.")
def panel_entries(registry: Registry) -> dg.DataVersionsByPartition:
    return dg.DataVersionsByPartition(VERSIONS["panel_entries"]({"registry": registry}))


@dg.observable_source_asset(group_name=INPUTS_GROUP,
                            description="The registry's models that are not candidates (baseline, describer), "
                                        "hashed: what the references, descriptions and the game's answers use.")
def registry_roles(registry: Registry) -> dg.DataVersion:
    return dg.DataVersion(VERSIONS["registry_roles"]({"registry": registry}))


@dg.observable_source_asset(group_name=INPUTS_GROUP,
                            description="Every registry entry's slug, display label and role, hashed: the names "
                                        "the metric tables carry. Its check registry_entries_accepted fails on a "
                                        "refused entry (checks/registry.py).")
def registry_labels(registry: Registry) -> dg.DataVersion:
    return dg.DataVersion(VERSIONS["registry_labels"]({"registry": registry}))


def _files_source(name: str, description: str, folders: Callable[[Warehouse], list[Path]]):
    _versioned(name, lambda r: files_version(folders(r["warehouse"])))

    @dg.observable_source_asset(name=name, group_name=INPUTS_GROUP, description=description)
    def _observe(warehouse: Warehouse) -> dg.DataVersion:
        return dg.DataVersion(VERSIONS[name]({"warehouse": warehouse}))

    return _observe


creation_dataset_files = _files_source(
    "creation_dataset_files", f"The Creation dataset folder ({CREATION_DATASET}: items and images), hashed.",
    lambda _w: [repo_path(CREATION_DATASET)])
urs_dataset_files = _files_source(
    "urs_dataset_files", f"The URS dataset folder ({URS_DATASET}: questions, survey, human choices), hashed.",
    lambda _w: [repo_path(URS_DATASET)])
mmmt_if_dataset_files = _files_source(
    "mmmt_if_dataset_files", f"The MMMT-IF dataset folder ({MMMT_IF_DATASET}), hashed.",
    lambda _w: [repo_path(MMMT_IF_DATASET)])
gap_log_files = _files_source(
    "gap_log_files", f"GAP game logs: the sample ({GAP_SAMPLE_LOGS}) and the drop folder, complete files, hashed.",
    lambda w: [repo_path(GAP_SAMPLE_LOGS), paths.drop_folder(w.database, paths.GAP_LOGS)])
mmmt_if_human_files = _files_source(
    "mmmt_if_human_files", "The MMMT-IF human-ratings drop folder, complete files, hashed.",
    lambda w: [paths.drop_folder(w.database, paths.MMMT_IF_HUMAN)])
human_pairwise_files = _files_source(
    "human_pairwise_files", "The human pairwise-choices drop folder (Creation and URS), complete files, hashed.",
    lambda w: [paths.drop_folder(w.database, paths.HUMAN_PAIRWISE)])
benchmark_score_files = _files_source(
    "benchmark_score_files", "Other benchmarks' scores per model (CSV), the drop folder, complete files, hashed.",
    lambda w: [paths.drop_folder(w.database, paths.BENCHMARK_SCORES)])

# What a judgment partition lists in deps: its own judge's entry.
JUDGE_ENTRY = dg.AssetDep(judge_entries, partition_mapping=dg.MultiToSingleDimensionPartitionMapping(
    partition_dimension_name="judge"))

# What a panel's judgment partition lists in deps: its own panel's entry.
PANEL_ENTRY = dg.AssetDep(panel_entries, partition_mapping=dg.MultiToSingleDimensionPartitionMapping(
    partition_dimension_name="judge"))
