"""Dagster's stale-status resolver (the statuses the UI shows: missing, stale, fresh), fed by batched reads.

Dagster's `CachingStaleStatusResolver` reads the event log one asset partition at a time: the latest
materialization of each partition it is asked about, and for each partitioned parent whether it has a newer
event than the one the child read. Each read is a query on a new connection (with SQLite, a new engine), so the
main job's no-op cost ≈ 35 ms of CPU per asset partition on the demo, ≈ 14 ms at 100 candidates, most of it
there (bench/README.md). `BatchedStaleStatusResolver` is the same
resolver; `prefetch` reads what it will ask about a set of assets and their parents in a few queries per asset
(the latest event id of every partition, then those events by id, through the instance's public
`get_latest_storage_id_by_partition` and `fetch_materializations` / `fetch_observations`; the asset records in
one batch), and answers from those reads the two questions Dagster would otherwise send one by one. Every other
question, and any asset not prefetched, goes to Dagster's own code. The answers are the same as Dagster's
(tests/integration/test_incremental.py compares every asset partition's status with the plain resolver's, fresh,
missing and stale); the no-op costs ≈ 2.5 ms of CPU per asset partition on the demo (bench/noop.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import dagster as dg
from dagster._core.asset_graph_view.asset_graph_view import AssetGraphView, TemporalContext
from dagster._core.definitions.data_version import (
    CachingStaleStatusResolver,
    DataProvenance,
    DataVersion,
    StaleCause,
    StaleCauseCategory,
    extract_data_version_from_entry,
)
from dagster._core.definitions.events import AssetKeyPartitionKey
from dagster._core.events import DagsterEventType
from dagster._time import get_current_datetime
from dagster._utils.caching_instance_queryer import CachingInstanceQueryer

MATERIALIZATION = DagsterEventType.ASSET_MATERIALIZATION
OBSERVATION = DagsterEventType.ASSET_OBSERVATION
IDS_PER_QUERY = 1000  # well under the storage's limit of records per fetch (10,000) and SQLite's parameters


def plain_stale_status_resolver(instance: dg.DagsterInstance, graph) -> CachingStaleStatusResolver:
    """Dagster's own resolver, as the UI builds it: what `BatchedStaleStatusResolver` must agree with."""
    return CachingStaleStatusResolver(instance=instance, asset_graph=graph, loading_context=_view(instance, graph))


def _view(instance: dg.DagsterInstance, graph) -> AssetGraphView:
    # The loading context: it batches and caches the asset records the resolver reads.
    return AssetGraphView(temporal_context=TemporalContext(effective_dt=get_current_datetime(), last_event_id=None),
                          instance=instance, asset_graph=graph)


class BatchedStaleStatusResolver(CachingStaleStatusResolver):
    """Dagster's resolver, answering from batched reads of the assets `prefetch` was given (see the module).

    Like Dagster's, it caches what it read: one is valid until the event log changes (a run, an observation)."""

    def __init__(self, instance: dg.DagsterInstance, graph):
        view = _view(instance, graph)
        # Given now rather than made on first use, the queryer is also the resolver's store of dynamic partitions,
        # which it caches: Dagster's resolver would otherwise ask the instance for them at each partitioned parent.
        super().__init__(instance=instance, asset_graph=graph, loading_context=view,
                         instance_queryer=CachingInstanceQueryer(instance, graph, view))
        self._prefetched: set[dg.AssetKey] = set()
        # (asset, event type) -> partition -> storage id of its latest event of that type
        self._latest_ids: dict[tuple[dg.AssetKey, DagsterEventType], dict[str, int]] = {}
        self._records: dict[int, object] = {}  # storage id -> EventLogRecord
        self._latest_observations: dict[dg.AssetKey, object] = {}  # unpartitioned source -> its latest observation
        # (asset, partition or None) -> data version: materialized without an event (`see_unrecorded`)
        self._unrecorded: Mapping[tuple[dg.AssetKey, str | None], str] = {}

    def see_unrecorded(self, versions: Mapping[tuple[dg.AssetKey, str | None], str]) -> None:
        """Asset partitions materialized (or sources observed) without an event in the log, each with its new data
        version (`versions`, a mapping the caller may go on filling: scripts/plan.py's direct calls). The resolver
        answers as it would after reading a runless materialization (or observation) of each with that version (no
        code version, so no provenance): its version is the new one, and a reader's staleness compares it as
        Dagster compares a newer record's. What it read from the event log stays true meanwhile, since nothing was
        written to it."""
        self._unrecorded = versions

    def _unrecorded_version(self, key: AssetKeyPartitionKey) -> str | None:
        partition = None if key.partition_key is None else str(key.partition_key)
        return self._unrecorded.get((key.asset_key, partition)) if self._unrecorded else None

    def _get_current_data_version(self, *, key: AssetKeyPartitionKey) -> DataVersion:
        version = self._unrecorded_version(key)
        return DataVersion(version) if version is not None else super()._get_current_data_version(key=key)

    def _is_current_data_version_user_provided(self, *, key: AssetKeyPartitionKey) -> bool:
        if self._unrecorded_version(key) is not None and not self.asset_graph.get(key.asset_key).is_external:
            return False  # a runless materialization carries no provenance (a source's version is always its own)
        return super()._is_current_data_version_user_provided(key=key)

    def _get_stale_causes_materialized(self, key: AssetKeyPartitionKey):
        """Dagster's causes, with a parent materialized without an event as new: with the child's provenance, its
        version differs (`_is_dep_updated`); without one, Dagster compares times, and the parent's is later."""
        yield from super()._get_stale_causes_materialized(key)
        if self._unrecorded and self._get_current_data_provenance(key=key) is None:
            for dep in sorted(self._get_partition_dependencies(key=key)):
                if self._unrecorded_version(dep) is not None and not self.asset_graph.get(dep.asset_key).is_external:
                    yield StaleCause(key, StaleCauseCategory.DATA, "has a new dependency materialization", dep)

    def prefetch(self, keys: Iterable[dg.AssetKey]) -> None:
        """Read, in a few queries per asset, what `get_status` will ask about these assets and their parents."""
        graph = self.asset_graph
        wanted = {key for key in keys if graph.has(key)}
        wanted |= {parent for key in wanted for parent in graph.get(key).parent_keys if graph.has(parent)}
        wanted -= self._prefetched
        if not wanted:
            return
        if not self._prefetched:  # one query for every asset's record (its latest materialization), kept by the view
            self.instance_queryer.prefetch_asset_records(sorted(graph.get_all_asset_keys()))
        for key in sorted(wanted):
            node = graph.get(key)
            # An asset whose record holds no materialization has none (the record's reader looks in the event log
            # when the record's copy is missing): there is nothing to ask of materializations.
            kinds = ([MATERIALIZATION] if self._ever_materialized(key) else []) + \
                ([OBSERVATION] if node.is_observable or node.is_external else [])
            if node.is_partitioned:
                for kind in (MATERIALIZATION, OBSERVATION):
                    ids = dict(self._instance.get_latest_storage_id_by_partition(key, kind)) if kind in kinds else {}
                    self._read_records(key, kind, ids.values())
                    self._latest_ids[(key, kind)] = ids
            elif node.is_observable and kinds == [OBSERVATION]:  # a source: its latest observation is its version
                records = self._instance.fetch_observations(dg.AssetRecordsFilter(asset_key=key), limit=1).records
                self._latest_observations[key] = records[0] if records else None
        self._prefetched |= wanted

    def _ever_materialized(self, key: dg.AssetKey) -> bool:
        asset_record = self.instance_queryer.get_asset_record(key)
        return asset_record is not None and asset_record.asset_entry.last_materialization_record is not None

    def _read_records(self, key: dg.AssetKey, kind: DagsterEventType, storage_ids: Iterable[int]) -> None:
        fetch = self._instance.fetch_materializations if kind == MATERIALIZATION else self._instance.fetch_observations
        ids = sorted(storage_ids)
        for start in range(0, len(ids), IDS_PER_QUERY):
            chunk = ids[start:start + IDS_PER_QUERY]
            for record in fetch(dg.AssetRecordsFilter(asset_key=key, storage_ids=chunk), limit=len(chunk)).records:
                self._records[record.storage_id] = record

    def _get_latest_data_version_record(self, key: AssetKeyPartitionKey):
        """A partition's latest materialization (or observation, for an observable asset, whichever is later),
        as Dagster's `CachingInstanceQueryer.get_latest_materialization_or_observation_record` finds it."""
        found = self._prefetched_record(key)
        return found[0] if found is not None else super()._get_latest_data_version_record(key)

    def _prefetched_record(self, key: AssetKeyPartitionKey) -> tuple | None:
        """(record or None,) from the prefetched reads; None when they cannot say."""
        if key.partition_key is None:
            # A materializable asset's record is already batched by the loading context; a source's latest
            # observation was read by `prefetch` (Dagster reads its latest materialization too: it has none).
            return (self._latest_observations[key.asset_key],) if key.asset_key in self._latest_observations else None
        if key.asset_key not in self._prefetched:
            return None
        node = self.asset_graph.get(key.asset_key)
        partition = str(key.partition_key)
        if node.is_materializable and not self._ever_materialized(key.asset_key):
            return (None,)  # Dagster's first look: never materialized, so no partition was
        # Dagster asks whether the partition has an event of the asset's kind (observations for an observable
        # asset) before it reads the latest record of either kind.
        if not self._latest_ids[(key.asset_key, OBSERVATION if node.is_observable else MATERIALIZATION)].get(partition):
            return (None,)
        candidates = []
        for kind in (MATERIALIZATION, OBSERVATION) if node.is_observable else (MATERIALIZATION,):
            storage_id = self._latest_ids[(key.asset_key, kind)].get(partition)
            if storage_id is not None:
                if storage_id not in self._records:
                    return None  # unreadable here: let Dagster read it
                candidates.append(self._records[storage_id])
        # The later by timestamp, the materialization on a tie (Dagster sorts the two, stably, newest first).
        return (sorted(candidates, key=lambda record: record.timestamp, reverse=True)[0] if candidates else None,)

    def _is_dep_updated(self, provenance: DataProvenance, dep_key: AssetKeyPartitionKey) -> bool:
        """Whether a parent partition has a newer event than the one the child's last materialization read.
        Dagster asks the event log for an event after that one; the prefetched latest event id answers "no"
        without a query. A "yes" (rare: the child is stale) still goes to Dagster, which compares versions. A parent
        materialized or observed without an event (`see_unrecorded`) is compared as Dagster would compare its
        record's version."""
        version = self._unrecorded_version(dep_key)
        if version is not None:
            return self._data_versions_differ(self._version_read(provenance, dep_key, version), DataVersion(version))
        if dep_key.partition_key is not None and dep_key.asset_key in self._prefetched:
            kind = OBSERVATION if self.asset_graph.get(dep_key.asset_key).is_external else MATERIALIZATION
            latest = self._latest_ids.get((dep_key.asset_key, kind), {}).get(str(dep_key.partition_key))
            read = provenance.input_storage_ids[dep_key.asset_key]
            if latest is None or (read is not None and latest <= read):
                return False
        return super()._is_dep_updated(provenance, dep_key)

    def _version_read(self, provenance: DataProvenance, dep_key: AssetKeyPartitionKey, newest: str):
        """The version Dagster compares a parent's newest one with (`_is_dep_updated`) when the newest, `newest`,
        has no event: for an unpartitioned parent, the one the child's provenance holds; for a partition, that of
        its latest event up to the child's cursor, or with no cursor, its latest event: the newest itself."""
        if dep_key.partition_key is None:
            return provenance.input_data_versions[dep_key.asset_key]
        cursor = provenance.input_storage_ids[dep_key.asset_key]
        if not cursor:
            return DataVersion(newest)
        external = self.asset_graph.get(dep_key.asset_key).is_external
        latest = self._latest_ids.get((dep_key.asset_key, OBSERVATION if external else MATERIALIZATION), {}).get(
            str(dep_key.partition_key)) if dep_key.asset_key in self._prefetched else None
        if latest is not None and latest <= cursor and latest in self._records:
            record = self._records[latest]
        else:
            record = self._instance.get_latest_data_version_record(dep_key.asset_key, external, dep_key.partition_key,
                                                                   before_cursor=cursor + 1)
        return extract_data_version_from_entry(record.event_log_entry) if record else None

    def latest_materialization_metadata(self, key: dg.AssetKey, partition_key=None) -> dict:
        """The metadata of an asset partition's latest materialization (empty when it has none): what
        `sensors.failed_calls.latest_metadata` reads, from the record the status was resolved with."""
        if self.asset_graph.get(key).is_observable:
            raise ValueError(f"{key.to_user_string()} is observable: its latest record may be an observation")
        record = self._get_latest_data_version_record(key=AssetKeyPartitionKey(key, partition_key))
        materialization = record.asset_materialization if record is not None else None
        return dict(materialization.metadata) if materialization is not None else {}
