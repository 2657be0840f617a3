"""The URS pipeline's steps as pure functions: which LLM requests to make and which rows their
results become. The Dagster assets in assets/urs.py call these and only read, write and report.

Items arrive as dicts (rows of `urs_items`); answers as maps item_id -> text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

import pandas as pd

from benchwright.urs import intents, parse, prompts
from benchwright import steps
from benchwright.steps import Plan, request_for
from benchwright.llm import LLMRequest, LLMResult
from benchwright.registry import RegistryEntry

BENCHMARK = "urs"
VARIANT = "text"
# Two samples per question: the rating bias judges one against the other.
SAMPLES = 2
ANSWER_SAMPLE = 0  # the answer that is judged
REFERENCE_SAMPLE = 1  # a candidate's answer used as the reference in the cross-validation grid


# --- reference answers and generations ------------------------------------------------------------

def reference_plan(items: Sequence[Mapping], model: RegistryEntry, every_item: bool) -> list[Plan]:
    """The reference model's answers: for every item, or only for those without a dataset answer."""
    return [
        Plan(item["item_id"], request_for(model, prompts.candidate_messages(item["question"]),
                                          prompts.CANDIDATE_PROMPT_VERSION, tag=item["item_id"]), VARIANT)
        for item in items
        if every_item or not item.get("reference_answer")
    ]


def generation_plan(items: Sequence[Mapping], model: RegistryEntry, samples: int = SAMPLES) -> list[Plan]:
    """`samples` answers per question (distinct sample_index, so distinct cache keys)."""
    return [
        Plan(item["item_id"], request_for(model, prompts.candidate_messages(item["question"]), prompts.CANDIDATE_PROMPT_VERSION,
                                          tag=f"{item['item_id']}#{sample}", sample_index=sample), VARIANT)
        for item in items
        for sample in range(samples)
    ]


def generation_rows(model: RegistryEntry, plan: list[Plan], results: list[LLMResult]) -> pd.DataFrame:
    return steps.generation_rows(BENCHMARK, model, plan, results)


# --- judgments ------------------------------------------------------------------------------------

def _judge_request(judge: RegistryEntry, item: Mapping, reference: str, answer: str, tag: str) -> LLMRequest:
    messages = prompts.judge_messages(item["question"], item["intent"], item["language"], reference, answer)
    return request_for(judge, messages, prompts.JUDGE_PROMPT_VERSION, tag=tag)


def judgment_plan(items: Sequence[Mapping], references: Mapping[str, tuple[str, str]], answers: Mapping[str, str],
                  judge: RegistryEntry, model_slug: str) -> tuple[list[Plan], list[str]]:
    """One judgment per item that has a reference and an answer; returns the plan and skipped ids.

    ``references`` maps item_id -> (reference answer, who wrote it: 'dataset' or a model slug).
    """
    plan, skipped = [], []
    for item in items:
        reference, reference_model = references.get(item["item_id"], (None, ""))
        answer = answers.get(item["item_id"])
        if not reference or not answer:
            skipped.append(item["item_id"])
            continue
        plan.append(Plan(item["item_id"], _judge_request(judge, item, reference, answer, tag=item["item_id"]),
                         VARIANT, shown=(reference, answer), row={"model": model_slug, "reference_model": reference_model}))
    return plan, skipped


JUDGMENT_COLUMNS = ["model", "judge", "item_id", "intent", "language", "reference_model", "raw_text", "final_score",
                    "criterion_scores", "parse_ok", "parse_problem", "error", "request_key", "simulated", "source"]
CROSS_COLUMNS = ["judge", "reference_model", "model", "item_id", "intent", "language", "raw_text", "final_score",
                 "parse_ok", "parse_problem", "error", "request_key", "simulated"]


def _scored(planned: Plan, result: LLMResult) -> tuple[int | None, str | None, bool, str | None]:
    """(final score, criterion scores as JSON, parse_ok, parse problem). A failed call is not a parse
    failure: its row has an error, and readers leave such rows out."""
    if result.error is not None:
        return None, None, False, None
    scores, problem = parse.read_scores(result.text, planned.shown)
    if scores is None:
        return None, None, False, problem
    criteria = {k: v for k, v in scores.items() if k != intents.FINAL}
    return scores[intents.FINAL], json.dumps(criteria, ensure_ascii=False, sort_keys=True), True, None


def judgment_rows(items_by_id: Mapping[str, Mapping], judge: RegistryEntry, simulated: bool,
                  plan: list[Plan], results: list[LLMResult]) -> pd.DataFrame:
    rows = []
    for p, r in zip(plan, results, strict=True):
        final, criteria, ok, problem = _scored(p, r)
        item = items_by_id[p.item_id]
        rows.append({**p.row, "judge": judge.slug, "item_id": p.item_id, "intent": item["intent"],
                     "language": item["language"], "raw_text": r.text,
                     "final_score": final, "criterion_scores": criteria, "parse_ok": ok, "parse_problem": problem,
                     "error": r.error,
                     "request_key": r.key, "simulated": simulated, "source": "benchwright"})
    df = pd.DataFrame(rows, columns=JUDGMENT_COLUMNS)
    df["final_score"] = df["final_score"].astype("Int64")
    return df


# --- cross-validation grid -------------------------------------------------------------------------

def cross_sample(items: Sequence[Mapping], size: int) -> list[Mapping]:
    """A fixed, language-balanced sample: items ordered by a hash of their id, languages alternating.

    The same items always give the same sample, and a new item never reshuffles the others.
    """
    by_language: dict[str, list[Mapping]] = {}
    for item in sorted(items, key=lambda i: hashlib.sha256(i["item_id"].encode()).hexdigest()):
        by_language.setdefault(item["language"], []).append(item)
    queues = [by_language[lang] for lang in sorted(by_language)]
    sample: list[Mapping] = []
    while len(sample) < size and any(queues):
        for queue in queues:
            if queue and len(sample) < size:
                sample.append(queue.pop(0))
    return sample


def cross_plan(sample: Sequence[Mapping], judges: Sequence[RegistryEntry], candidates: Sequence[str],
               answers: Mapping[tuple[str, int], Mapping[str, str]]) -> tuple[list[tuple[RegistryEntry, Plan]], int]:
    """Every judge × reference model × candidate × sampled item.

    ``answers[(model, sample_index)]`` maps item_id -> answer. The reference is the reference
    model's sample 1, the judged answer the candidate's sample 0 (see benchwright.urs.method). Returns
    the plan and how many cells were skipped for a missing answer.
    """
    plan, skipped = [], 0
    for judge in judges:
        for reference_model in candidates:
            references = answers.get((reference_model, REFERENCE_SAMPLE), {})
            for model in candidates:
                judged = answers.get((model, ANSWER_SAMPLE), {})
                for item in sample:
                    reference, answer = references.get(item["item_id"]), judged.get(item["item_id"])
                    if not reference or not answer:
                        skipped += 1
                        continue
                    tag = f"{judge.slug}/{reference_model}/{model}/{item['item_id']}"
                    plan.append((judge, Plan(item["item_id"], _judge_request(judge, item, reference, answer, tag),
                                             VARIANT, shown=(reference, answer),
                                             row={"model": model, "reference_model": reference_model})))
    return plan, skipped


def cross_rows(items_by_id: Mapping[str, Mapping], plan: list[tuple[RegistryEntry, Plan]],
               results: list[LLMResult], simulated: Mapping[str, bool]) -> pd.DataFrame:
    rows = []
    for (judge, p), r in zip(plan, results, strict=True):
        final, _criteria, ok, problem = _scored(p, r)
        item = items_by_id[p.item_id]
        rows.append({"judge": judge.slug, **p.row,
                     "item_id": p.item_id, "intent": item["intent"], "language": item["language"],
                     "raw_text": r.text, "final_score": final, "parse_ok": ok, "parse_problem": problem,
                     "error": r.error, "request_key": r.key,
                     "simulated": judge.simulated or simulated.get(p.row["model"], False)
                     or simulated.get(p.row["reference_model"], False)})
    df = pd.DataFrame(rows, columns=CROSS_COLUMNS)
    df["final_score"] = df["final_score"].astype("Int64")
    return df
