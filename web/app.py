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

Layout: `create_app` only assembles. `web/site.py` holds the shared `Site` (kept on the app as
`app.extensions["benchwright"]`) and the login guard; each part of the site is a blueprint in its own
module: `pages` (home, images), `auth` (identity, and the login and form-token check of every request),
`game`, `annotation`, and `explorer` (the read-only results explorer under /explore).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from flask import Flask, render_template

from benchwright import annotation
from benchwright.gap import logs, reliability
from web import annotation as annotation_pages, auth, explorer, game, pages
from web.content import NoData
from web.site import EXTENSION, Site

# Each part of the site, in its own module. A new part is one more module with a `bp = Blueprint(...)` of its
# own, listed here.
BLUEPRINTS = (pages.bp, auth.bp, game.bp, annotation_pages.bp, explorer.bp)


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
    app.extensions[EXTENSION] = site
    if sweep:
        site.start_sweeping()
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    app.after_request(security_headers)
    app.register_error_handler(NoData, no_data)
    for code in (400, 403, 404, 413):
        app.register_error_handler(code, http_error)
    return app


def security_headers(response):
    response.headers["Content-Security-Policy"] = ("default-src 'self'; img-src 'self'; script-src 'self'; "
                                                   "style-src 'self'; form-action 'self'; frame-ancestors 'none'")
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response


def no_data(exc):
    return render_template("message.html", title="Nothing to show yet", message=str(exc)), 503


def http_error(exc):
    return render_template("message.html", title=exc.name, message=exc.description), exc.code
