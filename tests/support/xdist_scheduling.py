"""How the suite is shared between two pytest-xdist workers (`dev.py test` runs it with `-n 2`).

A unit of work is a test module, except that every module using one of the costly session fixtures
(tests/conftest.py: the shipped demo graph; tests/integration/conftest.py: the README's main job and the small
demo home) goes to one
unit per fixture: each worker builds the session fixtures its own tests use, so two modules reading the same
demo on two workers would build it twice. A module uses a fixture when one of its functions (a test or a fixture
of its own) takes it as a parameter; a name in a docstring or a test's name (`..._the_main_job_...`) is not a
use, else a module would be chained behind a fixture it never reads and lengthen the longest worker's share.
Units go out in collection order (browser, integration, reliability, unit, web), which puts the long
end-to-end modules first and leaves the many short unit modules to fill the gaps.

xdist's own `xdist_group` mark renames test ids, which pytest 9 refuses, hence this scheduler.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling

SHARED_FIXTURES = ("shipped_demo", "main_job", "small_demo")
ROOT = Path(__file__).resolve().parents[2]


def fixtures_taken(source: str) -> set[str]:
    """The parameter names of every function in a module's source: the fixtures its tests and fixtures ask for."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args
            names.update(a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs])
    return names


@functools.lru_cache(maxsize=None)
def _shared_fixture_of(module: str) -> str | None:
    """The costly session fixture a test module uses (conftest.py defines them, not uses)."""
    path = ROOT / module
    if path.name == "conftest.py" or not path.is_file():
        return None
    taken = fixtures_taken(path.read_text(encoding="utf-8"))
    return next((name for name in SHARED_FIXTURES if name in taken), None)


class SharedFixtureScheduling(LoadScopeScheduling):
    def __init__(self, config, log=None):
        super().__init__(config, log)
        config.option.loadscopereorder = False  # keep collection order: long modules first

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return _shared_fixture_of(module) or module
