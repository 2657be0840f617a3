"""Simulated vision: name the palette colours that fill an image.

Sample images are drawn only in ``benchwright.colors.PALETTE`` colours, so mapping each pixel to
its nearest palette colour recovers what was drawn, even after JPEG compression or resizing.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
from collections import Counter

from PIL import Image, UnidentifiedImageError

from benchwright.colors import PALETTE

# Colours covering less than this share of the image (edges, specks) are not "seen".
MIN_AREA_SHARE = 0.02
_WORKING_SIZE = (96, 96)
_CACHE_LIMIT = 512
_cache: dict[str, tuple[tuple[str, ...], str | None]] = {}


def nearest_palette_colour(rgb: tuple[int, int, int]) -> str:
    return min(
        PALETTE,
        key=lambda name: sum((channel - ref) ** 2 for channel, ref in zip(rgb, PALETTE[name])),
    )


def decode_data_url(url: str) -> Image.Image | None:
    """The image inside a base64 data URL, or None (other URLs are never fetched)."""
    if not isinstance(url, str) or not url.startswith("data:"):
        return None
    header, _, payload = url.partition(",")
    if ";base64" not in header:
        return None
    try:
        image = Image.open(io.BytesIO(base64.b64decode(payload, validate=False)))
        image.load()
        return image
    except (binascii.Error, UnidentifiedImageError, OSError, ValueError):
        return None


def analyse_image(image: Image.Image) -> tuple[list[str], str | None]:
    """(colours of the drawn content by area, largest first; background colour).

    The background is the most common palette colour along the border.
    """
    image = image.convert("RGB")
    image.thumbnail(_WORKING_SIZE, Image.Resampling.NEAREST)
    width, height = image.size
    pixels = image.load()

    area = Counter()
    for count, rgb in image.getcolors(maxcolors=width * height):
        area[nearest_palette_colour(rgb)] += count

    border = Counter()
    for x in range(width):
        border[pixels[x, 0]] += 1
        border[pixels[x, height - 1]] += 1
    for y in range(height):
        border[pixels[0, y]] += 1
        border[pixels[width - 1, y]] += 1
    border_names = Counter()
    for rgb, count in border.items():
        border_names[nearest_palette_colour(rgb)] += count
    background = border_names.most_common(1)[0][0] if border_names else None

    total = width * height
    seen = [
        name
        for name, count in area.most_common()
        if name != background and count / total >= MIN_AREA_SHARE
    ]
    return seen, background


def image_colours(url: str) -> tuple[list[str], str | None]:
    """Colours seen in the image of a data URL and its background; ([], None) if unreadable."""
    # A data URL made from a picture carries its hash (benchwright.images.DataURL): not hashed again per request.
    key = getattr(url, "digest", None) or (hashlib.sha256(url.encode("utf-8", "replace")).hexdigest()
                                           if isinstance(url, str) else "")
    if key not in _cache:
        image = decode_data_url(url)
        seen, background = analyse_image(image) if image is not None else ([], None)
        if len(_cache) >= _CACHE_LIMIT:
            _cache.clear()
        _cache[key] = (tuple(seen), background)
    seen, background = _cache[key]
    return list(seen), background


def colours_in_images(urls: list[str]) -> list[str]:
    """Union of the colours seen in all the images, in order of first appearance."""
    seen = []
    for url in urls:
        for name in image_colours(url)[0]:
            if name not in seen:
                seen.append(name)
    return seen
