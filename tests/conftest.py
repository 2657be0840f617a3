import os

import pytest

# litellm must not try to fetch its price map over the (closed) network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Tests build temporary homes; a developer's configured warehouse must never receive their rows.
os.environ.pop("BENCHWRIGHT_WAREHOUSE", None)


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
        # Every step in the run's process, the default (and the faster: bench/README.md); test_parallel_steps
        # builds the same graph with two step processes and compares it with this one.
        first = materialize_everything(instance, resources, workers=1)
        second = materialize_everything(instance, resources, force=True, workers=1)
        yield {"home": home, "resources": resources, "warehouse": resources["warehouse"], "instance": instance,
               "first": first, "second": second}
