"""A second process for a run's live calls, when this process's CPU is what holds them back.

litellm spends ≈ 7 ms of CPU on each call here (building and logging it, the OpenAI SDK, pricing), so one event loop
tops out near 140 calls/s: a fast self-hosted model with 64 calls in flight at 50 ms asks for ten times that. A run
whose process is busy for most of a second while it has many calls left starts one helper process (`Watch`), and
from then on some of its attempts are made there (`CallHelper.takes_next`), the rest here. Only the attempt itself
moves: `litellm.acompletion` and reading its answer (`backends/live.call_litellm`, the same code in both processes).
Everything around it stays in the run's process: the cache and its claims, the journal, the model's pacing, the
provider's leases, budgets, retries and the timeout, so the limits hold as they do without a helper.

The helper (`python -m benchwright.llm.backends.live`, which runs `serve` with that function) reads requests from
its stdin and writes answers and failures to its stdout as length-prefixed pickles. It lives as long as the process
that started it (one per process, reused by its later runs), and ends when its stdin closes, which happens when that
process ends however it ends (even killed): its calls in flight are cancelled then, so nothing is sent for a process
that is gone. It ignores Ctrl-C: the run's process decides, and cancels the attempts it no longer waits for.

`BENCHWRIGHT_CALL_HELPER`: `auto` (default, as above), `off`, or `on` (start it at the first live call of any
run: for tests).
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
import time
from typing import Any, Awaitable, BinaryIO, Callable

from benchwright.llm.errors import FailedInHelper, describe, is_retryable, retry_after_s

_FRAME = struct.Struct("!I")
HELPER_MODULE = "benchwright.llm.backends.live"  # `python -m` it: `serve(call_litellm)`

# auto: a helper when a run has at least this many live calls left, and its process was busy for at least
# BUSY_SHARE of a WATCH_S window of them: below that a helper costs more (its start, ≈ 2 s of CPU) than it saves.
MIN_CALLS_LEFT = 200
BUSY_SHARE = 0.75
WATCH_S = 1.0
# Attempts go to the helper while it has fewer in flight than this many times this process's own, plus one: an
# attempt here also pays for everything around it (claims, pacing, journal), so the helper takes the larger share.
HELPER_SHARE = 1.5


def mode() -> str:
    value = os.environ.get("BENCHWRIGHT_CALL_HELPER", "auto").strip().lower() or "auto"
    if value not in ("auto", "on", "off"):
        raise ValueError(f"BENCHWRIGHT_CALL_HELPER must be auto, on or off, not {value!r}")
    return value


def _frame(message: Any) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _FRAME.pack(len(data)) + data


def _write(stream: BinaryIO, frame: bytes) -> None:
    stream.write(frame)
    stream.flush()


def _read(stream: BinaryIO) -> Any | None:
    """The next message, or None at the end of the stream."""
    header = stream.read(_FRAME.size)
    if len(header) < _FRAME.size:
        return None
    (size,) = _FRAME.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


# -- the run's process -----------------------------------------------------------------------------------------
class CallHelper:
    """The parent's end of one helper process: attempts sent, their answers or failures routed back to the event
    loop awaiting each. Two threads move the bytes, so neither side's event loop ever blocks on the pipe."""

    def __init__(self) -> None:
        from benchwright.paths import ROOT

        path = os.pathsep.join(part for part in (str(ROOT), os.environ.get("PYTHONPATH", "")) if part)
        self.environment = _environment()
        self.process = subprocess.Popen([sys.executable, "-m", HELPER_MODULE],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env={**os.environ, "PYTHONPATH": path})
        self.ready = threading.Event()  # the helper has imported litellm and waits for attempts
        self.ended = threading.Event()
        self.settled = 0  # attempts the helper answered or failed
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._waiting: dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Future, Callable[[], None]]] = {}
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._send_loop, name="call-helper-send", daemon=True).start()
        threading.Thread(target=self._receive_loop, name="call-helper-receive", daemon=True).start()

    @property
    def in_flight(self) -> int:
        """Attempts sent and not yet settled."""
        return len(self._waiting)

    def usable(self) -> bool:
        return self.ready.is_set() and not self.ended.is_set()

    def follow_environment(self) -> None:
        """Give the helper this process's environment if it changed since (keys, endpoints: litellm reads them at
        each call); the attempts sent after it see it."""
        now = _environment()
        if now != self.environment:
            self.environment = now
            self._outbox.put(_frame(("environment", dict(os.environ))))

    def takes_next(self, here_in_flight: int) -> bool:
        """Whether the next attempt goes to the helper, given this process's own attempts in flight."""
        return self.usable() and self.in_flight < HELPER_SHARE * here_in_flight + 1

    async def attempt(self, payload: dict, timeout_s: float, sent: Callable[[], None]) -> Any:
        """`live.call_litellm(payload, timeout_s, sent)` in the helper: its `Answer`. Cancelled (the run's timeout, an
        interrupt), it cancels the helper's call too."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        call_id = next(self._ids)
        frame = _frame(("call", call_id, payload, timeout_s))  # here: what cannot be sent fails this attempt alone
        with self._lock:
            self._waiting[call_id] = (loop, future, sent)
        self._outbox.put(frame)
        try:
            return await future
        finally:
            with self._lock:
                self._waiting.pop(call_id, None)
            if not future.done() or future.cancelled():
                self._outbox.put(_frame(("cancel", call_id)))

    def close(self) -> None:
        """End the helper: its stdin closed, it cancels what it has in flight and exits."""
        self._outbox.put(None)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _send_loop(self) -> None:
        stdin = self.process.stdin
        try:
            while (frame := self._outbox.get()) is not None:
                _write(stdin, frame)
        except (BrokenPipeError, OSError, ValueError):
            pass  # the helper is gone: the receiving thread fails what waits on it
        finally:
            try:
                stdin.close()
            except OSError:
                pass

    def _receive_loop(self) -> None:
        try:
            while (message := _read(self.process.stdout)) is not None:
                if message[0] == "ready":
                    self.ready.set()
                    continue
                kind, call_id = message[0], message[1]
                with self._lock:
                    waiting = self._waiting.get(call_id)
                if waiting is None:  # cancelled here meanwhile
                    continue
                loop, future, sent = waiting
                if kind == "sent":
                    _in_loop(loop, sent)
                elif kind == "done":
                    self.settled += 1
                    _in_loop(loop, _settle, future, message[2], None)
                else:
                    self.settled += 1
                    _in_loop(loop, _settle, future, None, FailedInHelper(**message[2]))
        finally:
            self.ended.set()
            with self._lock:
                left = list(self._waiting.values())
            for loop, future, _ in left:  # retried by the runner's rule, here once the helper is seen gone
                _in_loop(loop, _settle, future, None, FailedInHelper(
                    "ConnectionError: the call helper process ended before answering", None, None, True))


def _in_loop(loop: asyncio.AbstractEventLoop, callback: Callable, *args: Any) -> None:
    try:
        loop.call_soon_threadsafe(callback, *args)
    except RuntimeError:  # its run ended meanwhile, its loop closed: nobody waits for this any more
        pass


def _settle(future: asyncio.Future, answer: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(answer)
    else:
        future.set_exception(error)


def _environment() -> int:
    return hash(frozenset(os.environ.items()))


_HELPERS: dict[int, CallHelper] = {}  # process id -> its helper (a forked child must not use its parent's)
_START_LOCK = threading.Lock()


def current() -> CallHelper | None:
    """This process's helper, if one was started and still runs."""
    helper = _HELPERS.get(os.getpid())
    return None if helper is None or helper.ended.is_set() else helper


def start() -> CallHelper:
    """This process's helper, started now unless one runs."""
    with _START_LOCK:
        helper = current()
        if helper is None:
            helper = _HELPERS[os.getpid()] = CallHelper()
        return helper


class Watch:
    """One run's use of the helper: the one running when the run began, or the one it starts as its calls go, when
    `mode()` is on, or auto with many calls left while this process was busy for most of the last WATCH_S."""

    def __init__(self, calls: int, clocks: tuple[Callable[[], float], Callable[[], float]] = (time.monotonic,
                                                                                              time.process_time)):
        self.mode = mode()
        self.left = calls
        self.here_in_flight = 0  # the run's attempts in flight in this process (the helper's share is set against it)
        self.helper = None if self.mode == "off" else current()
        if self.helper is not None:
            self.helper.follow_environment()
        self.busy = 0.0  # this process's CPU ÷ wall time over the last window looked at (auto)
        self._clocks = clocks
        self._since = (clocks[0](), clocks[1]())

    def start_now(self) -> bool:
        """Whether to start the helper at this attempt (True once at most)."""
        if self.helper is not None or self.mode == "off" or (os.cpu_count() or 1) < 2:
            return False
        if self.mode == "auto":
            now, cpu = self._clocks[0](), self._clocks[1]()
            if now - self._since[0] < WATCH_S:
                return False
            self.busy = (cpu - self._since[1]) / (now - self._since[0])
            self._since = (now, cpu)
            if self.busy < BUSY_SHARE or self.left < MIN_CALLS_LEFT:
                return False
        self.helper = start()
        return True


# -- the helper process ----------------------------------------------------------------------------------------
def serve(call_litellm: Callable[[dict, float, Callable[[], None]], Awaitable[Any]]) -> None:
    """The helper process's life: attempts read from stdin, made with `call_litellm`, settled on stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the run's process decides (module docstring)
    frames_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a library's print cannot break a frame
    from benchwright.llm.litellm_setup import load_litellm

    load_litellm()
    gc.freeze()  # litellm's heap stays out of the collector's passes (as `runner._old_objects_frozen`)
    asyncio.run(_serve(sys.stdin.buffer, frames_out, call_litellm))


async def _serve(frames_in: BinaryIO, frames_out: BinaryIO, call_litellm) -> None:
    loop = asyncio.get_running_loop()
    calls: dict[int, asyncio.Task] = {}
    ended = asyncio.Event()
    write_lock = threading.Lock()

    def send(message: Any) -> None:
        frame = _frame(message)
        with write_lock:
            _write(frames_out, frame)

    async def one(call_id: int, payload: dict, timeout_s: float) -> None:
        try:
            answer = await call_litellm(payload, timeout_s, lambda: send(("sent", call_id)))
        except asyncio.CancelledError:
            return  # the run's process stopped waiting for it
        except Exception as err:
            status = getattr(err, "status_code", None)
            send(("failed", call_id, {"description": describe(err), "status_code": status if isinstance(status, int)
                                      else None, "retry_after": retry_after_s(err), "retryable": is_retryable(err)}))
        else:
            send(("done", call_id, answer))
        finally:
            calls.pop(call_id, None)

    def received(message: Any) -> None:
        if message is None:
            ended.set()
        elif message[0] == "call":
            calls[message[1]] = loop.create_task(one(*message[1:]))
        elif message[0] == "cancel" and message[1] in calls:
            calls[message[1]].cancel()
        elif message[0] == "environment":  # the run's process's, for the calls that follow (`follow_environment`)
            os.environ.clear()
            os.environ.update(message[1])

    def receive_loop() -> None:
        try:
            while (message := _read(frames_in)) is not None:
                loop.call_soon_threadsafe(received, message)
        finally:
            loop.call_soon_threadsafe(received, None)

    threading.Thread(target=receive_loop, name="call-helper-receive", daemon=True).start()
    send(("ready",))
    await ended.wait()
    for task in list(calls.values()):
        task.cancel()
    await asyncio.gather(*calls.values(), return_exceptions=True)
