"""Small numeric work runs on one BLAS thread.

Bootstrap rounds and small optimiser calls (Bradley–Terry fits, the length-control GLM, GAP's player model)
multiply matrices of a few dozen rows thousands of times. OpenBLAS starts a pool of threads for each of
them, and on a busy two-core machine waking that pool cost far more than the arithmetic: the demo's ratings
took 21 s of CPU with the pool and 1.4 s on one thread. So such functions run under ``one_blas_thread``
(threadpoolctl, scoped to the call), not under a process-wide environment setting that would also slow the
large work elsewhere.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from threadpoolctl import threadpool_limits

F = TypeVar("F", bound=Callable)


def one_blas_thread(function: F) -> F:
    """Run ``function`` with BLAS limited to one thread (restored afterwards)."""

    @functools.wraps(function)
    def limited(*args, **kwargs):
        with threadpool_limits(limits=1, user_api="blas"):
            return function(*args, **kwargs)

    return limited  # type: ignore[return-value]
