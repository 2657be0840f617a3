"""docs/ARCHITECTURE.md "Adding a benchmark", proven: a tiny benchmark that exists only in the tests (a
loader, a step, a metric, its DDL and view: tests/support/tiny_benchmark.py) is written to a folder outside the
repository, named in BENCHWRIGHT_PLUGINS, and the README's main job (the session's shared run,
tests/integration/conftest.py) runs it with every other benchmark — its runs, its
table, its snapshot view and its printed report — with no file of the repository changed.
"""

import subprocess

import duckdb

from benchwright.paths import ROOT


def test_a_benchmark_defined_outside_the_repository_runs_in_the_main_job(main_job):
    run, home, plugin = main_job["first"], main_job["home"], main_job["plugin"]
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "(0 failed)" in run.stdout
    # Its runs: one per registered candidate, like every benchmark's generations.
    assert "materializing tiny_generations [sim-strong]" in run.stdout
    # Its report, printed after ours, from its own view in the analyst snapshot.
    report = run.stdout[run.stdout.index("== Tiny benchmark (mean words per answer) =="):]
    assert "mean_words" in report.splitlines()[1] and "sim-strong" in report
    snapshot = duckdb.connect(str(home / "analyst.duckdb"), read_only=True)
    try:
        board = snapshot.execute("SELECT model, answers FROM tiny_leaderboard ORDER BY model").fetchall()
        models = snapshot.execute("SELECT DISTINCT model FROM generations WHERE benchmark = 'creation' "
                                  "ORDER BY model").fetchall()
        problems = snapshot.execute("SELECT location FROM dataset_problems WHERE benchmark = 'tiny'").fetchall()
    finally:
        snapshot.close()
    assert [m for m, _ in board] == [m for (m,) in models]  # every candidate, the same ones as Creation's
    assert all(answers == 2 for _, answers in board)  # both good questions; the bad line is a problem
    assert problems == [(f"{plugin / 'questions.jsonl'}:3",)]
    # Nothing of the repository changed to get here.
    assert subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                          text=True).stdout == main_job["tracked_before"]
