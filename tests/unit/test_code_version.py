"""Code versions follow each benchmark's METHOD_VERSION: raising one benchmark's makes its assets stale, no other's."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import benchwright.creation
import benchwright.gap
import benchwright.mmmt_if
import benchwright.urs
from benchwright import pairwise, ratings, steps
from benchwright.creation import metrics as creation_metrics
from benchwright.creation import prompts as creation_prompts
from benchwright.mmmt_if import chat_set, pif
from benchwright.mmmt_if.instruction_following import text
from benchwright.urs import metrics as urs_metrics
from benchwright.urs import prompts as urs_prompts

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = {"creation": benchwright.creation, "urs": benchwright.urs, "mmmt_if": benchwright.mmmt_if,
              "gap": benchwright.gap}


def test_every_benchmark_package_declares_its_method_version():
    for name, package in BENCHMARKS.items():
        assert isinstance(package.METHOD_VERSION, str) and package.METHOD_VERSION, name


def test_a_module_belongs_to_the_nearest_package_with_a_method_version():
    assert steps.method_versions([text]) == {"benchwright.mmmt_if": benchwright.mmmt_if.METHOD_VERSION}
    assert steps.method_versions([benchwright.urs]) == {"benchwright.urs": benchwright.urs.METHOD_VERSION}
    assert steps.method_versions([pairwise, ratings, steps]) == {}  # the kernel belongs to no benchmark
    assert set(steps.method_versions([creation_metrics, pairwise, urs_metrics])) == {"benchwright.creation",
                                                                                  "benchwright.urs"}


def test_raising_one_method_version_changes_that_benchmarks_code_versions_only(monkeypatch):
    def versions():
        return {"urs metrics": steps.code_version(urs_metrics), "urs judge": steps.prompt_code_version(
                    urs_prompts.JUDGE_PROMPT_VERSION, urs_prompts),
                "creation leaderboard": steps.code_version(creation_metrics, pairwise),
                "creation judge": steps.prompt_code_version(creation_prompts.PAIRWISE_PROMPT_VERSION, creation_prompts),
                "mmmt_if chats": steps.code_version(chat_set), "mmmt_if pif": steps.code_version(pif, text),
                "kernel": steps.code_version(pairwise, ratings)}

    before = versions()
    monkeypatch.setattr(benchwright.urs, "METHOD_VERSION", "2")
    after = versions()
    assert {k for k in before if before[k] != after[k]} == {"urs metrics", "urs judge"}
    assert after["urs judge"] == urs_prompts.JUDGE_PROMPT_VERSION + "+method2"
    monkeypatch.setattr(benchwright.mmmt_if, "METHOD_VERSION", "7")  # reached through a subpackage's module too
    assert steps.code_version(pif, text) != after["mmmt_if pif"]
    assert steps.code_version(pairwise, ratings) == before["kernel"]


def _asset_code_versions(raise_method_of: str | None) -> dict[str, str | None]:
    """Every asset's code version as `definitions` declares it, in a fresh process (asset definitions compute
    them at import), with one benchmark's METHOD_VERSION raised first."""
    script = ("import json, sys, importlib\n"
              "name = sys.argv[1]\n"
              "if name: importlib.import_module('benchwright.' + name).METHOD_VERSION = 'raised'\n"
              "from definitions import defs\n"
              "graph = defs.resolve_asset_graph()\n"
              "print(json.dumps({k.to_user_string(): graph.get(k).code_version for k in graph.get_all_asset_keys()}))\n")
    done = subprocess.run([sys.executable, "-c", script, raise_method_of or ""], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("benchmark", ["urs"])
def test_the_assets_of_the_raised_benchmark_become_stale_and_no_other_asset(benchmark):
    before, after = _asset_code_versions(None), _asset_code_versions(benchmark)
    changed = {key for key in before if before[key] != after[key]}
    # Every asset of the benchmark computed by its own package changes (generations, judgments, metrics) ...
    assert {f"{benchmark}_items", f"{benchmark}_generations", f"{benchmark}_judgments", f"{benchmark}_leaderboard",
            f"{benchmark}_cross_validation", f"{benchmark}_human_alignment"} <= changed
    # ... and the canaries' judgments, read by every benchmark's parsers (assets/canaries.py); nothing else: other
    # benchmarks, the kernel's assets (panels, ratings, the snapshot) keep theirs.
    assert "canary_judgments" in changed
    assert all(key.startswith(f"{benchmark}_") for key in changed - {"canary_judgments"}), sorted(changed)
    assert f"{benchmark}_panel_judgments" not in changed  # computed by the kernel's panel rule, not by the method
