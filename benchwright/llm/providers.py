"""Provider limits that hold across processes and runs: calls in flight, requests and tokens per minute.

A provider (OpenAI, Anthropic, one self-hosted server...) limits an account, not a process: parallel
partition runs, the daemon's runs and the main job all count against the same limits. So the budget lives
in a small SQLite file beside the response cache (``PROVIDER_SLOTS_FILE``), and every attempt of a call
to a provider takes a lease there first (``ProviderGate``):

- a lease is a call in flight; at most ``max_in_flight`` leases per provider exist at a time;
- each lease also records a start (time and tokens) for ``rpm`` and ``tpm``: a sliding window of the
  last minute, plus a small margin. The start is the moment litellm hands the request to its HTTP client
  (``ProviderGate.sent``, from litellm's pre-call hook), not the lease's: a process's first calls can spend
  seconds setting up their client after the lease (2 s and more on a loaded machine), and counted from the
  lease they would reach the provider after their minute had ended for the gate. Until it is sent, a lease
  counts as starting now; released without being sent, from its release. The margin then only covers the way
  from the HTTP client to the provider;
- a lease whose process is gone (killed mid-call) is dropped at the next acquire; one that outlives its
  expiry (a call cannot: the runner bounds it by its timeout) is dropped too, so nothing stays taken;
- a call takes its lease at once in the event loop's thread when the file is free; calls that must wait ask
  together (`try_acquire_many`: one transaction for all of them, in a worker thread); the stamps and releases of
  one pass of the loop are written together at its end: a lease transaction per call, not three.

Tokens are not known before a call: the lease reserves an estimate (the prompt's text ÷ 4 plus the
completion tokens expected) and the actual count replaces it when the call ends.

The same file, through the gate's `transaction`s and deferred writes, keeps the registry entries' `budget_usd`
spend and the reservations of their calls in flight (budget.py), for the same reason: every process spends them.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from benchwright.llm.litellm_setup import keyless_server, load_litellm

SIM_PROVIDER = "sim"
PROVIDER_SLOTS_FILE = "provider_slots.sqlite3"
# Calls in flight to a provider that providers.yaml does not name: enough to use a provider well, few enough
# that parallel runs do not start hundreds of calls to an account whose limits nobody wrote down.
DEFAULT_MAX_IN_FLIGHT = 16
# The provider's rpm/tpm window, and the margin added to it for the way from litellm's pre-call hook (where a
# call's start is stamped) to the provider: headers, a connection, the body on the wire. A request reaching the
# provider later than that after its stamp could let one more in within the provider's minute.
MINUTE_S = 60.0
SEND_MARGIN_S = 2.0
WINDOW_S = MINUTE_S + SEND_MARGIN_S
# Expected completion tokens of a call to a model with no answered call yet and no max_tokens.
PLANNED_TOKENS_OUT = 500
# Tokens reserved for a picture before the call: a 1024 × 1024 picture at OpenAI's high detail (85 + 4 × 170).
IMAGE_TOKENS = 765
# How long a lease's transaction waits for another process's (then it fails).
_BUSY_TIMEOUT_MS = 30_000
# How often an acquire ends leases that ended (expired, of a dead process) while the provider has room.
CLEAN_EVERY_S = 1.0
# How often a waiting call looks again while every slot is taken.
_POLL_S = 0.05
# Ends a lease (SQL, one parameter: now). A lease never marked sent counts from now: if it reached the provider
# without its stamp, it did so before now.
_CLOSE = "open = 0, started = CASE WHEN pending = 1 THEN ? ELSE started END, pending = 0"
# A lease's deferred writes (`ProviderGate.defer`): its stamp (time, id) and its release (time, tokens, id).
_SENT = "UPDATE leases SET started = ?, pending = 0 WHERE id = ? AND open = 1"
_RELEASE = f"UPDATE leases SET {_CLOSE}, tokens = COALESCE(?, tokens) WHERE id = ?"


@dataclass
class LeaseQueue:
    """The calls of one event loop waiting for a lease of one provider (`ProviderGate.acquire`)."""

    waiting: list = field(default_factory=list)  # (tokens, future) in the order they came
    asking: asyncio.Future | None = None  # the task asking the file for them


@dataclass(frozen=True)
class ProviderLimits:
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT
    rpm: int | None = None
    tpm: int | None = None


class ProviderEntriesRefused(ValueError):
    """Providers whose providers.yaml entry was refused. Their limits are unknown, and the defaults (16 calls in
    flight, no rpm or tpm) could be far above them: none of their models is called until the entry is fixed."""

    def __init__(self, faults: Mapping[str, Sequence[str]]):
        self.faults = {name: list(lines) for name, lines in faults.items()}  # provider -> its faults, as text
        lines = "\n".join(f"  {line}" for found in self.faults.values() for line in found)
        super().__init__(f"{sum(map(len, self.faults.values()))} fault(s) in the limits of provider(s) "
                         f"{', '.join(sorted(self.faults))}; no model of theirs is called until they are "
                         f"fixed:\n{lines}")


def provider_of(model: str, api_base: str | None = None, explicit: str | None = None) -> str:
    """The provider a model's calls count against: the registry entry's `provider` when it names one (two
    self-hosted servers behind the same `openai/` prefix), `sim` for the simulator, else litellm's provider
    for the model string (`openai/gpt-4o-mini` → openai, `claude-3-5-sonnet` → anthropic)."""
    if explicit:
        return explicit
    if model.startswith(SIM_PROVIDER + "/"):
        return SIM_PROVIDER
    try:
        return load_litellm().get_llm_provider(model=model, api_base=api_base)[1]
    except Exception:  # a model string litellm does not know: its prefix, or the string itself
        return model.split("/", 1)[0]


def missing_keys(model: str, api_base: str | None = None) -> list[str]:
    """The environment variables litellm needs for this model's calls and does not find
    (`litellm.validate_environment`, e.g. OPENAI_API_KEY); none for the simulator, nor for an `openai/` model
    with an api_base (`litellm_setup.keyless_server`: a self-hosted server gets a placeholder key)."""
    if model.startswith(SIM_PROVIDER + "/"):
        return []
    if keyless_server(model, api_base):
        return []
    return list(load_litellm().validate_environment(model=model, api_base=api_base)["missing_keys"])


def estimated_tokens(messages: list[dict], tokens_out: int) -> int:
    """Tokens a call is expected to take: its prompt's text at about four characters a token, IMAGE_TOKENS per
    picture (not its base64's length), plus the completion tokens expected."""
    chars = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            for part in content:
                if part.get("type") == "text":
                    chars += len(part.get("text") or "")
                else:
                    chars += IMAGE_TOKENS * 4
    return chars // 4 + tokens_out


def reserved_tokens_out(cache: Any, req: Any) -> int:
    """Completion tokens a provider's tpm budget holds for a call (an `LLMRequest`) until its count is known: the
    request's `max_tokens` when it has one (the answer cannot be longer, and providers count it so too), else what is
    expected (`expected_tokens_out`)."""
    return int(req.params.get("max_tokens") or expected_tokens_out(cache, req))


def expected_tokens_out(cache: Any, req: Any) -> int:
    """Completion tokens a call is expected to take: the model's mean over its answered calls in the
    cache (a `ResponseCache`), else the request's `max_tokens`, else PLANNED_TOKENS_OUT."""
    mean = cache.mean_tokens_out(req.model)
    if mean:
        return max(1, round(mean))
    return int(req.params.get("max_tokens") or PLANNED_TOKENS_OUT)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


class ProviderGate:
    """Leases of provider capacity in one SQLite file, shared by every process of a home.

    `minute_s` and `margin_s` are the rpm/tpm window (a minute, as providers count) and its margin; tests
    shrink them so that several windows pass in seconds."""

    def __init__(self, path: str | Path, lease_s: float = 600.0, minute_s: float = MINUTE_S,
                 margin_s: float = SEND_MARGIN_S):
        self.path = str(path)
        self.lease_s = lease_s
        self.window_s = minute_s + margin_s
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # autocommit mode: transactions are the explicit BEGIN IMMEDIATE ... COMMIT below.
        self._db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                   check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # no fsync per lease: a lost lease after a crash is harmless
        # `pending`: an open lease not yet handed to the HTTP client (its `started` is the lease's, not the send's).
        self._db.execute("CREATE TABLE IF NOT EXISTS leases (id INTEGER PRIMARY KEY, provider TEXT NOT NULL, "
                         "pid INTEGER NOT NULL, started REAL NOT NULL, expires REAL NOT NULL, "
                         "tokens INTEGER NOT NULL, open INTEGER NOT NULL, pending INTEGER NOT NULL DEFAULT 0)")
        self._db.execute("BEGIN IMMEDIATE")  # a file made by a version without `pending` gets it, once
        try:
            columns = [row[1] for row in self._db.execute("PRAGMA table_info(leases)")]
            if "pending" not in columns:
                self._db.execute("ALTER TABLE leases ADD COLUMN pending INTEGER NOT NULL DEFAULT 0")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("CREATE INDEX IF NOT EXISTS leases_open ON leases (provider, open)")
        self._db.execute("CREATE INDEX IF NOT EXISTS leases_started ON leases (provider, started)")
        # Acquiring runs in a worker thread (a busy file must not stall the event loop), releasing in the loop's.
        self._lock = threading.Lock()
        self._deferred: list[tuple[str, tuple]] = []  # writes not made yet (`defer`)
        self._flush_due: asyncio.AbstractEventLoop | None = None  # the loop a flush is scheduled on
        self._cleaned_at: dict[str, float] = {}  # provider -> when this gate last ended its dead leases (`_clean`)

    def close(self) -> None:
        self.flush()
        self._db.close()

    def try_acquire(self, provider: str, limits: ProviderLimits, tokens: int) -> tuple[int | None, float]:
        """A lease id, or None and the seconds worth waiting before trying again."""
        leases, wait = self.try_acquire_many(provider, limits, [tokens])
        return (leases[0] if leases else None), wait

    def try_acquire_many(self, provider: str, limits: ProviderLimits,
                         tokens: Sequence[int]) -> tuple[list[int], float]:
        """Leases for calls of these token estimates, in order, in one transaction: one for each call up to the first
        that does not fit, and the seconds worth waiting before asking for the rest (0 when all got one)."""
        return self.transaction(lambda: self._acquire_in_transaction(provider, limits, tokens))

    def try_acquire_many_at_once(self, provider: str, limits: ProviderLimits,
                                 tokens: Sequence[int]) -> tuple[list[int], float] | None:
        """`try_acquire_many` if the file can be had without waiting (no other writer, no other thread of this process
        in it), else None: the event loop takes its leases itself when nothing is in the way, sparing each a worker
        thread's round trip (tens of milliseconds on a loaded machine, during which the calls let in by the others'
        ends bunch up and then start, and end, together)."""
        done, leases = self.transaction_at_once(lambda: self._acquire_in_transaction(provider, limits, tokens))
        return leases if done else None

    def transaction(self, work: Callable[[], Any]) -> Any:
        """`work()`'s result, run in one write transaction of the file (on `db`), this process's deferred writes
        applied first; waits for the file (other processes' transactions, this process's other threads)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            return self._in_transaction(work)

    def transaction_at_once(self, work: Callable[[], Any]) -> tuple[bool, Any]:
        """(True, `work()`'s result) as `transaction`, or (False, None) without waiting when the file is taken."""
        if not self._lock.acquire(blocking=False):
            return False, None
        try:
            self._db.execute("PRAGMA busy_timeout = 0")
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:  # another process is writing
                return False, None
            finally:
                self._db.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            return True, self._in_transaction(work)
        finally:
            self._lock.release()

    @property
    def db(self) -> sqlite3.Connection:
        """The file's connection, for the `work` of a `transaction` (budget.py keeps its holds in the same file)."""
        return self._db

    def _in_transaction(self, work: Callable[[], Any]) -> Any:
        """The rest of a transaction, begun and the lock held: the deferred writes, the work, commit."""
        try:
            self._apply_deferred()
            result = work()
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._deferred_applied()
        return result

    def _acquire_in_transaction(self, provider: str, limits: ProviderLimits,
                                tokens: Sequence[int]) -> tuple[list[int], float]:
        """An acquire's work, inside its transaction (every way to a lease goes through here)."""
        return self._try_acquire(provider, limits, tokens)

    def _try_acquire(self, provider: str, limits: ProviderLimits, tokens: Sequence[int]) -> tuple[list[int], float]:
        now = time.time()
        cleaned = now - self._cleaned_at.get(provider, 0.0) >= CLEAN_EVERY_S
        if cleaned:
            self._clean(provider, now)
        leases, wait = self._take(provider, limits, tokens, now)
        if len(leases) < len(tokens) and not cleaned:  # full, maybe only with leases that ended: look, then again
            self._clean(provider, now)
            more, wait = self._take(provider, limits, tokens[len(leases):], now)
            leases += more
        return leases, wait

    def _clean(self, provider: str, now: float) -> None:
        """Starts older than the window no longer count; open leases past expiry or of a dead process end (one not
        sent counts from now: it may have reached the provider at any moment until then). Done when the provider
        looks full, else at most every CLEAN_EVERY_S: until then such leases count as they were, which errs on the
        safe side."""
        db = self._db
        db.execute("DELETE FROM leases WHERE open = 0 AND started < ?", (now - self.window_s,))
        db.execute(f"UPDATE leases SET {_CLOSE} WHERE open = 1 AND expires < ?", (now, now))
        pids = [pid for (pid,) in db.execute("SELECT DISTINCT pid FROM leases WHERE open = 1 AND provider = ?",
                                             (provider,))]
        for pid in pids:
            if pid != os.getpid() and not process_alive(pid):
                db.execute(f"UPDATE leases SET {_CLOSE} WHERE open = 1 AND pid = ?", (now, pid))
        self._cleaned_at[provider] = now

    def _take(self, provider: str, limits: ProviderLimits, tokens: Sequence[int],
              now: float) -> tuple[list[int], float]:
        db = self._db
        (in_flight,) = db.execute("SELECT COUNT(*) FROM leases WHERE provider = ? AND open = 1",
                                  (provider,)).fetchone()
        leases: list[int] = []
        for need in tokens:
            if in_flight >= limits.max_in_flight:
                return leases, _POLL_S
            if limits.rpm or limits.tpm:  # the leases taken above count: they are rows of this transaction
                wait = self._window_wait(provider, limits, need, now)
                if wait > 0:
                    return leases, wait
            cursor = db.execute("INSERT INTO leases (provider, pid, started, expires, tokens, open, pending) "
                                "VALUES (?, ?, ?, ?, ?, 1, 1)",
                                (provider, os.getpid(), now, now + self.lease_s, need))
            leases.append(cursor.lastrowid)
            in_flight += 1
        return leases, 0.0

    def _window_wait(self, provider: str, limits: ProviderLimits, tokens: int, now: float) -> float:
        """Seconds until the window's starts leave room for one more call of `tokens`; 0 when they do.

        The starts are those of the calls sent within the window, and every call leased but not yet sent, as if
        sent now: it will be, and then it counts from then."""
        since = now - self.window_s
        sent, sent_tokens = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(tokens), 0) FROM leases WHERE provider = ? AND started >= ? "
            "AND pending = 0", (provider, since)).fetchone()
        pending, pending_tokens = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(tokens), 0) FROM leases WHERE provider = ? AND open = 1 AND pending = 1",
            (provider,)).fetchone()
        count, used = sent + pending, sent_tokens + pending_tokens
        wait, full = 0.0, False
        if limits.rpm and count >= limits.rpm:
            full = True  # room when the (count - rpm + 1)-th oldest start leaves
            if count - limits.rpm >= sent:  # that start is a pending call's: a window from now at least
                return self.window_s
            (oldest,) = self._db.execute("SELECT started FROM leases WHERE provider = ? AND started >= ? AND "
                                         "pending = 0 ORDER BY started LIMIT 1 OFFSET ?",
                                         (provider, since, count - limits.rpm)).fetchone()
            wait = oldest + self.window_s - now
        # A call larger than the whole budget still goes, alone in its window, rather than never.
        need = min(tokens, limits.tpm or 0)
        if limits.tpm and used + need > limits.tpm:
            full = True
            if pending_tokens + need > limits.tpm:  # even with every sent start gone there is no room yet
                return self.window_s
            for started, spent in self._db.execute("SELECT started, tokens FROM leases WHERE provider = ? AND "
                                                   "started >= ? AND pending = 0 ORDER BY started",
                                                   (provider, since)):
                used -= spent
                if used + need <= limits.tpm:
                    wait = max(wait, started + self.window_s - now)
                    break
        # A start exactly at the window's edge gives a wait of 0: never report room while there is none.
        return max(wait, _POLL_S) if full else 0.0

    def sent(self, lease: int) -> None:
        """The call of this lease is handed to the HTTP client now: its rpm/tpm start is this moment."""
        self.defer(_SENT, (time.time(), lease))

    def release(self, lease: int, tokens: int | None = None) -> None:
        """End a call: its slot is free; its start keeps counting for a minute, with its actual tokens (a call
        never sent counts from now, as the stamp may have been missed)."""
        self.defer(_RELEASE, (time.time(), tokens, lease))

    def defer(self, statement: str, values: tuple) -> None:
        """Writes called from an event loop (stamps and releases of leases, budget.py's settled holds) are written
        together, at the end of the loop's pass (or by this process's next transaction), with the times they were
        called at: one transaction for the calls that ended or were sent together rather than one each. Meanwhile
        the file holds the lease as it was, which errs on the safe side for every process: a slot stays taken a
        moment longer, and a call not yet stamped counts as starting at each look (`_window_wait`), which is no
        earlier than it was sent. Called outside a loop, written at once."""
        with self._lock:
            self._deferred.append((statement, values))
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        if self._flush_due is not loop:  # one flush per pass (a loop that ended without it: `flush` at its end)
            self._flush_due = loop
            loop.call_soon(self.flush)

    def flush(self) -> None:
        """Write the deferred writes not written yet, in one transaction."""
        with self._lock:
            self._flush_due = None
            if not self._deferred:
                return
            self._db.execute("BEGIN IMMEDIATE")
            self._in_transaction(lambda: None)

    def _apply_deferred(self) -> None:
        """Inside a transaction, with the lock held: the deferred writes, in the order they were made (a lease's
        stamp before its release)."""
        for statement, values in self._deferred:
            self._db.execute(statement, values)

    def _deferred_applied(self) -> None:
        self._deferred = []

    async def acquire(self, provider: str, limits: ProviderLimits, tokens: int, queue: "LeaseQueue") -> int:
        """Wait for a lease. A call with nobody ahead of it takes its lease at once when the file is free. Else it
        waits in `queue`, this event loop's queue for this provider: the calls waiting in it ask the file together
        (one transaction, `try_acquire_many`, in the order they came; in a worker thread when the file is busy), so a
        thousand waiting calls do not poll SQLite a thousand times."""
        if not queue.waiting:  # nobody ahead: asked at once, in this pass of the loop, when the file is free
            asked = self.try_acquire_many_at_once(provider, limits, [tokens])
            if asked is not None and asked[0]:
                return asked[0][0]
        mine = asyncio.get_running_loop().create_future()
        queue.waiting.append((tokens, mine))
        if queue.asking is None or queue.asking.done():
            queue.asking = asyncio.ensure_future(self._serve(provider, limits, queue))
        return await mine

    async def _serve(self, provider: str, limits: ProviderLimits, queue: "LeaseQueue") -> None:
        """Leases for the calls waiting in `queue` until none is left."""
        while True:
            waiting = [(tokens, future) for tokens, future in queue.waiting if not future.done()]
            if not waiting:
                queue.waiting.clear()
                return
            needs = [tokens for tokens, _ in waiting]
            try:
                asked = self.try_acquire_many_at_once(provider, limits, needs)
                leases, wait = asked if asked is not None else await asyncio.to_thread(
                    self.try_acquire_many, provider, limits, needs)
            except Exception as err:  # the file failed: every waiting call learns it
                for _, future in waiting:
                    if not future.done():
                        future.set_exception(err)
                queue.waiting.clear()
                return
            served = {id(future) for _, future in waiting[:len(leases)]}
            queue.waiting[:] = [(t, f) for t, f in queue.waiting if id(f) not in served and not f.done()]
            for (_, future), lease in zip(waiting, leases):
                if future.done():  # its call was cancelled while the lease was taken: give it back
                    self.release(lease)
                else:
                    future.set_result(lease)
            if len(leases) < len(waiting):
                await asyncio.sleep(min(wait, 1.0))

    def in_flight(self, provider: str) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM leases WHERE provider = ? AND open = 1",
                                        (provider,)).fetchone()
        return count
