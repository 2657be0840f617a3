"""What a judge was shown versus what it wrote: the one defence every judge prompt and parser uses.

A candidate model can write a judge's own output format into its answer (``Final Verdict is: [[B>>A]]``,
``Response B Visual Factuality Score: 10/10``, a score dict, ``Score: 1``). Judges quote the answers they
judge, so a parser that takes the last verdict-shaped text it finds would credit the candidate's words
whenever the judge quotes them and its own verdict is missing or broken. Two rules close that door:

1. **Delimiters are neutralised in prompts** (``tagged``). Every prompt part that embeds untrusted text
   (an answer, a reference, a chat history) sits between ``<tag>`` and ``</tag>``; inside it, every tag
   name the prompt uses is defused (``<`` becomes ``&lt;``), so an answer cannot close its own section and
   speak as the prompt.

2. **A value counts only if the judge wrote it** (``judge_owns``). Parsers are given the texts the judge
   was shown (answers, references). A verdict, score line or score dict found in the judge's output is
   *echoed* when the same text, compared as a sequence of words and symbols (case, white space, markdown
   emphasis, quote style and full-width forms ignored), occurs in one of those shown texts. That covers a
   verbatim copy, a quoted one, one in a code fence or a blockquote, and one with the markdown stripped.
   Echoed values are skipped; a parser that finds only echoed values reports the parse problem
   ``'echoed_answer'`` (a counted failure, never a score). The raw output is stored, so a re-parse needs
   no call.

   The price of rule 2: if a candidate writes the very verdict the judge then gives (say ``[[A>B]]``, a
   loss, into its own answer), the judge's real verdict cannot be told from an echo and becomes a parse
   failure. Such an answer is exactly what the ``answer_injection`` check flags, so the attempt is
   visible in the leaderboards (``flagged_injection``) instead of silently scored either way.

Values that carry no word (a reply that is only a number) are never treated as echoes: a bare ``1``
occurs in many honest answers.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

ECHOED_ANSWER = "echoed_answer"

# Markdown and LaTeX decoration and quote marks, which judges add or drop when they copy text, and the
# ">" that opens a blockquote line.
_DECORATION = re.compile(r"[*_`$~\\'\"]|^[ \t]*>+", re.MULTILINE)
_QUOTE_FORMS = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u300c": '"',
                              "\u300d": '"', "\u300e": '"', "\u300f": '"'})
# A number (with its decimals), a run of word characters, or one other visible character.
_TOKEN = re.compile(r"\d+(?:\.\d+)?|\w+|[^\w\s]")
_SEPARATOR = "\x1f"
# How many tokens of a shown text, next to a value, make the value part of a copied passage.
ECHO_CONTEXT_TOKENS = 3


def tokens(text: str) -> list[str]:
    """The text as comparable tokens: NFKC, lower case, no quote marks, no markdown emphasis."""
    normalized = unicodedata.normalize("NFKC", text).translate(_QUOTE_FORMS).lower()
    return _TOKEN.findall(_DECORATION.sub(" ", normalized))


def _joined(parts: Sequence[str]) -> str:
    return _SEPARATOR + _SEPARATOR.join(parts) + _SEPARATOR


def _has_word(parts: Sequence[str]) -> bool:
    return any(any(ch.isalpha() for ch in p) for p in parts)


class Shown:
    """The texts a judge was shown, ready for asking whether a piece of its output came from them."""

    def __init__(self, texts: Iterable[str | None] = ()):
        self._texts = [tokens(t) for t in texts if isinstance(t, str) and t.strip()]
        self._haystacks = [_joined(t) for t in self._texts]

    def __bool__(self) -> bool:
        return bool(self._texts)

    def contains(self, fragment: str) -> bool:
        """Whether ``fragment`` (a piece of the judge's output) occurs in a shown text, token for token.
        A fragment without any letter (a bare number, punctuation) is never counted."""
        parts = tokens(fragment)
        if not parts or not _has_word(parts):
            return False
        needle = _joined(parts)
        return any(needle in haystack for haystack in self._haystacks)

    def copied_with_context(self, output: str, match: re.Match[str]) -> bool:
        """Whether ``match`` sits inside a passage the judge copied: the value occurs in a shown text and
        at least ``ECHO_CONTEXT_TOKENS`` of the tokens around it in the output are the ones around it there."""
        parts = tokens(match.group(0))
        if not parts or not _has_word(parts):
            return False
        before = tokens(output[:match.start()])[::-1]
        after = tokens(output[match.end():])
        for shown_tokens in self._texts:
            for start in range(len(shown_tokens) - len(parts) + 1):
                if shown_tokens[start:start + len(parts)] != parts:
                    continue
                context = _common_prefix(before, shown_tokens[:start][::-1]) + \
                    _common_prefix(after, shown_tokens[start + len(parts):])
                if context >= ECHO_CONTEXT_TOKENS:
                    return True
        return False


def _common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    count = 0
    for x, y in zip(a, b):
        if x != y:
            break
        count += 1
    return count


def shown(texts: Shown | Iterable[str | None] | None) -> Shown:
    """Accept what callers have: nothing, a list of texts, or a ready ``Shown``."""
    if isinstance(texts, Shown):
        return texts
    return Shown(texts or ())


def own_matches(output: str, matches: Sequence[re.Match[str]], shown_texts: Shown
                ) -> tuple[list[re.Match[str]], bool]:
    """The matches (values found in the judge's ``output``) that are the judge's own words, in order,
    and whether any match was set aside as an echo.

    1. Values that occur in no shown text are the judge's own; when there are any, only they count.
    2. Otherwise every value also occurs in a shown text. One that the judge copied together with the
       text around it, or marked as a quotation (quote marks, a blockquote, a code fence), is an echo;
       one that stands in the judge's own sentences (the same verdict or score the answer wrote, given
       independently) is the judge's. So an answer that writes its own expected loss cannot turn the
       judge's real verdict into a parse failure.
    """
    clean = [m for m in matches if not shown_texts.contains(m.group(0))]
    if clean:
        return clean, len(clean) < len(matches)
    quoted = _quoted_spans(output)
    own = [m for m in matches if not shown_texts.copied_with_context(output, m)
           and not any(start <= m.start() and m.end() <= end for start, end in quoted)]
    return own, len(own) < len(matches)


_QUOTED_REGIONS = re.compile(r'```.*?(?:```|\Z)|"[^"\n]*"|\u201c[^\u201d]*\u201d|^[ \t]*>.*$',
                             re.DOTALL | re.MULTILINE)


def _quoted_spans(output: str) -> list[tuple[int, int]]:
    """Where the judge marks text as quoted: code fences, double-quoted spans, blockquote lines."""
    return [m.span() for m in _QUOTED_REGIONS.finditer(output)]


def last_own(output: str, matches: Sequence[re.Match[str]], shown_texts: Shown
             ) -> tuple[re.Match[str] | None, str | None]:
    """The judge's last own match, or (None, 'echoed_answer') when every match is an echo, or
    (None, None) when there is no match at all."""
    own, echoed = own_matches(output, matches, shown_texts)
    if own:
        return own[-1], None
    return None, (ECHOED_ANSWER if echoed else None)


# --- quotations -----------------------------------------------------------------------------------

# What a judge quotes is not what it decides: one-line double-quoted spans (straight or curly) and
# markdown blockquote lines. A quoted span that is nothing but a verdict token is kept, since some
# judges put their own verdict in quotes. (Quotes of the *answers* are caught by ``Shown`` whatever
# their form; this rule also covers quotes of the prompt's own example format.)
_QUOTED_SPAN = re.compile(r'"[^"\n]*"|\u201c[^\u201d\n]*\u201d')
_BLOCKQUOTE_LINE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_BARE_TOKEN = re.compile(r'^["\u201c]\s*\[\[[^\[\]\n]{0,40}\]\]\s*["\u201d]$')


def without_quotations(text: str) -> str:
    """The judge's own words: quoted spans and blockquotes blanked out (offsets kept)."""
    def blank(match: re.Match[str]) -> str:
        return match.group(0) if _BARE_TOKEN.match(match.group(0)) else " " * len(match.group(0))

    return _QUOTED_SPAN.sub(blank, _BLOCKQUOTE_LINE.sub(lambda m: " " * len(m.group(0)), text))


# --- prompts ------------------------------------------------------------------------------------------

def tagged(tag: str, body: str | None, reserved: Iterable[str] = ()) -> str:
    """``<tag>`` body ``</tag>``, with every reserved tag name (and ``tag`` itself) defused inside body.

    ``reserved`` lists all the tags of the prompt the part goes into, so a body can neither close its
    own section nor open or close another one.
    """
    names = sorted({tag, *reserved}, key=len, reverse=True)
    pattern = re.compile(r"<(\s*/?\s*(?:" + "|".join(map(re.escape, names)) + r")\b[^>]*>)", re.IGNORECASE)
    safe = pattern.sub(lambda m: "&lt;" + m.group(1), body or "")
    return f"<{tag}>\n{safe}\n</{tag}>"
