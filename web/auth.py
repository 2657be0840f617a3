"""Identity: joining, logging in and out, a new token, and the check every request passes first (who is
signed in, and the form token of every POST). The rules are benchwright.people's."""

from __future__ import annotations

import logging
import secrets

from flask import Blueprint, abort, flash, g, redirect, render_template, request, session, url_for

from benchwright import people
from web.site import current_site, needs_login

log = logging.getLogger("benchwright.web")
bp = Blueprint("auth", __name__)


def sign_in(handle: str, token_sha256: str) -> bool:
    """A fresh cookie for `handle`: a new login id the server can end, and a new form token. False
    (and no cookie) when that token stopped being the person's meanwhile."""
    site = current_site()
    login = secrets.token_urlsafe(32)
    session.clear()
    if not site.store.add_login(people.token_digest(login), handle, token_sha256, site.clock()):
        return False
    session.update(handle=handle, login=login, csrf=secrets.token_urlsafe(16))
    g.handle = handle  # this response already shows the person signed in (the token page after Join)
    return True


@bp.before_app_request
def identify_and_protect():
    # Every blueprint's requests, not only this one's: who is signed in is decided on the server, so a
    # signed cookie whose login was ended (logout, a new token) names nobody, even if someone copied it.
    site = current_site()
    login = session.get("login")
    owner = site.store.login_handle(people.token_digest(login), site.clock()) if isinstance(login, str) else None
    g.handle = owner if owner is not None and owner == session.get("handle") else None
    # Only pages mint the form token: a stylesheet or image request racing the page load with the old
    # cookie would otherwise mint a second one and overwrite the token the page's forms carry.
    if "csrf" not in session and request.endpoint not in ("static", "pages.image", "pages.favicon"):
        session["csrf"] = secrets.token_urlsafe(16)
    if request.method == "POST" and request.form.get("csrf") != session.get("csrf"):
        abort(400, "the form was stale or not ours; reload the page and try again")


@bp.route("/join", methods=["GET", "POST"])
def join():
    if request.method == "GET":
        return render_template("join.html")
    site = current_site()
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


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "GET":
        return render_template("login.html")
    site = current_site()
    handle = (request.form.get("name") or "").strip()
    digest = site.store.token_digest(handle) if people.HANDLE.fullmatch(handle) else None
    if (digest is None or not people.token_matches(request.form.get("token"), digest)
            or not sign_in(handle, digest)):
        flash("That name and token do not match.")
        return render_template("login.html"), 401
    target = request.args.get("next", "")
    return redirect(target if target in ("/game", "/annotate") else url_for("pages.home"))


@bp.post("/logout")
def logout():
    login = session.get("login")
    if isinstance(login, str):
        current_site().store.end_login(people.token_digest(login))
    session.clear()
    return redirect(url_for("pages.home"))


@bp.post("/token")
@needs_login
def new_token():
    """A new token for the signed-in person (the old one leaked, say): every other browser is signed out."""
    token = people.new_token()
    current_site().store.set_token(g.handle, people.token_digest(token))
    sign_in(g.handle, people.token_digest(token))
    log.info("new token for %s", g.handle)
    return render_template("token.html", handle=g.handle, token=token)
