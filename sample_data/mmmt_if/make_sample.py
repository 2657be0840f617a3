"""Generate the MMMT-IF sample: chats.jsonl and the PNGs under images/.

Six plain multi-turn chats (8 to 12 questions, 2 to 5 images each) written by the Benchwright
project; nothing comes from the MMMT-IF or MMDU releases. The chats carry no instructions: the
`mmmt_if_chats` asset inserts them with the seeded process of benchwright/mmmt_if/README.md#chats-and-instructions.

Images are drawn with Pillow using only `benchwright.colors.PALETTE` colours and no anti-aliasing
(shapes, and `fontmode = "1"` text), so every pixel is a palette colour. There is no randomness:
running the script twice writes byte-identical files (for the same Pillow version).

Usage, from the repository root:
    .venv/bin/python sample_data/mmmt_if/make_sample.py            # writes next to this file
    .venv/bin/python sample_data/mmmt_if/make_sample.py --out DIR  # writes into DIR
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # so the script runs without installing the project
    sys.path.insert(0, str(ROOT))

from benchwright.colors import PALETTE  # noqa: E402

W, H = 320, 240
C = PALETTE


def canvas(background: str) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGB", (W, H), C[background])
    draw = ImageDraw.Draw(img)
    draw.fontmode = "1"  # no anti-aliased text: keeps pixels on the palette
    return img, draw


def text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], s: str, colour: str, size: int) -> None:
    font = ImageFont.load_default(size=size)
    box = draw.textbbox(xy, s, font=font, anchor="mm")
    if box[0] < 0 or box[1] < 0 or box[2] > W or box[3] > H:
        raise ValueError(f"text {s!r} does not fit the image: {box}")
    draw.text(xy, s, fill=C[colour], font=font, anchor="mm")


def circle(draw: ImageDraw.ImageDraw, cx: int, cy: int, r: int, colour: str) -> None:
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=C[colour])


# --------------------------------------------------------------------------- harbour


def harbour() -> Image.Image:
    img, d = canvas("blue")
    d.rectangle((0, 0, W, 90), fill=C["white"])  # pale sky
    d.rectangle((0, 200, W, H), fill=C["gray"])  # quay
    for x, hull in ((40, "red"), (140, "brown"), (235, "yellow")):
        d.polygon([(x, 150), (x + 60, 150), (x + 50, 175), (x + 10, 175)], fill=C[hull])
        d.rectangle((x + 28, 105, x + 31, 150), fill=C["black"])  # mast
    return img


def lighthouse() -> Image.Image:
    img, d = canvas("blue")
    d.polygon([(0, H), (0, 190), (120, 170), (220, 185), (W, 200), (W, H)], fill=C["gray"])  # rocks
    for i, colour in enumerate(("red", "white", "red", "white")):
        top = 60 + i * 30
        d.rectangle((140, top, 180, top + 30), fill=C[colour])
    d.rectangle((135, 40, 185, 60), fill=C["black"])  # lamp room
    d.polygon([(185, 45), (300, 20), (300, 80)], fill=C["yellow"])  # beam
    return img


def fish_stall() -> Image.Image:
    img, d = canvas("white")
    text(d, (160, 30), "FRESH FISH", "blue", 32)
    d.rectangle((30, 140, 290, 160), fill=C["brown"])  # counter
    for x, colour in ((50, "gray"), (120, "orange"), (190, "gray"), (250, "orange")):
        d.ellipse((x, 110, x + 45, 135), fill=C[colour])
        d.polygon([(x + 45, 122), (x + 58, 112), (x + 58, 133)], fill=C[colour])  # tail
    return img


# --------------------------------------------------------------------------- garden


def flower_bed() -> Image.Image:
    img, d = canvas("green")
    d.rectangle((0, 170, W, H), fill=C["brown"])  # soil
    for x, colour in ((40, "red"), (100, "yellow"), (160, "purple"), (220, "pink"), (280, "orange")):
        d.rectangle((x - 2, 110, x + 2, 175), fill=C["black"])  # stem
        circle(d, x, 100, 18, colour)
    return img


def vegetable_patch() -> Image.Image:
    img, d = canvas("brown")
    for row, (colour, y) in enumerate((("orange", 60), ("green", 130), ("red", 195))):
        for x in range(30, 300, 55):
            circle(d, x, y, 14 + row * 2, colour)
    return img


# --------------------------------------------------------------------------- kitchen


def fruit_bowl() -> Image.Image:
    img, d = canvas("white")
    d.pieslice((60, 80, 260, 220), 0, 180, fill=C["blue"])  # bowl
    for x, colour in ((110, "red"), (150, "yellow"), (190, "orange"), (130, "green"), (170, "red")):
        circle(d, x, 140 if x % 20 else 125, 18, colour)
    return img


def soup_pot() -> Image.Image:
    img, d = canvas("yellow")
    d.rectangle((90, 100, 230, 200), fill=C["gray"])  # pot
    d.rectangle((70, 120, 90, 130), fill=C["black"])  # handles
    d.rectangle((230, 120, 250, 130), fill=C["black"])
    d.ellipse((95, 90, 225, 115), fill=C["orange"])  # soup surface
    for x in (120, 160, 200):  # steam
        d.line(((x, 80), (x - 8, 60), (x, 40)), fill=C["white"], width=4)
    return img


def bread_loaf() -> Image.Image:
    img, d = canvas("green")
    d.rectangle((40, 180, 280, 200), fill=C["brown"])  # board
    d.rounded_rectangle((70, 110, 250, 180), radius=30, fill=C["orange"])
    for x in (110, 150, 190):  # score marks
        d.line(((x, 120), (x + 20, 150)), fill=C["brown"], width=4)
    return img


def table_setting() -> Image.Image:
    img, d = canvas("pink")
    circle(d, 160, 120, 70, "white")  # plate
    d.rectangle((60, 60, 66, 180), fill=C["gray"])  # fork
    d.rectangle((254, 60, 260, 180), fill=C["gray"])  # knife
    d.rectangle((200, 20, 230, 60), fill=C["blue"])  # glass
    return img


# --------------------------------------------------------------------------- city


def bus() -> Image.Image:
    img, d = canvas("white")
    d.rectangle((0, 200, W, H), fill=C["gray"])  # road
    d.rectangle((40, 90, 280, 185), fill=C["red"])
    for x in range(55, 260, 45):
        d.rectangle((x, 105, x + 30, 135), fill=C["blue"])  # windows
    text(d, (160, 160), "ROUTE 7", "white", 24)
    circle(d, 90, 190, 16, "black")
    circle(d, 230, 190, 16, "black")
    return img


def tram_stop() -> Image.Image:
    img, d = canvas("blue")
    d.rectangle((150, 60, 160, 230), fill=C["gray"])  # pole
    d.rectangle((80, 30, 230, 100), fill=C["yellow"])
    text(d, (155, 50), "TRAM STOP", "black", 20)
    text(d, (155, 80), "EVERY 12 MIN", "black", 16)
    return img


def bike_map() -> Image.Image:
    img, d = canvas("white")
    d.rectangle((0, 0, 100, 110), fill=C["green"])  # park
    d.line(((20, 220), (160, 120), (300, 40)), fill=C["orange"], width=8)  # bike lane
    d.line(((0, 160), (W, 160)), fill=C["gray"], width=12)  # main road
    circle(d, 300, 40, 10, "red")  # destination
    text(d, (220, 210), "BIKE LANE", "orange", 20)
    return img


# --------------------------------------------------------------------------- seasons


def sunny_day() -> Image.Image:
    img, d = canvas("blue")
    circle(d, 160, 110, 50, "yellow")
    d.rectangle((0, 200, W, H), fill=C["green"])
    return img


def rain_cloud() -> Image.Image:
    img, d = canvas("white")
    for cx in (120, 170, 220):
        circle(d, cx, 80, 40, "gray")
    for x in range(100, 250, 25):
        d.line(((x, 130), (x - 8, 160)), fill=C["blue"], width=4)
    return img


def snowman() -> Image.Image:
    img, d = canvas("blue")
    d.rectangle((0, 200, W, H), fill=C["white"])
    circle(d, 160, 170, 45, "white")
    circle(d, 160, 100, 30, "white")
    d.polygon([(160, 100), (185, 105), (160, 110)], fill=C["orange"])  # carrot nose
    d.rectangle((140, 55, 180, 72), fill=C["black"])  # hat
    return img


def autumn_tree() -> Image.Image:
    img, d = canvas("yellow")
    d.rectangle((150, 130, 170, 230), fill=C["brown"])
    circle(d, 160, 100, 60, "orange")
    for x, y in ((60, 215), (250, 220), (100, 225)):
        circle(d, x, y, 6, "red")  # fallen leaves
    return img


def rainbow() -> Image.Image:
    img, d = canvas("blue")
    for i, colour in enumerate(("red", "orange", "yellow", "green", "purple")):
        inset = i * 14
        d.arc((20 + inset, 40 + inset, 300 - inset, 320 - inset), 180, 360, fill=C[colour], width=14)
    return img


# --------------------------------------------------------------------------- playroom


def building_blocks() -> Image.Image:
    img, d = canvas("white")
    d.rectangle((0, 200, W, H), fill=C["brown"])  # floor
    for x, y, colour in ((60, 150, "red"), (110, 150, "blue"), (160, 150, "yellow"), (85, 100, "green"),
                         (135, 100, "purple"), (110, 50, "orange")):
        d.rectangle((x, y, x + 48, y + 48), fill=C[colour])
    text(d, (250, 60), "ABC", "black", 28)
    return img


def kite() -> Image.Image:
    img, d = canvas("blue")
    d.polygon([(200, 30), (250, 90), (200, 160), (150, 90)], fill=C["red"])
    d.line(((200, 30), (200, 160)), fill=C["yellow"], width=3)
    d.line(((150, 90), (250, 90)), fill=C["yellow"], width=3)
    d.line(((200, 160), (60, 230)), fill=C["black"], width=2)  # string
    return img


# --------------------------------------------------------------------------- the chats

IMAGES = {
    "harbour": harbour, "lighthouse": lighthouse, "fish_stall": fish_stall,
    "flower_bed": flower_bed, "vegetable_patch": vegetable_patch,
    "fruit_bowl": fruit_bowl, "soup_pot": soup_pot, "bread_loaf": bread_loaf, "table_setting": table_setting,
    "bus": bus, "tram_stop": tram_stop, "bike_map": bike_map,
    "sunny_day": sunny_day, "rain_cloud": rain_cloud, "snowman": snowman, "autumn_tree": autumn_tree,
    "rainbow": rainbow, "building_blocks": building_blocks, "kite": kite,
}

CHATS = [
    {"chat_id": "harbour-day", "topic": "a small fishing harbour",
     "images": ["harbour", "lighthouse", "fish_stall"],
     "turns": [
         "What is happening in Image 1?",
         "How many boats can you count in Image 1, and what colours are their hulls?",
         "What is the tall building in Image 2 used for?",
         "Why might the tower in Image 2 be painted in stripes?",
         "What is being sold at the stall in Image 3?",
         "How could the boats in Image 1 be connected to the stall in Image 3?",
         "What weather would you expect on the day shown in Image 1?",
         "Which of the three pictures feels the busiest, and why?",
         "Write a short postcard message from someone visiting this harbour.",
         "If you could add one thing to Image 2, what would it be and why?",
     ]},
    {"chat_id": "garden-beds", "topic": "a home garden",
     "images": ["flower_bed", "vegetable_patch"],
     "turns": [
         "Describe the flowers in Image 1.",
         "What vegetables might be growing in Image 2, judging by their colours?",
         "How would you water the beds in both pictures during a dry week?",
         "Which flower in Image 1 would attract the most bees, and why?",
         "What could a child learn by looking after the patch in Image 2?",
         "Suggest a name for this garden based on both images.",
         "What would change in these two pictures after a month without care?",
         "Plan a simple weekend of garden work using what you see.",
     ]},
    {"chat_id": "kitchen-table", "topic": "cooking a family meal",
     "images": ["fruit_bowl", "soup_pot", "bread_loaf", "table_setting"],
     "turns": [
         "What fruit can you see in Image 1?",
         "What kind of soup might be cooking in Image 2?",
         "Is the bread in Image 3 freshly baked? What makes you think so?",
         "How is the table in Image 4 laid out?",
         "Which items from the four pictures would make a balanced lunch?",
         "How long might the soup in Image 2 need to cook, roughly?",
         "What drink would suit the glass in Image 4?",
         "Suggest a dessert using only the fruit in Image 1.",
         "How could the bread in Image 3 be served with the soup?",
         "What is missing from the table in Image 4 for a family of four?",
         "Which picture looks the most inviting to you, and why?",
         "Write a short invitation to this meal for a neighbour.",
     ]},
    {"chat_id": "city-transport", "topic": "getting around a city",
     "images": ["bus", "tram_stop", "bike_map"],
     "turns": [
         "What vehicle is shown in Image 1, and what does its sign say?",
         "How often does the tram come, according to Image 2?",
         "Describe the route of the bike lane in Image 3.",
         "Which of the three ways of travelling would you choose on a rainy day?",
         "What is the green area in Image 3 likely to be?",
         "How could a visitor combine the bus and the tram to cross the city?",
         "What safety advice would you give someone using the lane in Image 3?",
         "Which picture suggests the quietest street, and why?",
         "Summarise how this city helps people travel without a car.",
     ]},
    {"chat_id": "four-seasons", "topic": "weather through the year",
     "images": ["sunny_day", "rain_cloud", "snowman", "autumn_tree", "rainbow"],
     "turns": [
         "Which season does each of the five images suggest?",
         "What would you wear on the day shown in Image 1?",
         "What is happening in Image 2?",
         "How was the figure in Image 3 made, and what does it wear?",
         "Why are the leaves in Image 4 on the ground?",
         "What weather usually comes just before the scene in Image 5?",
         "Put the images in the order of a year, starting in spring.",
         "Which image would make the best cover for a calendar?",
         "How do the colours change from Image 1 to Image 4?",
         "What outdoor game suits the weather in Image 3?",
         "Describe a walk that passes through the scenes of Image 2 and Image 5.",
         "Which season do you think these pictures show best, and why?",
     ]},
    {"chat_id": "playroom", "topic": "toys and play",
     "images": ["building_blocks", "kite"],
     "turns": [
         "How many blocks are in Image 1, and what colours are they?",
         "What letters are printed in Image 1?",
         "What shape is the kite in Image 2?",
         "What kind of day is best for flying the kite in Image 2?",
         "How could a child use the blocks in Image 1 to learn counting?",
         "Which toy would you take on a trip to the beach, and why?",
         "Invent a short game that uses both toys.",
         "What could go wrong when flying the kite, and how can it be avoided?",
         "How would you store the blocks so that none get lost?",
         "Describe the tower in Image 1 from bottom to top.",
         "Which toy is better for playing alone, and which for playing together?",
     ]},
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args(argv)
    images_dir = args.out / "images"
    images_dir.mkdir(parents=True, exist_ok=True)
    for name, draw in IMAGES.items():
        draw().save(images_dir / f"{name}.png", format="PNG", optimize=True)
    lines = []
    for chat in CHATS:
        row = {**chat, "images": [f"images/{name}.png" for name in chat["images"]]}
        lines.append(json.dumps(row, ensure_ascii=False))
    (args.out / "chats.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
