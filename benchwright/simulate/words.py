"""Word-level helpers the simulated models share: content words, colour words, prompt parts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from benchwright.colors import PALETTE

COLOUR_SYNONYMS = {"grey": "gray"}

# Function words and words every prompt or answer uses; they say nothing about coverage.
STOPWORDS = frozenset(
    """
    about above after again against also among another answer answers around assistant
    assume based because been before being below between both could does doing down during
    each either every few following follow from further have having here into itself just
    least less like made make many more most much must need only other over please provide
    provided really request requirement requirements response same should since some such
    sure than that their them then there these they this those through under until upon
    very were what when where which while whom will with within without would your yours
    image images picture pictures photo given using used well
    write writes writing written describe explain mention give keep
    """.split()
)

_WORD = re.compile(r"[a-z][a-z'-]*[a-z]|[a-z]")


def words(text: str) -> list[str]:
    return _WORD.findall((text or "").lower())


def colour_words(text: str) -> list[str]:
    """Palette colour names mentioned in the text, in order of first mention, no repeats."""
    found = []
    for word in words(text):
        name = COLOUR_SYNONYMS.get(word, word)
        if name in PALETTE and name not in found:
            found.append(name)
    return found


def content_words(text: str) -> list[str]:
    """Distinct meaningful words (4+ letters, not stopwords, not colours), in order."""
    found = []
    for word in words(text):
        word = word.strip("'-")
        if len(word) < 4 or word in STOPWORDS or word in PALETTE or word in COLOUR_SYNONYMS:
            continue
        if word not in found:
            found.append(word)
    return found


def tagged_section(text: str, tag: str) -> str:
    """The body between the first <tag> and the first </tag> after it, stripped; '' when absent. (With str.find:
    a regular expression's lazy search over a judge's long prompt cost the simulated judges a fifth of their time.)"""
    text = text or ""
    start = text.find(f"<{tag}>")
    if start < 0:
        return ""
    start += len(tag) + 2
    end = text.find(f"</{tag}>", start)
    return text[start:end].strip() if end >= 0 else ""


@dataclass
class Query:
    role: str = ""
    background: str = ""
    instruction: str = ""
    requirements: list[str] = field(default_factory=list)
    description: str | None = None


@dataclass(frozen=True)
class QueryLeads:
    """How a benchmark's query states its parts (a role line, an instruction line, an appended description);
    empty = that part is not written. The shared writer knows none; a benchmark passes its own."""

    role: str = ""
    instruction: str = ""
    description: str = ""


NO_LEADS = QueryLeads()


def parse_query(text: str, leads: QueryLeads = NO_LEADS) -> Query:
    """Read a query written with ``leads`` back into its parts; tolerant of others (numbered lines are the
    requirements, and without a role or instruction the first line is the instruction)."""
    query = Query()
    text = text or ""
    if leads.description and leads.description in text:
        text, _, description = text.partition(leads.description)
        query.description = description.strip()
    background, seen_instruction = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if leads.role and stripped.startswith(leads.role):
            query.role = stripped[len(leads.role) :]
        elif leads.instruction and stripped.startswith(leads.instruction):
            query.instruction = stripped[len(leads.instruction) :].rstrip(".")
            seen_instruction = True
        elif re.match(r"\d+\s*[.)]\s", stripped) and (seen_instruction or not query.role):
            query.requirements.append(re.sub(r"^\d+\s*[.)]\s*", "", stripped))
        elif stripped and query.role and not seen_instruction:
            background.append(stripped)
    query.background = " ".join(background)
    if not query.instruction and not query.role:
        # No role or instruction line: treat its first line as the instruction.
        first_line = next((line.strip() for line in text.splitlines() if line.strip()), "")
        query.instruction = first_line.rstrip(".?!")
    return query


def join_words(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
