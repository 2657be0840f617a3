"""The GAP game's pages: a session of pictures under a timer, questions to the game's model, the player's
marks, and the weekly leaderboard. The rules are benchwright.gap.game's; marks are appended to the picture's
drop file (`.part` while it is in play, published by `Site.settle` when it is over)."""

from __future__ import annotations

import json
import logging
import random
import secrets
from datetime import datetime, timezone

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for

from benchwright import durable, people
from benchwright.gap import game, logs
from benchwright.pii import redact
from web.content import NoData, ask_game_model
from web.site import current_site, needs_login, utc_iso

log = logging.getLogger("benchwright.web")
bp = Blueprint("game", __name__)


def open_session():
    """(session row, image states) of the signed-in player's session in play, else (None, None)."""
    site = current_site()
    row = site.store.open_session(g.handle)
    states = site.settle(row) if row is not None else None
    return (row, states) if states is not None else (None, None)


def session_summary(session_id: str) -> dict:
    """Points, pictures and questions of a finished session, for the start page."""
    marks = current_site().session_marks(session_id)
    return {"points": game.session_points(marks), "images": len({m["image_order"] for m in marks}),
            "questions": len(marks)}


@bp.get("/game")
@needs_login
def game_page():
    site = current_site()
    row, states = open_session()
    if row is None:
        last = site.store.last_session(g.handle)
        summary = session_summary(last["session_id"]) if last is not None else None
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


@bp.post("/game/start")
@needs_login
def game_start():
    if open_session()[0] is None:
        site = current_site()
        tainted, untainted = site.snapshot.game_images()
        try:
            plan = game.plan_session(tainted, untainted, random.Random(secrets.randbits(64)))
        except ValueError as exc:
            raise NoData(str(exc)) from None
        session_id = secrets.token_hex(8)
        site.store.add_session(session_id, g.handle, site.clock(), secrets.token_hex(16), game.plan_to_json(plan))
        log.info("%s started game session %s", g.handle, session_id)
    return redirect(url_for("game.game_page"))


def current_for_post():
    """(session row, current image state) for a game POST, or (None, None) with the reason flashed."""
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


def clean_question() -> str | None:
    """The POSTed question, checked and with personal data masked; None with the reason flashed."""
    try:
        question = people.clean_text(request.form.get("question"), what="the question",
                                     max_chars=game.QUESTION_MAX_CHARS, min_chars=3)
    except ValueError as exc:
        flash(str(exc))
        return None
    question, found = redact(question)
    if found:
        flash("Personal data in your question was masked before it went anywhere.")
    return question


@bp.post("/game/ask")
@needs_login
def game_ask():
    site = current_site()
    row, current = current_for_post()
    if row is None:
        return redirect(url_for("game.game_page"))
    question = clean_question()
    if question is None:
        return redirect(url_for("game.game_page"))
    index = len(current.marks)
    pending = site.store.pending(row["session_id"], current.image.order)
    if pending is not None and pending["question_index"] == index:
        flash("Mark the model's answer first.")
        return redirect(url_for("game.game_page"))
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
        return redirect(url_for("game.game_page"))
    site.store.set_pending(row["session_id"], current.image.order, index, question, answer, instructed_wrong, site.clock())
    return redirect(url_for("game.game_page"))


@bp.post("/game/mark")
@needs_login
def game_mark():
    site = current_site()
    mark = request.form.get("mark")
    if mark not in logs.MARKS:
        abort(400, "a mark is 'correct' or 'wrong'")
    row, current = current_for_post()
    if row is None:
        return redirect(url_for("game.game_page"))
    with site.lock(row["session_id"]):
        marks = [m for m in site.session_marks(row["session_id"]) if m["image_order"] == current.image.order]
        pending = site.store.pending(row["session_id"], current.image.order)
        if pending is None or pending["question_index"] != len(marks) or request.form.get("question_index") != str(len(marks)):
            flash("That answer was already marked.")
            return redirect(url_for("game.game_page"))
        now = site.clock()
        record = game.mark_record(
            session_id=row["session_id"], player_id=g.handle, session_start=utc_iso(row["started_at"]),
            image=current.image, limit=site.time_limit_s, question_index=pending["question_index"],
            question=pending["question"], model_answer=pending["answer"], instructed_wrong=bool(pending["planted"]),
            mark=mark, seconds_taken=now - current.started_at)
        # Accepted only once on disk; then the image's file is published if the image is over.
        durable.append_line(site.image_file(row["session_id"], current.image.order, True), json.dumps(record))
        site.store.clear_pending(row["session_id"], current.image.order)
    site.settle(row)
    return redirect(url_for("game.game_page"))


@bp.get("/leaderboard")
def leaderboard():
    site = current_site()
    rows = site.snapshot.weekly_leaderboard()
    weeks: dict[str, list[dict]] = {}
    for r in rows:
        weeks.setdefault(r["week"], []).append(r)
    iso = datetime.fromtimestamp(site.clock(), timezone.utc).isocalendar()  # the site's clock: tests set it
    return render_template("leaderboard.html", weeks=weeks, this_week=f"{iso.year}-W{iso.week:02d}")
