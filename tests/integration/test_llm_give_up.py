"""The give-up rule (benchwright/llm/failures.py) through litellm and HTTP: a request that failed with the same
permanent 4xx three runs in a row is no longer called; transient failures and changing statuses are asked again
for ever; `retry_given_up` asks a given-up request anyway."""

from __future__ import annotations

from benchwright.llm import LLMRequest, LLMRunner
from benchwright.llm.failures import GIVE_UP_AFTER, failed_share_severity, given_up_error, is_permanent_status
from tests.support.openai_server import OpenAIServer

MODEL = "openai/give-up-test"


def _request(srv: OpenAIServer, text: str) -> LLMRequest:
    return LLMRequest(model=MODEL, messages=[{"role": "user", "content": text}], params={"max_tokens": 8},
                      api_base=srv.base_url)


def _run(tmp_path, srv: OpenAIServer, texts: list[str], **kw):
    with LLMRunner(str(tmp_path / "llm.sqlite"), timeout_s=5, max_retries=0, **kw) as runner:
        return runner.run([_request(srv, text) for text in texts])


def test_same_permanent_status_three_runs_in_a_row_is_given_up_and_not_called_again(tmp_path):
    with OpenAIServer(always="400", max_lifetime_s=60) as srv:
        for _ in range(GIVE_UP_AFTER):
            results, stats = _run(tmp_path, srv, ["bad"])
            assert stats.api_calls == 1 and stats.errors == 1 and stats.given_up == 0
        assert srv.count() == GIVE_UP_AFTER

        results, stats = _run(tmp_path, srv, ["bad", "bad"])  # duplicates count as results, not calls
        assert srv.count() == GIVE_UP_AFTER  # not called a fourth time
        assert (stats.requests, stats.api_calls, stats.errors, stats.given_up) == (2, 0, 2, 2)
        assert all(r.error.startswith("given up after 3 runs failed with HTTP 400") for r in results)

        # The operator fixed the cause: retry_given_up asks again, and an answer ends the story.
        srv.always = None
        results, stats = _run(tmp_path, srv, ["bad"], retry_given_up=True)
        assert srv.count() == GIVE_UP_AFTER + 1 and stats.errors == 0 and results[0].text


def test_transient_or_changing_failures_are_asked_again(tmp_path):
    # 500 every time (transient), then 401 twice and 400 once (not the same permanent status three times).
    with OpenAIServer(always="500", max_lifetime_s=60) as srv:
        for _ in range(GIVE_UP_AFTER + 1):
            _run(tmp_path, srv, ["flaky"])
        assert srv.count() == GIVE_UP_AFTER + 1
        srv.always = None
        srv.faults = ["401", "401", "400", "400"]
        for _ in range(4):
            _, stats = _run(tmp_path, srv, ["mixed"])
            assert stats.given_up == 0
        # 401, 401, 400, 400: the last three are not all the same permanent status, so it is asked again;
        _, stats = _run(tmp_path, srv, ["mixed"])
        assert stats.given_up == 0 and stats.errors == 0 and srv.count() == GIVE_UP_AFTER + 1 + 5


def test_rule_and_severity():
    assert is_permanent_status(400) and is_permanent_status(404) and is_permanent_status(422)
    assert not any(is_permanent_status(s) for s in (None, 401, 403, 408, 429, 500, 503))
    assert given_up_error([("e", 400)] * 2) is None
    assert given_up_error([("e", 500)] * 3) is None
    assert given_up_error([("a", 400), ("b", 404), ("c", 404), ("d", 404)]).endswith(": d")
    assert given_up_error([("a", 404), ("b", 404), ("c", 400)]) is None
    assert failed_share_severity(0, 10) is None
    assert failed_share_severity(1, 10) == "WARN"
    assert failed_share_severity(2, 10) == "ERROR"
    assert failed_share_severity(5, 5) == "ERROR"
