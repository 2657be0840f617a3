"""The `sim/...` models: answered in-process by `benchwright.simulate`, through the runner's cache and statistics
like any model. No claim, lease or retry: the simulator is free and deterministic."""

from __future__ import annotations

import time

from benchwright.llm.backends import Answer, Run
from benchwright.llm.request import LLMRequest, sendable
from benchwright.llm.results import LLMResult


class Simulated:
    timed = True

    async def answer_all(self, misses: dict[str, LLMRequest], run: Run) -> dict[str, LLMResult]:
        from benchwright.simulate import complete  # lazy: loaded by the first run with a sim/ model

        results = {}
        # One after another, no task each: nothing here waits, so tasks would only add their cost per request.
        for key, req in misses.items():
            t0 = time.perf_counter()
            try:
                sim = complete(req.model, sendable(req.messages), dict(req.params), req.sample_index,
                               prompt_version=req.prompt_version)
            except Exception as err:  # the simulator is deterministic: retrying cannot help
                result = run.failure(key, req, err, simulated=True)
            else:
                result = run.success(key, req, Answer(sim.text, sim.tokens_in, sim.tokens_out,
                                                      (time.perf_counter() - t0) * 1000, 0.0, simulated=True))
            run.tick(result.error is not None)
            results[key] = result
        return results
