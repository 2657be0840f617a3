"""Benchmark: what our LLM client costs above litellm, now and at an older commit, on the loopback server.

Clients send the same kind of chat-completion requests to the loopback server (its own process):

- litellm: ``litellm.acompletion`` (what our runner calls), nothing else;
- ours: ``LLMRunner.run`` (cache lookup, claims, provider leases, litellm, redaction, SQLite journal, statistics);
- ours at ``--before`` (default ``BEFORE``, one transaction per call for answers, claims and leases): the same
  runner as it was at that commit (``git archive`` into a temporary folder, imported in place of today's).

Each client runs in a fresh process of its own (spawned after the others, in an order that turns each round), with
64 calls in flight, twice: against a server that answers at once (CPU time of the process per call, all threads:
what one call costs the client; and calls/s), and against one that answers after 500 ms (achieved ÷ ideal, ideal =
calls × 0.5 s ÷ 64). Medians over the rounds; the ratios ours ÷ litellm are taken within this run. The answers keep
fewer than 7 digits, so the PII phone search (texts with 7 or more) stays out of every client.

    .venv/bin/python bench/llm_overhead.py [--calls 1500] [--slow-calls 2048] [--rounds 2] [--before 70a5e0f]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from io import BytesIO
from pathlib import Path

from _common import ROOT, emit, in_fresh_process, loopback_server

MODEL = "openai/bench-model"
CONCURRENCY = 64
SLOW_S = 0.5
BEFORE = "70a5e0f"  # the last commit writing each call's answer, claim and lease in transactions of their own
CPU_TARGET = 1.3  # ours ÷ litellm, CPU per call (issue #30)
SLOW_TARGET = 0.95  # achieved ÷ ideal at 500 ms × 64


def _messages(i: int, tag: str) -> list[dict]:
    return [{"role": "user", "content": f"{tag} question {i}"}]


def via_litellm(base_url: str, calls: int, concurrency: int) -> None:
    from benchwright.llm.litellm_setup import load_litellm as _litellm

    litellm = _litellm()

    async def go() -> None:
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with gate:
                response = await litellm.acompletion(model=MODEL, messages=_messages(i, "litellm"), api_base=base_url,
                                                     api_key="sk-noauth", num_retries=0, timeout=60)
                response.choices[0].message.content

        await asyncio.gather(*(one(i) for i in range(calls)))

    asyncio.run(go())  # a loop per batch of calls, as LLMRunner.run has


def ours(base_url: str, calls: int, concurrency: int, _state={}) -> None:
    from benchwright.llm import LLMRequest, LLMRunner, ModelLimits
    from benchwright.llm.providers import ProviderLimits

    if "runner" not in _state:  # one runner per process, on a fresh cache: the requests need no unique tag
        folder = tempfile.mkdtemp(prefix="benchwright-llm-overhead-")
        _state["runner"] = LLMRunner(str(Path(folder) / "llm.sqlite"), timeout_s=60, max_retries=0,
                                     provider_limits={"openai": ProviderLimits(max_in_flight=concurrency)})
        _state["batch"] = 0
    _state["batch"] += 1
    requests = [LLMRequest(model=MODEL, messages=_messages(i, f"ours {_state['batch']}"), api_base=base_url)
                for i in range(calls)]
    _, stats = _state["runner"].run(requests, limits={MODEL: ModelLimits(max_concurrency=concurrency)})
    assert stats.api_calls == calls and stats.errors == 0, stats


CLIENTS = {"litellm": via_litellm, "ours": ours, "ours before": ours}


def _scheduler_wait_s() -> float:
    """Seconds this process's threads were ready to run but waited for a core (Linux schedstat; 0 elsewhere): what the
    machine's other work took from the client."""
    total = 0
    for task in Path("/proc/self/task").glob("*"):
        try:
            total += int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return total / 1e9


def _child(client: str, code_root: str, base_url: str, calls: int, concurrency: int, results) -> None:
    """One client in a fresh process: warmed up (imports, litellm's first-call set-up), then measured."""
    sys.path.insert(0, code_root)  # before anything imports benchwright: today's or the older commit's
    import benchwright

    assert Path(benchwright.__file__).resolve().is_relative_to(Path(code_root).resolve()), benchwright.__file__
    fn = CLIENTS[client]
    fn(base_url, 2 * concurrency, concurrency)
    pauses: list[float] = []  # the garbage collector's passes: the event loop stands still during each

    def timed(phase: str, _info: dict, began: list[float] = [0.0]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            pauses.append(time.perf_counter() - began[0])

    gc.callbacks.append(timed)
    waited, monotonic = _scheduler_wait_s(), time.monotonic()
    cpu, started = time.process_time(), time.perf_counter()
    fn(base_url, calls, concurrency)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    gc.callbacks.remove(timed)
    results.put({"cpu_s": cpu, "wall_s": wall, "started": monotonic, "cpu_wait_s": _scheduler_wait_s() - waited,
                 "gc_s": sum(pauses), "gc_max_s": max(pauses, default=0.0)})


def _server_lateness(base_url: str, since: float, latency_s: float) -> dict:
    """How late the loopback server itself answered the requests that arrived since `since` (its answer written vs
    arrival + latency), and the TCP connections it accepted in all: a client is only measured against a server
    that keeps time."""
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/_answered", timeout=30) as response:
        report = json.load(response)
    late = sorted(done - arrived - latency_s for arrived, done in report["answered"] if arrived >= since)
    return {"server_late_p50_ms": 1000 * late[len(late) // 2], "server_late_p99_ms": 1000 * late[int(len(late) * 0.99)],
            "server_late_max_ms": 1000 * late[-1], "server_connections": report["connections"]}


def _measure(client: str, code_root: Path, base_url: str, calls: int) -> dict:
    return in_fresh_process(_child, client, str(code_root), base_url, calls, CONCURRENCY)


def _older_code(commit: str) -> Path:
    """The repository's benchwright/ at `commit`, extracted once into a temporary folder, with its pyproject.toml
    (the benchmarks' entries are read from it: benchwright/benchmarks.py)."""
    folder = Path(tempfile.gettempdir()) / f"benchwright-llm-overhead-code-{commit}"
    if not (folder / "benchwright" / "llm" / "runner.py").exists() or not (folder / "pyproject.toml").exists():
        archive = subprocess.run(["git", "archive", commit, "benchwright", "pyproject.toml"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder)
    return folder


def measure(calls: int = 1500, slow_calls: int = 2048, rounds: int = 2, before: str = BEFORE) -> dict:
    roots = {"litellm": ROOT, "ours": ROOT, "ours before": _older_code(before)}
    names = list(CLIENTS)
    fast: dict[str, list[dict]] = {name: [] for name in names}
    slow: dict[str, list[dict]] = {name: [] for name in names}
    with loopback_server(0.0, lifetime_s=7200) as fast_url, loopback_server(SLOW_S, lifetime_s=7200) as slow_url:
        for round_ in range(rounds):
            order = names[round_ % len(names):] + names[:round_ % len(names)]
            for name in order:
                fast[name].append(_measure(name, roots[name], fast_url, calls))
                print(f"  round {round_ + 1}, {name}: {1000 * fast[name][-1]['cpu_s'] / calls:.2f} ms CPU per call",
                      flush=True)
            for name in order:
                run = _measure(name, roots[name], slow_url, slow_calls)
                run.update(_server_lateness(slow_url, run["started"], SLOW_S), load=os.getloadavg()[0])
                slow[name].append(run)
                print(f"  round {round_ + 1}, {name}: {run['wall_s']:.2f} s at {SLOW_S * 1000:.0f} ms "
                      f"(achieved ÷ ideal {slow_calls * SLOW_S / CONCURRENCY / run['wall_s']:.3f}; waited for a core "
                      f"{run['cpu_wait_s']:.1f} s, CPU {run['cpu_s']:.1f} s; GC {run['gc_s']:.2f} s, longest "
                      f"{1000 * run['gc_max_s']:.0f} ms; server late p50 {run['server_late_p50_ms']:.1f} ms, p99 "
                      f"{run['server_late_p99_ms']:.1f} ms, {run['server_connections']} connections so far; "
                      f"load {run['load']:.1f})", flush=True)
    cpu_ms = {name: statistics.median(1000 * r["cpu_s"] / calls for r in fast[name]) for name in names}
    per_s = {name: statistics.median(calls / r["wall_s"] for r in fast[name]) for name in names}
    ideal = slow_calls * SLOW_S / CONCURRENCY
    achieved = {name: statistics.median(ideal / r["wall_s"] for r in slow[name]) for name in names}
    ratio, ratio_before = cpu_ms["ours"] / cpu_ms["litellm"], cpu_ms["ours before"] / cpu_ms["litellm"]
    waited = {name: statistics.median(r["cpu_wait_s"] / r["wall_s"] for r in slow[name]) for name in names}
    gc_max = {name: statistics.median(1000 * r["gc_max_s"] for r in slow[name]) for name in names}
    server_late = statistics.median(r["server_late_p99_ms"] for runs in slow.values() for r in runs)
    loads = [r["load"] for runs in slow.values() for r in runs]

    def verdict(value: float, target: float, below: bool) -> str:
        return "met" if (value <= target if below else value >= target) else "missed"

    summary = (f"CPU per call, {CONCURRENCY} in flight, {calls} calls, median of {rounds}: "
               f"litellm {cpu_ms['litellm']:.2f} ms, ours {cpu_ms['ours']:.2f}, ours at "
               f"{before} {cpu_ms['ours before']:.2f}: ours ÷ litellm {ratio:.2f} (target ≤ {CPU_TARGET}: "
               f"{verdict(ratio, CPU_TARGET, True)}; at {before} {ratio_before:.2f}); calls/s: "
               + ", ".join(f"{name} {per_s[name]:.0f}" for name in names)
               + f". {SLOW_S * 1000:.0f} ms x {CONCURRENCY}, {slow_calls} calls (ideal {ideal:.2f} s), achieved ÷ "
               f"ideal: litellm {achieved['litellm']:.2f}, ours "
               f"{achieved['ours']:.2f} (target ≥ {SLOW_TARGET}: {verdict(achieved['ours'], SLOW_TARGET, False)}), "
               f"ours at {before} {achieved['ours before']:.2f}; time waiting for a core ÷ wall: "
               + ", ".join(f"{name} {waited[name]:.2f}" for name in names)
               + "; longest GC pause (ms): " + ", ".join(f"{name} {gc_max[name]:.0f}" for name in names)
               + f"; the server's own lateness p99 {server_late:.1f} ms (median of the runs); load "
               f"{min(loads):.1f}–{max(loads):.1f}")
    return {"summary": summary, "cpu_ms_per_call": cpu_ms, "calls_per_s": per_s, "achieved_over_ideal": achieved,
            "ours_over_litellm": ratio, "ours_over_litellm_before": ratio_before, "before": before,
            "waited_over_wall": waited,
            "gc_max_ms": gc_max, "server_late_p99_ms": server_late, "rounds": {"fast": fast, "slow": slow}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=1500)
    parser.add_argument("--slow-calls", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--before", default=BEFORE)
    args = parser.parse_args()
    emit("LLM per-call overhead", **measure(args.calls, args.slow_calls, args.rounds, args.before))


if __name__ == "__main__":
    main()
