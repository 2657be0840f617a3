"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for tests and benchmarks.

It answers POST /v1/chat/completions with a normal ``chat.completion`` body (with ``usage``), and can
inject faults in a deterministic order so tests can count requests exactly:

    with OpenAIServer(faults=["429", "500", None]) as srv:   # 1st request 429, 2nd 500, then normal
        ... srv.base_url ... srv.count() ...

Fault kinds: "429" (with Retry-After), "500", "400", "401" (its message echoes the presented key in
full, the worst a provider can do), "hang" (no answer until ``hang_s`` or shutdown), "malformed" (200
with a body that is not JSON), "truncated" (Content-Length larger than the body, then the connection
closes), "slow" (200 and headers at once, then the body in pieces ``slow_chunk_s`` apart: a slow
stream), "no_content" / "empty_content" (200 with ``"content": null`` / ``""`` and finish_reason
``content_filter``: a refusal). ``faults`` is consumed in arrival order; after it runs out, ``always`` (e.g. "500") applies
to every request, else ``fault_rate`` draws from ``fault_kinds`` with a seeded RNG. Sticky faults come first:
with ``sticky_rate``, that share of the distinct requests (chosen by a seeded hash of the model and messages, so
the same ones whatever the arrival order) get ``sticky_kind`` on every attempt, until ``sticky_rate`` is set to
0 (a request that fails for a whole run, whatever its retries). The server stops itself after
``max_lifetime_s`` so a stuck test cannot leave it running.

Requests with ``"stream": true`` are answered as server-sent events (``chat.completion.chunk`` objects,
one per word, ``stream_chunk_s`` apart, then ``data: [DONE]``), as OpenAI does.
Every ``Authorization`` header received is counted in ``authorizations``.
The batch API (files, batches, file content) is served by ``tests.support.batch_api``, set up by ``batch``
(a ``BatchOptions``); each line of a batch is answered as its chat completion would be.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from tests.support.batch_api import BatchAPI, BatchOptions

FAULT_KINDS = ("429", "500", "400", "401", "hang", "malformed", "truncated", "slow", "no_content",
               "empty_content")


def default_reply(body: dict) -> str:
    """Deterministic answer: echoes the last user text, so tests can tell requests apart."""
    text = ""
    for msg in body.get("messages") or []:
        if msg.get("role") != "user":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            text = content
        elif isinstance(content, list):
            text = " ".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return f"echo: {text}"


class _HTTPServer(ThreadingHTTPServer):
    # The listen backlog. The default of 5 drops most of a burst of concurrent connections (64 clients
    # starting at once): the kernel discards their SYNs, so they connect a second later or get reset.
    request_queue_size = 1024


class OpenAIServer:
    def __init__(
        self,
        latency_s: float = 0.0,
        faults: list[str | None] | None = None,
        always: str | None = None,
        fault_rate: float = 0.0,
        fault_kinds: tuple[str, ...] = ("429", "500"),
        seed: int = 0,
        retry_after: str | None = "1",
        hang_s: float = 30.0,
        max_lifetime_s: float = 60.0,
        reply: Callable[[dict], str] = default_reply,
        slow_chunk_s: float = 1.0,
        stream_chunk_s: float = 0.0,
        batch: BatchOptions | None = None,
        image_tokens: int | None = None,
        sticky_rate: float = 0.0,
        sticky_kind: str = "500",
    ):
        for kind in list(faults or []) + list(fault_kinds) + [always, sticky_kind]:
            if kind is not None and kind not in FAULT_KINDS:
                raise ValueError(f"unknown fault kind {kind!r}")
        self.latency_s = latency_s
        self.faults = list(faults or [])
        self.always = always
        self.fault_rate = fault_rate
        self.fault_kinds = fault_kinds
        self.sticky_rate = sticky_rate
        self.sticky_kind = sticky_kind
        self.seed = seed
        self.retry_after = retry_after
        self.hang_s = hang_s
        self.slow_chunk_s = slow_chunk_s
        self.stream_chunk_s = stream_chunk_s
        self.max_lifetime_s = max_lifetime_s
        self.reply = reply
        self.batch_api = BatchAPI(batch or BatchOptions(),
                                  answer=lambda body: _completion(str(body.get("model", "")), self.reply(body), body))
        # Prompt tokens: by default the JSON of the messages ÷ 4; with image_tokens, the text ÷ 4 plus this much
        # per picture, as providers bill a picture by its size and not by the length of its base64.
        self.image_tokens = image_tokens
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._stop = threading.Event()  # ends hangs and latency sleeps on shutdown
        self.total = 0
        self.by_path: Counter[str] = Counter()
        self.by_model: Counter[str] = Counter()
        self.faults_served: Counter[str] = Counter()
        self.authorizations: Counter[str] = Counter()  # Authorization header value -> requests
        self.in_flight = 0
        self.max_in_flight = 0
        self.in_flight_at_arrival: list[int] = []  # requests in flight, this one included, at each arrival
        self.bodies: list[dict] = []  # parsed request bodies, in arrival order
        self.arrivals: list[float] = []  # time.monotonic() of each request, in arrival order
        # (arrival, answer written) of each chat completion answered, in the order answered: the server's own lateness
        self.answered: list[tuple[float, float]] = []
        self.connections = 0  # TCP connections accepted (keep-alive reuses one for many requests)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> "OpenAIServer":
        handler = _make_handler(self)
        self._httpd = _HTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.max_lifetime_s, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.batch_api.stop.set()
        if self._timer is not None:
            self._timer.cancel()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def __enter__(self) -> "OpenAIServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """The api_base to give litellm / the OpenAI client."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- counters ----------------------------------------------------------------------------
    def count(self, path: str | None = None, model: str | None = None) -> int:
        with self._lock:
            if path is not None:
                return self.by_path[path]
            if model is not None:
                return self.by_model[model]
            return self.total

    def reset_counts(self) -> None:
        with self._lock:
            self.total = 0
            self.by_path.clear()
            self.by_model.clear()
            self.faults_served.clear()
            self.authorizations.clear()
            self.max_in_flight = self.in_flight
            self.bodies.clear()
            self.arrivals.clear()
            self.in_flight_at_arrival.clear()
            self.answered.clear()
            self.connections = 0

    def gaps(self) -> list[float]:
        """Seconds between consecutive request arrivals (client-side overheads do not blur these)."""
        with self._lock:
            return [b - a for a, b in zip(self.arrivals, self.arrivals[1:])]

    def is_sticky(self, body: dict) -> bool:
        """Whether this request fails on every attempt while ``sticky_rate`` is set."""
        if not self.sticky_rate:
            return False
        text = json.dumps([self.seed, body.get("model"), body.get("messages")], sort_keys=True)
        draw = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 2**32
        return draw < self.sticky_rate

    def _next_fault(self, body: dict | None = None) -> str | None:
        # Called under the lock, in arrival order, so the sequence is deterministic.
        if body is not None and self.is_sticky(body):
            return self.sticky_kind
        if self.faults:
            return self.faults.pop(0)
        if self.always:
            return self.always
        if self.fault_rate and self._rng.random() < self.fault_rate:
            return self._rng.choice(self.fault_kinds)
        return None


def _make_handler(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in separate writes; with Nagle's algorithm on, the body then waits
        # for the client's delayed ACK (~40 ms on Linux) on every keep-alive request.
        disable_nagle_algorithm = True

        def log_message(self, *args) -> None:  # keep test output quiet
            pass

        def setup(self) -> None:
            super().setup()
            with server._lock:
                server.connections += 1

        def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None, length: int | None = None):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload) if length is None else length))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()

        def _send_batch_api(self, status: int, body: object) -> None:
            if isinstance(body, bytes):  # a file's content
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
            else:
                self._send(status, json.dumps(body).encode())

        def _error(self, status: int, message: str, headers: dict[str, str] | None = None):
            body = {"error": {"message": message, "type": "test_fault", "code": str(status)}}
            self._send(status, json.dumps(body).encode(), headers)

        def do_GET(self) -> None:
            with server._lock:
                server.total += 1
                server.by_path[self.path] += 1
                server.arrivals.append(time.monotonic())
            if self.path == "/_answered":  # the benchmarks' look at the server's own lateness (`answered`)
                with server._lock:
                    report = {"answered": list(server.answered), "connections": server.connections}
                self._send(200, json.dumps(report).encode())
            elif self.path.rstrip("/").endswith("/models"):
                self._send(200, json.dumps({"object": "list", "data": []}).encode())
            elif server.batch_api.handles(self.path):
                self._send_batch_api(*server.batch_api.get(self.path, self.headers.get("Authorization", "")))
            else:
                self._error(404, "not found")

        def do_POST(self) -> None:
            arrived = time.monotonic()  # before the body is read: a large body must not make it look later
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if server.batch_api.handles(self.path):
                with server._lock:
                    server.total += 1
                    server.by_path[self.path] += 1
                    server.authorizations[self.headers.get("Authorization", "")] += 1
                self._send_batch_api(*server.batch_api.post(self.path, self.headers.get("Content-Type", ""), raw))
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            model = str(body.get("model", ""))
            with server._lock:
                server.total += 1
                server.by_path[self.path] += 1
                server.by_model[model] += 1
                server.authorizations[self.headers.get("Authorization", "")] += 1
                server.bodies.append(body)
                server.arrivals.append(arrived)
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
                server.in_flight_at_arrival.append(server.in_flight)
                fault = server._next_fault(body) if self.path.endswith("/chat/completions") else None
                if fault:
                    server.faults_served[fault] += 1
            try:
                self._answer(body, model, fault)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (e.g. its timeout); nothing to answer
            finally:
                done = time.monotonic()
                with server._lock:
                    server.in_flight -= 1
                    server.answered.append((arrived, done))

        def _answer(self, body: dict, model: str, fault: str | None) -> None:
            if not self.path.endswith("/chat/completions"):
                self._error(404, "not found")
                return
            if server.latency_s and server._stop.wait(server.latency_s):
                return  # shutting down
            if fault == "hang":
                server._stop.wait(server.hang_s)
                self.close_connection = True
                return
            if fault == "429":
                headers = {"Retry-After": server.retry_after} if server.retry_after is not None else {}
                self._error(429, "rate limited (test fault)", headers)
                return
            if fault == "401":
                presented = self.headers.get("Authorization", "").removeprefix("Bearer ")
                self._error(401, f"Incorrect API key provided: {presented} (test fault)")
                return
            if fault in ("500", "400"):
                self._error(int(fault), f"error {fault} (test fault)")
                return
            if fault == "malformed":
                self._send(200, b'{"id": "chatcmpl-x", "choices": [ this is not json')
                return
            if fault in ("no_content", "empty_content"):  # a refusal or content filter: 200 without text
                payload = _completion(model, "", body, server.image_tokens)
                content = None if fault == "no_content" else ""
                payload["choices"][0].update(message={"role": "assistant", "content": content},
                                             finish_reason="content_filter")
                self._send(200, json.dumps(payload).encode())
                return
            text = server.reply(body)
            if body.get("stream"):
                delay = server.slow_chunk_s if fault == "slow" else server.stream_chunk_s
                self._stream(_stream_events(model, text, body), delay)
                return
            payload = json.dumps(_completion(model, text, body, server.image_tokens)).encode()
            if fault == "truncated":
                self.close_connection = True
                self._send(200, payload[: len(payload) // 2], length=len(payload))
                return
            if fault == "slow":
                self._send_slowly(payload)
                return
            self._send(200, payload)

        def _send_slowly(self, payload: bytes, pieces: int = 4) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.flush()
            size = -(-len(payload) // pieces)
            for start in range(0, len(payload), size):
                if start and server._stop.wait(server.slow_chunk_s):
                    return
                self.wfile.write(payload[start : start + size])
                self.wfile.flush()

        def _stream(self, events: list[bytes], delay_s: float) -> None:
            # No Content-Length: the body ends when the connection closes (as with SSE over HTTP/1.1).
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for i, event in enumerate(events):
                if i and delay_s and server._stop.wait(delay_s):
                    return
                self.wfile.write(event)
                self.wfile.flush()

    return Handler


def _stream_events(model: str, text: str, body: dict) -> list[bytes]:
    """The answer as chat.completion.chunk server-sent events: role, one chunk per word, stop, usage."""
    created, ident = int(time.time()), f"chatcmpl-{time.monotonic_ns()}"

    def chunk(delta: dict, finish: str | None = None, usage: dict | None = None) -> bytes:
        obj = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}
        if usage is not None:
            obj["choices"], obj["usage"] = [], usage
        return f"data: {json.dumps(obj)}\n\n".encode()

    words = text.split(" ")
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": word if i == 0 else " " + word}) for i, word in enumerate(words)]
    events.append(chunk({}, finish="stop"))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append(chunk({}, usage=_completion(model, text, body)["usage"]))
    events.append(b"data: [DONE]\n\n")
    return events


def prompt_tokens(body: dict, image_tokens: int | None = None) -> int:
    """The prompt tokens the server reports for a request (see OpenAIServer's image_tokens)."""
    messages = body.get("messages", [])
    if image_tokens is None:
        return max(1, len(json.dumps(messages)) // 4)
    chars = pictures = 0
    for message in messages:
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for part in parts:
            if part.get("type") == "text":
                chars += len(part.get("text") or "")
            else:
                pictures += 1
    return max(1, chars // 4 + pictures * image_tokens)


def completion_tokens(text: str) -> int:
    return max(1, len(text.split()))


def _completion(model: str, text: str, body: dict, image_tokens: int | None = None) -> dict:
    tokens_in = prompt_tokens(body, image_tokens)
    tokens_out = completion_tokens(text)
    return {
        "id": f"chatcmpl-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop", "logprobs": None}
        ],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
    }
