"""Shared by the benchmarks: the loopback server in its own process, the machine, the result line.

The fault server (tests/support/openai_server.py) runs in a separate process so that its CPU time
does not compete with the client's event loop for the GIL: what is measured is the client.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import platform
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

RESULT_PREFIX = "RESULT "


def _serve(queue, latency_s: float, lifetime_s: float) -> None:
    from tests.support.openai_server import OpenAIServer

    srv = OpenAIServer(latency_s=latency_s, max_lifetime_s=lifetime_s).start()
    queue.put(srv.base_url)
    time.sleep(lifetime_s)


@contextmanager
def loopback_server(latency_s: float, lifetime_s: float = 600):
    """The OpenAI-compatible test server in a child process; yields its base URL."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    process = ctx.Process(target=_serve, args=(queue, latency_s, lifetime_s), daemon=True)
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
