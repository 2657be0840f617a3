"""GAP simulation: a vision model answering from ground truth, players with known behaviour, and the
scoring judge's replies.

Players (kinds):
- ``honest``: marks an answer Wrong when they see it is wrong; whether they see it follows the
  logistic model of benchwright/gap/README.md#player-interaction-model with their ability (time pressure and fatigue included);
- ``careless``: marks at random, Wrong with probability 0.5;
- ``spammer``: always marks Wrong (farms points on planted errors).

The vision model answers from the image's truth. On tainted images it is right unless the game
instructed it to be wrong (then a subtle change: count ±1, another colour, mirrored side). On
untainted (cluttered) images it errs by itself with probability ``untainted_error_rate``.
Logs carry only what a real game would log; the simulator returns the truth it used alongside.
"""

from __future__ import annotations

import json
import math
import random
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchwright.colors import PALETTE
from benchwright.gap.images import ask
from benchwright.gap.answering import ANSWER_LEAD, ANSWER_PROMPT_VERSION, TAINT_INSTRUCTION, TAINT_PROMPT_VERSION
from benchwright.gap.logs import TIME_LIMIT_S
from benchwright.gap.scoring import SCORE_MARKER, SCORE_PROMPT_VERSION

from benchwright.simulate import version_by_markers
from benchwright.simulate.request import SimRequest

PLAYER_KINDS = ("honest", "careless", "spammer")
TRUE_PARAMS = {"alpha": 4.0, "beta": 2.0, "tau": 1.5, "gamma": 1.5, "lam": 2.0}


@dataclass(frozen=True)
class Player:
    player_id: str
    kind: str
    ability: float


def make_players(n_honest: int, n_careless: int, n_spammer: int, seed: int = 0) -> list[Player]:
    rng = random.Random(seed)
    out = [Player(f"honest-{k:02d}", "honest", rng.uniform(0.6, 1.0)) for k in range(n_honest)]
    out += [Player(f"careless-{k:02d}", "careless", rng.uniform(0.0, 0.4)) for k in range(n_careless)]
    out += [Player(f"spammer-{k:02d}", "spammer", 0.0) for k in range(n_spammer)]
    return out


def subtly_wrong(answer: str, rng: random.Random) -> str:
    """A small, plausible inaccuracy: count ±1, another colour, the other side."""
    if m := re.match(r"There are (\d+) (\w+)\.", answer):
        n = int(m.group(1))
        return f"There are {n + 1 if n == 0 or rng.random() < 0.5 else n - 1} {m.group(2)}."
    if m := re.match(r"It is on the (left|right)\.", answer):
        return f"It is on the {'right' if m.group(1) == 'left' else 'left'}."
    m = re.match(r"It is (\w+)\.", answer)
    return f"It is {rng.choice([c for c in PALETTE if c != (m.group(1) if m else '')])}."


def reveal_probability(player: Player, difficulty: float, seconds: float, order: int, n_images: int,
                       params: dict = TRUE_PARAMS) -> float:
    fatigue = 1 - math.exp(-params["lam"] * (order - 1) / n_images)
    z = (params["alpha"] * player.ability - params["beta"] * difficulty
         + params["tau"] * (1 - seconds / TIME_LIMIT_S) - params["gamma"] * fatigue)
    return 1 / (1 + math.exp(-z))


def play_sessions(players: list[Player], images: list, sessions_per_player: int = 2, seed: int = 0,
                  p_planted: float = 0.5, untainted_error_rate: float = 0.35,
                  start: str = "2026-01-05T09:00:00") -> tuple[list[dict], pd.DataFrame]:
    """Log records (one per question) and the truth behind them (player kind, model really wrong)."""
    rng = random.Random(seed)
    tainted = [im for im in images if im.image_set == "tainted"]
    untainted = [im for im in images if im.image_set == "untainted"]
    difficulty = {im.image_id: random.Random(im.image_id).uniform(0.0, 1.0) for im in images}
    records, truth = [], []
    t0 = pd.Timestamp(start)
    for player in players:
        for s in range(sessions_per_player):
            session_id = f"{player.player_id}-s{s}"
            when = t0 + pd.Timedelta(days=rng.randint(0, 20), hours=rng.randint(0, 12))
            shown = rng.sample(tainted, min(5, len(tainted))) + rng.sample(untainted, min(5, len(untainted)))
            rng.shuffle(shown)   # the order does not reveal which image is which
            for order, image in enumerate(shown, start=1):
                elapsed = 0.0
                for q in range(3):   # at most 3 questions per image
                    seconds = round(rng.uniform(5, 40), 1)
                    if elapsed + seconds > TIME_LIMIT_S:
                        break
                    elapsed += seconds
                    question, answer = ask(image.objects, rng)
                    planted = image.image_set == "tainted" and rng.random() < p_planted
                    model_wrong = planted or (image.image_set == "untainted" and rng.random() < untainted_error_rate)
                    if model_wrong:
                        answer = subtly_wrong(answer, rng)
                    if player.kind == "spammer":
                        mark_wrong = True
                    elif player.kind == "careless":
                        mark_wrong = rng.random() < 0.5
                    else:
                        sees = rng.random() < reveal_probability(player, difficulty[image.image_id], seconds, order, len(shown))
                        mark_wrong = model_wrong if sees else not model_wrong
                    records.append({
                        "session_id": session_id, "player_id": player.player_id, "session_start": when.isoformat(),
                        "image_id": image.image_id, "tainted": image.image_set == "tainted", "image_order": order,
                        "time_limit_s": TIME_LIMIT_S, "question_index": q, "question": question,
                        "model_answer": answer, "instructed_wrong": planted,
                        "player_mark": "wrong" if mark_wrong else "correct", "seconds_taken": seconds})
                    truth.append({"session_id": session_id, "image_id": image.image_id, "question_index": q,
                                  "player_kind": player.kind, "model_wrong": model_wrong})
                    if mark_wrong:
                        break   # Wrong moves on to the next image
    return records, pd.DataFrame(truth)


def interaction_rows(n_players: int, n_images: int, rows_per_player: int, seed: int = 0,
                     params: dict = TRUE_PARAMS) -> tuple[pd.DataFrame, dict, dict]:
    """Synthetic player-model data drawn from the model itself: (rows, true abilities, true difficulties)."""
    rng = np.random.default_rng(seed)
    ability = {f"p{k:03d}": float(a) for k, a in enumerate(rng.uniform(0.0, 1.0, n_players))}
    difficulty = {f"i{k:03d}": float(d) for k, d in enumerate(rng.uniform(0.0, 1.0, n_images))}
    n = n_players * rows_per_player
    players = np.repeat(list(ability), rows_per_player)
    images = rng.choice(list(difficulty), n)
    seconds = rng.uniform(0, TIME_LIMIT_S, n)
    order = rng.integers(1, 11, n)
    fatigue = 1 - np.exp(-params["lam"] * (order - 1) / 10)
    z = (params["alpha"] * pd.Series(players).map(ability).to_numpy() - params["beta"] * pd.Series(images).map(difficulty).to_numpy()
         + params["tau"] * (1 - seconds / TIME_LIMIT_S) - params["gamma"] * fatigue)
    revealed = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    rows = pd.DataFrame({"player_id": players, "image_id": images, "seconds_taken": seconds, "image_order": order,
                         "session_images": 10, "revealed": revealed})
    return rows, ability, difficulty


def write_log_files(records: list[dict], folder, per_file: int) -> list:
    """Write records as JSONL files of `per_file` lines each; returns the paths."""
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(0, len(records), per_file):
        path = folder / f"game_log_{k // per_file:03d}.jsonl"
        path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records[k:k + per_file]))
        paths.append(path)
    return paths


# ----- the scoring judge (benchwright/gap/README.md#scoring) -----

def is_score_prompt(request: SimRequest) -> bool:
    return SCORE_MARKER in request.last_user_text


def _tag(text: str, name: str) -> str:
    match = re.search(rf"<{name}>\n(.*?)\n</{name}>", text, flags=re.S)
    return match.group(1) if match else ""


def score_judgment(request: SimRequest) -> str:
    """Share of the correct answer's content words (numbers, colours, sides) the answer repeats."""
    text = request.last_user_text
    correct = set(re.findall(r"[a-z0-9]+", _tag(text, "correct_answer").lower()))
    answer = set(re.findall(r"[a-z0-9]+", _tag(text, "model_answer").lower()))
    stop = {"the", "a", "an", "is", "are", "it", "there", "in", "on", "of", "image", "and", "visible", "this"}
    content = correct - stop
    share = len(content & answer) / len(content) if content else 0.0
    if request.rng.random() < request.setting("malformed_rate"):
        return "The answer looks mostly fine."
    return f"The answer matches {share:.0%} of the facts.\nScore: {share:.2f}"




# The bundled sample (sample_data/gap/): same image settings as the gap_images asset's defaults.
SAMPLE_IMAGES = {"n_tainted": 20, "n_untainted": 20, "seed": 0}
SAMPLE_PLAYERS = {"n_honest": 12, "n_careless": 4, "n_spammer": 3}


def write_sample(folder) -> list:
    """Regenerate sample_data/gap/logs: simulated logs plus one file with malformed lines."""
    from pathlib import Path

    from benchwright.gap.images import generate_images

    images = generate_images(**SAMPLE_IMAGES)
    records, _ = play_sessions(make_players(**SAMPLE_PLAYERS, seed=0), images, sessions_per_player=2, seed=0)
    logs = Path(folder) / "logs"
    paths = write_log_files(records, logs, per_file=(len(records) + 1) // 2)
    broken = logs / "game_log_broken.jsonl"
    good = json.dumps(records[0] | {"session_id": "broken-s0", "player_id": "honest-00"}, sort_keys=True)
    broken.write_text("\n".join([good, "{not json", json.dumps({"session_id": "x"}),
                                 json.dumps(records[1] | {"player_mark": "maybe"}),
                                 json.dumps(records[2] | {"seconds_taken": 999})]) + "\n")
    return [*paths, broken]


# ----- candidates answering the GAP-VQA val questions -----



def is_candidate_prompt(request: SimRequest) -> bool:
    return request.last_user_text.startswith(ANSWER_LEAD)


def _blobs(url: str) -> list[dict]:
    """Coloured shapes seen in the image: colour, x positions (0-63), and a shape guessed from how much
    of its bounding box it fills (square ≈ 1, circle ≈ 0.79, triangle ≈ 0.5). Same-coloured pixels
    split into separate blobs where their columns leave a gap; specks are ignored."""
    from benchwright.simulate.vision import decode_data_url, nearest_palette_colour

    image = decode_data_url(url)
    if image is None:
        return []
    small = image.convert("RGB").resize((64, 64), resample=0)   # nearest: no blended edge colours
    pixels: dict[str, list[tuple[int, int]]] = {}
    for index, rgb in enumerate(small.getdata()):
        if sum(abs(a - b) for a, b in zip(rgb, (236, 236, 228))) < 30:
            continue
        pixels.setdefault(nearest_palette_colour(rgb), []).append((index % 64, index // 64))
    blobs = []
    for colour, points in pixels.items():
        columns = sorted({x for x, _ in points})
        runs, start = [], columns[0]
        for a, b in zip(columns, columns[1:] + [None]):
            if b is None or b - a > 2:
                runs.append((start, a))
                start = b
        for lo, hi in runs:
            inside = [(x, y) for x, y in points if lo <= x <= hi]
            if len(inside) < 20:
                continue
            ys = [y for _, y in inside]
            fill = len(inside) / ((hi - lo + 1) * (max(ys) - min(ys) + 1))
            shape = "square" if fill > 0.9 else "circle" if fill > 0.65 else "triangle"
            blobs.append({"colour": colour, "xs": [x for x, _ in inside], "shape": shape})
    return blobs


def candidate_answer(request: SimRequest) -> str:
    """Looks at the image (coloured blobs, see `_blobs`): right on plain images, often wrong on cluttered
    ones. With probability (1 − skill)/2 the answer is then subtly changed."""
    question = request.last_user_text[len(ANSWER_LEAD):].replace(TAINT_INSTRUCTION, "").strip()
    blobs = _blobs(request.image_urls[0]) if request.image_urls else []
    rng = request.rng
    if m := re.match(r"Is the (\w+) (\w+) on the left or the right\?", question):
        xs = [x for b in blobs if b["colour"] == m.group(1) for x in b["xs"]]
        side = ("left" if sum(xs) / len(xs) < 32 else "right") if xs else rng.choice(("left", "right"))
        answer = f"It is on the {side}."
    elif m := re.match(r"What colour is the (\w+) nearest the (left|right) edge\?", question):
        same = [b for b in blobs if b["shape"] == m.group(1)] or blobs
        if same:
            edge = (lambda b: min(b["xs"])) if m.group(2) == "left" else (lambda b: -max(b["xs"]))
            answer = f"It is {min(same, key=edge)['colour']}."
        else:
            answer = f"It is {rng.choice(list(PALETTE))}."
    elif m := re.match(r"How many (\w+)s are in the image\?", question):
        answer = f"There are {sum(b['shape'] == m.group(1) for b in blobs)} {m.group(1)}s."
    else:
        answer = "I cannot tell from the image."
    if rng.random() < (1 - request.setting("skill")) / 2:
        answer = subtly_wrong(answer, rng)
    return answer


def is_taint_prompt(request: SimRequest) -> bool:
    return is_candidate_prompt(request) and TAINT_INSTRUCTION in request.last_user_text


def tainted_answer(request: SimRequest) -> str:
    """The game model's answer: asked to plant a mistake, its own answer with one detail changed; asked plainly
    (the same prompt version without the instruction), its own answer."""
    if not is_taint_prompt(request):
        return candidate_answer(request)
    return subtly_wrong(candidate_answer(request), request.rng)


# --- the back end's door (benchwright.simulate): a responder per prompt version ----------------------------

# The prompt kinds of GAP: each answered by its prompt version's responder; the markers tell the version
# only to a stand-in provider that sees the messages without it (``version_of``).
_KINDS = (
    (is_score_prompt, SCORE_PROMPT_VERSION, score_judgment),
    (is_taint_prompt, TAINT_PROMPT_VERSION, tainted_answer),
    (is_candidate_prompt, ANSWER_PROMPT_VERSION, candidate_answer),
)


def version_of(request: SimRequest) -> str | None:
    """The prompt version of a request known only by its messages (a stand-in provider over HTTP)."""
    return version_by_markers(_KINDS, request)


RESPONDERS = {version: respond for _matches, version, respond in _KINDS}
