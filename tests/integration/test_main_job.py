"""The README's main job, as a user runs it: a fresh home, then a replay run that may not call anything, and a
copy of the finished home run from a copy of the repository, which has nothing to do.
The first run is the session's shared one (tests/integration/conftest.py `main_job`)."""

import shutil

import duckdb

from benchwright.paths import ROOT
from tests.integration.conftest import configured_warehouse, run_main_job


def test_main_job_prints_every_leaderboard_then_replays_without_a_call(main_job):
    first, home = main_job["first"], main_job["home"]
    assert first.returncode == 0, first.stderr[-3000:]
    for title in ("Creation leaderboard", "Judge quality", "MMMT-IF leaderboard", "URS leaderboard", "GAP-VQA scores"):
        assert f"== {title}" in first.stdout
    # Printed by slug (what SQL takes), with the simulation and injection flags.
    assert "sim-strong" in first.stdout and "simulated" in first.stdout and "flagged_injection" in first.stdout
    assert "(0 failed)" in first.stdout
    # The cost ledger of this job's runs: every benchmark, the calls adding up to the summary line's.
    made = int(first.stdout.split("LLM calls made: ")[1].split(",")[0])
    ledger = first.stdout[first.stdout.index("LLM use of this job's runs"):first.stdout.index("\nRuns: ")]
    rows = [line.split() for line in ledger.strip().splitlines()[3:]]  # after the title, header and rule lines
    # The plugin's asset names no scope: it is filed under its asset, its name's first word the benchmark.
    assert {row[0] for row in rows} == {"creation", "urs", "mmmt_if", "gap", "tiny"}
    assert ["tiny", "tiny_generations"] == [row[:2] for row in rows if row[0] == "tiny"][0]
    assert "creation_pairwise_judgments" in ledger and made > 0
    assert ledger.startswith(f"LLM use of this job's runs: {made} calls, ")
    assert f"Analyst snapshot: {home / 'analyst.duckdb'}" in first.stdout
    # The warehouse went where BENCHWRIGHT_WAREHOUSE said, and nowhere else: no file in the home, the
    # rows (and the lock) beside the configured file, and the snapshot built from it.
    warehouse = configured_warehouse(home)
    assert f"Warehouse:        {warehouse}" in first.stdout
    assert not (home / "warehouse.duckdb").exists() and not list(home.glob("warehouse.duckdb*"))
    rows = duckdb.connect(str(warehouse), read_only=True)
    try:
        assert rows.execute("SELECT count(*) FROM generations WHERE benchmark = 'creation'").fetchall()[0][0] > 0
    finally:
        rows.close()
    # The refused entry is named with its file and line in the closing summary; the others still ran.
    summary = first.stdout[first.stdout.index("\nRuns: "):]
    lines = (home / "models.yaml").read_text().splitlines()
    line = lines.index("  params: {since: 2024-01-01}", lines.index("sim-dated:")) + 1  # the key at fault's line
    assert "Registry entries refused (not evaluated until fixed): 1" in summary
    assert "  check: ERROR registry_labels:registry_entries_accepted\n" in summary  # a failed check, as in the UI
    assert (f"registry: {home / 'models.yaml'}: entry 'sim-dated': 'params' must hold plain JSON values" in summary
            and "params.since is a YAML date" in summary and f"(line {line}, field params.since)" in summary)

    # Replay mode turns any cache miss into an error: a clean forced second pass of Creation's and the plugin's
    # assets (each runs again) proves none of their calls was made again. (The whole graph forced makes no call
    # either: tests/integration/test_pipeline.py, on the shipped demo.)
    second = main_job["run"]("--replay", "--force", "--benchmark", "creation", "--benchmark", "tiny",
                             "--launched-by", "demo")
    assert second.returncode == 0, second.stderr[-3000:]
    assert "LLM calls made: 0," in second.stdout and "(0 failed)" in second.stdout
    assert int(second.stdout.split("cache hits: ")[1].split(",")[0]) > 0  # its answers were read again
    # Not a terminal: no progress bar drawn, the lines alone (benchwright/progress_bars.py).
    assert "\r" not in first.stdout + second.stdout and "run/s" not in first.stdout + second.stdout
    # Each run carries the dev.py command that launched it (run by default, demo as dev.py's demo says).
    import dagster as dg

    from scripts.orchestrate import LAUNCHED_BY_TAG

    with dg.DagsterInstance.from_config(str(home / "dagster_home")) as instance:
        launched = [run.tags.get(LAUNCHED_BY_TAG) for run in instance.get_runs()]
    runs_of = lambda output: int(output.split("\nRuns: ")[1].split(" ")[0])  # noqa: E731
    assert set(launched) == {"run", "demo"} and launched.count("demo") == runs_of(second.stdout) > 0
    assert launched.count("run") >= runs_of(first.stdout) > 0
    con = duckdb.connect(str(home / "analyst.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM creation_leaderboard_overall").fetchall()[0][0] == 8
        assert con.execute("SELECT count(*) FROM generations WHERE model = 'sim-dated'").fetchall()[0][0] == 0
    finally:
        con.close()


def test_a_copied_home_run_from_a_moved_checkout_runs_nothing(main_job, tmp_path):
    """Nothing new is nothing new wherever the home, its warehouse, the plugin and the repository are: no data
    version may hold where a file is (the drop folders and the sample data were hashed with their paths)."""
    assert main_job["first"].returncode == 0, main_job["first"].stderr[-3000:]
    original = main_job["home"].parent                        # the home, the warehouse beside it, the plugin
    shutil.copytree(original, tmp_path / "copy", symlinks=True)
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT, checkout, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", ".venv", ".benchwright", "__pycache__", ".pytest_cache"))
    done = run_main_job(tmp_path / "copy" / "home", tmp_path / "copy" / "plugin", checkout=checkout)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "new data versions" not in done.stdout                     # no input looked changed ...
    assert "Runs: 0 (0 failed), LLM calls made: 0," in done.stdout     # ... so nothing ran and nothing was called
    assert f"Analyst snapshot: {tmp_path / 'copy' / 'home' / 'analyst.duckdb'}" in done.stdout
