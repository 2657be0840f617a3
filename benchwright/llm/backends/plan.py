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

# What `prompt_tokens` counted so far, module-wide because a runner lives for one asset's call: pieces of requests
# (model, kind, sha256 of the piece) and texts' chunks (model, chunk: at most a few kB) -> tokens. Each is emptied
# when it grows past _CACHE_MAX entries.
_PIECE_TOKENS: dict[tuple[str, str, bytes], int] = {}
_CHUNK_TOKENS: dict[tuple[str, str], int] = {}
_CACHE_MAX = 200_000


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
    """litellm's `token_counter(model, messages)`, with each distinct piece of the requests counted once per model.

    litellm counts a list of messages as a fixed part (3: the reply's priming; tools would add more, and requests
    carry none) plus, for each message, a fixed part of its own (its role, name) plus its content: a text, or a
    list of parts counted one by one (texts, pictures). So the count of a request is the sum of counts of pieces
    that requests share: a chat's earlier turns in each later one, a judge's instructions, a picture shown in many
    requests. A picture is known by the hash of its bytes (`request._canonical`), which is all litellm's image
    count reads, so it is read only when it was never counted. A text is counted as litellm counts it, in
    chunks of a fixed number of characters from its start (`_text_tokens`): texts that begin alike (a judge's
    prompt holding a chat's history, which grows turn by turn) share their first chunks' counts.
    tests/unit/test_plan_tokens.py holds the sum equal to litellm's own count."""
    total = _without(model, "request")
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            total += _counted(model, "message", {**message, "content": []})
            total += sum(_counted(model, "part", part) if _text_of(part) is None
                         else _text_tokens(model, _text_of(part)) for part in content)
        elif isinstance(content, str):
            total += _counted(model, "message", {**message, "content": ""}) + _text_tokens(model, content)
        else:
            total += _counted(model, "message", message)
    return total


def _text_of(part) -> str | None:
    """The text of a part litellm counts as its text alone (a plain string, or a "text" part); None for others."""
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
        return part["text"]
    return None


def _counted(model: str, kind: str, piece) -> int:
    """Tokens a message's fixed part ("message": the message with its content emptied) or a content part that is
    not a text ("part": a picture) adds to a request: what litellm counts with it less what it counts without it.
    Counted by litellm the first time the piece is seen, remembered by its digest."""
    encoded = json.dumps(_canonical(piece), sort_keys=True, ensure_ascii=False,
                         separators=(",", ":")).encode("utf-8", "surrogatepass")
    key = (model, kind, hashlib.sha256(encoded).digest())
    count = _PIECE_TOKENS.get(key)
    if count is None:
        alone = [piece] if kind == "message" else [{"role": "user", "content": [piece]}]
        count = int(load_litellm().token_counter(model=model, messages=sendable(alone))) - _without(model, kind)
        _remember(_PIECE_TOKENS, key, count)
    return count


def _text_tokens(model: str, text: str) -> int:
    """Tokens a text adds to a request, as litellm counts it: for a model it counts with tiktoken, the sum of its
    counts of the text's chunks of `TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS` characters (litellm.litellm_core_utils.
    token_counter), each chunk counted once per model; otherwise (another tokenizer, or a text so long that
    litellm samples it) the text whole, remembered by its digest."""
    from litellm.constants import TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS, TOKEN_COUNTER_MAX_EXACT_CHARS

    litellm = load_litellm()
    if not _counted_in_chunks(model) or len(text) > TOKEN_COUNTER_MAX_EXACT_CHARS:
        key = (model, "text", hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest())
        if key not in _PIECE_TOKENS:
            _remember(_PIECE_TOKENS, key, int(litellm.token_counter(model=model, text=text)))
        return _PIECE_TOKENS[key]
    total = 0
    for start in range(0, len(text), TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS):
        chunk = text[start:start + TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS]
        count = _CHUNK_TOKENS.get((model, chunk))
        if count is None:
            count = int(litellm.token_counter(model=model, text=chunk))  # one chunk: litellm counts it whole
            _remember(_CHUNK_TOKENS, (model, chunk), count)
        total += count
    return total


@lru_cache(maxsize=None)
def _counted_in_chunks(model: str) -> bool:
    """Whether litellm counts this model's texts with tiktoken (in chunks), not a Hugging Face tokenizer."""
    from litellm.utils import select_tokenizer

    load_litellm()
    return select_tokenizer(model)["type"] == "openai_tokenizer"


def _remember(cache: dict, key, count: int) -> None:
    if len(cache) >= _CACHE_MAX:
        cache.clear()
    cache[key] = count


@lru_cache(maxsize=None)
def _without(model: str, kind: str) -> int:
    """What litellm counts for a request of no message at all ("request", "message": a message's fixed part adds
    what it counts beyond that) and for one message of an empty list of parts ("part")."""
    empty = [] if kind in ("request", "message") else [{"role": "user", "content": []}]
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
