"""Benchmark: LLM-layer throughput against the loopback server, achieved ÷ ideal.

2,000 distinct calls through LLMRunner (cache, litellm, HTTP, redaction, journal) to a server that
answers every request after 50 ms, 64 at a time. ideal = calls × latency ÷ concurrency; the target
is achieved ÷ ideal ≥ 0.8. Also reported: the client's CPU time per call (the event loop is one
thread, so 1 ÷ CPU-per-call is the ceiling in calls/s), the same run at 500 ms latency (closer to real
models), and, when the target is missed, a cProfile of a shorter run grouped by library.

    .venv/bin/python bench/llm_throughput.py [--calls 2000] [--latency 0.05] [--concurrency 64]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from _common import ROOT, emit, loopback_server

MODEL = "openai/bench-model"
TARGET = 0.8


def _requests(base_url: str, calls: int, tag: str):
    from benchwright.llm import LLMRequest

    return [LLMRequest(model=MODEL, messages=[{"role": "user", "content": f"{tag} question {i}"}], api_base=base_url)
            for i in range(calls)]


def run_once(base_url: str, calls: int, concurrency: int, profile: cProfile.Profile | None = None) -> dict:
    from benchwright.llm import LLMRunner, ModelLimits

    with tempfile.TemporaryDirectory() as tmp:
        runner = LLMRunner(str(Path(tmp) / "llm.sqlite"), timeout_s=120, max_retries=0)
        runner.run(_requests(base_url, 1, "warm-up"))  # litellm's one-off first-call setup
        requests = _requests(base_url, calls, f"run-{time.monotonic_ns()}")
        cpu, started = time.process_time(), time.perf_counter()
        if profile:
            profile.enable()
        _, stats = runner.run(requests, limits={MODEL: ModelLimits(max_concurrency=concurrency)})
        if profile:
            profile.disable()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        runner.close()
    assert stats.errors == 0 and stats.api_calls == calls, stats
    return {"elapsed_s": elapsed, "cpu_ms_per_call": 1000 * cpu / calls}


# Libraries that are one layer for the reader of the profile.
_SAME_LAYER = {"httpcore": "httpx", "h11": "httpx", "anyio": "httpx", "sniffio": "httpx",
               "select": "asyncio", "selectors": "asyncio", "socket": "asyncio", "_asyncio": "asyncio"}


def _library(filename: str, function: str) -> str:
    """Which library a profiled function belongs to (its package; stdlib module; C built-ins by kind)."""
    if filename == "~":  # a C function, e.g. "<method 'execute' of 'sqlite3.Connection' objects>"
        if "sqlite3" in function:
            return "sqlite3 (response cache)"
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
    run_once(base_url, calls, concurrency, profile)
    stats = pstats.Stats(profile).stats  # (file, line, function) -> (cc, nc, tottime, cumtime, callers)
    by_group: dict[str, float] = defaultdict(float)
    for (filename, _line, function), (_cc, _nc, tottime, _cum, callers) in stats.items():
        library = _library(filename, function)
        if library:
            by_group[library] += tottime
            continue
        for (caller_file, _, caller_function), caller_stats in callers.items():
            by_group[_library(caller_file, caller_function) or "built-ins"] += caller_stats[2]
    total = sum(by_group.values()) or 1.0
    return sorted(((group, seconds / total) for group, seconds in by_group.items()), key=lambda kv: -kv[1])


def measure(calls: int = 2000, latency_s: float = 0.05, concurrency: int = 64, slow_latency_s: float = 0.5) -> dict:
    with loopback_server(latency_s) as base_url:
        fast = run_once(base_url, calls, concurrency)
        # Below the target: say where the client's time goes (a shorter run; cProfile slows it down).
        below = calls * latency_s / concurrency / fast["elapsed_s"] < TARGET
        profile = profile_by_library(base_url, max(200, calls // 4), concurrency) if below else []
    with loopback_server(slow_latency_s) as base_url:
        slow = run_once(base_url, calls, concurrency)
    ideal, slow_ideal = calls * latency_s / concurrency, calls * slow_latency_s / concurrency
    ratio, slow_ratio = ideal / fast["elapsed_s"], slow_ideal / slow["elapsed_s"]
    ceiling = 1000 / fast["cpu_ms_per_call"]
    top = ", ".join(f"{group} {share:.0%}" for group, share in profile[:6]) or "not profiled (target met)"
    ours = sum(share for group, share in profile if group.endswith("(ours)"))
    top += f"; ours (benchwright/) {ours:.1%}" if profile else ""
    summary = (f"{calls} calls, {latency_s * 1000:.0f} ms, concurrency {concurrency}: {fast['elapsed_s']:.2f} s vs ideal "
               f"{ideal:.2f} s, achieved/ideal {ratio:.2f} (target {TARGET}); client CPU {fast['cpu_ms_per_call']:.2f} ms "
               f"per call, ceiling ~{ceiling:.0f} calls/s; at {slow_latency_s * 1000:.0f} ms: achieved/ideal "
               f"{slow_ratio:.2f}. Client time by library (cProfile): {top}")
    return {"summary": summary, "ratio": ratio, "ratio_slow": slow_ratio, "elapsed_s": fast["elapsed_s"],
            "ideal_s": ideal, "cpu_ms_per_call": fast["cpu_ms_per_call"], "profile": profile}


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
