"""Ctrl-C and `kill` stay interrupts where a library would turn them into something else (benchwright/interrupts.py),
and wait for the few renames that swap an export in (benchwright/exports.py).

The LLM runner: an interrupt stops its whole batch of calls (`runner._run_to_the_end_or_interrupt`) wherever in the
event loop it lands: Dagster's handler raises in whatever code runs at that moment, and in a task of its own
(litellm's logging worker, say) the exception ended that task alone while the calls went on. The warehouse: DuckDB
stops a query on an interrupt and reports a RuntimeError, so the step failed like any other and the job went on."""

import asyncio
import os
import signal

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


def test_a_query_duckdb_stopped_for_a_signal_is_raised_as_the_interrupt(raising_handler, tmp_path):
    """DuckDB 2.0, when its wait for a query notices a signal (not always: it depends on which thread the kernel
    gives the signal to), stops the query and raises RuntimeError("Query interrupted"), the handler's exception
    gone. That error is raised here as DuckDB raises it, inside a warehouse section; other errors pass unchanged."""
    from resources.warehouse import Warehouse

    warehouse = Warehouse(database=str(tmp_path / "warehouse.duckdb"))
    with pytest.raises(Interrupted) as raised:
        with warehouse.session():
            raise RuntimeError("Query interrupted")
    assert isinstance(raised.value.__context__, RuntimeError)
    with pytest.raises(RuntimeError, match="something else"):
        with warehouse.session():
            raise RuntimeError("something else")
    assert warehouse.query("SELECT 42 AS answer")["answer"].tolist() == [42]  # the file is free again


def test_an_export_s_swap_of_folders_finishes_before_an_interrupt_is_raised():
    import time

    from benchwright.interrupts import interrupts_deferred

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    renamed = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with interrupts_deferred():
                os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C between the renames (any thread may take it)
                time.sleep(0.05)
                renamed.append("both folders")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert renamed == ["both folders"]  # and the interrupt came right after
