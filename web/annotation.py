"""The pairwise annotation pages: a round of comparisons, one choice at a time. The rules are
benchwright.annotation's; each choice is appended to the round's drop file."""

from __future__ import annotations

import logging
import random
import secrets

from flask import Blueprint, flash, g, redirect, render_template, request, url_for

from benchwright import annotation, durable
from benchwright.human_pairwise import COLUMNS as PAIRWISE_COLUMNS
from web.content import NoData
from web.site import current_site, needs_login, utc_iso

log = logging.getLogger("benchwright.web")
bp = Blueprint("annotation", __name__)


def open_round():
    """(round row, next task, tasks in the round) of the signed-in annotator, else Nones."""
    site = current_site()
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


@bp.get("/annotate")
@needs_login
def annotate_page():
    site = current_site()
    row, task, tasks = open_round()
    if row is None:
        last = site.store.last_round(g.handle)
        done = len(site.round_done(last["round_id"])) if last else 0
        return render_template("annotate_start.html", done=done, last=last)
    view = site.snapshot.task_view(task.pair)
    return render_template("annotate.html", round_id=row["round_id"], task=task, view=view, total=len(tasks),
                           left=view["answers"][task.left_model], right=view["answers"][task.right_model],
                           choices=annotation.CHOICES)


@bp.post("/annotate/start")
@needs_login
def annotate_start():
    if open_round()[0] is None:
        site = current_site()
        try:
            tasks = annotation.plan_round(site.snapshot.pairs(), random.Random(secrets.randbits(64)), site.round_size)
        except ValueError as exc:
            raise NoData(str(exc)) from None
        round_id = secrets.token_hex(8)
        site.store.add_round(round_id, g.handle, site.clock(), annotation.round_to_json(tasks))
        log.info("%s started annotation round %s (%d pairs)", g.handle, round_id, len(tasks))
    return redirect(url_for("annotation.annotate_page"))


@bp.post("/annotate/choose")
@needs_login
def annotate_choose():
    site = current_site()
    choice = request.form.get("choice")
    if choice not in annotation.CHOICES:
        flash("Pick one of the six options.")
        return redirect(url_for("annotation.annotate_page"))
    row, task, _ = open_round()
    if row is None or request.form.get("round_id") != row["round_id"] or request.form.get("position") != str(task.position):
        flash("That comparison was already recorded.")
        return redirect(url_for("annotation.annotate_page"))
    with site.lock(row["round_id"]):
        if task.position in site.round_done(row["round_id"]):
            return redirect(url_for("annotation.annotate_page"))
        now = site.clock()
        record = annotation.choice_record(task, choice, annotator=g.handle, round_id=row["round_id"],
                                          recorded_at=utc_iso(now), seconds_taken=now - row["shown_at"])
        durable.append_csv_row(site.round_file(row["round_id"]), PAIRWISE_COLUMNS, record)
        site.store.shown(row["round_id"], now)
    return redirect(url_for("annotation.annotate_page"))
