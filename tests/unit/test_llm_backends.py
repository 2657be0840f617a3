"""The runner's back ends (benchwright/llm/backends/): which one answers a miss, and that a run loads only those its
misses need."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchwright.llm.backends import backend_for, make, own_backend

ROOT = Path(__file__).resolve().parents[2]


def test_the_model_string_names_the_simulator_in_every_mode_and_the_mode_and_limits_the_rest():
    for mode in ("live", "plan", "replay"):
        assert backend_for(mode, "sim/strong-writer", batch=True) == "sim"
    assert backend_for("plan", "openai/gpt-4o-mini", batch=True) == "plan"  # a plan sends no batch either
    assert backend_for("live", "openai/gpt-4o-mini", batch=True) == "batch"
    assert backend_for("live", "openai/gpt-4o-mini") == "live"
    assert own_backend("sim/x") == "sim" and own_backend("openai/x") is None
    assert own_backend("sim") is None  # a bare name has no prefix: a provider's model


def test_an_unknown_back_end_is_refused_by_name():
    with pytest.raises(ValueError, match="'nope'.*batch, live, plan, sim"):
        make("nope")


# In a fresh process: what importing the engine and running simulated requests load.
LOADED = """
import json, sys, tempfile
from benchwright.llm import LLMRequest, LLMRunner
def ours():
    return sorted(m for m in sys.modules if m.startswith(("benchwright.llm.backends.", "benchwright.simulate")))
seen = {"imported": ours()}
with tempfile.TemporaryDirectory() as folder, LLMRunner(folder + "/cache.sqlite") as runner:
    results, stats = runner.run([LLMRequest(model="sim/writer", messages=[{"role": "user", "content": "Hello?"}])])
    assert stats.api_calls == 1 and results[0].simulated and results[0].text, (stats, results)
seen["after_a_simulated_run"] = ours()
print(json.dumps(seen))
"""


def test_a_run_loads_only_the_back_ends_its_misses_need():
    out = subprocess.run([sys.executable, "-c", LOADED], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["imported"] == []  # the engine alone: no back end, no simulator
    after = seen["after_a_simulated_run"]
    assert "benchwright.llm.backends.simulated" in after and "benchwright.simulate" in after
    assert not {"benchwright.llm.backends.live", "benchwright.llm.backends.batch",
                "benchwright.llm.backends.plan"} & set(after)
