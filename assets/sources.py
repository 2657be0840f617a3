"""What the assets read from outside the warehouse, as observable source assets with data versions.

Dagster decides what is stale from code versions and data versions; these sources give it the data
versions of the inputs it cannot see: the registry entries and the dataset and drop-folder files. An
asset that reads one of them lists it in ``deps``, so a changed entry or file makes exactly its readers
stale (a changed judge: that judge's judgment partitions; a new candidate: nothing but its own new
partitions and the metrics). The main job records their versions before it looks at staleness
(scripts/orchestrate.py); in the UI, "Observe sources" does the same through the same functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import dagster as dg
from dagster._core.definitions.data_version import DATA_VERSION_TAG

from assets.chosen import chosen, quiet
from assets.common import INPUTS_GROUP, repo_path
from assets.partitions import judges_partitions, models_partitions, panels_partitions
from benchwright import benchmarks, paths
from benchwright.loading import files_version
from resources.registry import Registry
from resources.warehouse import Warehouse

# Each source's version, from the resources: one text, or one per partition. The observable source
# assets below and the main job both call these.
VERSIONS: dict[str, Callable[[dict], str | dict[str, str]]] = {}


def _versioned(name: str, version: Callable[[dict], str | dict[str, str]]) -> None:
    VERSIONS[name] = version


_versioned("model_entries", lambda r: {e.slug: e.version for e in r["registry"].candidates()})
_versioned("judge_entries", lambda r: {e.slug: e.version for e in r["registry"].judges()})
_versioned("panel_entries", lambda r: {e.slug: e.version for e in r["registry"].panels()})
# The canaries are left out: no reference, description or game answer reads them (canary_judgments reads them
# through model_labels).
_versioned("registry_roles", lambda r: ",".join(f"{e.slug}={e.version}" for e in r["registry"].entries("models")
                                                if e.role not in ("candidate", "canary")))


def current_versions(resources: dict) -> Iterator[tuple[dg.AssetKey, str | None, str]]:
    """(source, partition or None, version) of every source as the resources' registry and files are now."""
    for name, version_of in VERSIONS.items():
        versions = version_of(resources)
        for partition, version in (versions.items() if isinstance(versions, dict) else [(None, versions)]):
            yield dg.AssetKey(name), partition, version


def observed_versions(instance: dg.DagsterInstance) -> dict[tuple[dg.AssetKey, str | None], str | None]:
    """The version each source (and each partition of a partitioned one) was last observed with, in two queries
    per source: what the registry sensor compares `current_versions` with."""
    observed = {}
    for name in VERSIONS:
        key = dg.AssetKey(name)
        ids = list(instance.get_latest_storage_id_by_partition(key, dg.DagsterEventType.ASSET_OBSERVATION).values())
        records = instance.fetch_observations(dg.AssetRecordsFilter(asset_key=key, storage_ids=ids or None),
                                              limit=max(len(ids), 1)).records
        for record in records:
            observed.setdefault((key, record.partition_key), record.asset_observation.data_version)
    return observed


def observation(key: dg.AssetKey, partition: str | None, version: str) -> dg.AssetObservation:
    """A source's new version as the runless observation "Observe sources" records in the UI."""
    return dg.AssetObservation(asset_key=key, partition=partition, tags={DATA_VERSION_TAG: version})


def _labels(registry: Registry, kinds: tuple[str, ...]) -> str:
    """Each entry's slug, label and role; a `family:` written in the registry is in it (the self-preference tables
    read it), a derived one is not, so entries without the field keep the version they had before it existed."""
    return ",".join(f"{e.slug}={e.label}/{e.role}" + (f"/{e.family}" if e.family else "")
                    for kind in kinds for e in registry.entries(kind))


_versioned("registry_labels", lambda r: _labels(r["registry"], ("models", "judges"))
                                        + "".join(f",{e.slug}={e.display_name}/panel" for e in r["registry"].panels()))
# The models.yaml part alone, for readers that name no judge: a new judge leaves it as it was, so it re-runs
# neither the other judges' canaries nor a metric scored without judges (bench/README.md, "adding one judge").
_versioned("model_labels", lambda r: _labels(r["registry"], ("models",)))


@chosen(dg.observable_source_asset, partitions_def=models_partitions, group_name=INPUTS_GROUP,
                            description="Each candidate's registry entry (registry/models.yaml), hashed: a changed "
                                        "entry makes that model's generations stale.")
def model_entries(registry: Registry) -> dg.DataVersionsByPartition:
    return dg.DataVersionsByPartition(VERSIONS["model_entries"]({"registry": registry}))


@chosen(dg.observable_source_asset, partitions_def=judges_partitions, group_name=INPUTS_GROUP,
                            description="Each judge's registry entry (registry/judges.yaml), hashed: a changed entry "
                                        "makes that judge's judgments stale.")
def judge_entries(registry: Registry) -> dg.DataVersionsByPartition:
    return dg.DataVersionsByPartition(VERSIONS["judge_entries"]({"registry": registry}))


@chosen(dg.observable_source_asset, partitions_def=panels_partitions, group_name=INPUTS_GROUP,
                            description="Each judge panel's entry (registry/panels.yaml: members, aggregate), hashed: a "
                                        "changed panel makes that panel's judgments stale.")
def panel_entries(registry: Registry) -> dg.DataVersionsByPartition:
    return dg.DataVersionsByPartition(VERSIONS["panel_entries"]({"registry": registry}))


@chosen(dg.observable_source_asset, group_name=INPUTS_GROUP,
                            description="The registry's models that are not candidates (baseline, describer), "
                                        "hashed: what the references, descriptions and the game's answers use.")
def registry_roles(registry: Registry) -> dg.DataVersion:
    return dg.DataVersion(VERSIONS["registry_roles"]({"registry": registry}))


@chosen(dg.observable_source_asset, group_name=INPUTS_GROUP,
                            description="Every registry entry's slug, display label and role, hashed: the names "
                                        "the metric tables carry. Its check registry_entries_accepted fails on a "
                                        "refused entry (checks/registry.py).")
def registry_labels(registry: Registry) -> dg.DataVersion:
    return dg.DataVersion(VERSIONS["registry_labels"]({"registry": registry}))


@chosen(dg.observable_source_asset, group_name=INPUTS_GROUP,
                            description="The labels of models.yaml's entries alone (candidates, baseline, describer, "
                                        "canaries: slug, display label, role), hashed: what the metric tables that name "
                                        "no judge carry, so a new or renamed judge leaves their readers fresh.")
def model_labels(registry: Registry) -> dg.DataVersion:
    return dg.DataVersion(VERSIONS["model_labels"]({"registry": registry}))


def _files_source(name: str, description: str, folders: Callable[[Warehouse], list[Path]]):
    _versioned(name, lambda r: files_version(folders(r["warehouse"])))

    @chosen(dg.observable_source_asset, name=name, group_name=INPUTS_GROUP, description=description)
    def _observe(warehouse: Warehouse) -> dg.DataVersion:
        return dg.DataVersion(VERSIONS[name]({"warehouse": warehouse}))

    return _observe


# The kernel's drop folders; each benchmark's dataset and drop-folder files are declared with it
# (benchwright.benchmarks.FilesSource), plugins' included.
human_pairwise_files = _files_source(
    "human_pairwise_files", "The human pairwise-choices drop folder (every benchmark compared with people), complete "
    "files, hashed.", lambda w: [paths.drop_folder(w.database, paths.HUMAN_PAIRWISE)])
benchmark_score_files = _files_source(
    "benchmark_score_files", "Other benchmarks' scores per model (CSV), the drop folder, complete files, hashed.",
    lambda w: [paths.drop_folder(w.database, paths.BENCHMARK_SCORES)])


def _declared_source(source: benchmarks.FilesSource):
    return _files_source(source.name, source.description,
                         lambda w: [*(repo_path(folder) for folder in source.folders),
                                    *(paths.drop_folder(w.database, name) for name in source.drops)])


# A list, so Dagster's loader finds every one (`files_source(name)` hands one to its reader's deps).
DECLARED_FILES = [_declared_source(source) for benchmark in benchmarks.declared() for source in benchmark.sources]
_BY_NAME = {source.key.to_user_string(): source for source in DECLARED_FILES}


def files_source(name: str) -> dg.AssetsDefinition:
    """The declared files source called `name` (for a reader's deps)."""
    return _BY_NAME[name]


with quiet():
    # What a judgment partition lists in deps: its own judge's entry.
    JUDGE_ENTRY = dg.AssetDep(judge_entries, partition_mapping=dg.MultiToSingleDimensionPartitionMapping(
        partition_dimension_name="judge"))
    # What a panel's judgment partition lists in deps: its own panel's entry.
    PANEL_ENTRY = dg.AssetDep(panel_entries, partition_mapping=dg.MultiToSingleDimensionPartitionMapping(
        partition_dimension_name="judge"))
