"""Plan mode (`dev.py plan`): what a call would cost, without making it.

Prompt tokens are counted by litellm's tokenizer for the model; completion tokens are expected
(`providers.expected_tokens_out`); the price is litellm's table. A placeholder answer of that length stands in,
so what is built on it (a judge reading it, the next turn of a chat) is planned at about the size it will have.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache

from benchwright.llm.backends import Answer, Run
from benchwright.llm.litellm_setup import load_litellm
from benchwright.llm.providers import expected_tokens_out
from benchwright.llm.request import LLMRequest, _canonical, sendable
from benchwright.llm.results import LLMResult

# Pieces of requests counted so far (`prompt_tokens`): (model, kind, sha256 of the piece) -> its tokens.
# Module-wide, because a runner lives for one asset's call; emptied when it grows past this many (each entry is
# a digest and a count).
_PIECE_TOKENS: dict[tuple[str, str, bytes], int] = {}
_PIECE_TOKENS_MAX = 500_000


class Plan:
    timed = True

    def __init__(self) -> None:
        self.tokens_out: dict[str, int] = {}  # model -> expected completion tokens, looked up once per runner

    async def answer_all(self, misses: dict[str, LLMRequest], run: Run) -> dict[str, LLMResult]:
        results = {}
        for key, req in misses.items():  # no task each: nothing here waits
            tokens_in = prompt_tokens(req.model, req.messages)
            if req.model not in self.tokens_out:
                self.tokens_out[req.model] = expected_tokens_out(run.cache, req)
            tokens_out = self.tokens_out[req.model]
            cost = price_usd(req.model, tokens_in, tokens_out)
            # Our own placeholder holds no personal data: the redaction pass (a third of a planned call's time) is
            # skipped.
            result = run.success(key, req, Answer(" ".join(["planned"] * tokens_out), tokens_in, tokens_out, 0.0,
                                                  cost or 0.0, redact=False))
            run.tick(result.error is not None)
            results[key] = result
        return results


def prompt_tokens(model: str, messages: list[dict]) -> int:
    """litellm's `token_counter(model, messages)`, with each distinct text and picture counted once per model.

    litellm counts a list of messages as a fixed part (3: the reply's priming; tools would add more, and requests
    carry none) plus, for each message, a fixed part of its own (its role, name) plus its content: a text counted
    whole, or a list of parts counted one by one (texts, pictures). So the count of a request is the sum of
    counts of pieces that requests share: a chat's earlier turns in each later one, a judge's instructions, a
    picture shown in many requests. Each piece is known by its canonical form (`request._canonical`: a picture by
    the hash of its bytes, which is all litellm's image count reads), so a picture is read only when it was never
    counted. tests/unit/test_plan_tokens.py holds this equal to litellm's own count."""
    total = _counted(model, "request", [])
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            total += _counted(model, "message", [{**message, "content": []}])
            total += sum(_counted(model, "part", [{"role": "user", "content": [part]}]) for part in content)
        elif isinstance(content, str):
            total += _counted(model, "message", [{**message, "content": ""}])
            total += _counted(model, "part", [{"role": "user", "content": content}])
        else:
            total += _counted(model, "message", [message])
    return total


def _counted(model: str, kind: str, messages: list[dict]) -> int:
    """Tokens of one piece of a request (`prompt_tokens`): what litellm counts for `messages` (the piece alone in
    a message, or the message with its content emptied) less what it counts without the piece. Counted by litellm
    the first time the piece is seen, remembered by its digest."""
    if kind == "request":
        return _without(model, "request")
    piece = messages[0] if kind == "message" else messages[0]["content"]
    if isinstance(piece, str):  # a text, told apart from the JSON of a part by its first byte
        encoded = b"t" + piece.encode("utf-8", "surrogatepass")
    else:
        encoded = b"j" + json.dumps(_canonical(piece), sort_keys=True, ensure_ascii=False,
                             separators=(",", ":")).encode("utf-8", "surrogatepass")
    key = (model, kind, hashlib.sha256(encoded).digest())
    count = _PIECE_TOKENS.get(key)
    if count is None:
        count = int(load_litellm().token_counter(model=model, messages=sendable(messages))) - _without(model, kind)
        if len(_PIECE_TOKENS) >= _PIECE_TOKENS_MAX:
            _PIECE_TOKENS.clear()
        _PIECE_TOKENS[key] = count
    return count


@lru_cache(maxsize=None)
def _without(model: str, kind: str) -> int:
    """What litellm counts for a request of no message at all ("request", "message": a message piece adds what it
    counts beyond that) and for one message of no content ("part")."""
    empty = [] if kind in ("request", "message") else [{"role": "user", "content": ""}]
    return int(load_litellm().token_counter(model=model, messages=empty))


@lru_cache(maxsize=100_000)
def price_usd(model: str, tokens_in: int, tokens_out: int) -> float | None:
    """USD for these tokens from litellm's price table; None when the model is not in it. Remembered per
    (model, tokens): a plan prices many requests of the same size, and litellm's look-up is slow."""
    litellm = load_litellm()
    try:
        prompt, completion = litellm.cost_per_token(model=model, prompt_tokens=tokens_in,
                                                    completion_tokens=tokens_out)
    except Exception:  # not in the table (self-hosted, new): unknown, said so by the caller
        return None
    return float(prompt) + float(completion)
