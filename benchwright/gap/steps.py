"""GAP-VQA scoring (benchwright/gap/README.md#scoring) as pure steps, shaped like the other benchmarks' judgments:

- generations (partition: model): each candidate answers the val questions, with the image when it has
  vision; the answers go to the shared ``generations`` table with ``benchmark = 'gap'``;
- judgments (partition: model × judge): the judge scores each answer against the labelled answer with
  one number in [0, 1]; an answer whose call failed is recorded once per judge, with no score;
- ``gap_scores``: ``benchwright.gap.scoring.score_summary`` over every judgment.

So a newly registered model or judge reaches GAP the way it reaches every benchmark: its partitions
are added, and eager automation fills them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping

import pandas as pd

from benchwright.gap import answering, scoring
from benchwright.gap.images import ask
from benchwright.llm import LLMResult
from benchwright.registry import RegistryEntry
from benchwright.steps import Plan, generation_rows, request_for

BENCHMARK = "gap"

JUDGMENT_COLUMNS = ["judge", "model", "item_id", "answer", "answer_error", "answer_tokens_in", "answer_tokens_out",
                    "answer_latency_ms", "answer_cost_usd", "raw_text", "judge_error", "score", "parse_ok",
                    "parse_problem"]


def answer_plan(val: pd.DataFrame, model: RegistryEntry, image_urls: Mapping[str, str]) -> list[Plan]:
    """One request per val question (rows with item_id, question, sha256)."""
    variant = "vision" if model.vision else "text_only"
    return [Plan(row.item_id, request_for(model, answering.answer_messages(row.question, image_urls[row.sha256]
                                                                        if model.vision else None),
                                             answering.ANSWER_PROMPT_VERSION, tag=row.item_id), variant=variant)
            for row in val.itertuples(index=False)]


def answer_rows(model: RegistryEntry, plan: list[Plan], results: list[LLMResult]) -> pd.DataFrame:
    return generation_rows(BENCHMARK, model, plan, results)


def score_plan(val: pd.DataFrame, answers: pd.DataFrame, judge: RegistryEntry) -> list[Plan]:
    """One scoring request per answered val question; ``answers`` are the model's ``generations`` rows."""
    answered = {r.item_id: r.response for r in answers.itertuples(index=False) if isinstance(r.response, str)}
    return [Plan(row.item_id, request_for(judge, [{"role": "user", "content": scoring.score_prompt(
                        row.question, row.answer, answered[row.item_id])}], scoring.SCORE_PROMPT_VERSION, tag=row.item_id),
                    shown=(row.answer, answered[row.item_id]))
            for row in val.itertuples(index=False) if row.item_id in answered]


def score_rows(model: RegistryEntry, judge: RegistryEntry, answers: pd.DataFrame, plan: list[Plan],
               results: list[LLMResult]) -> pd.DataFrame:
    """One row per answer of the model: scored when the answer exists, else the answer's error and no score."""
    by_item = {r.item_id: r for r in answers.itertuples(index=False)}
    judged = {p.item_id: (p, r) for p, r in zip(plan, results, strict=True)}
    rows = []
    for item_id, a in sorted(by_item.items()):
        p, v = judged.get(item_id, (None, None))
        score, problem = scoring.parse_score(v.text, p.shown) if v is not None and v.error is None else (None, None)
        rows.append({"judge": judge.slug, "model": model.slug, "item_id": item_id,
                     "answer": a.response if isinstance(a.response, str) else None, "answer_error": a.error,
                     "answer_tokens_in": a.tokens_in, "answer_tokens_out": a.tokens_out,
                     "answer_latency_ms": a.latency_ms, "answer_cost_usd": a.cost_usd,
                     "raw_text": v.text if v is not None else None, "judge_error": v.error if v is not None else None,
                     "score": score, "parse_ok": score is not None, "parse_problem": problem})
    return pd.DataFrame(rows, columns=JUDGMENT_COLUMNS)


# --- the game's generation side (#the-game): questions on tainted images, some answered wrong on purpose ----

TAINTED_COLUMNS = ["image_id", "question_index", "question", "true_answer", "instructed_wrong", "model", "answer",
                   "error", "matches_truth"]


def tainted_plan(images: pd.DataFrame, model: RegistryEntry, image_urls: Mapping[str, str], questions_per_image: int,
                 p_planted: float, seed: int) -> list[Plan]:
    """Seeded questions on the tainted images (rows with image_id, sha256, truth as JSON); for each, a seeded
    draw (P = ``p_planted``) decides whether the model is told to answer subtly wrong."""
    rng = random.Random(seed)
    plan = []
    for row in images.itertuples(index=False):
        for index in range(questions_per_image):
            question, truth = ask(json.loads(row.truth), rng)
            wrong = rng.random() < p_planted
            url = image_urls[row.sha256] if model.vision else None
            request = request_for(model, answering.answer_messages(question, url, wrong), answering.TAINT_PROMPT_VERSION,
                                  tag=f"{row.image_id}#{index}")
            plan.append(Plan(row.image_id, request, row={"question_index": index, "question": question,
                                                         "true_answer": truth, "instructed_wrong": wrong}))
    return plan


def tainted_rows(model: RegistryEntry, plan: list[Plan], results: list[LLMResult]) -> pd.DataFrame:
    """One row per question: the answer (or the call's error) and whether it matches the exact ground truth."""
    return pd.DataFrame([{"image_id": p.item_id, **p.row, "model": model.slug, "answer": r.text, "error": r.error,
                          "matches_truth": (r.text.strip() == p.row["true_answer"]) if r.text else None}
                         for p, r in zip(plan, results, strict=True)], columns=TAINTED_COLUMNS)


def tainted_summary(rows: pd.DataFrame) -> dict[str, float]:
    """How well the game's model follows the planted-error instruction: the share of answered questions that
    are wrong when told to be, and right when not (NaN when there is nothing to count)."""
    done = rows[rows["answer"].notna()]
    told, free = done[done["instructed_wrong"].astype(bool)], done[~done["instructed_wrong"].astype(bool)]
    return {"wrong_when_instructed": float((~told["matches_truth"].astype(bool)).mean()) if len(told) else float("nan"),
            "right_when_not_instructed": float(free["matches_truth"].astype(bool).mean()) if len(free) else float("nan")}
