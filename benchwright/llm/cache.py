"""SQLite response cache and call journal.

SQLite rather than DuckDB because several processes (parallel Dagster steps) write it at once: WAL lets
readers and one writer proceed together, and busy_timeout makes writers queue instead of failing.
Each response is committed as it arrives, with the others that arrived in the same pass of the runner's event loop
(`record`: answers, errors and the release of their claims in one transaction), so a killed run keeps every
finished call but those of the pass it was killed in.

Only the key, model, prompt version, the (already redacted) response text, usage, latency and cost are
stored -- never the messages (they may hold personal data) and never credentials.

Batches sent to a provider's batch API are journalled (`batches`, `batch_requests`) before they are created,
as an intent (status `creating`, its id a tag the batch carries in the provider's metadata), and under their
provider's id once created; so a killed run's next run collects the batch it already paid for, even one whose
id it never learnt, instead of sending another.

An answer without text is not an answer: it is never stored as one, and a row without text written by an
older version (which cached a provider's `content: null` as "") is a miss, so the request is asked again.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Iterable, Sequence

from benchwright.llm.failures import GIVE_UP_AFTER, given_up_error

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    text TEXT,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    latency_ms REAL NOT NULL,
    cost_usd REAL NOT NULL,
    simulated INTEGER NOT NULL,
    pii_redactions INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS errors (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    error TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    created_at REAL NOT NULL,
    status INTEGER  -- the last attempt's HTTP status, when it had one (the give-up rule reads it)
);
CREATE INDEX IF NOT EXISTS errors_key ON errors(key);
-- The cost ledger (see CallScope): one row per call a step made (failed ones included), and one row per run, scope
-- and called model for the cache hits it was served (`results` counts them, request_key is ''), so a re-run that
-- calls nothing adds a few rows, not one per hit. A hit keeps the usage, cost and latency of the call that first
-- answered it (summed over the hits); `cached` says this step did not pay for it. No text, no messages.
CREATE TABLE IF NOT EXISTS ledger (
    ledger_id TEXT PRIMARY KEY,
    recorded_at REAL NOT NULL,
    run_id TEXT NOT NULL,
    benchmark TEXT NOT NULL,
    stage TEXT NOT NULL,
    partition_key TEXT NOT NULL,
    model TEXT NOT NULL,
    judge TEXT NOT NULL,
    llm_model TEXT NOT NULL,
    request_key TEXT NOT NULL,
    cached INTEGER NOT NULL,
    error INTEGER NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    latency_ms REAL NOT NULL,
    simulated INTEGER NOT NULL,
    results INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS ledger_recorded ON ledger(recorded_at);
-- Requests being called right now, so that two processes (parallel partition runs sharing a request) never pay
-- for the same one twice: the owner (host:pid) calls, the other waits for its answer. A claim of a dead process, or
-- one older than the runner's lease, is stale and taken over. No messages, no keys.
CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    claimed_at REAL NOT NULL
);
-- Provider batches: one row per batch created, `final` once its results are in the cache or the errors.
-- Before the create, the row is an intent: batch_id is the tag the batch carries in its metadata, status
-- 'creating' (BATCH_CREATING). api_base is '' for the provider's own endpoint. No keys, no messages.
CREATE TABLE IF NOT EXISTS batches (
    batch_id TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    api_base TEXT NOT NULL,
    input_file_id TEXT NOT NULL,
    status TEXT NOT NULL,
    final INTEGER NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
-- The requests (cache keys) of each batch, with what a response row needs besides the answer.
CREATE TABLE IF NOT EXISTS batch_requests (
    batch_id TEXT NOT NULL,
    key TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    PRIMARY KEY (batch_id, key)
);
"""

LEDGER_COLUMNS = ["ledger_id", "recorded_at", "run_id", "benchmark", "stage", "partition_key", "model", "judge",
                  "llm_model", "request_key", "cached", "error", "tokens_in", "tokens_out", "cost_usd", "latency_ms",
                  "simulated", "results"]


# The status of a batch journalled before its create: its id is still our tag (see `put_batch_intent`).
BATCH_CREATING = "creating"


def has_text(text: str | None) -> bool:
    """Whether a model's reply is an answer at all (a refusal or a content filter leaves none)."""
    return isinstance(text, str) and bool(text.strip())


@dataclass
class JournalledBatch:
    batch_id: str
    model: str
    api_base: str
    status: str
    created_at: float
    prompt_versions: dict[str, str]  # request key -> prompt version

    @property
    def creating(self) -> bool:
        """An intent: journalled before its create, by a run that did not live to learn the batch's id."""
        return self.status == BATCH_CREATING


@dataclass(frozen=True)
class JournalledError:
    """A failed call's line in the errors journal (its time is the write's)."""

    key: str
    model: str
    prompt_version: str
    error: str
    attempts: int
    status: int | None = None  # the last attempt's HTTP status, when it had one


@dataclass
class CachedResponse:
    key: str
    model: str
    prompt_version: str
    text: str | None
    tokens_in: int
    tokens_out: int
    latency_ms: float
    cost_usd: float
    simulated: bool
    pii_redactions: int
    created_at: float


class ResponseCache:
    def __init__(self, path: str, busy_timeout_ms: int = 30_000):
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()  # sqlite3 connections must stay in the thread that made them
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
        with self._conn() as conn:
            conn.executescript(_SCHEMA)
            # A journal written before errors had a status, or the ledger counted its hits: add the column (old
            # error rows have no status; an old ledger row stands for one result).
            for table, column in (("errors", "status INTEGER"), ("ledger", "results INTEGER NOT NULL DEFAULT 1")):
                if column.split()[0] not in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}:
                    try:
                        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
                    except sqlite3.OperationalError as err:  # another process added it first
                        if "duplicate column" not in str(err):
                            raise

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=self.busy_timeout_ms / 1000)
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
            conn.execute("PRAGMA journal_mode = WAL")
            # NORMAL in WAL mode survives a process kill; only an OS crash may lose the last commits.
            conn.execute("PRAGMA synchronous = NORMAL")
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def get_many(self, keys: Iterable[str]) -> dict[str, CachedResponse]:
        found: dict[str, CachedResponse] = {}
        conn = self._conn()
        for chunk, marks in _key_chunks(keys):
            found.update(self._responses(conn, chunk, marks))
        return found

    @staticmethod
    def _responses(conn: sqlite3.Connection, chunk: list[str], marks: str) -> dict[str, CachedResponse]:
        rows = conn.execute(
            "SELECT key, model, prompt_version, text, tokens_in, tokens_out, latency_ms, cost_usd,"
            f" simulated, pii_redactions, created_at FROM responses WHERE key IN ({marks})",
            chunk,
        ).fetchall()
        return {row[0]: CachedResponse(*row[:8], bool(row[8]), *row[9:]) for row in rows if has_text(row[3])}

    def claim_many(self, keys: Iterable[str], owner: str, stale_after_s: float) -> set[str]:
        """Claim the keys for `owner` (in one transaction); returns those it now holds. A key held by another owner
        stays theirs unless the claim is stale: older than `stale_after_s`, or of a process on this host that no
        longer runs."""
        return self._claim(keys, owner, stale_after_s, answered=False)[0]

    def claim_unanswered(self, keys: Iterable[str], owner: str,
                         stale_after_s: float) -> tuple[set[str], dict[str, CachedResponse]]:
        """As `claim_many`, in one transaction, for the keys not answered yet: (keys now held, answers found). A key
        answered meanwhile (by another run since this one read the cache) is not claimed: its answer is returned."""
        return self._claim(keys, owner, stale_after_s, answered=True)

    def _claim(self, keys: Iterable[str], owner: str, stale_after_s: float,
               answered: bool) -> tuple[set[str], dict[str, CachedResponse]]:
        keys = list(keys)
        if not keys:
            return set(), {}
        now, host = time.time(), owner.rpartition(":")[0]
        held: set[str] = set()
        found: dict[str, CachedResponse] = {}
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")  # the read and the write as one: two claimants never both hold a key
        try:
            for chunk, marks in _key_chunks(keys):
                if answered:
                    found.update(self._responses(conn, chunk, marks))
                    chunk = [key for key in chunk if key not in found]
                    marks = ",".join("?" * len(chunk))
                rows = conn.execute(f"SELECT key, owner, claimed_at FROM claims WHERE key IN ({marks})", chunk).fetchall()
                others = {key for key, holder, at in rows
                          if holder != owner and now - at < stale_after_s and _owner_alive(holder, host)}
                mine = [key for key in chunk if key not in others]
                conn.executemany("INSERT OR REPLACE INTO claims VALUES (?, ?, ?)", [(key, owner, now) for key in mine])
                held.update(mine)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        return held, found

    def release_claims(self, keys: Iterable[str], owner: str) -> None:
        """Give up the owner's claims on these keys (answered, failed or not called)."""
        self.record(release=keys, owner=owner)

    def get(self, key: str) -> CachedResponse | None:
        return self.get_many([key]).get(key)

    def put_response(self, resp: CachedResponse) -> None:
        self.record(responses=[resp])

    def put_error(self, key: str, model: str, prompt_version: str, error: str, attempts: int,
                  status: int | None = None) -> None:
        self.record(errors=[JournalledError(key, model, prompt_version, error, attempts, status)])

    def record(self, responses: Sequence[CachedResponse] = (), errors: Sequence[JournalledError] = (),
               release: Iterable[str] = (), owner: str = "", refresh: bool = False) -> None:
        """Finished calls in one transaction: their answers and journalled errors, and the release of `owner`'s claims
        on `release` (after the answers, so whoever waits on a claim finds the answer once it is free). With
        `refresh`, `owner`'s other claims are dated now: a live run's claims on calls still queued never go stale."""
        for resp in responses:
            if not has_text(resp.text):
                raise ValueError(f"response {resp.key} has no text: journal it as an error, never cache it as an "
                                 "answer")
        release = list(release)
        if not (responses or errors or release or refresh):
            return
        now = time.time()
        with self._conn() as conn:  # commits on exit
            conn.executemany("INSERT OR REPLACE INTO responses VALUES (?,?,?,?,?,?,?,?,?,?,?)", [
                (resp.key, resp.model, resp.prompt_version, resp.text, int(resp.tokens_in), int(resp.tokens_out),
                 float(resp.latency_ms), float(resp.cost_usd), int(resp.simulated), int(resp.pii_redactions),
                 resp.created_at) for resp in responses])
            conn.executemany("INSERT INTO errors (key, model, prompt_version, error, attempts, created_at, status) "
                             "VALUES (?,?,?,?,?,?,?)", [(e.key, e.model, e.prompt_version, e.error, int(e.attempts),
                                                         now, e.status) for e in errors])
            for chunk, marks in _key_chunks(release):
                conn.execute(f"DELETE FROM claims WHERE owner = ? AND key IN ({marks})", [owner, *chunk])
            if refresh:
                conn.execute("UPDATE claims SET claimed_at = ? WHERE owner = ?", (now, owner))

    def errors_for(self, key: str) -> list[str]:
        rows = self._conn().execute("SELECT error FROM errors WHERE key = ? ORDER BY id", (key,)).fetchall()
        return [r[0] for r in rows]

    def given_up(self, keys: Iterable[str]) -> dict[str, str]:
        """Request key -> the error to serve, for the keys given up by the rule in `failures.py`."""
        found: dict[str, str] = {}
        conn = self._conn()
        for chunk, marks in _key_chunks(keys):
            # Only keys with enough permanent failures can be given up: the common case reads nothing more.
            rows = conn.execute(
                f"SELECT key FROM errors WHERE key IN ({marks}) AND status BETWEEN 400 AND 499 "
                "GROUP BY key HAVING count(*) >= ?", [*chunk, GIVE_UP_AFTER]).fetchall()
            for (key,) in rows:
                history = conn.execute("SELECT error, status FROM errors WHERE key = ? ORDER BY id DESC LIMIT ?",
                                       (key, GIVE_UP_AFTER)).fetchall()
                error = given_up_error(list(reversed(history)))
                if error is not None:
                    found[key] = error
        return found

    def put_batch(self, batch_id: str, model: str, api_base: str, input_file_id: str, status: str,
                  prompt_versions: dict[str, str]) -> None:
        """Journal a batch just created, with its requests (key -> prompt version), in one transaction."""
        now = time.time()
        with self._conn() as conn:
            conn.execute("INSERT OR REPLACE INTO batches VALUES (?,?,?,?,?,0,?,?)",
                         (batch_id, model, api_base, input_file_id, status, now, now))
            conn.executemany("INSERT OR IGNORE INTO batch_requests VALUES (?,?,?)",
                             [(batch_id, key, version) for key, version in prompt_versions.items()])

    def put_batch_intent(self, tag: str, model: str, api_base: str, prompt_versions: dict[str, str]) -> None:
        """Journal a batch about to be created, under the tag it will carry in the provider's metadata, with its
        requests: a run killed before it learns the batch's id leaves this for the next run to look up."""
        self.put_batch(tag, model, api_base, "", BATCH_CREATING, prompt_versions)

    def confirm_batch(self, tag: str, batch_id: str, input_file_id: str, status: str) -> None:
        """The intent `tag` is the provider's batch `batch_id` now: one transaction renames it and its requests."""
        with self._conn() as conn:
            conn.execute("UPDATE batches SET batch_id = ?, input_file_id = ?, status = ?, updated_at = ? "
                         "WHERE batch_id = ?", (batch_id, input_file_id, status, time.time(), tag))
            conn.execute("UPDATE batch_requests SET batch_id = ? WHERE batch_id = ?", (batch_id, tag))

    def set_batch_status(self, batch_id: str, status: str, final: bool = False) -> None:
        with self._conn() as conn:
            conn.execute("UPDATE batches SET status = ?, final = max(final, ?), updated_at = ? WHERE batch_id = ?",
                         (status, int(final), time.time(), batch_id))

    def open_batches(self, model: str, api_base: str) -> list[JournalledBatch]:
        """Batches of this model and endpoint whose results are not yet collected, oldest first."""
        conn = self._conn()
        rows = conn.execute("SELECT batch_id, model, api_base, status, created_at FROM batches WHERE model = ? "
                            "AND api_base = ? AND NOT final ORDER BY created_at, batch_id",
                            (model, api_base)).fetchall()
        found = []
        for row in rows:
            versions = dict(conn.execute("SELECT key, prompt_version FROM batch_requests WHERE batch_id = ?",
                                         (row[0],)).fetchall())
            found.append(JournalledBatch(*row, prompt_versions=versions))
        return found

    def batch_rows(self) -> list[tuple]:
        """Every journalled batch: (batch_id, model, api_base, status, final, requests), oldest first."""
        return self._conn().execute(
            "SELECT b.batch_id, b.model, b.api_base, b.status, b.final, count(r.key) FROM batches b "
            "LEFT JOIN batch_requests r USING (batch_id) GROUP BY b.batch_id ORDER BY b.created_at, b.batch_id"
        ).fetchall()

    def put_ledger(self, rows: list[tuple]) -> None:
        """Ledger rows (in LEDGER_COLUMNS order) in one transaction."""
        if not rows:
            return
        with self._conn() as conn:
            conn.executemany(f"INSERT OR IGNORE INTO ledger VALUES ({','.join('?' * len(LEDGER_COLUMNS))})", rows)

    def ledger_since(self, recorded_after: float = 0.0) -> list[tuple]:
        """Ledger rows recorded after a time (seconds since the epoch), oldest first."""
        return self._conn().execute(f"SELECT {', '.join(LEDGER_COLUMNS)} FROM ledger WHERE recorded_at > ? "
                                    "ORDER BY recorded_at, ledger_id", (recorded_after,)).fetchall()

    def ledger_by_model(self, run_ids: list[str]) -> list[dict]:
        """The ledger of these runs per benchmark, stage (the asset), model, judge and called model: calls made
        (not cached, not simulated, not failed) with their tokens and cost, cache hits, and simulated calls."""
        if not run_ids:
            return []
        made = "NOT cached AND NOT simulated AND NOT error"
        rows = self._conn().execute(f"""
            SELECT benchmark, stage, model, judge, llm_model,
                   sum({made}), sum(CASE WHEN {made} THEN tokens_in ELSE 0 END),
                   sum(CASE WHEN {made} THEN tokens_out ELSE 0 END), sum(CASE WHEN {made} THEN cost_usd ELSE 0 END),
                   sum(CASE WHEN cached THEN results ELSE 0 END), sum(simulated AND NOT cached)
            FROM ledger WHERE run_id IN ({", ".join("?" * len(run_ids))})
            GROUP BY benchmark, stage, model, judge, llm_model ORDER BY benchmark, stage, model, judge, llm_model""",
                                    list(run_ids)).fetchall()
        names = ["benchmark", "stage", "model", "judge", "called", "calls", "tokens_in", "tokens_out", "cost_usd",
                 "cache_hits", "simulated"]
        return [dict(zip(names, row)) for row in rows]

    def mean_tokens_out(self, model: str) -> float | None:
        """Mean completion tokens of a model's answered calls (not simulated), or None when it has none."""
        return self._conn().execute("SELECT avg(tokens_out) FROM responses WHERE model = ? AND NOT simulated "
                                    "AND tokens_out > 0", (model,)).fetchone()[0]

    def spent_usd(self, model: str | None = None, since: float | None = None) -> float:
        """USD of the answered calls in this cache (every answer is kept, so this is what was paid for them): of one
        model string, and/or answered at or after `since` (a Unix time); the budgets' spend so far (`budget.py`)."""
        where, args = ["NOT simulated"], []
        if model is not None:
            where.append("model = ?")
            args.append(model)
        if since is not None:
            where.append("created_at >= ?")
            args.append(since)
        return float(self._conn().execute(f"SELECT COALESCE(sum(cost_usd), 0) FROM responses WHERE "
                                          f"{' AND '.join(where)}", args).fetchone()[0])

    def count_responses(self) -> int:
        return self._conn().execute("SELECT count(*) FROM responses").fetchone()[0]

    def count_errors(self) -> int:
        return self._conn().execute("SELECT count(*) FROM errors").fetchone()[0]


def _owner_alive(owner: str, host: str) -> bool:
    """Whether a claim's owner ("host:pid") may still be calling: a process on another host is assumed alive (its
    claim goes stale by age), one on this host must still run."""
    claimed_host, _, pid = owner.rpartition(":")
    if claimed_host != host or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


def _key_chunks(keys: Iterable[str], size: int = 500):
    """The distinct keys in chunks of `size`, each with its `?,?,…` placeholders: SQLite bounds the parameters of
    one statement."""
    keys = list(dict.fromkeys(keys))
    for start in range(0, len(keys), size):
        chunk = keys[start:start + size]
        yield chunk, ",".join("?" * len(chunk))
