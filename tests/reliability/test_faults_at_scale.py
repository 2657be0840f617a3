"""20 % injected faults over 240 generation calls, through the Dagster asset, litellm and HTTP.

Every item must end as exactly one row, with a response or a recorded error; the requests the server
saw must be explained exactly by the calls and their retries; a re-run calls only the failed items.
"""

import sqlite3

import dagster as dg
import pytest

from benchwright.llm import LLMRequest, LLMRunner, ResponseCache
from resources.llm import LLMClient
from tests.reliability._support import http_entry, items_run_config, write_items
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline import materialize, resources_for, write_registry

ITEMS = 240
MAX_RETRIES = 1  # low on purpose: with 20 % faults about 4 % of items exhaust their retries
# Generous next to the client's own CPU time per call, so only injected faults time out. (A call's
# timeout also runs while it waits for the event loop: litellm's first call in a process blocks the
# loop for ~0.5-1 s, and with a 1 s timeout some attempts then fail before they are even sent.)
TIMEOUT_S = 2.0
FAULT_KINDS = ("429", "500", "hang", "malformed", "truncated", "slow")


def sqlite_rows(path: str, sql: str) -> list[tuple]:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _generations(resources):
    return resources["warehouse"].query(
        "SELECT item_id, response, error, request_key FROM generations WHERE model = 'http-writer'")


def _metadata(result) -> dict:
    [event] = result.get_asset_materialization_events()
    return {key: value.value for key, value in event.materialization.metadata.items()}


@pytest.fixture(scope="module", autouse=True)
def _warm_litellm(tmp_path_factory):
    # Pay litellm's one-off first-call setup here, not inside the measured run's timeouts.
    with OpenAIServer(max_lifetime_s=20) as srv:
        request = LLMRequest(model="openai/warm-up", messages=[{"role": "user", "content": "hi"}], api_base=srv.base_url)
        LLMRunner(str(tmp_path_factory.mktemp("warm") / "llm.sqlite"), timeout_s=10).run([request])


def test_every_item_ends_answered_or_failed_and_requests_are_explained_by_retries(tmp_path):
    items_path = write_items(tmp_path / "dataset", ITEMS)
    # The slow body (4 pieces, 0.9 s apart) is always cut by the 2 s timeout: every fault is a failed attempt.
    with OpenAIServer(fault_rate=0.2, fault_kinds=FAULT_KINDS, seed=7, retry_after="1", hang_s=10,
                      slow_chunk_s=0.9, max_lifetime_s=120) as srv:
        write_registry(tmp_path, {"http-writer": http_entry(srv.base_url, "http-writer", "candidate",
                                                            max_concurrency=32)}, {})
        resources = resources_for(tmp_path)
        resources["llm"] = LLMClient(cache_path=resources["llm"].cache_path, timeout_s=TIMEOUT_S,
                                     max_retries=MAX_RETRIES)
        with dg.instance_for_test() as instance:
            instance.add_dynamic_partitions("models", ["http-writer"])
            assert materialize(["creation_items"], instance, resources,
                               run_config=items_run_config(items_path)).success
            result = materialize(["creation_generations"], instance, resources, partition_key="http-writer")
            assert result.success
            meta = _metadata(result)

            rows = _generations(resources)
            # One row per item, never two; each has a response or an error, never both, never neither.
            assert len(rows) == ITEMS and rows["item_id"].nunique() == ITEMS
            assert (rows["response"].notna() ^ rows["error"].notna()).all()
            answered, failed = rows[rows["response"].notna()], rows[rows["error"].notna()]
            assert 1 <= len(failed) < 0.15 * ITEMS, "20 % faults with one retry must fail a few items, not many"
            assert meta["api_calls"] == ITEMS and meta["errors"] == len(failed)

            # Exact accounting. Each request either answered an item or was a served fault ...
            served = srv.count(model="http-writer")
            assert sum(srv.faults_served.values()) >= 0.1 * served  # the faults really were injected
            assert served == len(answered) + sum(srv.faults_served.values())
            # ... and the requests are the items' first attempts plus the runner's retries.
            assert served == ITEMS + meta["retries"]
            # The journal holds every failed item once, with all its attempts used.
            journal = ResponseCache(resources["llm"].cache_path)
            try:
                assert journal.count_responses() == len(answered)
                assert journal.count_errors() == len(failed)
                for key in failed["request_key"]:
                    assert len(journal.errors_for(key)) == 1
                    assert journal.get(key) is None  # a failure is never cached as an answer
            finally:
                journal.close()
            attempts = sqlite_rows(resources["llm"].cache_path, "SELECT DISTINCT attempts FROM errors")
            assert attempts == [(MAX_RETRIES + 1,)]

            # A re-run (faults gone) calls exactly the failed items, and still writes one row per item.
            srv.fault_rate = 0.0
            srv.reset_counts()
            again = materialize(["creation_generations"], instance, resources, partition_key="http-writer")
            assert again.success
            assert srv.count(model="http-writer") == len(failed)
            assert _metadata(again)["cache_hits"] == len(answered)
            rows = _generations(resources)
            assert len(rows) == ITEMS and rows["item_id"].nunique() == ITEMS
            assert rows["error"].isna().all() and rows["response"].notna().all()
