"""The layering docs/ARCHITECTURE.md promises, checked on the source: benchwright/ never imports dagster,
the kernel never imports a benchmark package, and no benchmark package imports another one."""

import ast
from pathlib import Path

import pytest

BENCHWRIGHT = Path(__file__).resolve().parents[2] / "benchwright"
BENCHMARKS = ("creation", "urs", "mmmt_if", "gap")
# Modules above the benchmark packages: they serve every benchmark (docs/ARCHITECTURE.md, layer 3).
ACROSS_BENCHMARKS = ("simulate", "answer_injection", "annotation")


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def benchmarks_named(modules: set[str]) -> set[str]:
    return {m.split(".")[1] for m in modules if m.startswith("benchwright.") and m.split(".")[1] in BENCHMARKS}


def owner(path: Path) -> str:
    return path.relative_to(BENCHWRIGHT).parts[0].removesuffix(".py")


SOURCES = sorted(BENCHWRIGHT.rglob("*.py"))


def test_the_tree_is_what_the_rules_talk_about():
    assert {owner(p) for p in SOURCES} >= set(BENCHMARKS) | set(ACROSS_BENCHMARKS) | {"steps", "judging", "loading"}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(BENCHWRIGHT)))
def test_layers(path):
    modules = imported_modules(path)
    assert not any(m == "dagster" or m.startswith("dagster.") or m.startswith("dagster_") for m in modules)
    named = benchmarks_named(modules)
    if owner(path) in BENCHMARKS:
        assert named <= {owner(path)}, f"a benchmark imports another benchmark: {sorted(named)}"
    elif owner(path) not in ACROSS_BENCHMARKS:
        assert not named, f"a kernel module imports a benchmark: {sorted(named)}"
