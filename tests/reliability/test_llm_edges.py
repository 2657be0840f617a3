"""LLM-layer edge cases the fault server makes possible: slow bodies, streams, text that is not Unicode."""

import asyncio

import pytest

from benchwright.llm import LLMRequest, LLMRunner
from benchwright.llm.litellm_setup import load_litellm as _litellm
from tests.support.openai_server import OpenAIServer


def _requests(srv: OpenAIServer, n: int) -> list[LLMRequest]:
    return [LLMRequest(model="openai/edge", messages=[{"role": "user", "content": f"q{i}"}], api_base=srv.base_url)
            for i in range(n)]


@pytest.fixture(scope="module", autouse=True)
def _warm_litellm(tmp_path_factory):
    # litellm's first call in a process blocks the event loop for a while; keep it out of the timings.
    with OpenAIServer(max_lifetime_s=20) as srv:
        LLMRunner(str(tmp_path_factory.mktemp("warm") / "llm.sqlite"), timeout_s=10).run(_requests(srv, 1))


def test_a_slow_body_is_cut_at_the_call_timeout_and_retried(tmp_path):
    # Each piece arrives well within the timeout (0.5 s apart); the whole body would take 1.5 s.
    with OpenAIServer(faults=["slow"], slow_chunk_s=0.5, max_lifetime_s=20) as srv:
        runner = LLMRunner(str(tmp_path / "llm.sqlite"), timeout_s=0.8, max_retries=2, backoff_base_s=0.01)
        [result], stats = runner.run(_requests(srv, 1))
        assert result.error is None and result.text == "echo: q0"
        assert srv.count() == 2 and stats.retries == 1
        [gap] = srv.gaps()
        # Cut by the whole-call timeout (the server stamps arrivals after reading the body, a little after
        # the client starts its clock), not after the last piece at 1.5 s.
        assert 0.7 <= gap < 1.4


def test_streamed_answers_arrive_whole_and_slow_streams_can_be_bounded():
    litellm = _litellm()

    async def stream(base_url: str) -> tuple[str, object]:
        text, usage = "", None
        response = await litellm.acompletion(model="openai/edge", api_base=base_url, api_key="sk-noauth",
                                             messages=[{"role": "user", "content": "tell me a story"}],
                                             stream=True, stream_options={"include_usage": True})
        async for chunk in response:
            if chunk.choices and chunk.choices[0].delta.content:
                text += chunk.choices[0].delta.content
            usage = getattr(chunk, "usage", None) or usage
        return text, usage

    with OpenAIServer(stream_chunk_s=0.01, faults=[None, "slow"], slow_chunk_s=0.5, max_lifetime_s=20) as srv:
        text, usage = asyncio.run(stream(srv.base_url))
        assert text == "echo: tell me a story" and usage.completion_tokens == 5
        # The same stream, 0.5 s between chunks: a bound on the whole call stops it.
        with pytest.raises(TimeoutError):
            asyncio.run(asyncio.wait_for(stream(srv.base_url), timeout=1.0))
        assert srv.faults_served["slow"] == 1


def test_a_reply_that_is_not_unicode_is_kept_with_replacement_characters(tmp_path):
    # A JSON "\ud800" escape decodes to a lone surrogate, which no database can store.
    with OpenAIServer(reply=lambda body: "bad \ud800 text" if "q1" in str(body["messages"]) else "fine",
                      max_lifetime_s=20) as srv:
        runner = LLMRunner(str(tmp_path / "llm.sqlite"), timeout_s=5)
        results, stats = runner.run(_requests(srv, 3))
        assert [r.text for r in results] == ["fine", "bad \ufffd text", "fine"]
        assert stats.errors == 0
        assert runner.cache.get(results[1].key).text == "bad \ufffd text"
