"""What every part of the site shows: the home page, and the snapshot's images (game pictures, the images
of a Creation item being compared)."""

from __future__ import annotations

import functools
import io
import re

from flask import Blueprint, abort, current_app, redirect, render_template, url_for

from web.site import current_site, explorer_only

SHA256 = re.compile(r"[0-9a-f]{64}")
bp = Blueprint("pages", __name__)


@bp.get("/")
def home():
    if explorer_only():  # the analyst server has no game to invite anyone to
        return redirect(url_for("explorer.index"))
    return render_template("home.html")


@functools.cache
def _favicon() -> bytes:
    """A 32×32 icon drawn once per process: a white "B" on the header's blue (style.css), so browsers stop
    asking for a favicon that is not there (a 404 in every page's log)."""
    from PIL import Image, ImageDraw  # only here: the pages that never need it do not pay for the import

    icon = Image.new("RGB", (32, 32), (0x1E, 0x3A, 0x5F))
    draw = ImageDraw.Draw(icon)
    draw.rectangle((9, 6, 12, 25), fill="white")  # the B's stem and its two bowls
    draw.rounded_rectangle((9, 6, 22, 15), radius=4, outline="white", width=3)
    draw.rounded_rectangle((9, 15, 24, 25), radius=4, outline="white", width=3)
    buffer = io.BytesIO()
    icon.save(buffer, format="ICO", sizes=[(32, 32)])
    return buffer.getvalue()


@bp.get("/favicon.ico")
def favicon():
    response = current_app.response_class(_favicon(), mimetype="image/vnd.microsoft.icon")
    response.cache_control.max_age = 86400
    response.cache_control.public = True
    return response


@bp.get("/image/<sha256>")
def image(sha256: str):
    if not SHA256.fullmatch(sha256):
        abort(404)
    found = current_site().snapshot.image(sha256)
    if found is None:
        abort(404)
    return current_app.response_class(found.data, mimetype=found.mime)
