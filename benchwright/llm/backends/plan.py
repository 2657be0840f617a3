"""Plan mode (`dev.py plan`): what a call would cost, without making it.

Prompt tokens are counted by litellm's tokenizer for the model; completion tokens are expected
(`providers.expected_tokens_out`); the price is litellm's table. A placeholder answer of that length stands in,
so what is built on it (a judge reading it, the next turn of a chat) is planned at about the size it will have.
"""

from __future__ import annotations

from benchwright.llm.backends import Answer, Run
from benchwright.llm.litellm_setup import load_litellm
from benchwright.llm.providers import expected_tokens_out
from benchwright.llm.request import LLMRequest, sendable
from benchwright.llm.results import LLMResult

class Plan:
    timed = True

    def __init__(self) -> None:
        self.tokens_out: dict[str, int] = {}  # model -> expected completion tokens, looked up once per runner

    async def answer_all(self, misses: dict[str, LLMRequest], run: Run) -> dict[str, LLMResult]:
        litellm = load_litellm()
        results = {}
        for key, req in misses.items():  # no task each: nothing here waits
            tokens_in = int(litellm.token_counter(model=req.model, messages=sendable(req.messages)))
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


def price_usd(model: str, tokens_in: int, tokens_out: int) -> float | None:
    """USD for these tokens from litellm's price table; None when the model is not in it."""
    litellm = load_litellm()
    try:
        prompt, completion = litellm.cost_per_token(model=model, prompt_tokens=tokens_in,
                                                    completion_tokens=tokens_out)
    except Exception:  # not in the table (self-hosted, new): unknown, said so by the caller
        return None
    return float(prompt) + float(completion)
