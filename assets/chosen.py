"""Dagster APIs still marked beta or preview that we use on purpose, used without their warning.

Dynamic and multi-dimensional partition mappings, observable source assets, partitioned asset checks and
`include_sources` are what the design rests on (docs/ARCHITECTURE.md); the warnings Dagster prints for them on
every load said nothing a newcomer could act on and buried our own output. Only these call sites are quiet: the
same warning from any other use, and every other warning, still shows.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator

import dagster as dg


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Dagster's beta and preview warnings silenced inside the block only."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        warnings.simplefilter("ignore", dg.PreviewWarning)
        yield


def chosen(api: Callable, /, *args, **kwargs):
    """``api(*args, **kwargs)`` (a Dagster decorator factory such as ``dg.asset_check``) as a decorator, quiet both
    when it is built and when it is applied (Dagster warns at either moment, depending on the API)."""
    with quiet():
        decorator = api(*args, **kwargs)

    def apply(function):
        with quiet():
            return decorator(function)

    return apply
