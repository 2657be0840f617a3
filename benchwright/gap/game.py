"""The GAP game as people play it (benchwright/gap/README.md#the-game): session plans, the planted-error draw, progress
under the per-image timer, and the log records the pipeline ingests (`benchwright.gap.logs.LOG_FIELDS`).

Progress is *derived*, never stored as a counter: from the session's plan, the marks already written
to its log files, when each image was first shown, and the clock. So after a crash the server
rebuilds exactly where a player was from what is on disk.

- A session: 10 images, 5 tainted and 5 untainted, shuffled (nothing shown reveals which is which).
- An image is over when the player marks an answer *Wrong*, or its time limit has passed since it
  was first shown. *Correct* lets the player ask again while time is left.
- A session is over when all its images are over, or 6 hours after it started (the reset).
- Planted errors: on tainted images each question draws I = 1 with probability p_planted, from a
  hash of the session's secret seed and the question's place, so a restart gives the same draw.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import asdict, dataclass

import pandas as pd

from benchwright.gap import logs, reliability

IMAGES_PER_SET = 5
SESSION_RESET_S = 6 * 3600
QUESTION_MAX_CHARS = 300


@dataclass(frozen=True)
class PlannedImage:
    order: int            # 1-based position in the session
    image_id: str
    tainted: bool
    sha256: str


def plan_session(tainted: list[tuple[str, str]], untainted: list[tuple[str, str]], rng: random.Random,
                 per_set: int = IMAGES_PER_SET) -> list[PlannedImage]:
    """`per_set` images from each set ((image_id, sha256) pairs), in a shuffled order."""
    if len(tainted) < per_set or len(untainted) < per_set:
        raise ValueError(f"a session needs {per_set} tainted and {per_set} untainted images; the game has "
                         f"{len(tainted)} and {len(untainted)} (materialize gap_images first)")
    picked = [(i, s, True) for i, s in rng.sample(tainted, per_set)] + \
             [(i, s, False) for i, s in rng.sample(untainted, per_set)]
    rng.shuffle(picked)
    return [PlannedImage(k, image_id, is_tainted, sha) for k, (image_id, sha, is_tainted) in enumerate(picked, start=1)]


def plan_to_json(plan: list[PlannedImage]) -> str:
    return json.dumps([asdict(p) for p in plan])


def plan_from_json(text: str) -> list[PlannedImage]:
    return [PlannedImage(**p) for p in json.loads(text)]


def planted(seed: str, order: int, question_index: int, p_planted: float) -> bool:
    """The I = 1 draw for one question: uniform from a hash, reproducible from the session's seed."""
    digest = hashlib.sha256(f"{seed}:{order}:{question_index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < p_planted


@dataclass
class ImageState:
    image: PlannedImage
    marks: list[dict]
    started_at: float | None     # epoch seconds when first shown; None = not shown yet
    over: bool
    why_over: str | None         # 'marked_wrong' | 'time_up' | None

    def seconds_left(self, now: float, limit: float) -> float:
        return limit if self.started_at is None else max(0.0, self.started_at + limit - now)


def image_states(plan: list[PlannedImage], marks: list[dict], started: dict[int, float], now: float,
                 limit: float) -> list[ImageState]:
    """Where every image of a session stands (marks: parsed log records of the session)."""
    states = []
    for image in plan:
        own = sorted((m for m in marks if m["image_order"] == image.order), key=lambda m: m["question_index"])
        start = started.get(image.order)
        if any(m["player_mark"] == "wrong" for m in own):
            over, why = True, "marked_wrong"
        elif start is not None and now >= start + limit:
            over, why = True, "time_up"
        else:
            over, why = False, None
        states.append(ImageState(image, own, start, over, why))
    return states


def current_image(states: list[ImageState]) -> ImageState | None:
    """The first image that is not over; None when the session is finished."""
    return next((s for s in states if not s.over), None)


def session_expired(started_at: float, now: float) -> bool:
    return now >= started_at + SESSION_RESET_S


def mark_record(*, session_id: str, player_id: str, session_start: str, image: PlannedImage, limit: float,
                question_index: int, question: str, model_answer: str, instructed_wrong: bool, mark: str,
                seconds_taken: float) -> dict:
    """One log record in the ingest's format; checked by the ingest's own parser, so the game can never
    write a line the pipeline would quarantine."""
    record = {"session_id": session_id, "player_id": player_id, "session_start": session_start,
              "image_id": image.image_id, "tainted": image.tainted, "image_order": image.order,
              "time_limit_s": limit, "question_index": question_index, "question": question,
              "model_answer": model_answer, "instructed_wrong": instructed_wrong, "player_mark": mark,
              "seconds_taken": round(min(max(seconds_taken, 0.0), limit), 3)}
    logs.parse_log_line(json.dumps(record))
    return record


def session_points(marks: list[dict]) -> int:
    """Points for a session's marks, by the pipeline's own rule (20 per caught planted error per image)."""
    if not marks:
        return 0
    frame = pd.DataFrame(marks)
    return int(reliability.points(frame)["points"].sum())
