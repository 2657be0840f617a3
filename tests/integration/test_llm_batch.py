"""`batch: true` models: litellm -> the loopback server's batch API -> the same response cache as live calls."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchwright.llm import LLMRequest, LLMRunner, ModelLimits, ReplayMissError, request_key
from benchwright.llm.litellm_setup import load_litellm as _litellm
from benchwright.llm.runner import PLAN_COPY_MARKER
from tests.support.batch_api import BatchOptions
from tests.support.openai_server import OpenAIServer
from tests.support.processes import kill_when

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/gpt-4o-mini"  # in litellm's price table, with batch rates
BATCH = {MODEL: ModelLimits(batch=True)}

# The child of the crash tests builds the very same requests from this module, so all runs share the keys. With a
# folder and a count it starts calling once that many children are ready (their imports done), so they race.
CHILD = """
import os, sys, time
from benchwright.llm import LLMRunner
from benchwright.llm.litellm_setup import load_litellm as _litellm
from tests.integration.test_llm_batch import BATCH, make_requests
cache_path, base_url, *start_together = sys.argv[1:]
runner = LLMRunner(cache_path, timeout_s=30, batch_poll_s=0.05, batch_poll_max_s=0.05)
if start_together:
    _litellm()
    ready, count = start_together[0], int(start_together[1])
    open(os.path.join(ready, str(os.getpid())), "w").close()
    while len(os.listdir(ready)) < count:
        time.sleep(0.01)
results, _ = runner.run(make_requests(base_url, 4), limits=BATCH)
assert [r.text for r in results] == [f"echo: q{i}" for i in range(4)], [r.error for r in results]
"""


def _child(cache: Path, base_url: str, *start_together: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(cache), base_url, *start_together], cwd=str(ROOT),
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def make_requests(base_url: str, n: int, model: str = MODEL, prefix: str = "q") -> list[LLMRequest]:
    return [LLMRequest(model=model, messages=[{"role": "user", "content": f"{prefix}{i}"}],
                       params={"temperature": 0.0, "max_tokens": 16}, api_base=base_url, tag=f"item-{i}")
            for i in range(n)]


def _runner(path: Path, **kw) -> LLMRunner:
    opts = dict(timeout_s=5, max_retries=1, batch_poll_s=0.01, batch_poll_max_s=0.05)
    opts.update(kw)
    return LLMRunner(str(path), **opts)


def _journal(path: Path) -> list[tuple]:
    conn = sqlite3.connect(str(path), timeout=5)
    try:
        return conn.execute("SELECT batch_id, status, final FROM batches ORDER BY created_at").fetchall()
    except sqlite3.OperationalError:  # a child has not created the table yet
        return []
    finally:
        conn.close()


def test_batch_model_is_answered_through_the_batch_api_and_then_served_from_the_cache(tmp_path):
    import litellm
    from litellm.cost_calculator import batch_cost_calculator

    cache = tmp_path / "llm.sqlite"
    messages: list[str] = []
    with OpenAIServer(max_lifetime_s=20) as srv:
        reqs = make_requests(srv.base_url, 3)
        results, stats = _runner(cache).run(reqs + [reqs[0]], limits=BATCH, progress=messages.append)

        assert [r.text for r in results] == ["echo: q0", "echo: q1", "echo: q2", "echo: q0"]
        assert [r.cached for r in results] == [False, False, False, True]  # the duplicate is asked once
        assert srv.count("/v1/chat/completions") == 0  # no live call
        assert srv.count("/v1/files") == 1 and srv.count("/v1/batches") == 1
        assert stats.api_calls == 3 and stats.errors == 0 and stats.latency_p50_ms is None  # no latency of its own
        # The file sent: one line per distinct request, keyed by its cache key, the provider's model name,
        # its params and no endpoint or key.
        [lines] = srv.batch_api.inputs()
        assert [line["custom_id"] for line in lines] == [request_key(r) for r in reqs]
        assert all(line["url"] == "/v1/chat/completions" and line["method"] == "POST" for line in lines)
        assert lines[1]["body"] == {"model": "gpt-4o-mini", "messages": reqs[1].messages, "temperature": 0.0,
                                    "max_tokens": 16}
        # Priced at litellm's batch rates: half the live price for this model.
        for r in results[:3]:
            assert r.tokens_in > 0 and r.tokens_out == 2
            usage = litellm.Usage(prompt_tokens=r.tokens_in, completion_tokens=r.tokens_out)
            assert r.cost_usd == pytest.approx(sum(batch_cost_calculator(usage=usage, model=MODEL)))
            live = sum(litellm.cost_per_token(model=MODEL, prompt_tokens=r.tokens_in, completion_tokens=r.tokens_out))
            assert r.cost_usd == pytest.approx(live / 2)
        [(batch_id, status, final)] = _journal(cache)
        assert status == "completed" and final == 1
        assert any(batch_id in m and "3 requests sent" in m for m in messages)
        assert any(batch_id in m and "completed, 3 answered, 0 without an answer" in m for m in messages)
        assert len(messages) <= 5  # a few lines, not one per poll

        # Later runs, live or replay, are served by the cache: nothing reaches the server.
        before = srv.count()
        again, stats = _runner(cache).run(reqs, limits=BATCH)
        assert all(r.cached for r in again) and [r.text for r in again] == ["echo: q0", "echo: q1", "echo: q2"]
        replayed, _ = _runner(cache, mode="replay").run(reqs, limits=BATCH)
        assert all(r.cached for r in replayed)
        assert srv.count() == before and stats.api_calls == 0


def test_batch_answers_are_redacted_like_live_ones(tmp_path):
    reply = lambda body: "Mail jane.doe@example.com \ud800 now"  # noqa: E731 - a lone surrogate, escaped in JSON
    with OpenAIServer(reply=reply, max_lifetime_s=20) as srv:
        runner = _runner(tmp_path / "llm.sqlite")
        [res], _ = runner.run(make_requests(srv.base_url, 1), limits=BATCH)
    assert res.error is None and "jane.doe@example.com" not in res.text and res.pii_redactions == 1
    assert "\ufffd" in res.text and runner.cache.get(res.key).text == res.text


def test_killed_run_resumes_the_journalled_batch_instead_of_paying_for_another(tmp_path):
    cache = tmp_path / "llm.sqlite"
    # The batch never finishes while the child waits on it.
    with OpenAIServer(batch=BatchOptions(polls_to_finish=10_000), max_lifetime_s=60) as srv:
        child = _child(cache, srv.base_url)
        _litellm()  # warm the parent's import while the child does the same
        # Killed once the batch is journalled and polled at least twice (it was waiting, not starting).
        kill_when(child, lambda: bool(_journal(cache)) and sum(
            n for path, n in srv.by_path.items() if path.startswith("/v1/batches/")) >= 2, timeout_s=30)
        [(batch_id, _, final)] = _journal(cache)
        assert final == 0 and srv.count("/v1/batches") == 1

        srv.batch_api.options.polls_to_finish = 0  # the provider finishes it meanwhile
        messages: list[str] = []
        results, stats = _runner(cache).run(make_requests(srv.base_url, 4), limits=BATCH, progress=messages.append)
        assert [r.text for r in results] == [f"echo: q{i}" for i in range(4)]
        assert stats.errors == 0 and not any(r.cached for r in results)
        assert srv.count("/v1/batches") == 1 and srv.count("/v1/files") == 1  # one batch, one upload, ever
        assert _journal(cache) == [(batch_id, "completed", 1)]
        assert any(batch_id in m and "resumed" in m for m in messages)


def test_a_run_killed_before_it_learnt_its_batch_id_is_collected_by_the_next_by_the_batch_tag(tmp_path):
    cache = tmp_path / "llm.sqlite"
    # The provider makes the batch, and its answer is held back until the child is gone: it never learns the id.
    with OpenAIServer(batch=BatchOptions(create_delay_s=60, polls_to_finish=1), max_lifetime_s=60) as srv:
        child = _child(cache, srv.base_url)
        _litellm()
        kill_when(child, lambda: bool(srv.batch_api.batches), timeout_s=30)
        [(tag, status, final)] = _journal(cache)  # journalled before the upload, under its tag
        assert (status, final) == ("creating", 0)
        [made] = srv.batch_api.batches.values()
        assert made.metadata == {"benchwright_batch": tag}  # the tag went to the provider with the batch

        srv.batch_api.options.create_delay_s = 0
        messages: list[str] = []
        results, stats = _runner(cache).run(make_requests(srv.base_url, 4), limits=BATCH, progress=messages.append)
        assert [r.text for r in results] == [f"echo: q{i}" for i in range(4)] and stats.errors == 0
        assert len(srv.batch_api.batches) == 1 and srv.batch_api.lines_answered == 4  # paid once, not twice
        assert _journal(cache) == [(made.id, "completed", 1)]
        assert any(made.id in m and f"found by its tag {tag}" in m for m in messages)


def test_an_intent_whose_batch_was_never_created_is_closed_and_its_requests_sent(tmp_path):
    cache = tmp_path / "llm.sqlite"
    with OpenAIServer(max_lifetime_s=20) as srv:
        reqs = make_requests(srv.base_url, 2)
        runner = _runner(cache)  # a run killed after its journal row, before its create reached the provider
        runner.cache.put_batch_intent("bw-lost", MODEL, srv.base_url, {request_key(r): "v1" for r in reqs})
        results, stats = runner.run(reqs, limits=BATCH)
        assert [r.text for r in results] == ["echo: q0", "echo: q1"] and stats.errors == 0
        assert len(srv.batch_api.batches) == 1
        assert [row[1:] for row in _journal(cache)] == [("not created", 1), ("completed", 1)]


def test_an_intent_that_cannot_be_looked_up_now_waits_and_one_that_never_can_is_sent_again(tmp_path):
    cache = tmp_path / "llm.sqlite"
    with OpenAIServer(batch=BatchOptions(list_error=500), max_lifetime_s=20) as srv:  # the batch list fails
        reqs = make_requests(srv.base_url, 2)
        runner = _runner(cache)
        runner.cache.put_batch_intent("bw-unknown", MODEL, srv.base_url, {request_key(r): "v1" for r in reqs})
        results, stats = runner.run(reqs, limits=BATCH)
        assert all(r.text is None and "could not be listed" in r.error for r in results) and stats.errors == 2
        assert srv.batch_api.inputs() == []  # the intent's requests were not sent again
        assert _journal(cache) == [("bw-unknown", "creating", 0)]  # looked up again next run

        # A provider that lists no batches (404 here; litellm cannot list Mistral's or Bedrock's): never waited for.
        srv.batch_api.options.list_error = 404
        messages: list[str] = []
        again, stats = runner.run(reqs, limits=BATCH, progress=messages.append)
        assert [r.text for r in again] == ["echo: q0", "echo: q1"] and stats.errors == 0
        assert [len(lines) for lines in srv.batch_api.inputs()] == [2]
        assert _journal(cache)[0] == ("bw-unknown", "not listed", 1)
        assert any("bw-unknown" in m and "paid twice" in m for m in messages)


def test_two_runs_with_the_same_misses_at_once_pay_for_one_batch(tmp_path):
    cache, ready = tmp_path / "llm.sqlite", tmp_path / "ready"
    ready.mkdir()
    # A create that takes 3 s: without one lock from the journal check to its row, both runs would see no
    # open batch and both create one.
    with OpenAIServer(batch=BatchOptions(create_delay_s=3.0, polls_to_finish=3), max_lifetime_s=60) as srv:
        child = _child(cache, srv.base_url, str(ready), "2")  # one run in a process of its own, one here
        runner = _runner(cache, timeout_s=30)
        _litellm()
        (ready / str(os.getpid())).touch()
        deadline = time.monotonic() + 40
        while len(list(ready.iterdir())) < 2:  # the child's imports done too: both look at the journal at once
            assert child.poll() is None and time.monotonic() < deadline, child.stderr.read().decode()[-3000:]
            time.sleep(0.01)
        results, stats = runner.run(make_requests(srv.base_url, 4), limits=BATCH)
        _, err = child.communicate(timeout=40)
        assert child.returncode == 0, err.decode(errors="replace")[-3000:]
        assert [r.text for r in results] == [f"echo: q{i}" for i in range(4)] and stats.errors == 0
        assert len(srv.batch_api.batches) == 1 and srv.batch_api.lines_answered == 4
        assert [row[1:] for row in _journal(cache)] == [("completed", 1)]


def test_expired_batch_keeps_its_answers_and_the_next_run_sends_only_the_rest(tmp_path):
    cache = tmp_path / "llm.sqlite"
    with OpenAIServer(batch=BatchOptions(outcome="expired", done_lines=2), max_lifetime_s=20) as srv:
        reqs = make_requests(srv.base_url, 5)
        runner = _runner(cache)
        results, stats = runner.run(reqs, limits=BATCH)
        assert [r.text for r in results[:2]] == ["echo: q0", "echo: q1"]
        assert all(r.text is None and "batch expired" in r.error for r in results[2:])
        assert stats.errors == 3
        for r in results[2:]:  # journalled as errors, never as answers
            assert runner.cache.get(r.key) is None and "batch expired" in runner.cache.errors_for(r.key)[0]
        assert [row[1:] for row in _journal(cache)] == [("expired", 1)]

        srv.batch_api.options = BatchOptions()  # the next batch completes
        again, stats = runner.run(reqs, limits=BATCH)
        assert [r.text for r in again] == [f"echo: q{i}" for i in range(5)]
        assert [r.cached for r in again] == [True, True, False, False, False] and stats.errors == 0
        first, second = srv.batch_api.inputs()
        assert [line["custom_id"] for line in second] == [request_key(r) for r in reqs[2:]]
        assert srv.count("/v1/batches") == 2


def test_failed_lines_are_errors_not_answers_and_are_asked_again(tmp_path):
    cache = tmp_path / "llm.sqlite"
    fail_q1 = lambda line: line["body"]["messages"][-1]["content"] == "q1"  # noqa: E731
    refuse = {"q3"}  # answered 200 without text, as a content filter does

    def reply(body: dict) -> str:
        text = body["messages"][-1]["content"]
        return "" if text in refuse else f"echo: {text}"

    with OpenAIServer(batch=BatchOptions(fail=fail_q1), reply=reply, max_lifetime_s=20) as srv:
        reqs = make_requests(srv.base_url, 4)
        runner = _runner(cache)
        results, stats = runner.run(reqs, limits=BATCH)
        assert results[0].text == "echo: q0" and results[2].text == "echo: q2"
        assert results[1].text is None and "batch line status 400" in results[1].error
        assert "invalid request" in results[1].error
        assert results[3].text is None and "no content" in results[3].error
        assert stats.errors == 2
        for r in (results[1], results[3]):
            assert runner.cache.get(r.key) is None and len(runner.cache.errors_for(r.key)) == 1

        srv.batch_api.options = BatchOptions()
        refuse.clear()
        again, stats = runner.run(reqs, limits=BATCH)
        assert [r.text for r in again] == [f"echo: q{i}" for i in range(4)] and stats.errors == 0
        assert [r.cached for r in again] == [True, False, True, False]
        assert [len(lines) for lines in srv.batch_api.inputs()] == [4, 2]


def test_a_batch_that_cannot_be_polled_stays_open_and_no_key_is_journalled(tmp_path, monkeypatch):
    secret = "sk-test-batch-secret-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    cache = tmp_path / "llm.sqlite"
    with OpenAIServer(batch=BatchOptions(poll_error=401), max_lifetime_s=20) as srv:
        [res], stats = _runner(cache).run(make_requests(srv.base_url, 1), limits=BATCH)
    assert res.text is None and "could not be read" in res.error and "401" in res.error
    assert stats.errors == 1
    assert [row[2] for row in _journal(cache)] == [0]  # open: the next run polls it again
    dump = "\n".join(sqlite3.connect(str(cache)).iterdump())
    assert secret not in dump and "***" in dump  # the server echoed the key; the journal did not keep it


def test_a_batch_the_provider_does_not_know_is_closed_and_asked_again(tmp_path):
    cache = tmp_path / "llm.sqlite"
    with OpenAIServer(batch=BatchOptions(poll_error=404), max_lifetime_s=20) as srv:
        reqs = make_requests(srv.base_url, 2)
        results, _ = _runner(cache).run(reqs, limits=BATCH)
        assert all(r.text is None and "the next run asks again" in r.error for r in results)
        [(first, status, final)] = _journal(cache)
        assert (status, final) == ("not found", 1)
        srv.batch_api.options = BatchOptions()
        again, stats = _runner(cache).run(reqs, limits=BATCH)
        assert [r.text for r in again] == ["echo: q0", "echo: q1"] and stats.errors == 0
        assert srv.count("/v1/batches") == 2 and _journal(cache)[1][1:] == ("completed", 1)


def test_a_registry_entry_with_batch_true_goes_through_the_dagster_resource_to_the_batch_api(tmp_path):
    from benchwright.registry import load_registry
    from benchwright.steps import limits_for, request_for
    from resources.llm import LLMClient

    with OpenAIServer(max_lifetime_s=20) as srv:
        (tmp_path / "models.yaml").write_text(f"""
cheap-later:
  model: {MODEL}
  role: candidate
  api_base: {srv.base_url}
  batch: true
""")
        [entry], problems = load_registry(tmp_path / "models.yaml", "models")
        assert problems == []
        reqs = [request_for(entry, [{"role": "user", "content": f"r{i}"}], "v1", tag=f"r{i}") for i in range(2)]
        client = LLMClient(cache_path=str(tmp_path / "llm.sqlite"), timeout_s=5, batch_poll_s=0.01,
                           batch_poll_max_s=0.02)
        results, _ = client.run(reqs, limits=limits_for([entry]))
        assert [r.text for r in results] == ["echo: r0", "echo: r1"]
        assert srv.count("/v1/batches") == 1 and srv.count("/v1/chat/completions") == 0


def test_sim_models_plan_and_replay_never_use_the_batch_api(tmp_path):
    with OpenAIServer(max_lifetime_s=20) as srv:
        # A sim model registered with batch: true is answered in-process.
        sim = make_requests(srv.base_url, 2, model="sim/strong-writer")
        results, _ = _runner(tmp_path / "sim.sqlite").run(sim, limits={"sim/strong-writer": ModelLimits(batch=True)})
        assert all(r.simulated and r.error is None for r in results)
        # Replay turns the misses into an error before anything is sent.
        with pytest.raises(ReplayMissError):
            _runner(tmp_path / "replay.sqlite", mode="replay").run(make_requests(srv.base_url, 2), limits=BATCH)
        # Plan mode prices the misses as before, without calling.
        (tmp_path / "plan").mkdir()
        (tmp_path / "plan" / PLAN_COPY_MARKER).touch()
        planned, _ = _runner(tmp_path / "plan" / "llm.sqlite", mode="plan").run(make_requests(srv.base_url, 2),
                                                                                 limits=BATCH)
        assert all(r.error is None and r.text.startswith("planned") for r in planned)
        assert srv.count() == 0
