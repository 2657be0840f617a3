"""GAP-VQA scoring (METHODS §4.5) as pure steps, shaped like the other benchmarks' judgments:

- generations (partition: model): each candidate answers the val questions, with the image when it has
  vision; the answers go to the shared ``generations`` table with ``benchmark = 'gap'``;
- judgments (partition: model × judge): the judge scores each answer against the labelled answer with
  one number in [0, 1]; an answer whose call failed is recorded once per judge, with no score;
- ``gap_scores``: ``benchwright.gap.method.score_summary`` over every judgment.

So a newly registered model or judge reaches GAP the way it reaches every benchmark: its partitions
are added, and eager automation fills them.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from benchwright.gap import method as gap
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
    return [Plan(row.item_id, request_for(model, gap.answer_messages(row.question, image_urls[row.sha256]
                                                                        if model.vision else None),
                                             gap.ANSWER_PROMPT_VERSION, tag=row.item_id), variant=variant)
            for row in val.itertuples(index=False)]


def answer_rows(model: RegistryEntry, plan: list[Plan], results: list[LLMResult]) -> pd.DataFrame:
    return generation_rows(BENCHMARK, model, plan, results)


def score_plan(val: pd.DataFrame, answers: pd.DataFrame, judge: RegistryEntry) -> list[Plan]:
    """One scoring request per answered val question; ``answers`` are the model's ``generations`` rows."""
    answered = {r.item_id: r.response for r in answers.itertuples(index=False) if isinstance(r.response, str)}
    return [Plan(row.item_id, request_for(judge, [{"role": "user", "content": gap.score_prompt(
                        row.question, row.answer, answered[row.item_id])}], gap.SCORE_PROMPT_VERSION, tag=row.item_id),
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
        score, problem = gap.parse_score(v.text, p.shown) if v is not None and v.error is None else (None, None)
        rows.append({"judge": judge.slug, "model": model.slug, "item_id": item_id,
                     "answer": a.response if isinstance(a.response, str) else None, "answer_error": a.error,
                     "answer_tokens_in": a.tokens_in, "answer_tokens_out": a.tokens_out,
                     "answer_latency_ms": a.latency_ms, "answer_cost_usd": a.cost_usd,
                     "raw_text": v.text if v is not None else None, "judge_error": v.error if v is not None else None,
                     "score": score, "parse_ok": score is not None, "parse_problem": problem})
    return pd.DataFrame(rows, columns=JUDGMENT_COLUMNS)
