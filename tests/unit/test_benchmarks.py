"""benchwright.benchmarks: every benchmark comes in through one door (entry points, then BENCHWRIGHT_PLUGINS), and the
shared files that used to name the benchmarks one by one name none of them now."""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import re
import sys

import pytest

from benchwright import benchmarks, simulate
from benchwright.paths import ROOT

BUILT_IN = ["creation", "urs", "mmmt_if", "gap"]
# The shared files issue #31 found naming benchmarks one by one (the redundancy UNION is now built from declarations).
SHARED = ["benchwright/simulate/__init__.py", "benchwright/answer_injection.py", "checks/residual_pii.py",
          "assets/sources.py", "definitions.py", "benchwright/paths.py", "benchwright/quality.py",
          "benchwright/benchmarks.py", "assets/redundancy.py", "benchwright/redundancy.py"]


def test_the_built_in_benchmarks_come_from_pyproject_when_the_checkout_is_not_installed():
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        importlib.metadata.distribution(benchmarks.DISTRIBUTION)  # how dev.py runs it: requirements.txt only
    assert [b.name for b in benchmarks.declared()] == BUILT_IN
    for benchmark in benchmarks.declared():
        assert benchmark.version == importlib.import_module(f"benchwright.{benchmark.name}").METHOD_VERSION


def test_an_installed_distribution_is_read_through_its_entry_points(monkeypatch):
    entry = importlib.metadata.EntryPoint("urs", "benchwright.urs.declaration:DECLARATION", benchmarks.GROUP)
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: object())
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [entry] if group == benchmarks.GROUP else [])
    benchmarks._declared.cache_clear()
    try:
        assert [b.name for b in benchmarks.declared()] == ["urs"]  # pyproject.toml is not read then
    finally:
        benchmarks._declared.cache_clear()


def test_a_plugin_declares_itself_and_a_name_is_declared_once(tmp_path, monkeypatch):
    (tmp_path / "extra_bench.py").write_text(
        "from benchwright.benchmarks import Benchmark\nDECLARATION = Benchmark(name='extra', version='2')\n")
    (tmp_path / "twin_bench.py").write_text(
        "from benchwright.benchmarks import Benchmark\nDECLARATION = Benchmark(name='urs', version='9')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("BENCHWRIGHT_PLUGINS", "extra_bench")
    assert [b.name for b in benchmarks.declared()] == [*BUILT_IN, "extra"]
    assert benchmarks.named("extra").version == "2"
    monkeypatch.setenv("BENCHWRIGHT_PLUGINS", "twin_bench")
    with pytest.raises(ValueError, match="'urs'"):
        benchmarks.declared()
    for name in ("extra_bench", "twin_bench"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("path", SHARED)
def test_a_shared_file_names_no_benchmark(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    names = [*BUILT_IN, "mmmt-if"]
    found = [m.group(0) for m in re.finditer(rf"\b({'|'.join(map(re.escape, names))})\b", text, re.IGNORECASE)]
    assert not found, f"{path} names {sorted(set(found))}"


@pytest.mark.parametrize("folder", ["simulate", "answer_injection.py"])
def test_the_simulator_and_injection_flagging_import_no_benchmark(folder):
    root = ROOT / "benchwright" / folder
    for path in [root] if root.is_file() else sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            assert not [m for m in modules if m.split(".")[:2] in (["benchwright", b] for b in BUILT_IN)], path


def test_every_prompt_version_of_every_benchmark_has_its_simulated_responder():
    versions = set()
    for name in BUILT_IN:
        for path in (ROOT / "benchwright" / name).rglob("*.py"):
            versions |= set(re.findall(r'^\w*PROMPT_VERSION = "([^"]+)"', path.read_text(encoding="utf-8"), re.M))
    assert len(versions) >= 10
    assert {v for v in versions if simulate.responder_for(v) is None} == set()
