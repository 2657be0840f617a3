"""The provider leases of benchwright.llm.providers: limits that hold across processes."""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import signal
import time

from benchwright.llm import providers
import pytest

from benchwright.llm.providers import ProviderEntriesRefused, ProviderGate, ProviderLimits, LeaseQueue, estimated_tokens


def _hold_leases(path: str, limits: ProviderLimits, calls: int, hold_s: float, intervals) -> None:
    """A process of its own: `calls` calls, 4 at once, each holding a lease for `hold_s`; records (start, end)."""
    gate = ProviderGate(path)

    async def main():
        queue = LeaseQueue()

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


def test_a_call_counts_against_the_window_from_when_it_is_sent_not_from_its_lease(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(providers.time, "time", lambda: clock[0])
    gate = ProviderGate(tmp_path / "slots.db", minute_s=60, margin_s=2)
    limits = ProviderLimits(max_in_flight=100, rpm=2, tpm=100)
    first, _ = gate.try_acquire("p", limits, 30)
    second, _ = gate.try_acquire("p", limits, 30)
    assert first and second and gate.try_acquire("p", limits, 1)[0] is None
    clock[0] += 30  # a cold client: 30 s of set-up before the first is sent
    gate.sent(first)
    clock[0] += 40  # 70 s after the leases: counted from them, both would have left the window
    lease, wait = gate.try_acquire("p", limits, 1)
    assert lease is None and wait > 0  # the first was sent 40 s ago, the second (not sent yet) counts as now
    gate.release(second)  # never sent (it failed before): it counts from now, as it may have gone out until now
    clock[0] += 22.5  # the first was sent 62.5 s ago: out of the window; the second released 22.5 s ago: in it
    assert gate.try_acquire("p", limits, 60)[0] is not None
    assert gate.try_acquire("p", limits, 1)[0] is None  # rpm: the released one and this one
    pending, _ = gate.try_acquire("q", ProviderLimits(tpm=100), 90)  # a pending call's tokens count at once,
    assert pending and gate.try_acquire("q", ProviderLimits(tpm=100), 20)[0] is None  # however long it takes
    clock[0] += 300
    assert gate.try_acquire("q", ProviderLimits(tpm=100), 20)[0] is None


def test_a_lease_file_of_the_previous_version_gets_its_pending_column(tmp_path):
    import sqlite3

    old = sqlite3.connect(tmp_path / "slots.db")
    old.execute("CREATE TABLE leases (id INTEGER PRIMARY KEY, provider TEXT NOT NULL, pid INTEGER NOT NULL, "
                "started REAL NOT NULL, expires REAL NOT NULL, tokens INTEGER NOT NULL, open INTEGER NOT NULL)")
    old.execute("INSERT INTO leases VALUES (1, 'p', ?, ?, ?, 1, 0)", (os.getpid(), time.time(), time.time() + 60))
    old.commit()
    old.close()
    gate = ProviderGate(tmp_path / "slots.db")
    limits = ProviderLimits(rpm=2)
    assert gate.try_acquire("p", limits, 1)[0] is not None  # the old row counts from its start, as it did
    assert gate.try_acquire("p", limits, 1)[0] is None


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


def test_a_refused_provider_entry_stops_its_calls_and_the_main_job_before_anything_runs(tmp_path):
    import dagster as dg

    from benchwright.llm import LLMRequest, ModelLimits
    from resources import default_resources
    from resources.llm import LLMClient
    from benchwright.registry import RegistryEntry
    from scripts.orchestrate import materialize_everything
    from tests.support.openai_server import OpenAIServer
    from web.content import ask_game_model

    providers_file = tmp_path / "providers.yaml"
    providers_file.write_text("openai: {max_in_flight: 4}\nlab:\n  max_in_flight: -1\n  rpm: '60'\n  tpm: 1.5\n")
    client = LLMClient(cache_path=str(tmp_path / "llm.sqlite"), timeout_s=5, max_retries=0,
                       providers_path=str(providers_file))
    faults = ["entry 'lab': 'max_in_flight' must be a positive integer, not -1 (line 3, field max_in_flight)",
              "entry 'lab': 'rpm' must be a positive integer, not '60' (line 4, field rpm)",
              "entry 'lab': 'tpm' must be a positive integer, not 1.5 (line 5, field tpm)"]
    with OpenAIServer(max_lifetime_s=20) as srv:
        def ask(model: str) -> LLMRequest:
            return LLMRequest(model=model, messages=[{"role": "user", "content": model}], api_base=srv.base_url)

        limits = {"openai/lab-model": ModelLimits(provider="lab")}
        with pytest.raises(ProviderEntriesRefused) as refused:  # not at the defaults: not at all
            client.run([ask("openai/gpt-4o-mini"), ask("openai/lab-model")], limits=limits)
        assert srv.count() == 0 and set(refused.value.faults) == {"lab"}
        assert all(fault in str(refused.value) for fault in faults)
        # Another provider's models, and the simulator, are called as usual.
        results, _ = client.run([ask("openai/gpt-4o-mini"), ask("sim/strong-writer")], limits=limits)
        assert results[0].text == "echo: openai/gpt-4o-mini" and results[1].simulated and srv.count() == 1
        # The game page, where a person waits, says so rather than failing the page.
        entry = RegistryEntry(slug="lab-model", model="openai/lab-model", display_name="Lab", role="describer",
                              vision=False, api_base=srv.base_url, provider="lab")
        answer, error = ask_game_model(client, entry, "What is it?", None, instructed_wrong=False, tag="game:t")
        assert answer is None and all(fault in error for fault in faults) and srv.count() == 1

    # The main job does not start: no run, every fault in the error.
    resources = default_resources(tmp_path / "home")
    resources["llm"] = client
    with dg.DagsterInstance.ephemeral() as instance:
        with pytest.raises(ProviderEntriesRefused) as refused:
            materialize_everything(instance, resources)
        assert instance.get_runs() == []
    assert all(fault in str(refused.value) for fault in faults)
