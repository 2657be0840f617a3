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
