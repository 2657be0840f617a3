"""The web app's state file: handles unique regardless of case by an index, also in a file written before
that index existed; its statements in sql/web/state/."""

import logging
import re
import sqlite3

from benchwright.paths import ROOT
from web.store import Store

STATE_SQL = sorted((ROOT / "sql" / "web" / "state").glob("*.sql"))

OLD_PEOPLE = "CREATE TABLE people (handle TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL, created_at REAL NOT NULL)"


def test_a_name_is_taken_whatever_its_case(tmp_path):
    store = Store(tmp_path / "state.sqlite3")
    assert store.add_person("Race1", "a" * 64)
    assert not store.add_person("race1", "b" * 64)
    assert not store.add_person("Race1", "b" * 64)
    assert store.token_digest("Race1") == "a" * 64 and store.token_digest("race1") is None


def test_an_old_state_file_with_names_differing_in_case_keeps_both_and_refuses_a_third(tmp_path, caplog):
    path = tmp_path / "state.sqlite3"
    with sqlite3.connect(path) as con:            # as the app wrote it before, with its check-then-insert race
        con.execute(OLD_PEOPLE)
        con.executemany("INSERT INTO people VALUES (?, ?, ?)",
                        [("race1", "a" * 64, 1.0), ("Race1", "b" * 64, 2.0), ("RACE1", "c" * 64, 3.0), ("solo", "d" * 64, 4.0)])
    with caplog.at_level(logging.WARNING, logger="benchwright.web"):
        store = Store(path)
    assert "2 people joined under a name that differs only in case" in caplog.text
    # Everyone keeps their name and token (their records are under that exact name) ...
    assert [store.token_digest(name) for name in ("race1", "Race1", "RACE1", "solo")] == ["a" * 64, "b" * 64, "c" * 64, "d" * 64]
    # ... and no one new joins under any case of theirs.
    for name in ("rAce1", "SOLO", "race1"):
        assert not store.add_person(name, "e" * 64)
    assert store.add_person("newcomer", "e" * 64)
    # Opening the file again changes nothing more.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="benchwright.web"):
        Store(path)
    assert caplog.text == ""
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT count(*) FROM people WHERE twin <> 0").fetchone() == (2,)


def test_every_statement_file_is_used_by_the_store_and_compiles_on_its_schema(tmp_path):
    store = Store(tmp_path / "state.sqlite3")
    used = set(re.findall(r'statement\("(\w+)"\)', (ROOT / "web" / "store.py").read_text(encoding="utf-8")))
    assert {path.stem for path in STATE_SQL} == used
    with store.connect() as con:
        for path in STATE_SQL:
            if path.stem != "schema":   # the schema ran when the store opened
                text = path.read_text(encoding="utf-8")
                con.execute(f"EXPLAIN {text}", [None] * text.count("?"))
