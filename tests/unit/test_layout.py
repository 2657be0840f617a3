"""The layering docs/ARCHITECTURE.md promises, checked on the source: benchwright/ never imports dagster,
the kernel never imports a benchmark package, nor reaches one through what it imports, no benchmark package
imports another one, and no benchwright modules import each other in a circle."""

import ast
from pathlib import Path

import pytest

BENCHWRIGHT = Path(__file__).resolve().parents[2] / "benchwright"
BENCHMARKS = ("creation", "urs", "mmmt_if", "gap")
# Modules above the benchmark packages: they serve every benchmark (docs/ARCHITECTURE.md, layer 3).
# Only the annotation page's pairs still name benchmarks; the simulator and injection flagging are kernel now
# (they reach the benchmarks through their declarations).
ACROSS_BENCHMARKS = ("annotation",)


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


# -- what a module loads, transitively ---------------------------------------------------------------------------
# Every import statement counts, at the top of a module or inside a function (a lazy import runs as soon as that
# function does), relative ones resolved. Importing `a.b.c` runs `a/__init__.py` and `a/b/__init__.py` too, so those
# are edges as well, except the packages a module lives in: they are being imported already when it runs.


def module_name(path: Path) -> str:
    parts = ("benchwright", *path.relative_to(BENCHWRIGHT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in SOURCES}


def loaded_by(name: str) -> set[str]:
    """The benchwright modules that importing `name` (and calling its functions) loads directly."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        parts = target.split(".")
        for i in range(1, len(parts) + 1):
            module = ".".join(parts[:i])
            if module in MODULES and not (name == module or name.startswith(module + ".")):
                found.add(module)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            add(source)
            for alias in node.names:  # `from package import module`
                add(f"{source}.{alias.name}")
    return found


GRAPH = {name: loaded_by(name) for name in MODULES}


def chain_to(start: str, goal) -> list[str] | None:
    """The shortest chain of imports from `start` to a module `goal` accepts (breadth first), or None."""
    came_from: dict[str, str | None] = {start: None}
    queue = [start]
    for current in queue:
        for nxt in sorted(GRAPH[current]):
            if goal(nxt):  # before the look at what was seen: a circle ends at `start`, seen first
                chain = [nxt, current]
                while came_from[chain[-1]] is not None:
                    chain.append(came_from[chain[-1]])
                return chain[::-1]
            if nxt not in came_from:
                came_from[nxt] = current
                queue.append(nxt)
    return None


def module_owner(name: str) -> str:
    return name.split(".")[1] if "." in name else ""


def test_the_graph_sees_lazy_relative_and_package_imports():
    # A function-level import (the registry's of litellm_setup), relative imports (the simulator's own modules),
    # a package's __init__ reached through one of its modules: a graph missing any of these would hide paths.
    assert "benchwright.llm.litellm_setup" in GRAPH["benchwright.registry"]
    assert "benchwright.simulate.request" in GRAPH["benchwright.simulate"]
    assert "benchwright.llm" in GRAPH["benchwright.registry"]  # from benchwright.llm.providers import ...
    assert "benchwright.llm" not in GRAPH["benchwright.llm.runner"]  # its own package: already being imported


def test_the_kernel_never_reaches_a_benchmark():
    kernel = [name for name in MODULES if module_owner(name) not in BENCHMARKS + ACROSS_BENCHMARKS]
    assert "benchwright.llm.runner" in kernel and "benchwright.steps" in kernel
    chains = {name: chain_to(name, lambda m: module_owner(m) in BENCHMARKS) for name in sorted(kernel)}
    reached = [" -> ".join(chain) for chain in chains.values() if chain]
    assert not reached, "kernel modules that load a benchmark package:\n" + "\n".join(reached)


def test_no_import_circle():
    circles = sorted({" -> ".join(chain) for name in MODULES
                      if (chain := chain_to(name, lambda m, name=name: m == name))})
    assert not circles, "benchwright modules that import each other in a circle:\n" + "\n".join(circles)
