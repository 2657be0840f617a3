"""A run's journal: what its calls write to the cache as they start and end, written together (`Journal`)."""

from __future__ import annotations

import asyncio
import time
from contextvars import ContextVar

from benchwright.llm.cache import CachedResponse, JournalledError, ResponseCache

# Finished calls' rows held for one flush at most (`Journal`): a pass of the event loop that finishes more (simulated
# or planned answers, a batch's lines: no await between them) commits them in transactions of this many.
JOURNAL_ROWS = 256


class Journal:
    """What a run's calls write to the cache as they start and end, written together.

    Calls that end in the same pass of the event loop (the answers of a wave of calls in flight) have their answers,
    journalled errors and the release of their claims committed in one transaction, at the end of that pass (a flush
    scheduled with `call_soon` when the first of them is added), or at once when `JOURNAL_ROWS` wait. Calls that
    start together take their claims in one transaction too (`claim`). One transaction per call was most of what the
    client added to litellm's own work per call. A finished answer is committed before anything is built on it (the
    run's results are handed on after its last flush, a batch is marked final after its answers); a run killed
    before the end of the pass loses the answers of that pass, as before it lost the one whose commit was under
    way: the next run asks them again. Nothing is repeated within a run, and a claim is released only with its
    call's answer or error, in the same transaction."""

    def __init__(self, cache: ResponseCache, owner: str, stale_after_s: float):
        self.cache = cache
        self.owner = owner
        self.stale_after_s = stale_after_s
        self.responses: list[CachedResponse] = []
        self.errors: list[JournalledError] = []
        self.released: list[str] = []
        self.claims: dict[str, asyncio.Future] = {}
        self.scheduled = False
        self.failure: BaseException | None = None  # a flush that failed: raised to the calls that follow, and at the end
        # A run claims its misses when they are gathered, and the last may wait behind the others for longer than a
        # claim stays fresh: its claims are dated anew with a flush at least this often, while the run lives.
        self.refresh_s = stale_after_s / 4
        self.refreshed_at = time.monotonic()

    def add(self, response: CachedResponse | None = None, error: JournalledError | None = None) -> None:
        if self.failure is not None:
            raise self.failure
        if response is not None:
            self.responses.append(response)
        if error is not None:
            self.errors.append(error)
        if len(self.responses) + len(self.errors) >= JOURNAL_ROWS:
            self.flush()
        else:
            self._soon()

    def release(self, key: str) -> None:
        """The call of `key` ended: its claim goes with its answer or error."""
        self.released.append(key)
        self._soon()

    async def claim(self, key: str) -> tuple[bool, CachedResponse | None]:
        """Claim `key` for this run: (held, its answer when another run wrote one since this run read the cache)."""
        if self.failure is not None:
            raise self.failure
        future = asyncio.get_running_loop().create_future()
        self.claims[key] = future
        self._soon()
        return await future

    def _soon(self) -> None:
        if not self.scheduled:
            self.scheduled = True
            asyncio.get_running_loop().call_soon(self._flush_soon)

    def _flush_soon(self) -> None:
        try:
            self.flush()
        except Exception:  # kept in `failure`: the calls still to come and the run's end raise it
            pass

    def flush(self) -> None:
        self.scheduled = False
        if self.failure is not None:
            raise self.failure
        responses, errors, released, claims = self.responses, self.errors, self.released, self.claims
        self.responses, self.errors, self.released, self.claims = [], [], [], {}
        refresh = time.monotonic() - self.refreshed_at >= self.refresh_s
        try:
            if responses or errors or released or refresh:
                self.cache.record(responses, errors, released, self.owner, refresh=refresh)
                self.refreshed_at = time.monotonic() if refresh else self.refreshed_at
            if claims:
                held, answered = self.cache.claim_unanswered(claims, self.owner, self.stale_after_s)
        except Exception as err:
            self.failure = err
            for future in claims.values():
                if not future.done():
                    future.set_exception(err)
            raise
        for key, future in claims.items():
            if not future.done():  # not cancelled meanwhile
                future.set_result((key in held, answered.get(key)))
            elif key in held:  # cancelled: the claim is not wanted
                self.release(key)


# The journal of the run whose calls are running (`LLMRunner._call_all`); None outside one.
CURRENT: ContextVar[Journal | None] = ContextVar("benchwright_llm_journal", default=None)


def record(cache: ResponseCache, response: CachedResponse | None = None, error: JournalledError | None = None) -> None:
    """A finished call into the cache: through the running run's journal, else (no run) at once."""
    journal = CURRENT.get()
    if journal is not None:
        journal.add(response=response, error=error)
    else:
        cache.record([response] if response else [], [error] if error else [])
