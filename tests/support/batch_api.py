"""The OpenAI batch API, in memory, for the loopback server in ``openai_server.py``.

    POST /v1/files                 multipart upload (purpose "batch"): the JSONL of requests
    POST /v1/batches               a batch over an uploaded file, with its ``metadata`` (string keys and values)
    GET  /v1/batches               the batches, newest first, a page at a time (``limit``, ``after``), as OpenAI
    GET  /v1/batches/{id}          its status; the batch finishes on the ``polls_to_finish``-th look
    GET  /v1/files/{id}/content    an uploaded file, or a finished batch's output or error file

When a batch finishes, each line is answered as its chat completion would be (the server's ``reply``),
except the lines ``fail`` picks (a 400 line in the error file) and, for an ``outcome`` of "expired",
"failed" or "cancelled", the lines after the first ``done_lines`` (never answered, in no file).
``poll_error`` makes every look at a batch (or the list) fail with that HTTP status, ``list_error`` the list only. ``create_delay_s`` holds the
answer to a create that long after the batch is made (a client killed meanwhile never learns its id).
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Callable

OUTCOMES = ("completed", "expired", "failed", "cancelled")


@dataclass
class BatchOptions:
    polls_to_finish: int = 2  # GETs of a batch before it is finished (the first ones say "in_progress")
    outcome: str = "completed"
    done_lines: int | None = None  # with an outcome other than "completed": how many lines were answered
    fail: Callable[[dict], bool] | None = None  # a line (its JSON) that ends in the error file
    poll_error: int | None = None  # every GET of a batch answers this HTTP status (401 echoes the key)
    create_delay_s: float = 0.0  # the answer to a create comes this long after the batch is made
    list_error: int | None = None  # the list of batches answers this HTTP status (a provider that has none: 404)

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"unknown batch outcome {self.outcome!r}")


@dataclass
class _Batch:
    id: str
    input_file_id: str
    created_at: int
    status: str = "validating"
    polls: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    metadata: dict | None = None
    counts: dict = field(default_factory=lambda: {"total": 0, "completed": 0, "failed": 0})


class BatchAPI:
    def __init__(self, options: BatchOptions, answer: Callable[[dict], dict]):
        self.options = options
        self.answer = answer  # a chat completions body -> the completion the server would return
        self.files: dict[str, tuple[str, bytes]] = {}  # id -> (purpose, content)
        self.batches: dict[str, _Batch] = {}
        self.lines_answered = 0  # lines that reached the output file, over all batches
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.stop = threading.Event()  # set by the server at shutdown: ends a held answer

    def handles(self, path: str) -> bool:
        return path.startswith("/v1/files") or path.startswith("/v1/batches")

    # Each handler returns (status, JSON-able body or raw bytes).
    def post(self, path: str, content_type: str, raw: bytes) -> tuple[int, object]:
        if path == "/v1/files":
            purpose, content = _multipart_upload(content_type, raw)
            if purpose != "batch":
                return 400, _error(f"purpose must be 'batch', not {purpose!r}")
            with self._lock:
                file_id = f"file-{next(self._ids)}"
                self.files[file_id] = (purpose, content)
            return 200, _file_object(file_id, purpose, content)
        if path == "/v1/batches":
            body = json.loads(raw or b"{}")
            if body.get("input_file_id") not in self.files or body.get("endpoint") != "/v1/chat/completions":
                return 400, _error("unknown input_file_id or endpoint")
            metadata = body.get("metadata")
            if metadata is not None and not (isinstance(metadata, dict) and len(metadata) <= 16 and all(
                    isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
                return 400, _error("metadata must be at most 16 string keys and values")
            with self._lock:
                batch = _Batch(id=f"batch_{next(self._ids)}", input_file_id=body["input_file_id"],
                               created_at=int(time.time()), metadata=metadata)
                batch.counts["total"] = len(_lines(self.files[batch.input_file_id][1]))
                self.batches[batch.id] = batch
            if self.options.create_delay_s:
                self.stop.wait(self.options.create_delay_s)
            return 200, _batch_object(batch)
        return 404, _error("not found")

    def inputs(self) -> list[list[dict]]:
        """The lines of every uploaded batch file, in upload order."""
        with self._lock:
            return [_lines(content) for purpose, content in self.files.values() if purpose == "batch"]

    def get(self, path: str, authorization: str = "") -> tuple[int, object]:
        url = urllib.parse.urlsplit(path)
        parts = url.path.strip("/").split("/")  # v1, batches  |  v1, batches, id  |  v1, files, id, content
        if self.options.poll_error and parts[1:2] == ["batches"]:
            presented = authorization.removeprefix("Bearer ")
            return self.options.poll_error, _error(f"error {self.options.poll_error}, key {presented} (test fault)")
        if parts == ["v1", "batches"]:
            if self.options.list_error:
                return self.options.list_error, _error(f"error {self.options.list_error} (test fault)")
            query = dict(urllib.parse.parse_qsl(url.query))
            with self._lock:
                newest_first = [_batch_object(batch) for batch in reversed(self.batches.values())]
            if query.get("after"):
                ids = [batch["id"] for batch in newest_first]
                newest_first = newest_first[ids.index(query["after"]) + 1:] if query["after"] in ids else []
            limit = min(int(query.get("limit") or 20), 100)
            page = newest_first[:limit]
            return 200, {"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                         "last_id": page[-1]["id"] if page else None, "has_more": len(newest_first) > limit}
        with self._lock:
            if len(parts) == 3 and parts[1] == "batches" and parts[2] in self.batches:
                batch = self.batches[parts[2]]
                batch.polls += 1
                if batch.status in ("validating", "in_progress"):
                    if batch.polls >= self.options.polls_to_finish:
                        self._finish(batch)
                    else:
                        batch.status = "in_progress"
                return 200, _batch_object(batch)
            if len(parts) == 4 and parts[1] == "files" and parts[3] == "content" and parts[2] in self.files:
                return 200, self.files[parts[2]][1]
        return 404, _error("not found")

    def _finish(self, batch: _Batch) -> None:
        opts = self.options
        output, errors = [], []
        for index, line in enumerate(_lines(self.files[batch.input_file_id][1])):
            if opts.outcome != "completed" and index >= (opts.done_lines or 0):
                continue  # never reached before the batch ended
            if opts.fail is not None and opts.fail(line):
                errors.append({"id": f"batch_req_{index}", "custom_id": line["custom_id"], "error": None,
                               "response": {"status_code": 400, "request_id": f"req_{index}",
                                            "body": _error("invalid request (test fault)")}})
                continue
            output.append({"id": f"batch_req_{index}", "custom_id": line["custom_id"], "error": None,
                           "response": {"status_code": 200, "request_id": f"req_{index}",
                                        "body": self.answer(line["body"])}})
        batch.output_file_id = self._store(output)
        batch.error_file_id = self._store(errors)
        batch.counts.update(completed=len(output), failed=len(errors))
        batch.status = opts.outcome
        self.lines_answered += len(output)

    def _store(self, lines: list[dict]) -> str | None:
        if not lines:
            return None  # as OpenAI: no file when there is nothing in it
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = ("batch_output", "".join(json.dumps(line) + "\n" for line in lines).encode())
        return file_id


def _lines(content: bytes) -> list[dict]:
    return [json.loads(line) for line in content.decode().splitlines() if line.strip()]


def _multipart_upload(content_type: str, raw: bytes) -> tuple[str, bytes]:
    """(purpose, file content) of a multipart/form-data upload."""
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    purpose, content = "", b""
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name == "purpose":
            purpose = part.get_content().strip()
        elif name == "file":
            content = part.get_payload(decode=True)
    return purpose, content


def _error(message: str) -> dict:
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}


def _file_object(file_id: str, purpose: str, content: bytes) -> dict:
    return {"id": file_id, "object": "file", "bytes": len(content), "created_at": int(time.time()),
            "filename": "batch.jsonl", "purpose": purpose, "status": "processed"}


def _batch_object(batch: _Batch) -> dict:
    return {"id": batch.id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": None,
            "input_file_id": batch.input_file_id, "completion_window": "24h", "status": batch.status,
            "output_file_id": batch.output_file_id, "error_file_id": batch.error_file_id,
            "created_at": batch.created_at, "request_counts": dict(batch.counts), "metadata": batch.metadata}
