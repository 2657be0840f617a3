"""Request keys, the SQLite cache/journal, and the replay / error-journal rules of the runner."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import sqlite3
import time

import pytest

from benchwright.llm import CachedResponse, LLMRequest, LLMRunner, ReplayMissError, ResponseCache, request_key
from benchwright.llm.request import canonical_request
from tests.support.openai_server import OpenAIServer

PNG_A = b"\x89PNG\r\n\x1a\nfake-image-A"
PNG_B = b"\x89PNG\r\n\x1a\nfake-image-B"


def _data_url(raw: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(raw).decode()


def _vision_request(image: bytes = PNG_A, **changes) -> LLMRequest:
    req = LLMRequest(
        model="openai/gpt-4o",
        messages=[
            {"role": "system", "content": "You are terse."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in the picture?"},
                    {"type": "image_url", "image_url": {"url": _data_url(image)}},
                ],
            },
        ],
        params={"temperature": 0.0, "max_tokens": 64},
        prompt_version="v1",
    )
    return dataclasses.replace(req, **changes)


# -- keys --------------------------------------------------------------------------------------
def test_key_is_stable_and_a_sha256_hex():
    key = request_key(_vision_request())
    assert key == request_key(_vision_request())
    assert len(key) == 64 and int(key, 16) >= 0
    # Parameter order does not matter: they are sorted.
    swapped = _vision_request(params={"max_tokens": 64, "temperature": 0.0})
    assert request_key(swapped) == key


@pytest.mark.parametrize(
    "change",
    [
        {"sample_index": 1},
        {"params": {"temperature": 0.7, "max_tokens": 64}},
        {"params": {"temperature": 0.0, "max_tokens": 64, "seed": 1}},
        {"prompt_version": "v2"},
        {"model": "openai/gpt-4o-mini"},
        {"messages": [{"role": "user", "content": "something else"}]},
    ],
)
def test_key_changes_with_what_changes_the_answer(change):
    assert request_key(_vision_request(**change)) != request_key(_vision_request())


def test_key_changes_with_image_bytes_but_not_their_encoding():
    base = request_key(_vision_request())
    assert request_key(_vision_request(image=PNG_B)) != base
    # Same bytes under another declared media type: same image, same key.
    req = _vision_request()
    req.messages[1]["content"][1]["image_url"]["url"] = _data_url(PNG_A, "image/jpeg")
    assert request_key(req) == base


def test_key_ignores_tag_api_base_and_credentials():
    base = request_key(_vision_request())
    assert request_key(_vision_request(tag="item-17")) == base
    assert request_key(_vision_request(api_base="http://127.0.0.1:9/v1")) == base
    with_key = _vision_request(params={"temperature": 0.0, "max_tokens": 64, "api_key": "sk-secret"})
    assert request_key(with_key) == base
    assert "sk-secret" not in repr(canonical_request(with_key))


def test_data_url_is_replaced_by_hash_of_decoded_bytes():
    canon = canonical_request(_vision_request())
    url = canon["messages"][1]["content"][1]["image_url"]["url"]
    assert url == "sha256:" + hashlib.sha256(PNG_A).hexdigest()
    # Prose that merely starts with "data:" is not mistaken for a data URL.
    prose = LLMRequest(model="m", messages=[{"role": "user", "content": "data: 1,2,3"}])
    assert canonical_request(prose)["messages"][0]["content"] == "data: 1,2,3"


def test_a_picture_made_into_a_data_url_is_hashed_once_and_keyed_as_any_copy_of_it(monkeypatch):
    from benchwright import images
    from benchwright.llm import request

    picture = images.NormalizedImage(sha256="", mime="image/png", width=1, height=1, data=PNG_A)
    url = images.data_url(picture)
    plain = LLMRequest(model="m", messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": str(url)}}]}])  # the same URL, as a plain string
    expected = request_key(plain)
    monkeypatch.setattr(request, "data_url_digest", lambda _: pytest.fail("the picture was hashed again"))
    keyed = [request_key(LLMRequest(model="m", messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": url}}]}], sample_index=0)) for _ in range(3)]
    assert keyed == [expected] * 3
    assert url.digest == "sha256:" + hashlib.sha256(picture.data).hexdigest()


# -- cache -------------------------------------------------------------------------------------
def _row(key: str, text: str = "hello") -> CachedResponse:
    return CachedResponse(key, "openai/x", "v1", text, 12, 3, 45.0, 0.001, False, 0, time.time())


def test_cache_write_read_and_wal(tmp_path):
    path = str(tmp_path / "sub" / "llm.sqlite")
    cache = ResponseCache(path)
    cache.put_response(_row("k1"))
    cache.put_error("k2", "openai/x", "v1", "boom", attempts=3)
    # A separate connection (another process would be the same) sees the committed row at once.
    other = ResponseCache(path)
    got = other.get_many(["k1", "k2", "k3"])
    assert set(got) == {"k1"}
    assert got["k1"].text == "hello" and got["k1"].tokens_in == 12 and got["k1"].cost_usd == 0.001
    assert other.errors_for("k2") == ["boom"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        columns = {r[1] for r in conn.execute("PRAGMA table_info(responses)")}
    assert "messages" not in columns and "api_key" not in columns


def test_error_is_journaled_but_never_served_as_success(tmp_path):
    path = str(tmp_path / "llm.sqlite")
    req = LLMRequest(model="openai/unit-model", messages=[{"role": "user", "content": "hi"}])
    with OpenAIServer(faults=["500"], max_lifetime_s=20) as srv:
        req = dataclasses.replace(req, api_base=srv.base_url)
        runner = LLMRunner(path, timeout_s=5, max_retries=0)
        [first], stats = runner.run([req])
        assert first.text is None and "500" in first.error and stats.errors == 1
        assert runner.cache.get(first.key) is None
        assert len(runner.cache.errors_for(first.key)) == 1
        # The next run calls again (not a cache hit) and now succeeds.
        [second], stats = runner.run([req])
        assert srv.count() == 2
        assert second.text == "echo: hi" and not second.cached and stats.cache_hits == 0


@pytest.mark.parametrize("text", ["", "  \n", None])
def test_a_response_without_text_is_never_stored_as_an_answer(tmp_path, text):
    cache = ResponseCache(str(tmp_path / "llm.sqlite"))
    with pytest.raises(ValueError, match="no text"):
        cache.put_response(_row("k1", text))
    assert cache.count_responses() == 0


def _write_legacy_row(path: str, key: str, model: str, text: str | None) -> None:
    # What an older version stored for a provider's 200 with "content": null: an empty "success".
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO responses VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                     (key, model, "", text, 5, 0, 10.0, 0.0, 1, 0, time.time()))


@pytest.mark.parametrize("text", ["", " ", None])
def test_an_empty_answer_cached_by_an_older_version_is_asked_again(tmp_path, text):
    path = str(tmp_path / "llm.sqlite")
    req = LLMRequest(model="sim/steady", messages=[{"role": "user", "content": "Name a prime number."}])
    runner = LLMRunner(path)
    _write_legacy_row(path, request_key(req), req.model, text)
    assert runner.cache.get(request_key(req)) is None
    with pytest.raises(ReplayMissError, match="1 of 1"):  # not an answer, so replay has nothing to serve
        LLMRunner(path, mode="replay").run([req])
    [result], stats = runner.run([req])
    assert result.text and result.error is None and not result.cached and stats.api_calls == 1
    assert runner.cache.get(result.key).text == result.text  # the real answer replaced the empty row
    [again], stats = runner.run([req])
    assert again.cached and again.text == result.text and stats.api_calls == 0


def test_replay_miss_raises_before_any_call(tmp_path):
    path = str(tmp_path / "llm.sqlite")
    with OpenAIServer(max_lifetime_s=20) as srv:
        reqs = [
            LLMRequest(model="openai/unit-model", messages=[{"role": "user", "content": f"q{i}"}], api_base=srv.base_url)
            for i in range(3)
        ]
        LLMRunner(path, timeout_s=5).run(reqs[:1])
        assert srv.count() == 1
        replay = LLMRunner(path, mode="replay", timeout_s=5)
        with pytest.raises(ReplayMissError) as info:
            replay.run(reqs)
        assert "2 of 3" in str(info.value) and "openai/unit-model" in str(info.value)
        assert srv.count() == 1  # nothing was called, not even the two misses' neighbours
        [hit], stats = replay.run(reqs[:1])
        assert hit.cached and hit.text == "echo: q0" and stats.api_calls == 0
        assert srv.count() == 1


def test_mode_is_validated(tmp_path):
    with pytest.raises(ValueError):
        LLMRunner(str(tmp_path / "c.sqlite"), mode="record")


def test_sim_models_share_cache_and_stats(tmp_path):
    runner = LLMRunner(str(tmp_path / "llm.sqlite"))
    reqs = [
        LLMRequest(model="sim/steady", messages=[{"role": "user", "content": "Name a prime number."}], sample_index=i)
        for i in range(3)
    ]
    results, stats = runner.run(reqs)
    assert all(r.simulated and r.text and r.error is None and r.cost_usd == 0 for r in results)
    assert all(r.tokens_in > 0 and r.tokens_out > 0 for r in results)
    assert stats.api_calls == 3 and stats.cache_hits == 0
    again, stats = runner.run(reqs)
    assert stats.api_calls == 0 and stats.cache_hits == 3
    assert all(r.cached and r.simulated for r in again)
    assert [r.text for r in again] == [r.text for r in results]


def _shown(url) -> list[dict]:
    return [{"role": "system", "content": "You are terse."},
            {"role": "user", "content": [{"type": "text", "text": "What is in the picture?"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]


def _sample_picture():
    from benchwright.images import normalize_image
    from benchwright.paths import ROOT

    return normalize_image(sorted((ROOT / "sample_data" / "creation" / "images").glob("*.png"))[0].read_bytes())


def test_an_image_ref_is_keyed_without_reading_its_picture_and_sent_as_its_data_url(tmp_path):
    """A request names a picture by reference; its key is the one its data URL has always had (a warm re-run of
    a home made before references calls nothing), and the picture is read only when the request is sent."""
    from benchwright.images import ImageSource, data_url
    from benchwright.llm.request import sendable

    picture = _sample_picture()
    reads = []
    ref = ImageSource(lambda wanted: reads.append(wanted) or {picture.sha256: picture.data}).ref(picture.sha256,
                                                                                                   picture.mime)
    old = LLMRequest(model="openai/unit-model", messages=_shown(_data_url(picture.data)), prompt_version="v1")
    new = dataclasses.replace(old, messages=_shown(ref))
    assert request_key(new) == request_key(old) and reads == []
    assert sendable(new.messages) == old.messages and reads == [[picture.sha256]]
    plain = [{"role": "user", "content": "hi"}]
    assert sendable(plain) is plain  # nothing to read: not copied

    path = str(tmp_path / "llm.sqlite")
    with OpenAIServer(max_lifetime_s=20) as srv:
        runner = LLMRunner(path, timeout_s=5, max_retries=0)
        [sent], _ = runner.run([dataclasses.replace(new, api_base=srv.base_url)])
        assert sent.error is None and sent.key == request_key(old)
        assert srv.bodies[0]["messages"] == old.messages  # the provider got the picture itself
        [again], stats = runner.run([dataclasses.replace(old, api_base=srv.base_url)])
        assert again.cached and stats.api_calls == 0 and srv.count() == 1

    # The simulator answers from the picture it is sent: the same answer as from the data URL.
    from benchwright.creation.prompts import describe_messages

    answers = []
    for number, url in enumerate([data_url(picture), ref]):
        req = LLMRequest(model="sim/describer", messages=describe_messages([url]), prompt_version="v1")
        [result], _ = LLMRunner(str(tmp_path / f"sim{number}.sqlite")).run([req])
        answers.append((result.key, result.text))
    assert answers[0] == answers[1] and answers[0][1]


def test_call_stats_merge_sums_counts_and_cost_and_takes_percentiles_over_every_call():
    from benchwright.llm import CallStats

    first = CallStats(requests=3, api_calls=2, cache_hits=1, errors=1, given_up=0, cost_usd=0.5, retries=1,
                      latencies_ms=[10.0, 30.0])
    second = CallStats(requests=2, api_calls=2, cache_hits=0, errors=1, given_up=1, cost_usd=0.25,
                       latencies_ms=[20.0])
    merged = CallStats.merge([first, second])
    assert (merged.requests, merged.api_calls, merged.cache_hits, merged.errors, merged.given_up, merged.retries) \
        == (5, 4, 1, 2, 1, 1)
    assert merged.cost_usd == 0.75
    assert merged.latency_p50_ms == 20.0 and merged.latency_p95_ms == 29.0  # over 10, 20, 30
    assert CallStats.merge([CallStats()]).latency_p50_ms is None  # no successful call: no percentile
