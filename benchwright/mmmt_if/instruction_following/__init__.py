"""Programmatic instruction following (benchwright/mmmt_if/README.md#checkers, #scoring): checkers and PIF.

    from benchwright.mmmt_if.instruction_following import INSTRUCTIONS, check, pif
    check("So it goes. Surely so.", "start_S")            # True
    pif("Short answer.", ["length_short", "word_like"])   # 0.5

- ``INSTRUCTIONS``: id -> ``Instruction`` (``category``, ``text`` as told to the model, checker).
- ``check(response, instruction_id)``: does the response follow the instruction?
- ``followed(response, instruction_ids)``: id -> bool for several at once (one text analysis).
- ``pif(response, instruction_ids)``: share of the given instructions the response follows;
  1.0 when none is given. A repeated id counts once.

How responses are read (sentences, words, numbers, markdown) is defined once, in
``benchwright.mmmt_if.instruction_following.text``; how each instruction is judged, in
``benchwright.mmmt_if.instruction_following.instructions``. An unknown id raises
``UnknownInstructionError`` (a ``KeyError``) naming it and the known ids. A response that is not
a string (e.g. None from a failed call) is read as empty: callers should not score failed calls.
"""

from __future__ import annotations

from collections.abc import Iterable

from .instructions import CATEGORIES, INSTRUCTIONS, OPTIONS_BY_CATEGORY, Instruction
from .text import NUMBER_WORDS_COUNT, TextStats, analyse

__all__ = [
    "CATEGORIES", "INSTRUCTIONS", "NUMBER_WORDS_COUNT", "OPTIONS_BY_CATEGORY", "Instruction", "TextStats",
    "UnknownInstructionError", "analyse", "check", "followed", "instruction", "pif",
]  # fmt: skip


class UnknownInstructionError(KeyError):
    def __str__(self) -> str:
        return self.args[0]


def instruction(instruction_id: str) -> Instruction:
    """The instruction with this id, or UnknownInstructionError."""
    try:
        return INSTRUCTIONS[instruction_id]
    except (KeyError, TypeError):
        known = ", ".join(INSTRUCTIONS)
        raise UnknownInstructionError(f"unknown instruction id {instruction_id!r}; known ids: {known}") from None


def check(response: str, instruction_id: str) -> bool:
    """Does ``response`` follow the instruction ``instruction_id``?"""
    return instruction(instruction_id).check(analyse(response))


def followed(response: str, instruction_ids: Iterable[str]) -> dict[str, bool]:
    """id -> followed, for every distinct id given (validated before the response is read)."""
    specs = [instruction(i) for i in dict.fromkeys(instruction_ids)]
    stats = analyse(response)
    return {spec.id: spec.checker(stats) for spec in specs}  # Instruction.check without the extra call


def pif(response: str, instruction_ids: Iterable[str]) -> float:
    """Programmatic instruction following: followed / given, over the distinct ids; 1.0 if none."""
    results = followed(response, instruction_ids)
    if not results:
        return 1.0
    return sum(results.values()) / len(results)
