"""What the runner writes as its calls end goes together: answers, errors and claim releases in one transaction per
pass of the event loop (the run's `journal.Journal`), provider leases for the calls waiting together in one, and stamps and
releases of leases at the end of the pass. Every answer is committed before the run returns, and a write that fails
fails the run."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from benchwright.llm import LLMRequest, LLMRunner, ResponseCache
from benchwright.llm.providers import LeaseQueue, ProviderGate, ProviderLimits
from benchwright.llm.journal import JOURNAL_ROWS as _JOURNAL_ROWS
from tests.support.openai_server import OpenAIServer


def _sim_requests(count: int) -> list[LLMRequest]:
    return [LLMRequest(model="sim/fair-judge", messages=[{"role": "user", "content": f"question {i}"}])
            for i in range(count)]


def test_answers_ending_in_one_pass_are_committed_together_and_before_the_run_returns(tmp_path, monkeypatch):
    transactions = []
    record = ResponseCache.record

    def counted(self, responses=(), errors=(), release=(), owner="", **kwargs):
        if responses or errors:
            transactions.append(len(responses) + len(errors))
        return record(self, responses, errors, release, owner, **kwargs)

    monkeypatch.setattr(ResponseCache, "record", counted)
    count = 2 * _JOURNAL_ROWS + 10  # simulated answers come in one pass (no await between them)
    with LLMRunner(str(tmp_path / "llm.sqlite")) as runner:
        results, stats = runner.run(_sim_requests(count))
        assert stats.api_calls == count and all(r.error is None for r in results)
        assert runner.cache.count_responses() == count  # all committed when run() returns
    assert sum(transactions) == count
    assert len(transactions) == 3 and max(transactions) == _JOURNAL_ROWS  # not one transaction per answer


def test_calls_answered_together_by_a_server_share_transactions_and_release_every_claim(tmp_path, monkeypatch):
    transactions = []
    record = ResponseCache.record

    def counted(self, responses=(), errors=(), release=(), owner="", **kwargs):
        if responses:
            transactions.append(len(responses))
        return record(self, responses, errors, release, owner, **kwargs)

    monkeypatch.setattr(ResponseCache, "record", counted)
    with OpenAIServer(latency_s=0.3, max_lifetime_s=60) as server, LLMRunner(str(tmp_path / "llm.sqlite"),
                                                                             max_retries=0) as runner:
        requests = [LLMRequest(model="openai/journal-model", messages=[{"role": "user", "content": f"q {i}"}],
                               api_base=server.base_url) for i in range(40)]
        results, stats = runner.run(requests)
        assert [r.text for r in results] == [f"echo: q {i}" for i in range(40)]
        assert stats.api_calls == 40 and server.count() == 40
        assert runner.cache.count_responses() == 40
        assert runner.cache._conn().execute("SELECT count(*) FROM claims").fetchone() == (0,)
    assert sum(transactions) == 40 and len(transactions) < 40


def test_a_write_that_fails_fails_the_run(tmp_path, monkeypatch):
    def broken(self, responses=(), errors=(), release=(), owner="", **kwargs):
        if responses:
            raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(ResponseCache, "record", broken)
    with LLMRunner(str(tmp_path / "llm.sqlite")) as runner:
        with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
            runner.run(_sim_requests(3))


def test_waiting_calls_take_their_leases_in_one_transaction_in_order(tmp_path):
    gate = ProviderGate(tmp_path / "slots.db")
    leases, wait = gate.try_acquire_many("p", ProviderLimits(max_in_flight=3), [10, 10, 10, 10, 10])
    assert len(leases) == 3 and wait > 0  # up to the first call that does not fit
    assert gate.in_flight("p") == 3
    leases, wait = gate.try_acquire_many("q", ProviderLimits(rpm=10, tpm=100), [40, 40, 40, 1])
    assert len(leases) == 2 and wait > 0  # the third would pass tpm; the fourth, though small, waits its turn
    assert gate.try_acquire_many("r", ProviderLimits(), []) == ([], 0.0)


def test_stamps_and_releases_made_in_a_pass_are_written_at_its_end_and_seen_by_the_next_acquire_at_once(tmp_path):
    path = tmp_path / "slots.db"
    gate = ProviderGate(path)
    limits = ProviderLimits(max_in_flight=1)
    other = sqlite3.connect(path)  # another process's view of the file

    def open_leases() -> int:
        return other.execute("SELECT count(*) FROM leases WHERE open = 1").fetchone()[0]

    async def main() -> None:
        lease = await gate.acquire("p", limits, 1, LeaseQueue())
        gate.sent(lease)
        gate.release(lease, 5)
        assert open_leases() == 1  # not written yet: the slot looks taken a moment longer
        second = gate.try_acquire("p", limits, 1)[0]  # this process's next acquire writes it first
        assert second is not None and open_leases() == 1  # the new lease
        gate.release(second)
        await asyncio.sleep(0)  # the end of the pass
        assert open_leases() == 0
        tokens, pending = other.execute("SELECT tokens, pending FROM leases WHERE id = ?", (lease,)).fetchone()
        assert tokens == 5 and pending == 0  # stamped, then released with its tokens

    asyncio.run(main())
    gate.release(gate.try_acquire("p", limits, 1)[0])  # outside a loop: written at once
    assert open_leases() == 0
    other.close()
    gate.close()


def test_a_lease_is_taken_in_the_loop_when_the_file_is_free_and_waited_for_in_a_thread_when_busy(tmp_path):
    path = tmp_path / "slots.db"
    gate = ProviderGate(path)
    limits = ProviderLimits(max_in_flight=4)
    assert gate.try_acquire_many_at_once("p", limits, [1, 1]) is not None  # nothing in the way
    writer = sqlite3.connect(path, isolation_level=None)  # another process in the middle of a write
    writer.execute("BEGIN IMMEDIATE")
    assert gate.try_acquire_many_at_once("p", limits, [1]) is None  # at once, without waiting for it

    async def main() -> int:
        waiting = asyncio.ensure_future(gate.acquire("p", limits, 1, LeaseQueue()))
        await asyncio.sleep(0.3)  # the loop goes on while the lease waits for the file
        assert not waiting.done()
        writer.execute("COMMIT")
        return await asyncio.wait_for(waiting, 10)

    assert asyncio.run(main()) is not None
    assert gate.in_flight("p") == 3
    writer.close()
    gate.close()
