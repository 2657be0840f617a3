"""The one text model every instruction checker reads a response through (benchwright/mmmt_if/README.md#checkers).

``analyse(response)`` turns a response into sentences, word counts, numbers and a lower-cased word
text, once; every checker asks it. The rules, in the order they are applied:

Markdown and layout
    - Fenced code blocks (```` ``` ````...```` ``` ````) are removed: code is not prose, and no
      sentence rule can sensibly apply to it.
    - Horizontal rules (``---``, ``***``) and table separator rows (``|---|---|``) are removed.
    - At the start of a line, heading marks (``#``), block quotes (``>``), bullets (``-``, ``*``,
      ``+``, ``•``), task boxes (``[ ]``, ``[x]``) and list labels (``1.``, ``2)``, ``(a)``, ``b)``)
      are removed; a capital letter with a full stop (``A.``) is kept, as it may be an initial.
      List labels are layout, so a label's number is *not* a number of the response.
    - Inline: ``[text](url)`` and ``![alt](url)`` keep their text; ``*``, ``**``, ``__``, ``~~``
      and backticks are dropped; a ``_`` at the edge of a word is dropped; HTML tags are dropped;
      table pipes become spaces.

Sentences
    - A sentence never spans a paragraph (blank line), a heading, a list item, a quote line or a
      table row: each of those ends the sentence before it, punctuation or not. So a title line
      with no full stop is a sentence of its own, and so is every list item.
    - A line break inside a paragraph ends a sentence too, unless the next line starts with a
      lower-case letter (then it is a soft wrap and the lines are joined).
    - Inside a line, a sentence ends after a run of ``.``, ``!``, ``?`` or ``…`` (closing quotes
      and brackets that follow belong to the sentence: ``He said "Stop!"``) when whitespace
      follows and the next text does not start with a lower-case letter. So ``3.5``, ``e.g.this``
      and ``example.com`` never split (no whitespace), and ``"Really?" she asked.`` or
      ``Wait... what now?`` are one sentence each.
    - A single ``.`` does not end a sentence after a title or Latin abbreviation (Mr., Mrs., Ms.,
      Dr., Prof., Sr., Jr., St., Mt., vs., cf., ca., approx., e.g., i.e.), after a dotted
      abbreviation made of groups of one or two letters (``U.S.``, ``p.m.``, ``Ph.D.``), after a single capital letter followed by a
      capitalised word (initials: ``J. K. Rowling``), or after ``No.``/``Fig.``/``Vol.``/``pp.``
      followed by a digit. ``etc.`` ends a sentence when a capitalised word follows.
    - Text with no letter or digit (``---``, ``!!!``, an emoji) is not a sentence.
    - A sentence's *start* is its first letter or digit, after opening quotes, brackets and
      markdown marks; its *end mark* is the last of ``.!?`` (``…`` counts as ``.``) once closing
      quotes, brackets and markdown marks are set aside — ``?!`` therefore ends with ``!``. A
      sentence that ends in anything else (a title, a colon) has no end mark.

Words
    A word is a run of letters, digits and underscores; ``-``, ``'``, ``’``, ``.`` and ``,``
    *between* two such runs join them, so ``well-known``, ``don't``, ``3.5``, ``1,000.5``, ``e.g`` and ``U.S`` are one
    word each (and so is a typo like ``end.Next``). Anything else separates words: spaces,
    ``and/or`` is two words, an em dash separates. Counted after markdown is removed.

Numbers
    A number is a run of digits not preceded by a letter or digit (``x86`` and ``H2O`` hold no
    number; a suffix is fine: ``7th``, ``10am``, ``75%`` are 7, 10, 75), with ``,`` as a thousands
    separator only in groups of three (``12,345``; ``1,2,3`` is three numbers), an optional
    decimal part (``3.5``), and a ``-`` sign only when the minus stands alone before the digits
    (``-8`` is negative, the range ``2-8`` holds 2 and 8). Number words (``seven``) do **not**
    count: the instructions ask for a number, and models asked for one write digits.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Whether spelled-out numbers count as numbers (documented choice: they do not).
NUMBER_WORDS_COUNT = False

_FENCED_CODE = re.compile(r"^[ \t]*(```|~~~).*?(^[ \t]*\1[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)
_RULE_LINE = re.compile(r"^(?:[-*_]\s*){3,}$|^\|?[\s:|-]*-{3,}[\s:|-]*\|?$")
# Structure marks at the start of a line: quote, heading, bullet, task box, list label.
_BLOCK_MARK = re.compile(
    r"^(?:>\s?)+|^#{1,6}(?:\s+|$)|^[-*+•‣◦▪]\s+(?:\[[ xX]\]\s+)?|^(?:\d{1,3}[.)]|[A-Za-z]\)|[a-z]\.)\s+|^\(\w{1,3}\)\s+"
)
# First characters of lines that may carry a structure mark (a cheap test before the regexes).
_MARK_STARTS = frozenset(">#-*+•‣◦▪_|(0123456789")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_EDGE_UNDERSCORE = re.compile(r"(?<![^\W_])_+|_+(?![^\W_])")
_INLINE_MARKS = str.maketrans({"*": None, "`": None, "~": None, "|": " "})

# A candidate sentence end: terminators, then closing quotes/brackets, then whitespace (group 1:
# the next visible character) or the end of the text.
_TERMINATOR = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s+(\S)|\s*$)")
_TITLES = frozenset("mr mrs ms dr prof sr jr st mt vs cf ca approx e.g i.e".split())
_OPENING = "\"'“‘«([{"
_BEFORE_DIGIT = frozenset("no nos fig figs vol vols pp p".split())
_ALNUM = re.compile(r"[^\W_]")

# Possessive: a joiner is never a word character, so giving characters back could not change a match;
# not trying saves time.
_WORD = re.compile(r"\w++(?:[-'’.,]\w++)*+")
# Numbers are found in two steps: runs of digits, commas and dots, then the numbers inside a run.
# "-?\d[\d,.]*" written as a branch: the same runs, but the engine can skip ahead to a "-" or a digit
# instead of trying every position (twice as fast on prose).
_NUMERIC_RUN = re.compile(r"(?:-\d|\d)[\d,.]*")
_NUMBER = re.compile(r"(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(\.\d+)?")
_CLOSING = "\"'”’»)]}*_ "
_END_MARKS = {".": ".", "!": "!", "?": "?", "…": "."}


def _strip_inline(text: str) -> str:
    if "[" in text:
        text = _LINK.sub(r"\1", text)
    if "<" in text:
        text = _HTML_TAG.sub(" ", text)
    if "_" in text:
        text = _EDGE_UNDERSCORE.sub("", text)
    return text.translate(_INLINE_MARKS)


def segments(response: str) -> list[str]:
    """The response cut into pieces no sentence crosses (paragraphs, list items, headings, lines).

    Markdown is removed from each piece; see the module docstring for the rules.
    """
    if "```" in response or "~~~" in response:
        response = _FENCED_CODE.sub("\n", response)
    pieces: list[str] = []
    current = ""
    for raw_line in response.splitlines():
        line = raw_line.strip()
        if not line:
            if current:
                pieces.append(current)
            current = ""
            continue
        marked = None
        if line[0] in _MARK_STARTS or (len(line) > 1 and line[1] in ".)"):
            if _RULE_LINE.match(line):
                if current:
                    pieces.append(current)
                current = ""
                continue
            marked = _BLOCK_MARK.match(line)
            if marked:
                line = line[marked.end():].strip()
        if "*" in line or "_" in line or "`" in line or "[" in line or "<" in line or "~" in line or "|" in line:
            line = _strip_inline(line).strip()
            if not line:
                continue
        # A soft wrap: the line goes on in lower case (and is not a list item, heading or quote).
        if current and not marked and line[0].islower():
            current = f"{current} {line}"
            continue
        if current:
            pieces.append(current)
        current = line
    if current:
        pieces.append(current)
    return pieces


def _is_abbreviation(segment: str, end: int, following: str) -> bool:
    """Is the word before the full stop at ``end`` an abbreviation that does not end a sentence?"""
    token = segment[segment.rfind(" ", 0, end) + 1:end].lstrip(_OPENING)
    if not token:
        return False
    lowered = token.lower()
    if lowered in _TITLES:
        return True  # Dr., e.g., i.e.
    if "." in token:
        parts = token.split(".")
        return all(0 < len(part) <= 2 and part.isalpha() for part in parts)  # U.S., p.m., Ph.D.
    if following.isdigit() and lowered in _BEFORE_DIGIT:
        return True  # No. 5, Fig. 2
    return len(token) == 1 and token.isupper() and following.isupper()  # initials: J. K. Rowling


def split_sentences(segment: str) -> list[str]:
    """Sentences of one segment (a piece that no sentence crosses; it comes stripped)."""
    sentences = []
    start = 0
    for match in _TERMINATOR.finditer(segment):
        following = match.group(1)
        if following is not None:
            if following.islower():
                continue  # "e.g. the", "Wait... what", '"Really?" she asked'
            if match.group(0) == "." and _is_abbreviation(segment, match.start(), following):
                continue
        end = match.end()
        sentence = segment[start:end].lstrip()
        if sentence[:1].isalnum() or _ALNUM.search(sentence):
            sentences.append(sentence)
        start = end
    if start < len(segment):
        tail = segment[start:].lstrip()
        if tail[:1].isalnum() or _ALNUM.search(tail):
            sentences.append(tail)
    return sentences


def first_character(sentence: str) -> str:
    """The sentence's first letter or digit, lower-cased ('' if none)."""
    if sentence[:1].isalnum():
        return sentence[0].lower()
    match = _ALNUM.search(sentence)
    return match.group(0).lower() if match else ""


def end_mark(sentence: str) -> str:
    """'.', '!' or '?' when the sentence ends with one (closing quotes set aside), else ''."""
    body = sentence.rstrip(_CLOSING)
    return _END_MARKS.get(body[-1], "") if body else ""


def words(text: str) -> list[str]:
    return _WORD.findall(text)


@lru_cache(maxsize=64)
def phrase_pattern(phrase: str) -> re.Pattern:
    """Whole words of ``phrase`` in a row, in lower case: not inside a longer word (by the word rule:
    no letter, digit or joined ``-'’.,`` on either side) and separated by spaces or tabs only, so
    never across a sentence end or a line."""
    first, *rest = [re.escape(word) for word in phrase.lower().split()] or [""]
    # The first word leads and the "not inside a word" test looks back from its end: a pattern that
    # starts with a literal lets the regex engine jump to where the word occurs instead of trying every
    # position (what "(?<!\w)(?<!\w[-'’.,])first..." did; the two find the same matches).
    then = "".join(rf"[ \t]+{word}" for word in rest)
    return re.compile(rf"{first}(?<!\w{first})(?<!\w[-'’.,]{first}){then}(?!\w)(?![-'’.,]\w)")


def count_words(text: str) -> int:
    return len(_WORD.findall(text))


def numbers(text: str) -> list[float]:
    """Every number written with digits in ``text`` (see the module docstring)."""
    found = []
    for run_match in _NUMERIC_RUN.finditer(text):
        run, start = run_match.group(0), run_match.start()
        negative = run[0] == "-"
        before = text[start - 1] if start else " "
        if before.isalnum() or before == "_":
            if not negative:
                continue  # x86, H2O
            negative = False  # "2-8": a range or a hyphen, not a minus
        digits = run.rstrip(",.")
        if digits.isdecimal():  # the common case ("17", "2002,", "8."): one whole number, nothing to split
            found.append(float(digits))
            continue
        position = 1 if run[0] == "-" else 0
        while True:
            number = _NUMBER.match(run, position)
            if number is None:
                break
            value = float(number.group(1).replace(",", "") + (number.group(2) or ""))
            found.append(-value if negative else value)
            negative = False
            position = number.end()
            # "1,2,3" is three numbers; after "3.5" in "3.5.1" or the "8" of "8." nothing follows.
            if position < len(run) and run[position] == ",":
                position += 1
                continue
            break
    return found


class TextStats:
    """What the checkers need to know about one response. Each part is computed on first use
    (plain attributes rather than functools.cached_property, which takes a lock per access)."""

    __slots__ = ("response", "_segments", "_sentences", "_word_counts", "_numbers", "_text")

    def __init__(self, response: str):
        self.response = response
        self._segments = self._sentences = self._word_counts = self._numbers = self._text = None

    @property
    def segments(self) -> list[str]:
        if self._segments is None:
            self._segments = segments(self.response) if self.response else []
        return self._segments

    @property
    def sentences(self) -> list[str]:
        if self._sentences is None:
            self._sentences = [s for segment in self.segments for s in split_sentences(segment)]
        return self._sentences

    @property
    def sentence_words(self) -> list[list[str]]:
        return [_WORD.findall(s) for s in self.sentences]

    @property
    def sentence_word_counts(self) -> list[int]:
        # Only the counts are kept: cached lists of word strings cost the garbage collector more than
        # finding the words does.
        if self._word_counts is None:
            self._word_counts = [len(_WORD.findall(s)) for s in self.sentences]
        return self._word_counts

    @property
    def first_characters(self) -> list[str]:
        return [first_character(s) for s in self.sentences]

    @property
    def end_marks(self) -> list[str]:
        return [end_mark(s) for s in self.sentences]

    @property
    def text(self) -> str:
        """The segments, lower-cased and joined by newlines (markdown removed)."""
        if self._text is None:
            self._text = "\n".join(self.segments).lower()
        return self._text

    def has_phrase(self, phrase: str) -> bool:
        """Does the phrase occur as whole words (see ``phrase_pattern``), case-insensitively?"""
        return phrase_pattern(phrase).search(self.text) is not None

    @property
    def numbers(self) -> list[float]:
        if self._numbers is None:
            # One pass over all segments (a newline never joins two numbers).
            self._numbers = numbers(self.text)
        return self._numbers


@lru_cache(maxsize=4096)
def analyse(response: str) -> TextStats:
    """The text model of a response (cached: the checkers of one response share one analysis)."""
    return TextStats(response if isinstance(response, str) else "")
