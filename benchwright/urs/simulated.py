"""Simulated URS candidates and judge (benchwright/urs/README.md). Simulations, labelled as such everywhere.

Terms: English content words (see ``words.content_words``) plus overlapping pairs of Chinese
characters, so the same measures work in both languages.

Candidate (skill s, verbosity v): answers in the question's language with probability
0.5 + s/2 (a weak model sometimes switches language), takes up each of the question's terms
with probability s, and adds about 2·v filler sentences that add length but no substance.

Judge: reads the question, the reference answer and the answer from the prompt's tagged parts,
and the criteria from the dict template the prompt asks for. With
  need    = share of the question's terms the answer covers / the share the reference covers (≤ 1)
  overlap = share of the reference answer's terms the answer contains, divided by 0.6 (≤ 1):
            sharing 60 % of the reference's substance counts as matching it
  base    = 2 + 6 · (overlap + need) / 2     (the reference itself scores 8, as benchwright/urs/README.md#the-judge says)
Factuality is 2 + 6·overlap, User Satisfaction 2 + 6·need, Clarity loses a point for an answer
over twice the reference's length, Completeness and Richness move up to one point with the length
ratio, other criteria take the base. Final = 0.35·Factuality + 0.35·User Satisfaction + 0.3·mean
of the rest (facts and needs dominate). An answer in the wrong language is capped at 3. A little
noise, then the ``leniency`` param (default 0) is added to every score, then, last, the ``self_preference``
param (default 0) when the answer is in the judge's own family's house style
(``benchwright.simulate.house_style``); scores are rounded and clipped to 1–10. A candidate whose params name a
``family`` ends its answers with that family's mark. With probability ``malformed_rate`` the output has no usable
dict (none, a score out of range, a decimal, or no final score). Chinese dicts sometimes use full-width punctuation,
English ones double quotes, as real judges do.
"""

from __future__ import annotations

import re

from benchwright.urs import intents, prompts

from benchwright.simulate import house_style, version_by_markers
from benchwright.simulate.request import SimRequest
from benchwright.simulate.words import content_words, tagged_section

_CJK = re.compile(r"[\u4e00-\u9fff]+")
_LATIN = re.compile(r"[A-Za-z]")
# Character pairs that carry no topic (question words, pronouns, particles).
_CJK_STOP = frozenset("什么 怎么 如何 为什 么样 一个 一下 可以 我们 你们 他们 是否 哪些 还是 这个 那个 以及 "
                      "请你 帮我 给我 是什 有什 需要 应该 吗？ 的是 了解 一些 这些 那些 进行".split())
_TEMPLATE_KEY = re.compile(r"'([^']+)': " + re.escape(prompts.SCORE_PLACEHOLDER))

NOISE_SD = 0.4
FINAL_NOISE_SD = 0.3
WRONG_LANGUAGE_CAP = 3
OVERLAP_SATURATION = 0.6


def terms(text: str) -> list[str]:
    """Distinct topic terms in order: English content words, then Chinese character pairs."""
    found = list(content_words(text))
    for run in _CJK.findall(text or ""):
        for i in range(len(run) - 1):
            pair = run[i:i + 2]
            if pair not in _CJK_STOP and pair not in found:
                found.append(pair)
    return found


def language_of(text: str) -> str:
    """'zh' when Chinese characters make up a fair part of the text, else 'en'."""
    cjk = sum(len(run) for run in _CJK.findall(text or ""))
    latin = len(_LATIN.findall(text or ""))
    return "zh" if cjk and cjk >= latin / 3 else "en"


# --- candidate -----------------------------------------------------------------------------------

_POINT = {
    "en": ("The key point concerns {terms}.", "It also matters to look at {terms}.",
           "In practice, {terms} decide the outcome.", "A closer look at {terms} helps."),
    "zh": ("关键在于{terms}。", "还需要注意{terms}。", "实际上，{terms}起决定作用。", "仔细看看{terms}会有帮助。"),
}
_FILLER = {
    "en": ("Each step follows from the one before.", "The wording is kept simple.",
           "This should cover the usual situation.", "Details can vary from case to case.",
           "It is worth keeping the overall goal in mind.", "A short example can make this clearer."),
    "zh": ("每一步都承接上一步。", "措辞尽量简单明了。", "这应当适用于一般情况。", "具体细节因情况而异。",
           "最好始终记住总体目标。", "举个简单的例子会更清楚。"),
}
_OPENING = {"en": "Here is my answer.", "zh": "下面是我的回答。"}
_CLOSING = {"en": "I hope this helps.", "zh": "希望对你有帮助。"}
_JOIN = {"en": ", ", "zh": "、"}


def candidate_answer(request: SimRequest) -> str:
    rng = request.rng
    skill = request.setting("skill")
    verbosity = request.setting("verbosity")
    question = request.last_user_text
    language = language_of(question)
    if rng.random() > 0.5 + skill / 2:
        language = "en" if language == "zh" else "zh"
    covered = [term for term in terms(question) if rng.random() < skill]
    body = [rng.choice(_POINT[language]).format(terms=_JOIN[language].join(covered[i:i + 3]))
            for i in range(0, len(covered), 3)]
    filler = list(_FILLER[language])
    rng.shuffle(filler)
    body += filler[: int(2 * verbosity + rng.random())]
    rng.shuffle(body)
    separator = " " if language == "en" else ""
    return house_style.signed(request, separator.join([_OPENING[language], *body, _CLOSING[language]]))


# --- judge ----------------------------------------------------------------------------------------

def _share(wanted: list[str], present: set[str]) -> float:
    return sum(term in present for term in wanted) / len(wanted) if wanted else 1.0


def _criterion_of(name: str) -> str | None:
    for criterion, (zh_name, _, _) in intents.CRITERIA.items():
        if name in (criterion, zh_name):
            return criterion
    return None


def _raw_scores(question: str, reference: str, answer: str, criteria: list[str]) -> tuple[dict[str, float], dict]:
    question_terms, reference_terms = terms(question), terms(reference)
    answer_terms = set(terms(answer))
    cover_answer = _share(question_terms, answer_terms)
    cover_reference = _share(question_terms, set(reference_terms))
    need = min(1.0, cover_answer / max(cover_reference, 0.05))
    shared = _share(reference_terms, answer_terms)
    overlap = min(1.0, shared / OVERLAP_SATURATION)
    length_ratio = len(answer) / max(1, len(reference))
    base = 2 + 6 * (overlap + need) / 2
    scores = {}
    for criterion in criteria:
        if criterion == "Factuality":
            scores[criterion] = 2 + 6 * overlap
        elif criterion == "User Satisfaction":
            scores[criterion] = 2 + 6 * need
        elif criterion == "Clarity":
            scores[criterion] = base - (1 if length_ratio > 2 else 0)
        elif criterion in ("Completeness", "Richness"):
            scores[criterion] = base + max(-1.0, min(1.0, length_ratio - 1))
        else:
            scores[criterion] = base
    facts = {"covered": round(cover_answer * len(question_terms)), "question_terms": len(question_terms),
             "overlap": shared, "right_language": language_of(answer) == language_of(question)}
    return scores, facts


def _explanation(language: str, facts: dict) -> str:
    if language == "zh":
        text = (f"与参考答案相比，该回答涵盖了问题中 {facts['question_terms']} 个要点中的 {facts['covered']} 个，"
                f"与参考答案的内容重合约 {facts['overlap']:.0%}。")
        if not facts["right_language"]:
            text += "回答所用的语言与问题不同，用户难以直接使用。"
        return text
    text = (f"Compared with the reference answer, this answer takes up {facts['covered']} of the question's "
            f"{facts['question_terms']} key points and shares about {facts['overlap']:.0%} of the reference's content.")
    if not facts["right_language"]:
        text += " It is written in a different language from the question, which the user cannot readily use."
    return text


def _dict_text(pairs: list[tuple[str, object]], language: str, rng) -> str:
    if language == "zh" and rng.random() < 0.25:
        return "｛" + "，".join(f"‘{key}’：{value}" for key, value in pairs) + "｝"
    quote = '"' if rng.random() < 0.15 else "'"
    return "{" + ", ".join(f"{quote}{key}{quote}: {value}" for key, value in pairs) + "}"


def _malformed(pairs: list[tuple[str, int]], rng) -> list[tuple[str, object]] | None:
    kind = rng.randrange(4)
    if kind == 0:
        return None  # no dict at all
    key, value = pairs[-1]
    if kind == 1:
        return pairs[:-1] + [(key, 11)]
    if kind == 2:
        return pairs[:-1] + [(key, f"{value}.5" if value < 10 else "9.5")]
    return pairs[:-1]  # the final score is missing


def judgment(request: SimRequest) -> str:
    rng = request.rng
    prompt = request.last_user_text
    keys = _TEMPLATE_KEY.findall(request.all_text)
    language = "zh" if intents.FINAL_KEY["zh"] in keys else "en"
    names = [key for key in keys if key != intents.FINAL_KEY[language]]
    criteria = [c for c in (_criterion_of(name) for name in names) if c]
    answer = tagged_section(prompt, prompts.ANSWER_TAG)
    raw, facts = _raw_scores(tagged_section(prompt, prompts.QUESTION_TAG), tagged_section(prompt, prompts.REFERENCE_TAG),
                             answer, criteria)
    others = [raw[c] for c in criteria if c not in ("Factuality", "User Satisfaction")]
    final = (0.35 * raw.get("Factuality", 5) + 0.35 * raw.get("User Satisfaction", 5)
             + 0.3 * (sum(others) / len(others) if others else 5))
    leniency = request.setting("leniency")
    favour = house_style.favour(request, answer)  # 0 unless the judge recognises its own family's answer

    def finish(value: float, noise_sd: float) -> int:
        value += rng.gauss(0.0, noise_sd) + leniency
        if not facts["right_language"]:
            value = min(value, WRONG_LANGUAGE_CAP)
        value += favour  # last, so the planted amount is what moves the score (up to the rounding and clipping)
        return int(min(intents.SCORE_MAX, max(intents.SCORE_MIN, round(value))))

    pairs: list[tuple[str, object]] = [(intents.criterion_name(c, language), finish(raw[c], NOISE_SD)) for c in criteria]
    pairs.append((intents.FINAL_KEY[language], finish(final, FINAL_NOISE_SD)))
    explanation = _explanation(language, facts)
    if rng.random() < request.setting("malformed_rate"):
        pairs = _malformed(pairs, rng)
        if pairs is None:
            return explanation
    return f"{explanation}\n\n{_dict_text(pairs, language, rng)}"


def is_judge_prompt(request: SimRequest) -> bool:
    return f"<{prompts.ANSWER_TAG}>" in request.last_user_text and prompts.SCORE_PLACEHOLDER in request.all_text


def is_candidate_prompt(request: SimRequest) -> bool:
    return any(isinstance(m, dict) and m.get("role") == "system" and m.get("content") == prompts.CANDIDATE_SYSTEM
               for m in request.messages)


# --- the back end's door (benchwright.simulate): a responder per prompt version ----------------------------

# The prompt kinds of URS: each answered by its prompt version's responder; the markers tell the version
# only to a stand-in provider that sees the messages without it (``version_of``).
_KINDS = (
    (is_judge_prompt, prompts.JUDGE_PROMPT_VERSION, judgment),
    (is_candidate_prompt, prompts.CANDIDATE_PROMPT_VERSION, candidate_answer),
)


def version_of(request: SimRequest) -> str | None:
    """The prompt version of a request known only by its messages (a stand-in provider over HTTP)."""
    return version_by_markers(_KINDS, request)


RESPONDERS = {version: respond for _matches, version, respond in _KINDS}
