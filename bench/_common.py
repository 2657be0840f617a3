"""Shared by the benchmarks: the loopback server in its own process, the machine, the result line,
the split of a graph run by the Dagster event log, peak memory, a measurement in a fresh process.

The fault server (tests/support/openai_server.py) runs in a separate process so that its CPU time
does not compete with the client's event loop for the GIL: what is measured is the client.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import platform
import resource
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Benchmarks build their own temporary homes; a user's configured warehouse must not receive their rows.
os.environ.pop("BENCHWRIGHT_WAREHOUSE", None)

RESULT_PREFIX = "RESULT "


def simulated_reply(body: dict) -> str:
    """A loopback server's answer as the simulator would write it for the requested model (judges' verdicts
    parse), for `loopback_server(reply=simulated_reply)`."""
    from benchwright.simulate import complete

    return complete(f"sim/{body['model']}", body["messages"], {"skill": 0.8}, 0).text


def _serve(queue, latency_s: float, lifetime_s: float, reply=None) -> None:
    from tests.support.openai_server import OpenAIServer, default_reply

    srv = OpenAIServer(latency_s=latency_s, max_lifetime_s=lifetime_s, reply=reply or default_reply).start()
    queue.put(srv.base_url)
    time.sleep(lifetime_s)


@contextmanager
def loopback_server(latency_s: float, lifetime_s: float = 600, reply=None):
    """The OpenAI-compatible test server in a child process; yields its base URL. `reply` (a function of the
    request body, importable by the child) writes the answers; default: the server's own."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    process = ctx.Process(target=_serve, args=(queue, latency_s, lifetime_s, reply), daemon=True)
    process.start()
    try:
        yield queue.get(timeout=60)
    finally:
        process.terminate()
        process.join(timeout=10)


def machine() -> str:
    mem_gib = 0.0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gib = int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{os.cpu_count()} cores, {mem_gib:.0f} GiB, Python {platform.python_version()}, "
            f"load {load:.1f} at start")


def emit(name: str, summary: str, **numbers) -> None:
    """Print the human summary and one machine-readable line that bench/run_all.py collects."""
    print(f"{name}: {summary}")
    print(RESULT_PREFIX + json.dumps({"benchmark": name, "summary": summary, **numbers}), flush=True)


def event_log_breakdown(instance, run_ids: set[str]) -> dict:
    """Seconds inside runs and inside steps, summed over the given runs, from the instance's events; and
    the seconds of each step key (an asset's step key is its name), summed over those runs."""
    import dagster as dg

    step_events = {dg.DagsterEventType.STEP_START, dg.DagsterEventType.STEP_SUCCESS, dg.DagsterEventType.STEP_FAILURE}
    in_runs = in_steps = 0.0
    by_step: dict[str, float] = {}
    for record in instance.get_run_records():
        if record.dagster_run.run_id not in run_ids:
            continue
        in_runs += (record.end_time or record.start_time) - record.start_time
        started: dict[str, float] = {}
        for event in instance.all_logs(record.dagster_run.run_id, of_type=step_events):
            key = event.dagster_event.step_key
            if event.dagster_event.event_type == dg.DagsterEventType.STEP_START:
                started[key] = event.timestamp
            elif key in started:
                seconds = event.timestamp - started.pop(key)
                in_steps += seconds
                by_step[key] = by_step.get(key, 0.0) + seconds
    return {"in_runs_s": in_runs, "in_steps_s": in_steps, "by_step_s": by_step}


def peak_rss_mb() -> float:
    """Peak resident memory so far of this process and of its largest waited-for child (Linux: KiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return (own + children) / 1024


def in_fresh_process(target, *args, timeout_s: float = 900):
    """`target(*args, results)` in a spawned process of its own (fresh imports, no state of this one); returns what
    it put on `results`. Raises when the process fails."""
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    process = ctx.Process(target=target, args=(*args, results))
    process.start()
    try:
        outcome = results.get(timeout=timeout_s)
    finally:
        process.join(timeout=60)
    if process.exitcode != 0:
        raise RuntimeError(f"{target.__name__}{args} ended with exit code {process.exitcode}")
    return outcome
