"""How the suite is shared between two pytest-xdist workers (`dev.py test` runs it with `-n 2`).

A unit of work is a test module, except that every module using one of the costly session fixtures
(tests/conftest.py: the shipped demo graph; tests/integration/conftest.py: the README's main job and the small
demo home) goes to one
unit per fixture: each worker builds the session fixtures its own tests use, so two modules reading the same
demo on two workers would build it twice. A module uses a fixture when one of its functions (a test or a fixture
of its own) takes it as a parameter; a name in a docstring or a test's name (`..._the_main_job_...`) is not a
use, else a module would be chained behind a fixture it never reads and lengthen the longest worker's share.
Units go out longest first (LONGEST_FIRST, then collection order: browser, integration, reliability, unit,
web), so the long poles start at once and the many short unit modules fill the gaps at the end; the tests are
put in that order at collection (`longest_first`), which the scheduler keeps. A worker given a unit of one
test cannot start it before it holds a next one; that next unit waits behind the whole test, so it is the
last in order (a short unit or web module), not the next long pole.

xdist's own `xdist_group` mark renames test ids, which pytest 9 refuses, hence this scheduler.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling

SHARED_FIXTURES = ("shipped_demo", "main_job", "small_demo")
ROOT = Path(__file__).resolve().parents[2]
# The units that take longest, longest first, from CI's `--durations=30` (a shared fixture's unit: its setup and
# its modules together). Revisit when that list changes; a unit not named here keeps its collection place.
LONGEST_FIRST = (
    "tests/integration/test_postgres_instance.py",
    "small_demo",
    "shipped_demo",
    "tests/integration/test_panels_and_comparisons.py",
    "tests/integration/test_pipeline_loopback.py",
    "main_job",
    "tests/integration/test_failed_calls.py",
    "tests/integration/test_families_pipeline.py",
    "tests/integration/test_injection_attack.py",
    "tests/integration/test_run_scope.py",
)


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


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its shared fixture's, else its module's."""
    module = nodeid.split("::", 1)[0]
    return _shared_fixture_of(module) or module


def longest_first(items: list) -> None:
    """Put the tests of the LONGEST_FIRST units first, in that order; the others keep their order after them."""
    rank = {unit: place for place, unit in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(unit_of(item.nodeid), len(rank)))


class SharedFixtureScheduling(LoadScopeScheduling):
    def __init__(self, config, log=None):
        super().__init__(config, log)
        config.option.loadscopereorder = False  # keep collection order: long modules first

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)

    def _reschedule(self, node) -> None:
        # One test pending: a unit of one test was just given, and the node runs it only once it holds a next
        # unit, which then waits behind it. The last unit in order (a short one) waits there, not the next long pole.
        if not node.shutting_down and len(self.workqueue) > 1 and self._pending_of(self.assigned_work[node]) == 1:
            self.workqueue.move_to_end(next(reversed(self.workqueue)), last=False)
        super()._reschedule(node)
