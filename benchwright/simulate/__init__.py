"""Deterministic offline models, served for model strings ``sim/<name>`` (DESIGN §4).

``complete`` recognises which prompt it was given (see ``PROMPT_KINDS``) and answers in that
prompt's real output format, from a simple but genuine heuristic. The same arguments always give
the same text: all randomness comes from ``random.Random`` seeded by a sha256 of the model name,
messages, params and sample index. The model name only seeds; behaviour comes from ``params``:

- candidates: ``skill`` (0-1, default 0.7), ``verbosity`` (default 1.0);
- judges: ``position_bias`` (0-1, default 0), ``malformed_rate`` (0-1, default 0).
Other params (temperature, max_tokens, ...) are ignored. Outputs are simulations, not model text.

Other benchmarks add their prompt kinds with ``register_prompt_kind``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchwright.creation.prompts import ANSWER_A_TAG, DESCRIBE_MARKER, FOCUS_ANSWER_LEAD, PAIRWISE_VERDICT_LINE

from .judges import pairwise_judgment, vfs_judgment
from .request import SimRequest
from .writer import candidate_answer, contents_to_observe, image_description

__all__ = ["SimCompletion", "SimRequest", "PROMPT_KINDS", "complete", "register_prompt_kind"]


@dataclass
class SimCompletion:
    text: str
    tokens_in: int
    tokens_out: int


@dataclass(frozen=True)
class PromptKind:
    name: str
    matches: Callable[[SimRequest], bool]
    respond: Callable[[SimRequest], str]


def _is_pairwise_judge(request: SimRequest) -> bool:
    return (
        PAIRWISE_VERDICT_LINE in request.all_text
        and f"<{ANSWER_A_TAG}>" in request.last_user_text
    )


def _is_vfs_judge(request: SimRequest) -> bool:
    return "Visual Factuality Score: <x>/10" in request.all_text


def _is_describe(request: SimRequest) -> bool:
    return DESCRIBE_MARKER in request.last_user_text


def _is_focus(request: SimRequest) -> bool:
    return request.last_user_text.rstrip().endswith(FOCUS_ANSWER_LEAD)


# Checked in order; the first match answers. Anything unmatched gets a candidate answer.
PROMPT_KINDS: list[PromptKind] = [
    PromptKind("creation_pairwise_judge", _is_pairwise_judge, pairwise_judgment),
    PromptKind("creation_vfs_judge", _is_vfs_judge, vfs_judgment),
    PromptKind("creation_describe", _is_describe, image_description),
    PromptKind("creation_focus", _is_focus, contents_to_observe),
]
FALLBACK_KIND = PromptKind("candidate_answer", lambda request: True, candidate_answer)


def register_prompt_kind(
    name: str,
    matches: Callable[[SimRequest], bool],
    respond: Callable[[SimRequest], str],
) -> None:
    """Add (or replace, by name) a prompt kind; it is checked before the fallback answer."""
    PROMPT_KINDS[:] = [kind for kind in PROMPT_KINDS if kind.name != name]
    PROMPT_KINDS.append(PromptKind(name, matches, respond))


def prompt_kind(request: SimRequest) -> PromptKind:
    return next((kind for kind in PROMPT_KINDS if kind.matches(request)), FALLBACK_KIND)


# Rough token accounting: one token per word plus a flat cost per image.
_TOKENS_PER_IMAGE = 85


def complete(
    model: str, messages: list[dict], params: dict, sample_index: int = 0
) -> SimCompletion:
    """Answer a chat request as the simulated model ``model`` would."""
    request = SimRequest.build(model, messages, params, sample_index)
    text = prompt_kind(request).respond(request) or "I have nothing to add."
    tokens_in = len(request.all_text.split()) + _TOKENS_PER_IMAGE * len(request.image_urls)
    return SimCompletion(text=text, tokens_in=tokens_in, tokens_out=len(text.split()))


# URS (METHODS §3): the intent-aware judge and the candidates' answers to plain user questions.
from . import urs as _urs  # noqa: E402  (registered after register_prompt_kind exists)

register_prompt_kind("urs_judge", _urs.is_judge_prompt, _urs.judgment)
register_prompt_kind("urs_candidate", _urs.is_candidate_prompt, _urs.candidate_answer)

# MMMT-IF (METHODS §2): the autorater's score dict and the candidates' instruction-shaped chat answers.
from . import mmmt_if as _mmmt_if  # noqa: E402  (registered after register_prompt_kind exists)

register_prompt_kind("mmmt_if_autorater", _mmmt_if.is_autorater_prompt, _mmmt_if.autorater_judgment)
register_prompt_kind("mmmt_if_candidate", _mmmt_if.is_candidate_prompt, _mmmt_if.candidate_answer)

# GAP (METHODS §4.5): the scoring judge's single number in [0, 1].
from . import gap as _gap  # noqa: E402  (registered after register_prompt_kind exists)

register_prompt_kind("gap_score_judge", _gap.is_score_prompt, _gap.score_judgment)
register_prompt_kind("gap_tainted_answer", _gap.is_taint_prompt, _gap.tainted_answer)
register_prompt_kind("gap_candidate", _gap.is_candidate_prompt, _gap.candidate_answer)
