"""Two processes of one home that need the same request at the same time (parallel partition runs sharing it)
pay for it once: the one holding the request's claim calls, the other waits for its answer and is served it as a
cache hit. A claim left by a process that no longer runs is taken over at once."""

from __future__ import annotations

import socket
import subprocess
import threading

from benchwright.llm import LLMRequest, LLMRunner
from tests.support.openai_server import OpenAIServer


def _request(base_url: str) -> LLMRequest:
    return LLMRequest(model="openai/claims-model", messages=[{"role": "user", "content": "Name a prime."}],
                      api_base=base_url)


def test_two_runners_needing_one_request_at_once_call_it_once(tmp_path):
    cache = str(tmp_path / "llm.sqlite")
    first, second = LLMRunner(cache, max_retries=0, timeout_s=20), LLMRunner(cache, max_retries=0, timeout_s=20)
    second.claim_owner = f"{first.claim_owner}-another-process"  # one process here, two owners as in two
    with OpenAIServer(latency_s=1.0, max_lifetime_s=60) as server:
        outcomes = {}

        def run(name: str, runner: LLMRunner) -> None:
            outcomes[name] = runner.run([_request(server.base_url)])

        threads = [threading.Thread(target=run, args=(name, runner)) for name, runner in
                   (("first", first), ("second", second))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert server.count(model="claims-model") == 1
    results = [outcomes[name][0][0] for name in ("first", "second")]
    assert results[0].text == results[1].text and results[0].error is None
    assert sorted(r.cached for r in results) == [False, True]  # one call, one hit
    assert sorted(outcomes[name][1].api_calls for name in outcomes) == [0, 1]
    assert first.cache._conn().execute("SELECT count(*) FROM claims").fetchone() == (0,)  # released


def test_a_claim_of_a_process_that_no_longer_runs_is_taken_over_at_once(tmp_path):
    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid now names no process
    runner = LLMRunner(str(tmp_path / "llm.sqlite"), max_retries=0, timeout_s=20)
    with OpenAIServer(max_lifetime_s=30) as server:
        request = _request(server.base_url)
        from benchwright.llm import request_key

        assert runner.cache.claim_many([request_key(request)], f"{socket.gethostname()}:{gone.pid}", 3600)
        [result], stats = runner.run([request])
        assert result.error is None and stats.api_calls == 1 and server.count(model="claims-model") == 1


def test_claims_of_calls_still_queued_are_dated_anew_while_their_run_lives(tmp_path):
    """A run claims all its misses at once; the last wait behind the others. Were their claims dated only when taken,
    a run with more queued work than a claim's freshness would see them taken over by a parallel run, which would
    pay for them too."""
    import asyncio
    import time

    from benchwright.llm import CachedResponse, ResponseCache
    from benchwright.llm.journal import Journal as _Journal

    cache = ResponseCache(str(tmp_path / "llm.sqlite"))
    owner, stale_after_s = f"{socket.gethostname()}:1", 0.4
    assert cache.claim_many(["queued", "called"], owner, stale_after_s) == {"queued", "called"}

    async def a_call_ends_after(seconds: float) -> None:
        journal = _Journal(cache, owner, stale_after_s)
        await asyncio.sleep(seconds)
        journal.add(response=CachedResponse("called", "m", "", "an answer", 1, 1, 1.0, 0.0, False, 0, time.time()))
        journal.release("called")
        await asyncio.sleep(0)  # the end of the pass: its flush

    asyncio.run(a_call_ends_after(0.3))
    claimed_at = dict(cache._conn().execute("SELECT key, claimed_at FROM claims").fetchall())
    assert list(claimed_at) == ["queued"] and time.time() - claimed_at["queued"] < 0.2  # dated at the flush
    assert cache.claim_many(["queued"], "elsewhere:1", stale_after_s) == set()  # still not another's to take
