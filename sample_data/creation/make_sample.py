"""Generate the Creation sample: items.jsonl and the PNGs under images/.

Everything here is written by the Benchwright project (texts and drawings); nothing comes from the
Creation-MMBench release. Images are drawn with Pillow using only colours from
`benchwright.colors.PALETTE`, with anti-aliasing off (shapes and `fontmode = "1"` text), so every
pixel is a palette colour and the simulated vision model can name colours exactly. There is no
randomness: running the script twice writes byte-identical files (for the same Pillow version).

Usage, from the repository root:
    .venv/bin/python sample_data/creation/make_sample.py            # writes next to this file
    .venv/bin/python sample_data/creation/make_sample.py --out DIR  # writes into DIR
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
C = PALETTE  # short alias: C["red"] etc.


# --------------------------------------------------------------------------- drawing helpers


def canvas(background: str) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGB", (W, H), C[background])
    draw = ImageDraw.Draw(img)
    draw.fontmode = "1"  # no anti-aliased text: keeps pixels on the palette
    return img, draw


def text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], s: str, colour: str, size: int,
         anchor: str = "mm") -> None:
    font = ImageFont.load_default(size=size)
    box = draw.textbbox(xy, s, font=font, anchor=anchor)
    if box[0] < 0 or box[1] < 0 or box[2] > W or box[3] > H:
        raise ValueError(f"text {s!r} does not fit the image: {box}")
    draw.text(xy, s, fill=C[colour], font=font, anchor=anchor)


def circle(draw: ImageDraw.ImageDraw, cx: int, cy: int, r: int, colour: str) -> None:
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=C[colour])


def arrow(draw: ImageDraw.ImageDraw, start: tuple[int, int], end: tuple[int, int]) -> None:
    """A black arrow; only horizontal or vertical ones are needed."""
    draw.line((start, end), fill=C["black"], width=3)
    (x0, y0), (x1, y1) = start, end
    if y0 == y1:
        d = 1 if x1 > x0 else -1
        head = [(x1, y1), (x1 - 10 * d, y1 - 6), (x1 - 10 * d, y1 + 6)]
    else:
        d = 1 if y1 > y0 else -1
        head = [(x1, y1), (x1 - 6, y1 - 10 * d), (x1 + 6, y1 - 10 * d)]
    draw.polygon(head, fill=C["black"])


def labelled_box(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], fill: str,
                 label: str, label_colour: str = "white") -> None:
    draw.rectangle(box, fill=C[fill], outline=C["black"], width=2)
    text(draw, ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2), label, label_colour, 16)


def table(draw: ImageDraw.ImageDraw) -> None:
    draw.rectangle((20, 150, 300, 162), fill=C["brown"])
    draw.rectangle((40, 162, 52, 230), fill=C["brown"])
    draw.rectangle((268, 162, 280, 230), fill=C["brown"])


# --------------------------------------------------------------------------- the pictures


def house() -> Image.Image:
    img, d = canvas("blue")
    d.rectangle((0, 180, W, H), fill=C["green"])  # grass
    circle(d, 270, 45, 25, "yellow")  # sun, top right
    d.rectangle((120, 110, 200, 180), fill=C["brown"])  # house body
    d.polygon([(110, 110), (160, 68), (210, 110)], fill=C["red"])  # roof
    d.rectangle((150, 145, 170, 180), fill=C["black"])  # door
    d.rectangle((130, 122, 145, 137), fill=C["white"])  # window
    d.rectangle((46, 130, 56, 180), fill=C["brown"])  # tree trunk
    circle(d, 51, 112, 28, "green")  # tree crown
    return img


def sea_sunset() -> Image.Image:
    img, d = canvas("orange")
    circle(d, 160, 140, 40, "yellow")  # sun sinking into the sea
    d.rectangle((0, 140, W, H), fill=C["blue"])
    d.polygon([(60, 175), (140, 175), (125, 195), (75, 195)], fill=C["brown"])  # hull
    d.rectangle((98, 120, 101, 175), fill=C["black"])  # mast
    d.polygon([(103, 122), (103, 170), (135, 170)], fill=C["white"])  # sail
    for x in (40, 70):  # two birds
        d.line(((x, 50), (x + 8, 58), (x + 16, 50)), fill=C["black"], width=3)
    return img


def cups() -> Image.Image:
    img, d = canvas("white")
    table(d)
    d.rectangle((80, 110, 120, 150), fill=C["purple"])
    d.rectangle((120, 120, 130, 140), outline=C["purple"], width=4)  # handle
    d.rectangle((200, 110, 240, 150), fill=C["orange"])
    d.rectangle((190, 120, 200, 140), outline=C["orange"], width=4)
    return img


def cake() -> Image.Image:
    img, d = canvas("white")
    table(d)
    d.rectangle((110, 105, 210, 150), fill=C["pink"])
    for x in (135, 158, 181):  # three candles with flames
        d.rectangle((x, 85, x + 5, 105), fill=C["yellow"])
        d.ellipse((x - 1, 74, x + 6, 85), fill=C["orange"])
    return img


def cat() -> Image.Image:
    img, d = canvas("pink")
    d.ellipse((-40, 170, 360, 320), fill=C["green"])  # hill
    d.ellipse((100, 130, 170, 185), fill=C["black"])  # body
    circle(d, 165, 125, 22, "black")  # head
    d.polygon([(147, 112), (150, 90), (162, 105)], fill=C["black"])  # ears
    d.polygon([(168, 105), (180, 90), (184, 112)], fill=C["black"])
    d.line(((100, 160), (80, 140), (75, 120)), fill=C["black"], width=5)  # tail
    circle(d, 230, 165, 16, "red")  # ball
    return img


def breakfast() -> Image.Image:
    img, d = canvas("yellow")
    circle(d, 160, 120, 95, "gray")  # plate
    d.ellipse((95, 80, 165, 140), fill=C["white"])  # egg white
    circle(d, 128, 108, 13, "orange")  # yolk
    d.rectangle((175, 80, 225, 150), fill=C["brown"])  # toast
    for x, y in ((120, 165), (145, 175), (170, 168)):  # strawberries
        circle(d, x, y, 9, "red")
    return img


def run_poster() -> Image.Image:
    img, d = canvas("blue")
    text(d, (160, 60), "RIVER RUN", "white", 40)
    text(d, (160, 115), "5 KM", "yellow", 40)
    text(d, (160, 175), "SAT 14 JUNE", "white", 28)
    return img


def medal() -> Image.Image:
    img, d = canvas("white")
    d.polygon([(125, 20), (150, 20), (170, 110), (150, 110)], fill=C["red"])  # ribbon
    d.polygon([(195, 20), (170, 20), (150, 110), (170, 110)], fill=C["red"])
    circle(d, 160, 150, 45, "yellow")
    text(d, (160, 150), "1", "black", 40)
    return img


def garden_party() -> Image.Image:
    img, d = canvas("green")
    for x in (40, 75, 280):  # balloons on strings
        circle(d, x, 55, 18, "pink")
        d.line(((x, 73), (x, 120)), fill=C["black"], width=2)
    text(d, (175, 45), "GARDEN", "white", 32)
    text(d, (175, 85), "PARTY", "white", 32)
    text(d, (160, 160), "SUNDAY 3 PM", "yellow", 28)
    text(d, (160, 205), "12 OAK LANE", "white", 24)
    return img


def umbrella() -> Image.Image:
    img, d = canvas("gray")
    for x in range(30, 300, 40):  # rain
        for y in (15, 45):
            d.line(((x, y), (x - 6, y + 14)), fill=C["blue"], width=3)
    d.pieslice((60, 70, 260, 230), 180, 360, fill=C["yellow"])  # canopy
    d.line(((160, 150), (160, 210)), fill=C["black"], width=5)  # shaft
    d.arc((140, 195, 162, 225), 0, 180, fill=C["black"], width=5)  # hooked handle
    return img


FRUIT_COUNTS = (("APPLE", 12, "red"), ("BANANA", 8, "yellow"), ("GRAPE", 5, "purple"),
                ("ORANGE", 10, "orange"))


def fruit_chart() -> Image.Image:
    img, d = canvas("white")
    text(d, (160, 16), "FAVOURITE FRUIT - CLASS 3B", "black", 14)
    base, unit = 200, 12  # 12 pixels per pupil
    d.line(((30, 40), (30, base)), fill=C["black"], width=2)
    d.line(((30, base), (305, base)), fill=C["black"], width=2)
    for i, (name, count, colour) in enumerate(FRUIT_COUNTS):
        x0 = 45 + i * 66
        d.rectangle((x0, base - count * unit, x0 + 46, base - 1), fill=C[colour])
        text(d, (x0 + 23, base - count * unit - 10), str(count), "black", 14)
        text(d, (x0 + 23, base + 14), name, "black", 12)
    return img


def tomatoes() -> Image.Image:
    img, d = canvas("white")
    d.rectangle((20, 60, 300, 200), fill=C["brown"])  # chopping board
    for x in (70, 130, 190):
        circle(d, x, 130, 26, "red")
        d.rectangle((x - 4, 100, x + 4, 108), fill=C["green"])  # stalk
    d.ellipse((230, 110, 270, 150), fill=C["white"])  # garlic bulb
    d.ellipse((235, 165, 275, 185), fill=C["green"])  # basil leaves
    d.ellipse((60, 170, 100, 190), fill=C["green"])
    return img


def soup() -> Image.Image:
    img, d = canvas("white")
    d.ellipse((50, 60, 270, 200), fill=C["gray"])  # bowl
    d.ellipse((70, 75, 250, 185), fill=C["red"])  # soup
    d.ellipse((145, 115, 175, 135), fill=C["green"])  # basil leaf
    d.rectangle((255, 40, 265, 150), fill=C["brown"])  # wooden spoon handle
    d.ellipse((245, 140, 275, 185), fill=C["brown"])
    return img


def soda_poster() -> Image.Image:
    img, d = canvas("blue")
    d.rectangle((40, 60, 110, 200), fill=C["yellow"])  # can
    d.rectangle((40, 110, 110, 140), fill=C["white"])  # label band
    text(d, (75, 125), "FIZZ", "black", 20)
    d.ellipse((58, 40, 92, 56), fill=C["green"])  # a leaf resting on top of the can
    text(d, (215, 70), "LEMON", "white", 32)
    text(d, (215, 110), "FIZZ", "white", 32)
    text(d, (215, 165), "ZERO SUGAR", "yellow", 20)
    return img


def flow_diagram() -> Image.Image:
    img, d = canvas("white")
    labelled_box(d, (10, 50, 90, 100), "green", "USER")
    labelled_box(d, (120, 50, 200, 100), "blue", "API")
    labelled_box(d, (230, 50, 310, 100), "orange", "DB", "black")
    labelled_box(d, (120, 160, 200, 210), "purple", "CACHE")
    arrow(d, (90, 75), (118, 75))
    arrow(d, (200, 75), (228, 75))
    arrow(d, (160, 100), (160, 158))
    return img


def city_map() -> Image.Image:
    img, d = canvas("green")
    d.polygon([(0, 150), (320, 60), (320, 100), (0, 190)], fill=C["blue"])  # river
    d.line(((0, 40), (320, 40)), fill=C["gray"], width=10)  # north road
    d.line(((160, 0), (160, 240)), fill=C["gray"], width=10)  # main road
    d.rectangle((152, 100, 168, 150), fill=C["brown"])  # bridge over the river
    markers = (((60, 70), "red", "MUSEUM"), ((225, 20), "orange", "MARKET"),
               ((60, 215), "black", "STATION"), ((225, 195), "purple", "CASTLE"))
    for (x, y), colour, label in markers:
        d.rectangle((x - 8, y - 8, x + 8, y + 8), fill=C[colour])
        text(d, (x + 14, y), label, "white", 14, anchor="lm")
    return img


def stay_dry_ad() -> Image.Image:
    img, d = canvas("white")
    for x in range(15, 320, 30):
        for y in (15, 45, 75):
            d.line(((x, y), (x - 5, y + 12)), fill=C["blue"], width=3)
    d.pieslice((80, 60, 240, 180), 180, 360, fill=C["red"])  # umbrella
    d.line(((160, 120), (160, 140)), fill=C["black"], width=4)
    d.rectangle((130, 150, 190, 190), fill=C["brown"])  # small house under it
    d.polygon([(122, 150), (160, 128), (198, 150)], fill=C["brown"])
    text(d, (160, 215), "STAY DRY", "black", 28)
    return img


BUS_STOPS = (("PARK ST", "08:10"), ("MARKET", "08:25"), ("HARBOUR", "08:40"),
             ("STATION", "08:55"))


def bus_timetable() -> Image.Image:
    img, d = canvas("gray")
    d.rectangle((30, 15, 290, 225), fill=C["white"])  # the sheet of paper
    text(d, (160, 40), "BUS 42 - WEEKDAYS", "black", 20)
    d.line(((45, 60), (275, 60)), fill=C["black"], width=2)
    for i, (stop, time) in enumerate(BUS_STOPS):
        y = 90 + i * 35
        text(d, (50, y), stop, "black", 20, anchor="lm")
        text(d, (270, y), time, "black", 20, anchor="rm")
    return img


PICTURES = {
    "house.png": house,
    "sea_sunset.png": sea_sunset,
    "cups.png": cups,
    "cake.png": cake,
    "cat_and_ball.png": cat,
    "breakfast.png": breakfast,
    "run_poster.png": run_poster,
    "medal.png": medal,
    "garden_party.png": garden_party,
    "umbrella.png": umbrella,
    "fruit_chart.png": fruit_chart,
    "tomatoes.png": tomatoes,
    "soup.png": soup,
    "soda_poster.png": soda_poster,
    "flow_diagram.png": flow_diagram,
    "city_map.png": city_map,
    "stay_dry_ad.png": stay_dry_ad,
    "bus_timetable.png": bus_timetable,
}


# --------------------------------------------------------------------------- the items


def item(item_id, category, task, images, role, background, instruction, requirements,
         subjective, visual, ground_truth=None, reference_answer=None) -> dict:
    return {
        "item_id": item_id,
        "category": category,
        "task": task,
        "role": role,
        "background": background,
        "instruction": instruction,
        "requirements": list(requirements),
        "subjective_criteria": subjective,
        "visual_factuality_criteria": visual,
        "ground_truth": ground_truth,
        "reference_answer": reference_answer,
        "images": [f"images/{name}" for name in images],
    }


LW, CFW, PFW, CMU = ("Literary Writing", "Common Functional Writing",
                     "Professional Functional Writing", "Creative Multimodal Understanding")

ITEMS = [
    item(
        "lw-001", LW, "story_continue", ["house.png"],
        role="a picture-book author who writes for children aged five to seven.",
        background=("Your last book ended with a family moving into a new home. Your editor sent "
                    "this picture as the opening page of the sequel and asked you to carry the "
                    "story on from it."),
        instruction="write the first chapter of the sequel, starting from the scene in the picture",
        requirements=[
            "Begin with a moment that happens in the picture's scene.",
            "Keep the chapter between 250 and 400 words.",
            "Use short sentences a young child can follow when read aloud.",
            "End the chapter with a small question that makes the reader want to turn the page.",
        ],
        subjective=("1. Story\n1.1 The chapter has a clear beginning, middle and end.\n"
                    "1.2 Something small but interesting happens.\n"
                    "2. Audience\n2.1 Words and sentences suit children aged five to seven.\n"
                    "2.2 The tone is warm and never frightening.\n"
                    "3. Requirements\n3.1 The length is within 250 to 400 words.\n"
                    "3.2 The last paragraph leaves an open question."),
        visual=("1. The house is brown with a red triangular roof, a black door and a white "
                "window.\n2. The sun is yellow and in the top-right corner of a blue sky.\n"
                "3. A green tree with a brown trunk stands to the left of the house, on green "
                "grass."),
        reference_answer=(
            "The sun was high and yellow over the new house. Mia stood on the green grass and "
            "looked up at the red roof. \"It looks like a hat,\" she said.\n\nHer brother Tom "
            "ran to the tree by the gate. Its leaves were thick and green, and its trunk was "
            "just right for climbing. \"I can see the whole street from here!\" he called.\n\n"
            "Mum opened the black front door. \"Come and choose your rooms,\" she said. Mia took "
            "the room with the small white window. From it she could see the tree, the grass and "
            "a strip of blue sky.\n\nThat night, when the house was quiet, Mia heard a tap at "
            "the window. Tap. Tap. Tap. She pulled back the curtain. There, on the branch of the "
            "tree, sat something small with very bright eyes.\n\nWho had come to say hello?"),
    ),
    item(
        "lw-002", LW, "landscape_to_poem", ["sea_sunset.png"],
        role="a poet preparing a short collection about the coast.",
        background=("A small gallery will print one poem beside each painting in its summer "
                    "show. This painting hangs by the entrance."),
        instruction="write a poem to hang beside the painting",
        requirements=[
            "Write three stanzas of four lines each.",
            "Use at least two images taken directly from the painting.",
            "Give the poem a title.",
        ],
        subjective=("1. Craft\n1.1 The poem has a consistent rhythm or a deliberate free form.\n"
                    "1.2 The imagery is fresh rather than cliched.\n"
                    "2. Form\n2.1 Three stanzas of four lines each, with a title.\n"
                    "3. Mood\n3.1 The poem conveys the calm of an evening at sea."),
        visual=("1. The sky is orange and a yellow sun is half sunk into the blue sea.\n"
                "2. A small boat with a brown hull, a black mast and a white sail floats on the "
                "water.\n3. Two black birds fly in the upper left of the sky."),
    ),
    item(
        "lw-003", LW, "daily_conversation_creation", ["cups.png", "cake.png"],
        role="a writer of short radio plays.",
        background=("The two pictures are the set for a two-minute scene: first two mugs on a "
                    "table, then the same table with a birthday cake."),
        instruction="write the dialogue for the scene, moving from the first picture to the second",
        requirements=[
            "Use exactly two characters.",
            "Refer to something in each picture in the dialogue.",
            "Keep the scene under 300 words.",
            "Reveal why there is a cake only at the end.",
        ],
        subjective=("1. Dialogue\n1.1 The two voices sound different from each other.\n"
                    "1.2 The conversation flows naturally.\n"
                    "2. Structure\n2.1 The scene moves from the mugs to the cake.\n"
                    "2.2 The reason for the cake is a satisfying reveal at the end.\n"
                    "3. Constraints\n3.1 Two characters and fewer than 300 words."),
        visual=("1. First picture\n1.1 A purple mug and an orange mug stand on a brown table.\n"
                "1.2 The background is white.\n"
                "2. Second picture\n2.1 A pink cake stands on the same brown table.\n"
                "2.2 The cake has three yellow candles with orange flames."),
    ),
    item(
        "lw-004", LW, "children_book_illustration_dialogue_creation", ["cat_and_ball.png"],
        role="an editor of picture books for toddlers.",
        background="The illustrator sent this page but the speech bubbles are still empty.",
        instruction="write the speech bubbles for this page",
        requirements=[
            "Write three to five speech bubbles.",
            "Each bubble has at most twelve words.",
            "Name who speaks each bubble.",
        ],
        subjective=("1. Fit for toddlers\n1.1 Simple words and playful sounds.\n"
                    "1.2 Repetition that a child can join in with.\n"
                    "2. Format\n2.1 Three to five bubbles, each naming its speaker.\n"
                    "2.2 No bubble is longer than twelve words."),
        visual=("1. A black cat with pointed ears sits on a green hill.\n"
                "2. A red ball lies to the right of the cat.\n"
                "3. The background is pink."),
    ),
    item(
        "cfw-001", CFW, "ins_simple_daily_copywriter", ["breakfast.png"],
        role="someone who posts a photo of breakfast every morning.",
        background="Your followers like short, cheerful captions with one or two emoji.",
        instruction="write the caption for today's breakfast photo",
        requirements=[
            "Keep the caption under 40 words.",
            "Add three hashtags at the end.",
            "Mention at least two foods on the plate.",
        ],
        subjective=("1. Tone\n1.1 Cheerful and personal.\n"
                    "2. Format\n2.1 Under 40 words, with three hashtags at the end.\n"
                    "3. Content\n3.1 Names at least two foods from the plate."),
        visual=None,
    ),
    item(
        "cfw-002", CFW, "personal_event_summaries", ["run_poster.png", "medal.png"],
        role="a member of a running club who just finished a race.",
        background=("You keep a short diary of every race you run. Today you photographed the "
                    "race poster and the medal you won."),
        instruction="write today's diary entry about the race",
        requirements=[
            "Say which race it was and when it took place.",
            "Describe the medal.",
            "Write between 120 and 200 words.",
            "End with one goal for the next race.",
        ],
        subjective=("1. Content\n1.1 Names the race, its distance and its date.\n"
                    "1.2 Describes feelings as well as facts.\n"
                    "2. Format\n2.1 Between 120 and 200 words.\n"
                    "2.2 Ends with a concrete goal."),
        visual=("1. Poster\n1.1 The poster reads RIVER RUN, 5 KM and SAT 14 JUNE.\n"
                "1.2 The poster is blue with white and yellow text.\n"
                "2. Medal\n2.1 The medal is yellow, shows the number 1 and hangs on a red "
                "ribbon."),
        ground_truth=("Poster text: RIVER RUN / 5 KM / SAT 14 JUNE (white and yellow on blue). "
                      "Medal: a yellow disc with a black number 1 on a red ribbon."),
    ),
    item(
        "cfw-003", CFW, "daily_invitation_email_writing", ["garden_party.png"],
        role="a neighbour organising a get-together.",
        background=("You made this flyer for your street, and now you want to email the same "
                    "invitation to friends who live further away."),
        instruction="write the invitation email",
        requirements=[
            "Include a subject line.",
            "Give the day, time and address exactly as on the flyer.",
            "Ask guests to reply by Friday.",
            "Keep the email under 150 words.",
        ],
        subjective=("1. Clarity\n1.1 The essential details are easy to find.\n"
                    "2. Tone\n2.1 Friendly and welcoming.\n"
                    "3. Format\n3.1 Has a subject line and stays under 150 words.\n"
                    "3.2 Asks for a reply by Friday."),
        visual=("1. The flyer says GARDEN PARTY, SUNDAY 3 PM and 12 OAK LANE.\n"
                "2. The flyer is green with three pink balloons."),
        ground_truth="Event: GARDEN PARTY. Day and time: SUNDAY 3 PM. Address: 12 OAK LANE.",
    ),
    item(
        "cfw-004", CFW, "product_usage_experience_review", ["umbrella.png"],
        role="a commuter who walks to work every day.",
        background="You bought this umbrella a month ago and the shop asked for a review.",
        instruction="write a product review of the umbrella",
        requirements=[
            "Give a star rating out of five.",
            "Mention one strength and one weakness.",
            "Describe the umbrella's look.",
        ],
        subjective=("1. Usefulness\n1.1 Another buyer learns something concrete.\n"
                    "1.2 Strengths and weaknesses are both given.\n"
                    "2. Format\n2.1 Contains a rating out of five."),
        visual=("1. The umbrella canopy is yellow.\n"
                "2. The handle is black and hooked.\n"
                "3. Blue rain falls against a gray background."),
    ),
    item(
        "pfw-001", PFW, "teaching_plan", ["fruit_chart.png"],
        role="a primary-school maths teacher.",
        background=("Your class voted for their favourite fruit and you drew this bar chart "
                    "from the results. Next week's lesson introduces reading bar charts."),
        instruction="write a 45-minute lesson plan built around this chart",
        requirements=[
            "State two learning objectives.",
            "Split the lesson into timed phases that add up to 45 minutes.",
            "Include three questions about the chart, with their answers.",
            "Add one activity for pupils who finish early.",
        ],
        subjective=("1. Pedagogy\n1.1 Objectives are clear and measurable.\n"
                    "1.2 Activities move from reading values to comparing them.\n"
                    "2. Structure\n2.1 Timed phases add up to 45 minutes.\n"
                    "3. Requirements\n3.1 Three chart questions with answers.\n"
                    "3.2 An extension activity."),
        visual=("1. The chart is titled FAVOURITE FRUIT - CLASS 3B.\n"
                "2. Bars\n2.1 APPLE is a red bar of 12.\n2.2 BANANA is a yellow bar of 8.\n"
                "2.3 GRAPE is a purple bar of 5.\n2.4 ORANGE is an orange bar of 10."),
        ground_truth=("APPLE 12, BANANA 8, GRAPE 5, ORANGE 10; 35 votes in total. Most popular: "
                      "APPLE; least popular: GRAPE; APPLE has 7 more votes than GRAPE."),
    ),
    item(
        "pfw-002", PFW, "recipe_infer_and_guide", ["tomatoes.png", "soup.png"],
        role="a cookery-school teacher.",
        background=("A student photographed the ingredients on the board and the finished "
                    "dish, and asks how to make it at home."),
        instruction="work out the dish and write a step-by-step recipe for it",
        requirements=[
            "Name the dish.",
            "List the ingredients with quantities.",
            "Give numbered steps.",
            "Add one tip for a better result.",
        ],
        subjective=("1. Accuracy\n1.1 The dish matches the ingredients and the final bowl.\n"
                    "1.2 Quantities and times are realistic.\n"
                    "2. Clarity\n2.1 Steps are numbered and in a sensible order.\n"
                    "3. Extra\n3.1 The tip is useful."),
        visual=("1. Ingredients\n1.1 Three red tomatoes with green stalks lie on a brown "
                "board.\n1.2 A white garlic bulb and green basil leaves are also on the board.\n"
                "2. Dish\n2.1 Red soup in a gray bowl with a green basil leaf on top.\n"
                "2.2 A brown wooden spoon rests beside the bowl."),
        reference_answer=(
            "Dish: tomato and basil soup.\n\nIngredients (serves 2): 3 ripe tomatoes, 1 clove "
            "of garlic, a handful of basil leaves, 1 tablespoon olive oil, 300 ml vegetable "
            "stock, salt and pepper.\n\n1. Chop the tomatoes roughly and slice the garlic.\n"
            "2. Warm the oil in a pan and soften the garlic for one minute.\n3. Add the "
            "tomatoes and cook for five minutes until they collapse.\n4. Pour in the stock and "
            "simmer for fifteen minutes.\n5. Blend until smooth, season, and serve with a basil "
            "leaf on top.\n\nTip: a pinch of sugar balances tomatoes that taste sharp."),
    ),
    item(
        "pfw-003", PFW, "product_marketing_strategy", ["soda_poster.png"],
        role="a marketing consultant for small drinks brands.",
        background=("A start-up will launch this lemon soda in three cities next spring, with "
                    "a budget of 20,000 euros."),
        instruction="write a launch marketing strategy for the drink",
        requirements=[
            "Name the target audience.",
            "Propose three channels and explain each in one or two sentences.",
            "Split the budget across the channels.",
            "Suggest a slogan that fits the poster.",
        ],
        subjective=("1. Strategy\n1.1 The audience and the channels fit each other.\n"
                    "1.2 The budget split adds up to 20,000 euros.\n"
                    "2. Creativity\n2.1 The slogan is memorable and fits the brand.\n"
                    "3. Format\n3.1 Clear headings for audience, channels, budget and slogan."),
        visual=("1. The poster says LEMON FIZZ and ZERO SUGAR on a blue background.\n"
                "2. The can is yellow with a white band that reads FIZZ.\n"
                "3. A green leaf sits on top of the can."),
    ),
    item(
        "pfw-004", PFW, "software_engineering_diagram_explanation", ["flow_diagram.png"],
        role="a senior engineer onboarding a new colleague.",
        background="This diagram is the first page of the service's design notes.",
        instruction="explain the architecture shown in the diagram to the new colleague",
        requirements=[
            "Describe every component in the diagram.",
            "Follow the arrows to explain how a request travels.",
            "Name one risk in this design and how to reduce it.",
        ],
        subjective=("1. Explanation\n1.1 Each component's role is explained in plain words.\n"
                    "1.2 The request flow follows the arrows.\n"
                    "2. Insight\n2.1 The risk named is real and the mitigation sensible."),
        visual=("1. Components\n1.1 A green USER box, a blue API box, an orange DB box and a "
                "purple CACHE box.\n"
                "2. Arrows\n2.1 Arrows go from USER to API and from API to DB.\n"
                "2.2 An arrow goes down from API to CACHE."),
        ground_truth=("Boxes: USER (green), API (blue), DB (orange), CACHE (purple, below API). "
                      "Arrows: USER -> API, API -> DB, API -> CACHE. No arrow connects CACHE "
                      "and DB."),
    ),
    item(
        "cmu-001", CMU, "travel_itinerary_planning_and_recommendations", ["city_map.png"],
        role="a local guide planning a walking day for visitors.",
        background=("Two visitors arrive by train in the morning and leave from the same "
                    "station in the evening. They have this simple map of the town."),
        instruction="plan a one-day walking itinerary using the places on the map",
        requirements=[
            "Start and end at the station.",
            "Visit every marked place once.",
            "Give an approximate time for each stop.",
            "Say which road or bridge to take between stops.",
        ],
        subjective=("1. Feasibility\n1.1 The route is possible on the roads shown.\n"
                    "1.2 Times leave room for walking and meals.\n"
                    "2. Completeness\n2.1 Every marked place is visited once.\n"
                    "2.2 The day starts and ends at the station."),
        visual=("1. Places\n1.1 STATION (black) is bottom left and MUSEUM (red) is upper "
                "left.\n1.2 MARKET (orange) is top right and CASTLE (purple) is bottom right.\n"
                "2. Routes\n2.1 A blue river crosses the map diagonally.\n"
                "2.2 A vertical gray main road crosses the river on a brown bridge; a gray road "
                "runs along the top."),
        ground_truth=("STATION bottom-left, MUSEUM upper-left, MARKET top-right, CASTLE "
                      "bottom-right. The river separates the north (MUSEUM, MARKET) from the "
                      "south (STATION, CASTLE); the only crossing is the bridge on the main "
                      "vertical road in the centre."),
    ),
    item(
        "cmu-002", CMU, "advertisement_explanation", ["stay_dry_ad.png"],
        role="a media-studies tutor.",
        background="A student brought this advert to class and asked what it is selling.",
        instruction="explain the advert's message and how its picture supports it",
        requirements=[
            "Say what kind of product or service the advert most likely sells.",
            "Explain the visual metaphor.",
            "Keep the answer under 200 words.",
        ],
        subjective=("1. Interpretation\n1.1 The reading (e.g. home insurance) is plausible and "
                    "justified.\n1.2 The metaphor is explained, not only described.\n"
                    "2. Format\n2.1 Under 200 words."),
        visual=("1. A red umbrella shelters a small brown house.\n"
                "2. Blue rain falls around them on a white background.\n"
                "3. The text at the bottom reads STAY DRY."),
    ),
    item(
        "cmu-003", CMU, "document_understanding", ["bus_timetable.png"],
        role="a helpful assistant for a visitor who does not read the local timetable format.",
        background="The visitor photographed this timetable at a bus stop.",
        instruction="explain the timetable and answer the visitor's trip questions",
        requirements=[
            "List every stop with its time.",
            "Say how long the ride from PARK ST to STATION takes.",
            "Say which stop to get off at for the harbour.",
        ],
        subjective=("1. Clarity\n1.1 The explanation is easy to follow.\n"
                    "2. Completeness\n2.1 All stops and times are listed.\n"
                    "2.2 Both questions are answered."),
        visual=("1. A white sheet on a gray background has the black heading BUS 42 - WEEKDAYS.\n"
                "2. Stops\n2.1 PARK ST 08:10 and MARKET 08:25.\n"
                "2.2 HARBOUR 08:40 and STATION 08:55."),
        ground_truth=("BUS 42, weekdays: PARK ST 08:10, MARKET 08:25, HARBOUR 08:40, STATION "
                      "08:55. PARK ST to STATION takes 45 minutes. Get off at HARBOUR."),
    ),
]


# --------------------------------------------------------------------------- output


def _check_palette(name: str, img: Image.Image) -> None:
    allowed = set(PALETTE.values())
    used = {colour for _, colour in img.getcolors(maxcolors=W * H)}
    stray = used - allowed
    if stray:
        raise ValueError(f"{name} uses colours outside the palette: {sorted(stray)[:5]}")


def generate(out_dir: Path) -> None:
    """Write images/*.png and items.jsonl into `out_dir`."""
    image_dir = out_dir / "images"
    image_dir.mkdir(parents=True, exist_ok=True)
    for name, draw_fn in PICTURES.items():
        img = draw_fn()
        _check_palette(name, img)
        img.save(image_dir / name, format="PNG", optimize=True)

    for it in ITEMS:
        for rel in it["images"]:
            if not (out_dir / rel).is_file():
                raise ValueError(f"{it['item_id']} refers to missing {rel}")
    lines = [json.dumps(it, ensure_ascii=False) for it in ITEMS]
    (out_dir / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    generate(args.out)
    print(f"wrote {len(ITEMS)} items and {len(PICTURES)} images to {args.out}")


if __name__ == "__main__":
    main()
