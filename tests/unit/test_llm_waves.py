"""What keeps a run's calls in flight busy: the runner keeps the objects that exist before its calls out of the garbage
collector's passes while the calls run (`runner._old_objects_frozen`) and gives them back afterwards, even when a call
raises; and it spaces the starts of a model's calls once their latency is known (`runner._StartSpacing`)."""

import gc

import pytest

import benchwright.simulate
from benchwright.llm import LLMRequest, LLMRunner


def _request(text: str) -> LLMRequest:
    return LLMRequest(model="sim/writer", messages=[{"role": "user", "content": text}])


@pytest.fixture
def frozen_during_calls(monkeypatch):
    """The freeze count the simulator sees at each call."""
    seen: list[int] = []
    complete = benchwright.simulate.complete

    def watched(*args, **kwargs):
        seen.append(gc.get_freeze_count())
        return complete(*args, **kwargs)

    monkeypatch.setattr(benchwright.simulate, "complete", watched)
    return seen


def test_the_heap_is_frozen_while_the_calls_run_and_given_back_after(tmp_path, frozen_during_calls):
    assert gc.get_freeze_count() == 0
    before = len(gc.get_objects())
    with LLMRunner(str(tmp_path / "cache.sqlite")) as runner:
        _, stats = runner.run([_request("one"), _request("two")])
    assert stats.api_calls == 2
    assert len(frozen_during_calls) == 2 and min(frozen_during_calls) >= before // 2  # the heap, not a handful
    assert gc.get_freeze_count() == 0  # given back: collected as usual between runs


def test_a_failing_run_gives_the_heap_back(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the back end broke")

    monkeypatch.setattr("benchwright.llm.runner.LLMRunner._call_all", broken)
    with LLMRunner(str(tmp_path / "cache.sqlite")) as runner, pytest.raises(RuntimeError, match="broke"):
        runner.run([_request("three")])
    assert gc.get_freeze_count() == 0


def test_a_process_that_froze_objects_itself_keeps_its_freeze(tmp_path, frozen_during_calls, monkeypatch):
    from benchwright.llm import runner

    monkeypatch.setattr(runner, "_FROZEN_BEFORE", {})  # this process as one whose first run comes after the freeze
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with LLMRunner(str(tmp_path / "cache.sqlite")) as runner:
            runner.run([_request("four")])
        # Neither unfrozen nor frozen again by the run: the count only loses the frozen objects freed meanwhile
        # (a freeze by the runner would add every object made since, an unfreeze empty it).
        assert 0 < gc.get_freeze_count() <= frozen
        assert len(frozen_during_calls) == 1 and 0 < frozen_during_calls[0] <= frozen
    finally:
        gc.unfreeze()


def test_the_freeze_count_is_read_once_per_process(tmp_path, monkeypatch):
    # It walks every frozen object: in a process forked from a frozen forkserver, ≈ 30 ms per run.
    from benchwright.llm import runner

    reads = []
    monkeypatch.setattr(runner, "_FROZEN_BEFORE", {})
    monkeypatch.setattr(runner.gc, "get_freeze_count", lambda: reads.append(1) or 0)
    with LLMRunner(str(tmp_path / "cache.sqlite")) as llm:
        for text in ("five", "six", "seven"):
            llm.run([_request(text)])
    assert len(reads) == 1


def test_starts_go_at_once_until_a_latency_is_known_then_spaced_below_what_the_calls_in_flight_allow(monkeypatch):
    import asyncio

    from benchwright.llm import runner

    clock = [100.0]
    slept: list[float] = []

    async def sleep(seconds):
        slept.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(runner.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(runner.asyncio, "sleep", sleep)
    spacing = runner._StartSpacing(concurrency=4)

    async def starts(n):
        for _ in range(n):
            await spacing.wait()

    asyncio.run(starts(4))
    assert slept == []  # the first wave: no latency seen yet
    spacing.observe(2.0)
    asyncio.run(starts(3))
    gap = runner._StartSpacing.SHARE * 2.0 / 4
    assert slept == pytest.approx([gap, gap])  # the first goes now, the next two each a gap later
    assert gap < 2.0 / 4  # faster than 4 calls in flight of 2 s can start: the spacing never sets the rate
    # One slow call (a long answer, a provider's hiccup) must not hold the next starts back: the shortest latency
    # answered is what spaces them, so the gap never exceeds what the fastest calls allow.
    spacing.observe(60.0)
    slept.clear()
    asyncio.run(starts(2))
    assert max(slept) <= gap + 1e-9
    spacing.observe(1.0)
    assert spacing.latency_s == 1.0
