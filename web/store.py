"""The web app's own state in SQLite: people (handle + token digest), game sessions and their plans,
when each image was first shown, the question waiting for a mark, and annotation rounds.

What people *did* is not here: marks and choices go to the drop-folder files (benchwright.durable),
which are the record; this file only says what was planned and shown. WAL with synchronous=FULL, so
a committed row survives a crash too. The schema and every statement of more than one clause are files of
sql/web/state/; only single-clause statements (one table, at most one condition) stay inline.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchwright import paths, people

log = logging.getLogger("benchwright.web")


@functools.cache
def statement(name: str) -> str:
    """The text of sql/web/state/<name>.sql, found as every SQL file is (`paths.sql_file`). Read once per
    process: the login check runs one on every request."""
    return paths.sql_file(f"web/state/{name}.sql").read_text(encoding="utf-8")


def state_path(home: Path) -> Path:
    """Where the web app of a BENCHWRIGHT_HOME keeps its state."""
    return paths.web_folder(home) / "state.sqlite3"


class Store:
    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self.connect() as con:
            con.executescript(statement("schema"))
            self._unique_handles(con)

    @staticmethod
    def _unique_handles(con: sqlite3.Connection) -> None:
        """Handles unique regardless of case, by an index, also in a state file written before there was one.

        Such a file may already hold `race1` and `Race1`, each with a token and records under that exact
        name. Renaming one would split their records and merging them would join two people, so both stay as
        they are: the later of each such group is marked a `twin`, which keeps the index off it; every new
        join meets the index."""
        con.execute("BEGIN IMMEDIATE")      # two processes opening an old file at once migrate it once
        try:
            if "twin" not in {row["name"] for row in con.execute("PRAGMA table_info(people)")}:
                con.execute("ALTER TABLE people ADD COLUMN twin INTEGER NOT NULL DEFAULT 0")
                twins = con.execute(statement("twins")).rowcount
                if twins:
                    log.warning("%d people joined under a name that differs only in case from an earlier person's; "
                                "both keep their names, new names are unique regardless of case", twins)
            con.execute(statement("people_handle_index"))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        con = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        con.row_factory = sqlite3.Row
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=FULL")
            con.execute("PRAGMA foreign_keys=ON")
            yield con
        finally:
            con.close()

    # --- people ---
    def add_person(self, handle: str, token_sha256: str) -> bool:
        """False when the handle is taken, whatever its case. The unique index is the check, so two people
        joining at once under one name (or `Race1` and `race1`) cannot both get it."""
        with self.connect() as con:
            try:
                con.execute("INSERT INTO people (handle, token_sha256, created_at) VALUES (?, ?, ?)",
                            [handle, token_sha256, time.time()])
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" not in str(exc):
                    raise
                return False
            return True

    def set_token(self, handle: str, token_sha256: str) -> bool:
        """A person's new token; every browser signed in before is signed out, in the same transaction.
        False when there is no such person."""
        with self.connect() as con:
            con.execute("BEGIN IMMEDIATE")
            changed = con.execute("UPDATE people SET token_sha256 = ? WHERE handle = ?", [token_sha256, handle]).rowcount
            con.execute("DELETE FROM logins WHERE handle = ?", [handle])
            con.execute("COMMIT")
        return changed == 1

    def add_login(self, login_sha256: str, handle: str, token_sha256: str, now: float) -> bool:
        """Record a signed-in browser, only if `token_sha256` (the token it signed in with) is still the
        person's: a login racing a token change cannot outlive it. Logins past their age are dropped."""
        with self.connect() as con:
            con.execute("BEGIN IMMEDIATE")
            con.execute("DELETE FROM logins WHERE created_at < ?", [now - people.LOGIN_MAX_AGE_S])
            added = con.execute(statement("add_login"), [login_sha256, now, handle, token_sha256]).rowcount
            con.execute("COMMIT")
        return added == 1

    def login_handle(self, login_sha256: str, now: float) -> str | None:
        """The person a login belongs to, or None once it was ended (logout, token change) or is too old."""
        with self.connect() as con:
            row = con.execute(statement("login_handle"), [login_sha256, now - people.LOGIN_MAX_AGE_S]).fetchone()
        return row["handle"] if row else None

    def end_login(self, login_sha256: str) -> None:
        with self.connect() as con:
            con.execute("DELETE FROM logins WHERE login_sha256 = ?", [login_sha256])

    def token_digest(self, handle: str) -> str | None:
        with self.connect() as con:
            row = con.execute("SELECT token_sha256 FROM people WHERE handle = ?", [handle]).fetchone()
        return row["token_sha256"] if row else None

    # --- game ---
    def open_session(self, handle: str) -> sqlite3.Row | None:
        with self.connect() as con:
            return con.execute(statement("open_session"), [handle]).fetchone()

    def last_session(self, handle: str) -> sqlite3.Row | None:
        with self.connect() as con:
            return con.execute(statement("last_session"), [handle]).fetchone()

    def add_session(self, session_id: str, handle: str, started_at: float, seed: str, plan: str) -> None:
        with self.connect() as con:
            con.execute("INSERT INTO game_sessions VALUES (?, ?, ?, ?, ?, NULL)",
                        [session_id, handle, started_at, seed, plan])

    def finish_session(self, session_id: str, at: float) -> None:
        with self.connect() as con:
            con.execute(statement("finish_session"), [at, session_id])

    def unfinished_sessions(self) -> list[sqlite3.Row]:
        with self.connect() as con:
            return con.execute("SELECT * FROM game_sessions WHERE finished_at IS NULL").fetchall()

    def image_starts(self, session_id: str) -> dict[int, float]:
        with self.connect() as con:
            rows = con.execute("SELECT image_order, started_at FROM image_starts WHERE session_id = ?",
                               [session_id]).fetchall()
        return {r["image_order"]: r["started_at"] for r in rows}

    def start_image(self, session_id: str, order: int, at: float) -> None:
        """Record when an image was first shown (a reload does not restart its clock)."""
        with self.connect() as con:
            con.execute(statement("start_image"), [session_id, order, at])

    def pending(self, session_id: str, order: int) -> sqlite3.Row | None:
        with self.connect() as con:
            return con.execute(statement("pending"), [session_id, order]).fetchone()

    def set_pending(self, session_id: str, order: int, question_index: int, question: str, answer: str,
                    planted: bool, at: float) -> None:
        with self.connect() as con:
            con.execute(statement("set_pending"), [session_id, order, question_index, question, answer, int(planted), at])

    def clear_pending(self, session_id: str, order: int) -> None:
        with self.connect() as con:
            con.execute(statement("clear_pending"), [session_id, order])

    # --- annotation ---
    def open_round(self, handle: str) -> sqlite3.Row | None:
        with self.connect() as con:
            return con.execute(statement("open_round"), [handle]).fetchone()

    def last_round(self, handle: str) -> sqlite3.Row | None:
        with self.connect() as con:
            return con.execute(statement("last_round"), [handle]).fetchone()

    def add_round(self, round_id: str, handle: str, at: float, plan: str) -> None:
        with self.connect() as con:
            con.execute("INSERT INTO annotation_rounds VALUES (?, ?, ?, ?, ?, NULL)", [round_id, handle, at, plan, at])

    def shown(self, round_id: str, at: float) -> None:
        """When the current task was shown (for seconds_taken)."""
        with self.connect() as con:
            con.execute("UPDATE annotation_rounds SET shown_at = ? WHERE round_id = ?", [at, round_id])

    def finish_round(self, round_id: str, at: float) -> None:
        with self.connect() as con:
            con.execute(statement("finish_round"), [at, round_id])
