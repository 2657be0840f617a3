"""Benchmark: cold vs warm materialization of the demo graph, in one run.

Prints the ratio warm ÷ cold wall time and the LLM calls of the warm run (must be 0), plus the
share of the cold run spent outside our LLM calls (Dagster and warehouse overhead).

    .venv/bin/python bench/rematerialize.py
"""

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def main() -> None:
    import dagster as dg

    from scripts.orchestrate import materialize_everything
    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

    with tempfile.TemporaryDirectory() as tmp, dg.instance_for_test() as instance:
        home = Path(tmp)
        write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
        resources = resources_for(home)
        t0 = time.perf_counter()
        cold = materialize_everything(instance, resources)
        t1 = time.perf_counter()
        warm = materialize_everything(instance, resources)
        t2 = time.perf_counter()
    print(f"cold: {t1 - t0:.1f} s, {cold['api_calls']} LLM calls, {cold['runs']} runs")
    print(f"warm: {t2 - t1:.1f} s, {warm['api_calls']} LLM calls, {warm['cache_hits']} cache hits")
    print(f"warm / cold wall time: {(t2 - t1) / (t1 - t0):.2f}")
    assert warm["api_calls"] == 0, "re-materializing with nothing new must make zero LLM calls"


if __name__ == "__main__":
    main()
