"""The Creation pipeline's steps as pure functions: which LLM requests to make and which rows their
results become. The Dagster assets call these and only add reading, writing and metadata.

Items arrive as dicts (warehouse rows of `creation_items`); images as a map from content hash to
data URL, so the same picture is encoded once however many items or calls use it.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from benchwright import steps
from benchwright.creation import prompts
from benchwright.llm import LLMResult
from benchwright.registry import RegistryEntry
from benchwright.steps import Plan, images_of, request_for
from benchwright.pairwise import outcome, pairwise_verdict
from benchwright.creation.vfs import vfs_scores

BENCHMARK = "creation"


# --- baseline answers and image descriptions ------------------------------------------------------

def reference_plan(items: list[dict], baseline: RegistryEntry, image_urls: Mapping[str, str]) -> list[Plan]:
    """Baseline answers for the items whose dataset does not ship one."""
    return [
        Plan(item["item_id"], request_for(baseline, prompts.candidate_messages(item, images_of(item, image_urls)),
                                             prompts.CANDIDATE_PROMPT_VERSION, tag=item["item_id"]))
        for item in items
        if not item.get("reference_answer")
    ]


def reference_rows(items: list[dict], baseline: RegistryEntry | None, plan: list[Plan],
                   results: list[LLMResult]) -> pd.DataFrame:
    """`creation_references`: the dataset's own reference answer where an item has one, else the baseline
    model's answer (with its error when the call failed)."""
    rows = [{"item_id": i["item_id"], "baseline": "dataset", "answer": i["reference_answer"], "error": None,
             "request_key": None, "simulated": False} for i in items if i.get("reference_answer")]
    rows += [{"item_id": p.item_id, "baseline": baseline.slug, "answer": r.text, "error": r.error,
              "request_key": r.key, "simulated": baseline.simulated} for p, r in zip(plan, results, strict=True)]
    return pd.DataFrame(rows)


def description_rows(describer: RegistryEntry, mode: str, focus: Mapping[str, str], plan: list[Plan],
                     results: list[LLMResult]) -> pd.DataFrame:
    """`creation_image_descriptions`: one description per item, with what the describer was asked to look at
    (`focus`, query-specific mode) and the call's error when it failed."""
    return pd.DataFrame([{"item_id": p.item_id, "describer": describer.slug, "mode": mode,
                          "focus": focus.get(p.item_id), "description": r.text, "error": r.error,
                          "simulated": describer.simulated} for p, r in zip(plan, results, strict=True)])


def description_plan(items: list[dict], describer: RegistryEntry, image_urls: Mapping[str, str],
                     focus_by_item: Mapping[str, str] | None = None) -> list[Plan]:
    """Describe each item's images: generically, or with the item's focus (query-specific)."""
    plan = []
    for item in items:
        focus = (focus_by_item or {}).get(item["item_id"])
        messages = prompts.describe_messages(images_of(item, image_urls), focus=focus)
        plan.append(Plan(item["item_id"], request_for(describer, messages, prompts.DESCRIBE_PROMPT_VERSION, tag=item["item_id"])))
    return plan


def focus_plan(items: list[dict], writer: RegistryEntry) -> list[Plan]:
    """Ask a strong LLM which image contents matter for each text-only question (query-specific mode)."""
    return [
        Plan(item["item_id"], request_for(writer, prompts.focus_messages(prompts.build_query(item)),
                                             prompts.FOCUS_PROMPT_VERSION, tag=item["item_id"]))
        for item in items
    ]


# --- candidate generations -------------------------------------------------------------------------

def generation_plan(items: list[dict], model: RegistryEntry, image_urls: Mapping[str, str],
                    descriptions: Mapping[str, str]) -> tuple[list[Plan], list[str]]:
    """Requests for one candidate; text-only models get the image descriptions instead of images.

    Returns the plan and the ids of items skipped because a text-only model has no description.
    """
    plan, skipped = [], []
    for item in items:
        if model.vision:
            messages = prompts.candidate_messages(item, images_of(item, image_urls))
            variant = "vision"
        elif item["item_id"] in descriptions:
            messages = prompts.candidate_messages(item, [], image_descriptions=descriptions[item["item_id"]])
            variant = "text_only"
        else:
            skipped.append(item["item_id"])
            continue
        plan.append(Plan(item["item_id"], request_for(model, messages, prompts.CANDIDATE_PROMPT_VERSION, tag=item["item_id"]), variant=variant))
    return plan, skipped


def generation_rows(model: RegistryEntry, plan: list[Plan], results: list[LLMResult]) -> pd.DataFrame:
    return steps.generation_rows(BENCHMARK, model, plan, results)


# --- judgments -------------------------------------------------------------------------------------

def pairwise_plan(items: list[dict], baseline_answers: Mapping[str, str], candidate_answers: Mapping[str, str],
                  judge: RegistryEntry, image_urls: Mapping[str, str]) -> tuple[list[Plan], list[str]]:
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
            messages = prompts.pairwise_judge_messages(item, a, b, urls)
            plan.append(Plan(item_id, request_for(judge, messages, prompts.PAIRWISE_PROMPT_VERSION, tag=f"{item_id}#{order}"),
                                shown=(baseline, candidate),
                                row={"judge_order": order, "candidate_len": len(candidate), "baseline_len": len(baseline)}))
    return plan, skipped


def pairwise_rows(model: RegistryEntry, judge: RegistryEntry, plan: list[Plan], results: list[LLMResult]) -> pd.DataFrame:
    rows = []
    for p, r in zip(plan, results, strict=True):
        position = "B" if p.row["judge_order"] == 1 else "A"
        verdict, problem = pairwise_verdict(r.text, p.shown) if r.error is None else (None, None)
        rows.append({
            "model": model.slug, "judge": judge.slug, "item_id": p.item_id, "judge_order": p.row["judge_order"],
            "candidate_position": position, "raw_text": r.text, "verdict": verdict,
            "parse_ok": verdict is not None, "parse_problem": problem,
            # A failed call is not a judgment: no outcome, so it is neither a loss nor a parse failure.
            "outcome": None if r.error is not None else outcome(verdict, position),
            "error": r.error, "candidate_len": p.row["candidate_len"], "baseline_len": p.row["baseline_len"],
            "request_key": r.key, "simulated": model.simulated or judge.simulated, "source": "benchwright",
        })
    return pd.DataFrame(rows, columns=PAIRWISE_COLUMNS)


PAIRWISE_COLUMNS = ["model", "judge", "item_id", "judge_order", "candidate_position", "raw_text", "verdict", "parse_ok",
                    "parse_problem", "outcome", "error", "candidate_len", "baseline_len", "request_key", "simulated", "source"]
VFS_COLUMNS = ["model", "judge", "item_id", "raw_text", "score_a", "score_b", "parse_ok", "parse_problem", "error", "request_key",
               "simulated", "source"]


def vfs_plan(items: list[dict], baseline_answers: Mapping[str, str], candidate_answers: Mapping[str, str],
             judge: RegistryEntry, image_urls: Mapping[str, str]) -> tuple[list[Plan], list[str]]:
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
        messages = prompts.vfs_judge_messages(item, baseline, candidate, urls)
        plan.append(Plan(item_id, request_for(judge, messages, prompts.VFS_PROMPT_VERSION, tag=item_id),
                            shown=(baseline, candidate)))
    return plan, skipped


def vfs_rows(model: RegistryEntry, judge: RegistryEntry, plan: list[Plan], results: list[LLMResult]) -> pd.DataFrame:
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
