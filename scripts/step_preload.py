"""Imported once by the forkserver that forks the main job's step processes (definitions.step_processes).

Importing the code location is not enough: rebuilding the asset job from it takes most of a second, and
Dagster caches the rebuilt job per process. Doing it here, before any fork, lets every step process
start with it already built.

Then everything loaded so far is frozen out of the garbage collector's reach: a forked step would
otherwise walk these ~700,000 inherited objects at each full collection (≈ 0.4 s each), copying every
page it touches out of the shared memory.
"""

import atexit
import gc

from scripts.orchestrate import asset_job

asset_job().get_definition()
gc.freeze()
# The forkserver itself ends normally: let the interpreter free the frozen objects then, or native
# extensions (DuckDB's bindings) report them as leaked. Step processes end without running this.
atexit.register(gc.unfreeze)
