"""What several integration modules start from, built once per session: one run of the README's main job, and
a small demo home (the other shared fixture, the demo graph, is in tests/conftest.py: the browser tests copy its
home). Modules that change what they read (drop files, other registries, faults) build their own home, or a copy."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchwright.paths import ROOT
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, pick
from tests.support.tiny_benchmark import write_plugin


# The shipped registry plus one entry a user might write, whose params would fail every run later.
REFUSED_ENTRY = """
sim-dated:
  model: sim/strong-writer
  role: candidate
  params: {since: 2024-01-01}
"""


def configured_warehouse(home: Path) -> Path:
    """Where the shared main job's warehouse lives: a second DuckDB file, beside the home, not in it."""
    return home.parent / "elsewhere" / "results.duckdb"


def run_main_job(home: Path, plugin: Path, *args: str, checkout: Path = ROOT) -> subprocess.CompletedProcess:
    """The README's main job as a user runs it, in a subprocess, with the tiny plugin benchmark named in
    BENCHWRIGHT_PLUGINS, the user's registry (shipped + the refused entry) and the warehouse configured
    outside the home; from this repository, or from a copy of it at `checkout`."""
    env = {**os.environ, "BENCHWRIGHT_HOME": str(home), "DAGSTER_HOME": str(home / "dagster_home"),
           # The warehouse outside the home, through its one setting: nothing else may assume where it is.
           "BENCHWRIGHT_WAREHOUSE": str(configured_warehouse(home)),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": f"{checkout}{os.pathsep}{plugin}",
           "BENCHWRIGHT_MODELS": str(home / "models.yaml"), "BENCHWRIGHT_PLUGINS": "tiny_bench"}
    return subprocess.run([sys.executable, str(checkout / "scripts" / "materialize_all.py"), *args], cwd=checkout,
                          env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="session")
def main_job(tmp_path_factory):
    """One run of the README's main job on a fresh home, shared by test_main_job (what a user sees) and
    test_add_a_benchmark (a benchmark defined outside the repository runs in it). `tracked_before` is
    `git status` before the run: nothing of the repository may change."""
    root = tmp_path_factory.mktemp("main_job")
    home, plugin = root / "home", root / "plugin"
    home.mkdir()
    plugin.mkdir()
    write_plugin(plugin)
    (home / "models.yaml").write_text((ROOT / "registry" / "models.yaml").read_text() + REFUSED_ENTRY)
    tracked_before = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    first = run_main_job(home, plugin)
    return {"home": home, "plugin": plugin, "first": first, "tracked_before": tracked_before,
            "run": lambda *args: run_main_job(home, plugin, *args)}


# One candidate (with the baseline and the describer the graph needs) and one judge: the smallest registry on which
# every asset of the graph runs.
SMALL_MODELS = pick(SHIPPED_MODELS, "sim-baseline", "sim-describer", "sim-strong")
SMALL_JUDGES = pick(SHIPPED_JUDGES, "sim-fair-judge")


@pytest.fixture(scope="session")
def small_demo(tmp_path_factory):
    """The demo graph on SMALL_MODELS and SMALL_JUDGES, materialized once from an empty home by the main job's
    code, on the home's own Dagster instance (<home>/dagster_home, as prepare_dagster_home writes it) so that a
    copy of the home carries its runs and events. `cold` is that first job's summary. Never changed: a module
    starts from a copy (copy_small_demo), which is a home like any other (a copied home runs nothing the original
    would not: benchwright/loading.py files_version), instead of building the same graph again."""
    import dagster as dg
    from dagster._core.instance.ref import InstanceRef

    from resources import prepare_dagster_home
    from scripts.orchestrate import materialize_everything
    from tests.support.pipeline import resources_for, write_registry

    home = tmp_path_factory.mktemp("small_demo") / "home"
    write_registry(home, SMALL_MODELS, SMALL_JUDGES)
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("DAGSTER_HOME", raising=False)  # the instance in the home, not in a caller's DAGSTER_HOME
        dagster_home = prepare_dagster_home(home)
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(dagster_home))) as instance:
        cold = materialize_everything(instance, resources_for(home))
    return {"home": home, "cold": cold}


def copy_small_demo(small_demo: dict, home: Path) -> Path:
    """A copy of the small demo's home (warehouse, LLM cache, registry and Dagster instance) at `home`."""
    shutil.copytree(small_demo["home"], home, symlinks=True)
    return home
