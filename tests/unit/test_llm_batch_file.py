"""The batch file sent to a provider, the result lines read back, and the batch journal in the cache."""

from __future__ import annotations

import json

from benchwright.llm import LLMRequest, ResponseCache
from benchwright.llm.batch import batch_files, result_lines


def test_batch_file_has_one_line_per_request_keyed_by_its_cache_key_without_endpoint_or_key():
    req = LLMRequest(model="openai/gpt-4o-mini", messages=[{"role": "user", "content": "héllo"}],
                     params={"temperature": 0.2, "api_base": "http://x/v1", "extra_headers": {"X-Key": "k"}},
                     api_base="http://x/v1")
    other = LLMRequest(model="openai/gpt-4o-mini", messages=[{"role": "user", "content": "two"}])
    [(keys, content)] = batch_files({"k1": req, "k2": other}, "gpt-4o-mini")
    lines = [json.loads(line) for line in content.decode().splitlines()]
    assert keys == ["k1", "k2"]
    assert [line["custom_id"] for line in lines] == ["k1", "k2"]
    assert lines[0] == {"custom_id": "k1", "method": "POST", "url": "/v1/chat/completions",
                        "body": {"temperature": 0.2, "model": "gpt-4o-mini", "messages": req.messages}}


def test_requests_over_the_provider_limits_are_split_into_several_batches():
    reqs = {f"k{i}": LLMRequest(model="openai/m", messages=[{"role": "user", "content": "x" * (10 + i)}])
            for i in range(5)}
    assert [keys for keys, _ in batch_files(reqs, "m", max_requests=2)] == [["k0", "k1"], ["k2", "k3"], ["k4"]]
    sizes = [len(content) for _, content in batch_files(reqs, "m")]
    assert len(sizes) == 1
    # Bytes: a file holds the lines that fit; a line too big for any file still goes alone.
    one_line = sizes[0] // 5
    split = list(batch_files(reqs, "m", max_bytes=2 * one_line + 5))
    assert [keys for keys, _ in split] == [["k0", "k1"], ["k2", "k3"], ["k4"]]
    assert all(len(content) <= 2 * one_line + 5 for _, content in split)
    assert [keys for keys, _ in batch_files(reqs, "m", max_bytes=1)] == [[f"k{i}"] for i in range(5)]


def test_result_lines_tell_answers_from_errors_and_skip_what_cannot_be_matched():
    ok = {"custom_id": "a", "response": {"status_code": 200, "body": {"choices": []}}, "error": None}
    bad_status = {"custom_id": "b", "error": None,
                  "response": {"status_code": 429, "body": {"error": {"message": "slow down", "code": "rate"}}}}
    line_error = {"custom_id": "c", "response": None, "error": {"code": "batch_expired", "message": "too late"}}
    no_body = {"custom_id": "d", "response": {"status_code": 200, "body": None}, "error": None}
    text = "\n".join([json.dumps(ok), "not json", json.dumps({"no": "id"}), json.dumps(bad_status),
                      json.dumps(line_error), "", json.dumps(no_body)])
    lines = result_lines(text.encode())
    assert [line.key for line in lines] == ["a", "b", "c", "d"]
    assert lines[0].body == {"choices": []} and lines[0].error is None
    assert lines[1].body is None and lines[1].error == "batch line status 429: rate: slow down"
    assert lines[2].error == "batch line error: batch_expired: too late"
    assert lines[3].body is None and "no response body" in lines[3].error


def test_the_journal_keeps_open_batches_per_model_and_endpoint_until_final(tmp_path):
    cache = ResponseCache(str(tmp_path / "llm.sqlite"))
    cache.put_batch("b1", "openai/m", "http://x/v1", "file-1", "validating", {"k1": "v1", "k2": "v1"})
    cache.put_batch("b2", "openai/m", "", "file-2", "validating", {"k3": "v2"})
    [open_x] = cache.open_batches("openai/m", "http://x/v1")
    assert open_x.batch_id == "b1" and open_x.prompt_versions == {"k1": "v1", "k2": "v1"}
    assert [b.batch_id for b in cache.open_batches("openai/m", "")] == ["b2"]
    assert cache.open_batches("openai/other", "http://x/v1") == []

    cache.set_batch_status("b1", "in_progress")
    assert cache.open_batches("openai/m", "http://x/v1")[0].status == "in_progress"
    cache.set_batch_status("b1", "expired", final=True)
    assert cache.open_batches("openai/m", "http://x/v1") == []
    cache.set_batch_status("b1", "expired")  # a late status never reopens a final batch
    assert cache.open_batches("openai/m", "http://x/v1") == []
    assert cache.batch_rows() == [("b1", "openai/m", "http://x/v1", "expired", 1, 2),
                                  ("b2", "openai/m", "", "validating", 0, 1)]
    cache.close()


def test_a_batch_is_journalled_as_an_intent_under_its_tag_then_renamed_to_the_providers_id(tmp_path):
    cache = ResponseCache(str(tmp_path / "llm.sqlite"))
    cache.put_batch_intent("bw-tag", "openai/m", "", {"k1": "v1", "k2": "v1"})
    [intent] = cache.open_batches("openai/m", "")
    assert intent.creating and intent.batch_id == "bw-tag" and intent.prompt_versions == {"k1": "v1", "k2": "v1"}
    cache.confirm_batch("bw-tag", "batch_7", "file-3", "validating")
    [created] = cache.open_batches("openai/m", "")
    assert not created.creating and created.batch_id == "batch_7" and created.prompt_versions == intent.prompt_versions
    assert cache.batch_rows() == [("batch_7", "openai/m", "", "validating", 0, 2)]
    cache.close()


def test_the_batch_lock_is_held_by_one_holder_at_a_time_per_model_and_endpoint(tmp_path):
    import asyncio

    from benchwright.llm.batch import batch_lock

    async def main() -> list[str]:
        order: list[str] = []

        async def hold(name: str, model: str) -> None:
            async with batch_lock(tmp_path, model, ""):
                order.append(f"{name} in")
                await asyncio.sleep(0.2)
                order.append(f"{name} out")

        first = asyncio.create_task(hold("a", "openai/m"))
        await asyncio.sleep(0.05)
        await asyncio.gather(first, hold("b", "openai/m"), hold("c", "openai/other"))
        return order

    order = asyncio.run(main())
    assert order.index("a out") < order.index("b in")  # the same model and endpoint waits
    assert order.index("c in") < order.index("a out")  # another model does not


def test_a_batch_file_carries_the_pictures_of_image_refs_read_as_its_file_is_made():
    from benchwright.images import ImageSource, NormalizedImage, data_url

    pictures = [NormalizedImage(sha256=f"{i:064x}", mime="image/png", width=1, height=1, data=bytes([i]) * 50)
                for i in range(4)]
    reads = []
    source = ImageSource(lambda wanted: reads.extend(wanted) or {p.sha256: p.data for p in pictures
                                                                 if p.sha256 in wanted}, ahead=1)
    reqs = {f"k{i}": LLMRequest(model="openai/m", messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": source.ref(p.sha256, p.mime)}}]}]) for i, p in enumerate(pictures)}
    files = batch_files(reqs, "m", max_requests=2)
    keys, content = next(files)
    # The third line is made before the first file is closed; the fourth picture is not read yet.
    assert keys == ["k0", "k1"] and reads == [p.sha256 for p in pictures[:3]]
    urls = [json.loads(line)["body"]["messages"][0]["content"][0]["image_url"]["url"] for line in content.splitlines()]
    assert urls == [data_url(p) for p in pictures[:2]]
    assert [keys for keys, _ in files] == [["k2", "k3"]] and len(reads) == 4
