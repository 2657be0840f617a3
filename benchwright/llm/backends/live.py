"""The live back end: one `litellm.acompletion` per attempt. The runner claims the request, paces it, takes its
provider's lease and retries (`Run.provider_call`); this module only makes the call and reads its answer, here or,
when this process's CPU holds a large run back, in the call helper process (`call_helper.py`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from benchwright.llm import call_helper
from benchwright.llm.backends import Answer, Run
from benchwright.llm.cache import has_text
from benchwright.llm.errors import Malformed, NoContent
from benchwright.llm.litellm_setup import endpoint_kwargs, load_litellm
from benchwright.llm.request import LLMRequest, sendable
from benchwright.llm.results import LLMResult


class Live:
    timed = True

    async def answer_all(self, misses: dict[str, LLMRequest], run: Run) -> dict[str, LLMResult]:
        watch = call_helper.Watch(len(misses))

        async def attempt(req: LLMRequest, timeout_s: float, sent: Callable[[], None]) -> Answer:
            if watch.start_now():
                why = f" (this one was busy {watch.busy:.0%} of the last second)" if watch.mode == "auto" else ""
                run.note(f"{watch.left} calls left: sharing them with a helper process{why}")
            payload = call_payload(req)  # pictures read here: the helper has no warehouse
            helper = watch.helper
            if helper is not None and helper.takes_next(watch.here_in_flight):
                return await helper.attempt(payload, timeout_s, sent)
            watch.here_in_flight += 1
            try:
                return await call_litellm(payload, timeout_s, sent)
            finally:
                watch.here_in_flight -= 1

        async def one(key: str, req: LLMRequest) -> LLMResult:
            result = await run.provider_call(key, req, attempt)
            watch.left -= 1
            run.tick(result.error is not None)
            return result

        results = await asyncio.gather(*(one(key, req) for key, req in misses.items()))
        return dict(zip(misses, results))


def call_payload(req: LLMRequest) -> dict[str, Any]:
    """What `call_litellm` sends for a request: its model, its messages with their pictures, its parameters and
    endpoint."""
    return {**req.params, **endpoint_kwargs(req.model, req.api_base, req.params), "model": req.model,
            "messages": sendable(req.messages)}


async def call_litellm(payload: dict[str, Any], timeout_s: float, sent: Callable[[], None]) -> Answer:
    """One attempt: `litellm.acompletion` and its answer read (in this process or the call helper's)."""
    litellm = load_litellm()
    t0 = time.perf_counter()
    response = await litellm.acompletion(
        **payload,
        timeout=timeout_s,  # litellm's bounds each HTTP phase; the runner's bounds the whole call
        num_retries=0,  # the runner retries, with backoff and Retry-After
        logger_fn=_on_send(sent),  # the lease's rpm/tpm start: when the request is sent
    )
    text, tokens_in, tokens_out = parse(response)
    return Answer(text, tokens_in, tokens_out, (time.perf_counter() - t0) * 1000, cost(litellm, response))


def _on_send(sent: Callable[[], None]) -> Callable[[dict], None]:
    """litellm's `logger_fn` for one attempt: its pre-call event comes after the client is set up and right before
    the request goes to the HTTP client, which is when the provider starts counting it."""

    def stamp(details: dict) -> None:
        if details.get("log_event_type") == "pre_api_call":
            sent()

    return stamp


def parse(response: Any) -> tuple[str, int, int]:
    """(text, prompt tokens, completion tokens) of a chat completion; Malformed or NoContent when it has none."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise Malformed("response has no choices")
    message = getattr(choices[0], "message", None)
    if message is None:
        raise Malformed("response choice has no message")
    usage = getattr(response, "usage", None)
    tokens_in = getattr(usage, "prompt_tokens", 0) or 0
    tokens_out = getattr(usage, "completion_tokens", 0) or 0
    if not has_text(message.content):
        reason = getattr(choices[0], "finish_reason", None)
        raise NoContent(f"provider returned no content (finish_reason={reason})")
    return message.content, tokens_in, tokens_out


def cost(litellm: Any, response: Any) -> float:
    """USD from litellm's price table. litellm prices each response while building it and keeps the
    result in ``_hidden_params["response_cost"]`` (None when the model is not in its table); pricing
    it a second time would repeat the model lookup, which for an unlisted model is the slow path."""
    hidden = getattr(response, "_hidden_params", None) or {}
    if "response_cost" in hidden:
        return float(hidden["response_cost"] or 0.0)
    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # model missing from the price table (self-hosted, new): unknown, not an error
        return 0.0


if __name__ == "__main__":  # the call helper's process (call_helper.HELPER_MODULE)
    call_helper.serve(call_litellm)
