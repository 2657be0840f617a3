"""The README's main job, as a user runs it: a fresh home, then a replay run that may not call anything."""

import os
import subprocess
import sys

import duckdb

from benchwright.paths import ROOT


# The shipped registry plus one entry a user might write, whose params would fail every run later.
REFUSED_ENTRY = """
sim-dated:
  model: sim/strong-writer
  role: candidate
  params: {since: 2024-01-01}
"""


def run_main_job(home, *args):
    models = home / "models.yaml"
    models.write_text((ROOT / "registry" / "models.yaml").read_text() + REFUSED_ENTRY)
    env = {**os.environ, "BENCHWRIGHT_HOME": str(home), "DAGSTER_HOME": str(home / "dagster_home"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT), "BENCHWRIGHT_MODELS": str(models)}
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "materialize_all.py"), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_main_job_prints_every_leaderboard_then_replays_without_a_call(tmp_path):
    first = run_main_job(tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    for title in ("Creation leaderboard", "Judge quality", "MMMT-IF leaderboard", "URS leaderboard", "GAP-VQA scores"):
        assert f"== {title}" in first.stdout
    # Printed by slug (what SQL takes), with the simulation and injection flags.
    assert "sim-strong" in first.stdout and "simulated" in first.stdout and "flagged_injection" in first.stdout
    assert "(0 failed)" in first.stdout
    assert f"Analyst snapshot: {tmp_path / 'analyst.duckdb'}" in first.stdout
    # The refused entry is named with its file and line in the closing summary; the others still ran.
    summary = first.stdout[first.stdout.index("\nRuns: "):]
    line = (tmp_path / "models.yaml").read_text().splitlines().index("sim-dated:") + 1
    assert "Registry entries refused (not evaluated until fixed): 1" in summary
    assert (f"registry: {tmp_path / 'models.yaml'}: entry 'sim-dated': 'params' must hold plain JSON values" in summary
            and "date" in summary and f"(line {line})" in summary)

    # Replay mode turns any cache miss into an error: a clean second pass proves nothing was re-called.
    second = run_main_job(tmp_path, "--replay")
    assert second.returncode == 0, second.stderr[-3000:]
    assert "LLM calls made: 0," in second.stdout and "(0 failed)" in second.stdout
    con = duckdb.connect(str(tmp_path / "analyst.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM creation_leaderboard_overall").fetchall()[0][0] == 8
        assert con.execute("SELECT count(*) FROM generations WHERE model = 'sim-dated'").fetchall()[0][0] == 0
    finally:
        con.close()
