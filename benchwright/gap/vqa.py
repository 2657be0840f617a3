"""GAP-VQA (benchwright/gap/README.md#gap-vqa): kept questions with labelled answers, categories by rules, split by image, ShareGPT export."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from benchwright.gap.images import true_answer
from benchwright.loading import (LoadProblem, RowError, bad_bytes_json_field, has_bad_bytes, json_object, problem_of,
                                 read_text_keeping_bad_bytes)
from benchwright.pii import redacted

CATEGORIES = ["Object Recognition", "Scene Understanding", "Activity Recognition", "Object Attributes",
              "Spatial Relationships", "Counting", "Text Recognition", "Emotion Recognition",
              "Weather and Environment", "Temporal Inference", "Cultural or Social Context",
              "Art and Aesthetics", "Anomaly Detection"]

# First matching rule wins; the order puts specific cues before generic ones. Words are matched whole.
CATEGORY_RULES: list[tuple[str, tuple[str, ...]]] = [
    ("Counting", ("how many", "number of", "count", "how much")),
    # A question about an attribute of a located object is about the attribute.
    ("Object Attributes", ("what colour", "what color", "which colour", "which color", "what shape", "what material")),
    ("Text Recognition", ("text", "written", "say", "says", "read", "word", "letter", "sign", "label", "logo")),
    ("Emotion Recognition", ("emotion", "feel", "feeling", "mood", "happy", "sad", "angry", "smiling", "expression")),
    ("Weather and Environment", ("weather", "sunny", "rain", "raining", "snow", "cloudy", "outdoor", "indoors", "season")),
    ("Temporal Inference", ("time of day", "when", "before", "after", "night", "morning", "evening", "year", "era")),
    ("Spatial Relationships", ("left", "right", "above", "below", "behind", "in front", "next to", "between",
                               "under", "on top", "where", "closest", "farthest")),
    ("Anomaly Detection", ("unusual", "strange", "wrong with", "odd", "out of place", "anomaly", "missing")),
    ("Art and Aesthetics", ("style", "painting", "art", "artistic", "composition", "aesthetic", "drawn")),
    ("Cultural or Social Context", ("culture", "cultural", "tradition", "festival", "religious", "social", "country")),
    ("Activity Recognition", ("doing", "activity", "playing", "running", "eating", "action", "happening")),
    ("Object Attributes", ("color", "colour", "shape", "size", "material", "made of", "big", "small", "texture")),
    ("Scene Understanding", ("scene", "place", "setting", "location", "room", "background")),
    ("Object Recognition", ("what is", "what are", "is there", "are there", "which object", "identify", "object")),
]


def categorize(question: str) -> str:
    """One of the 13 GAP-VQA categories by keyword rules; 'Object Recognition' when nothing matches."""
    text = " " + re.sub(r"[^a-z0-9 ]+", " ", question.lower()) + " "
    for category, cues in CATEGORY_RULES:
        if any(f" {cue} " in text for cue in cues):
            return category
    return "Object Recognition"


def split_by_image(image_ids: list[str], val_fraction: float, seed: int) -> dict[str, str]:
    """image -> 'train' | 'val', seeded; every question of an image lands in the same split."""
    unique = sorted(set(image_ids))
    random.Random(seed).shuffle(unique)
    n_val = round(len(unique) * val_fraction)
    if 0 < val_fraction < 1 and len(unique) >= 2:
        n_val = min(max(n_val, 1), len(unique) - 1)
    return {image: ("val" if k < n_val else "train") for k, image in enumerate(unique)}


def sharegpt_record(item_id: str, image_path: str, question: str, answer: str) -> dict:
    """One LLaMA-Factory ShareGPT conversation (dataset_info: formatting 'sharegpt', images column 'images')."""
    return {"id": item_id, "conversations": [{"from": "human", "value": f"<image>\n{question}"},
                                             {"from": "gpt", "value": answer}], "images": [image_path]}


VQA_COLUMNS = ["item_id", "image_id", "sha256", "question", "answer", "answer_source", "category", "split"]


def read_labels(path: Path) -> tuple[dict[tuple[str, str], str], list[LoadProblem]]:
    """An expert labels file (JSONL of {image_id, question, answer}) as {(image_id, question): answer}.

    Lines that are not such an object are located problems, not a crash; the label of a
    (image, question) given twice is the first one (the repeat is a problem). A missing file is an
    error: silently falling back to ground truth would publish other answers than the ones asked for.
    """
    labels: dict[tuple[str, str], str] = {}
    problems: list[LoadProblem] = []
    for number, line in enumerate(read_text_keeping_bad_bytes(path, "GAP-VQA labels file").splitlines(), start=1):
        if not line.strip():
            continue
        location = f"{path.name}:{number}"
        try:
            if has_bad_bytes(line):
                raise RowError("bytes that are not UTF-8", bad_bytes_json_field(line))
            record = json_object(line)
            values = [record.get(key) for key in ("image_id", "question", "answer")]
            wrong = [k for k, v in zip(("image_id", "question", "answer"), values) if not (isinstance(v, str) and v.strip())]
            if wrong:
                raise RowError("needs text fields image_id, question and answer", wrong[0])
        except RowError as exc:
            problems.append(problem_of(location, exc))
            continue
        key = (values[0], values[1])
        if key in labels:
            problems.append(LoadProblem(location, f"second label for {key[0]}: {key[1]!r} (the first is kept)",
                                        "answer"))
            continue
        labels[key] = values[2]
    return labels, problems


def vqa_items(kept: pd.DataFrame, images: pd.DataFrame, labels: Mapping[tuple[str, str], str],
              val_fraction: float, seed: int) -> tuple[pd.DataFrame, list[LoadProblem]]:
    """GAP-VQA rows from the kept (image_id, question) pairs: the labelled answer, else the exact ground
    truth of a generated image; a rule-based category; a train/val split by image.

    ``images`` is indexed by image_id with columns sha256 and truth (JSON). Answers are redacted: a
    labels file is someone's text, and it reaches the table and the export.
    """
    items, problems = [], []
    for row in kept.itertuples(index=False):
        location = f"{row.image_id}: {row.question}"
        if row.image_id not in images.index:
            problems.append(LoadProblem(location, "image not in gap_images", "image_id"))
            continue
        answer, source = labels.get((row.image_id, row.question)), "labels_file"
        if answer is None:
            answer, source = true_answer(json.loads(images.at[row.image_id, "truth"]), row.question), "ground_truth"
        if answer is None:
            problems.append(LoadProblem(location, "no label and no ground-truth answer", "answer"))
            continue
        items.append({"image_id": row.image_id, "sha256": images.at[row.image_id, "sha256"], "question": row.question,
                      "answer": redacted(answer), "answer_source": source, "category": categorize(row.question)})
    df = pd.DataFrame(items, columns=[c for c in VQA_COLUMNS if c not in ("item_id", "split")])
    df["split"] = df["image_id"].map(split_by_image(df["image_id"].tolist(), val_fraction, seed))
    df.insert(0, "item_id", [f"gap-{k:05d}" for k in range(len(df))])
    return df[VQA_COLUMNS], problems


def write_export(folder: Path, items: pd.DataFrame, image_data: Mapping[str, bytes]) -> None:
    """The LLaMA-Factory export: images/<image_id>.png, train.jsonl and val.jsonl (ShareGPT records)."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    for image_id in items["image_id"].unique():
        (folder / "images" / f"{image_id}.png").write_bytes(bytes(image_data[image_id]))
    for name in ("train", "val"):
        part = items[items["split"] == name]
        records = [sharegpt_record(r.item_id, f"images/{r.image_id}.png", r.question, r.answer)
                   for r in part.itertuples(index=False)]
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
