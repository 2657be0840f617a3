"""Pairwise annotation rounds (benchwright/creation/README.md#human-alignment, benchwright/urs/README.md#alignment-with-people): which pairs a person sees, in which order and on
which side, and the record their choice becomes (`benchwright.human_pairwise.COLUMNS`).

A *pair* is two answers to one item: for Creation the baseline's answer (model_a) and a candidate's
(model_b); for URS two candidates' answers. The round shuffles the items and, per item, which answer
is on the left; both are recorded, so position effects can be studied later.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass

from benchwright.human_pairwise import COLUMNS

ROUND_SIZE = 6

# The five points of the human scale plus "cannot tell" (excluded from the metrics), in the order shown.
CHOICES: dict[str, tuple[str, str | None, int | None]] = {
    # key: (label, side preferred, strength)
    "left_much_better": ("Left is much better", "left", 2),
    "left_better": ("Left is better", "left", 1),
    "same": ("About the same", None, 0),
    "right_better": ("Right is better", "right", 1),
    "right_much_better": ("Right is much better", "right", 2),
    "cannot_tell": ("Cannot tell", None, None),
}


@dataclass(frozen=True)
class Pair:
    benchmark: str        # 'creation' | 'urs'
    item_id: str
    model_a: str
    model_b: str


@dataclass(frozen=True)
class Task:
    position: int         # 1-based place in the round
    pair: Pair
    left_model: str

    @property
    def right_model(self) -> str:
        return self.pair.model_b if self.left_model == self.pair.model_a else self.pair.model_a


def plan_round(pairs: list[Pair], rng: random.Random, size: int = ROUND_SIZE) -> list[Task]:
    """Up to `size` pairs, no item twice, benchmarks taking turns (so every alignment gets data), in a
    random order, each with a random left side."""
    if not pairs:
        raise ValueError("nothing to annotate yet: the pipeline has not produced any answers (run the demo first)")
    queues: dict[str, list[Pair]] = {}
    for pair in rng.sample(pairs, len(pairs)):
        queues.setdefault(pair.benchmark, []).append(pair)
    picked, seen = [], set()
    while len(picked) < size and any(queues.values()):
        for benchmark in sorted(queues):
            while queues[benchmark] and len(picked) < size:
                pair = queues[benchmark].pop()
                if (pair.benchmark, pair.item_id) not in seen:
                    seen.add((pair.benchmark, pair.item_id))
                    picked.append(pair)
                    break
    rng.shuffle(picked)
    return [Task(k, pair, rng.choice((pair.model_a, pair.model_b))) for k, pair in enumerate(picked, start=1)]


def round_to_json(tasks: list[Task]) -> str:
    return json.dumps([asdict(t) for t in tasks])


def round_from_json(text: str) -> list[Task]:
    return [Task(t["position"], Pair(**t["pair"]), t["left_model"]) for t in json.loads(text)]


def choice_record(task: Task, choice: str, *, annotator: str, round_id: str, recorded_at: str,
                  seconds_taken: float) -> dict:
    """The CSV record for one choice: winner and strength relative to model_a / model_b."""
    if choice not in CHOICES:
        raise ValueError(f"unknown choice {choice!r}")
    _, side, strength = CHOICES[choice]
    if strength is None:
        winner = "undetermined"
    elif side is None:
        winner = "tie"
    else:
        preferred = task.left_model if side == "left" else task.right_model
        winner = "A" if preferred == task.pair.model_a else "B"
    record = {"benchmark": task.pair.benchmark, "item_id": task.pair.item_id, "model_a": task.pair.model_a,
              "model_b": task.pair.model_b, "winner": winner, "strength": strength, "annotator": annotator,
              "left_model": task.left_model, "item_position": task.position, "round_id": round_id,
              "recorded_at": recorded_at, "seconds_taken": round(max(seconds_taken, 0.0), 3)}
    if list(record) != COLUMNS:
        raise RuntimeError("annotation record out of step with the loader's columns")
    return record
