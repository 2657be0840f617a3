"""MMMT-IF chat set (benchwright/mmmt_if/README.md#chats-and-instructions): filtering and truncating chats, the seeded insertion of instructions, turn rows."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field


from benchwright.mmmt_if.instruction_following import CATEGORIES, INSTRUCTIONS, OPTIONS_BY_CATEGORY
from benchwright.mmmt_if.prompts import INSTRUCTION_LEAD, MAX_IMAGES, MAX_INSTRUCTIONS, MAX_TURNS


@dataclass
class Chat:
    """A plain multi-turn chat before instructions are inserted."""

    chat_id: str
    questions: list[str]
    image_hashes: list[str] = field(default_factory=list)
    topic: str = ""
    source: str = ""


def insert_instructions(chat_id: str, n_turns: int, seed: int = 0) -> list[str | None]:
    """The instruction inserted before each question (None when none is), seeded per chat."""
    rng = random.Random(f"mmmt-if:{seed}:{chat_id}")
    used: list[str] = []
    inserted: list[str | None] = []
    for _ in range(n_turns):
        if rng.random() < 1.0 - len(used) / MAX_INSTRUCTIONS:
            category = rng.choice([c for c in CATEGORIES if c not in used])
            used.append(category)
            inserted.append(rng.choice(OPTIONS_BY_CATEGORY[category]))
        else:
            inserted.append(None)
    return inserted


def user_text(question: str, instruction_id: str | None) -> str:
    """A user turn as the model sees it: the inserted instruction, if any, then the question."""
    if instruction_id is None:
        return question
    return f"{INSTRUCTION_LEAD}{INSTRUCTIONS[instruction_id].text}\n{question}"


def turn_rows(chat: Chat, seed: int = 0) -> list[dict]:
    """One row per turn: question, inserted instruction and the instructions in force."""
    inserted = insert_instructions(chat.chat_id, len(chat.questions), seed)
    rows, in_force = [], []
    for number, (question, instruction_id) in enumerate(zip(chat.questions, inserted), start=1):
        if instruction_id is not None:
            in_force.append(instruction_id)
        rows.append({
            "chat_id": chat.chat_id, "turn": number, "turn_id": turn_id(chat.chat_id, number),
            "question": question, "inserted_instruction": instruction_id,
            "user_text": user_text(question, instruction_id),
            "instructions_in_force": list(in_force), "n_instructions": len(in_force),
        })
    return rows


def turn_id(chat_id: str, turn: int) -> str:
    return f"{chat_id}#t{turn:02d}"


def instruction_rows(turns: Iterable[Mapping]) -> list[dict]:
    """One row per (turn, instruction in force at that turn)."""
    given_at: dict[tuple[str, str], int] = {}
    rows = []
    for turn in turns:
        if turn["inserted_instruction"]:
            given_at[(turn["chat_id"], turn["inserted_instruction"])] = turn["turn"]
        for instruction_id in turn["instructions_in_force"]:
            rows.append({"chat_id": turn["chat_id"], "turn": turn["turn"], "turn_id": turn["turn_id"],
                         "instruction_id": instruction_id, "category": INSTRUCTIONS[instruction_id].category,
                         "given_at_turn": given_at[(turn["chat_id"], instruction_id)]})
    return rows


@dataclass
class ChatCandidate:
    """A chat as a loader found it: questions may be None (skipped turn), images raw bytes."""

    chat_id: str
    questions: list[str | None]
    images: list[tuple[str, bytes | None]]  # (name, bytes or None when unreadable)
    location: str
    topic: str = ""


def filter_chat(candidate: ChatCandidate, max_turns: int = MAX_TURNS, max_images: int = MAX_IMAGES) -> str | None:
    """Why the chat is dropped (the card's filtering rule), or None when it is kept.

    Corrupt images are checked by the caller (they need decoding); this covers the rest:
    more than ``max_images`` images, a skipped turn (an empty or missing question), no turn.
    """
    if len(candidate.images) > max_images:
        return f"{len(candidate.images)} images (at most {max_images})"
    skipped = [n for n, q in enumerate(candidate.questions, start=1) if not (isinstance(q, str) and q.strip())]
    if skipped:
        return f"skipped turn(s) {skipped[:5]}"
    if not candidate.questions:
        return "no turn"
    return None


def truncate(questions: Sequence[str], max_turns: int = MAX_TURNS) -> list[str]:
    return [q.strip() for q in questions[:max_turns]]
