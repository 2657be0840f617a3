"""The real provider path: litellm -> HTTP -> the OpenAI-compatible test server on 127.0.0.1."""

from __future__ import annotations

import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchwright.llm import LLMRequest, LLMRunner, ModelLimits
from benchwright.llm.providers import ProviderLimits
from resources.llm import LLMClient
from tests.support.openai_server import OpenAIServer

MODEL = "openai/gpt-4o-mini"  # in litellm's price table, so cost is computed; served by our server


def _reqs(srv: OpenAIServer, n: int, model: str = MODEL, prefix: str = "q") -> list[LLMRequest]:
    return [
        LLMRequest(
            model=model,
            messages=[{"role": "user", "content": f"{prefix}{i}"}],
            params={"temperature": 0.0, "max_tokens": 16},
            api_base=srv.base_url,
            tag=f"item-{i}",
        )
        for i in range(n)
    ]


@pytest.fixture(scope="module", autouse=True)
def _warm_litellm(tmp_path_factory):
    # litellm's first call in a process spends ~0.5 s setting itself up (blocking the event loop);
    # make it here so the timing assertions below measure retries, timeouts and limits only.
    with OpenAIServer(max_lifetime_s=20) as srv:
        LLMRunner(str(tmp_path_factory.mktemp("warm") / "llm.sqlite"), timeout_s=10).run(_reqs(srv, 1))


def _runner(tmp_path, **kw) -> LLMRunner:
    opts = dict(timeout_s=5, max_retries=3, backoff_base_s=0.01, backoff_max_s=0.05)
    opts.update(kw)
    return LLMRunner(str(tmp_path / "llm.sqlite"), **opts)


def test_generation_records_tokens_cost_and_caches(tmp_path):
    with OpenAIServer(max_lifetime_s=20) as srv:
        runner = _runner(tmp_path)
        reqs = _reqs(srv, 3, prefix="secret prompt ")
        results, stats = runner.run(reqs)
        assert [r.text for r in results] == ["echo: secret prompt 0", "echo: secret prompt 1", "echo: secret prompt 2"]
        assert all(r.tokens_in > 0 and r.tokens_out == 4 and r.latency_ms > 0 for r in results)
        assert all(r.cost_usd > 0 and not r.cached and not r.simulated for r in results)
        assert stats.api_calls == 3 and stats.cache_hits == 0 and stats.errors == 0 and stats.retries == 0
        assert stats.latency_p50_ms is not None and stats.latency_p95_ms >= stats.latency_p50_ms
        assert stats.cost_usd == pytest.approx(sum(r.cost_usd for r in results))
        # The price is litellm's table applied to this call's tokens, counted once.
        import litellm

        for r in results:
            prompt_usd, completion_usd = litellm.cost_per_token(
                model=MODEL, prompt_tokens=r.tokens_in, completion_tokens=r.tokens_out
            )
            assert r.cost_usd == pytest.approx(prompt_usd + completion_usd)
        # Generation params reached the server; the dummy key stayed out of the request body.
        assert srv.bodies[0]["max_tokens"] == 16 and "api_key" not in srv.bodies[0]

        # Second run of the same requests: no server traffic at all.
        again, stats2 = runner.run(reqs)
        assert srv.count() == 3
        assert all(r.cached for r in again) and [r.text for r in again] == [r.text for r in results]
        assert stats2.api_calls == 0 and stats2.cache_hits == 3 and stats2.cost_usd == 0
        assert set(stats2.as_metadata()) == {
            "requests", "api_calls", "cache_hits", "errors", "given_up", "cost_usd", "latency_p50_ms", "latency_p95_ms",
            "retries"
        }
    # The cache holds no prompt text.
    dump = "\n".join(sqlite3.connect(str(tmp_path / "llm.sqlite")).iterdump())
    assert "secret prompt" not in dump.replace("echo: secret prompt", "")


def test_retry_after_is_honoured(tmp_path):
    with OpenAIServer(faults=["429"], retry_after="1", max_lifetime_s=20) as srv:
        [res], stats = _runner(tmp_path).run(_reqs(srv, 1))
        assert res.text == "echo: q0"
        assert srv.count() == 2 and stats.retries == 1
        [gap] = srv.gaps()
        assert 1.0 <= gap < 2.0  # backoff alone would have waited <= 0.05 s


@pytest.mark.parametrize("fault", ["500", "malformed", "truncated", "hang"])
def test_transient_fault_then_success(tmp_path, fault):
    # A hang is cut by the client's timeout (0.5 s here); every other fault is seen at once and retried after a
    # short backoff (<= 0.05 s), so for those the timeout is long and the retry must come well before it.
    timeout_s = 0.5 if fault == "hang" else 5.0
    with OpenAIServer(faults=[fault], hang_s=10, max_lifetime_s=20) as srv:
        [res], stats = _runner(tmp_path, timeout_s=timeout_s).run(_reqs(srv, 1))
        assert res.error is None and res.text == "echo: q0"
        assert srv.count() == 2 and stats.retries == 1 and stats.api_calls == 1
        [gap] = srv.gaps()
        if fault == "hang":
            # Cut at the 0.5 s timeout, not at the server's 10 s. The server times arrivals, which lag the
            # client's clock start under load, hence slack on both sides.
            assert 0.4 <= gap < 5.0
        else:
            # Retried after the backoff, not after a timeout; the slack is thread scheduling on a busy machine.
            assert gap < timeout_s / 2


def test_permanent_500_fails_after_max_retries(tmp_path):
    with OpenAIServer(always="500", max_lifetime_s=20) as srv:
        runner = _runner(tmp_path, max_retries=2)
        [res], stats = runner.run(_reqs(srv, 1))
        assert srv.count() == 1 + 2
        assert res.text is None and "500" in res.error
        assert stats.errors == 1 and stats.retries == 2 and stats.cache_hits == 0
        assert runner.cache.get(res.key) is None and len(runner.cache.errors_for(res.key)) == 1


@pytest.mark.parametrize("fault", ["no_content", "empty_content"])
def test_an_answer_without_content_is_an_error_and_asked_again_next_run(tmp_path, fault):
    # 200 with "content": null or "" (a refusal, a content filter) is no answer: journalled as an error,
    # never cached as an empty success, not retried at once, and called again by the next run.
    with OpenAIServer(faults=[fault], max_lifetime_s=20) as srv:
        runner = _runner(tmp_path, max_retries=3)
        [first], stats = runner.run(_reqs(srv, 1))
        assert first.text is None and "no content" in first.error and "content_filter" in first.error
        assert srv.count() == 1 and stats.errors == 1 and stats.retries == 0
        assert runner.cache.get(first.key) is None and len(runner.cache.errors_for(first.key)) == 1
        [second], stats = runner.run(_reqs(srv, 1))
        assert second.error is None and second.text == "echo: q0" and not second.cached
        assert srv.count() == 2 and stats.api_calls == 1


@pytest.mark.parametrize("fault", ["400", "401"])
def test_client_errors_are_not_retried(tmp_path, fault):
    with OpenAIServer(always=fault, max_lifetime_s=20) as srv:
        [res], stats = _runner(tmp_path, max_retries=3).run(_reqs(srv, 1))
        assert srv.count() == 1 and stats.retries == 0
        assert res.error is not None and res.text is None


def test_concurrency_limit_per_model(tmp_path):
    with OpenAIServer(latency_s=0.2, max_lifetime_s=20) as srv:
        results, stats = _runner(tmp_path).run(_reqs(srv, 6), limits={MODEL: ModelLimits(max_concurrency=2)})
        assert all(r.error is None for r in results)
        assert srv.max_in_flight == 2  # limited, and the limit was actually used
        assert srv.arrivals[-1] - srv.arrivals[0] >= 0.35  # 3 waves of 2, 0.2 s each (less arrival jitter)


def test_provider_limit_holds_across_runners_and_counts_each_provider_apart(tmp_path):
    # Two runners (two assets' calls at once, in their own event loops) share the home's provider leases:
    # `lab-a` allows 2 calls in flight, `lab-b` 1, whatever the models' own limits (8 each) would allow.
    providers = {"lab-a": ProviderLimits(max_in_flight=2), "lab-b": ProviderLimits(max_in_flight=1)}
    with OpenAIServer(latency_s=0.2, max_lifetime_s=120) as srv:  # a cap for a stuck test, not a timing
        def run(model: str, provider: str, prefix: str) -> None:
            runner = _runner(tmp_path, provider_limits=providers)
            results, _ = runner.run(_reqs(srv, 6, model=model, prefix=prefix),
                                    limits={model: ModelLimits(max_concurrency=8, provider=provider)})
            assert all(r.error is None for r in results)

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(run, [MODEL, "openai/other-a", "openai/other-b", "openai/more-b"],
                          ["lab-a", "lab-a", "lab-b", "lab-b"], ["w", "x", "y", "z"]))
        assert srv.count() == 24
        assert srv.max_in_flight == 3  # 2 for lab-a + 1 for lab-b, never the 32 the models would allow


def test_rpm_limit_spaces_requests(tmp_path):
    with OpenAIServer(max_lifetime_s=20) as srv:
        before = time.monotonic()
        _runner(tmp_path).run(_reqs(srv, 4), limits={MODEL: ModelLimits(max_concurrency=4, rpm=300)})
        assert srv.count() == 4
        # 300/min = one start per 0.2 s. The limiter lets the k-th start go no earlier than 0.2·k s after the
        # first, and a request arrives no earlier than it starts, so the k-th arrival is at least 0.2·k s after
        # the run began, however late the client's threads are scheduled (gaps between single arrivals are not
        # checked: a busy machine can hold one start back and bunch it with the next). Unlimited, all four
        # would arrive within a few milliseconds.
        for k, arrival in enumerate(sorted(srv.arrivals)):
            assert arrival - before >= 0.2 * k - 0.01, (k, arrival - before)  # 10 ms: timer resolution


def test_duplicates_in_one_run_are_called_once(tmp_path):
    with OpenAIServer(max_lifetime_s=20) as srv:
        reqs = _reqs(srv, 2)
        results, stats = _runner(tmp_path).run([reqs[0], reqs[1], reqs[0], reqs[0]])
        assert srv.count() == 2
        assert [r.text for r in results] == ["echo: q0", "echo: q1", "echo: q0", "echo: q0"]
        assert stats.api_calls == 2 and stats.cache_hits == 2


def test_response_text_is_redacted(tmp_path):
    reply = lambda body: "Contact me at jane.doe@example.com please."  # noqa: E731
    with OpenAIServer(reply=reply, max_lifetime_s=20) as srv:
        runner = _runner(tmp_path)
        [res], _ = runner.run(_reqs(srv, 1))
        assert "jane.doe@example.com" not in res.text and res.pii_redactions == 1
        assert "jane.doe@example.com" not in runner.cache.get(res.key).text
        [hit], _ = runner.run(_reqs(srv, 1))
        assert hit.cached and hit.pii_redactions == 1


def test_progress_reports_done_and_hits(tmp_path):
    messages: list[str] = []
    with OpenAIServer(max_lifetime_s=20) as srv:
        runner = _runner(tmp_path)
        runner.run(_reqs(srv, 5))
        runner.run(_reqs(srv, 20), progress=messages.append)
    assert messages[0] == "LLM requests: 5/20 done (5 cache hits, 0 errors)"  # when the calls start
    assert messages[-1] == "LLM requests: 20/20 done (5 cache hits, 0 errors)"
    assert len(messages) <= 3  # a few lines per batch (each is an event-log row), not one per slice


def test_dagster_resource_delegates(tmp_path):
    with OpenAIServer(max_lifetime_s=20) as srv:
        client = LLMClient(cache_path=str(tmp_path / "res.sqlite"), timeout_s=5, max_retries=1, default_max_concurrency=1)
        results, stats = client.run(_reqs(srv, 3, prefix="r"))
        assert [r.text for r in results] == ["echo: r0", "echo: r1", "echo: r2"]
        assert srv.max_in_flight == 1 and stats.api_calls == 3
        replay = LLMClient(cache_path=str(tmp_path / "res.sqlite"), mode="replay")
        _, stats = replay.run(_reqs(srv, 3, prefix="r"))
        assert stats.cache_hits == 3 and srv.count() == 3


def test_model_missing_from_the_price_table_costs_nothing_and_is_no_error(tmp_path):
    # A self-hosted model litellm has no price for: the answer is kept, its cost recorded as 0.
    with OpenAIServer(max_lifetime_s=20) as srv:
        results, stats = _runner(tmp_path).run(_reqs(srv, 2, model="openai/our-own-finetune"))
    assert [r.text for r in results] == ["echo: q0", "echo: q1"]
    assert all(r.error is None and r.cost_usd == 0.0 and r.tokens_in > 0 for r in results)
    assert stats.errors == 0 and stats.cost_usd == 0.0


# A process started cold, calling two providers (one with rpm, one with tpm) through a gate whose "minute" is
# MINUTE_S. Its first AsyncOpenAI client takes SETUP_S to build, the event loop blocked meanwhile, as on a loaded
# machine: its first calls hold their leases that long before they are sent. Prints each lease's set-up delay.
COLD_CHILD = """
import json, sys, time
import openai
from benchwright.llm import LLMRequest, LLMRunner, ModelLimits
from benchwright.llm import providers
from benchwright.llm.providers import ProviderGate, ProviderLimits

home, base_url, name, minute_s, margin_s, setup_s = sys.argv[1], sys.argv[2], sys.argv[3], *map(float, sys.argv[4:])
built = []
init = openai.AsyncOpenAI.__init__
def slow_init(self, *args, **kwargs):
    if not built:
        time.sleep(setup_s)
    built.append(1)
    init(self, *args, **kwargs)
openai.AsyncOpenAI.__init__ = slow_init

leased, delays = {}, []
acquire, sent = ProviderGate._acquire_in_transaction, ProviderGate.sent  # every way to a lease ends in the first
def acquire_in_transaction(self, *args):
    leases, wait = acquire(self, *args)
    leased.update(dict.fromkeys(leases, time.time()))
    return leases, wait
def stamp(self, lease):
    delays.append(time.time() - leased[lease])
    sent(self, lease)
ProviderGate._acquire_in_transaction, ProviderGate.sent = acquire_in_transaction, stamp

limits = {"rpm-lab": ProviderLimits(rpm=3), "tpm-lab": ProviderLimits(tpm=130)}
gate = ProviderGate(f"{home}/slots.sqlite3", minute_s=minute_s, margin_s=margin_s)
runner = LLMRunner(f"{home}/{name}.sqlite", timeout_s=20, provider_limits=limits, provider_gate=gate)
requests = [LLMRequest(model=f"openai/{provider}", messages=[{"role": "user", "content": f"{name}{i}".ljust(100)}],
                       params={"max_tokens": 16}, api_base=base_url)
            for provider in limits for i in range(4)]
results, _ = runner.run(requests, limits={f"openai/{p}": ModelLimits(provider=p) for p in limits})
assert all(r.error is None for r in results), [r.error for r in results]
print(json.dumps(delays))
"""


def test_rate_limits_hold_at_the_provider_for_processes_started_cold_on_a_loaded_machine(tmp_path):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    from tests.support.openai_server import completion_tokens, default_reply, prompt_tokens

    root = Path(__file__).resolve().parents[2]
    minute_s, margin_s, setup_s = 1.5, 1.0, 1.5  # set-up longer than the margin: counted from the lease, 5 in a minute
    with OpenAIServer(image_tokens=765, max_lifetime_s=90) as srv:  # prompt tokens: its text ÷ 4, as the gate's
        children = [subprocess.Popen([sys.executable, "-c", COLD_CHILD, str(tmp_path), srv.base_url, name,
                                      str(minute_s), str(margin_s), str(setup_s)], cwd=str(root),
                                     env={**os.environ, "PYTHONPATH": str(root)}, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
                    for name in ("a", "b")]
        outputs = [child.communicate(timeout=80) for child in children]
        assert all(child.returncode == 0 for child in children), [err[-3000:] for _, err in outputs]
        arrivals = list(zip(srv.arrivals, srv.bodies))
    delays = [d for out, _ in outputs for d in json.loads(out.strip().splitlines()[-1])]
    assert max(delays) >= setup_s  # the cold start did hold calls between their lease and their send
    assert len(arrivals) == 16
    for provider, limit, weight in (("rpm-lab", 3, lambda body: 1),
                                    ("tpm-lab", 130, lambda body: prompt_tokens(body, 765) +
                                     completion_tokens(default_reply(body)))):
        seen = sorted((at, weight(body)) for at, body in arrivals if body["model"] == provider)
        # Every window of a minute at the server, from each arrival on, holds no more than the limit.
        load = [sum(w for at, w in seen if start <= at < start + minute_s) for start, _ in seen]
        assert max(load) <= limit, (provider, load)
