"""Simulated MMMT-IF candidates and autorater (benchwright/mmmt_if/README.md), served for ``sim/...`` models.

Candidate. The instructions in force are read from the user turns (every instruction sentence of
``benchwright.mmmt_if.instruction_following.INSTRUCTIONS`` that appears in them). Each is *followed* with
probability

    p = if_skill · (1 − 0.05·(k − 1))        k = instructions in force,

raised to ``1 − (1 − p)/2`` when the instructions are appended to the last user turn (the
ablation helps, as it does for real models). ``if_skill`` comes from ``params['if_skill']`` and
defaults to ``params['skill']`` (0.7 when absent), so the registry's skill setting carries over
without changing cache keys. The answer is then *written* to obey the followed instructions and
to break the others: sentence count, first letters, end marks, words per sentence, favourite
words and numbers are all shaped, so the real checkers find exactly what was decided. With no
instruction in force the text is ordinary prose about the question's words.

Autorater. Reads the conversation, the final question and the response from the prompt, checks
the response against the instructions in force with the real checkers, and returns the 8
criteria as a dict: Instruction Following follows the PIF, Richness the length, Answer Accuracy
the share of the question's words answered, the rest sit around 6–8, all with a little noise.
The format varies as real judges' does (quotes, trailing comma, code fence, prose around it).
With probability ``params['malformed_rate']`` the dict is unusable (a key missing, a score out of
range, or no dict at all). Everything is seeded by the request, so the same prompt gives the
same text.
"""

from __future__ import annotations

import random
import re

from benchwright.mmmt_if import prompts
from benchwright.mmmt_if.instruction_following import INSTRUCTIONS, pif

from benchwright.simulate import version_by_markers
from benchwright.simulate.request import SimRequest
from benchwright.simulate.words import content_words, tagged_section

DEFAULT_SKILL = 0.7
DECAY_PER_INSTRUCTION = 0.05

_OPENING_PATTERNS = [
    re.compile(re.escape(template).replace(re.escape("{count}"), r"\d+"))
    for template in (prompts.VISION_OPENING, prompts.TEXT_ONLY_OPENING)
]


def _user_texts(request: SimRequest) -> list[str]:
    texts = []
    for message in request.messages:
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                texts.append(content)
            elif isinstance(content, list):
                texts.extend(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return texts


def is_candidate_prompt(request: SimRequest) -> bool:
    texts = _user_texts(request)
    return bool(texts) and any(p.fullmatch(texts[0]) for p in _OPENING_PATTERNS)


def is_autorater_prompt(request: SimRequest) -> bool:
    return any(isinstance(m, dict) and m.get("role") == "system" and isinstance(m.get("content"), str)
               and prompts.AUTORATER_MARKER in m["content"] for m in request.messages)


def instructions_in(text: str) -> list[str]:
    """Instruction ids whose sentence appears in ``text``, in order of first appearance."""
    found = [(text.find(spec.text), spec.id) for spec in INSTRUCTIONS.values() if spec.text in text]
    return [instruction_id for _, instruction_id in sorted(found)]


def _if_skill(params: dict) -> float:
    value = params.get("if_skill", params.get("skill", DEFAULT_SKILL))
    try:
        value = float(value)
    except (TypeError, ValueError):
        value = DEFAULT_SKILL
    return min(1.0, max(0.0, value)) if value == value else DEFAULT_SKILL


def follow_probability(skill: float, in_force: int, appended: bool) -> float:
    p = skill * max(0.0, 1.0 - DECAY_PER_INSTRUCTION * max(0, in_force - 1))
    if appended:
        p = 1.0 - (1.0 - p) / 2.0
    return min(1.0, max(0.0, p))


# --- writing ----------------------------------------------------------------------------------------

_OPENERS = {
    "s": ("So", "Seen", "Surely", "Still", "Such", "Since", "Some", "Several"),
    "b": ("But", "Besides", "Broadly", "Beyond", "By", "Both", "Because", "Before"),
    # Neither S nor B: used when a start instruction must be broken.
    "other": ("The", "This", "It", "In", "One", "Each", "Here", "Overall", "What", "That", "Its", "Many", "Every",
              "Looking", "Taken", "Across"),
}
_BODIES = (
    "the {topic} in the images {verb} a {adjective} picture",
    "the {topic} {verb} a {adjective} impression overall",
    "a careful look at the {topic} {verb} a {adjective} story",
    "the way the {topic} is shown {verb} a {adjective} mood",
    "the {topic} and its setting {verb} a {adjective} view",
)
_VERBS = ("gives", "offers", "suggests", "creates", "paints", "builds")
_ADJECTIVES = ("calm", "clear", "rich", "lively", "simple", "balanced", "vivid", "gentle")
_FILLERS = (
    "with clear shapes and colours", "in a balanced and quiet way", "that draws the eye at once",
    "across the whole frame", "for anyone who looks closely", "without any clutter at all",
    "from one corner to the other", "as the details come together",
)
_FAVOURITE_PHRASES = {
    "word_like": "much like the rest of the scene",
    "word_itself": "and the scene itself stays simple",
    "word_per_se": "which is not per se a rule",
}
_NUMBER_PHRASE = "with about {n} visible details"
_EVEN_BIG = (6, 8, 10, 12, 14, 16, 20, 24, 30, 40)
_ODD_BIG = (7, 9, 11, 13, 15, 17, 21, 25, 33)
_SMALL = (2, 3, 4)


def _choose(rng: random.Random, options):
    return options[rng.randrange(len(options))]


def _sentence_words(rng: random.Random, opener: str, topic: str, target: int, extras: list[str]) -> list[str]:
    """About ``target`` words: opener, a body about the topic, the extra phrases, then fillers.

    The opener and the extra phrases (favourite word, number) are never cut, so a sentence is at
    least 1 + their words long; fillers, then the body's tail, make up or lose the difference.
    """
    body = _choose(rng, _BODIES).format(topic=topic, verb=_choose(rng, _VERBS), adjective=_choose(rng, _ADJECTIVES))
    core = [opener, *body.split()]
    extra_words = [word for phrase in extras for word in phrase.split()]
    fillers = list(_FILLERS)
    rng.shuffle(fillers)
    fill: list[str] = []
    while len(core) + len(extra_words) + len(fill) < target:
        fill += fillers.pop().split() if fillers else ["indeed"]
    excess = len(core) + len(extra_words) + len(fill) - target
    if excess > 0:
        dropped = min(excess, len(fill))
        fill = fill[:len(fill) - dropped]
        core = core[:max(1, len(core) - (excess - dropped))]
    return core + extra_words + fill


def _plan_lengths(rng: random.Random, decisions: dict[str, bool]) -> tuple[int, list[tuple[int, int]]]:
    """Number of sentences and a (min, max) word range per sentence, from the decisions."""
    if "length_short" in decisions:
        count = rng.randint(2, 4) if decisions["length_short"] else rng.randint(5, 7)
    elif "length_long" in decisions:
        count = rng.randint(5, 7) if decisions["length_long"] else rng.randint(2, 4)
    else:
        count = rng.randint(3, 6)
    ranges = [(10, 17)] * count
    if "sentence_short" in decisions:
        ranges = [(9, 16)] * count
        if not decisions["sentence_short"]:
            ranges[rng.randrange(count)] = (21, 27)
    elif "sentence_long" in decisions:
        ranges = [(19, 25)] * count
        if not decisions["sentence_long"]:
            ranges[rng.randrange(count)] = (9, 14)
    return count, ranges


def compose(rng: random.Random, decisions: dict[str, bool], topic_words: list[str]) -> str:
    """An answer that follows exactly the instructions decided True and breaks the False ones."""
    count, ranges = _plan_lengths(rng, decisions)
    topics = topic_words or ["scene"]

    start = next((i for i in ("start_S", "start_B") if i in decisions), None)
    end = next((i for i in ("end_question", "end_exclaim") if i in decisions), None)
    openers = []
    for index in range(count):
        if start and decisions[start]:
            openers.append(_choose(rng, _OPENERS[start[-1].lower()]))
        elif start and index == 0:
            openers.append(_choose(rng, _OPENERS["other"]))  # broken: the first sentence starts otherwise
        else:
            openers.append(_choose(rng, _OPENERS[_choose(rng, ("other", "other", "other", "s", "b"))]))

    extras: list[list[str]] = [[] for _ in range(count)]
    # The favourite word and the number go to different sentences when there are two or more.
    favourite_at, number_at = rng.sample(range(count), 2) if count > 1 else (0, 0)
    favourite = next((i for i in _FAVOURITE_PHRASES if i in decisions), None)
    if favourite and decisions[favourite]:
        extras[favourite_at].append(_FAVOURITE_PHRASES[favourite])
    number = next((i for i in ("number_even", "number_odd") if i in decisions), None)
    if number:
        wanted_even = number == "number_even"
        pool = (_EVEN_BIG if wanted_even else _ODD_BIG) if decisions[number] else (_ODD_BIG if wanted_even else _EVEN_BIG)
        if not decisions[number] and rng.random() < 0.5:
            pool = _SMALL
        extras[number_at].append(_NUMBER_PHRASE.format(n=_choose(rng, pool)))
    elif rng.random() < 0.3:
        extras[number_at].append(_NUMBER_PHRASE.format(n=_choose(rng, _SMALL)))

    sentences = []
    for index in range(count):
        words = _sentence_words(rng, openers[index], topics[index % len(topics)],
                                rng.randint(*ranges[index]), extras[index])
        if end and decisions[end]:
            mark = "?" if end == "end_question" else "!"
        elif end:
            mark = "."
        else:
            mark = "!" if rng.random() < 0.05 else "."
        sentences.append(" ".join(words) + mark)
    paragraphs = [" ".join(sentences[i:i + 3]) for i in range(0, len(sentences), 3)]
    return "\n\n".join(paragraphs)


def _question(text: str) -> str:
    """The question of a user turn: without the instruction line and the appended reminder."""
    text = text.split(prompts.REMINDER_LEAD)[0]
    lines = [line for line in text.splitlines() if not line.startswith(prompts.INSTRUCTION_LEAD)]
    return " ".join(lines).strip()


def candidate_answer(request: SimRequest) -> str:
    rng = request.rng
    texts = _user_texts(request)
    in_force = instructions_in("\n".join(texts))
    appended = prompts.REMINDER_LEAD in texts[-1]
    p = follow_probability(_if_skill(request.params), len(in_force), appended)
    decisions = {instruction_id: rng.random() < p for instruction_id in in_force}
    topic_words = [w for w in content_words(_question(texts[-1])) if w not in ("like", "itself", "per")][:4]
    return compose(rng, decisions, topic_words)


# --- autorater ---------------------------------------------------------------------------------------

def _clamp_score(value: float) -> int:
    return int(min(10, max(1, round(value))))


def autorater_scores(rng: random.Random, conversation: str, question: str, response: str) -> dict[str, int]:
    in_force = instructions_in(f"{conversation}\n{question}")
    following = pif(response, in_force)
    words = response.split()
    asked = content_words(_question(question))
    answered = set(content_words(response))
    coverage = sum(w in answered for w in asked) / len(asked) if asked else 0.5
    noise = lambda: rng.gauss(0.0, 0.6)  # noqa: E731
    scores = {
        "Creativity": _clamp_score(6 + noise()),
        "Richness": _clamp_score(3 + min(5.0, len(words) / 25) + noise()),
        "Visual Perception": _clamp_score(6.5 + noise()),
        "Logical Coherence": _clamp_score(7 + noise()),
        "Answer Accuracy": _clamp_score(4 + 5 * coverage + noise()),
        "Image Relationship Understanding": _clamp_score(6 + noise()),
        "Instruction Following": _clamp_score(1 + 9 * following + noise()),
    }
    scores["Overall Quality"] = _clamp_score(sum(scores.values()) / len(scores) + noise())
    return scores


def _formatted(rng: random.Random, scores: dict[str, int]) -> str:
    style = rng.randrange(5)
    if style == 0:
        body = "{" + ", ".join(f"'{k}': {v}" for k, v in scores.items()) + "}"
    elif style == 1:
        body = "{" + ", ".join(f'"{k}": {v}' for k, v in scores.items()) + "}"
    elif style == 2:
        body = "{\n" + "".join(f"    '{k}': {v},\n" for k, v in scores.items()) + "}"  # trailing comma
    elif style == 3:
        body = "```json\n{" + ", ".join(f'"{k}": {v}' for k, v in scores.items()) + "}\n```"
    else:
        body = "{" + ", ".join(f"'{k.lower().replace(' ', '_')}': {v}" for k, v in scores.items()) + "}"
    lead = "The response addresses the question; instruction following was checked against every instruction."
    return f"{lead}\n\n{body}" if rng.random() < 0.7 else f"Scores: {body} That is my assessment."


def _malformed(rng: random.Random, scores: dict[str, int]) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        dropped = dict(scores)
        dropped.pop(rng.choice(list(dropped)))
        return "{" + ", ".join(f"'{k}': {v}" for k, v in dropped.items()) + "}"
    if kind == 1:
        broken = dict(scores)
        broken["Overall Quality"] = 11
        return "{" + ", ".join(f"'{k}': {v}" for k, v in broken.items()) + "}"
    return "The response is reasonable overall and follows most instructions; I would rate it fairly well."


def autorater_judgment(request: SimRequest) -> str:
    rng = request.rng
    prompt = request.last_user_text
    scores = autorater_scores(rng, tagged_section(prompt, prompts.HISTORY_TAG),
                              tagged_section(prompt, prompts.QUESTION_TAG),
                              tagged_section(prompt, prompts.RESPONSE_TAG))
    if rng.random() < request.setting("malformed_rate"):
        return _malformed(rng, scores)
    return _formatted(rng, scores)


# --- the back end's door (benchwright.simulate): a responder per prompt version ----------------------------

# The prompt kinds of MMMT-IF: each answered by its prompt version's responder; the markers tell the version
# only to a stand-in provider that sees the messages without it (``version_of``).
_KINDS = (
    (is_autorater_prompt, prompts.AUTORATER_PROMPT_VERSION, autorater_judgment),
    (is_candidate_prompt, prompts.CANDIDATE_PROMPT_VERSION, candidate_answer),
)


def version_of(request: SimRequest) -> str | None:
    """The prompt version of a request known only by its messages (a stand-in provider over HTTP)."""
    return version_by_markers(_KINDS, request)


RESPONDERS = {version: respond for _matches, version, respond in _KINDS}
