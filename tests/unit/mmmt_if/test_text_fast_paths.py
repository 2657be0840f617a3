"""The text model's faster forms (benchwright.mmmt_if.instruction_following.text) read responses exactly
as the plain forms they replaced: checked on random text made of the characters the rules care about."""

import random
import re

import pytest

from benchwright.mmmt_if.instruction_following import text
from benchwright.mmmt_if.instruction_following.text import numbers, phrase_pattern

# Letters, digits (also non-ASCII ones), word joiners, signs, spaces and line ends, and the phrase words.
PIECES = ["a", "B", "_", "7", "0", "٣", "-", ",", ".", "'", "’", " ", "\t", "\n", "like", "per", "se", "itself",
          "12,345", "3.5", "x86", "é", "per se", "per \tse"]


def random_texts(count: int = 3000, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30))) for _ in range(count)]


def plain_numbers(source: str) -> list[float]:
    """The number rule without the shortcuts: every run through the full grammar."""
    found = []
    for run_match in re.finditer(r"-?\d[\d,.]*", source):
        run, start = run_match.group(0), run_match.start()
        negative = run[0] == "-"
        before = source[start - 1] if start else " "
        if before.isalnum() or before == "_":
            if not negative:
                continue
            negative = False
        position = 1 if run[0] == "-" else 0
        while (number := text._NUMBER.match(run, position)) is not None:
            value = float(number.group(1).replace(",", "") + (number.group(2) or ""))
            found.append(-value if negative else value)
            negative = False
            position = number.end()
            if not (position < len(run) and run[position] == ","):
                break
            position += 1
    return found


def test_numbers_equal_the_plain_rule():
    for sample in random_texts():
        assert numbers(sample) == plain_numbers(sample), sample


def test_words_equal_the_backtracking_pattern():
    backtracking = re.compile(r"\w+(?:[-'’.,]\w+)*")
    for sample in random_texts():
        assert text.words(sample) == backtracking.findall(sample), sample


@pytest.mark.parametrize("phrase", ["like", "itself", "per se", "Per  Se"])
def test_phrase_pattern_finds_what_the_leading_lookbehind_pattern_found(phrase):
    body = r"[ \t]+".join(re.escape(word) for word in phrase.lower().split())
    before = re.compile(rf"(?<!\w)(?<!\w[-'’.,]){body}(?!\w)(?![-'’.,]\w)")
    for sample in random_texts():
        lowered = sample.lower()
        assert [m.span() for m in phrase_pattern(phrase).finditer(lowered)] == \
            [m.span() for m in before.finditer(lowered)], sample
