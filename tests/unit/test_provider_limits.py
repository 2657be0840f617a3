"""The provider leases of benchwright.llm.providers: limits that hold across processes."""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import signal
import time

from benchwright.llm import providers
from benchwright.llm.providers import ProviderGate, ProviderLimits, estimated_tokens


def _hold_leases(path: str, limits: ProviderLimits, calls: int, hold_s: float, intervals) -> None:
    """A process of its own: `calls` calls, 4 at once, each holding a lease for `hold_s`; records (start, end)."""
    gate = ProviderGate(path)

    async def main():
        queue = asyncio.Lock()

        async def one():
            lease = await gate.acquire("shared", limits, 10, queue)
            started = time.time()
            await asyncio.sleep(hold_s)
            ended = time.time()
            gate.release(lease)
            intervals.put((started, ended))

        await asyncio.gather(*(one() for _ in range(calls)))

    asyncio.run(main())


def test_two_processes_sharing_a_provider_never_exceed_its_calls_in_flight(tmp_path):
    ctx = mp.get_context("fork")
    intervals = ctx.Queue()
    limits = ProviderLimits(max_in_flight=3)
    workers = [ctx.Process(target=_hold_leases, args=(str(tmp_path / "slots.db"), limits, 8, 0.1, intervals))
               for _ in range(2)]
    for worker in workers:
        worker.start()
    spans = [intervals.get(timeout=30) for _ in range(16)]
    for worker in workers:
        worker.join(timeout=10)
    # The most leases held at one instant, from the recorded spans (a start counts before an end at a tie).
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda x: (x[0], -x[1]))
    held = peak = 0
    for _, step in events:
        held += step
        peak = max(peak, held)
    assert peak == 3  # never more than the limit, and the limit was reached (8 callers each side wanted more)


def test_requests_per_minute_wait_for_the_oldest_start_to_leave_the_window(tmp_path, monkeypatch):
    gate = ProviderGate(tmp_path / "slots.db")
    limits = ProviderLimits(max_in_flight=100, rpm=5)
    for _ in range(5):
        lease, _ = gate.try_acquire("p", limits, 1)
        gate.release(lease)  # ended calls still count in their minute
    lease, wait = gate.try_acquire("p", limits, 1)
    assert lease is None and 60 < wait <= providers.WINDOW_S
    assert gate.try_acquire("other", limits, 1)[0] is not None  # another provider has its own budget
    now = time.time()
    monkeypatch.setattr(providers.time, "time", lambda: now + providers.WINDOW_S + 0.1)
    assert gate.try_acquire("p", limits, 1)[0] is not None


def test_tokens_per_minute_count_the_actual_tokens_once_a_call_ends(tmp_path):
    gate = ProviderGate(tmp_path / "slots.db")
    limits = ProviderLimits(max_in_flight=100, tpm=1000)
    first, _ = gate.try_acquire("p", limits, 400)
    second, _ = gate.try_acquire("p", limits, 400)
    assert first and second
    assert gate.try_acquire("p", limits, 400)[0] is None  # 400 + 400 + 400 > 1000 reserved
    gate.release(first, tokens=100)  # it took fewer than expected: the room comes back
    assert gate.try_acquire("p", limits, 400)[0] is not None
    assert gate.try_acquire("p", limits, 5000)[0] is None  # too large for what is left in the window
    assert estimated_tokens([{"role": "user", "content": "x" * 400},
                             {"role": "user", "content": [{"type": "text", "text": "y" * 40},
                                                          {"type": "image_url", "image_url": {"url": "z" * 999}}]}],
                            tokens_out=50) == 100 + 10 + providers.IMAGE_TOKENS + 50


def _take_lease_and_wait(path: str, ready) -> None:
    gate = ProviderGate(path)
    lease, _ = gate.try_acquire("p", ProviderLimits(max_in_flight=1), 1)
    ready.put(lease)
    time.sleep(60)  # killed by the test long before


def test_a_dead_process_frees_its_slot_at_once_and_a_live_one_keeps_it(tmp_path):
    ctx = mp.get_context("fork")
    ready = ctx.Queue()
    holder = ctx.Process(target=_take_lease_and_wait, args=(str(tmp_path / "slots.db"), ready))
    holder.start()
    assert ready.get(timeout=20) is not None
    gate = ProviderGate(tmp_path / "slots.db")
    limits = ProviderLimits(max_in_flight=1)
    assert gate.try_acquire("p", limits, 1)[0] is None  # the live holder keeps its slot
    os.kill(holder.pid, signal.SIGKILL)
    holder.join(timeout=10)
    assert gate.try_acquire("p", limits, 1)[0] is not None  # killed mid-call: its slot is free again


def test_a_lease_past_its_expiry_is_dropped(tmp_path, monkeypatch):
    gate = ProviderGate(tmp_path / "slots.db", lease_s=5)
    limits = ProviderLimits(max_in_flight=1)
    assert gate.try_acquire("p", limits, 1)[0] is not None
    assert gate.try_acquire("p", limits, 1)[0] is None
    now = time.time()
    monkeypatch.setattr(providers.time, "time", lambda: now + 6)
    assert gate.try_acquire("p", limits, 1)[0] is not None
