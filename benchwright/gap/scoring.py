"""GAP-VQA scoring (benchwright/gap/README.md#scoring): the judge's prompt, its one number in [0, 1], the per-model summary."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from benchwright import judging
from benchwright.judging import Shown

if TYPE_CHECKING:  # the declaration imports this module: reading declarations (`dev.py show`) needs no pandas
    import pandas as pd


SCORE_PROMPT_VERSION = "gap-score-v1"
SCORE_MARKER = "GAP answer score"
SCORE_PROMPT = (
    f"{SCORE_MARKER}. Compare a model's answer about an image with the correct answer. For the objects the "
    "correct answer mentions, check four things: whether they exist, their position, their count and their "
    "colour. Give 1 when the model's answer is right on all four, 0 when it is right on none, and a value in "
    "between for partly right answers.\n\nQuestion: {question}\n{correct}\n{answer}\n\n"
    "End with one line exactly like: Score: <number between 0 and 1>"
)
CORRECT_TAG, ANSWER_TAG = "correct_answer", "model_answer"
PROMPT_TAGS = (CORRECT_TAG, ANSWER_TAG)


def score_prompt(question: str, correct: str, answer: str) -> str:
    return SCORE_PROMPT.format(question=question, correct=judging.tagged(CORRECT_TAG, correct, PROMPT_TAGS),
                               answer=judging.tagged(ANSWER_TAG, answer, PROMPT_TAGS))


SCORE_LINE = re.compile(r"score\s*[:=]\s*\**\s*(-?\d*\.?\d+)\s*(/\s*1(?:\.0+)?)?\s*(%?)(?!\d|\.\d)", re.IGNORECASE)


def parse_score(text: str | None, shown: Shown | Iterable[str | None] | None = None) -> tuple[float | None, str | None]:
    """(score, problem). Reads the judge's last own 'Score: x' line; else a reply that is just one number.

    Accepts x in [0, 1] and 'x/1'; a percentage or any other value is a located problem, never a guess.
    A 'Score: x' line that also occurs in a text the judge was shown (``shown``: the correct answer and
    the model's answer) is an echo, not the judge's (``benchwright.judging``).
    """
    if not text or not text.strip():
        return None, "empty output"
    labelled, echoed = judging.last_own(text, list(SCORE_LINE.finditer(text)), judging.shown(shown))
    if echoed:
        return None, echoed
    if labelled is not None:
        raw, _, percent = labelled.groups()
        if percent:
            return None, f"percentage instead of a number in [0, 1]: {raw}%"
    else:
        bare = re.fullmatch(r"\s*\**\s*(-?\d*\.?\d+)\s*\**\s*", text)
        if not bare:
            return None, "no 'Score: <x>' line"
        raw = bare.group(1)
    value = float(raw)
    if not 0.0 <= value <= 1.0:
        return None, f"score {raw} outside [0, 1]"
    return value, None


def score_summary(judgments: pd.DataFrame) -> pd.DataFrame:
    """judge × model: GPT score (mean over parsed val items), n, parse failures, errors; plus per-model
    latency, tokens/s and cost per 1,000 tokens of the answering calls (columns answer_*)."""
    rows = []
    for (judge, model), group in judgments.groupby(["judge", "model"]):
        answered = group[group["answer_error"].isna()]
        judged = answered[answered["judge_error"].isna()]
        parsed = judged[judged["parse_ok"]]
        tokens = answered["answer_tokens_out"].sum()
        seconds = answered["answer_latency_ms"].sum() / 1000
        all_tokens = answered["answer_tokens_in"].sum() + tokens
        rows.append({"judge": judge, "model": model, "gpt_score": float(parsed["score"].mean()) if len(parsed) else None,
                     "n": len(parsed), "parse_failures": int((~judged["parse_ok"]).sum()),
                     "errors": int(len(group) - len(judged)),
                     "answer_latency_ms": float(answered["answer_latency_ms"].mean()) if len(answered) else None,
                     "answer_tokens_per_s": float(tokens / seconds) if seconds > 0 else None,
                     "answer_cost_per_1k_tokens": float(answered["answer_cost_usd"].sum() / all_tokens * 1000) if all_tokens else None})
    import pandas as pd

    return pd.DataFrame(rows, columns=["judge", "model", "gpt_score", "n", "parse_failures", "errors", "answer_latency_ms",
                                       "answer_tokens_per_s", "answer_cost_per_1k_tokens"])
