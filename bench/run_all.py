"""Run every benchmark in bench/, each in its own process, and print one results table.

    .venv/bin/python bench/run_all.py            # all of them (the 1,000,000-row metrics take minutes)
    .venv/bin/python bench/run_all.py --quick    # smaller metrics benchmark (100,000 rows)
    .venv/bin/python bench/run_all.py --only llm_throughput llm_overhead

Every script in bench/ not starting with "_" is a benchmark (the long full_size, image_memory,
provider_latency and versus_commit run only with --only). A benchmark's last line starting with "RESULT " (JSON, see bench/_common.py) is its result;
for a script without one, its last output line. The table (date, machine, benchmark, result) is
printed and written, with the raw results, under $BENCHWRIGHT_HOME/bench/ (default
.benchwright/bench/), ready to copy into bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time

from _common import RESULT_PREFIX, ROOT, machine

BENCH = ROOT / "bench"
QUICK_ARGS = {"metrics_scale": ["--items", "500"], "schema_checks": ["--repeats", "2", "--rounds", "1"],
              "explorer_pages": ["--models", "20", "--items", "150", "--rounds", "5"],
              "two_workers": ["--scale", "0.1"]}  # its full size (the default) takes ≈ 9 minutes
# Too long for the default list (full_size about 12 minutes here, image_memory about 20, provider_latency about 8:
# it waits on 2-3 s calls by design); run with --only.
ONLY_WHEN_NAMED = {"full_size", "image_memory", "provider_latency", "versus_commit"}


def benchmarks() -> list[str]:
    return sorted(p.stem for p in BENCH.glob("*.py")
                  if not p.name.startswith("_") and p.name != "run_all.py" and p.stem not in ONLY_WHEN_NAMED)


def run(name: str, args: list[str]) -> dict:
    started = time.perf_counter()
    print(f"== {name} {' '.join(args)}", flush=True)
    process = subprocess.run([sys.executable, str(BENCH / f"{name}.py"), *args], cwd=ROOT, text=True,
                             capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - started
    lines = process.stdout.strip().splitlines()
    results = [json.loads(line[len(RESULT_PREFIX):]) for line in lines if line.startswith(RESULT_PREFIX)]
    if process.returncode != 0:
        result = {"benchmark": name, "summary": f"FAILED (exit {process.returncode}): "
                                                f"{process.stderr.strip().splitlines()[-1:] or ''}"}
    elif results:
        result = results[-1]
    else:
        result = {"benchmark": name, "summary": lines[-1] if lines else "(no output)"}
    for line in lines:
        if not line.startswith(RESULT_PREFIX):
            print(f"   {line}")
    print(f"   -> {result['summary']} [{seconds:.0f} s]", flush=True)
    return {**result, "script": f"bench/{name}.py", "seconds": seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes where a benchmark allows it")
    parser.add_argument("--only", nargs="*", help="benchmark names (script stems) to run")
    args = parser.parse_args()
    names = args.only or benchmarks()
    host, date = machine(), datetime.date.today().isoformat()
    results = [run(name, QUICK_ARGS.get(name, []) if args.quick else []) for name in names]

    table = ["| date | machine | benchmark | result |", "|---|---|---|---|"]
    table += [f"| {date} | {host} | {r['benchmark']} (`{r['script']}`) | {r['summary']} |" for r in results]
    out = ROOT / ".benchwright" / "bench"
    if os.environ.get("BENCHWRIGHT_HOME"):
        out = os.path.join(os.environ["BENCHWRIGHT_HOME"], "bench")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.md"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(table) + "\n")
    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as handle:
        json.dump({"date": date, "machine": host, "results": results}, handle, indent=2)
    print("\n" + "\n".join(table))
    print(f"\nwritten to {out}/results.md and results.json")
    return 1 if any(r["summary"].startswith("FAILED") for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
