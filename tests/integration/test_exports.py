"""Issue #32, items 2 and 3, on the shipped demo's snapshot (built once per session: tests/conftest.py).

Exports: the leaderboards read back from CSV and Parquet equal the snapshot's views, and the Every Eval Ever
records validate against that project's schema and carry the snapshot's numbers. A warehouse that documents
itself: every published table, view and column has a comment, and the SQL shell and the README's one-liner
open the snapshot of BENCHWRIGHT_HOME."""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import jsonschema
import pandas as pd
import pytest

from benchwright import paths
from benchwright.exports import EEE_SCHEMA, RESULTS_SQL, export, leaderboard_views, read_eee, validate

ROOT = Path(__file__).resolve().parents[2]


def _snapshot(shipped_demo) -> Path:
    return Path(shipped_demo["warehouse"].snapshot_path)


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(list(frame.columns)).reset_index(drop=True)


def test_exports_read_back_as_the_snapshot_has_them(shipped_demo, tmp_path):
    snapshot = _snapshot(shipped_demo)
    written = export(snapshot, tmp_path)
    con = duckdb.connect(str(snapshot), read_only=True)
    try:
        views = leaderboard_views(con)
        # The main leaderboards the declared benchmarks' reports print are among them.
        assert {"creation_leaderboard_overall", "urs_leaderboard_overall", "gap_leaderboard",
                "mmmt_if_leaderboard", "interop_leaderboard"} <= set(views)
        assert written["leaderboard_files"] == 2 * len(views)
        for view in views:
            expected = _sorted(con.execute(f"SELECT * FROM {view}").df())
            # A CSV keeps no types: it is read with the view's (what a reader's schema would say).
            types = ", ".join(f"'{name}': '{kind}'" for name, kind, *_ in con.execute(f"DESCRIBE {view}").fetchall())
            for reader in ("read_parquet(?)", f"read_csv(?, header = true, columns = {{{types}}})"):
                path = str(tmp_path / "leaderboards" / f"{view}.{'parquet' if 'parquet' in reader else 'csv'}")
                back = _sorted(con.execute(f"SELECT * FROM {reader}", [path]).df())
                assert list(back.columns) == list(expected.columns), (view, reader)
                assert len(back) == len(expected), (view, reader)
                pd.testing.assert_frame_equal(back, expected, check_exact=True, obj=f"{view} via {reader[:12]}")
        results = con.execute(paths.sql_file(RESULTS_SQL).read_text(encoding="utf-8")).df()
        urs = con.execute("SELECT judge, model, final_score FROM urs_leaderboard_overall "
                          "WHERE final_score IS NOT NULL").df()
        mmmt = con.execute("SELECT model, variant, pif, pif_lower, pif_upper FROM mmmt_if_leaderboard "
                           "WHERE pif IS NOT NULL").df()
    finally:
        con.close()

    files = sorted((tmp_path / "every_eval_ever").rglob("*.json"))
    assert len(files) == written["every_eval_ever_records"] > 0
    schema = json.loads(EEE_SCHEMA.read_text(encoding="utf-8"))
    for path in files:   # the project's schema, asked directly rather than through our validate()
        jsonschema.Draft7Validator(schema).validate(json.loads(path.read_text(encoding="utf-8")))
    back = read_eee(tmp_path / "every_eval_ever")
    scored = results[results["score"].notna()]
    assert len(back) == len(scored) == written["every_eval_ever_results"]
    key = ["benchmark", "judge", "model", "metric", "parameter"]
    merged = back.merge(scored, on=key, suffixes=("", "_snapshot"), validate="one_to_one")
    assert len(merged) == len(back)
    assert (merged["score"] == merged["score_snapshot"]).all()
    with_interval = merged[merged["ci_lower_snapshot"].notna()]
    assert len(with_interval) > 0
    assert (with_interval["ci_lower"] == with_interval["ci_lower_snapshot"]).all()
    assert (with_interval["ci_upper"] == with_interval["ci_upper_snapshot"]).all()
    # And against the leaderboards themselves, not only the query the export reads.
    eee_urs = back[back["metric"] == "final_score"].merge(urs, on=["judge", "model"])
    assert len(eee_urs) == len(urs) > 0 and (eee_urs["score"] == eee_urs["final_score"]).all()
    eee_pif = back[back["metric"] == "pif"].merge(mmmt, left_on=["model", "parameter"], right_on=["model", "variant"])
    assert len(eee_pif) == len(mmmt) > 0
    assert (eee_pif["score"] == eee_pif["pif"]).all() and (eee_pif["ci_lower"] == eee_pif["pif_lower"]).all()
    assert set(back.loc[back["benchmark"] == "mmmt_if", "judge"]) == {""}   # no judge: file none.json


def test_a_record_the_schema_refuses_stops_the_export(shipped_demo, tmp_path):
    export(_snapshot(shipped_demo), tmp_path)
    record = json.loads(next((tmp_path / "every_eval_ever").rglob("*.json")).read_text(encoding="utf-8"))
    validate([record])
    del record["model_info"]["additional_details"]["model_availability"]
    with pytest.raises(ValueError, match="model_info"):
        validate([record])


def test_an_export_replaces_the_earlier_one_whole_and_a_failed_one_leaves_it(shipped_demo, tmp_path, monkeypatch):
    from benchwright import exports

    export(_snapshot(shipped_demo), tmp_path)
    # What an earlier export wrote for a model since removed, and a file of the person's own beside the export.
    stale = tmp_path / "every_eval_ever" / "creation" / "removed-model" / "sim-fair-judge.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}", encoding="utf-8")
    (tmp_path / "leaderboards" / "old_view.csv").write_text("a\n1\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    before = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}

    def refuse(records):
        raise ValueError("a record the schema refuses")

    monkeypatch.setattr(exports, "validate", refuse)
    with pytest.raises(ValueError, match="refuses"):
        export(_snapshot(shipped_demo), tmp_path)
    after = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    assert after == before  # the earlier export as it was (its leaderboards too), no half-written folder left

    monkeypatch.undo()
    written = export(_snapshot(shipped_demo), tmp_path)
    assert not stale.exists() and not (tmp_path / "leaderboards" / "old_view.csv").exists()
    assert len(list((tmp_path / "every_eval_ever").rglob("*.json"))) == written["every_eval_ever_records"]
    assert len(list((tmp_path / "leaderboards").iterdir())) == written["leaderboard_files"]
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["every_eval_ever", "leaderboards", "notes.txt"]


def test_the_published_snapshot_documents_itself(shipped_demo):
    con = duckdb.connect(str(_snapshot(shipped_demo)), read_only=True)
    try:
        assert con.execute("SELECT list(view_name) FROM duckdb_views() WHERE NOT internal AND comment IS NULL"
                           ).fetchone()[0] is None
        assert con.execute("SELECT list(table_name) FROM duckdb_tables() WHERE comment IS NULL").fetchone()[0] is None
        missing = con.execute("SELECT list(table_name || '.' || column_name) FROM duckdb_columns() "
                              "WHERE NOT internal AND comment IS NULL").fetchone()[0]
        assert missing is None, f"published table or view columns without a comment: {missing}"
        comment = con.execute("SELECT comment FROM duckdb_columns() WHERE table_name = 'creation_leaderboard_overall' "
                              "AND column_name = 'reward'").fetchone()[0]
        assert comment.startswith("(100·MB + 50·B")   # the DDL's comment beside creation_leaderboard.reward
    finally:
        con.close()


def _home_env(shipped_demo) -> dict:
    env = {**os.environ, "BENCHWRIGHT_HOME": str(shipped_demo["home"]), "PYTHONPATH": str(ROOT)}
    env.pop("BENCHWRIGHT_WAREHOUSE", None)
    assert Path(env["BENCHWRIGHT_HOME"], paths.SNAPSHOT_FILE) == _snapshot(shipped_demo)
    return env


def waiting_to_read(pid: int, timeout_s: float = 60) -> None:
    """Until the process sleeps (in its read of the terminal, the prompt being written) in 5 looks 20 ms apart."""
    deadline = time.monotonic() + timeout_s
    asleep = 0
    while asleep < 5:
        assert time.monotonic() < deadline, "the shell never waited for input"
        with open(f"/proc/{pid}/stat") as stat:
            asleep = asleep + 1 if stat.read().rsplit(")", 1)[1].split()[0] == "S" else 0
        time.sleep(0.02)


def test_ctrl_c_in_dev_py_sql_drops_the_statement_and_the_shell_goes_on(shipped_demo):
    """In a terminal, Ctrl-C drops what is typed, as in other SQL shells, and the shell goes on; dev.py used to
    kill it 0.25 s after (subprocess.call's rule), with a traceback."""
    import pty
    import select

    pid, terminal = pty.fork()
    if pid == 0:  # the child: dev.py sql in a pseudo-terminal, as a person starts it
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, str(ROOT / "dev.py"), "sql"], _home_env(shipped_demo))
    seen = bytearray()

    def until(text: bytes, timeout_s: float = 60) -> None:
        start = len(seen)
        deadline = time.monotonic() + timeout_s
        while text not in seen[start:]:
            assert time.monotonic() < deadline, f"waited for {text!r}; the terminal shows:\n{seen.decode(errors='replace')}"
            if select.select([terminal], [], [], 0.2)[0]:
                try:
                    seen.extend(os.read(terminal, 4096))
                except OSError:  # the shell ended
                    raise AssertionError(f"the shell ended:\n{seen.decode(errors='replace')}") from None

    try:
        until(b"sql> ")
        os.write(terminal, b"SELECT 'half typed'\n")
        until(b"... ")
        waiting_to_read(pid)  # a signal between the prompt and the read would wait for the next line, as in C
        os.write(terminal, b"\x03")  # Ctrl-C: the terminal sends SIGINT to the shell's process group
        until(b"sql> ")
        os.write(terminal, b"SELECT 40 + 2 AS answer;\n")
        until(b"42")
        os.write(terminal, b".quit\n")
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(terminal)
    assert os.waitstatus_to_exitcode(status) == 0
    shown = seen.decode(errors="replace")
    assert "Traceback" not in shown and "error:" not in shown, shown


def test_the_sql_shell_and_the_readme_one_liner_open_the_homes_snapshot(shipped_demo):
    env = _home_env(shipped_demo)
    con = duckdb.connect(str(_snapshot(shipped_demo)), read_only=True)
    try:
        models = sorted(m for (m,) in con.execute("SELECT DISTINCT model FROM urs_leaderboard_overall").fetchall())
        creation = {m for (m,) in con.execute("SELECT DISTINCT model FROM creation_leaderboard_overall").fetchall()}
    finally:
        con.close()
    session = "SELECT DISTINCT model\nFROM urs_leaderboard_overall ORDER BY model;\n.columns urs_leaderboard_overall\n"
    shell = subprocess.run([sys.executable, str(ROOT / "scripts" / "sql_shell.py")], input=session, env=env,
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert shell.returncode == 0, shell.stderr
    assert [line.strip() for line in shell.stdout.splitlines()[2:2 + len(models)]] == models
    assert "mean of parsed final scores" in shell.stdout   # .columns shows the column comments
    refused = subprocess.run([sys.executable, str(ROOT / "scripts" / "sql_shell.py"), "-c",
                              "CREATE TABLE t AS SELECT 1"], env=env, cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
    assert refused.returncode == 1 and "read-only" in refused.stdout.lower()

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    one_liner = next(line for line in readme.splitlines()
                     if line.startswith(".venv/bin/python -c") and "benchwright_home()" in line)
    command = re.sub(r"^\.venv/bin/python", sys.executable, one_liner)
    printed = subprocess.run(["bash", "-c", command], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert printed.returncode == 0, printed.stderr
    assert creation and all(model in printed.stdout for model in creation)
