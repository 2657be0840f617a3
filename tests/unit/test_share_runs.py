"""The main job's runs of a stage, shared between its own process and its pool (`orchestrate.share_runs`)."""

import threading
import time

import pytest

from scripts.orchestrate import share_runs


def _share(count: int, slots: int, ready: threading.Event, here_s: float = 0.0, pool_s: float = 0.0,
           fail: set[int] = frozenset(), where: dict[int, str] | None = None, reported: list[int] | None = None):
    where = {} if where is None else where
    reported = [] if reported is None else reported

    def runner(name: str, seconds: float):
        def run(index: int) -> dict:
            where[index] = name
            time.sleep(seconds)
            if index in fail:
                raise RuntimeError(f"run {index} broke")
            return {"index": index}
        return run

    def done(index: int, outcome: dict) -> None:
        assert outcome == {"index": index}
        assert threading.current_thread() is threading.main_thread()  # the summary is merged in one thread
        reported.append(index)

    share_runs(count, runner("here", here_s), runner("pool", pool_s), slots, ready, done)
    return where, reported


def test_while_the_pool_starts_this_process_takes_every_run():
    where, reported = _share(5, slots=2, ready=threading.Event())
    assert where == {index: "here" for index in range(5)}
    assert reported == [0, 1, 2, 3, 4]


def test_a_ready_pool_takes_runs_beside_this_process_and_the_outcomes_come_in_order():
    ready = threading.Event()
    ready.set()
    # This process's runs are slow: the pool's slots take the others meanwhile, ending them out of order.
    where, reported = _share(8, slots=1, ready=ready, here_s=0.3, pool_s=0.02)
    assert reported == list(range(8))
    assert "here" in where.values() and list(where.values()).count("pool") >= 3


def test_a_run_that_fails_stops_new_runs_and_its_error_is_raised_after_the_others_end():
    ready = threading.Event()
    ready.set()
    where: dict[int, str] = {}
    reported: list[int] = []
    with pytest.raises(RuntimeError, match="run 1 broke"):
        _share(20, slots=1, ready=ready, here_s=0.05, pool_s=0.2, fail={1}, where=where, reported=reported)
    # Run 1 failed (in whichever process took it): few runs were taken after it, they ended, and the run before
    # it was still recorded.
    assert len(where) < 10
    assert reported == [0]


def _interruptible(here):
    """share_runs with one pool slot whose runs last until `interrupt_pool` is called (or 20 s): what an interrupt
    of this process does to the pool's runs in flight. Returns (how long it took, whether the pool was interrupted)."""
    import signal

    ready = threading.Event()
    ready.set()
    stopped = threading.Event()

    def in_pool(index: int) -> dict:
        stopped.wait(20)
        return {"index": index}

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            share_runs(2, here, in_pool, 1, ready, lambda index, outcome: None, stopped.set)
    finally:
        signal.signal(signal.SIGINT, previous)
    return time.monotonic() - started, stopped.is_set()


def test_an_interrupt_of_this_process_s_run_is_passed_on_to_the_pool():
    def here(index: int) -> dict:
        time.sleep(0.2)  # the pool's slot has taken the other run meanwhile
        raise KeyboardInterrupt

    took, interrupted = _interruptible(here)
    assert interrupted and took < 10


def test_an_interrupt_while_this_process_waits_for_the_pool_is_passed_on():
    import os
    import signal

    def here(index: int) -> dict:
        # This process's run ends; Ctrl-C comes while it waits for the pool's run.
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        return {"index": index}

    took, interrupted = _interruptible(here)
    assert interrupted and took < 10
