import os

# litellm must not try to fetch its price map over the (closed) network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Tests build temporary homes; a developer's configured warehouse must never receive their rows.
os.environ.pop("BENCHWRIGHT_WAREHOUSE", None)


def pytest_xdist_make_scheduler(config, log):
    """Two workers share the suite by module, keeping the users of one costly session fixture together
    (tests/support/xdist_scheduling.py)."""
    from tests.support.xdist_scheduling import SharedFixtureScheduling

    return SharedFixtureScheduling(config, log)
