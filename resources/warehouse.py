"""The DuckDB warehouse: one file, one writer process at a time, short locked sections.

DuckDB lets one process write a file, and any open handle (even read-only) blocks writers in other
processes. So every section that touches the file takes an inter-process file lock, keeps the
connection only for that section, and never waits on an LLM while holding it (docs/DESIGN.md#storage); a run
going alone in the main job's process keeps both between its sections (`held_between`), not across provider calls.
A section of its own attaches the file to a DuckDB kept in memory by the process and detaches it at the end
(`_attached`), rather than opening a new DuckDB each time.
Analysts never open this file: the publish asset writes them a snapshot.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import secrets
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
from dagster_duckdb import DuckDBResource
from filelock import FileLock

from benchwright.interrupts import is_interrupted_query, raise_interrupt
from benchwright.loading import split_new_records
from benchwright.paths import sql_file, sql_files
from benchwright.sql_comments import COMMENTS_VERSION, table_statements, view_statements

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")
log = logging.getLogger("benchwright.warehouse")
_SCHEMA_APPLIED: set[str] = set()  # databases this process has created the tables in
_HELD: dict[str, duckdb.DuckDBPyConnection] = {}  # database -> the connection kept open (`hold_open`)
# database -> the lock and connection kept between sections while this process runs a run alone (`held_between`);
# None while nothing is open (before the first section, after a `let_go`).
_HOLDS: dict[str, tuple[FileLock, duckdb.DuckDBPyConnection] | None] = {}
_LET_GO: dict[str, int] = {}  # database -> sections that must open and close the file on their own (`let_go`)
# (process id, connection config) -> the in-memory DuckDB that sections attach the file to (`_attached`); per
# process id because a forked child must never use its parent's DuckDB.
_ATTACH_HOSTS: dict[tuple[int, tuple], duckdb.DuckDBPyConnection] = {}
_ATTACHED: dict[str, str] = {}  # database -> its alias while a section of this process has it attached
_ATTACHED_ON: dict[str, duckdb.DuckDBPyConnection] = {}  # database -> the in-memory DuckDB it is attached to
_ATTACH_GUARD = threading.Lock()  # the dicts above: sections of different files may run in threads at once
_TOGETHER: dict[str, duckdb.DuckDBPyConnection] = {}  # database -> its connection while a `together` block runs


def _ddl() -> tuple[list[str], str]:
    """The DDL files' text, in order, and its sha256."""
    texts = [ddl.read_text(encoding="utf-8") for ddl in sql_files("ddl")]
    # The comments are made from the same text; their maker's version is in the digest so a change to it
    # comments existing files again.
    return texts, hashlib.sha256("\0".join([*texts, COMMENTS_VERSION]).encode("utf-8")).hexdigest()


def _main_columns(con: duckdb.DuckDBPyConnection, kind: str = "TABLE") -> dict[str, list[str]]:
    """Table (or view, kind 'VIEW') -> its columns in order, of this connection's database."""
    rows = con.execute(sql_file("core/queries/catalog_columns.sql").read_text(encoding="utf-8")).fetchall()
    return {name: columns for name, found, columns in rows if found == kind}


@contextmanager
def _transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One transaction on `con`: committed when the block ends, rolled back if it raises."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _comment_tables(con: duckdb.DuckDBPyConnection, texts: list[str]) -> None:
    """COMMENT ON every table and column the DDL's own comments describe (benchwright.sql_comments)."""
    statements, _ = table_statements(texts, _main_columns(con))
    if statements:
        # One transaction: each COMMENT ON alone would commit (and write the catalog) on its own, ten times slower.
        with _transaction(con):
            con.execute(";\n".join(statements))


def _apply_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Run sql/*/ddl unless this file was last brought to exactly this DDL (its digest in `warehouse_schema`)."""
    texts, digest = _ddl()
    try:
        applied = con.execute("SELECT ddl_sha256 FROM warehouse_schema").fetchone()
    except duckdb.CatalogException:  # a new file, or one made before the digest was kept
        applied = None
    if applied and applied[0] == digest:
        return
    for text in texts:
        con.execute(text)
    con.execute("CREATE OR REPLACE TABLE warehouse_schema AS "
                "SELECT ?::VARCHAR AS ddl_sha256, now()::TIMESTAMP AS applied_at", [digest])
    _comment_tables(con, texts)
    con.execute("COMMENT ON TABLE warehouse_schema IS 'The DDL (sql/*/ddl) this file was last brought to: its "
                "sha256 (with the comments'' version) and when (resources/warehouse.py)';\n"
                "COMMENT ON COLUMN warehouse_schema.ddl_sha256 IS 'sha256 of the DDL files'' text and the comments'' "
                "version';\n"
                "COMMENT ON COLUMN warehouse_schema.applied_at IS 'when the DDL was applied, in the session''s "
                "time zone'")


def _close_hold(database: str) -> None:
    """Close a `held_between` connection (checkpointing what it wrote) and release its lock, if one is open."""
    hold = _HOLDS.get(database)
    if hold is not None:
        _HOLDS[database] = None
        lock, con = hold
        try:
            try:
                con.close()
            finally:
                _detach(database)  # the file must not stay attached once the lock is given back
        finally:
            lock.release()


def _writer_lock(database: str, timeout_s: float, **options) -> FileLock:
    """The inter-process lock every section of `database` holds (`<database>.lock`). A waiting process looks
    every 5 ms rather than filelock's 50: a section lasts 5-10 ms, so at 50 ms a process waiting behind another's
    section lost on average more time to the polling than to the section itself."""
    return FileLock(f"{database}.lock", timeout=timeout_s, poll_interval=0.005, **options)


def _attach_host(config: dict) -> duckdb.DuckDBPyConnection:
    key = (os.getpid(), tuple(sorted((name, str(value)) for name, value in config.items())))
    host = _ATTACH_HOSTS.get(key)
    if host is None:
        host = _ATTACH_HOSTS[key] = duckdb.connect(":memory:", config=config)
    return host


def _alias(database: str) -> str:
    """The name a section's file is attached under: its stem, as DuckDB names a file it opens (so
    `current_database()` reads as before), unless that is no plain name or another file attached now has it."""
    stem = Path(database).stem.lower()
    if not _IDENTIFIER.match(stem) or stem in {"memory", "system", "temp"} or stem in _ATTACHED.values():
        stem = "warehouse_" + hashlib.sha256(database.encode("utf-8")).hexdigest()[:12]
    return stem


def _attach(database: str, config: dict) -> duckdb.DuckDBPyConnection:
    """Attach the file to this process's in-memory DuckDB; a connection of its own whose default database is the
    file. The caller holds the file lock; `_detach` undoes it."""
    with _ATTACH_GUARD:
        host = _attach_host(config)
        alias = _alias(database)
        host.execute(f"ATTACH '{database.replace(chr(39), chr(39) * 2)}' AS {alias}")
        _ATTACHED[database], _ATTACHED_ON[database] = alias, host
        con = host.cursor()  # a connection of its own to the same DuckDB: the host is not used by two threads at once
    try:
        con.execute(f"USE {alias}")
    except BaseException:
        con.close()
        _detach(database)
        raise
    return con


def _detach(database: str) -> None:
    """Detach the file (which writes it out and lets other processes open it)."""
    with _ATTACH_GUARD:
        host, alias = _ATTACHED_ON.pop(database), _ATTACHED.pop(database)
        try:
            host.execute(f"DETACH {alias}")
        except BaseException:
            # The file must not stay open in this process (it would lock out every other one): close the
            # whole in-memory DuckDB; the next section starts another.
            for key in [key for key, kept in _ATTACH_HOSTS.items() if kept is host]:
                del _ATTACH_HOSTS[key]
            host.close()
            raise


@contextmanager
def _attached(database: str, config: dict) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection whose default database is the file, for one section: the file is attached to this process's
    in-memory DuckDB and detached at the end (which writes it out and lets other processes open it).

    Why: starting a DuckDB costs ≈ 11 ms (its built-in catalog) before the file's own catalog is read, so a
    `duckdb.connect` per section cost ≈ 15 ms and its close ≈ 4 ms; attaching to one already running ≈ 4 ms and
    detaching ≈ 4 ms (bench/README.md). The caller holds the file lock, so no other section of this file is open."""
    con = _attach(database, config)
    try:
        yield con
    finally:
        try:
            con.close()
        finally:
            _detach(database)


def read_sql(relative_path: str) -> str:
    """Text of a file under sql/ (SQL lives in files, not in f-strings); a plugin's own sql/ folder is
    searched after the repository's."""
    return sql_file(relative_path).read_text(encoding="utf-8")


def _insert_new(con: duckdb.DuckDBPyConnection, table: str, rows: pd.DataFrame, key: list[str]) -> int:
    """Insert the rows whose `key` is not in the table yet (all of them when `key` is empty); returns
    how many went in. The caller holds the session (and, for several writes, the transaction)."""
    table = _identifier(table)
    if not len(rows):
        return 0
    before = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
    on = " AND ".join(f"t.{_identifier(c)} = i.{c}" for c in key)
    con.register("incoming_rows", rows)
    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming_rows i"
                + (f" WHERE NOT EXISTS (SELECT 1 FROM {table} t WHERE {on})" if key else ""))
    con.unregister("incoming_rows")
    return con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] - before


def publish_lock(target: Path, timeout_s: float) -> FileLock:
    """The lock every publish of `target` holds from its first byte to its rename (`<target>.publish.lock`).

    It serializes publishes (threads and processes alike): the copy taken later is also renamed later,
    so an older copy can never replace a newer snapshot, and any temp copy found while holding it was
    left by a publish that was killed. The OS releases it when its holder dies, even by SIGKILL.
    """
    return FileLock(f"{target}.publish.lock", timeout=timeout_s)


def remove_stale_temp_files(target: Path) -> list[str]:
    """Delete the temp copies (and their WAL files) that killed publishes left beside `target`.

    Call it holding `publish_lock(target)`: then no publish is writing, so every temp copy is stale,
    whatever its pid says (a pid is reused, and means nothing in another container sharing the folder).
    """
    removed = []
    for path in sorted(target.parent.glob(f".{target.name}.*.tmp*")):
        path.unlink(missing_ok=True)
        removed.append(path.name)
    return removed


def _identifier(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise ValueError(f"not a plain SQL identifier: {name!r}")
    return name


class Warehouse(DuckDBResource):
    """DuckDBResource plus the house rules: file lock, schema from sql/*/ddl, per-partition writes."""

    snapshot_path: str = ""
    lock_timeout_s: float = 900.0
    hold_open: bool = False
    """Keep the file open between sections (each section gets a cursor of its own). Only for a file no other
    process opens: `dev.py plan`'s private copy, where opening and closing the file for each of hundreds of
    short sections costs more than the plan's own work (scripts/plan.py). `close_held` closes it."""

    @contextmanager
    def session(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A locked connection with every table of sql/*/ddl present; closed on any exit. A query that Ctrl-C or
        `kill` stopped raises the interrupt, not DuckDB's RuntimeError (benchwright/interrupts.py)."""
        try:
            yield from self._session()
        except RuntimeError as error:
            if is_interrupted_query(error):
                raise_interrupt()
            raise

    def _session(self) -> Iterator[duckdb.DuckDBPyConnection]:
        Path(self.database).parent.mkdir(parents=True, exist_ok=True)
        if self.hold_open:
            yield from self._held_session()
            return
        if self.database in _HOLDS and not _LET_GO.get(self.database):
            yield from self._section_of_hold()
            return
        if self.database in _TOGETHER:
            cursor = _TOGETHER[self.database].cursor()  # its own transactions and frames, on the block's attach
            try:
                cursor.execute(f"USE {_ATTACHED[self.database]}")  # the block's `_prepare` settings are global
                yield cursor
            finally:
                cursor.close()
            return
        with self._section_of_its_own() as con:
            yield con

    @contextmanager
    def _section_of_its_own(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The file locked, attached and made ready until the caller is done with it (a section, a `together`
        block)."""
        with _writer_lock(self.database, self.lock_timeout_s):
            fresh_file = not Path(self.database).exists()
            with _attached(self.database, dict(self.connection_config)) as con:
                self._prepare(con, apply_schema=fresh_file)
                yield con

    def _prepare(self, con: duckdb.DuckDBPyConnection, apply_schema: bool = False) -> None:
        """A connection just opened, made ready for a section: every table of sql/*/ddl present, no vacuum."""
        # The DDL is idempotent but costs 0.1-1 s (its upgrade statements scan tables): it runs when the file's
        # schema is not the one sql/*/ddl now describes (warehouse_schema keeps the digest of the DDL last
        # applied), checked once per process and file (and always for a new file).
        if apply_schema or self.database not in _SCHEMA_APPLIED:
            _apply_schema(con)
            _SCHEMA_APPLIED.add(self.database)
        # No vacuum at checkpoints: it merges the row groups that separate writes leave, and merging rewrites them
        # whole, so a table of pictures (`images`) would be held in memory entirely at the next checkpoint after
        # any write. A replaced partition's rows still go: a row group whose rows are all deleted is dropped
        # without vacuum.
        con.execute("SET max_vacuum_tasks = 0")

    def _held_session(self) -> Iterator[duckdb.DuckDBPyConnection]:
        held = _HELD.get(self.database)
        if held is None:
            held = _HELD[self.database] = duckdb.connect(self.database, config=dict(self.connection_config))
            self._prepare(held, apply_schema=True)
        cursor = held.cursor()  # its own transactions and registered frames; the database stays open
        try:
            yield cursor
        finally:
            cursor.close()

    def _section_of_hold(self) -> Iterator[duckdb.DuckDBPyConnection]:
        hold = _HOLDS[self.database]
        if hold is None:
            # Not per thread: held by the process, released by whichever thread ends the hold.
            lock = _writer_lock(self.database, self.lock_timeout_s, thread_local=False)
            lock.acquire()
            try:
                fresh_file = not Path(self.database).exists()
                con = _attach(self.database, dict(self.connection_config))  # as a section's own: no DuckDB started
                try:
                    self._prepare(con, apply_schema=fresh_file)
                except BaseException:
                    con.close()
                    _detach(self.database)
                    raise
            except BaseException:
                lock.release()
                raise
            hold = _HOLDS[self.database] = (lock, con)
        cursor = hold[1].cursor()  # its own transactions and registered frames, as a section's own connection
        try:
            cursor.execute(f"USE {_ATTACHED[self.database]}")  # a new cursor starts in the in-memory database
            yield cursor
        finally:
            cursor.close()

    @contextmanager
    def together(self) -> Iterator[None]:
        """The sections in this block share one attach of the file and keep its lock between them: for a few
        sections in a row with little work between (an asset reading its inputs, query after query), which would
        each attach and detach the file (≈ 7 ms together at the full size) where a process shares it with others
        (runs in parallel). Never around a model call or long computation: another process waits meanwhile.
        Within a `held_between` block (or `hold_open`) it changes nothing."""
        if self.hold_open or self.database in _HOLDS or self.database in _TOGETHER:
            yield
            return
        Path(self.database).parent.mkdir(parents=True, exist_ok=True)
        with self._section_of_its_own() as con:
            _TOGETHER[self.database] = con
            try:
                yield
            finally:
                del _TOGETHER[self.database]

    @staticmethod
    @contextmanager
    def held_between(database: str) -> Iterator[None]:
        """Within this block, this process's sections of `database` share one connection and keep the file lock
        between them, instead of opening the file (tens of ms of CPU each: the catalog and its comments are read
        back every time) and closing it (a checkpoint) for each of the hundreds of short sections a cold run has.
        Only for a process that runs one run at a time with every step in it (the main job without parallel runs
        or step processes): another process waits on the lock, as it would for a section, until the block ends
        or `let_go`; a provider is never waited on with the lock held (resources/llm.py lets go around its calls;
        the simulator answers in this process and keeps it)."""
        database = str(database)
        if database in _HOLDS:  # nested: the outer block keeps it
            yield
            return
        _HOLDS[database] = None
        try:
            yield
        finally:
            _close_hold(database)
            del _HOLDS[database]

    @staticmethod
    @contextmanager
    def let_go() -> Iterator[None]:
        """Close every held connection and give its lock back; inside this block sections open and close the
        file on their own (the image reads while models are asked), as without a hold."""
        held = list(_HOLDS)
        for database in held:
            _close_hold(database)
            _LET_GO[database] = _LET_GO.get(database, 0) + 1
        try:
            yield
        finally:
            for database in held:
                _LET_GO[database] -= 1

    @staticmethod
    def close_held(database: str) -> None:
        """Close the connection `hold_open` kept to this file, if any."""
        held = _HELD.pop(str(database), None)
        if held is not None:
            held.close()

    def replace_rows(self, table: str, rows: pd.DataFrame, match: Mapping[str, Any]) -> int:
        """Replace the rows of one partition in one transaction; returns rows written.

        Deletes the rows whose `match` columns equal the given values, then inserts `rows` by column
        name, so re-materializing a partition never duplicates rows and column order never matters.
        """
        return self.write_tables([(table, rows, match)])

    def write_tables(self, writes: list[tuple[str, pd.DataFrame, Mapping[str, Any] | None]]) -> int:
        """Several (table, rows, match) replacements in ONE transaction: all land or none do.

        For each write, rows matching `match` are deleted (a list value matches any of its items;
        `{}` deletes the whole table; None deletes nothing), then `rows` are inserted by column name.
        Returns the rows inserted.
        """
        written = 0
        with self.session() as con, _transaction(con):
            for table, rows, match in writes:
                table = _identifier(table)
                if match is not None:
                    where = " AND ".join(
                        f"list_contains(?, {_identifier(col)})" if isinstance(value, (list, tuple))
                        else f"{_identifier(col)} = ?" for col, value in match.items()) or "TRUE"
                    con.execute(f"DELETE FROM {table} WHERE {where}",
                                [list(v) if isinstance(v, tuple) else v for v in match.values()])
                if len(rows):
                    con.register("incoming_rows", rows)
                    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming_rows")
                    con.unregister("incoming_rows")
                    written += len(rows)
        return written

    def fill_from_queries(self, fills: list[tuple[str, str]]) -> dict[str, int]:
        """Whole tables replaced by queries run where the data lives, in ONE transaction: for each (table, sql)
        in turn, every row of the table is deleted and the query's rows are inserted by column name, so a query
        may read a table filled before it. Returns the rows inserted per table.

        For results too large to travel through pandas and back (creation_comparisons' item tables: every pair
        of candidates × item × judge, 7.6 million rows at 100 candidates: ≈ 4.7 GB at peak through pandas,
        bench/comparisons_memory.py)."""
        written: dict[str, int] = {}
        with self.session() as con, _transaction(con):
            for table, sql in fills:
                name = _identifier(table)
                con.execute(f"DELETE FROM {name}")
                written[table] = con.execute(f"INSERT INTO {name} BY NAME {sql.strip().rstrip(';')}").fetchone()[0]
        return written

    def add_new_rows(self, table: str, rows: pd.DataFrame, key: list[str]) -> int:
        """Insert only the rows whose key is not in the table yet (content-addressed tables)."""
        with self.session() as con:
            return _insert_new(con, table, rows, key)

    def add_images(self, rows: pd.DataFrame) -> int:
        """Insert the normalized images not stored yet (`images` rows); returns how many went in.

        Each call's rows stay row groups of their own (no vacuum, see `session`): were they merged with the
        row groups before, the checkpoint would rewrite, and hold in memory, every picture stored so far.
        """
        with self.session() as con:
            return _insert_new(con, "images", rows, ["sha256"])

    def ingest_records(self, table: str, rows: pd.DataFrame, key: list[str], place: list[str], *,
                       problems_of: tuple[str, str],
                       also: list[tuple[str, pd.DataFrame, list[str]]] = ()) -> dict[str, int]:
        """Store each record once by its natural ``key``, checking and writing in ONE locked transaction,
        so two ingests at once (a sensor's run and a manual one) cannot both store a record.

        ``place`` names where a record was read (file, line). A record already stored from the same place
        is known; from another place it is a duplicate: a `dataset_problems` row (``problems_of`` =
        benchmark, dataset) "duplicate of <first place>", written once. ``also``: (table, rows, key) written
        in the same transaction, each row only if its key is new (file records, quarantined lines).
        See benchwright.loading (the drop-folder contract). Returns stored / duplicates / known counts.
        """
        benchmark, dataset = problems_of
        with self.session() as con, _transaction(con):
            stored: dict[tuple, tuple] = {}
            if len(rows):
                con.register("incoming_keys", rows[key].drop_duplicates())
                on = " AND ".join(f"t.{_identifier(c)} = i.{c}" for c in key)
                columns = ", ".join([f"t.{c}" for c in key] + [f"t.{_identifier(c)}" for c in place])
                found = con.execute(f"SELECT {columns} FROM {_identifier(table)} t JOIN incoming_keys i ON {on}"
                                    ).fetchall()
                con.unregister("incoming_keys")
                stored = {tuple(r[:len(key)]): tuple(r[len(key):]) for r in found}
            new, duplicates, known = split_new_records(rows.to_dict("records"), stored, key, place)
            _insert_new(con, table, pd.DataFrame(new, columns=rows.columns), [])
            problems = pd.DataFrame([{"benchmark": benchmark, "dataset": dataset, "location": ":".join(d["place"]),
                                      "reason": "duplicate of " + ":".join(d["first"])} for d in duplicates],
                                    columns=["benchmark", "dataset", "location", "reason"])
            _insert_new(con, "dataset_problems", problems, ["benchmark", "dataset", "location", "reason"])
            for other, other_rows, other_key in also:
                _insert_new(con, other, other_rows, other_key)
        return {"stored": len(new), "duplicates": len(duplicates), "known": known}

    def query(self, sql: str, params: list[Any] | None = None) -> pd.DataFrame:
        with self.session() as con:
            return con.execute(sql, params or []).df()

    def query_file(self, relative_path: str, params: list[Any] | None = None) -> pd.DataFrame:
        return self.query(read_sql(relative_path), params)

    def reclaim_space(self, min_free_fraction: float = 0.10) -> int:
        """Give the file back the space of replaced rows; returns the bytes reclaimed (0 when not worth it).

        DuckDB writes a replaced partition's new rows before it frees the old ones, and keeps freed blocks
        for reuse rather than shrinking the file, so re-running the same work grows the file (to about
        twice its size). When more than `min_free_fraction` of its blocks are free, the database is copied
        into a compact file that atomically replaces it, under the writer lock (a crash leaves the old file).
        """
        path = Path(self.database)
        if not path.exists():
            return 0
        _close_hold(self.database)  # the file is replaced below: no connection of ours may stay on the old one
        with _writer_lock(self.database, self.lock_timeout_s):
            with self.get_connection() as con:
                try:
                    con.execute("CHECKPOINT")
                    total, free = con.execute("SELECT total_blocks, free_blocks FROM pragma_database_size() "
                                              "WHERE database_name = current_database()").fetchone()
                finally:
                    con.close()
            if not total or free / total <= min_free_fraction:
                return 0
            before = path.stat().st_size
            compact = path.with_name(f".{path.name}.compact")
            for leftover in (compact, compact.with_name(f"{compact.name}.wal")):
                leftover.unlink(missing_ok=True)
            copier = duckdb.connect()
            try:
                copier.execute(f"ATTACH '{path}' AS current_file (READ_ONLY)")
                copier.execute(f"ATTACH '{compact}' AS compact_file")
                copier.execute("COPY FROM DATABASE current_file TO compact_file")
            finally:
                copier.close()
            os.replace(compact, path)
        return before - path.stat().st_size

    def publish_snapshot(self) -> list[str]:
        """Copy every table to a read-only analyst snapshot and apply sql/*/views; returns the views.

        The copy is written in DuckDB storage v1.4.0 so older clients can open it, to a temp file
        first and renamed into place, so an analyst holding the old snapshot open is never blocked
        and never sees a half-written file. Temp files left by publishes that were killed are removed.
        """
        target = Path(self.snapshot_path or f"{Path(self.database).with_suffix('')}.analyst.duckdb")
        target.parent.mkdir(parents=True, exist_ok=True)
        with publish_lock(target, self.lock_timeout_s):
            for name in remove_stale_temp_files(target):
                log.warning("removed %s, left by a publish that was killed", name)
            # The pid names the writer for an operator; the random part keeps two publishes of one
            # process apart should the lock ever be bypassed.
            tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
            try:
                views = self._write_snapshot(tmp)
                os.replace(tmp, target)
            finally:
                for leftover in (tmp, tmp.with_name(f"{tmp.name}.wal")):
                    leftover.unlink(missing_ok=True)   # a failed publish cleans up after itself
        return views

    def _write_snapshot(self, tmp: Path) -> list[str]:
        with self.session() as con:
            source_db = con.execute("SELECT current_database()").fetchall()[0][0]
            con.execute(f"ATTACH '{tmp}' AS analyst_snapshot (STORAGE_VERSION 'v1.4.0')")
            try:
                con.execute(f"COPY FROM DATABASE {source_db} TO analyst_snapshot")
            finally:
                con.execute("DETACH analyst_snapshot")
        views, texts = [], []
        snap = duckdb.connect(str(tmp))
        try:
            # The views, then COMMENT ON each and its columns (the view file's header, the tables' comments), in
            # one transaction: committed one by one, the comments took longer than copying every table.
            snap.execute("BEGIN TRANSACTION")
            for view_file in sql_files("views"):
                texts.append(view_file.read_text(encoding="utf-8"))
                snap.execute(texts[-1])
                views.append(view_file.stem)
            _, read = table_statements(_ddl()[0], {})
            columns = _main_columns(snap, "VIEW")
            statements = [statement for text in texts for statement in view_statements(text, columns, read)]
            if statements:
                snap.execute(";\n".join(statements))
            snap.execute("COMMIT")
        finally:
            snap.close()
        return views
