"""The Creation pipeline's steps as pure functions: which LLM requests to make and which rows their
results become. The Dagster assets call these and only add reading, writing and metadata.

Items arrive as dicts (warehouse rows of `creation_items`); images as a map from content hash to
data URL, so the same picture is encoded once however many items or calls use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from benchwright import answer_injection, creation
from benchwright.llm import LLMRequest, LLMResult, ModelLimits
from benchwright.registry import RegistryEntry
from benchwright.verdicts import pairwise_verdict, vfs_scores

BENCHMARK = "creation"


@dataclass(frozen=True)
class Planned:
    """One request to make and what its answer will be a row of."""

    item_id: str
    request: LLMRequest
    variant: str = "vision"
    judge_order: int = 0
    candidate_len: int = 0
    baseline_len: int = 0
    shown: tuple[str, ...] = ()  # the answers a judge was shown: its parser skips echoes of them


def request_for(entry: RegistryEntry, messages: list[dict], prompt_version: str, tag: str, sample_index: int = 0) -> LLMRequest:
    return LLMRequest(
        model=entry.model,
        messages=messages,
        params=dict(entry.params),
        prompt_version=prompt_version,
        sample_index=sample_index,
        api_base=entry.api_base,
        tag=tag,
    )


def limits_for(entries: Iterable[RegistryEntry]) -> dict[str, ModelLimits]:
    """Per-model limits from the registry; models without their own use the client's default."""
    limits = {}
    for entry in entries:
        if entry.max_concurrency or entry.rpm:
            limits[entry.model] = ModelLimits(max_concurrency=entry.max_concurrency or 8, rpm=entry.rpm)
    return limits


def images_of(item: Mapping[str, Any], image_urls: Mapping[str, str]) -> list[str]:
    return [image_urls[h] for h in item["image_hashes"]]


# --- baseline answers and image descriptions ------------------------------------------------------

def reference_plan(items: list[dict], baseline: RegistryEntry, image_urls: Mapping[str, str]) -> list[Planned]:
    """Baseline answers for the items whose dataset does not ship one."""
    return [
        Planned(item["item_id"], request_for(baseline, creation.candidate_messages(item, images_of(item, image_urls)),
                                             creation.CANDIDATE_PROMPT_VERSION, tag=item["item_id"]))
        for item in items
        if not item.get("reference_answer")
    ]


def description_plan(items: list[dict], describer: RegistryEntry, image_urls: Mapping[str, str],
                     focus_by_item: Mapping[str, str] | None = None) -> list[Planned]:
    """Describe each item's images: generically, or with the item's focus (query-specific)."""
    plan = []
    for item in items:
        focus = (focus_by_item or {}).get(item["item_id"])
        messages = creation.describe_messages(images_of(item, image_urls), focus=focus)
        plan.append(Planned(item["item_id"], request_for(describer, messages, creation.DESCRIBE_PROMPT_VERSION, tag=item["item_id"])))
    return plan


def focus_plan(items: list[dict], writer: RegistryEntry) -> list[Planned]:
    """Ask a strong LLM which image contents matter for each text-only question (query-specific mode)."""
    return [
        Planned(item["item_id"], request_for(writer, creation.focus_messages(creation.build_query(item)),
                                             creation.FOCUS_PROMPT_VERSION, tag=item["item_id"]))
        for item in items
    ]


# --- candidate generations -------------------------------------------------------------------------

def generation_plan(items: list[dict], model: RegistryEntry, image_urls: Mapping[str, str],
                    descriptions: Mapping[str, str]) -> tuple[list[Planned], list[str]]:
    """Requests for one candidate; text-only models get the image descriptions instead of images.

    Returns the plan and the ids of items skipped because a text-only model has no description.
    """
    plan, skipped = [], []
    for item in items:
        if model.vision:
            messages = creation.candidate_messages(item, images_of(item, image_urls))
            variant = "vision"
        elif item["item_id"] in descriptions:
            messages = creation.candidate_messages(item, [], image_descriptions=descriptions[item["item_id"]])
            variant = "text_only"
        else:
            skipped.append(item["item_id"])
            continue
        plan.append(Planned(item["item_id"], request_for(model, messages, creation.CANDIDATE_PROMPT_VERSION, tag=item["item_id"]), variant=variant))
    return plan, skipped


def generation_rows(model: RegistryEntry, plan: list[Planned], results: list[LLMResult],
                    benchmark: str = BENCHMARK) -> pd.DataFrame:
    """Rows of the shared ``generations`` table (GAP's answers use it too, with ``benchmark='gap'``)."""
    return pd.DataFrame(
        [
            {
                "benchmark": benchmark,
                "model": model.slug,
                "item_id": p.item_id,
                "variant": p.variant,
                "sample_index": p.request.sample_index,
                "response": r.text,
                "error": r.error,
                "request_key": r.key,
                "prompt_version": p.request.prompt_version,
                "tokens_in": r.tokens_in,
                "tokens_out": r.tokens_out,
                "latency_ms": r.latency_ms,
                "cost_usd": r.cost_usd,
                "pii_redactions": r.pii_redactions,
                "injection_kinds": answer_injection.kinds_text(r.text),
                "simulated": model.simulated,
            }
            for p, r in zip(plan, results, strict=True)
        ],
        columns=["benchmark", "model", "item_id", "variant", "sample_index", "response", "error", "request_key",
                 "prompt_version", "tokens_in", "tokens_out", "latency_ms", "cost_usd", "pii_redactions", "injection_kinds", "simulated"],
    )


# --- judgments -------------------------------------------------------------------------------------

def pairwise_plan(items: list[dict], baseline_answers: Mapping[str, str], candidate_answers: Mapping[str, str],
                  judge: RegistryEntry, image_urls: Mapping[str, str]) -> tuple[list[Planned], list[str]]:
    """Both orders for every item that has a baseline and a candidate answer (dual evaluation).

    Order 1 puts the baseline in position A and the candidate in B; order 2 swaps them.
    Returns the plan and the ids of items skipped for lack of an answer.
    """
    plan, skipped = [], []
    for item in items:
        item_id = item["item_id"]
        baseline, candidate = baseline_answers.get(item_id), candidate_answers.get(item_id)
        if not baseline or not candidate:
            skipped.append(item_id)
            continue
        urls = images_of(item, image_urls) if judge.vision else None
        for order, (a, b) in ((1, (baseline, candidate)), (2, (candidate, baseline))):
            messages = creation.pairwise_judge_messages(item, a, b, urls)
            plan.append(Planned(item_id, request_for(judge, messages, creation.PAIRWISE_PROMPT_VERSION, tag=f"{item_id}#{order}"),
                                judge_order=order, candidate_len=len(candidate), baseline_len=len(baseline),
                                shown=(baseline, candidate)))
    return plan, skipped


def pairwise_rows(model: RegistryEntry, judge: RegistryEntry, plan: list[Planned], results: list[LLMResult]) -> pd.DataFrame:
    rows = []
    for p, r in zip(plan, results, strict=True):
        position = "B" if p.judge_order == 1 else "A"
        verdict, problem = pairwise_verdict(r.text, p.shown) if r.error is None else (None, None)
        rows.append({
            "model": model.slug, "judge": judge.slug, "item_id": p.item_id, "judge_order": p.judge_order,
            "candidate_position": position, "raw_text": r.text, "verdict": verdict,
            "parse_ok": verdict is not None, "parse_problem": problem,
            # A failed call is not a judgment: no outcome, so it is neither a loss nor a parse failure.
            "outcome": None if r.error is not None else creation.outcome(verdict, position),
            "error": r.error, "candidate_len": p.candidate_len, "baseline_len": p.baseline_len,
            "request_key": r.key, "simulated": model.simulated or judge.simulated, "source": "benchwright",
        })
    return pd.DataFrame(rows, columns=PAIRWISE_COLUMNS)


PAIRWISE_COLUMNS = ["model", "judge", "item_id", "judge_order", "candidate_position", "raw_text", "verdict", "parse_ok",
                    "parse_problem", "outcome", "error", "candidate_len", "baseline_len", "request_key", "simulated", "source"]
VFS_COLUMNS = ["model", "judge", "item_id", "raw_text", "score_a", "score_b", "parse_ok", "parse_problem", "error", "request_key",
               "simulated", "source"]


def vfs_plan(items: list[dict], baseline_answers: Mapping[str, str], candidate_answers: Mapping[str, str],
             judge: RegistryEntry, image_urls: Mapping[str, str]) -> tuple[list[Planned], list[str]]:
    """One unitary VFS judgment per item that has visual-factuality criteria and both answers."""
    plan, skipped = [], []
    for item in items:
        item_id = item["item_id"]
        if not item.get("visual_factuality_criteria"):
            continue
        baseline, candidate = baseline_answers.get(item_id), candidate_answers.get(item_id)
        if not baseline or not candidate:
            skipped.append(item_id)
            continue
        urls = images_of(item, image_urls) if judge.vision else None
        messages = creation.vfs_judge_messages(item, baseline, candidate, urls)
        plan.append(Planned(item_id, request_for(judge, messages, creation.VFS_PROMPT_VERSION, tag=item_id),
                            shown=(baseline, candidate)))
    return plan, skipped


def vfs_rows(model: RegistryEntry, judge: RegistryEntry, plan: list[Planned], results: list[LLMResult]) -> pd.DataFrame:
    rows = []
    for p, r in zip(plan, results, strict=True):
        score_a, score_b, problem = vfs_scores(r.text, p.shown) if r.error is None else (None, None, None)
        rows.append({
            "model": model.slug, "judge": judge.slug, "item_id": p.item_id, "raw_text": r.text,
            "score_a": score_a, "score_b": score_b,
            # The candidate's score (B) is the VFS; the row parsed when that score did.
            "parse_ok": score_b is not None, "parse_problem": problem,
            "error": r.error, "request_key": r.key, "simulated": model.simulated or judge.simulated,
            "source": "benchwright",
        })
    return pd.DataFrame(rows, columns=VFS_COLUMNS)
