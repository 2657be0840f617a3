"""Ctrl-C and `kill` stay interrupts where a library would turn them into something else (benchwright/interrupts.py).

The LLM runner: an interrupt stops its whole batch of calls (`runner._run_to_the_end_or_interrupt`) wherever in the
event loop it lands: Dagster's handler raises in whatever code runs at that moment, and in a task of its own
(litellm's logging worker, say) the exception ended that task alone while the calls went on. The warehouse: DuckDB
stops a query on an interrupt and reports a RuntimeError, so the step failed like any other and the job went on."""

import asyncio
import os
import signal
import threading

import pytest

from benchwright.llm.runner import _run_coroutine


class Interrupted(Exception):
    """What the handler in place raises (Dagster's is DagsterExecutionInterruptedError)."""


@pytest.fixture
def raising_handler():
    def handler(_signum, _frame):
        raise Interrupted()

    previous = {signum: signal.signal(signum, handler) for signum in (signal.SIGINT, signal.SIGTERM)}
    yield handler
    for signum, old in previous.items():
        signal.signal(signum, old)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_landing_in_a_task_of_its_own_stops_the_batch_and_is_raised(raising_handler, signum):
    calls_ended = []

    async def batch():
        async def bystander():  # a library's background task: the signal's handler runs in it
            os.kill(os.getpid(), signum)
            await asyncio.sleep(0)

        keep = asyncio.get_running_loop().create_task(bystander())
        for _ in range(100):  # the calls, 2 s of them
            await asyncio.sleep(0.02)
            calls_ended.append(1)
        return keep

    with pytest.raises(Interrupted):
        _run_coroutine(batch)
    assert len(calls_ended) < 10  # cancelled at once, not run to its end
    assert signal.getsignal(signum) is raising_handler  # the caller's handler is back


def test_a_batch_without_interrupt_returns_its_result_and_leaves_the_handlers(raising_handler):
    async def batch():
        await asyncio.sleep(0)
        return 42

    assert _run_coroutine(batch) == 42
    assert signal.getsignal(signal.SIGINT) is raising_handler
    assert signal.getsignal(signal.SIGTERM) is raising_handler


def test_an_ignored_signal_stays_ignored():
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        async def batch():
            os.kill(os.getpid(), signal.SIGTERM)  # nothing happens
            await asyncio.sleep(0.01)
            return "done"

        assert _run_coroutine(batch) == "done"
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_an_interrupt_during_a_warehouse_query_is_raised_as_the_interrupt(raising_handler, tmp_path):
    from resources.warehouse import Warehouse

    warehouse = Warehouse(database=str(tmp_path / "warehouse.duckdb"))
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(Interrupted):  # DuckDB alone raises RuntimeError("Query interrupted")
            warehouse.query("SELECT sum(hash(a.range * b.range)) FROM range(200000) a, range(200000) b")
    finally:
        timer.cancel()
    assert warehouse.query("SELECT 42 AS answer")["answer"].tolist() == [42]  # the file is free again
