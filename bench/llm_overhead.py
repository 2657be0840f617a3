"""Benchmark: per-call overhead of our LLM stack vs a bare async HTTP client, zero-latency server.

Three clients send the same chat-completion requests to the loopback server (answers at once):

- bare: ``httpx.AsyncClient.post`` of the JSON body, response parsed with ``json.loads``;
- litellm: ``litellm.acompletion`` (what our runner calls);
- ours: ``LLMRunner.run`` (cache lookup, litellm, redaction, SQLite journal, statistics).

Each is measured one call at a time (milliseconds per call: the overhead a single call pays) and with
64 calls in flight (calls per second: what the client sustains). Ratios are within this run.

    .venv/bin/python bench/llm_overhead.py [--calls 300] [--concurrent-calls 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from _common import emit, loopback_server

MODEL = "openai/bench-model"
CONCURRENCY = 64


def _messages(i: int, tag: str) -> list[dict]:
    return [{"role": "user", "content": f"{tag} question {i}"}]


def bare(base_url: str, calls: int, concurrency: int) -> float:
    import httpx

    async def go() -> float:
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60,
                                     headers={"Authorization": "Bearer sk-noauth"}) as client:
            gate = asyncio.Semaphore(concurrency)

            async def one(i: int) -> None:
                async with gate:
                    response = await client.post("/chat/completions",
                                                 json={"model": "bench-model", "messages": _messages(i, "bare")})
                    response.raise_for_status()
                    json.loads(response.content)["choices"][0]["message"]["content"]

            await one(-1)  # connect once before the clock starts
            started = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(calls)))
            return time.perf_counter() - started

    return asyncio.run(go())


def via_litellm(base_url: str, calls: int, concurrency: int) -> float:
    from benchwright.llm.runner import _litellm

    litellm = _litellm()

    async def go() -> float:
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with gate:
                response = await litellm.acompletion(model=MODEL, messages=_messages(i, "litellm"), api_base=base_url,
                                                     api_key="sk-noauth", num_retries=0, timeout=60)
                response.choices[0].message.content

        await one(-1)
        started = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(calls)))
        return time.perf_counter() - started

    return asyncio.run(go())


def ours(base_url: str, calls: int, concurrency: int) -> float:
    from benchwright.llm import LLMRequest, LLMRunner, ModelLimits
    from benchwright.llm.providers import ProviderLimits

    # A fresh cache, so the requests need no unique tag; the answers keep fewer than 7 digits, as the bare
    # and litellm clients' do, so the PII phone search (texts with 7 or more digits) stays out of all three.
    tag = "ours"
    with tempfile.TemporaryDirectory() as tmp:
        runner = LLMRunner(str(Path(tmp) / "llm.sqlite"), timeout_s=60, max_retries=0,
                           provider_limits={"openai": ProviderLimits(max_in_flight=concurrency)})
        runner.run([LLMRequest(model=MODEL, messages=_messages(-1, tag), api_base=base_url)])
        requests = [LLMRequest(model=MODEL, messages=_messages(i, tag), api_base=base_url) for i in range(calls)]
        started = time.perf_counter()
        _, stats = runner.run(requests, limits={MODEL: ModelLimits(max_concurrency=concurrency)})
        elapsed = time.perf_counter() - started
        runner.close()
    assert stats.api_calls == calls and stats.errors == 0, stats
    return elapsed


def measure(calls: int = 300, concurrent_calls: int = 1000) -> dict:
    clients = {"bare httpx": bare, "litellm": via_litellm, "ours": ours}
    with loopback_server(0.0) as base_url:
        sequential = {name: 1000 * fn(base_url, calls, 1) / calls for name, fn in clients.items()}
        concurrent = {name: concurrent_calls / fn(base_url, concurrent_calls, CONCURRENCY) for name, fn in clients.items()}
    summary = (f"one at a time: bare httpx {sequential['bare httpx']:.2f} ms/call, litellm {sequential['litellm']:.2f}, "
               f"ours {sequential['ours']:.2f} (ours − bare = {sequential['ours'] - sequential['bare httpx']:.2f} ms, "
               f"of which litellm {sequential['litellm'] - sequential['bare httpx']:.2f}); {CONCURRENCY} in flight: "
               f"bare {concurrent['bare httpx']:.0f} calls/s, litellm {concurrent['litellm']:.0f}, ours "
               f"{concurrent['ours']:.0f} (ours ÷ bare {concurrent['ours'] / concurrent['bare httpx']:.2f})")
    return {"summary": summary, "ms_per_call": sequential, "calls_per_s": concurrent}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--concurrent-calls", type=int, default=1000)
    args = parser.parse_args()
    emit("LLM per-call overhead", **measure(args.calls, args.concurrent_calls))


if __name__ == "__main__":
    main()
