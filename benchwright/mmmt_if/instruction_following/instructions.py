"""The 13 verifiable instructions of MMMT-IF (benchwright/mmmt_if/README.md#chats-and-instructions) and their checkers.

Each instruction belongs to one of 6 categories; a chat holds at most one instruction per
category. The checkers read the response through the shared text model (``text.analyse``).

Rules shared by the checkers (choices the method leaves open):
- "Every sentence ..." instructions and ``length_short`` need at least one sentence: a response
  with no sentence (empty, or only symbols) follows none of them, as it follows no instruction.
- Letters are compared case-insensitively (a sentence starting "so" starts with S).
- Favourite words match whole words of the text model, case-insensitively (``likely``,
  ``unlike`` and ``like-minded`` are not ``like``); ``per se`` is the two words in a row,
  separated by spaces only (never across a sentence end or a line); markdown is ignored
  (``*per se*`` counts).
- Numbers are those of the text model (digits only); "even/odd bigger than 5" needs an integer
  value above 5 (``8.0`` counts as 8, ``7.5`` is neither even nor odd).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .text import TextStats, end_mark, first_character

SENTENCE_LIMIT = 4  # length_short: at most this many sentences
SENTENCE_MINIMUM = 5  # length_long: at least this many
WORDS_PER_SENTENCE = 18  # sentence_short: at most; sentence_long: at least
NUMBER_THRESHOLD = 5  # number_even / number_odd: strictly bigger than this

# Category ids, in the method's order.
CATEGORIES: tuple[str, ...] = (
    "response_length", "sentence_start", "sentence_end", "favourite_word", "sentence_length", "number",
)  # fmt: skip


@dataclass(frozen=True)
class Instruction:
    id: str
    category: str
    text: str  # what the user is told, in our words
    checker: Callable[[TextStats], bool]

    def check(self, stats: TextStats) -> bool:
        return self.checker(stats)


def _starts_with(letter: str) -> Callable[[TextStats], bool]:
    def checker(stats: TextStats) -> bool:
        sentences = stats.sentences
        return bool(sentences) and all(first_character(s) == letter for s in sentences)

    return checker


def _ends_with(mark: str) -> Callable[[TextStats], bool]:
    def checker(stats: TextStats) -> bool:
        sentences = stats.sentences
        return bool(sentences) and all(end_mark(s) == mark for s in sentences)

    return checker


def _sentences_short(stats: TextStats) -> bool:
    counts = stats.sentence_word_counts
    return bool(counts) and max(counts) <= WORDS_PER_SENTENCE


def _sentences_long(stats: TextStats) -> bool:
    counts = stats.sentence_word_counts
    return bool(counts) and min(counts) >= WORDS_PER_SENTENCE


def _has_phrase(phrase: str) -> Callable[[TextStats], bool]:
    return lambda stats: stats.has_phrase(phrase)


def _has_number(remainder: int) -> Callable[[TextStats], bool]:
    def checker(stats: TextStats) -> bool:
        return any(n > NUMBER_THRESHOLD and n == int(n) and int(n) % 2 == remainder for n in stats.numbers)

    return checker


def _short(stats: TextStats) -> bool:
    return 0 < len(stats.sentences) <= SENTENCE_LIMIT


def _long(stats: TextStats) -> bool:
    return len(stats.sentences) >= SENTENCE_MINIMUM


_ALL = (
    Instruction("length_short", "response_length",
                f"From now on, keep every answer to at most {SENTENCE_LIMIT} sentences.", _short),
    Instruction("length_long", "response_length",
                f"From now on, write at least {SENTENCE_MINIMUM} sentences in every answer.", _long),
    Instruction("start_S", "sentence_start",
                "From now on, begin every sentence you write with the letter S.", _starts_with("s")),
    Instruction("start_B", "sentence_start",
                "From now on, begin every sentence you write with the letter B.", _starts_with("b")),
    Instruction("end_question", "sentence_end",
                "From now on, finish every sentence you write with a question mark (?).", _ends_with("?")),
    Instruction("end_exclaim", "sentence_end",
                "From now on, finish every sentence you write with an exclamation mark (!).", _ends_with("!")),
    Instruction("word_like", "favourite_word",
                'From now on, use the word "like" at least once in every answer.', _has_phrase("like")),
    Instruction("word_itself", "favourite_word",
                'From now on, use the word "itself" at least once in every answer.', _has_phrase("itself")),
    Instruction("word_per_se", "favourite_word",
                'From now on, use the phrase "per se" at least once in every answer.', _has_phrase("per se")),
    Instruction("sentence_short", "sentence_length",
                f"From now on, keep every sentence you write to at most {WORDS_PER_SENTENCE} words.",
                _sentences_short),
    Instruction("sentence_long", "sentence_length",
                f"From now on, make every sentence you write at least {WORDS_PER_SENTENCE} words long.",
                _sentences_long),
    Instruction("number_even", "number",
                f"From now on, include at least one even number bigger than {NUMBER_THRESHOLD} in every answer.",
                _has_number(0)),
    Instruction("number_odd", "number",
                f"From now on, include at least one odd number bigger than {NUMBER_THRESHOLD} in every answer.",
                _has_number(1)),
)  # fmt: skip

INSTRUCTIONS: Mapping[str, Instruction] = MappingProxyType({i.id: i for i in _ALL})
OPTIONS_BY_CATEGORY: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {category: tuple(i.id for i in _ALL if i.category == category) for category in CATEGORIES}
)
