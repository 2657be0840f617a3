"""Imported once by the forkserver that forks the main job's step processes (scripts/orchestrate.py).

Importing the code location is not enough: rebuilding the asset job from it takes most of a second, and
Dagster caches the rebuilt job per process. Doing it here, before any fork, lets every step process
start with it already built.
"""

from scripts.orchestrate import asset_job

asset_job().get_definition()
