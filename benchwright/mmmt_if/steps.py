"""The MMMT-IF pipeline's steps as pure functions: which requests to make and which rows results become.

Turn rows arrive as dicts (warehouse rows of ``mmmt_if_turns``: chat_id, turn, turn_id, user_text,
instructions_in_force ...), grouped by chat and ordered by turn; images as a map from chat id to
its data URLs. Generation goes turn by turn, because turn k's request holds the model's own
answers to turns 1..k-1: ``generation_plan`` makes every chat's requests for one turn (both
variants, N samples), the asset runs them in one batch, and ``history_answer`` picks what each
chat's history keeps before the next turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from benchwright import steps
from benchwright.mmmt_if import autorater, prompts
from benchwright.steps import Plan, limits_for, request_for
from benchwright.mmmt_if.instruction_following import INSTRUCTIONS, followed
from benchwright.llm import LLMResult
from benchwright.registry import RegistryEntry

__all__ = ["limits_for", "generation_plan", "generation_rows", "update_history", "histories",
           "score_rows", "autorater_plan", "autorater_rows"]


def generation_plan(turns_by_chat: Mapping[str, Sequence[Mapping]], turn: int, model: RegistryEntry,
                    image_urls: Mapping[str, list[str]], history: Mapping[str, list[str | None]], samples: int,
                    variants: Sequence[str] = prompts.VARIANTS) -> list[Plan]:
    """Requests for turn ``turn`` (1-based) of every chat that has it: each variant × ``samples``."""
    plan = []
    for chat_id, rows in turns_by_chat.items():
        if len(rows) < turn:
            continue
        current = rows[turn - 1]
        user_texts = [row["user_text"] for row in rows[:turn]]
        answers = history[chat_id][:turn - 1]
        for variant in variants:
            appended = list(current["instructions_in_force"]) if variant == prompts.APPENDED else None
            messages = prompts.turn_messages(user_texts, answers, image_urls.get(chat_id, []), model.vision, appended)
            for sample_index in range(samples):
                request = request_for(model, messages, prompts.CANDIDATE_PROMPT_VERSION,
                                      tag=f"{current['turn_id']}/{variant}", sample_index=sample_index)
                plan.append(Plan(current["turn_id"], request, variant, row={"chat_id": chat_id, "turn": turn}))
    return plan


def update_history(history: dict[str, list[str | None]], plan: Sequence[Plan],
                   results: Sequence[LLMResult]) -> None:
    """Append each planned chat's answer to this turn (from the standard variant) to its history."""
    samples: dict[str, list[tuple[int, str | None, str | None]]] = {}
    for planned, result in zip(plan, results, strict=True):
        if planned.variant == prompts.STANDARD:
            samples.setdefault(planned.row["chat_id"], []).append((planned.request.sample_index, result.text, result.error))
    for chat_id, chat_samples in samples.items():
        history[chat_id].append(prompts.history_answer(chat_samples))


def histories(generations: pd.DataFrame, turns_by_chat: Mapping[str, Sequence[Mapping]]) -> dict[str, list[str | None]]:
    """Each chat's history answers, rebuilt from stored standard-variant generations."""
    standard = generations[generations["variant"] == prompts.STANDARD]
    by_turn: dict[str, list[tuple[int, str | None, str | None]]] = {}
    for row in standard.itertuples(index=False):
        by_turn.setdefault(row.item_id, []).append(
            (int(row.sample_index), row.response if isinstance(row.response, str) else None,
             row.error if isinstance(row.error, str) else None))
    return {chat_id: [prompts.history_answer(by_turn.get(row["turn_id"], [])) for row in rows]
            for chat_id, rows in turns_by_chat.items()}


def generation_rows(model: RegistryEntry, plan: Sequence[Plan], results: Sequence[LLMResult]) -> pd.DataFrame:
    """Rows of ``generations``: item_id is the turn id, variant the MMMT-IF variant."""
    return steps.generation_rows(prompts.BENCHMARK, model, plan, results)


# --- programmatic scoring ----------------------------------------------------------------------------

TURN_SCORE_COLUMNS = ["model", "variant", "chat_id", "turn", "turn_id", "sample_index", "n_instructions",
                      "n_followed", "pif", "error"]
RESULT_COLUMNS = ["model", "variant", "chat_id", "turn", "turn_id", "sample_index", "instruction_id", "category",
                  "followed"]


def score_rows(generations: pd.DataFrame, turns: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(turn scores, per-instruction results) for stored generations of one or more models.

    ``generations``: model, item_id (= turn_id), variant, sample_index, response, error.
    ``turns``: turn_id, chat_id, turn, instructions_in_force. A failed call (error, or no text)
    has pif NULL and its error; it gets no per-instruction rows: it is not a failure to follow.
    A generation whose turn is unknown is skipped (the chats were reloaded without it).
    """
    by_turn = {row.turn_id: row for row in turns.itertuples(index=False)}
    scores, results = [], []
    for row in generations.itertuples(index=False):
        turn = by_turn.get(row.item_id)
        if turn is None:
            continue
        in_force = list(turn.instructions_in_force)
        base = {"model": row.model, "variant": row.variant, "chat_id": turn.chat_id, "turn": int(turn.turn),
                "turn_id": row.item_id, "sample_index": int(row.sample_index)}
        error = row.error if isinstance(row.error, str) else None
        if error is not None or not isinstance(row.response, str):
            scores.append({**base, "n_instructions": len(in_force), "n_followed": None, "pif": None,
                           "error": error or "no response text"})
            continue
        outcome = followed(row.response, in_force)
        n_followed = sum(outcome.values())
        scores.append({**base, "n_instructions": len(in_force), "n_followed": n_followed,
                       "pif": n_followed / len(in_force) if in_force else 1.0, "error": None})
        results.extend({**base, "instruction_id": i, "category": INSTRUCTIONS[i].category, "followed": ok}
                       for i, ok in outcome.items())
    score_df = pd.DataFrame(scores, columns=TURN_SCORE_COLUMNS)
    score_df["pif"] = score_df["pif"].astype("float64")
    score_df["n_followed"] = score_df["n_followed"].astype("Int64")
    return score_df, pd.DataFrame(results, columns=RESULT_COLUMNS)


# --- autorater ---------------------------------------------------------------------------------------

AUTORATER_COLUMNS = ["model", "judge", "variant", "chat_id", "turn", "turn_id", "sample_index", "raw_text",
                     *prompts.SCORE_COLUMNS, "parse_ok", "parse_problem", "error", "request_key", "simulated",
                     "source"]


def autorater_plan(turns_by_chat: Mapping[str, Sequence[Mapping]], generations: pd.DataFrame, judge: RegistryEntry,
                   image_urls: Mapping[str, list[str]], sample_index: int = 0) -> tuple[list[Plan], int]:
    """One judgment per (turn, variant) of sample ``sample_index`` that has an answer.

    Returns the plan and the number of responses skipped because their call failed.
    """
    history = histories(generations, turns_by_chat)
    answers = {(row.item_id, row.variant): row for row in generations.itertuples(index=False)
               if int(row.sample_index) == sample_index}
    plan, skipped = [], 0
    for chat_id, rows in turns_by_chat.items():
        urls = image_urls.get(chat_id, []) if judge.vision else None
        for index, current in enumerate(rows):
            for variant in prompts.VARIANTS:
                answer = answers.get((current["turn_id"], variant))
                if answer is None:
                    continue
                if isinstance(answer.error, str) or not isinstance(answer.response, str):
                    skipped += 1
                    continue
                user_texts = [row["user_text"] for row in rows[:index + 1]]
                user_texts[-1] = prompts.final_user_text(user_texts[-1], variant, list(current["instructions_in_force"]))
                messages = prompts.autorater_messages(user_texts, history[chat_id][:index], answer.response, urls)
                request = request_for(judge, messages, prompts.AUTORATER_PROMPT_VERSION,
                                      tag=f"{current['turn_id']}/{variant}")
                earlier = tuple(a for a in history[chat_id][:index] if isinstance(a, str))
                plan.append(Plan(current["turn_id"], request, variant, shown=(answer.response, *earlier),
                                 row={"chat_id": chat_id, "turn": int(current["turn"]), "sample_index": sample_index}))
    return plan, skipped


def autorater_rows(model: RegistryEntry, judge: RegistryEntry, plan: Sequence[Plan],
                   results: Sequence[LLMResult]) -> pd.DataFrame:
    rows = []
    for p, r in zip(plan, results, strict=True):
        parsed = autorater.parse_autorater(r.text, p.shown) if r.error is None else None
        scores = dict(zip(prompts.SCORE_COLUMNS, (parsed.scores[k] for k in prompts.AUTORATER_KEYS))) \
            if parsed is not None and parsed.ok else dict.fromkeys(prompts.SCORE_COLUMNS, np.nan)
        rows.append({
            "model": model.slug, "judge": judge.slug, "variant": p.variant, **p.row, "turn_id": p.item_id,
            "raw_text": r.text, **scores,
            # A failed call is not a judgment: parse_ok is false but it is no parse failure (error is set).
            "parse_ok": bool(parsed is not None and parsed.ok),
            "parse_problem": parsed.problem if parsed is not None else None,
            "error": r.error, "request_key": r.key, "simulated": model.simulated or judge.simulated,
            "source": "benchwright",
        })
    return pd.DataFrame(rows, columns=AUTORATER_COLUMNS)
