"""What every part of the site shows: the home page, and the snapshot's images (game pictures, the images
of a Creation item being compared)."""

from __future__ import annotations

import re

from flask import Blueprint, abort, current_app, render_template

from web.site import current_site

SHA256 = re.compile(r"[0-9a-f]{64}")
bp = Blueprint("pages", __name__)


@bp.get("/")
def home():
    return render_template("home.html")


@bp.get("/image/<sha256>")
def image(sha256: str):
    if not SHA256.fullmatch(sha256):
        abort(404)
    found = current_site().snapshot.image(sha256)
    if found is None:
        abort(404)
    return current_app.response_class(found.data, mimetype=found.mime)
