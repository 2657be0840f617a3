"""What every blueprint of the web app shares: the `Site` (settings, state, folders, the snapshot, the LLM
client), kept on the app as `app.extensions["benchwright"]` and reached from a request by `current_site()`, and the
`needs_login` guard. The analyst server (`create_app(explorer_only=True)`) has an `ExplorerSite` instead: the
snapshot only."""

from __future__ import annotations

import csv
import functools
import json
import logging
import os
import secrets
import threading
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from flask import current_app, flash, g, redirect, request, url_for

from benchwright import durable, paths
from benchwright.gap import declaration as gap_declaration
from benchwright.gap import game
from web.content import Snapshot
from web.store import Store, state_path

log = logging.getLogger("benchwright.web")
EXTENSION = "benchwright"
EXPLORER_ONLY = "BENCHWRIGHT_EXPLORER_ONLY"   # the app's config flag of the analyst server
SWEEP_EVERY_S = 5.0


def utc_iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="seconds")


def _secret_key(path: Path) -> bytes:
    """The cookie-signing key, made once per home and readable by its owner only."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(32))
    return path.read_bytes()


class Site:
    """Everything the handlers share: settings, state, folders, the snapshot, the LLM client."""

    def __init__(self, home: Path, *, time_limit_s: float, p_planted: float, game_model: str, round_size: int,
                 clock=time.time):
        from resources import default_resources

        resources = default_resources(home=home)
        warehouse = resources["warehouse"]
        self.llm, self.registry = resources["llm"], resources["registry"]
        self.snapshot = Snapshot(Path(warehouse.snapshot_path))
        self.gap_folder = paths.drop_folder(warehouse.database, gap_declaration.LOG_DROPS)
        self.pairwise_folder = paths.drop_folder(warehouse.database, paths.HUMAN_PAIRWISE)
        self.store = Store(state_path(home))
        self.secret_key = _secret_key(paths.web_folder(home) / "secret_key")
        self.time_limit_s, self.p_planted, self.game_model_slug, self.round_size = time_limit_s, p_planted, game_model, round_size
        self.clock = clock
        self._locks: dict[str, threading.Lock] = defaultdict(threading.Lock)
        self._locks_guard = threading.Lock()

    def lock(self, key: str) -> threading.Lock:
        """One lock per session or round: a double click cannot write the same question twice."""
        with self._locks_guard:
            return self._locks[key]

    # --- game files ---
    def image_file(self, session_id: str, order: int, part: bool) -> Path:
        return self.gap_folder / f"gap-{session_id}-{order:02d}.jsonl{'.part' if part else ''}"

    def session_marks(self, session_id: str) -> list[dict]:
        files = sorted(self.gap_folder.glob(f"gap-{session_id}-*.jsonl")) + sorted(self.gap_folder.glob(f"gap-{session_id}-*.jsonl.part"))
        return [json.loads(line) for path in files for line in durable.read_lines(path)]

    def states(self, row) -> list[game.ImageState]:
        return game.image_states(game.plan_from_json(row["plan"]), self.session_marks(row["session_id"]),
                                 self.store.image_starts(row["session_id"]), self.clock(), self.time_limit_s)

    def settle(self, row) -> list[game.ImageState] | None:
        """Publish the files of images that are over; close the session when all are, or at its reset.
        Returns where each image stands, or None when the session is over."""
        with self.lock(row["session_id"]):
            now = self.clock()
            states = self.states(row)
            expired = game.session_expired(row["started_at"], now)
            for state in states:
                if state.over or expired:
                    order = state.image.order
                    if durable.publish(self.image_file(row["session_id"], order, True), self.image_file(row["session_id"], order, False)):
                        log.info("published game log %s image %d", row["session_id"], order)
            if expired or game.current_image(states) is None:
                self.store.finish_session(row["session_id"], now)
                return None
            return states

    def settle_all(self) -> None:
        for row in self.store.unfinished_sessions():
            self.settle(row)

    def start_sweeping(self) -> None:
        """Timed-out images reach the pipeline even when nobody loads a page."""
        def sweeper():
            while True:
                time.sleep(SWEEP_EVERY_S)
                try:
                    self.settle_all()
                except Exception:  # keep sweeping; the next request settles too
                    log.exception("settling game sessions failed")
        threading.Thread(target=sweeper, name="settle-sessions", daemon=True).start()

    def recover(self) -> None:
        """After a crash: cut torn last lines, then publish whatever became final meanwhile."""
        folders = [(self.gap_folder, "gap-*.jsonl.part"), (self.pairwise_folder, "annotation-*.csv")]
        for folder, pattern in folders:
            for path in folder.glob(pattern):
                if dropped := durable.repair_torn_tail(path):
                    log.warning("cut a torn last line (%d bytes) from %s", dropped, path.name)
        self.settle_all()

    # --- annotation files ---
    def round_file(self, round_id: str) -> Path:
        return self.pairwise_folder / f"annotation-{round_id}.csv"

    def round_done(self, round_id: str) -> set[int]:
        lines = durable.read_lines(self.round_file(round_id))
        return {int(r["item_position"]) for r in csv.DictReader(lines)} if lines else set()


class ExplorerSite:
    """What the analyst server shares: the analyst snapshot, nothing else (no state file, no secret key, no LLM
    client, no drop folder: it writes nothing)."""

    def __init__(self, home: Path):
        self.snapshot = Snapshot(home / paths.SNAPSHOT_FILE)


def current_site() -> Site | ExplorerSite:
    """The Site of the app serving the current request."""
    return current_app.extensions[EXTENSION]


def explorer_only() -> bool:
    """Whether this app is the analyst server, the only one that may show the game's records (planted answers,
    players' marks, which set a picture is in). False unless set: the game's server never shows them."""
    return current_app.config.get(EXPLORER_ONLY) is True


def needs_login(view):
    """Send a visitor who is not signed in to the login page, and back here after it."""
    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        if g.handle is None:
            flash("Log in first (or join to get your token).")
            return redirect(url_for("auth.login", next=request.path))
        return view(*args, **kwargs)
    return wrapped
