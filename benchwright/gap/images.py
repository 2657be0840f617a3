"""GAP image sets with exact ground truth, drawn with Pillow from the shared palette.

- *tainted-style*: plain background, at most 2 simple shapes, well apart: the model is known to see
  them right, so any wrong answer was planted;
- *untainted-style*: a cluttered scene (6–12 shapes, overlaps, noise dots) whose answers are hard.

Every image comes with its truth: a list of objects {shape, colour, x, y, size} (x, y = centre as a
fraction of the side), so questions about existence, colour, count and position have known answers.
Images go through `normalize_image`, so they are content-hashed like every other image.
"""

from __future__ import annotations

import io
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from benchwright.colors import PALETTE
from benchwright.images import ImageError, NormalizedImage, normalize_image

SHAPES = ("circle", "square", "triangle")
SIDE = 160
BACKGROUND = (236, 236, 228)


@dataclass(frozen=True)
class GapImage:
    image_id: str
    image_set: str            # 'tainted' | 'untainted'
    objects: list[dict]       # exact ground truth
    image: NormalizedImage

    def truth_json(self) -> str:
        return json.dumps(self.objects, sort_keys=True)


def _draw(objects: list[dict], noise: int, rng: random.Random) -> bytes:
    img = Image.new("RGB", (SIDE, SIDE), BACKGROUND)
    draw = ImageDraw.Draw(img)
    for _ in range(noise):  # clutter that is not an object
        x, y = rng.randrange(SIDE), rng.randrange(SIDE)
        draw.point((x, y), fill=PALETTE[rng.choice(list(PALETTE))])
    for obj in objects:
        cx, cy, r = obj["x"] * SIDE, obj["y"] * SIDE, obj["size"] * SIDE / 2
        fill = PALETTE[obj["colour"]]
        if obj["shape"] == "circle":
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)
        elif obj["shape"] == "square":
            draw.rectangle((cx - r, cy - r, cx + r, cy + r), fill=fill)
        else:
            draw.polygon([(cx, cy - r), (cx - r, cy + r), (cx + r, cy + r)], fill=fill)
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    return buffer.getvalue()


def _object(rng: random.Random, colours: list[str], x: float, size: float) -> dict:
    return {"shape": rng.choice(SHAPES), "colour": rng.choice(colours), "x": round(x, 3),
            "y": round(rng.uniform(0.3, 0.7), 3), "size": round(size, 3)}


def generate_images(n_tainted: int, n_untainted: int, seed: int = 0) -> list[GapImage]:
    """Seeded image sets; the same arguments always give the same bytes and ids."""
    rng = random.Random(seed)
    colours = [c for c in PALETTE if c not in ("white", "gray")]   # stay visible on the background
    out = []
    for k in range(n_tainted):
        count = rng.choice((1, 2))
        xs = [0.5] if count == 1 else [0.27, 0.73]
        objects = [_object(rng, colours, x, 0.3) for x in xs]
        out.append(GapImage(f"t{k:03d}", "tainted", objects, normalize_image(_draw(objects, 0, rng))))
    for k in range(n_untainted):
        objects = [_object(rng, colours, rng.uniform(0.1, 0.9), rng.uniform(0.08, 0.2)) for _ in range(rng.randint(6, 12))]
        for obj in objects:
            obj["y"] = round(rng.uniform(0.1, 0.9), 3)
        out.append(GapImage(f"u{k:03d}", "untainted", objects, normalize_image(_draw(objects, 400, rng))))
    return out


def load_image_folder(folder: str | Path, image_set: str = "untainted") -> tuple[list[GapImage], list[dict]]:
    """A registered folder of real images (no ground truth): (images, located problems)."""
    images, problems = [], []
    for path in sorted(Path(folder).iterdir()):
        if path.suffix.lower() not in (".png", ".jpg", ".jpeg", ".webp"):
            continue
        try:
            images.append(GapImage(path.stem, image_set, [], normalize_image(path.read_bytes())))
        except ImageError as exc:
            problems.append({"location": path.name, "reason": str(exc)})
    return images, problems


# Question templates about the truth, and their exact answers (used by the simulator to ask, and by
# the dataset step to label generated images when no labels file is given).
_COUNT = re.compile(r"^How many (circle|square|triangle)s are in the image\?$")
_COLOUR = re.compile(r"^What colour is the (circle|square|triangle) nearest the (left|right) edge\?$")
_SIDE = re.compile(r"^Is the (\w+) (circle|square|triangle) on the left or the right\?$")


def true_answer(objects: list[dict], question: str) -> str | None:
    """The exact answer to a templated question, or None when the question is not one of ours."""
    if m := _COUNT.match(question):
        return f"There are {sum(o['shape'] == m.group(1) for o in objects)} {m.group(1)}s."
    if m := _COLOUR.match(question):
        same = [o for o in objects if o["shape"] == m.group(1)]
        if not same:
            return None
        pick = min(same, key=lambda o: o["x"]) if m.group(2) == "left" else max(same, key=lambda o: o["x"])
        return f"It is {pick['colour']}."
    if m := _SIDE.match(question):
        same = [o for o in objects if o["colour"] == m.group(1) and o["shape"] == m.group(2)]
        if len(same) != 1:
            return None
        return f"It is on the {'left' if same[0]['x'] < 0.5 else 'right'}."
    return None


def ask(objects: list[dict], rng: random.Random) -> tuple[str, str]:
    """A random templated question with a unique true answer."""
    while True:
        kind = rng.choice(("count", "colour", "side"))
        if kind == "count" or not objects:
            question = f"How many {rng.choice(SHAPES)}s are in the image?"
        elif kind == "colour":
            question = f"What colour is the {rng.choice(objects)['shape']} nearest the {rng.choice(('left', 'right'))} edge?"
        else:
            obj = rng.choice(objects)
            question = f"Is the {obj['colour']} {obj['shape']} on the left or the right?"
        answer = true_answer(objects, question)
        if answer is not None:
            return question, answer
