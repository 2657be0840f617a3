"""Benchwright's evaluation library: pure Python, never imports dagster.

Parsing, prompts, metrics, statistics, loaders and the offline simulator live here; the Dagster
folders (assets/, checks/, sensors/, resources/) only decide when and where this code runs.
"""
