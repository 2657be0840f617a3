"""PNG charts of the MMMT-IF metrics, drawn with Pillow (matplotlib is not a dependency).

- ``pif_by_turn_chart``: one panel per variant; per model, the PIF by turn as a line with its 95%
  bounds as a shaded band.
- ``ecdf_chart``: a grid (rows: variants, columns: up to four turns spread over the chat) of the
  response-PIF empirical CDFs per model, as step lines.

Both return PNG bytes; ``benchwright.report.data_url_markdown`` wraps them for Dagster's markdown metadata. The
tables behind the charts (``mmmt_if_pif_by_turn``, ``mmmt_if_ecdf``) hold every number.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import pandas as pd
from PIL import Image, ImageDraw, ImageFont

from benchwright.colors import PALETTE

SERIES_COLOURS = ("blue", "red", "green", "orange", "purple", "brown", "pink", "gray", "black", "yellow")
BACKGROUND = (255, 255, 255)
AXIS = (60, 60, 60)
GRID = (225, 225, 225)
PANEL_W, PANEL_H = 420, 280
MARGIN_LEFT, MARGIN_BOTTOM, MARGIN_TOP, MARGIN_RIGHT = 52, 40, 30, 16


def _font(size: int) -> ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _colour(index: int) -> tuple[int, int, int]:
    return PALETTE[SERIES_COLOURS[index % len(SERIES_COLOURS)]]


class _Panel:
    """Maps data coordinates (x in [x0, x1], y in [0, 1]) into one panel of the image."""

    def __init__(self, left: int, top: int, x0: float, x1: float):
        self.left, self.top = left, top
        self.x0, self.x1 = x0, x1 if x1 > x0 else x0 + 1
        self.width = PANEL_W - MARGIN_LEFT - MARGIN_RIGHT
        self.height = PANEL_H - MARGIN_TOP - MARGIN_BOTTOM

    def point(self, x: float, y: float) -> tuple[float, float]:
        px = self.left + MARGIN_LEFT + (x - self.x0) / (self.x1 - self.x0) * self.width
        py = self.top + MARGIN_TOP + (1.0 - y) * self.height
        return px, py

    def frame(self, draw: ImageDraw.ImageDraw, title: str, x_label: str, x_ticks: Sequence[float]) -> None:
        font = _font(12)
        for y in (0.0, 0.25, 0.5, 0.75, 1.0):
            _, py = self.point(self.x0, y)
            draw.line((self.left + MARGIN_LEFT, py, self.left + MARGIN_LEFT + self.width, py), fill=GRID)
            draw.text((self.left + MARGIN_LEFT - 6, py), f"{y:g}", fill=AXIS, font=font, anchor="rm")
        for x in x_ticks:
            px, py = self.point(x, 0.0)
            draw.line((px, py, px, py + 4), fill=AXIS)
            draw.text((px, py + 6), f"{x:g}", fill=AXIS, font=font, anchor="mt")
        x_start, y_bottom = self.point(self.x0, 0.0)
        draw.line((x_start, self.top + MARGIN_TOP, x_start, y_bottom), fill=AXIS, width=1)
        draw.line((x_start, y_bottom, x_start + self.width, y_bottom), fill=AXIS, width=1)
        draw.text((self.left + MARGIN_LEFT + self.width / 2, self.top + 8), title, fill=AXIS, font=_font(14), anchor="mt")
        draw.text((self.left + MARGIN_LEFT + self.width / 2, self.top + PANEL_H - 6), x_label, fill=AXIS,
                  font=font, anchor="mb")


def _legend(draw: ImageDraw.ImageDraw, labels: Sequence[str], top: int, width: int) -> None:
    font = _font(13)
    x = 16
    for index, label in enumerate(labels):
        draw.rectangle((x, top + 4, x + 14, top + 16), fill=_colour(index))
        draw.text((x + 20, top + 10), label, fill=AXIS, font=font, anchor="lm")
        x += 34 + int(draw.textlength(label, font=font))
        if x > width - 120:
            x, top = 16, top + 20


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _canvas(columns: int, rows: int, models: Sequence[str], title: str) -> tuple[Image.Image, int]:
    legend_height = 24 + 20 * (len(models) // 4)
    width, height = PANEL_W * columns, PANEL_H * rows + 34 + legend_height
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((width / 2, 8), title, fill=AXIS, font=_font(16), anchor="mt")
    _legend(draw, models, PANEL_H * rows + 34, width)
    return image, 34


def pif_by_turn_chart(by_turn: pd.DataFrame, title: str = "PIF by turn (95% bounds)") -> bytes:
    """Lines of PIF by turn with shaded bounds, one panel per variant (columns of ``pif_by_turn``)."""
    variants = sorted(set(by_turn["variant"])) or ["(no data)"]
    models = sorted(set(by_turn["model"]))
    image, offset = _canvas(len(variants), 1, models, title)
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    shade = ImageDraw.Draw(overlay)
    draw = ImageDraw.Draw(image)
    turns = by_turn["turn"] if len(by_turn) else pd.Series([1, 2])
    x0, x1 = float(turns.min()), float(turns.max())
    panels = {}
    for column, variant in enumerate(variants):
        panel = _Panel(column * PANEL_W, offset, x0, x1)
        panel.frame(draw, variant, "turn", sorted(set(turns.astype(float))))
        panels[variant] = panel
        for index, model in enumerate(models):
            rows = by_turn[(by_turn["variant"] == variant) & (by_turn["model"] == model)].sort_values("turn")
            rows = rows[rows["pif"].notna()]
            if rows.empty:
                continue
            upper = [panel.point(t, u) for t, u in zip(rows["turn"], rows["pif_upper"].fillna(rows["pif"]))]
            lower = [panel.point(t, v) for t, v in zip(rows["turn"], rows["pif_lower"].fillna(rows["pif"]))]
            if len(upper) > 1:
                shade.polygon(upper + lower[::-1], fill=(*_colour(index), 36))
    image.paste(Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB"))
    draw = ImageDraw.Draw(image)
    for variant, panel in panels.items():
        for index, model in enumerate(models):
            rows = by_turn[(by_turn["variant"] == variant) & (by_turn["model"] == model)].sort_values("turn")
            points = [panel.point(t, p) for t, p in zip(rows["turn"], rows["pif"]) if pd.notna(p)]
            for bound in ("pif_lower", "pif_upper"):  # thin edges keep overlapping bands readable
                edge = [panel.point(t, b) for t, b in zip(rows["turn"], rows[bound]) if pd.notna(b)]
                if len(edge) > 1:
                    draw.line(edge, fill=_colour(index), width=1)
            if len(points) > 1:
                draw.line(points, fill=_colour(index), width=3)
            for px, py in points:
                draw.ellipse((px - 3, py - 3, px + 3, py + 3), fill=_colour(index))
    return _png(image)


def spread_turns(turns: Sequence[int], count: int = 4) -> list[int]:
    """Up to ``count`` turns spread evenly from the first to the last."""
    ordered = sorted(set(int(t) for t in turns))
    if len(ordered) <= count:
        return ordered
    picks = {ordered[round(i * (len(ordered) - 1) / (count - 1))] for i in range(count)}
    return sorted(picks)


def ecdf_chart(ecdf_df: pd.DataFrame, title: str = "Empirical CDF of response PIF") -> bytes:
    """Step lines of the response-PIF ECDF per model; rows are variants, columns selected turns."""
    variants = sorted(set(ecdf_df["variant"])) or ["(no data)"]
    models = sorted(set(ecdf_df["model"]))
    turns = spread_turns(ecdf_df["turn"]) if len(ecdf_df) else [1]
    image, offset = _canvas(len(turns), len(variants), models, title)
    draw = ImageDraw.Draw(image)
    for row, variant in enumerate(variants):
        for column, turn in enumerate(turns):
            panel = _Panel(column * PANEL_W, offset + row * PANEL_H, 0.0, 1.0)
            panel.frame(draw, f"{variant}, turn {turn}", "PIF", (0.0, 0.25, 0.5, 0.75, 1.0))
            for index, model in enumerate(models):
                rows = ecdf_df[(ecdf_df["variant"] == variant) & (ecdf_df["turn"] == turn)
                               & (ecdf_df["model"] == model)].sort_values("pif_value")
                if rows.empty:
                    continue
                points, level = [panel.point(0.0, 0.0)], 0.0
                for value, cdf in zip(rows["pif_value"], rows["cdf"]):
                    points += [panel.point(value, level), panel.point(value, cdf)]
                    level = cdf
                points.append(panel.point(1.0, level))
                draw.line(points, fill=_colour(index), width=2 + (index % 2))
    return _png(image)