"""LLM progress is a few log lines per batch (each is a row in Dagster's event log), while the counts stay whole
in the batch's statistics (what an asset puts in its materialization metadata)."""

from benchwright.llm import progress as progress_module
from benchwright.llm.request import LLMRequest
from benchwright.llm.runner import LLMRunner


def _requests(count: int) -> list[LLMRequest]:
    return [LLMRequest(model="sim/steady", messages=[{"role": "user", "content": f"Name prime number {i}."}])
            for i in range(count)]


def test_a_thousand_requests_log_at_most_three_lines_and_the_stats_keep_every_count(tmp_path):
    runner = LLMRunner(str(tmp_path / "llm.sqlite"))
    runner.run(_requests(200))  # some answers already cached
    lines: list[str] = []
    results, stats = runner.run(_requests(1000), progress=lines.append)
    assert 1 <= len(lines) <= 3, lines
    assert lines[-1] == "LLM requests: 1000/1000 done (200 cache hits, 0 errors)"
    assert (stats.api_calls, stats.cache_hits, stats.errors) == (800, 200, 0)
    assert stats.as_metadata()["api_calls"] == 800 and len(results) == 1000


def test_a_batch_with_nothing_to_call_logs_one_line(tmp_path):
    runner = LLMRunner(str(tmp_path / "llm.sqlite"))
    runner.run(_requests(50))
    lines: list[str] = []
    runner.run(_requests(50), progress=lines.append)
    assert lines == ["LLM requests: 50/50 done (50 cache hits, 0 errors)"]


def test_a_long_batch_logs_at_doubling_intervals(monkeypatch):
    clock = iter(range(0, 10**9, 36))  # each call of the clock 36 s later: 1,000 requests in 10 hours
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: next(clock))
    lines: list[str] = []
    progress = progress_module.Progress(lines.append, total=1000, hits=0)
    for _ in range(1000):
        progress.tick(error=False)
    # After 1, 2, 4 ... 512 minutes: ten lines for ten hours, where a line per minute would be 600.
    assert 5 <= len(lines) <= 12, lines
