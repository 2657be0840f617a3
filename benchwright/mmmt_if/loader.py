"""Loaders for MMMT-IF (benchwright/mmmt_if/README.md): source chats, the published release table, human ratings.

All loaders are lenient per row and strict per file: a bad row becomes a ``LoadProblem`` naming the
file and the line (or chat), and the other rows load; a file that cannot be read raises.

Chats (before instructions are inserted)
----------------------------------------
- **Our JSONL layout** (``sample_data/mmmt_if/chats.jsonl``), one chat per line::

      {"chat_id": "harbour", "topic": "...", "images": ["images/a.png", ...],
       "turns": ["first question", "second question", ...]}

  A turn that is ``null`` or empty is a *skipped turn*.
- **The MMDU layout** (the multi-turn multi-image benchmark MMMT-IF builds on): a JSON file holding
  a list of chats or an object mapping ids to chats, each ``{"id", "image": [paths],
  "conversations": [{"from": "user", "value": "<ImageHere>..."}, {"from": "assistant", ...}, ...]}``.
  ``<ImageHere>`` tags are removed from the questions (every image goes with the first turn).
  Turns must alternate user / assistant starting with the user; a user message with no answer
  before the next one, an empty question, or an assistant message with no question is a
  *skipped turn*. ``human``/``gpt`` are accepted for ``user``/``assistant``.

Image paths are relative to the file's folder; absolute paths, ``..`` escapes and symlinks out of
the folder are refused. ``prepare_chats`` then applies the filtering of benchwright/mmmt_if/README.md#chats-and-instructions (see
``benchwright.mmmt_if.chat_set.filter_chat``): a chat with a missing or corrupt image, more than 5 images
or a skipped turn is dropped and recorded; a chat longer than 20 turns is truncated.

The MMMT-IF public release table
--------------------------------
``load_release_csv`` reads the published CSV layout: one row per (conversation, turn) with the
prompt, the cumulative instructions in force (``all instructions``: ``Instruction: ...`` sentences
run together), their count, per-model judge scores (``<Criterion> <Model>`` for the 8 criteria;
the release calls Overall Quality "Overall score") and ``Programmatic Instruction Following
<Model>`` (PIF), the weights (``auto eval metric weights``: 8 ones and the PIF weight), and
pairwise preference columns ``Preference: 1 for X, 0 for Y`` (1: X preferred, 0: Y, 0.5: tie).
Instruction sentences are mapped to our ids by their meaning (e.g. "no more than 4 sentences" →
``length_short``); a sentence that matches no id, or more than one, is a problem of its row. One bad
record never voids the file: a record with broken quoting, another number of cells than the header,
bytes that are not UTF-8, a turn or count or score or preference that is not a number is a located
problem (``<file>:<line>``) and the other records load; only an empty file, a header that cannot be
read or one without the required columns raises.

Human ratings (the CSV drop folder)
-----------------------------------
``load_human_csv`` reads one of two layouts, told apart by the header:

- ratings: ``model, chat_id, turn, rating`` (1–10) and optionally ``variant`` (default
  ``standard``), ``sample_index`` (default 0), ``rater``;
- preferences: ``chat_id, turn, model_a, model_b, preferred`` (``a``, ``b`` or ``tie``) and
  optionally ``variant``, ``sample_index``, ``rater``.

A row with another number of cells than the header, or broken quoting, is a problem of its line; a
quoted cell never closed is one problem at the line it opens (the rows after it cannot be read); a
header naming a column twice, like an unknown layout, makes the file unusable (``ValueError``).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchwright.loading import (LoadProblem, read_bytes, RowError, bad_bytes_cell, csv_table, decode_keeping_bad_bytes,
                                  has_bad_bytes, json_object, once_each, problem_of, without_unfinished_line)
from benchwright.pii import pseudonym
from benchwright.images import ImageError, NormalizedImage, normalize_image
from benchwright.mmmt_if.chat_set import Chat, ChatCandidate, filter_chat, truncate
from benchwright.mmmt_if.prompts import AUTORATER_KEYS, MAX_IMAGES, MAX_TURNS, STANDARD, VARIANTS

__all__ = ["LoadProblem", "PreparedChats", "ReleaseData", "load_chats", "load_chats_jsonl", "load_mmdu_json",
           "prepare_chats", "load_release_csv", "load_human_csv", "load_human_folder",
           "HumanFolder", "instruction_id_for"]


def _image(base: Path, rel: object) -> tuple[str, bytes | None]:
    """(name, bytes) of an image path relative to ``base``; bytes None when it cannot be used."""
    if not isinstance(rel, str) or not rel.strip():
        return str(rel), None
    if os.path.isabs(rel) or rel.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", rel):
        return rel, None
    target = (base / rel).resolve()
    if not target.is_relative_to(base) or not target.is_file():
        return rel, None
    try:
        return rel, target.read_bytes()
    except OSError:
        return rel, None


# --- our JSONL layout ----------------------------------------------------------------------------------

def load_chats_jsonl(path: str | os.PathLike) -> tuple[list[ChatCandidate], list[LoadProblem]]:
    path = Path(path)
    raw = read_bytes(path, "MMMT-IF chats file")
    base = path.parent.resolve()
    chats, problems = [], []
    for lineno, line_bytes in enumerate(raw.split(b"\n"), start=1):
        location = f"{path.name}:{lineno}"
        try:
            line = line_bytes.decode("utf-8-sig" if lineno == 1 else "utf-8")
        except UnicodeDecodeError:
            problems.append(LoadProblem(location, "not valid UTF-8"))
            continue
        if not line.strip():
            continue
        try:
            chats.append(_chat_from_json(line, base, location))
        except RowError as exc:
            problems.append(problem_of(location, exc))
    return chats, problems


def _chat_from_json(line: str, base: Path, location: str) -> ChatCandidate:
    obj = json_object(line)
    chat_id = obj.get("chat_id")
    if not isinstance(chat_id, str) or not chat_id.strip():
        raise RowError("missing chat_id", "chat_id")
    turns, images = obj.get("turns"), obj.get("images")
    if not isinstance(turns, list):
        raise RowError("'turns' must be a list of questions", "turns")
    if not isinstance(images, list):
        raise RowError("'images' must be a list of paths", "images")
    questions = [t if isinstance(t, str) else None for t in turns]
    return ChatCandidate(chat_id.strip(), questions, [_image(base, rel) for rel in images],
                         f"{location} (chat {chat_id.strip()})", str(obj.get("topic") or ""))


# --- the MMDU layout -------------------------------------------------------------------------------

_ROLE = {"user": "user", "human": "user", "assistant": "assistant", "gpt": "assistant"}
_IMAGE_TAG = re.compile(r"<ImageHere>", re.IGNORECASE)


def load_mmdu_json(path: str | os.PathLike) -> tuple[list[ChatCandidate], list[LoadProblem]]:
    path = Path(path)
    raw = read_bytes(path, "MMDU-style chats file")
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a JSON file: {exc}") from None
    if isinstance(data, dict):
        entries = [(str(key), value) for key, value in data.items()]
    elif isinstance(data, list):
        entries = [(str(index), value) for index, value in enumerate(data)]
    else:
        raise ValueError(f"{path}: expected a list of chats or an object of id -> chat")
    base = path.parent.resolve()
    chats, problems = [], []
    for key, entry in entries:
        location = f"{path.name}: chat {key}"
        try:
            chats.append(_mmdu_chat(entry, key, base, location))
        except RowError as exc:
            problems.append(problem_of(location, exc))
    return chats, problems


def _mmdu_chat(entry: object, key: str, base: Path, location: str) -> ChatCandidate:
    if not isinstance(entry, dict):
        raise RowError(f"expected an object, got {type(entry).__name__}")
    chat_id = str(entry.get("id", key)).strip() or key
    images, conversation = entry.get("image", []), entry.get("conversations")
    if isinstance(images, str):
        images = [images]
    if not isinstance(images, list):
        raise RowError("'image' must be a list of paths", "image")
    if not isinstance(conversation, list) or not conversation:
        raise RowError("'conversations' must be a non-empty list", "conversations")
    questions: list[str | None] = []
    expecting = "user"
    for number, message in enumerate(conversation, start=1):
        role = _ROLE.get(str(message.get("from", "")).lower()) if isinstance(message, dict) else None
        if role is None:
            raise RowError(f"message {number} has no known speaker ('from': user/assistant)",
                           f"conversations[{number - 1}].from")
        if role != expecting:
            # A question without an answer, or an answer without a question: a skipped turn.
            questions.append(None)
            expecting = role
        if role == "user":
            text = message.get("value")
            text = _IMAGE_TAG.sub("", text).strip() if isinstance(text, str) else ""
            questions.append(text or None)
            expecting = "assistant"
        else:
            expecting = "user"
    return ChatCandidate(chat_id, questions, [_image(base, rel) for rel in images], location)


def load_chats(path: str | os.PathLike) -> tuple[list[ChatCandidate], list[LoadProblem]]:
    """Chats from our JSONL layout (``.jsonl``) or the MMDU layout (``.json``)."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        return load_mmdu_json(path)
    return load_chats_jsonl(path)


# --- filtering and images ------------------------------------------------------------------------------

@dataclass
class PreparedChats:
    chats: list[Chat]
    images: dict[str, NormalizedImage]
    problems: list[LoadProblem]
    truncated: list[str] = field(default_factory=list)  # chat ids cut to max_turns


def prepare_chats(candidates: list[ChatCandidate], source: str = "", max_turns: int = MAX_TURNS,
                  max_images: int = MAX_IMAGES) -> PreparedChats:
    """Apply the card's filtering and normalize the images (Pillow, content hash)."""
    prepared = PreparedChats([], {}, [])
    seen: set[str] = set()
    for candidate in candidates:
        if candidate.chat_id in seen:
            prepared.problems.append(LoadProblem(candidate.location, f"duplicate chat_id {candidate.chat_id!r}", "chat_id"))
            continue
        reason = filter_chat(candidate, max_turns, max_images)
        images: list[NormalizedImage] = []
        for name, data in candidate.images:
            if reason:
                break
            if data is None:
                reason = f"image {name!r} is missing or outside the dataset folder"
                break
            try:
                images.append(normalize_image(data))
            except ImageError as exc:
                reason = f"corrupt image {name!r}: {exc}"
        if reason:
            prepared.problems.append(LoadProblem(candidate.location, f"chat dropped: {reason}"))
            continue
        seen.add(candidate.chat_id)
        if len(candidate.questions) > max_turns:
            prepared.truncated.append(candidate.chat_id)
        for image in images:
            prepared.images[image.sha256] = image
        prepared.chats.append(Chat(candidate.chat_id, truncate(candidate.questions, max_turns),
                                   [image.sha256 for image in images], candidate.topic, source))
    return prepared


# --- the MMMT-IF release table --------------------------------------------------------------------

# Phrases that identify each instruction in the release's wording (after lower-casing and
# collapsing spaces). Order matters only for readability: a sentence must match exactly one id.
_RELEASE_PHRASES = {
    "length_short": r"no more than 4 sentences",
    "length_long": r"at least 5 sentences",
    "start_S": r"start every sentence with the letter \(?s\)?",
    "start_B": r"start every sentence with the letter \(?b\)?",
    "end_question": r"end every sentence with an? question mark",
    "end_exclaim": r"end every sentence with an? exclamation mark",
    "word_like": r"use the word '?like'?",
    "word_itself": r"use the word '?itself'?",
    "word_per_se": r"use the word '?per se'?",
    "sentence_short": r"each sentence in the response is at most 18 words",
    "sentence_long": r"each sentence in the response is at least 18 words",
    "number_even": r"at least one even number",
    "number_odd": r"at least one odd number",
}
_RELEASE_PATTERNS = {key: re.compile(pattern) for key, pattern in _RELEASE_PHRASES.items()}
_MODEL_SUFFIX = re.compile(r"^Programmatic Instruction Following (?P<model>.+)$")
_PREFERENCE = re.compile(r"^Preference: 1 for (?P<a>.+?), 0 for (?P<b>.+)$")
_RELEASE_CRITERIA = {**{k: k for k in AUTORATER_KEYS}, "Overall score": "Overall Quality"}


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def instruction_id_for(sentence: str) -> str:
    """Our instruction id for one release instruction sentence; ValueError when not exactly one."""
    lowered = _squash(sentence).lower()
    matches = [key for key, pattern in _RELEASE_PATTERNS.items() if pattern.search(lowered)]
    if len(matches) != 1:
        raise ValueError(f"instruction {_squash(sentence)!r} matches {matches or 'no id'}")
    return matches[0]


def _instruction_ids(text: str) -> list[str]:
    sentences = [s for s in re.split(r"Instruction:", text or "") if s.strip()]
    return [instruction_id_for(s) for s in sentences]


@dataclass
class ReleaseData:
    turns: pd.DataFrame  # chat_id, turn, prompt, instructions_in_force, inserted_instruction, instruction_count, ...
    scores: pd.DataFrame  # chat_id, turn, model, <8 criteria>, pif
    preferences: pd.DataFrame  # chat_id, turn, model_a, model_b, preference (1 a, 0 b, 0.5 tie)
    weights: list[float]  # the 8 criteria weights then the PIF weight, as published
    models: list[str]
    problems: list[LoadProblem]


def load_release_csv(path: str | os.PathLike) -> ReleaseData:
    path = Path(path)
    text = decode_keeping_bad_bytes(read_bytes(path, "MMMT-IF release CSV"))
    # Read strictly (an empty file or a column named twice raise, a broken record is its own problem, located),
    # not by pandas, which would rename a second `prompt` to `prompt.1` and fill a short row with missing values.
    table = csv_table(text)
    if table.header_problem:
        raise ValueError(f"{path}, line 1: {table.header_problem}")
    problems: list[LoadProblem] = []
    good = []
    for record in table.records:
        if record.problem or has_bad_bytes("".join(record.cells)):
            problems.append(LoadProblem(f"{path.name}:{record.line}", record.problem or "bytes that are not UTF-8",
                                        None if record.problem else bad_bytes_cell(table.header, record.cells)))
        else:
            good.append(record)
    frame = pd.DataFrame([record.cells for record in good], columns=table.header, dtype=str)
    lines = [record.line for record in good]
    required = ["conversation id", "prompt", "all instructions", "instruction count"]
    turn_column = next((c for c in frame.columns if c.startswith("turn count")), None)
    missing = [c for c in required if c not in frame.columns] + ([] if turn_column else ["turn count ..."])
    if missing:
        raise ValueError(f"{path} lacks required column(s): {missing}")
    models = [m.group("model") for c in frame.columns if (m := _MODEL_SUFFIX.match(c))]
    pairs = [(c, m.group("a"), m.group("b")) for c in frame.columns if (m := _PREFERENCE.match(c))]

    turns, scores, preferences, weights = [], [], [], None
    previous: dict[str, list[str]] = {}
    for line, row in zip(lines, frame.to_dict("records")):
        location = f"{path.name}:{line}"
        column = turn_column  # the cell being read, the problem's field if it is wrong
        try:
            chat_id, turn = row["conversation id"].strip(), int(row[turn_column])
            column = "all instructions"
            in_force = _instruction_ids(row["all instructions"])
            column = "instruction count"
            count = int(row["instruction count"])
            pair_values = []
            for column, a, b in pairs:
                pair_values.append((column, a, b, _preference_value(row[column])))
        except ValueError as exc:
            problems.append(LoadProblem(location, str(exc), column))
            continue
        before = previous.get(chat_id, [])
        new = [i for i in in_force if i not in before]
        previous[chat_id] = in_force
        turns.append({"chat_id": chat_id, "turn": turn, "prompt": _squash(row["prompt"]),
                      "instructions_in_force": in_force, "inserted_instruction": new[0] if len(new) == 1 else None,
                      "new_instructions": new, "instruction_count": count,
                      "topic": row.get("question topic", "").strip().rstrip("'"),
                      "capability": row.get("LLM capability tested", "").strip()})
        if weights is None and row.get("auto eval metric weights", "").strip():
            weights = [float(w) for w in row["auto eval metric weights"].split()]
        for model in models:
            record = {"chat_id": chat_id, "turn": turn, "model": model}
            column = f"Programmatic Instruction Following {model}"
            try:
                for column_name, criterion in _RELEASE_CRITERIA.items():
                    if f"{column_name} {model}" in row:
                        column = f"{column_name} {model}"
                        record[criterion] = float(row[column])
                column = f"Programmatic Instruction Following {model}"
                record["pif"] = float(row[column])
            except ValueError as exc:
                problems.append(LoadProblem(f"{location}, model {model}", f"not a number: {exc}", column))
                continue
            scores.append(record)
        for column, model_a, model_b, value in pair_values:
            preferences.append({"chat_id": chat_id, "turn": turn, "model_a": model_a, "model_b": model_b,
                                "preference": value})
    return ReleaseData(pd.DataFrame(turns), pd.DataFrame(scores), pd.DataFrame(preferences), weights or [],
                       models, problems)


def _preference_value(cell: str) -> float | None:
    """A preference cell: 1, 0 or 0.5, or None when empty."""
    if not cell.strip():
        return None
    try:
        value = float(cell)
    except ValueError:
        raise ValueError(f"preference {cell!r:.40} is not a number") from None
    if value not in (0.0, 0.5, 1.0):
        raise ValueError(f"preference {cell!r:.40} is not 1, 0 or 0.5")
    return value


# --- human ratings ---------------------------------------------------------------------------------

RATING_COLUMNS = ["model", "chat_id", "turn", "variant", "sample_index", "rating", "rater", "source_file"]
HUMAN_PREFERENCE_COLUMNS = ["chat_id", "turn", "variant", "sample_index", "model_a", "model_b", "preferred",
                            "rater", "source_file"]


def load_human_csv(path: str | os.PathLike) -> tuple[str, list[dict], list[LoadProblem]]:
    """('ratings' | 'preferences', rows, problems) from one human-ratings CSV (see the module docstring)."""
    path = Path(path)
    # Bytes that are not UTF-8 survive as surrogate escapes: the record holding them is refused, not the file.
    text = decode_keeping_bad_bytes(read_bytes(path, "human ratings CSV"))
    text, tail = without_unfinished_line(text)  # the drop-folder contract: never half a record
    table = csv_table(text)
    if table.header_problem or has_bad_bytes("".join(table.header)):
        raise ValueError(f"{path}: {table.header_problem or 'the header holds bytes that are not UTF-8'}")
    header = set(table.header)
    if {"model", "chat_id", "turn", "rating"} <= header:
        kind = "ratings"
    elif {"chat_id", "turn", "model_a", "model_b", "preferred"} <= header:
        kind = "preferences"
    else:
        raise ValueError(f"{path}: header {sorted(header)} is neither the ratings layout "
                         "(model, chat_id, turn, rating) nor the preferences layout "
                         "(chat_id, turn, model_a, model_b, preferred)")
    rows, problems = [], []
    for record in table.records:
        row = {name: cell.strip() for name, cell in zip(table.header, record.cells)}
        try:
            if record.problem:
                raise RowError(record.problem)
            if bad_cell := bad_bytes_cell(table.header, record.cells):
                raise RowError("bytes that are not UTF-8", bad_cell)
            # A file named after its rater is stored under a pseudonym, like the rater.
            rows.append({**_human_row(kind, row, pseudonym(path.name)), "source_line": record.line})
        except RowError as exc:
            problems.append(problem_of(f"{path.name}:{record.line}", exc))
    if tail:
        problems.append(LoadProblem(f"{path.name}:{text.count(chr(10)) + 1}", f"incomplete last line ({len(tail)} "
                                    "characters, no line end yet): read once it is complete"))
    return kind, rows, problems


@dataclass
class HumanFolder:
    """What the human-ratings drop folder holds: its CSV files, their ratings and preferences (each record once)
    and every record or file refused, located."""

    files: list[Path]
    ratings: pd.DataFrame
    preferences: pd.DataFrame
    problems: list[LoadProblem]


def load_human_folder(folder: Path) -> HumanFolder:
    """Every CSV in the folder (sorted by name), each rating and preference once whatever file, or copy of a
    file, brings it. A file that is neither layout is one problem and the other files still load."""
    files = sorted(folder.glob("*.csv")) if folder.is_dir() else []
    rows_by_kind: dict[str, list[dict]] = {"ratings": [], "preferences": []}
    problems: list[LoadProblem] = []
    for path in files:
        try:
            kind, rows, file_problems = load_human_csv(path)
        except ValueError as exc:
            problems.append(LoadProblem(path.name, str(exc)))
            continue
        rows_by_kind[kind] += rows
        problems += file_problems
    ratings, repeated_ratings = human_once_each("ratings", rows_by_kind["ratings"])
    preferences, repeated_preferences = human_once_each("preferences", rows_by_kind["preferences"])
    return HumanFolder(files, ratings, preferences, problems + repeated_ratings + repeated_preferences)


def human_once_each(kind: str, rows: list[dict]) -> tuple[pd.DataFrame, list[LoadProblem]]:
    """The folder's ratings (or preferences) with each record once: a rating is itself by model, chat,
    turn, variant, sample, rater and value (``benchwright.loading.once_each``; without a rater, by
    occurrence in its file). Repeats are located problems."""
    columns = RATING_COLUMNS if kind == "ratings" else HUMAN_PREFERENCE_COLUMNS
    key = [c for c in columns if c != "source_file"]
    kept, repeated = once_each(rows, key, identity="rater")
    return (pd.DataFrame(kept, columns=columns),
            [LoadProblem(place, reason) for place, reason in repeated])


def _human_row(kind: str, row: dict, source: str) -> dict:
    whole = {}
    for name, default in (("turn", None), ("sample_index", 0)):
        try:
            whole[name] = int(row.get(name) or default) if default is not None else int(row[name])
        except ValueError:
            raise RowError(f"turn {row.get('turn')!r} / sample_index {row.get('sample_index')!r} must be whole "
                           "numbers", name) from None
    turn, sample_index = whole["turn"], whole["sample_index"]
    if turn < 1 or sample_index < 0:
        raise RowError("turn must be at least 1 and sample_index at least 0", "turn" if turn < 1 else "sample_index")
    variant = row.get("variant") or STANDARD
    if variant not in VARIANTS:
        raise RowError(f"variant {variant!r} is not one of {list(VARIANTS)}", "variant")
    common = {"chat_id": row["chat_id"], "turn": turn, "variant": variant, "sample_index": sample_index,
              "rater": pseudonym(row.get("rater") or None), "source_file": source}
    if not row["chat_id"]:
        raise RowError("empty chat_id", "chat_id")
    if kind == "ratings":
        try:
            rating = float(row["rating"])
        except ValueError:
            raise RowError(f"rating {row['rating']!r} is not a number", "rating") from None
        if not 1.0 <= rating <= 10.0:
            raise RowError(f"rating {rating:g} is outside 1-10", "rating")
        if not row["model"]:
            raise RowError("empty model", "model")
        return {"model": row["model"], "rating": rating, **common}
    preferred = row["preferred"].lower()
    if preferred not in ("a", "b", "tie"):
        raise RowError(f"preferred {row['preferred']!r} must be a, b or tie", "preferred")
    if not row["model_a"] or not row["model_b"] or row["model_a"] == row["model_b"]:
        raise RowError("model_a and model_b must be two different models", "model_b" if row["model_a"] else "model_a")
    return {"model_a": row["model_a"], "model_b": row["model_b"], "preferred": preferred, **common}
