"""Dagster's SQLite event log with its database connections kept open in each process
(docs/ARCHITECTURE.md#asset-graph-creation, where it says how runs execute).

Dagster's `SqliteEventLogStorage` builds a new SQLAlchemy engine, opens the file, begins, commits and disposes of the
engine for every statement: about three times per event (the run's file, then the index for asset and check
events), and a cold demo writes ≈ 1,900 events. That was ≈ 30 % of the demo's wall time (bench/README.md,
issue 30). `keep_event_log_connections()` makes every `SqliteEventLogStorage` of this process keep one engine per
database file for the process's life: the same files, tables and transactions (each statement still commits before
the call returns), only without re-opening the file each time.

- The first connection to a database in a process is still Dagster's own (it creates and stamps a new file);
  later ones use the kept engine.
- A process started by fork does not use its parent's engines (keyed by process id).
- Engines are kept for the `KEPT_DATABASES` files used last, and closed when the instance is disposed of; a file
  that was removed since (a deleted run's, `dev.py compact-runs`) is opened Dagster's way again.

Dagster's storage class is not replaced in dagster.yaml: its `base_dir` would have to be an absolute path, and
`dev.py plan` opens a copy of the home. So the connection methods of the class are replaced in the processes that
load our code (the main job, its step and run processes, the code server); any other process (the webserver) uses
Dagster's as shipped, on the same files.
"""

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from dagster._core.storage.event_log.sqlite.sqlite_event_log import INDEX_SHARD_NAME, SqliteEventLogStorage
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, Engine

KEPT_DATABASES = 8  # the index and the files of the runs in flight; a run's file is written only while it runs

_DAGSTERS_RUN_CONNECTION = SqliteEventLogStorage.run_connection
_DAGSTERS_INDEX_CONNECTION = SqliteEventLogStorage.index_connection
_DAGSTERS_DISPOSE = SqliteEventLogStorage.dispose


class _Kept:
    """One storage object's engines in one process, most recently used last."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.lock = threading.RLock()  # one connection at a time per storage and thread, as Dagster's own
        self.engines: OrderedDict[str, Engine] = OrderedDict()


def _kept(storage: SqliteEventLogStorage) -> _Kept:
    kept = storage.__dict__.get("_benchwright_kept")
    if kept is None or kept.pid != os.getpid():
        kept = storage.__dict__["_benchwright_kept"] = _Kept()
    return kept


def _connection(storage: SqliteEventLogStorage, shard: str, dagsters_connection):
    kept = _kept(storage)
    with kept.lock:
        engine = kept.engines.get(shard)
        if engine is not None and not os.path.exists(storage.path_for_shard(shard)):
            kept.engines.pop(shard).dispose()  # the file was removed: never write to the unlinked one
            engine = None
        if engine is None:
            # Dagster's connection this once (it creates and stamps a new file); the engine serves the next ones.
            kept.engines[shard] = create_engine(storage.conn_string_for_shard(shard),
                                                connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS})
            while len(kept.engines) > KEPT_DATABASES:
                kept.engines.popitem(last=False)[1].dispose()
            first = True
        else:
            kept.engines.move_to_end(shard)
            first = False
    return _dagsters(kept, dagsters_connection) if first else _transaction(kept, engine)


@contextmanager
def _transaction(kept: _Kept, engine: Engine) -> Iterator[Connection]:
    with kept.lock, engine.connect() as connection, connection.begin():
        yield connection


@contextmanager
def _dagsters(kept: _Kept, dagsters_connection) -> Iterator[Connection]:
    with kept.lock, dagsters_connection() as connection:  # under the same lock as the kept ones
        yield connection


def _run_connection(self: SqliteEventLogStorage, run_id: str | None = None):
    if run_id is None:
        return _DAGSTERS_RUN_CONNECTION(self, run_id)
    return _connection(self, run_id, lambda: _DAGSTERS_RUN_CONNECTION(self, run_id))


def _index_connection(self: SqliteEventLogStorage):
    return _connection(self, INDEX_SHARD_NAME, lambda: _DAGSTERS_INDEX_CONNECTION(self))


def _has_table(self: SqliteEventLogStorage, table_name: str) -> bool:
    with self.index_connection() as connection:
        return bool(connection.dialect.has_table(connection, table_name))


def _dispose(self: SqliteEventLogStorage) -> None:
    """Dagster's dispose (the instance's end), and the engines this process kept for it closed."""
    _DAGSTERS_DISPOSE(self)
    kept = self.__dict__.pop("_benchwright_kept", None)
    if kept is not None and kept.pid == os.getpid():
        with kept.lock:
            for engine in kept.engines.values():
                engine.dispose()


def keep_event_log_connections() -> None:
    """Make this process's SQLite event logs keep their engines (idempotent)."""
    SqliteEventLogStorage.run_connection = _run_connection
    SqliteEventLogStorage.index_connection = _index_connection
    SqliteEventLogStorage.has_table = _has_table
    SqliteEventLogStorage.dispose = _dispose
