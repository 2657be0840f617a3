"""Provider batch APIs, the parts that need no network: the JSONL file sent and the result lines read back.

The runner (`LLMRunner._call_batch`) uploads the file, creates the batch, journals it, polls it and lands
each line in the response cache. Lines follow OpenAI's batch format, which litellm speaks for OpenAI and
OpenAI-compatible servers: one request per line, ``custom_id`` = the request's cache key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from benchwright.llm.request import _NOT_IN_KEY, LLMRequest

ENDPOINT = "/v1/chat/completions"
# A batch in one of these states will not change again: its files hold everything it will ever answer.
FINAL_STATUSES = frozenset({"completed", "expired", "failed", "cancelled"})


def batch_file(requests: dict[str, LLMRequest], model_name: str) -> bytes:
    """The JSONL of a batch: one chat completions request per cache key. `model_name` is the provider's
    name for the model (without litellm's "openai/" prefix); credentials and endpoints stay out."""
    lines = []
    for key, req in requests.items():
        params = {k: v for k, v in req.params.items() if k not in _NOT_IN_KEY}
        body = {**params, "model": model_name, "messages": req.messages}
        lines.append(json.dumps({"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body},
                                ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8")


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
