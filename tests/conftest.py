import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

# A suite started in the background (`nohup ... &`, a CI runner's script) begins with SIGINT ignored, and once a test
# has run a Dagster job in the process, Dagster has given SIGTERM the same (dagster._utils.interrupts): every server a
# test started afterwards ignored the SIGTERM that stops it and waited out its stop's timeout. As in a terminal:
signal.signal(signal.SIGINT, signal.default_int_handler)

# litellm must not try to fetch its price map over the (closed) network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# A run's calls stay in its process unless a test asks for the call helper (benchwright/llm/call_helper.py): started
# by the CPU a test's calls happen to use, it would add a process (≈ 2 s of CPU) where the test asks for none.
os.environ.setdefault("BENCHWRIGHT_CALL_HELPER", "off")
# Tests build temporary homes; a developer's configured warehouse must never receive their rows.
os.environ.pop("BENCHWRIGHT_WAREHOUSE", None)

# Every temporary file of the suite (pytest's tmp_path, Dagster's test instances, the homes, the processes the
# tests start: they inherit TMPDIR) in memory when the machine has room there, as scripts/plan.py does for its
# copy: Dagster's SQLite storage commits every event and each commit waits for the disk (a stored event took 0.61
# of its disk time in /dev/shm, bench/temp_folder.py; a graph for one candidate stores about 700). Nothing about
# what the tests check changes. A TMPDIR of your own is kept.
MEMORY_FOLDER, MEMORY_NEEDED = Path("/dev/shm"), 8 * 2**30
if not os.environ.get("TMPDIR") and MEMORY_FOLDER.is_dir() and os.access(MEMORY_FOLDER, os.W_OK | os.X_OK) \
        and shutil.disk_usage(MEMORY_FOLDER).free >= MEMORY_NEEDED:
    os.environ["TMPDIR"] = str(MEMORY_FOLDER)
    tempfile.tempdir = None  # read TMPDIR again


def pytest_collection_modifyitems(items):
    """The longest units of work first (tests/support/xdist_scheduling.py), so that two workers end together."""
    from tests.support.xdist_scheduling import longest_first

    longest_first(items)


def pytest_xdist_make_scheduler(config, log):
    """Two workers share the suite by module, keeping the users of one costly session fixture together
    (tests/support/xdist_scheduling.py)."""
    from tests.support.xdist_scheduling import SharedFixtureScheduling

    return SharedFixtureScheduling(config, log)


@pytest.fixture(scope="session")
def shipped_demo(tmp_path_factory):
    """What several modules read without changing it, built once per session (per xdist worker; the scheduler
    keeps its users on one): the whole graph on the bundled sample with the shipped registry, materialized twice,
    the second time forced (every asset again: it must make no LLM call). Here, not in tests/integration/, so the
    browser tests can start from a copy of its home instead of building one of their own."""
    import dagster as dg  # here, not at the top: the environment above is set before litellm or dagster loads

    from scripts.orchestrate import materialize_everything
    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

    home = tmp_path_factory.mktemp("shipped_demo")
    write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
    resources = resources_for(home)
    # The instance lives as long as the session: it must not take over $DAGSTER_HOME from the other tests.
    with dg.instance_for_test(set_dagster_home=False) as instance:
        # Every step in the run's process, the default (and the faster: bench/README.md).
        first = materialize_everything(instance, resources, workers=1)
        second = materialize_everything(instance, resources, force=True, workers=1)
        yield {"home": home, "resources": resources, "warehouse": resources["warehouse"], "instance": instance,
               "first": first, "second": second}
