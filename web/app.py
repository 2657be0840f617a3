"""The people's side of Benchwright: the GAP game and the pairwise annotation page (Flask, server-rendered).

Thin wiring: game rules live in benchwright.gap.game, rounds and choices in benchwright.annotation, durable
appends in benchwright.durable, identity rules in benchwright.people. What people do is appended to the
drop folders the pipeline already watches:

- game marks -> `<home>/drops/gap_logs/gap-<session>-<NN>.jsonl` (one file per image, written as
  `.jsonl.part` while the image is in play and renamed when it is over; the GAP ingest is exactly-once
  by content hash, so it must only ever see finished files);
- annotation choices -> `<home>/drops/human_pairwise/annotation-<round>.csv` (read whole by its assets).

Identity: a handle and a per-person token. Logging in checks the token against its stored digest and
records a login on the server (a random id in the signed cookie, its sha256 in the store), checked on
every request: logout, a new token (`POST /token`, or `python -m web --new-token HANDLE` for a lost one)
or 30 days end it, so a copied cookie stops working. Every write takes the writer from the login, never
from a form.
"""

from __future__ import annotations

import csv
import functools
import json
import logging
import os
import random
import re
import secrets
import threading
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from flask import Flask, abort, flash, g, redirect, render_template, request, session, url_for

from benchwright import annotation, durable, paths, people
from benchwright.gap import declaration as gap_declaration
from benchwright.gap import game
from benchwright.gap import logs, reliability
from benchwright.human_pairwise import COLUMNS as PAIRWISE_COLUMNS
from benchwright.pii import redact
from web.content import NoData, Snapshot, ask_game_model
from web.store import Store, state_path

log = logging.getLogger("benchwright.web")
SHA256 = re.compile(r"[0-9a-f]{64}")
SWEEP_EVERY_S = 5.0


def _utc_iso(epoch: float) -> str:
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


def create_app(home: Path | None = None, *, time_limit_s: float = logs.TIME_LIMIT_S,
               p_planted: float = reliability.DEFAULT_P_PLANTED, game_model: str = "", round_size: int = annotation.ROUND_SIZE,
               sweep: bool = True, clock=time.time) -> Flask:
    from benchwright.paths import benchwright_home

    site = Site(home or benchwright_home(), time_limit_s=time_limit_s, p_planted=p_planted, game_model=game_model,
                round_size=round_size, clock=clock)
    site.recover()
    # litellm takes seconds to import; do it now rather than on a player's first question (their clock runs).
    threading.Thread(target=lambda: __import__("litellm"), name="import-litellm", daemon=True).start()
    app = Flask(__name__)
    app.config.update(SECRET_KEY=site.secret_key, MAX_CONTENT_LENGTH=16 * 1024, SESSION_COOKIE_HTTPONLY=True,
                      SESSION_COOKIE_SAMESITE="Lax", TEMPLATES_AUTO_RELOAD=False)
    app.extensions["benchwright"] = site
    if sweep:
        def sweeper():   # timed-out images reach the pipeline even when nobody loads a page
            while True:
                time.sleep(SWEEP_EVERY_S)
                try:
                    site.settle_all()
                except Exception:  # keep sweeping; the next request settles too
                    log.exception("settling game sessions failed")
        threading.Thread(target=sweeper, name="settle-sessions", daemon=True).start()

    # --- plumbing ------------------------------------------------------------------------------
    def sign_in(handle: str, token_sha256: str) -> bool:
        """A fresh cookie for `handle`: a new login id the server can end, and a new form token. False
        (and no cookie) when that token stopped being the person's meanwhile."""
        login = secrets.token_urlsafe(32)
        session.clear()
        if not site.store.add_login(people.token_digest(login), handle, token_sha256, site.clock()):
            return False
        session.update(handle=handle, login=login, csrf=secrets.token_urlsafe(16))
        return True

    @app.before_request
    def identify_and_protect():
        # Who is signed in is decided on the server: a signed cookie whose login was ended (logout, a new
        # token) names nobody, even if someone copied it.
        login = session.get("login")
        owner = site.store.login_handle(people.token_digest(login), site.clock()) if isinstance(login, str) else None
        g.handle = owner if owner is not None and owner == session.get("handle") else None
        # Only pages mint the form token: a stylesheet or image request racing the page load with the old
        # cookie would otherwise mint a second one and overwrite the token the page's forms carry.
        if "csrf" not in session and request.endpoint not in ("static", "image"):
            session["csrf"] = secrets.token_urlsafe(16)
        if request.method == "POST" and request.form.get("csrf") != session.get("csrf"):
            abort(400, "the form was stale or not ours; reload the page and try again")

    @app.after_request
    def headers(response):
        response.headers["Content-Security-Policy"] = ("default-src 'self'; img-src 'self'; script-src 'self'; "
                                                       "style-src 'self'; form-action 'self'; frame-ancestors 'none'")
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(NoData)
    def no_data(exc):
        return render_template("message.html", title="Nothing to show yet", message=str(exc)), 503

    @app.errorhandler(400)
    @app.errorhandler(403)
    @app.errorhandler(404)
    @app.errorhandler(413)
    def http_error(exc):
        return render_template("message.html", title=exc.name, message=exc.description), exc.code

    def needs_login(view):
        @functools.wraps(view)
        def wrapped(*args, **kwargs):
            if g.handle is None:
                flash("Log in first (or join to get your token).")
                return redirect(url_for("login", next=request.path))
            return view(*args, **kwargs)
        return wrapped

    # --- identity ------------------------------------------------------------------------------
    @app.get("/")
    def home():
        return render_template("home.html")

    @app.route("/join", methods=["GET", "POST"])
    def join():
        if request.method == "GET":
            return render_template("join.html")
        try:
            handle = people.validate_handle(request.form.get("name"))
        except ValueError as exc:
            flash(str(exc))
            return render_template("join.html"), 400
        token = people.new_token()
        # A name already in the logs (e.g. the sample's players) would merge two people's records.
        if handle.lower() in site.snapshot.known_people() or not site.store.add_person(handle, people.token_digest(token)):
            flash("That name is taken; choose another.")
            return render_template("join.html"), 409
        sign_in(handle, people.token_digest(token))
        log.info("new person %s", handle)
        return render_template("token.html", handle=handle, token=token)

    @app.route("/login", methods=["GET", "POST"])
    def login():
        if request.method == "GET":
            return render_template("login.html")
        handle = (request.form.get("name") or "").strip()
        digest = site.store.token_digest(handle) if people.HANDLE.fullmatch(handle) else None
        if (digest is None or not people.token_matches(request.form.get("token"), digest)
                or not sign_in(handle, digest)):
            flash("That name and token do not match.")
            return render_template("login.html"), 401
        target = request.args.get("next", "")
        return redirect(target if target in ("/game", "/annotate") else url_for("home"))

    @app.post("/logout")
    def logout():
        login = session.get("login")
        if isinstance(login, str):
            site.store.end_login(people.token_digest(login))
        session.clear()
        return redirect(url_for("home"))

    @app.post("/token")
    @needs_login
    def new_token():
        """A new token for the signed-in person (the old one leaked, say): every other browser is signed out."""
        token = people.new_token()
        site.store.set_token(g.handle, people.token_digest(token))
        sign_in(g.handle, people.token_digest(token))
        log.info("new token for %s", g.handle)
        return render_template("token.html", handle=g.handle, token=token)

    @app.get("/image/<sha256>")
    def image(sha256: str):
        if not SHA256.fullmatch(sha256):
            abort(404)
        found = site.snapshot.image(sha256)
        if found is None:
            abort(404)
        return app.response_class(found.data, mimetype=found.mime)

    # --- game ----------------------------------------------------------------------------------
    def open_session():
        """(session row, image states) of the signed-in player's session in play, else (None, None)."""
        row = site.store.open_session(g.handle)
        states = site.settle(row) if row is not None else None
        return (row, states) if states is not None else (None, None)

    @app.get("/game")
    @needs_login
    def game_page():
        row, states = open_session()
        if row is None:
            last = site.store.last_session(g.handle)
            summary = None
            if last is not None:
                marks = site.session_marks(last["session_id"])
                summary = {"points": game.session_points(marks), "images": len({m["image_order"] for m in marks}),
                           "questions": len(marks)}
            return render_template("game_start.html", summary=summary)
        now = site.clock()
        current = game.current_image(states)
        if current.started_at is None:
            site.store.start_image(row["session_id"], current.image.order, now)
            # Another request may have shown it a moment earlier: its clock is the one stored.
            current.started_at = site.store.image_starts(row["session_id"])[current.image.order]
        pending = site.store.pending(row["session_id"], current.image.order)
        if pending is not None and pending["question_index"] != len(current.marks):
            pending = None     # already marked (the log is the record), or left from before a crash
        return render_template("game.html", session_id=row["session_id"], image=current.image, total=len(states),
                               marks=current.marks, pending=pending, seconds_left=current.seconds_left(now, site.time_limit_s),
                               time_limit=site.time_limit_s, max_chars=game.QUESTION_MAX_CHARS)

    @app.post("/game/start")
    @needs_login
    def game_start():
        if open_session()[0] is None:
            tainted, untainted = site.snapshot.game_images()
            try:
                plan = game.plan_session(tainted, untainted, random.Random(secrets.randbits(64)))
            except ValueError as exc:
                raise NoData(str(exc)) from None
            session_id = secrets.token_hex(8)
            site.store.add_session(session_id, g.handle, site.clock(), secrets.token_hex(16), game.plan_to_json(plan))
            log.info("%s started game session %s", g.handle, session_id)
        return redirect(url_for("game_page"))

    def current_for_post():
        """(session row, current image state) for a game POST, or a redirect with the reason flashed."""
        row, states = open_session()
        if row is None or request.form.get("session_id") != row["session_id"]:
            flash("That session is over.")
            return None, None
        current = game.current_image(states)
        if str(current.image.order) != request.form.get("image_order"):
            flash("Time was up for that image; this is the next one.")
            return None, None
        if current.started_at is None:      # never shown: nothing can have been asked about it
            flash("Start from the game page.")
            return None, None
        return row, current

    @app.post("/game/ask")
    @needs_login
    def game_ask():
        row, current = current_for_post()
        if row is None:
            return redirect(url_for("game_page"))
        try:
            question = people.clean_text(request.form.get("question"), what="the question",
                                         max_chars=game.QUESTION_MAX_CHARS, min_chars=3)
        except ValueError as exc:
            flash(str(exc))
            return redirect(url_for("game_page"))
        question, found = redact(question)
        if found:
            flash("Personal data in your question was masked before it went anywhere.")
        index = len(current.marks)
        pending = site.store.pending(row["session_id"], current.image.order)
        if pending is not None and pending["question_index"] == index:
            flash("Mark the model's answer first.")
            return redirect(url_for("game_page"))
        entry = site.registry.game_model(site.game_model_slug)
        if entry is None:
            raise NoData("no model for the game: register a describer or a candidate in registry/models.yaml")
        instructed_wrong = current.image.tainted and game.planted(row["seed"], current.image.order, index, site.p_planted)
        image = site.snapshot.image(current.image.sha256)
        if image is None:
            raise NoData("the game's image is missing from the snapshot; re-run the pipeline")
        answer, error = ask_game_model(site.llm, entry, question, image, instructed_wrong,
                                       tag=f"game:{row['session_id']}:{current.image.order}:{index}")
        if answer is None:
            log.warning("game model failed for session %s: %s", row["session_id"], error)
            flash("The model could not answer just now; please ask again.")
            return redirect(url_for("game_page"))
        site.store.set_pending(row["session_id"], current.image.order, index, question, answer, instructed_wrong, site.clock())
        return redirect(url_for("game_page"))

    @app.post("/game/mark")
    @needs_login
    def game_mark():
        mark = request.form.get("mark")
        if mark not in logs.MARKS:
            abort(400, "a mark is 'correct' or 'wrong'")
        row, current = current_for_post()
        if row is None:
            return redirect(url_for("game_page"))
        with site.lock(row["session_id"]):
            marks = [m for m in site.session_marks(row["session_id"]) if m["image_order"] == current.image.order]
            pending = site.store.pending(row["session_id"], current.image.order)
            if pending is None or pending["question_index"] != len(marks) or request.form.get("question_index") != str(len(marks)):
                flash("That answer was already marked.")
                return redirect(url_for("game_page"))
            now = site.clock()
            record = game.mark_record(
                session_id=row["session_id"], player_id=g.handle, session_start=_utc_iso(row["started_at"]),
                image=current.image, limit=site.time_limit_s, question_index=pending["question_index"],
                question=pending["question"], model_answer=pending["answer"], instructed_wrong=bool(pending["planted"]),
                mark=mark, seconds_taken=now - current.started_at)
            # Accepted only once on disk; then the image's file is published if the image is over.
            durable.append_line(site.image_file(row["session_id"], current.image.order, True), json.dumps(record))
            site.store.clear_pending(row["session_id"], current.image.order)
        site.settle(row)
        return redirect(url_for("game_page"))

    @app.get("/leaderboard")
    def leaderboard():
        rows = site.snapshot.weekly_leaderboard()
        weeks: dict[str, list[dict]] = {}
        for r in rows:
            weeks.setdefault(r["week"], []).append(r)
        iso = datetime.now(timezone.utc).isocalendar()
        return render_template("leaderboard.html", weeks=weeks, this_week=f"{iso.year}-W{iso.week:02d}")

    # --- annotation ----------------------------------------------------------------------------
    def open_round():
        """(round row, next task, tasks in the round) of the signed-in annotator, else Nones."""
        row = site.store.open_round(g.handle)
        if row is None:
            return None, None, []
        tasks = annotation.round_from_json(row["plan"])
        done = site.round_done(row["round_id"])
        todo = [t for t in tasks if t.position not in done]
        if not todo:
            site.store.finish_round(row["round_id"], site.clock())
            return None, None, []
        return row, todo[0], tasks

    @app.get("/annotate")
    @needs_login
    def annotate_page():
        row, task, tasks = open_round()
        if row is None:
            last = site.store.last_round(g.handle)
            done = len(site.round_done(last["round_id"])) if last else 0
            return render_template("annotate_start.html", done=done, last=last)
        view = site.snapshot.task_view(task.pair)
        return render_template("annotate.html", round_id=row["round_id"], task=task, view=view, total=len(tasks),
                               left=view["answers"][task.left_model], right=view["answers"][task.right_model],
                               choices=annotation.CHOICES)

    @app.post("/annotate/start")
    @needs_login
    def annotate_start():
        if open_round()[0] is None:
            try:
                tasks = annotation.plan_round(site.snapshot.pairs(), random.Random(secrets.randbits(64)), site.round_size)
            except ValueError as exc:
                raise NoData(str(exc)) from None
            round_id = secrets.token_hex(8)
            site.store.add_round(round_id, g.handle, site.clock(), annotation.round_to_json(tasks))
            log.info("%s started annotation round %s (%d pairs)", g.handle, round_id, len(tasks))
        return redirect(url_for("annotate_page"))

    @app.post("/annotate/choose")
    @needs_login
    def annotate_choose():
        choice = request.form.get("choice")
        if choice not in annotation.CHOICES:
            flash("Pick one of the six options.")
            return redirect(url_for("annotate_page"))
        row, task, _ = open_round()
        if row is None or request.form.get("round_id") != row["round_id"] or request.form.get("position") != str(task.position):
            flash("That comparison was already recorded.")
            return redirect(url_for("annotate_page"))
        with site.lock(row["round_id"]):
            if task.position in site.round_done(row["round_id"]):
                return redirect(url_for("annotate_page"))
            now = site.clock()
            record = annotation.choice_record(task, choice, annotator=g.handle, round_id=row["round_id"],
                                              recorded_at=_utc_iso(now), seconds_taken=now - row["shown_at"])
            durable.append_csv_row(site.round_file(row["round_id"]), PAIRWISE_COLUMNS, record)
            site.store.shown(row["round_id"], now)
        return redirect(url_for("annotate_page"))

    return app
