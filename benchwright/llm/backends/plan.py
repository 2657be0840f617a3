"""Plan mode (`dev.py plan`): what a call would cost, without making it.

Prompt tokens are counted by litellm's tokenizer for the model; completion tokens are expected
(`providers.expected_tokens_out`); the price is litellm's table. A placeholder answer of that length stands in,
so what is built on it (a judge reading it, the next turn of a chat) is planned at about the size it will have.
"""

from __future__ import annotations

import hashlib
import json
import queue
from functools import lru_cache

from benchwright.llm.backends import Answer, Run
from benchwright.llm.litellm_setup import load_litellm
from benchwright.llm.providers import expected_tokens_out
from benchwright.llm.request import LLMRequest, _canonical, sendable
from benchwright.llm.results import LLMResult

# What `prompt_tokens` counted so far, module-wide because a runner lives for one asset's call: pieces of requests
# (model, kind, sha256 of the piece) and texts' chunks (model, chunk: at most a few kB) -> tokens. Each is emptied
# when it grows past _CACHE_MAX entries.
_COUNTER: "CountingProcess | None" = None  # while a plan counts in a process of its own (`counting_elsewhere`)
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
            if req.model not in self.tokens_out:
                self.tokens_out[req.model] = expected_tokens_out(run.cache, req)
            tokens_out = self.tokens_out[req.model]
            if _COUNTER is not None:  # counted and priced in the counting process; the copy's rows get them later
                _COUNTER.submit(key, req.model, req.messages, tokens_out)
                tokens_in, cost = 0, 0.0
            else:
                tokens_in = prompt_tokens(req.model, req.messages)
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
    return _without(model, "request") + sum(_piece_tokens(model, kind, digest, payload())
                                            for kind, digest, payload in pieces(messages))


def pieces(messages: list[dict]) -> list[tuple[str, bytes, object]]:
    """A request's pieces as `prompt_tokens` counts them: (kind, digest, a function returning the piece as
    litellm is given it). Kinds: "message" (a message with its content emptied), "part" (a content part that is
    not a text: a picture, read only when the function is called) and "text"."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            out.append(_piece("message", {**message, "content": []}))
            out += [_piece("part", part) if _text_of(part) is None else _piece("text", _text_of(part))
                    for part in content]
        elif isinstance(content, str):
            out += [_piece("message", {**message, "content": ""}), _piece("text", content)]
        else:
            out.append(_piece("message", message))
    return out


def _piece(kind: str, piece) -> tuple[str, bytes, object]:
    if kind == "text":
        return kind, hashlib.sha256(b"t" + piece.encode("utf-8", "surrogatepass")).digest(), lambda: piece
    encoded = json.dumps(_canonical(piece), sort_keys=True, ensure_ascii=False,
                         separators=(",", ":")).encode("utf-8", "surrogatepass")
    return kind, hashlib.sha256(b"j" + encoded).digest(), lambda: sendable([piece])[0]


def _text_of(part) -> str | None:
    """The text of a part litellm counts as its text alone (a plain string, or a "text" part); None for others."""
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
        return part["text"]
    return None


def _piece_tokens(model: str, kind: str, digest: bytes, piece) -> int:
    """Tokens one piece adds to a request (`pieces`): for a text, `_text_tokens`; for a message's fixed part or a
    part that is not a text, what litellm counts with it less what it counts without it. Counted the first time
    the piece is seen, remembered by its digest."""
    key = (model, kind, digest)
    count = _PIECE_TOKENS.get(key)
    if count is None:
        if kind == "text":
            count = _text_tokens(model, piece)
        else:
            alone = [piece] if kind == "message" else [{"role": "user", "content": [piece]}]
            count = int(load_litellm().token_counter(model=model, messages=alone)) - _without(model, kind)
        _remember(_PIECE_TOKENS, key, count)
    return count


def _text_tokens(model: str, text: str) -> int:
    """Tokens a text adds to a request, as litellm counts it: for a model it counts with tiktoken, the sum of its
    counts of the text's chunks of `TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS` characters (litellm.litellm_core_utils.
    token_counter), each chunk counted once per model; otherwise (another tokenizer, or a text so long that
    litellm samples it) the text whole."""
    from litellm.constants import TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS, TOKEN_COUNTER_MAX_EXACT_CHARS

    litellm = load_litellm()
    if not _counted_in_chunks(model) or len(text) > TOKEN_COUNTER_MAX_EXACT_CHARS:
        return int(litellm.token_counter(model=model, text=text))
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


class CountingProcess:
    """The plan's counts and prices in a process of its own (`dev.py plan`, scripts/plan.py): importing litellm costs
    seconds of CPU, and tokenizing more, which another core does while the plan runs its assets. The plan back end
    hands each call's pieces over (`submit`; a piece's content only the first time), and at the end `results`
    gives every call's prompt tokens and dollars, the models litellm cannot price and, for registry entries, the
    API keys their provider needs and does not find. The process imports litellm; the plan's own does not need to."""

    def __init__(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # a fresh interpreter: the plan's threads and files stay here
        self._inbox, self._outbox = context.Queue(), context.Queue()
        self._process = context.Process(target=_count_in_process, args=(self._inbox, self._outbox),
                                        name="plan counts", daemon=True)
        self._process.start()
        self._sent: set[bytes] = set()

    def submit(self, key: str, model: str, messages: list[dict], tokens_out: int) -> None:
        sent = []
        for kind, digest, piece in pieces(messages):
            sent.append((kind, digest, None if digest in self._sent else piece()))
            self._sent.add(digest)
        self._inbox.put(("call", key, model, tokens_out, sent))

    def results(self, entries: list[tuple[str, str | None, str | None]]) -> dict:
        """{"calls": request key -> (prompt tokens, dollars), "unpriced": models called that litellm has no price
        for, "keys": (model, api_base, provider) of each of `entries` whose model was called -> (the environment
        variables missing for it, its provider)}."""
        self._inbox.put(("done", entries))
        while True:
            try:
                kind, answer = self._outbox.get(timeout=1.0)
                break
            except queue.Empty:
                if not self._process.is_alive():
                    raise RuntimeError("the plan's counting process ended without its counts") from None
        if kind == "error":
            raise RuntimeError(f"the plan's counting process failed:\n{answer}")
        return answer

    def close(self) -> None:
        # Ended at once: it holds nothing to save, and letting it wind litellm down took the plan a second.
        if self._process.is_alive():
            self._process.terminate()
        self._process.join(timeout=5)
        for channel in (self._inbox, self._outbox):
            channel.close()
            channel.cancel_join_thread()


def counting_elsewhere(counter: CountingProcess | None) -> None:
    """Plan back ends of this process submit their calls to `counter` (None: they count them themselves)."""
    global _COUNTER
    _COUNTER = counter


def _count_in_process(inbox, outbox) -> None:
    """The counting process (`CountingProcess`): litellm imported first, while the plan starts; then every call
    counted as it comes, each piece's content kept by its digest. Ctrl-C reaches it with the plan: the plan ends
    it (`close`), so it does not stop by itself with a traceback."""
    import signal
    import traceback

    from benchwright.llm.providers import missing_keys, provider_of

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    try:
        load_litellm()
        contents: dict[bytes, object] = {}
        calls: dict[str, tuple[int, float]] = {}
        models: set[str] = set()
        while True:
            kind, *message = inbox.get()
            if kind == "call":
                key, model, tokens_out, sent = message
                tokens = _without(model, "request")
                for piece_kind, digest, content in sent:
                    if content is not None:
                        contents[digest] = content
                    tokens += _piece_tokens(model, piece_kind, digest, contents[digest])
                calls[key] = (tokens, price_usd(model, tokens, tokens_out) or 0.0)
                models.add(model)
            elif kind == "done":
                entries = message[0]
                keys = {}
                for model, api_base, provider in entries:
                    if model in models:
                        missing = missing_keys(model, api_base)
                        keys[(model, api_base, provider)] = (missing, provider_of(model, api_base, provider)
                                                             if missing else None)
                outbox.put(("counts", {"calls": calls, "keys": keys,
                                       "unpriced": sorted(m for m in models if price_usd(m, 1, 1) is None)}))
    except Exception:
        outbox.put(("error", traceback.format_exc()))
