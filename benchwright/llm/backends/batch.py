"""The batch back end: a model's misses sent through its provider's batch API (about half the price, answers
within 24 h) instead of live calls.

One batch per model and endpoint. Misses already in an open batch of the cache's journal (a run killed while
waiting, or another run sending the same requests) wait for that batch; the rest go in new ones. Under the model
and endpoint's lock (`batch_lock`), from the look at the journal to the new batch's row: the batch is journalled as
an intent under a tag before its upload, the tag goes to the provider in the batch's metadata, and the row takes
the batch's id once it is created; an intent left by a killed run is looked up by its tag (`_settle_intent`).
Every line that comes back lands in the cache or the errors, as a live call's answer would. The file format is
`benchwright.llm.batch`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from pathlib import Path
from typing import Any

from benchwright.llm.backends import Answer, Run
from benchwright.llm.backends.live import parse
from benchwright.llm.batch import ENDPOINT, FINAL_STATUSES, TAG_KEY, BatchLine, batch_files, batch_lock, result_lines
from benchwright.llm.cache import JournalledBatch
from benchwright.llm.errors import BatchLineError, describe, is_retryable
from benchwright.llm.litellm_setup import endpoint_kwargs, load_litellm
from benchwright.llm.request import LLMRequest
from benchwright.llm.results import LLMResult

log = logging.getLogger("benchwright.llm")

# Pages of the provider's batch list (100 each, newest first) searched for a batch journalled by its tag only.
_BATCH_LIST_PAGES = 50
# A batch's progress line after 1, 2, 4 ... minutes of polling, as the runner's progress does.
_NOTE_FIRST_AFTER_S = 60.0


class Batch:
    timed = False  # a batch's lines have no latency of their own

    async def answer_all(self, misses: dict[str, LLMRequest], run: Run) -> dict[str, LLMResult]:
        groups: dict[tuple[str, str], dict[str, LLMRequest]] = {}
        for key, req in misses.items():
            groups.setdefault((req.model, req.api_base or ""), {})[key] = req
        results: dict[str, LLMResult] = {}
        for outcome in await asyncio.gather(*(_call_batch(run, model, api_base, group)
                                              for (model, api_base), group in groups.items())):
            results.update(outcome)
        return results


async def _call_batch(run: Run, model: str, api_base: str, misses: dict[str, LLMRequest]) -> dict[str, LLMResult]:
    """Answer one model's misses at one endpoint through its provider's batch API (the module's docstring)."""
    litellm = load_litellm()
    try:
        provider_model, provider = litellm.get_llm_provider(model)[:2]
    except Exception as err:  # an unknown provider: nothing can be sent
        failures = {k: run.failure(k, r, err, attempts=1, simulated=False) for k, r in misses.items()}
        for _ in failures:
            run.tick(error=True)
        return failures
    endpoint = {"custom_llm_provider": provider, **endpoint_kwargs(model, api_base or None, {})}
    results: dict[str, LLMResult] = {}
    waiting = dict(misses)
    jobs: list[tuple[JournalledBatch, dict[str, LLMRequest]]] = []

    def fail(chunk: dict[str, LLMRequest], err: BaseException) -> None:
        for key, req in chunk.items():
            results[key] = run.failure(key, req, err, attempts=1, simulated=False)
            run.tick(error=True)

    async with batch_lock(Path(run.cache.path).parent, model, api_base):
        for journalled in run.cache.open_batches(model, api_base):
            if journalled.creating:
                try:
                    journalled = await _settle_intent(run, litellm, endpoint, journalled)
                except Exception as err:
                    if is_retryable(err):  # not known whether it was created: not sent again, asked next run
                        fail({k: waiting.pop(k) for k in journalled.prompt_versions if k in waiting},
                             BatchLineError(f"batch {journalled.batch_id} was journalled by a run that ended "
                                            "before it learnt the batch's id, and the provider's batches could "
                                            f"not be listed to find it; the next run looks again: {describe(err)}"))
                        continue
                    # The provider lists no batches (litellm cannot, for some): waiting would never end. Sent
                    # anew, said so, as it may pay twice for a batch created before its run was killed.
                    run.cache.set_batch_status(journalled.batch_id, "not listed", final=True)
                    log.warning("LLM batch %s for model %s cannot be looked up (%s); its requests are sent again",
                                journalled.batch_id, model, type(err).__name__)
                    run.note(f"LLM batch {journalled.batch_id} for {model}: journalled by a run that ended "
                             "before it learnt the batch's id, and the provider's batches cannot be listed; "
                             "its requests are sent again (a batch it did create is paid twice)")
                    continue
                if journalled is None:  # never created: its requests are sent anew below
                    continue
            mine = {k: waiting.pop(k) for k in journalled.prompt_versions if k in waiting}
            if mine:
                run.note(f"LLM batch {journalled.batch_id} for {model}: resumed, {len(mine)} of its "
                         f"{len(journalled.prompt_versions)} requests wanted here (status {journalled.status})")
                jobs.append((journalled, mine))
        for keys, content in batch_files(waiting, provider_model):
            chunk = {k: waiting[k] for k in keys}
            versions = {k: r.prompt_version for k, r in chunk.items()}
            tag = f"bw-{secrets.token_hex(12)}"
            # Journalled before the upload: a run killed from here on leaves its successor the tag to look for.
            run.cache.put_batch_intent(tag, model, api_base, versions)
            try:
                # The upload and the download keep litellm's own timeout (10 min): a file can be large.
                uploaded = await litellm.acreate_file(file=("batch.jsonl", content, "application/jsonl"),
                                                      purpose="batch", **endpoint)
            except Exception as err:  # no file, so no batch: the intent ends, the next run sends anew
                run.cache.set_batch_status(tag, "not created", final=True)
                log.warning("LLM batch file for model %s not uploaded: %s", model, type(err).__name__)
                fail(chunk, err)
                continue
            try:
                created = await litellm.acreate_batch(
                    completion_window="24h", endpoint=ENDPOINT, input_file_id=uploaded.id,
                    metadata={TAG_KEY: tag}, timeout=run.timeout_s, **endpoint)
            except Exception as err:  # not retried: a lost answer may still have made a batch; the intent
                log.warning("LLM batch for model %s not created: %s", model, type(err).__name__)  # stays
                fail(chunk, BatchLineError(f"batch {tag} not created, or its answer was lost; the next run "
                                           f"looks for it by its tag before sending again: {describe(err)}"))
                continue
            run.cache.confirm_batch(tag, created.id, uploaded.id, created.status)
            run.note(f"LLM batch {created.id} for {model}: {len(chunk)} requests sent")
            jobs.append((JournalledBatch(created.id, model, api_base, created.status, time.time(), versions),
                         chunk))
    for outcome in await asyncio.gather(*(_await_batch(run, litellm, endpoint, j, wanted)
                                          for j, wanted in jobs)):
        results.update(outcome)
    return results


async def _settle_intent(run: Run, litellm: Any, endpoint: dict, intent: JournalledBatch) -> JournalledBatch | None:
    """A batch journalled before its create by a run that did not learn its id (killed, or the create's
    answer lost): the provider's batch carrying its tag, now journalled under its id; None when the provider
    has none (never created; the intent ends). Raises when the provider's batches cannot be listed."""
    after: str | None = None
    for _ in range(_BATCH_LIST_PAGES):
        page = await litellm.alist_batches(after=after, limit=100, timeout=run.timeout_s, max_retries=0,
                                           **endpoint)
        listed = list(getattr(page, "data", None) or [])
        for batch in listed:
            if (getattr(batch, "metadata", None) or {}).get(TAG_KEY) == intent.batch_id:
                run.cache.confirm_batch(intent.batch_id, batch.id, batch.input_file_id, batch.status)
                run.note(f"LLM batch {batch.id} for {intent.model}: found by its tag {intent.batch_id}, "
                         "created by a run that ended before it learnt its id")
                return dataclasses.replace(intent, batch_id=batch.id, status=batch.status)
        # Listed newest first: a page reaching back before the intent (an hour for clocks apart) ends the search.
        oldest = min((getattr(batch, "created_at", 0) or 0 for batch in listed), default=0)
        if not listed or not getattr(page, "has_more", False) or oldest < intent.created_at - 3600:
            break
        after = listed[-1].id
    run.cache.set_batch_status(intent.batch_id, "not created", final=True)
    run.note(f"LLM batch {intent.batch_id} for {intent.model}: journalled by a run that ended before creating "
             "it; its requests are sent again")
    return None


async def _await_batch(run: Run, litellm: Any, endpoint: dict, journalled: JournalledBatch,
                       wanted: dict[str, LLMRequest]) -> dict[str, LLMResult]:
    """Poll a journalled batch until it ends, then land its lines. A batch that cannot be polled or read
    stays open in the journal (its requests are errors for this run), so the next run collects it."""
    batch_id, delay, failures = journalled.batch_id, run.batch_poll_s, 0
    started, next_note_s = time.monotonic(), _NOTE_FIRST_AFTER_S
    while True:
        try:
            batch = await litellm.aretrieve_batch(
                batch_id=batch_id, timeout=run.timeout_s,
                litellm_metadata={"batch_ignore_default_logging": True},  # else litellm reads the output per poll
                **endpoint)
        except Exception as err:
            failures += 1
            if getattr(err, "status_code", None) == 404:  # gone (deleted, or another account's): ask again
                run.cache.set_batch_status(batch_id, "not found", final=True)
                return _batch_unreadable(run, journalled, wanted, err, gone=True)
            if not is_retryable(err) or failures > run.max_retries:
                return _batch_unreadable(run, journalled, wanted, err)
            log.info("polling LLM batch %s failed (%s); trying again", batch_id, type(err).__name__)
        else:
            failures = 0
            if batch.status in FINAL_STATUSES:
                break
            if batch.status != journalled.status:
                run.cache.set_batch_status(batch_id, batch.status)
                journalled.status = batch.status
            if time.monotonic() - started >= next_note_s:  # 1, 2, 4 ... minutes, as the runner's progress does
                next_note_s *= 2
                counts = getattr(batch, "request_counts", None)
                run.note(f"LLM batch {batch_id}: {batch.status}, {getattr(counts, 'completed', '?')}/"
                         f"{getattr(counts, 'total', '?')} done")
        await asyncio.sleep(delay)
        delay = min(delay * 2, run.batch_poll_max_s)
    lines: list[BatchLine] = []
    try:
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                content = await litellm.afile_content(file_id=file_id, **endpoint)
                lines += result_lines(content.content)
    except Exception as err:
        return _batch_unreadable(run, journalled, wanted, err)
    results = _land_batch(run, journalled, batch, lines, wanted)
    run.flush()  # its answers committed before the batch is final: a final batch is never fetched again
    run.cache.set_batch_status(batch_id, batch.status, final=True)
    return results


def _land_batch(run: Run, journalled: JournalledBatch, batch: Any, lines: list[BatchLine],
                wanted: dict[str, LLMRequest]) -> dict[str, LLMResult]:
    """Every request of a finished batch into the cache (answers) or the errors (the rest), as a live call
    would have put it; results for the requests this run wants. Requests of the batch that this run does
    not want (another step's, journalled by a killed run) land too, for whoever asks next."""
    litellm = load_litellm()
    results: dict[str, LLMResult] = {}
    seen: set[str] = set()
    answered = failed = 0

    def request(key: str) -> LLMRequest:
        return wanted.get(key) or LLMRequest(model=journalled.model, messages=[],
                                             prompt_version=journalled.prompt_versions[key])

    def done(key: str, result: LLMResult) -> None:
        if key in wanted:
            results[key] = result
            run.tick(result.error is not None)

    for line in lines:
        if line.key not in journalled.prompt_versions or line.key in seen:
            continue  # not a request of this batch, or said twice: the first line counts
        seen.add(line.key)
        req = request(line.key)
        if line.body is None:
            done(line.key, run.failure(line.key, req, BatchLineError(line.error), attempts=1, simulated=False))
            failed += 1
            continue
        try:
            response = litellm.ModelResponse(**line.body)
            text, tokens_in, tokens_out = parse(response)
        except Exception as err:  # NoContent, or a body that is no completion: an error, as live
            done(line.key, run.failure(line.key, req, err, attempts=1, simulated=False))
            failed += 1
            continue
        cost = _batch_cost(req.model, response)
        done(line.key, run.success(line.key, req, Answer(text, tokens_in, tokens_out, 0.0, cost)))
        answered += 1
    reason = (f"batch {batch.status}: not answered before the batch ended; asked again next run"
              if batch.status != "completed" else "missing from the completed batch's output and error files")
    errors = getattr(batch, "errors", None)
    if batch.status == "failed" and getattr(errors, "data", None):
        reason += f" ({getattr(errors.data[0], 'message', '')})"
    for key in journalled.prompt_versions:
        if key not in seen:
            done(key, run.failure(key, request(key), BatchLineError(reason), attempts=1, simulated=False))
            failed += 1
    run.note(f"LLM batch {journalled.batch_id}: {batch.status}, {answered} answered, {failed} without "
             "an answer")
    return results


def _batch_unreadable(run: Run, journalled: JournalledBatch, wanted: dict[str, LLMRequest], err: BaseException,
                      gone: bool = False) -> dict[str, LLMResult]:
    """This run's requests of a batch that could not be polled or read: errors. The batch stays open for
    the next run to collect, unless the provider does not know it (`gone`): then the next run asks anew."""
    then = "the next run asks again" if gone else "the next run collects it"
    log.warning("LLM batch %s could not be read (%s); %s", journalled.batch_id, type(err).__name__, then)
    run.note(f"LLM batch {journalled.batch_id}: could not be read ({type(err).__name__}); {then}")
    error = BatchLineError(f"batch {journalled.batch_id} could not be read, {then}: {describe(err)}")
    results = {}
    for key, req in wanted.items():
        results[key] = run.failure(key, req, error, attempts=1, simulated=False)
        run.tick(error=True)
    return results


def _batch_cost(model: str, response: Any) -> float:
    """USD of one batch answer: litellm's batch rates for the model where its table lists them, else half
    its live price (litellm's own rule for batches); 0 for a model not in the table."""
    from litellm.cost_calculator import batch_cost_calculator

    try:
        prompt, completion = batch_cost_calculator(usage=response.usage, model=model)
    except Exception:  # not in the table, or no usage: unknown, not an error
        return 0.0
    return float(prompt or 0.0) + float(completion or 0.0)
