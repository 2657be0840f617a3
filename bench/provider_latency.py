"""Benchmark: the whole demo graph against three providers with real latencies and limits, through the main job.

Three loopback OpenAI-compatible servers (tests/support/openai_server.py), each in its own process, stand for
three providers with different latencies (2.0, 2.5 and 3.0 s per call) and different limits (calls in flight,
requests per minute, tokens per minute; written to the home's providers.yaml). Each provider serves one
candidate and one judge (`openai/...` models with the server's `api_base` and the registry's `provider:`);
the baseline and the describer go to the slowest provider, so that it has calls to make in every level of the
graph (elsewhere, its bound could not be reached through the graph's own order, and the ratio would measure
the placement, not the main job). The main job (scripts/orchestrate.py, `materialize_everything`) runs the
demo graph on the bundled sample in a temporary home, Creation's 15 items twice (new ids), MMMT-IF cut to
`--turns` turns and `--samples` samples, so the run takes minutes (the ratio is what is measured, not the size).
The servers answer as the offline simulator would, cut at the requests' `max_tokens` as providers do.

Each server records every request's arrival, the requests in flight at that moment and its tokens (the
text's characters ÷ 4 plus 765 per picture, and the answer's words), and counts the violations of its
provider's limits: arrivals with more calls in flight than allowed, and arrivals whose trailing 60 s hold more
requests or tokens than allowed.

    ideal = the longest of: per provider, calls ÷ its allowed rate, the rate being the smallest of
            max_in_flight ÷ latency, rpm ÷ 60 and tpm ÷ 60 ÷ its mean tokens per call (measured);
            and the graph's critical path in calls: (MMMT-IF turns + 2) × the largest latency
            (the turns are answered one after another, then the autorater; before them the describer)
    achieved ÷ ideal = ideal ÷ the main job's wall time (target ≥ 0.8), violations (target 0)

    .venv/bin/python bench/provider_latency.py [--parallel-runs 8] [--turns 3] [--samples 1]

`--parallel-runs 1` measures the main job one run at a time (the old behaviour), for comparison.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import tempfile
import time
from bisect import bisect_left
from pathlib import Path

import yaml

from _common import ROOT, emit, machine
from full_size import repeated_jsonl

# name: latency and limits; which limit binds differs per provider on purpose.
PROVIDERS = {
    "lab-a": {"latency_s": 2.0, "max_in_flight": 8, "rpm": 120},       # 2/s by rpm (4/s in flight)
    "lab-b": {"latency_s": 2.5, "max_in_flight": 4},                   # 1.6/s in flight: the slowest
    "lab-c": {"latency_s": 3.0, "max_in_flight": 12, "tpm": 150_000},  # ≈ 2/s by tpm at ≈ 1,200 tokens a call
}
MAX_TOKENS = 200  # every entry's max_tokens; the servers cut answers there, as providers do
CREATION_COPIES = 2  # the 15 sample items twice (new ids): more calls per step, the same number of steps
IMAGE_TOKENS = 765  # what a picture costs on these servers (and what the client reserves for one)


def simulated_reply(body: dict) -> str:
    """The servers answer as the offline simulator would (benchwright/simulate), so every benchmark's judges
    write verdicts and scores that parse, as real ones mostly do, and no parse-failure check stops a run."""
    from benchwright.simulate import complete

    model = str(body.get("model", "")).removeprefix("openai/")
    # Each writer its own skill: writers answering alike would make their judges' requests alike, and runs at
    # once would each call for what one at a time finds in the cache (calls no real workload would repeat).
    skill = {"writer-a": 0.8, "writer-b": 0.6, "writer-c": 0.4}.get(model, 0.7)
    if "judge" in model:
        params = {"position_bias": 0.0, "malformed_rate": 0.0}
    else:
        params = {"skill": skill, "verbosity": 1.0}
    sim = f"sim/{model}"
    words = complete(sim, body.get("messages") or [], params).text.split(" ")
    return " ".join(words[: int(body.get("max_tokens") or MAX_TOKENS)])


def _serve(queue, commands, latency_s: float, lifetime_s: float) -> None:
    from tests.support.openai_server import OpenAIServer, completion_tokens, prompt_tokens

    srv = OpenAIServer(latency_s=latency_s, max_lifetime_s=lifetime_s, image_tokens=IMAGE_TOKENS,
                       reply=simulated_reply).start()
    queue.put(srv.base_url)
    commands.get()  # "report"
    with srv._lock:  # the server's own counters, copied while no request changes them
        arrivals = list(srv.arrivals)
        in_flight = list(srv.in_flight_at_arrival)
        bodies = list(srv.bodies)
    # The simulator answers the same request the same way: its answer's tokens are the ones the server billed.
    tokens = [prompt_tokens(body, IMAGE_TOKENS) + completion_tokens(simulated_reply(body)) for body in bodies]
    queue.put({"arrivals": arrivals, "in_flight": in_flight, "tokens": tokens})
    srv.stop()


def violations(report: dict, limits: dict) -> dict[str, int]:
    """Arrivals that broke a limit: more in flight than allowed, or a trailing 60 s with too many requests or
    tokens (the arrival itself included)."""
    arrivals, tokens = report["arrivals"], report["tokens"]
    counts = {"in_flight": sum(n > limits["max_in_flight"] for n in report["in_flight"]), "rpm": 0, "tpm": 0}
    prefix = [0]
    for spent in tokens:
        prefix.append(prefix[-1] + spent)
    for i, at in enumerate(arrivals):
        first = bisect_left(arrivals, at - 60.0)
        if limits.get("rpm") and i + 1 - first > limits["rpm"]:
            counts["rpm"] += 1
        if limits.get("tpm") and prefix[i + 1] - prefix[first] > limits["tpm"]:
            counts["tpm"] += 1
    return counts


def allowed_rate(limits: dict, tokens_per_call: float) -> tuple[float, str]:
    """Calls per second the provider allows, and which limit sets it."""
    rates = {"in flight": limits["max_in_flight"] / limits["latency_s"]}
    if limits.get("rpm"):
        rates["rpm"] = limits["rpm"] / 60
    if limits.get("tpm") and tokens_per_call:
        rates["tpm"] = limits["tpm"] / 60 / tokens_per_call
    binding = min(rates, key=rates.get)
    return rates[binding], binding


def write_home(home: Path, urls: dict[str, str]) -> None:
    def entry(name: str, provider: str, role: str) -> dict:
        return {"model": f"openai/{name}", "role": role, "api_base": urls[provider], "provider": provider,
                "params": {"temperature": 0.0, "max_tokens": MAX_TOKENS}, "max_concurrency": 32}

    models = {"base-writer": entry("base-writer", "lab-b", "baseline"),
              "describer": entry("describer", "lab-b", "describer")}
    models |= {f"writer-{p[-1]}": entry(f"writer-{p[-1]}", p, "candidate") for p in PROVIDERS}
    judges = {f"judge-{p[-1]}": entry(f"judge-{p[-1]}", p, "judge") for p in PROVIDERS}
    providers = {name: {k: v for k, v in limits.items() if k != "latency_s"} for name, limits in PROVIDERS.items()}
    for name, data in (("models", models), ("judges", judges), ("providers", providers)):
        (home / f"{name}.yaml").write_text(yaml.safe_dump(data))


def measure(parallel_runs: int, turns: int, samples: int) -> dict:
    import dagster as dg

    ctx = mp.get_context("spawn")
    servers = {}
    for name, limits in PROVIDERS.items():
        queue, commands = ctx.Queue(), ctx.Queue()
        process = ctx.Process(target=_serve, args=(queue, commands, limits["latency_s"], 3600), daemon=True)
        process.start()
        servers[name] = (process, queue, commands)
    urls = {name: queue.get(timeout=60) for name, (_, queue, _) in servers.items()}
    try:
        with tempfile.TemporaryDirectory(prefix="benchwright-providers-") as tmp:
            home = Path(tmp)
            os.environ.update({"BENCHWRIGHT_HOME": str(home), "DAGSTER_HOME": str(home / "dagster_home"),
                               "BENCHWRIGHT_MODELS": str(home / "models.yaml"),
                               "BENCHWRIGHT_JUDGES": str(home / "judges.yaml"),
                               "BENCHWRIGHT_PROVIDERS": str(home / "providers.yaml")})
            write_home(home, urls)
            from resources import default_resources, prepare_dagster_home
            from scripts.orchestrate import materialize_everything

            prepare_dagster_home(home)
            items, sample = home / "creation" / "items.jsonl", ROOT / "sample_data" / "creation" / "items.jsonl"
            count = CREATION_COPIES * len(sample.read_text(encoding="utf-8").splitlines())
            repeated_jsonl(sample, items, "item_id", count, marked_field="instruction")
            asset_config = {"creation_items": {"path": str(items)}, "mmmt_if_source_chats": {"max_turns": turns},
                            "mmmt_if_generations": {"samples": samples}}
            with dg.DagsterInstance.get() as instance:
                started = time.monotonic()
                summary = materialize_everything(instance, default_resources(home), asset_config=asset_config,
                                                 parallel_runs=parallel_runs,
                                                 log=lambda msg: print(f"  {time.monotonic() - started:6.1f} s {msg}",
                                                                       flush=True))
                wall = time.monotonic() - started
    finally:
        reports = {}
        for name, (process, queue, commands) in servers.items():
            commands.put("report")
            reports[name] = queue.get(timeout=60)
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()

    per_provider, bounds, broken = {}, {}, {}
    for name, report in reports.items():
        limits = PROVIDERS[name]
        calls = len(report["arrivals"])
        tokens_per_call = sum(report["tokens"]) / calls if calls else 0.0
        rate, binding = allowed_rate(limits, tokens_per_call)
        bounds[name] = calls / rate
        broken[name] = violations(report, limits)
        per_provider[name] = {"calls": calls, "tokens_per_call": round(tokens_per_call), "allowed_per_s": rate,
                              "binding": binding, "bound_s": bounds[name], "violations": broken[name],
                              "peak_in_flight": max(report["in_flight"], default=0)}
    critical_path = (turns + 2) * max(p["latency_s"] for p in PROVIDERS.values())
    ideal = max([critical_path, *bounds.values()])
    total_violations = sum(sum(v.values()) for v in broken.values())
    lines = [f"{name}: {p['calls']} calls, {p['tokens_per_call']} tokens/call, allowed {p['allowed_per_s']:.2f}/s "
             f"({p['binding']}), bound {p['bound_s']:.0f} s, peak in flight {p['peak_in_flight']}, "
             f"violations {p['violations']}" for name, p in per_provider.items()]
    print("\n".join(lines))
    summary_text = (f"{parallel_runs} parallel runs; wall {wall:.0f} s, ideal {ideal:.0f} s (critical path "
                    f"{critical_path:.0f} s): **achieved ÷ ideal {ideal / wall:.2f}** (target ≥ 0.8); "
                    f"{summary['api_calls']} calls, {summary['runs']} runs ({summary['failed_runs']} failed); "
                    f"**limit violations {total_violations}** (target 0); " + "; ".join(lines) + f"; {machine()}")
    if summary["failed_runs"]:
        summary_text += f"; failed runs: {summary['failed_runs']}"
    return {"summary": summary_text, "wall_s": wall, "ideal_s": ideal, "achieved_over_ideal": ideal / wall,
            "violations": total_violations, "calls": summary["api_calls"], "runs": summary["runs"],
            "failed_runs": summary["failed_runs"], "providers": per_provider}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parallel-runs", type=int, default=8, help="runs of one level at once (default 8)")
    parser.add_argument("--turns", type=int, default=3, help="MMMT-IF turns kept per chat (default 3)")
    parser.add_argument("--samples", type=int, default=1, help="MMMT-IF samples per turn (default 1)")
    args = parser.parse_args()
    emit("Providers with real latency: achieved ÷ ideal, limit violations",
         **measure(args.parallel_runs, args.turns, args.samples))


if __name__ == "__main__":
    main()
