"""Benchmark: what a budget costs per call (benchwright/llm/budget.py), on the loopback server.

The same chat-completion requests through `LLMRunner.run` with 64 calls in flight, without a budget and with a
`budget_usd` (large enough never to be reached: every call reserves its estimated price at litellm's prices in a
transaction of the home's provider-slots file, where every process's reservations are, and settles it with the
lease releases) on a model priced with `litellm.register_model`. Each client runs in a fresh process, warmed up, the
two in an order that turns each round; CPU time of the process per call (all threads) against a server answering
at once; medians of the rounds and the ratio with ÷ without, taken within this run.

    .venv/bin/python bench/llm_budget.py [--calls 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, emit, loopback_server, machine

MODEL = "openai/bench-budget-model"
CONCURRENCY = 64
TARGET = 1.05  # with a budget ÷ without, CPU per call


def _child(budgeted: bool, base_url: str, calls: int, results) -> None:
    sys.path.insert(0, str(ROOT))
    import litellm

    from benchwright.llm import LLMRequest, LLMRunner, ModelLimits
    from benchwright.llm.providers import ProviderLimits

    litellm.register_model({MODEL: {"input_cost_per_token": 1e-7, "output_cost_per_token": 1e-7,
                                    "litellm_provider": "openai", "mode": "chat"}})
    folder = tempfile.TemporaryDirectory(prefix="benchwright-llm-budget-")  # removed when the process ends
    runner = LLMRunner(str(Path(folder.name) / "llm.sqlite"), timeout_s=60,
                       max_retries=0, provider_limits={"openai": ProviderLimits(max_in_flight=CONCURRENCY)})
    limits = {MODEL: ModelLimits(max_concurrency=CONCURRENCY, budget_usd=1e6 if budgeted else None)}

    def batch(tag: str, n: int):
        requests = [LLMRequest(model=MODEL, messages=[{"role": "user", "content": f"{tag} question {i}"}],
                               api_base=base_url) for i in range(n)]
        _, stats = runner.run(requests, limits=limits)
        assert stats.api_calls == n and stats.errors == 0 and stats.not_sent == 0, stats

    batch("warm", 2 * CONCURRENCY)
    cpu, started = time.process_time(), time.perf_counter()
    batch("measured", calls)
    results.put({"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - started})
    runner.close()
    folder.cleanup()  # each round's cache and slots files: 52 folders were left in /tmp before


def _measure(budgeted: bool, base_url: str, calls: int) -> dict:
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    process = ctx.Process(target=_child, args=(budgeted, base_url, calls, results))
    process.start()
    try:
        return results.get(timeout=900)
    finally:
        process.join(timeout=60)


def measure(calls: int = 1000, rounds: int = 3) -> dict:
    runs: dict[bool, list[dict]] = {False: [], True: []}
    with loopback_server(0.0, lifetime_s=3600) as url:
        for round_ in range(rounds):
            for budgeted in ((False, True) if round_ % 2 == 0 else (True, False)):
                runs[budgeted].append(_measure(budgeted, url, calls))
                print(f"  round {round_ + 1}, {'with' if budgeted else 'without'} a budget: "
                      f"{1000 * runs[budgeted][-1]['cpu_s'] / calls:.2f} ms CPU per call", flush=True)
    cpu_ms = {b: statistics.median(1000 * r["cpu_s"] / calls for r in runs[b]) for b in runs}
    return {"without_ms": cpu_ms[False], "with_ms": cpu_ms[True], "ratio": cpu_ms[True] / cpu_ms[False]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(machine())
    result = measure(args.calls, args.rounds)
    met = "met" if result["ratio"] <= TARGET else "missed"
    emit("llm_budget", f"CPU per call without a budget {result['without_ms']:.2f} ms, with one "
                       f"{result['with_ms']:.2f} ms: with ÷ without {result['ratio']:.3f} (target ≤ {TARGET}: {met})",
         **result)


if __name__ == "__main__":
    main()
