"""The call helper (benchwright/llm/call_helper.py): a run's live attempts shared with a second process keep what
a run's own attempts give: every answer cached once, the model's limit over both processes, retries by the same
rule, errors journalled in the same words, and nothing sent for a process that is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from benchwright.llm import LLMRequest, LLMRunner, ModelLimits, call_helper
from benchwright.paths import ROOT
from tests.support.openai_server import OpenAIServer

MODEL = "openai/gpt-4o-mini"  # in litellm's price table: a call priced in the helper has a cost


def _reqs(srv: OpenAIServer, n: int, prefix: str = "q") -> list[LLMRequest]:
    return [LLMRequest(model=MODEL, messages=[{"role": "user", "content": f"{prefix}{i}"}],
                       params={"max_tokens": 16}, api_base=srv.base_url) for i in range(n)]


def _runner(tmp_path, **options) -> LLMRunner:
    return LLMRunner(str(tmp_path / "llm.sqlite"), **{"timeout_s": 10, "max_retries": 3, "backoff_base_s": 0.01,
                                                      "backoff_max_s": 0.05, **options})


@pytest.fixture(scope="module")
def helper():
    """A helper started and ready under `on` (its start, ≈ 2 s of imports, is not what these tests look at)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BENCHWRIGHT_CALL_HELPER", "on")
        started = call_helper.start()
        assert started.ready.wait(60), "the helper did not start"
        yield started
        started.close()


def test_a_run_shared_with_the_helper_answers_and_caches_each_request_once_within_the_models_limit(tmp_path, helper):
    with OpenAIServer(latency_s=0.05, max_lifetime_s=60) as srv:
        runner = _runner(tmp_path)
        settled_before = helper.settled
        results, stats = runner.run(_reqs(srv, 120), limits={MODEL: ModelLimits(max_concurrency=12)})
        in_helper = helper.settled - settled_before
        assert 0 < in_helper < 120  # both processes called
        assert [r.text for r in results] == [f"echo: q{i}" for i in range(120)]
        assert all(r.cost_usd > 0 and r.tokens_in > 0 and r.tokens_out > 0 and r.latency_ms > 0 for r in results)
        assert stats.api_calls == 120 and stats.errors == 0 and srv.count("/v1/chat/completions") == 120
        assert srv.max_in_flight <= 12  # the model's limit held over both processes
        again, stats = runner.run(_reqs(srv, 120), limits={MODEL: ModelLimits(max_concurrency=12)})
        assert stats.api_calls == 0 and [r.text for r in again] == [r.text for r in results]
        assert srv.count("/v1/chat/completions") == 120


def test_failures_in_the_helper_are_retried_and_journalled_in_the_words_of_a_call_made_here(tmp_path, helper,
                                                                                              monkeypatch):
    with OpenAIServer(faults=["429"] * 6, retry_after="0", max_lifetime_s=60) as srv:
        results, stats = _runner(tmp_path / "retried").run(_reqs(srv, 20), limits={MODEL: ModelLimits(4)})
        assert stats.errors == 0 and stats.retries == 6
        assert [r.text for r in results] == [f"echo: q{i}" for i in range(20)]
    with OpenAIServer(always="400", max_lifetime_s=60) as srv:
        settled_before = helper.settled
        shared, stats = _runner(tmp_path / "shared").run(_reqs(srv, 12, "shared "), limits={MODEL: ModelLimits(4)})
        assert stats.errors == 12 and stats.retries == 0 and srv.count("/v1/chat/completions") == 12  # not retried
        assert helper.settled > settled_before
        settled_before = helper.settled
        monkeypatch.setenv("BENCHWRIGHT_CALL_HELPER", "off")
        here, _ = _runner(tmp_path / "here").run(_reqs(srv, 12, "here "), limits={MODEL: ModelLimits(4)})
    assert helper.settled == settled_before  # here only
    assert {r.error for r in shared} == {r.error for r in here} and len({r.error for r in here}) == 1
    assert "400" in here[0].error or "BadRequest" in here[0].error


def test_a_helper_that_dies_mid_run_loses_no_request(tmp_path, helper):
    """Last of this module's tests to use the module's helper: it kills it."""
    with OpenAIServer(latency_s=0.2, max_lifetime_s=60) as srv:
        def kill_when_busy() -> None:
            while srv.count("/v1/chat/completions") < 20:
                time.sleep(0.02)
            os.kill(helper.process.pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_when_busy, daemon=True)
        killer.start()
        results, stats = _runner(tmp_path, max_retries=1).run(_reqs(srv, 150), limits={MODEL: ModelLimits(16)})
        killer.join(timeout=10)
    assert helper.ended.is_set() and call_helper.current() is None
    assert stats.errors == 0 and [r.text for r in results] == [f"echo: q{i}" for i in range(150)]
    assert stats.retries > 0  # what the helper had in flight was asked again here


CALLER = textwrap.dedent("""
    import os, sys
    os.environ["BENCHWRIGHT_CALL_HELPER"] = "on"
    from benchwright.llm import LLMRequest, LLMRunner, ModelLimits, call_helper
    helper = call_helper.start()
    helper.ready.wait(60)
    print(helper.process.pid, flush=True)
    requests = [LLMRequest(model="openai/gpt-4o-mini", messages=[{"role": "user", "content": f"q{i}"}],
                           api_base=sys.argv[2]) for i in range(400)]
    LLMRunner(sys.argv[1], timeout_s=30, max_retries=0).run(requests, limits={"openai/gpt-4o-mini": ModelLimits(8)})
""")


def test_a_killed_caller_leaves_no_helper_and_nothing_more_is_sent(tmp_path):
    with OpenAIServer(latency_s=0.5, max_lifetime_s=90) as srv:
        caller = subprocess.Popen([sys.executable, "-c", CALLER, str(tmp_path / "llm.sqlite"), srv.base_url],
                                  cwd=ROOT, stdout=subprocess.PIPE, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            helper_pid = int(caller.stdout.readline())
            deadline = time.monotonic() + 60
            while srv.count("/v1/chat/completions") < 16:  # both processes calling (8 at a time, 0.5 s each)
                assert time.monotonic() < deadline and caller.poll() is None
                time.sleep(0.05)
            caller.kill()
            caller.wait(timeout=10)
            killed_at = time.monotonic()
            while _alive(helper_pid):
                assert time.monotonic() - killed_at < 10, "the helper outlived its caller"
                time.sleep(0.05)
            sent = srv.count("/v1/chat/completions")
            time.sleep(1.0)
            assert srv.count("/v1/chat/completions") == sent
        finally:
            caller.kill()
            caller.wait(timeout=10)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_auto_starts_a_helper_only_for_a_busy_process_with_many_calls_left(monkeypatch):
    monkeypatch.setenv("BENCHWRIGHT_CALL_HELPER", "auto")
    monkeypatch.setattr(call_helper, "current", lambda: None)
    monkeypatch.setattr(call_helper, "start", lambda: "a helper")
    monkeypatch.setattr(call_helper.os, "cpu_count", lambda: 2)
    clock = {"wall": 0.0, "cpu": 0.0}
    watch = call_helper.Watch(1000, clocks=(lambda: clock["wall"], lambda: clock["cpu"]))

    def after(wall: float, cpu: float) -> bool:
        clock["wall"] += wall
        clock["cpu"] += cpu
        return watch.start_now()

    assert not after(0.5, 0.5)  # less than a second looked at
    assert not after(0.6, 0.3)  # busy 73 % of the last 1.1 s
    assert not after(0.5, 0.5)  # half a second since
    watch.left = call_helper.MIN_CALLS_LEFT - 1
    assert not after(1.0, 1.0)  # busy, but few calls left
    watch.left = call_helper.MIN_CALLS_LEFT
    assert after(1.0, 0.8) and watch.helper == "a helper" and watch.busy == pytest.approx(0.8)
    assert not after(1.0, 1.0)  # once
    monkeypatch.setenv("BENCHWRIGHT_CALL_HELPER", "off")
    assert not call_helper.Watch(10_000).start_now()
    monkeypatch.setenv("BENCHWRIGHT_CALL_HELPER", "on")
    assert call_helper.Watch(1).start_now()
    monkeypatch.setenv("BENCHWRIGHT_CALL_HELPER", "sometimes")
    with pytest.raises(ValueError, match="auto, on or off"):
        call_helper.Watch(1)
