"""Provider batch APIs, the parts that need no network: the JSONL file sent and the result lines read back.

The runner (`LLMRunner._call_batch`) journals the batch, uploads the file, creates the batch, polls it and
lands each line in the response cache. Lines follow OpenAI's batch format, which litellm speaks for OpenAI and
OpenAI-compatible servers: one request per line, ``custom_id`` = the request's cache key.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import AsyncIterator, Iterator

from benchwright.llm.request import _NOT_IN_KEY, LLMRequest, sendable

ENDPOINT = "/v1/chat/completions"
# OpenAI's limits on one batch's input file: 50,000 requests and 200 MB (a little kept in hand).
MAX_REQUESTS = 50_000
MAX_BYTES = 190 * 1024 * 1024
# A batch in one of these states will not change again: its files hold everything it will ever answer.
FINAL_STATUSES = frozenset({"completed", "expired", "failed", "cancelled"})
# The metadata key of the tag each batch carries (the journal's id for it until the provider's id is known).
TAG_KEY = "benchwright_batch"
# Lock files, one per model and endpoint, in this folder beside the cache.
LOCK_FOLDER = "batch-locks"


@contextlib.asynccontextmanager
async def batch_lock(folder: str | Path, model: str, api_base: str) -> AsyncIterator[None]:
    """Held by one process (and one run) at a time per model and endpoint: from the look at the journal's open
    batches to the new batch's journal row, so two runs with the same misses do not both create a batch. An
    flock on a file: the system frees it when its process dies, so a killed run never keeps it."""
    folder = Path(folder) / LOCK_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(f"{model}\n{api_base}".encode()).hexdigest()[:24]
    with open(folder / f"{name}.lock", "a+b") as handle:
        await asyncio.to_thread(fcntl.flock, handle.fileno(), fcntl.LOCK_EX)  # waiting must not stall the loop
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def batch_files(requests: dict[str, LLMRequest], model_name: str, max_requests: int = MAX_REQUESTS,
                max_bytes: int = MAX_BYTES) -> Iterator[tuple[list[str], bytes]]:
    """The JSONL files of the batches these requests need, each with its keys: one chat completions request
    per line, ``custom_id`` its cache key, as many lines per file as the provider's limits allow (a single
    line over the byte limit still goes, alone, for the provider to refuse). `model_name` is the provider's
    name for the model (without litellm's "openai/" prefix); credentials and endpoints stay out. Made one file
    at a time, as it is sent: the pictures the lines carry are read then, and one file's are held, not all."""
    keys: list[str] = []
    lines: list[bytes] = []
    size = 0
    for key, req in requests.items():
        params = {k: v for k, v in req.params.items() if k not in _NOT_IN_KEY}
        body = {**params, "model": model_name, "messages": sendable(req.messages)}
        line = (json.dumps({"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body},
                           ensure_ascii=False) + "\n").encode("utf-8")
        if lines and (len(lines) >= max_requests or size + len(line) > max_bytes):
            yield keys, b"".join(lines)
            keys, lines, size = [], [], 0
        keys.append(key)
        lines.append(line)
        size += len(line)
    if lines:
        yield keys, b"".join(lines)


@dataclass(frozen=True)
class BatchLine:
    """One line of a batch's output or error file: the completion body, or why there is none."""

    key: str
    body: dict | None
    error: str | None


def result_lines(content: bytes) -> list[BatchLine]:
    """The lines of an output or error file. A line that is not JSON or names no request is skipped: it
    cannot be matched to a request, which is then reported as missing from the batch."""
    found = []
    for raw in content.decode("utf-8", errors="replace").splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(line, dict) or not isinstance(line.get("custom_id"), str):
            continue
        response = line.get("response") if isinstance(line.get("response"), dict) else {}
        status, body = response.get("status_code"), response.get("body")
        if line.get("error"):  # the request never reached the model (OpenAI: {"code", "message"})
            found.append(BatchLine(line["custom_id"], None, f"batch line error: {_message(line['error'])}"))
        elif status != 200:
            found.append(BatchLine(line["custom_id"], None, f"batch line status {status}: {_message(body)}"))
        elif not isinstance(body, dict):
            found.append(BatchLine(line["custom_id"], None, "batch line has no response body"))
        else:
            found.append(BatchLine(line["custom_id"], body, None))
    return found


def _message(error: object) -> str:
    """The readable part of an error object ({"error": {"message": ...}} or {"code", "message"})."""
    if isinstance(error, dict):
        inner = error.get("error") if isinstance(error.get("error"), dict) else error
        parts = [str(inner[k]) for k in ("code", "message") if inner.get(k)]
        if parts:
            return ": ".join(parts)
    return json.dumps(error, ensure_ascii=False)[:500]
