"""Deterministic offline models, served for model strings ``sim/<name>`` (docs/ARCHITECTURE.md#llm-layer).

``complete`` answers a request in its prompt's real output format, from a simple but genuine heuristic.
Which responder answers is chosen by the request's prompt version: each benchmark names its simulated back end
in its declaration (``benchwright.benchmarks``), a module whose ``RESPONDERS`` maps its prompt versions to
responders (``benchwright/<benchmark>/simulated.py``). A prompt version no back end knows, or a responder
that returns None (the prompt is not one of its kinds after all), gets the shared fallback: an ordinary-prose
answer (``writer.candidate_answer``). A caller that has only the messages (a stand-in provider over HTTP in the
tests) passes no version: each back end's ``version_of`` may then recognise its own prompts.

The same arguments always give the same text: all randomness comes from ``random.Random`` seeded by a sha256
of the model name, messages, params and sample index (never the prompt version). The model name only seeds;
behaviour comes from ``params``:

- candidates: ``skill`` (0-1, default 0.7), ``verbosity`` (default 1.0);
- judges: ``position_bias`` (0-1, default 0), ``malformed_rate`` (0-1, default 0); some benchmarks' judges also
  ``leniency`` and ``self_preference`` (default 0: what the judge adds for an answer of its own family,
  ``house_style``; each back end's docstring says which);
- both: ``family`` (none by default): a writer's answers end with its family's mark, a judge recognises its own.
Other params (temperature, max_tokens, ...) are ignored. A registered setting that is not a number in its range
(``request.SETTING_RANGES``) refuses its registry entry. Outputs are simulations, not model text.

This package is the shared machinery only (seeding, ``SimRequest``, words, vision helpers, the registry of
responders, the fallback); it imports no benchmark.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchwright import benchmarks

from .request import SimRequest
from .writer import candidate_answer

__all__ = ["SimCompletion", "SimRequest", "Responder", "complete", "register", "responder_for",
           "version_by_markers"]

# A responder answers a request; None means "not one of my prompts": the fallback answers instead.
Responder = Callable[[SimRequest], "str | None"]
# A prompt kind a back end tells by its own markers: (matches, its prompt version, responder).
MarkedKind = tuple[Callable[[SimRequest], bool], str, Callable[[SimRequest], str]]


@dataclass
class SimCompletion:
    text: str
    tokens_in: int
    tokens_out: int


# Responders registered by hand (tests, a back end outside any declaration), checked before the declared ones.
REGISTERED: dict[str, Responder] = {}


def register(prompt_version: str, respond: Responder) -> None:
    """Answer ``prompt_version`` with ``respond`` (replacing any responder of that version)."""
    REGISTERED[prompt_version] = respond


def _back_ends() -> list:
    """The simulated back-end modules the declared benchmarks name, in declaration order."""
    return _modules(benchmarks.declared())


@functools.cache
def _modules(declared: tuple[benchmarks.Benchmark, ...]) -> list:
    return [importlib.import_module(b.simulated) for b in declared if b.simulated]


@functools.cache
def _responders(declared: tuple[benchmarks.Benchmark, ...]) -> dict[str, Responder]:
    found: dict[str, Responder] = {}
    for module in _modules(declared):
        for version, respond in getattr(module, "RESPONDERS", {}).items():
            found.setdefault(version, respond)
    return found


def _declared_responders() -> dict[str, Responder]:
    return _responders(benchmarks.declared())


def responder_for(prompt_version: str) -> Responder | None:
    """The responder of a prompt version: registered by hand first, then the declared back ends'."""
    return REGISTERED.get(prompt_version) or _declared_responders().get(prompt_version)


def _recognised_version(request: SimRequest) -> str:
    for module in _back_ends():
        version_of = getattr(module, "version_of", None)
        version = version_of(request) if version_of else None
        if version:
            return version
    return ""


def version_by_markers(kinds: Sequence[MarkedKind], request: SimRequest) -> str | None:
    """The prompt version of the first kind whose markers the request carries; None when none does."""
    return next((version for matches, version, _respond in kinds if matches(request)), None)


# Rough token accounting: one token per word plus a flat cost per image.
_TOKENS_PER_IMAGE = 85


def complete(
    model: str, messages: list[dict], params: dict, sample_index: int = 0, *, prompt_version: str = ""
) -> SimCompletion:
    """Answer a chat request as the simulated model ``model`` would, by its prompt version's responder."""
    request = SimRequest.build(model, messages, params, sample_index)
    respond = responder_for(prompt_version or _recognised_version(request))
    text = respond(request) if respond else None
    if text is None:
        text = candidate_answer(request)
    text = text or "I have nothing to add."
    tokens_in = len(request.all_text.split()) + _TOKENS_PER_IMAGE * len(request.image_urls)
    return SimCompletion(text=text, tokens_in=tokens_in, tokens_out=len(text.split()))
