"""Benchmark: what the LLM client costs per call, and achieved ÷ ideal throughput, loopback server.

Calls go through LLMRunner (cache, litellm, HTTP, redaction, journal) to the loopback OpenAI-compatible
server (its own process), which answers each request after a fixed latency. ideal = calls × latency ÷
calls in flight. Each figure is taken in a fresh process, in this run:

- client CPU per call at 50 ms × 64 in flight, every call in one process (process CPU time ÷ calls; target
  ≤ 2.5 ms): the event loop is one thread, so 1 ÷ CPU-per-call is one process's ceiling in calls/s;
- achieved ÷ ideal at 500 ms × 64 (closer to real models; target ≥ 0.95), every call in one process and as
  shipped (`BENCHWRIGHT_CALL_HELPER=auto`: a helper process takes part of the attempts once the run's process is
  busy, benchwright/llm/call_helper.py), and a bare aiohttp client on the same server: the ceiling of the server
  and of a client that does nothing but HTTP;
- the same at 50 ms × 64, where the client's CPU is the limit: one process, as shipped, and 64 in flight spread
  by hand over 2 processes × 32 (each its own LLMRunner, one shared cache file);
- when a target is missed, a cProfile of a shorter single-process run grouped by library.

The answers hold fewer than 7 digits, so the PII redaction's phone-number search (it only looks at
texts with 7 or more) is not part of the figure; a digit-heavy answer adds that search's cost.

    .venv/bin/python bench/llm_throughput.py [--calls 2000] [--latency 0.05] [--concurrency 64]
"""

from __future__ import annotations

import argparse
import cProfile
import multiprocessing as mp
import os
import pstats
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from _common import ROOT, emit, in_fresh_process, loopback_server

MODEL = "openai/bench-model"
CPU_TARGET_MS = 2.5
SLOW_TARGET = 0.95
PROCESSES = 2


def _requests(base_url: str, calls: int, tag: str):
    from benchwright.llm import LLMRequest

    return [LLMRequest(model=MODEL, messages=[{"role": "user", "content": f"{tag} question {i}"}], api_base=base_url)
            for i in range(calls)]


def run_once(base_url: str, calls: int, concurrency: int, cache_path: str, tag: str = "run",
             profile: cProfile.Profile | None = None, start_together=None) -> dict:
    """One runner, one event loop: ``calls`` distinct requests, ``concurrency`` in flight.

    With ``start_together`` (a barrier shared with the other processes), the clock starts when every
    process is warm, so process start-up and litellm's import are not timed.
    """
    from benchwright.llm import LLMRunner, ModelLimits
    from benchwright.llm.providers import ProviderLimits

    runner = LLMRunner(cache_path, timeout_s=120, max_retries=0,
                       # the model's concurrency is what is measured: the provider allows as many
                       provider_limits={"openai": ProviderLimits(max_in_flight=concurrency)})
    runner.run(_requests(base_url, 1, f"warm-up {tag}"))  # litellm's one-off first-call setup
    requests = _requests(base_url, calls, tag)
    if start_together is not None:
        start_together.wait()
    cpu, started = time.process_time(), time.monotonic()
    if profile:
        profile.enable()
    _, stats = runner.run(requests, limits={MODEL: ModelLimits(max_concurrency=concurrency)})
    if profile:
        profile.disable()
    ended, cpu = time.monotonic(), time.process_time() - cpu
    runner.close()
    assert stats.errors == 0 and stats.api_calls == calls, stats
    return {"started": started, "ended": ended, "elapsed_s": ended - started, "cpu_s": cpu,
            "cpu_ms_per_call": 1000 * cpu / calls}


def _worker(base_url, calls, concurrency, cache_path, tag, start_together, results) -> None:
    results.put(run_once(base_url, calls, concurrency, cache_path, tag, start_together=start_together))


def run_processes(base_url: str, calls: int, concurrency: int, processes: int, cache_path: str) -> dict:
    """``calls`` split over ``processes`` processes, ``concurrency`` in flight in all (each its share)."""
    ctx = mp.get_context("spawn")
    start_together, results = ctx.Barrier(processes), ctx.Queue()
    workers = [ctx.Process(target=_worker, args=(base_url, calls // processes, concurrency // processes,
                                                 cache_path, f"process {p}", start_together, results))
               for p in range(processes)]
    for worker in workers:
        worker.start()
    parts = [results.get(timeout=600) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    elapsed = max(p["ended"] for p in parts) - min(p["started"] for p in parts)
    cpu = sum(p["cpu_s"] for p in parts)
    return {"elapsed_s": elapsed, "cpu_ms_per_call": 1000 * cpu / (calls // processes * processes)}


# Libraries that are one layer for the reader of the profile.
_SAME_LAYER = {"httpcore": "httpx", "h11": "httpx", "anyio": "httpx", "sniffio": "httpx",
               "select": "asyncio", "selectors": "asyncio", "socket": "asyncio", "_asyncio": "asyncio"}


def _library(filename: str, function: str) -> str:
    """Which library a profiled function belongs to (its package; stdlib module; C built-ins by kind)."""
    if filename == "~":  # a C function, e.g. "<method 'execute' of 'sqlite3.Connection' objects>"
        if "sqlite3" in function:
            return "sqlite3 (response cache)"
        if "poll' of 'select" in function:
            return "idle"  # the event loop waiting for the network: not the client's work
        if any(name in function for name in ("select", "socket", "_asyncio")):
            return "asyncio"
        return ""  # other built-ins (str, dict, re ...) count for the library that called them
    if "site-packages/" in filename:
        name = filename.split("site-packages/")[1].split("/")[0].removesuffix(".py")
    elif filename.startswith(str(ROOT)):
        return Path(filename).relative_to(ROOT).parts[0] + " (ours)"
    elif "/lib/python3" in filename:
        name = filename.split("/lib/python3")[1].split("/")[1].removesuffix(".py")
    else:
        return "stdlib (frozen)"
    return _SAME_LAYER.get(name, name)


def profile_by_library(base_url: str, calls: int, concurrency: int) -> list[tuple[str, float]]:
    """Share of the client's own (tottime) time per library, from cProfile."""
    profile = cProfile.Profile()
    with tempfile.TemporaryDirectory() as tmp:
        run_once(base_url, calls, concurrency, str(Path(tmp) / "llm.sqlite"), profile=profile)
    stats = pstats.Stats(profile).stats  # (file, line, function) -> (cc, nc, tottime, cumtime, callers)
    by_group: dict[str, float] = defaultdict(float)
    for (filename, _line, function), (_cc, _nc, tottime, _cum, callers) in stats.items():
        library = _library(filename, function)
        if library == "idle":
            continue
        if library:
            by_group[library] += tottime
            continue
        for (caller_file, _, caller_function), caller_stats in callers.items():
            by_group[_library(caller_file, caller_function) or "built-ins"] += caller_stats[2]
    total = sum(by_group.values()) or 1.0
    return sorted(((group, seconds / total) for group, seconds in by_group.items()), key=lambda kv: -kv[1])


def _in_process(base_url, calls, concurrency, cache_path, helper_mode, results) -> None:
    """`run_once` in a fresh process with the call helper `helper_mode`; how many attempts the helper settled."""
    os.environ["BENCHWRIGHT_CALL_HELPER"] = helper_mode
    outcome = run_once(base_url, calls, concurrency, cache_path, tag=helper_mode)
    from benchwright.llm import call_helper

    helper = call_helper.current()
    results.put({**outcome, "in_helper": helper.settled if helper else 0})


def _bare_aiohttp(base_url, calls, concurrency, results) -> None:
    """The reference client: aiohttp posting the same requests, reading the JSON, nothing else."""
    import asyncio

    import aiohttp

    async def go(count: int, tag: str) -> None:
        gate = asyncio.Semaphore(concurrency)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
            async def one(i: int) -> None:
                async with gate:
                    body = {"model": "bench-model", "messages": [{"role": "user", "content": f"{tag} question {i}"}]}
                    async with session.post(f"{base_url}/chat/completions", json=body) as response:
                        await response.json()

            await asyncio.gather(*(one(i) for i in range(count)))

    asyncio.run(go(concurrency, "warm-up"))
    started = time.monotonic()
    asyncio.run(go(calls, "bare"))
    results.put({"elapsed_s": time.monotonic() - started})


def measure(calls: int = 2000, latency_s: float = 0.05, concurrency: int = 64, slow_latency_s: float = 0.5) -> dict:
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        with loopback_server(slow_latency_s) as base_url:
            for name in ("off", "auto"):
                runs[f"slow {name}"] = in_fresh_process(_in_process, base_url, calls, concurrency,
                                                         str(Path(tmp) / f"slow-{name}.sqlite"), name)
            runs["slow bare"] = in_fresh_process(_bare_aiohttp, base_url, calls, concurrency)
        with loopback_server(latency_s) as base_url:
            for name in ("off", "auto"):
                runs[f"fast {name}"] = in_fresh_process(_in_process, base_url, calls, concurrency,
                                                         str(Path(tmp) / f"fast-{name}.sqlite"), name)
            spread = run_processes(base_url, calls, concurrency, PROCESSES, str(Path(tmp) / "spread.sqlite"))
            fast = runs["fast off"]
            # A target missed: say where the client's time goes (a shorter run, at the latency where the
            # client is busiest; cProfile slows it down).
            missed = (fast["cpu_ms_per_call"] > CPU_TARGET_MS
                      or calls * slow_latency_s / concurrency / runs["slow auto"]["elapsed_s"] < SLOW_TARGET)
            os.environ["BENCHWRIGHT_CALL_HELPER"] = "off"  # the profile is of one process's own work
            profile = profile_by_library(base_url, max(200, calls // 4), concurrency) if missed else []
    ideal, slow_ideal = calls * latency_s / concurrency, calls * slow_latency_s / concurrency
    ratios = {name: (slow_ideal if name.startswith("slow") else ideal) / run["elapsed_s"] for name, run in runs.items()}
    spread_ratio = ideal / spread["elapsed_s"]
    top = ", ".join(f"{group} {share:.0%}" for group, share in profile[:6]) or "not profiled (targets met)"
    ours = sum(share for group, share in profile if group.endswith("(ours)"))
    top += f"; ours (benchwright/) {ours:.1%}" if profile else ""
    summary = (f"{calls} calls. Client CPU {fast['cpu_ms_per_call']:.2f} ms per call in one process (target "
               f"{CPU_TARGET_MS}), ceiling ~{1000 / fast['cpu_ms_per_call']:.0f} calls/s per process; "
               f"{slow_latency_s * 1000:.0f} ms x {concurrency} (ideal {slow_ideal:.2f} s), achieved/ideal: one process "
               f"{ratios['slow off']:.3f}, as shipped {ratios['slow auto']:.3f} (target {SLOW_TARGET}; "
               f"{runs['slow auto']['in_helper']} attempts in the call helper), bare aiohttp on the same server "
               f"{ratios['slow bare']:.3f} (the server's and a bare client's ceiling); {latency_s * 1000:.0f} ms x "
               f"{concurrency} (ideal {ideal:.2f} s): one process {fast['elapsed_s']:.2f} s ({ratios['fast off']:.2f}), "
               f"as shipped {runs['fast auto']['elapsed_s']:.2f} s ({ratios['fast auto']:.2f}; "
               f"{runs['fast auto']['in_helper']} attempts in the call helper), by hand over {PROCESSES} processes x "
               f"{concurrency // PROCESSES} {spread['elapsed_s']:.2f} s ({spread_ratio:.2f}, "
               f"{spread['cpu_ms_per_call']:.2f} ms CPU per call). Client time by library (cProfile, one process): {top}")
    return {"summary": summary, "cpu_ms_per_call": fast["cpu_ms_per_call"], "ratio_slow": ratios["slow auto"],
            "ratio_slow_one_process": ratios["slow off"], "ratio_slow_bare": ratios["slow bare"],
            "ratio": ratios["fast off"], "ratio_helper": ratios["fast auto"], "ratio_processes": spread_ratio,
            "elapsed_s": fast["elapsed_s"], "ideal_s": ideal, "elapsed_helper_s": runs["fast auto"]["elapsed_s"],
            "elapsed_processes_s": spread["elapsed_s"], "cpu_ms_per_call_processes": spread["cpu_ms_per_call"],
            "processes": PROCESSES, "profile": profile}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    result = measure(args.calls, args.latency, args.concurrency)
    for group, share in result["profile"][:12]:
        print(f"  {share:6.1%}  {group}")
    emit("LLM throughput", **result)


if __name__ == "__main__":
    main()
