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

Analyst mode (`create_app(explorer_only=True)`, `python -m web --explorer-only`): a separate server with only
`pages` (images, favicon; its home sends you to /explore/) and `explorer`, no game, no sign-in, no annotation, no
state file and no write of any kind; only there does the explorer show the game's side of GAP (picture ids and
sets, planted answers, players' marks), which the game's own server must never show its players.
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
from web.site import EXPLORER_ONLY, EXTENSION, ExplorerSite, Site

# Each part of the site, in its own module. A new part is one more module with a `bp = Blueprint(...)` of its
# own, listed here.
BLUEPRINTS = (pages.bp, auth.bp, game.bp, annotation_pages.bp, explorer.bp)
# The analyst server's parts: what the explorer's pages need, nothing a player uses.
EXPLORER_BLUEPRINTS = (pages.bp, explorer.bp)


def create_app(home: Path | None = None, *, time_limit_s: float = logs.TIME_LIMIT_S,
               p_planted: float = reliability.DEFAULT_P_PLANTED, game_model: str = "", round_size: int = annotation.ROUND_SIZE,
               sweep: bool = True, clock=time.time, explorer_only: bool = False) -> Flask:
    from benchwright.paths import benchwright_home

    if explorer_only:
        return _explorer_app(home or benchwright_home())
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
    _finish(app)
    return app


def _explorer_app(home: Path) -> Flask:
    """The analyst server: the explorer over the snapshot, with the game's records (module docstring). No cookie
    is ever set (no secret key: nothing here signs in or posts)."""
    app = Flask(__name__)
    app.config.update(MAX_CONTENT_LENGTH=16 * 1024, TEMPLATES_AUTO_RELOAD=False, **{EXPLORER_ONLY: True})
    app.extensions[EXTENSION] = ExplorerSite(home)
    for blueprint in EXPLORER_BLUEPRINTS:
        app.register_blueprint(blueprint)
    _finish(app)
    return app


def _finish(app: Flask) -> None:
    app.after_request(security_headers)
    app.register_error_handler(NoData, no_data)
    for code in (400, 403, 404, 413):
        app.register_error_handler(code, http_error)


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
