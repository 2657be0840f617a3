"""The URS pipeline's steps as pure functions: which LLM requests to make and which rows their
results become. The Dagster assets in assets/urs.py call these and only read, write and report.

Items arrive as dicts (rows of `urs_items`); answers as maps item_id -> text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from benchwright import answer_injection, urs
from benchwright.steps import request_for
from benchwright.llm import LLMRequest, LLMResult
from benchwright.registry import RegistryEntry

BENCHMARK = "urs"
VARIANT = "text"
# Two samples per question: the rating bias (§3.4) judges one against the other.
SAMPLES = 2
ANSWER_SAMPLE = 0  # the answer that is judged
REFERENCE_SAMPLE = 1  # a candidate's answer used as the reference in the cross-validation grid


@dataclass(frozen=True)
class Planned:
    """One request to make and what its answer will be a row of."""

    item_id: str
    request: LLMRequest
    model: str = ""  # the judged candidate's slug (judgments)
    reference_model: str = ""  # whose answer is the reference (judgments)
    shown: tuple[str, ...] = ()  # the reference and the answer a judge was shown: echoes of them never count


# --- reference answers and generations ------------------------------------------------------------

def reference_plan(items: Sequence[Mapping], model: RegistryEntry, every_item: bool) -> list[Planned]:
    """The reference model's answers: for every item, or only for those without a dataset answer."""
    return [
        Planned(item["item_id"], request_for(model, urs.candidate_messages(item["question"]),
                                             urs.CANDIDATE_PROMPT_VERSION, tag=item["item_id"]))
        for item in items
        if every_item or not item.get("reference_answer")
    ]


def generation_plan(items: Sequence[Mapping], model: RegistryEntry, samples: int = SAMPLES) -> list[Planned]:
    """`samples` answers per question (distinct sample_index, so distinct cache keys)."""
    return [
        Planned(item["item_id"], request_for(model, urs.candidate_messages(item["question"]), urs.CANDIDATE_PROMPT_VERSION,
                                             tag=f"{item['item_id']}#{sample}", sample_index=sample))
        for item in items
        for sample in range(samples)
    ]


GENERATION_COLUMNS = ["benchmark", "model", "item_id", "variant", "sample_index", "response", "error", "request_key",
                      "prompt_version", "tokens_in", "tokens_out", "latency_ms", "cost_usd", "pii_redactions",
                      "injection_kinds", "simulated"]


def generation_rows(model: RegistryEntry, plan: list[Planned], results: list[LLMResult]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"benchmark": BENCHMARK, "model": model.slug, "item_id": p.item_id, "variant": VARIANT,
          "sample_index": p.request.sample_index, "response": r.text, "error": r.error, "request_key": r.key,
          "prompt_version": p.request.prompt_version, "tokens_in": r.tokens_in, "tokens_out": r.tokens_out,
          "latency_ms": r.latency_ms, "cost_usd": r.cost_usd, "pii_redactions": r.pii_redactions,
          "injection_kinds": answer_injection.kinds_text(r.text),
          "simulated": model.simulated}
         for p, r in zip(plan, results, strict=True)],
        columns=GENERATION_COLUMNS,
    )


# --- judgments ------------------------------------------------------------------------------------

def _judge_request(judge: RegistryEntry, item: Mapping, reference: str, answer: str, tag: str) -> LLMRequest:
    messages = urs.judge_messages(item["question"], item["intent"], item["language"], reference, answer)
    return request_for(judge, messages, urs.JUDGE_PROMPT_VERSION, tag=tag)


def judgment_plan(items: Sequence[Mapping], references: Mapping[str, tuple[str, str]], answers: Mapping[str, str],
                  judge: RegistryEntry, model_slug: str) -> tuple[list[Planned], list[str]]:
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
        plan.append(Planned(item["item_id"], _judge_request(judge, item, reference, answer, tag=item["item_id"]),
                            model=model_slug, reference_model=reference_model, shown=(reference, answer)))
    return plan, skipped


JUDGMENT_COLUMNS = ["model", "judge", "item_id", "intent", "language", "reference_model", "raw_text", "final_score",
                    "criterion_scores", "parse_ok", "parse_problem", "error", "request_key", "simulated", "source"]
CROSS_COLUMNS = ["judge", "reference_model", "model", "item_id", "intent", "language", "raw_text", "final_score",
                 "parse_ok", "parse_problem", "error", "request_key", "simulated"]


def _scored(planned: Planned, result: LLMResult) -> tuple[int | None, str | None, bool, str | None]:
    """(final score, criterion scores as JSON, parse_ok, parse problem). A failed call is not a parse
    failure: its row has an error, and readers leave such rows out."""
    if result.error is not None:
        return None, None, False, None
    scores, problem = urs.read_scores(result.text, planned.shown)
    if scores is None:
        return None, None, False, problem
    criteria = {k: v for k, v in scores.items() if k != urs.FINAL}
    return scores[urs.FINAL], json.dumps(criteria, ensure_ascii=False, sort_keys=True), True, None


def judgment_rows(items_by_id: Mapping[str, Mapping], judge: RegistryEntry, simulated: bool,
                  plan: list[Planned], results: list[LLMResult]) -> pd.DataFrame:
    rows = []
    for p, r in zip(plan, results, strict=True):
        final, criteria, ok, problem = _scored(p, r)
        item = items_by_id[p.item_id]
        rows.append({"model": p.model, "judge": judge.slug, "item_id": p.item_id, "intent": item["intent"],
                     "language": item["language"], "reference_model": p.reference_model, "raw_text": r.text,
                     "final_score": final, "criterion_scores": criteria, "parse_ok": ok, "parse_problem": problem,
                     "error": r.error,
                     "request_key": r.key, "simulated": simulated, "source": "benchwright"})
    df = pd.DataFrame(rows, columns=JUDGMENT_COLUMNS)
    df["final_score"] = df["final_score"].astype("Int64")
    return df


# --- cross-validation grid (§3.4) ------------------------------------------------------------------

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
               answers: Mapping[tuple[str, int], Mapping[str, str]]) -> tuple[list[tuple[RegistryEntry, Planned]], int]:
    """Every judge × reference model × candidate × sampled item.

    ``answers[(model, sample_index)]`` maps item_id -> answer. The reference is the reference
    model's sample 1, the judged answer the candidate's sample 0 (see benchwright.urs). Returns
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
                    plan.append((judge, Planned(item["item_id"], _judge_request(judge, item, reference, answer, tag),
                                                model=model, reference_model=reference_model,
                                                shown=(reference, answer))))
    return plan, skipped


def cross_rows(items_by_id: Mapping[str, Mapping], plan: list[tuple[RegistryEntry, Planned]],
               results: list[LLMResult], simulated: Mapping[str, bool]) -> pd.DataFrame:
    rows = []
    for (judge, p), r in zip(plan, results, strict=True):
        final, _criteria, ok, problem = _scored(p, r)
        item = items_by_id[p.item_id]
        rows.append({"judge": judge.slug, "reference_model": p.reference_model, "model": p.model,
                     "item_id": p.item_id, "intent": item["intent"], "language": item["language"],
                     "raw_text": r.text, "final_score": final, "parse_ok": ok, "parse_problem": problem,
                     "error": r.error, "request_key": r.key,
                     "simulated": judge.simulated or simulated.get(p.model, False)
                     or simulated.get(p.reference_model, False)})
    df = pd.DataFrame(rows, columns=CROSS_COLUMNS)
    df["final_score"] = df["final_score"].astype("Int64")
    return df
