"""The main job's progress bars (benchwright/progress_bars.py): shown only when the main job asked for them and
stdout is a terminal; otherwise nothing is drawn and lines print as before. An LLM step's bar counts its
requests as the runner answers them."""

from __future__ import annotations

import contextlib
import io

from benchwright import progress_bars
from benchwright.llm.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@contextlib.contextmanager
def on_terminal():
    """A terminal as stdout, in the test's body (pytest puts its capture back after fixtures are set up)."""
    screen = Terminal()
    with contextlib.redirect_stdout(screen):
        yield screen


def test_no_bar_and_plain_lines_when_stdout_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setenv(progress_bars.BARS_VARIABLE, "1")  # asked for, but stdout is pytest's capture: no terminal
    with progress_bars.bar(10, "level 1/3", "run") as shown:
        shown.update(3)
        progress_bars.write("materializing creation_items")
    assert capsys.readouterr().out == "materializing creation_items\n"


def test_no_bar_in_a_terminal_unless_the_main_job_asked(monkeypatch):
    monkeypatch.delenv(progress_bars.BARS_VARIABLE, raising=False)
    with on_terminal() as terminal, progress_bars.bar(10, "level 1/3", "run") as shown:
        shown.update(10)
    assert terminal.getvalue() == ""


def test_a_level_bar_counts_runs_with_an_eta_and_lines_print_above_it(monkeypatch):
    monkeypatch.setenv(progress_bars.BARS_VARIABLE, "1")
    with on_terminal() as terminal, progress_bars.bar(4, "level 2/7", "run", delay=0) as shown:
        shown.update(1)
        progress_bars.write("materializing creation_generations [sim-strong]")
        shown.update(3)
        assert shown.n == 4
    drawn = terminal.getvalue()  # redrawn at most twice a second: the first count and the one after a line
    assert "level 2/7" in drawn and "0/4" in drawn and "1/4" in drawn and "run/s" in drawn
    assert "00:00<00:00" in drawn  # tqdm's elapsed<remaining: the ETA
    assert "materializing creation_generations [sim-strong]\n" in drawn


def test_a_bar_waits_its_delay_before_it_is_drawn(monkeypatch):
    monkeypatch.setenv(progress_bars.BARS_VARIABLE, "1")
    with on_terminal() as terminal, progress_bars.bar(3, "level 1/9", "run") as shown:  # the default delay
        shown.update(3)
    assert progress_bars.DELAY_S > 0 and terminal.getvalue() == ""  # done within it: nothing drawn


def test_an_llm_steps_bar_starts_at_its_cache_hits_and_ticks_per_answer(monkeypatch):
    monkeypatch.setenv(progress_bars.BARS_VARIABLE, "1")
    lines: list[str] = []
    tracker = Progress(lines.append, total=10, hits=6)
    with on_terminal() as terminal, \
            progress_bars.bar(10, "creation_generations sim-strong", "call", initial=6, delay=0) as tracker.bar:
        for error in (False, True, False, False):
            tracker.tick(error)
        assert tracker.bar.n == 10
    assert "creation_generations sim-strong" in terminal.getvalue() and "6/10" in terminal.getvalue()
    assert (tracker.done, tracker.errors, lines) == (10, 1, [])  # the log lines are Progress's own, unchanged
