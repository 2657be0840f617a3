"""How the suite is shared between two pytest-xdist workers (`dev.py test` runs it with `-n 2`).

A unit of work is a test module, except that every module using one of the costly session fixtures of
tests/integration/conftest.py (the shipped demo graph, the README's main job) goes to one unit per fixture:
each worker builds the session fixtures its own tests use, so two modules reading the same demo on two
workers would build it twice. Units go out in collection order (browser, integration, reliability, unit,
web), which puts the long end-to-end modules first and leaves the many short unit modules to fill the gaps.

xdist's own `xdist_group` mark renames test ids, which pytest 9 refuses, hence this scheduler.
"""

from __future__ import annotations

import functools
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling

SHARED_FIXTURES = ("shipped_demo", "main_job")
ROOT = Path(__file__).resolve().parents[2]


@functools.lru_cache(maxsize=None)
def _shared_fixture_of(module: str) -> str | None:
    """The costly session fixture a test module uses, read from its text (conftest.py defines them, not uses)."""
    path = ROOT / module
    if path.name == "conftest.py" or not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    return next((name for name in SHARED_FIXTURES if name in text), None)


class SharedFixtureScheduling(LoadScopeScheduling):
    def __init__(self, config, log=None):
        super().__init__(config, log)
        config.option.loadscopereorder = False  # keep collection order: long modules first

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return _shared_fixture_of(module) or module
