"""MMMT-IF (METHODS §2): instruction following in long multimodal, multi-turn chats.

What this module holds, in pipeline order:

1. **Chat set.** ``prepare_chats`` applies the filtering rules to loaded chats (drop a chat with a
   corrupt image, more than 5 images or a skipped turn; truncate to 20 turns) and
   ``insert_instructions`` runs the seeded insertion process: before each question, with
   probability ``1 − given/6``, one instruction is added — a category not used yet in the chat,
   chosen uniformly, then one of its options, uniformly. ``random.Random`` is seeded with the text
   ``"mmmt-if:<seed>:<chat_id>"`` (string seeds are hashed with SHA-512, so the result does not
   depend on the process), which makes a chat's instructions independent of the other chats.
   Note: this rule, as METHODS §2.1 states it, fills the sixth category late (the expected turn of
   the sixth instruction is 6·H(6) ≈ 14.7; P(all six by turn 10) ≈ 0.27, by turn 20 ≈ 0.85), so
   "most chats have all 6 by turns 6–10" does not follow from it; we implement the rule.
2. **Prompts.** ``turn_messages`` builds a model's request for turn k: the images come with the
   first user turn, the model's *own* earlier answers are the assistant turns, and an inserted
   instruction opens its user turn (``Instruction: ...``). The *instructions-appended* variant is
   the same context with, at the end of the last user turn, the list of every instruction given so
   far. A turn whose every sample failed has no answer to show: its user text is merged into the
   next user turn, so the model still sees every instruction and question and no made-up answer.
   ``autorater_messages`` asks a judge for the 8 criteria of §2.4 as a dict.
3. **Parsing.** ``parse_autorater`` reads the score dict (single or double quotes, trailing commas,
   code fences or prose around it, unquoted keys); a missing key or a score outside 1–10 is a
   parse failure with the reason, never a low score.
4. **Metrics** over DataFrames (all keep ``variant`` as a column, so the instructions-appended
   ablation is a separate, comparable row everywhere):

   - a *context* is one (model, variant, chat, turn); its PIF is the mean over its N samples.
     Corpus PIF = mean over contexts; PIF by turn j (chats with at least j turns) and by number of
     instructions in force; bounds ``p ± 1.96·sqrt(p(1−p)/n)`` with n = contexts in the group (the
     conservative Bernoulli approximation; counting contexts, not samples, because the N samples of
     one context are not independent). Bounds are clipped to [0, 1]; at p = 0 or 1 they collapse
     onto p, as that approximation does.
   - per-instruction PIF: followed-share over the contexts where the instruction was in force.
   - PIF-N-K = share of contexts with at least K of the N samples at PIF 1; PIF-IQR-N = mean over
     contexts of the inter-quartile range of the N sample PIFs (numpy's linear percentiles). Both
     use only contexts whose N samples all succeeded (the others are counted, not guessed).
   - empirical CDFs of the *response* PIF per model, variant and turn; model A stochastically
     dominates B at a turn when F_A(x) ≤ F_B(x) for every x (weak, first order); the verdict says
     whether one dominates the other at every turn both answered.
   - one-sided Wilcoxon signed-rank tests (scipy) on paired context PIFs of two models; zero
     differences are dropped (``zero_method="wilcox"``); with no non-zero difference the p-value
     is NaN.
   - preference score = (sum of the 8 autorater scores + 20·PIF) / 28; per turn, the higher score
     wins (equal within 1e-9 is a tie); a response whose judgment failed or did not parse takes
     part in no comparison. Ratings come from ``benchwright.ratings`` (Bradley–Terry on the Elo
     scale, mean rating 1000).
"""

from __future__ import annotations

import ast
import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from benchwright import judging
from benchwright.mmmt_if.instruction_following import CATEGORIES, INSTRUCTIONS, OPTIONS_BY_CATEGORY
from benchwright.judging import Shown
from benchwright.quality import between

BENCHMARK = "mmmt_if"
CANDIDATE_PROMPT_VERSION = "mmmt-if-candidate-v1"
AUTORATER_PROMPT_VERSION = "mmmt-if-autorater-v1"

MAX_TURNS = 20
MAX_IMAGES = 5
MAX_INSTRUCTIONS = len(CATEGORIES)
STANDARD = "standard"
APPENDED = "instructions_appended"
VARIANTS = (STANDARD, APPENDED)
PIF_WEIGHT = 20.0
Z95 = 1.96

# Fixed phrases of the prompts (the offline simulator recognises prompts by them).
INSTRUCTION_LEAD = "Instruction: "
VISION_OPENING = "The {count} images below are what this conversation is about (Image 1 to Image {count}, in order)."
TEXT_ONLY_OPENING = ("This conversation is about {count} images that cannot be shown to you; answer from the "
                     "conversation as well as you can.")
REMINDER_LEAD = "Before you answer, remember every instruction given so far in this conversation:"
AUTORATER_MARKER = "Rate the final assistant response of the conversation"
HISTORY_TAG = "conversation"
QUESTION_TAG = "final_question"
RESPONSE_TAG = "response_to_rate"
PROMPT_TAGS = (HISTORY_TAG, QUESTION_TAG, RESPONSE_TAG)

AUTORATER_KEYS = (
    "Creativity", "Richness", "Visual Perception", "Logical Coherence", "Answer Accuracy",
    "Image Relationship Understanding", "Instruction Following", "Overall Quality",
)  # fmt: skip
# The same criteria as warehouse column names (creativity, ..., overall_quality).
SCORE_COLUMNS = tuple(key.lower().replace(" ", "_") for key in AUTORATER_KEYS)


# --- chat set ----------------------------------------------------------------------------------

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
    """Why the chat is dropped (METHODS §2.1 filtering), or None when it is kept.

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


# --- prompts ---------------------------------------------------------------------------------------

def final_user_text(text: str, variant: str, in_force: Sequence[str]) -> str:
    """The last user turn as sent: with the reminder list in the instructions-appended variant."""
    if variant == APPENDED and in_force:
        return f"{text}\n\n{reminder(in_force)}"
    return text


def reminder(instruction_ids: Sequence[str]) -> str:
    """The list appended to the last user turn in the instructions-appended variant."""
    lines = [f"{n}. {INSTRUCTIONS[i].text}" for n, i in enumerate(instruction_ids, start=1)]
    return f"{REMINDER_LEAD}\n" + "\n".join(lines)


def turn_messages(user_texts: Sequence[str], answers: Sequence[str | None], image_urls: Sequence[str],
                  vision: bool, appended_instructions: Sequence[str] | None = None) -> list[dict]:
    """The request for the last of ``user_texts``, with ``answers`` to the earlier ones as history.

    ``answers[i]`` is the model's own answer to ``user_texts[i]`` (None when every sample of that
    turn failed: its user text then joins the next user turn). ``vision`` sends the images with
    the first user turn; otherwise a note says they cannot be shown. ``appended_instructions``
    (the instructions-appended variant) adds the reminder list at the end of the last user turn.
    """
    if len(answers) != len(user_texts) - 1:
        raise ValueError(f"{len(user_texts)} user turns need {len(user_texts) - 1} earlier answers, got {len(answers)}")
    texts = list(user_texts)
    if appended_instructions:
        texts[-1] = final_user_text(texts[-1], APPENDED, appended_instructions)
    count = len(image_urls)
    opening = (VISION_OPENING if vision else TEXT_ONLY_OPENING).format(count=count)
    first: list[dict] = [{"type": "text", "text": opening}]
    if vision:
        first += [{"type": "image_url", "image_url": {"url": url}} for url in image_urls]
    messages: list[dict] = [{"role": "user", "content": first}]
    for index, text in enumerate(texts):
        messages[-1]["content"].append({"type": "text", "text": text})
        if index < len(answers):
            if answers[index] is None:
                continue  # no answer to show: the next user text joins this user turn
            messages.append({"role": "assistant", "content": answers[index]})
            messages.append({"role": "user", "content": []})
    return messages


AUTORATER_SYSTEM = (
    "You evaluate one answer of a multimodal assistant. You are given a conversation between a user and "
    "the assistant about some images, then the user's final question and the assistant's response to "
    f"it. {AUTORATER_MARKER} on each of these criteria, with a whole number from 1 (very poor) to 10 "
    "(excellent):\n"
    "- Creativity: original, engaging ideas where the question leaves room for them.\n"
    "- Richness: useful detail and depth, without padding.\n"
    "- Visual Perception: what the response says about the images is what they show.\n"
    "- Logical Coherence: the reasoning holds together and the response is consistent with the "
    "conversation.\n"
    "- Answer Accuracy: the question is answered correctly.\n"
    "- Image Relationship Understanding: links between the images are understood where relevant.\n"
    "- Instruction Following: every instruction the user gave anywhere in the conversation, which "
    "still applies, is obeyed.\n"
    "- Overall Quality: your overall judgement of the response.\n"
    "Think briefly, then give your scores as a Python dict with exactly these keys, for example:\n"
    + "{" + ", ".join(f"'{key}': 7" for key in AUTORATER_KEYS) + "}"
)




def autorater_messages(user_texts: Sequence[str], answers: Sequence[str | None], response: str,
                       image_urls: Sequence[str] | None) -> list[dict]:
    """Judge prompt (METHODS §2.4): history, final question, the response; images when given.

    ``user_texts`` ends with the final question as the model saw it (with the appended reminder in
    that variant); ``answers`` are the model's answers to the earlier turns (None = failed).
    """
    history = []
    for index, text in enumerate(user_texts[:-1]):
        history.append(f"User: {text}")
        history.append(f"Assistant: {answers[index] if answers[index] is not None else '(no answer)'}")
    parts = [
        judging.tagged(HISTORY_TAG, "\n\n".join(history) or "(this is the first turn)", PROMPT_TAGS),
        judging.tagged(QUESTION_TAG, user_texts[-1], PROMPT_TAGS),
        judging.tagged(RESPONSE_TAG, response, PROMPT_TAGS),
        "Now give your scores as the dict.",
    ]
    if image_urls is None:
        parts.insert(0, "The images of this conversation are not shown to you; judge from the text.")
    content: list[dict] = [{"type": "text", "text": "\n\n".join(parts)}]
    content += [{"type": "image_url", "image_url": {"url": url}} for url in image_urls or []]
    return [{"role": "system", "content": AUTORATER_SYSTEM}, {"role": "user", "content": content}]


# --- autorater parsing -------------------------------------------------------------------------------

def _key_form(name: str) -> str:
    return re.sub(r"[^a-z]+", " ", name.lower()).strip()


_KEY_ALIASES = {_key_form(k): k for k in AUTORATER_KEYS}
_KEY_ALIASES.update({"overall": "Overall Quality", "overall score": "Overall Quality",
                     "image relationship": "Image Relationship Understanding"})
BRACES = re.compile(r"\{[^{}]*\}", re.DOTALL)
_PAIR = re.compile(r"""["']?([A-Za-z][A-Za-z _-]*?)["']?\s*[:=]\s*["']?(-?\d+(?:\.\d+)?)\s*(?:/\s*10)?["']?""")


@dataclass(frozen=True)
class AutoraterParse:
    scores: dict[str, float] | None  # all 8 criteria, or None when the output did not parse
    missing: tuple[str, ...] = ()
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.scores is not None


def _pairs(block: str) -> dict[str, object]:
    try:
        value = ast.literal_eval(block)
        if isinstance(value, dict):
            return {str(k): v for k, v in value.items()}
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    return {key: number for key, number in _PAIR.findall(block)}


def _score(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        match = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*10)?\s*", value)
        if not match:
            return None
        number = float(match.group(1))
    else:
        return None
    return number if math.isfinite(number) else None


def _read_block(block: str) -> tuple[dict[str, float], list[str]]:
    """Known criteria with usable scores, and the problems found."""
    scores, problems = {}, []
    for key, value in _pairs(block).items():
        name = _KEY_ALIASES.get(_key_form(key))
        if name is None:
            continue
        number = _score(value)
        if number is None or not 1.0 <= number <= 10.0:
            problems.append(f"{name} = {value!r} is not a score from 1 to 10")
            continue
        scores[name] = number
    return scores, problems


def names_a_criterion(block: str) -> bool:
    """Whether a ``{...}`` block gives a score to at least one autorater criterion."""
    scores, problems = _read_block(block)
    return bool(scores or problems)


def parse_autorater(text: str | None, shown: Shown | Iterable[str | None] | None = None) -> AutoraterParse:
    """The 8 scores from an autorater output, or a parse failure saying what is wrong.

    The judge's answer is its last ``{...}`` block that names at least one criterion; it must hold
    all 8 with scores from 1 to 10, else the output is a failure that names the missing keys or bad
    values. An earlier complete block never stands in for a broken last one: an earlier block is an
    example or a quote, and taking it would be a guess. A block that also occurs in a text the judge
    was shown (``shown``: the rated response and the chat's earlier answers) is an echo, not the
    judge's (``benchwright.judging``); only echoed blocks is the problem ``'echoed_answer'``.
    Keys are matched ignoring case, spaces, underscores and quotes ("overall score" also means
    Overall Quality).
    """
    if not isinstance(text, str) or not text.strip():
        return AutoraterParse(None, AUTORATER_KEYS, "empty output")
    score_blocks = [m for m in BRACES.finditer(text) if names_a_criterion(m.group(0))]
    if not score_blocks:
        return AutoraterParse(None, AUTORATER_KEYS, "no {...} dict in the output" if "{" not in text
                              else "no dict names a criterion")
    chosen, echoed = judging.last_own(text, score_blocks, judging.shown(shown))
    if chosen is None:
        return AutoraterParse(None, AUTORATER_KEYS, echoed)
    scores, problems = _read_block(chosen.group(0))
    if len(scores) == len(AUTORATER_KEYS) and not problems:
        return AutoraterParse({k: scores[k] for k in AUTORATER_KEYS})
    missing = tuple(k for k in AUTORATER_KEYS if k not in scores)
    reasons = list(problems)
    absent = [k for k in missing if not any(p.startswith(k) for p in problems)]
    if absent:
        reasons.append("missing " + ", ".join(absent))
    return AutoraterParse(None, missing, "; ".join(reasons))


# --- preference ------------------------------------------------------------------------------------

def preference_score(scores: Mapping[str, float], pif: float, pif_weight: float = PIF_WEIGHT) -> float:
    """Weighted mean of the 8 criteria (weight 1 each) and PIF (weight ``pif_weight``).

    ``scores`` is keyed by the criteria names (``AUTORATER_KEYS``) or their column names.
    """
    keys = AUTORATER_KEYS if all(k in scores for k in AUTORATER_KEYS) else SCORE_COLUMNS
    missing = [k for k in keys if k not in scores]
    if missing:
        raise ValueError(f"scores lack {missing}")
    return (sum(float(scores[k]) for k in keys) + pif_weight * float(pif)) / (len(keys) + pif_weight)


def history_answer(samples: Iterable[tuple[int, str | None, str | None]]) -> str | None:
    """The answer a turn leaves in the model's history: its lowest-index successful sample
    ((sample_index, response, error) triples); None when every sample failed."""
    for _, response, error in sorted(samples, key=lambda s: s[0]):
        if error is None and isinstance(response, str):
            return response
    return None


def pairwise_outcome(score_a: float, score_b: float, tolerance: float = 1e-9) -> str:
    """'win', 'tie' or 'loss' for A."""
    if abs(score_a - score_b) <= tolerance:
        return "tie"
    return "win" if score_a > score_b else "loss"


# --- metrics ---------------------------------------------------------------------------------------

CONTEXT_KEYS = ["model", "variant", "chat_id", "turn"]


def bounds(p: float, n: int) -> tuple[float, float]:
    """Conservative 95% bounds p ± 1.96·sqrt(p(1−p)/n), clipped to [0, 1]; (nan, nan) when n = 0."""
    if n <= 0 or p is None or not math.isfinite(p):
        return float("nan"), float("nan")
    half = Z95 * math.sqrt(max(p * (1.0 - p), 0.0) / n)
    return max(0.0, p - half), min(1.0, p + half)


def contexts(responses: pd.DataFrame) -> pd.DataFrame:
    """One row per context from scored responses (columns of ``mmmt_if_turn_scores``).

    Failed responses (``pif`` null) are left out of the means; ``samples`` counts the scored ones,
    ``failed`` the others, ``perfect`` those at PIF 1, and ``iqr`` is the inter-quartile range of
    the scored PIFs (linear interpolation, as numpy's default percentile).
    """
    df = responses.assign(scored=responses["pif"].notna(), is_perfect=responses["pif"] == 1.0)
    grouped = df.groupby(CONTEXT_KEYS, sort=True)
    out = grouped.agg(n_instructions=("n_instructions", "first"), pif=("pif", "mean"), samples=("scored", "sum"),
                      rows=("scored", "size"), perfect=("is_perfect", "sum"))
    out["failed"] = out["rows"] - out["samples"]
    out["iqr"] = grouped["pif"].quantile(0.75) - grouped["pif"].quantile(0.25)
    out = out.drop(columns="rows").reset_index()
    return out.astype({"samples": "int64", "failed": "int64", "perfect": "int64"})


CONTEXT_COLUMNS = [*CONTEXT_KEYS, "n_instructions", "pif", "samples", "perfect", "failed", "iqr"]


def _bounded(group: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    rows = []
    for key, part in group.groupby(keys, sort=True):
        scored = part[part["pif"].notna()]
        p = float(scored["pif"].mean()) if len(scored) else float("nan")
        lo, hi = bounds(p, len(scored))
        rows.append({**dict(zip(keys, key if isinstance(key, tuple) else (key,))),
                     "n": len(scored), "pif": p, "pif_lower": lo, "pif_upper": hi})
    return pd.DataFrame(rows, columns=[*keys, "n", "pif", "pif_lower", "pif_upper"])


def pif_by_turn(context_df: pd.DataFrame) -> pd.DataFrame:
    """PIF by turn j over the chats that reach turn j, with bounds."""
    return _bounded(context_df, ["model", "variant", "turn"])


def pif_by_instruction_count(context_df: pd.DataFrame) -> pd.DataFrame:
    """PIF by the number of instructions in force, with bounds."""
    return _bounded(context_df, ["model", "variant", "n_instructions"])


def pif_by_instruction(results: pd.DataFrame) -> pd.DataFrame:
    """Per-instruction PIF from per-instruction results (columns of ``mmmt_if_instruction_results``).

    Each context's share of samples that followed the instruction, then the mean over contexts.
    """
    if results.empty:
        return pd.DataFrame(columns=["model", "variant", "instruction_id", "category", "n", "pif", "pif_lower", "pif_upper"])
    per_context = results.groupby([*CONTEXT_KEYS, "instruction_id", "category"], as_index=False)["followed"].mean()
    per_context = per_context.rename(columns={"followed": "pif"})
    return _bounded(per_context, ["model", "variant", "instruction_id", "category"])


def samples_per_context(context_df: pd.DataFrame) -> int:
    """N: the most samples (scored or failed) any context of this group has."""
    return int((context_df["samples"] + context_df["failed"]).max()) if len(context_df) else 0


def pif_n_k(context_df: pd.DataFrame, n_samples: int | None = None) -> pd.DataFrame:
    """PIF-N-K for K = 1..N over the contexts whose N samples all succeeded.

    N is ``n_samples`` or, when None, ``samples_per_context`` of each (model, variant).
    """
    rows = []
    for (model, variant), part in context_df.groupby(["model", "variant"], sort=True):
        n = n_samples or samples_per_context(part)
        complete = part[(part["samples"] == n) & (part["failed"] == 0)]
        for k in range(1, n + 1):
            value = float((complete["perfect"] >= k).mean()) if len(complete) else float("nan")
            rows.append({"model": model, "variant": variant, "n_samples": n, "k": k,
                         "contexts": len(complete), "pif_n_k": value})
    return pd.DataFrame(rows, columns=["model", "variant", "n_samples", "k", "contexts", "pif_n_k"])


def n_k_violations(table: pd.DataFrame) -> list[str]:
    """(model, variant) where PIF-N-K increases with K: must be none (PIF-N-i ≤ PIF-N-j for i > j)."""
    problems = []
    for (model, variant), part in table.groupby(["model", "variant"]):
        values = part.sort_values("k")["pif_n_k"].dropna().to_numpy()
        if np.any(np.diff(values) > 1e-12):
            problems.append(f"{model}/{variant}: {np.round(values, 4).tolist()}")
    return problems


SUMMARY_COLUMNS = ["model", "variant", "contexts", "responses", "failed", "pif", "pif_lower", "pif_upper",
                   "pif_iqr_n", "complete_contexts", "pif_n_n", "n_samples"]


def summary(context_df: pd.DataFrame, n_samples: int | None = None) -> pd.DataFrame:
    """Corpus PIF with bounds, PIF-IQR-N and PIF-N-N per (model, variant) (N as in ``pif_n_k``)."""
    rows = []
    for (model, variant), part in context_df.groupby(["model", "variant"], sort=True):
        n = n_samples or samples_per_context(part)
        scored = part[part["pif"].notna()]
        p = float(scored["pif"].mean()) if len(scored) else float("nan")
        lo, hi = bounds(p, len(scored))
        complete = part[(part["samples"] == n) & (part["failed"] == 0)]
        rows.append({
            "model": model, "variant": variant, "contexts": len(scored), "responses": int(part["samples"].sum()),
            "failed": int(part["failed"].sum()), "pif": p, "pif_lower": lo, "pif_upper": hi,
            "pif_iqr_n": float(complete["iqr"].mean()) if len(complete) else float("nan"),
            "complete_contexts": len(complete),
            "pif_n_n": float((complete["perfect"] >= n).mean()) if len(complete) else float("nan"),
            "n_samples": n,
        })
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def ecdf(responses: pd.DataFrame) -> pd.DataFrame:
    """Empirical CDF of the response PIF per (model, variant, turn): one row per distinct value."""
    rows = []
    scored = responses[responses["pif"].notna()]
    for (model, variant, turn), part in scored.groupby(["model", "variant", "turn"], sort=True):
        values = np.sort(part["pif"].to_numpy(dtype=float))
        distinct = np.unique(values)
        cdf = np.searchsorted(values, distinct, side="right") / len(values)
        rows.extend({"model": model, "variant": variant, "turn": int(turn), "pif_value": float(v),
                     "cdf": float(c), "n": len(values)} for v, c in zip(distinct, cdf))
    return pd.DataFrame(rows, columns=["model", "variant", "turn", "pif_value", "cdf", "n"])


def dominates(values_a: np.ndarray, values_b: np.ndarray) -> bool:
    """Does A weakly first-order stochastically dominate B: F_A(x) ≤ F_B(x) for every x?"""
    a, b = np.sort(values_a), np.sort(values_b)
    points = np.union1d(a, b)
    cdf_a = np.searchsorted(a, points, side="right") / len(a)
    cdf_b = np.searchsorted(b, points, side="right") / len(b)
    return bool(np.all(cdf_a <= cdf_b + 1e-12))


DOMINANCE_COLUMNS = ["variant", "model_a", "model_b", "turns", "turns_a_dominates", "turns_b_dominates",
                     "a_dominates_every_turn", "b_dominates_every_turn", "verdict"]


def dominance(responses: pd.DataFrame) -> pd.DataFrame:
    """Per model pair and variant: at how many turns each ECDF dominates, and the verdict."""
    scored = responses[responses["pif"].notna()]
    rows = []
    for variant, part in scored.groupby("variant", sort=True):
        by_model = {m: dict(iter(g.groupby("turn")["pif"])) for m, g in part.groupby("model")}
        for model_a, model_b in combinations(sorted(by_model), 2):
            turns = sorted(set(by_model[model_a]) & set(by_model[model_b]))
            a_wins = [dominates(by_model[model_a][t].to_numpy(), by_model[model_b][t].to_numpy()) for t in turns]
            b_wins = [dominates(by_model[model_b][t].to_numpy(), by_model[model_a][t].to_numpy()) for t in turns]
            a_all, b_all = bool(turns) and all(a_wins), bool(turns) and all(b_wins)
            verdict = ("equal" if a_all and b_all else f"{model_a} dominates" if a_all
                       else f"{model_b} dominates" if b_all else "no dominance")
            rows.append({"variant": variant, "model_a": model_a, "model_b": model_b, "turns": len(turns),
                         "turns_a_dominates": sum(a_wins), "turns_b_dominates": sum(b_wins),
                         "a_dominates_every_turn": a_all, "b_dominates_every_turn": b_all, "verdict": verdict})
    return pd.DataFrame(rows, columns=DOMINANCE_COLUMNS)


def wilcoxon_one_sided(x: Sequence[float], y: Sequence[float]) -> tuple[float, float, int]:
    """(p for x > y, p for x < y, non-zero pairs): paired one-sided Wilcoxon signed-rank tests."""
    diff = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    nonzero = int(np.sum(np.abs(diff) > 1e-12))
    if nonzero == 0:
        return float("nan"), float("nan"), 0
    greater = stats.wilcoxon(x, y, alternative="greater", zero_method="wilcox").pvalue
    less = stats.wilcoxon(x, y, alternative="less", zero_method="wilcox").pvalue
    return float(greater), float(less), nonzero


WILCOXON_COLUMNS = ["variant", "model_a", "model_b", "pairs", "nonzero_pairs", "mean_difference",
                    "p_a_greater", "p_b_greater"]


def wilcoxon_pairs(context_df: pd.DataFrame) -> pd.DataFrame:
    """One-sided Wilcoxon signed-rank p-values on paired context PIFs, per model pair and variant."""
    rows = []
    scored = context_df[context_df["pif"].notna()]
    for variant, part in scored.groupby("variant", sort=True):
        wide = part.pivot_table(index=["chat_id", "turn"], columns="model", values="pif")
        for model_a, model_b in combinations(sorted(wide.columns), 2):
            paired = wide[[model_a, model_b]].dropna()
            p_greater, p_less, nonzero = wilcoxon_one_sided(paired[model_a], paired[model_b])
            rows.append({"variant": variant, "model_a": model_a, "model_b": model_b, "pairs": len(paired),
                         "nonzero_pairs": nonzero,
                         "mean_difference": float((paired[model_a] - paired[model_b]).mean()) if len(paired) else np.nan,
                         "p_a_greater": p_greater, "p_b_greater": p_less})
    return pd.DataFrame(rows, columns=WILCOXON_COLUMNS)


UPLIFT_COLUMNS = ["model", "pif_standard", "pif_appended", "uplift", "pif_n_n_standard", "pif_n_n_appended",
                  "uplift_n_n", "pairs", "p_appended_greater"]


def appended_uplift(context_df: pd.DataFrame, summary_df: pd.DataFrame) -> pd.DataFrame:
    """Per model: PIF and PIF-N-N with and without the appended instructions, and the paired test."""
    rows = []
    table = summary_df.set_index(["model", "variant"])
    for model in sorted(set(context_df["model"])):
        if (model, STANDARD) not in table.index or (model, APPENDED) not in table.index:
            continue
        part = context_df[(context_df["model"] == model) & context_df["pif"].notna()]
        wide = part.pivot_table(index=["chat_id", "turn"], columns="variant", values="pif").dropna()
        p_greater = wilcoxon_one_sided(wide[APPENDED], wide[STANDARD])[0] if len(wide) else float("nan")
        standard, appended = table.loc[(model, STANDARD)], table.loc[(model, APPENDED)]
        rows.append({"model": model, "pif_standard": standard["pif"], "pif_appended": appended["pif"],
                     "uplift": appended["pif"] - standard["pif"], "pif_n_n_standard": standard["pif_n_n"],
                     "pif_n_n_appended": appended["pif_n_n"], "uplift_n_n": appended["pif_n_n"] - standard["pif_n_n"],
                     "pairs": len(wide), "p_appended_greater": p_greater})
    return pd.DataFrame(rows, columns=UPLIFT_COLUMNS)


# --- preferences -------------------------------------------------------------------------------------

OUTCOME_VERDICT = {"win": "A>B", "tie": "A=B", "loss": "B>A"}
PREFERENCE_COLUMNS = ["judge", "variant", "model_a", "model_b", "turns", "wins", "ties", "losses", "win_rate",
                      "unjudged"]


def pairwise_outcomes(preferences: pd.DataFrame) -> pd.DataFrame:
    """Per (judge, variant, turn) and model pair: the outcome for model_a (None when one is unscored).

    ``preferences`` has judge, variant, model, chat_id, turn and preference (NaN = not scored).
    """
    rows = []
    for (judge, variant, chat_id, turn), part in preferences.groupby(["judge", "variant", "chat_id", "turn"], sort=True):
        score = dict(zip(part["model"], part["preference"]))
        for model_a, model_b in combinations(sorted(score), 2):
            a, b = score[model_a], score[model_b]
            outcome = None if pd.isna(a) or pd.isna(b) else pairwise_outcome(float(a), float(b))
            rows.append({"judge": judge, "variant": variant, "chat_id": chat_id, "turn": int(turn),
                         "model_a": model_a, "model_b": model_b, "outcome": outcome})
    return pd.DataFrame(rows, columns=["judge", "variant", "chat_id", "turn", "model_a", "model_b", "outcome"])


def win_tie_loss(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Win/tie/loss counts per (judge, variant, model pair); win_rate counts a tie as half."""
    rows = []
    for (judge, variant, model_a, model_b), part in outcomes.groupby(["judge", "variant", "model_a", "model_b"], sort=True):
        counts = part["outcome"].value_counts()
        wins, ties, losses = (int(counts.get(k, 0)) for k in ("win", "tie", "loss"))
        judged = wins + ties + losses
        rows.append({"judge": judge, "variant": variant, "model_a": model_a, "model_b": model_b, "turns": judged,
                     "wins": wins, "ties": ties, "losses": losses,
                     "win_rate": (wins + 0.5 * ties) / judged if judged else np.nan,
                     "unjudged": int(part["outcome"].isna().sum())})
    return pd.DataFrame(rows, columns=PREFERENCE_COLUMNS)


def battles(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Judged outcomes as battles (model_a, model_b, canonical verdict) for benchwright.ratings."""
    judged = outcomes[outcomes["outcome"].notna()]
    return pd.DataFrame({"model_a": judged["model_a"].to_numpy(), "model_b": judged["model_b"].to_numpy(),
                         "verdict": judged["outcome"].map(OUTCOME_VERDICT).to_numpy()})


SELF_PREFERENCE_COLUMNS = ["judge", "model", "judge_family", "model_family", "same_family", "judgments",
                           "mean_score", "mean_score_other_judges", "difference"]


def self_preference(judgments: pd.DataFrame, families: Mapping[str, str]) -> pd.DataFrame:
    """Mean of the 8 criteria a judge gives each model vs the mean the other judges give it.

    ``judgments`` has judge, model and the ``SCORE_COLUMNS`` (parsed rows only); ``families``
    maps every slug (models and judges) to its family (see ``model_family``).
    """
    if judgments.empty:
        return pd.DataFrame(columns=SELF_PREFERENCE_COLUMNS)
    df = judgments.copy()
    df["mean_score"] = df[list(SCORE_COLUMNS)].mean(axis=1)
    rows = []
    for (judge, model), part in df.groupby(["judge", "model"], sort=True):
        others = df[(df["model"] == model) & (df["judge"] != judge)]["mean_score"]
        mine = float(part["mean_score"].mean())
        other = float(others.mean()) if len(others) else float("nan")
        judge_family, model_family_ = families.get(judge, judge), families.get(model, model)
        rows.append({"judge": judge, "model": model, "judge_family": judge_family, "model_family": model_family_,
                     "same_family": judge_family == model_family_, "judgments": len(part), "mean_score": mine,
                     "mean_score_other_judges": other, "difference": mine - other})
    return pd.DataFrame(rows, columns=SELF_PREFERENCE_COLUMNS)


_FAMILY_MARKERS = (
    ("openai", ("gpt", "o1", "o3", "o4", "chatgpt")), ("anthropic", ("claude",)), ("google", ("gemini", "gemma")),
    ("meta", ("llama",)), ("mistral", ("mistral", "mixtral", "pixtral")), ("qwen", ("qwen",)),
)  # fmt: skip


def model_family(model: str, params: Mapping | None = None) -> str:
    """The family of a litellm model string, for judge self-preference.

    ``params['family']`` wins when set (note: params are part of the cache key). Otherwise the
    model name is matched against known families (gpt → openai, claude → anthropic, gemini →
    google, ...), falling back to the provider prefix. Each simulated model (``sim/...``) is its
    own family unless it sets ``family``.
    """
    if params and params.get("family"):
        return str(params["family"]).lower()
    provider, _, name = model.partition("/")
    if provider == "sim":
        return f"sim:{name}"
    lowered = (name or provider).lower()
    for family, markers in _FAMILY_MARKERS:
        if any(marker in lowered for marker in markers):
            return family
    return provider.lower()


# --- human alignment ---------------------------------------------------------------------------------

ALIGNMENT_COLUMNS = ["measure", "scope", "variant", "n", "value", "p_value"]


def human_alignment(ratings: pd.DataFrame, preferences: pd.DataFrame, responses: pd.DataFrame) -> pd.DataFrame:
    """Pearson r of PIF with human instruction-following ratings (overall and per model), and the share
    of human pairwise preferences that agree with the PIF order.

    ``ratings``: model, chat_id, turn, variant, sample_index, rating. ``preferences``: chat_id, turn,
    variant, sample_index, model_a, model_b, preferred ('a', 'b' or 'tie'). ``responses``: scored
    responses (model, variant, chat_id, turn, sample_index, pif). Unmatched rows are left out; r is
    NaN with fewer than 3 pairs or a constant side.
    """
    keys = ["model", "variant", "chat_id", "turn", "sample_index"]
    rows = []
    scored = responses[responses["pif"].notna()][keys + ["pif"]]
    if len(ratings):
        joined = ratings.merge(scored, on=keys, how="inner")
        scopes = [("overall", joined)] + [(f"model:{m}", g) for m, g in joined.groupby("model", sort=True)]
        for variant in sorted(set(joined["variant"])):
            for scope, part in scopes:
                part = part[part["variant"] == variant]
                r, p = _pearson(part["pif"], part["rating"])
                rows.append({"measure": "pearson_pif_human_rating", "scope": scope, "variant": variant,
                             "n": len(part), "value": r, "p_value": p})
    if len(preferences):
        pif = scored.set_index(keys)["pif"]
        agree = {}
        for row in preferences.itertuples(index=False):
            key_a = (row.model_a, row.variant, row.chat_id, row.turn, row.sample_index)
            key_b = (row.model_b, row.variant, row.chat_id, row.turn, row.sample_index)
            if key_a not in pif.index or key_b not in pif.index or row.preferred == "tie":
                continue
            a, b = float(pif[key_a]), float(pif[key_b])
            if abs(a - b) <= 1e-12:
                continue
            agree.setdefault(row.variant, []).append((row.preferred == "a") == (a > b))
        for variant, flags in sorted(agree.items()):
            rows.append({"measure": "human_preference_agrees_with_pif", "scope": "overall", "variant": variant,
                         "n": len(flags), "value": float(np.mean(flags)), "p_value": np.nan})
    return pd.DataFrame(rows, columns=ALIGNMENT_COLUMNS)


def _pearson(x: pd.Series, y: pd.Series) -> tuple[float, float]:
    if len(x) < 3 or x.nunique() < 2 or y.nunique() < 2:
        return float("nan"), float("nan")
    result = stats.pearsonr(x.astype(float), y.astype(float))
    return float(result.statistic), float(result.pvalue)


PREFERENCE_SCORE_COLUMNS = ["judge", "model", "variant", "chat_id", "turn", "sample_index", "pif", "criteria_mean",
                            "preference"]


def preference_scores(judgments: pd.DataFrame, responses: pd.DataFrame, pif_weight: float = PIF_WEIGHT) -> pd.DataFrame:
    """Preference score of every judged response: (8 criteria + pif_weight·PIF) / (8 + pif_weight).

    ``judgments``: rows of ``mmmt_if_autorater_judgments`` (failed calls and parse failures get a
    NaN preference: they take part in no comparison). ``responses``: scored responses with pif.
    """
    keys = ["model", "variant", "chat_id", "turn", "sample_index"]
    merged = judgments.merge(responses[keys + ["pif"]], on=keys, how="left")
    usable = merged["parse_ok"].astype(bool) & merged["error"].isna() & merged["pif"].notna()
    criteria = merged[list(SCORE_COLUMNS)].astype(float)
    merged["criteria_mean"] = criteria.mean(axis=1).where(usable)
    merged["preference"] = ((criteria.sum(axis=1) + pif_weight * merged["pif"]) / (len(SCORE_COLUMNS) + pif_weight)).where(usable)
    return merged[PREFERENCE_SCORE_COLUMNS]


# --- great-expectations suites (benchwright.quality.validate_frame) -----------------------------------


_IN_VARIANTS = {"type": "column_values_in_set", "column": "variant", "values": list(VARIANTS)}
SUITES: dict[str, list[dict]] = {
    "mmmt_if_turn_scores": [
        {"type": "columns_exist", "columns": ["model", "variant", "turn_id", "sample_index", "pif", "n_followed"]},
        _IN_VARIANTS,
        between("pif", 0, 1),
        between("n_instructions", 0, MAX_INSTRUCTIONS),
        between("n_followed", 0, MAX_INSTRUCTIONS),
        {"type": "columns_unique", "columns": ["model", "variant", "turn_id", "sample_index"]},
    ],
    "mmmt_if_autorater_judgments": [
        _IN_VARIANTS,
        *(between(c, 1, 10) for c in SCORE_COLUMNS),
        {"type": "columns_unique", "columns": ["model", "judge", "variant", "turn_id", "sample_index"]},
    ],
}


def pif_values(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Every PIF-scale number of the metric tables in one long frame, for one range check.

    Columns: table, model, variant, key (the row's other key: turn, k, instruction ...), measure,
    value. Tables without a given measure are skipped.
    """
    measures = ("pif", "pif_lower", "pif_upper", "pif_iqr_n", "pif_n_n", "pif_n_k")
    frames = []
    for name, df in tables.items():
        if df.empty:
            continue
        keys = [c for c in ("turn", "n_instructions", "instruction_id", "k") if c in df.columns]
        key = df[keys].astype(str).agg("/".join, axis=1) if keys else pd.Series("all", index=df.index)
        for measure in measures:
            if measure in df.columns:
                frames.append(pd.DataFrame({"table": name, "model": df["model"], "variant": df["variant"],
                                            "key": key, "measure": measure, "value": df[measure].astype(float)}))
    columns = ["table", "model", "variant", "key", "measure", "value"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


SUITES["mmmt_if_pif_values"] = [
    {"type": "columns_exist", "columns": ["table", "model", "variant", "key", "measure", "value"]},
    _IN_VARIANTS,
    between("value", 0, 1),
    {"type": "columns_unique", "columns": ["table", "model", "variant", "key", "measure"]},
]
