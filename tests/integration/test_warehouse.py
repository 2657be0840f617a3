import multiprocessing as mp
import os
import subprocess
import sys

import duckdb
import pandas as pd
import pytest

from benchwright.paths import ROOT
from resources.warehouse import Warehouse


def rows(model, n, start=0):
    return pd.DataFrame({
        # Deliberately not in table order: inserts go by column name.
        "simulated": [True] * n, "pii_redactions": [0] * n, "response": [f"answer {i}" for i in range(start, start + n)],
        "benchmark": ["creation"] * n, "model": [model] * n, "item_id": [f"i{i}" for i in range(start, start + n)],
        "variant": ["vision"] * n, "sample_index": [0] * n, "error": [None] * n, "request_key": ["k"] * n,
        "prompt_version": ["v1"] * n, "tokens_in": [1] * n, "tokens_out": [2] * n, "latency_ms": [1.0] * n,
        "cost_usd": [0.0] * n,
    })


@pytest.fixture
def warehouse(tmp_path):
    return Warehouse(database=str(tmp_path / "w.duckdb"), snapshot_path=str(tmp_path / "snap.duckdb"))


def test_replace_rows_is_idempotent_per_partition(warehouse):
    warehouse.replace_rows("generations", rows("m1", 3), {"benchmark": "creation", "model": "m1"})
    warehouse.replace_rows("generations", rows("m2", 2), {"benchmark": "creation", "model": "m2"})
    warehouse.replace_rows("generations", rows("m1", 3), {"benchmark": "creation", "model": "m1"})
    counts = warehouse.query("SELECT model, count(*) AS n FROM generations GROUP BY model ORDER BY model")
    assert counts.to_dict("records") == [{"model": "m1", "n": 3}, {"model": "m2", "n": 2}]
    assert warehouse.query("SELECT response FROM generations WHERE item_id = 'i1' AND model = 'm1'")["response"][0] == "answer 1"


def test_failed_insert_rolls_back_and_keeps_old_rows(warehouse):
    warehouse.replace_rows("generations", rows("m1", 3), {"benchmark": "creation", "model": "m1"})
    bad = rows("m1", 2).drop(columns=["request_key"])  # NOT NULL column missing
    with pytest.raises(duckdb.Error):
        warehouse.replace_rows("generations", bad, {"benchmark": "creation", "model": "m1"})
    assert len(warehouse.query("SELECT * FROM generations WHERE model = 'm1'")) == 3


def test_a_held_open_warehouse_keeps_one_database_and_isolates_each_section(tmp_path):
    """`hold_open` (the plan's private copy): one open database across sections, each section's transaction its
    own (a failed write rolls back and the next section works), and closed for other users by `close_held`."""
    held = Warehouse(database=str(tmp_path / "w.duckdb"), hold_open=True)
    held.replace_rows("generations", rows("m1", 3), {"benchmark": "creation", "model": "m1"})
    with held.session() as first, held.session() as second:
        assert first is not second  # a cursor each
        assert first.execute("SELECT count(*) FROM generations").fetchone()[0] == 3
    with pytest.raises(duckdb.Error):
        held.replace_rows("generations", rows("m1", 2).drop(columns=["request_key"]), {"benchmark": "creation", "model": "m1"})
    held.replace_rows("generations", rows("m2", 2), {"benchmark": "creation", "model": "m2"})
    assert held.query("SELECT model, count(*) AS n FROM generations GROUP BY model ORDER BY model").to_dict("records") \
        == [{"model": "m1", "n": 3}, {"model": "m2", "n": 2}]
    # Held open between sections: another process cannot open the file; after close_held it can.
    assert _count_generations_elsewhere(held.database) == "locked"
    Warehouse.close_held(held.database)
    assert _count_generations_elsewhere(held.database) == "5"


def _lock_is_free(database: str) -> bool:
    """Whether another holder could take the warehouse's file lock now."""
    from filelock import FileLock, Timeout

    try:
        with FileLock(f"{database}.lock", timeout=0.05):
            return True
    except Timeout:
        return False


def test_held_between_shares_one_connection_keeps_the_lock_and_lets_go_for_model_calls(warehouse, monkeypatch):
    """`held_between` (the main job's runs when one goes at a time): sections share one open database and the
    file lock stays taken between them, so another process waits; `let_go` (around model calls) and the block's
    end close the file, with every write on it, and give the lock back. The hold attaches the file as a section
    does (no DuckDB started for it)."""
    from resources import warehouse as module

    def lock_is_free() -> bool:
        return _lock_is_free(warehouse.database)

    opened = []
    real_connect = module.duckdb.connect
    monkeypatch.setattr(module.duckdb, "connect", lambda *args, **kw: opened.append(args[:1]) or real_connect(*args, **kw))

    with Warehouse.held_between(warehouse.database):
        warehouse.replace_rows("generations", rows("m1", 3), {"benchmark": "creation", "model": "m1"})
        with warehouse.session() as first, warehouse.session() as second:
            assert first is not second  # a cursor each, on one database
            assert second.execute("SELECT count(*) FROM generations").fetchone()[0] == 3
        with pytest.raises(duckdb.Error):  # a failed section rolls back alone; the next one works
            warehouse.replace_rows("generations", rows("m1", 2).drop(columns=["request_key"]),
                                   {"benchmark": "creation", "model": "m1"})
        assert not lock_is_free() and _count_generations_elsewhere(warehouse.database) == "locked"
        with Warehouse.let_go():
            assert lock_is_free() and _count_generations_elsewhere(warehouse.database) == "3"
            warehouse.replace_rows("generations", rows("m2", 2), {"benchmark": "creation", "model": "m2"})
            assert lock_is_free()  # a section inside let_go closes the file again
        warehouse.replace_rows("generations", rows("m3", 1), {"benchmark": "creation", "model": "m3"})
        assert not lock_is_free()
    assert lock_is_free() and _count_generations_elsewhere(warehouse.database) == "6"
    assert (warehouse.database,) not in opened


def test_together_shares_one_attach_keeps_the_lock_for_its_block_and_lets_go_after(warehouse, monkeypatch):
    """`together` (an asset reading its inputs where runs go in parallel): the block's sections use one attach of
    the file, also from another thread, and another process waits until the block ends; a failed section inside
    it rolls back alone; within `held_between` it changes nothing."""
    import threading

    from resources import warehouse as module

    warehouse.replace_rows("generations", rows("m1", 3), {"benchmark": "creation", "model": "m1"})
    attaches = []
    real_attached = module._attached
    monkeypatch.setattr(module, "_attached", lambda *args: attaches.append(args) or real_attached(*args))
    with warehouse.together():
        assert warehouse.query("SELECT count(*) AS n FROM generations")["n"][0] == 3
        warehouse.replace_rows("generations", rows("m2", 2), {"benchmark": "creation", "model": "m2"})
        with pytest.raises(duckdb.Error):
            warehouse.replace_rows("generations", rows("m2", 1).drop(columns=["request_key"]),
                                   {"benchmark": "creation", "model": "m2"})
        seen = []
        thread = threading.Thread(target=lambda: seen.append(warehouse.query("SELECT count(*) AS n FROM generations")))
        thread.start()
        thread.join(timeout=60)
        assert seen[0]["n"][0] == 5
        assert not _lock_is_free(warehouse.database) and _count_generations_elsewhere(warehouse.database) == "locked"
    assert len(attaches) == 1  # one attach for every section of the block
    assert _lock_is_free(warehouse.database) and _count_generations_elsewhere(warehouse.database) == "5"
    with Warehouse.held_between(warehouse.database):
        warehouse.query("SELECT 1")
        with warehouse.together():
            warehouse.query("SELECT 1")
    assert len(attaches) == 1  # the hold's own connection served both


def test_rows_written_under_a_hold_survive_its_process_being_killed(warehouse):
    """A process keeping the file between its sections (`held_between`: its writes committed, not yet written out
    by a detach) is killed: the file lock goes with it, and the next process finds every committed row."""
    import signal
    import time

    root = str(ROOT)
    code = ("import sys, time\n"
            "sys.path.insert(0, sys.argv[2])\n"
            "from tests.integration.test_warehouse import rows\n"
            "from resources.warehouse import Warehouse\n"
            "w = Warehouse(database=sys.argv[1])\n"
            "with Warehouse.held_between(sys.argv[1]):\n"
            "    w.replace_rows('generations', rows('m1', 4), {'benchmark': 'creation', 'model': 'm1'})\n"
            "    print('written', flush=True)\n"
            "    time.sleep(120)\n")
    child = subprocess.Popen([sys.executable, "-c", code, warehouse.database, root], stdout=subprocess.PIPE,
                             text=True, cwd=root)
    try:
        assert child.stdout.readline().strip() == "written"
        assert not _lock_is_free(warehouse.database)  # held between sections
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    deadline = time.monotonic() + 10
    while not _lock_is_free(warehouse.database) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert warehouse.query("SELECT count(*) AS n FROM generations")["n"][0] == 4


def test_the_llm_client_lets_the_held_warehouse_go_for_a_provider_not_for_the_simulator(warehouse, tmp_path,
                                                                                        monkeypatch):
    from benchwright.llm import LLMRequest
    from resources.llm import LLMClient

    def lock_is_free() -> bool:
        return _lock_is_free(warehouse.database)

    seen = []
    monkeypatch.setattr(LLMClient, "_run", lambda self, *args: seen.append(lock_is_free()) or ([], None))
    client = LLMClient(cache_path=str(tmp_path / "cache.sqlite3"))
    asked = [{"role": "user", "content": "hi"}]
    with Warehouse.held_between(warehouse.database):
        warehouse.query("SELECT 1")
        client.run([LLMRequest(model="sim/fair-judge", messages=asked)])
        client.run([LLMRequest(model="sim/fair-judge", messages=asked),
                    LLMRequest(model="openai/gpt-4o-mini", messages=asked)])
        assert lock_is_free()  # taken again by the next section only
        warehouse.query("SELECT 1")
        assert not lock_is_free()
    assert seen == [False, True]


def _count_generations_elsewhere(database: str) -> str:
    """The rows of `generations` as another process reads them, or "locked" when it cannot open the file."""
    code = ("import sys, duckdb\n"
            "try:\n"
            "    con = duckdb.connect(sys.argv[1])\n"
            "except duckdb.IOException:\n"
            "    print('locked')\n"
            "else:\n"
            "    print(con.execute('SELECT count(*) FROM generations').fetchone()[0])\n")
    return subprocess.run([sys.executable, "-c", code, database], capture_output=True, text=True, timeout=120,
                          check=True).stdout.strip()


def test_a_section_attaches_the_file_to_one_kept_duckdb_and_lets_it_go_at_its_end(tmp_path):
    """A section of its own attaches the file to the process's in-memory DuckDB (no DuckDB started per section) and
    detaches it at the end, also when the section raises: another process can then open the file. Two files of
    one name in sections at once (threads) are attached under different names."""
    from resources import warehouse as module

    first = Warehouse(database=str(tmp_path / "a" / "w.duckdb"))
    first.replace_rows("generations", rows("m1", 3), {"benchmark": "creation", "model": "m1"})
    with first.session() as con:
        assert con.execute("SELECT current_database()").fetchone()[0] == "w"  # as when DuckDB opens it itself
        hosts = set(map(id, module._ATTACH_HOSTS.values()))
    with pytest.raises(ZeroDivisionError), first.session():
        raise ZeroDivisionError
    assert set(map(id, module._ATTACH_HOSTS.values())) == hosts  # the same DuckDB served both sections
    assert _count_generations_elsewhere(first.database) == "3"  # detached: another process opens it
    second = Warehouse(database=str(tmp_path / "b" / "w.duckdb"))
    with first.session() as one, second.session() as other:
        names = {one.execute("SELECT current_database()").fetchone()[0],
                 other.execute("SELECT current_database()").fetchone()[0]}
        assert len(names) == 2 and other.execute("SELECT count(*) FROM generations").fetchone()[0] == 0
    assert module._ATTACHED == {}


def test_identifiers_are_not_injectable(warehouse):
    with pytest.raises(ValueError):
        warehouse.replace_rows("generations; DROP TABLE images", rows("m", 1), {"model": "m"})
    with pytest.raises(ValueError):
        warehouse.replace_rows("generations", rows("m", 1), {"model = model OR 1=1 --": "m"})
    # Values are parameters, so a hostile slug is just a string.
    hostile = "x'; DROP TABLE generations; --"
    warehouse.replace_rows("generations", rows(hostile, 1), {"benchmark": "creation", "model": hostile})
    assert warehouse.query("SELECT model FROM generations")["model"].tolist() == [hostile]


def _writer(database, model, n):
    wh = Warehouse(database=database)
    for batch in range(n):
        wh.replace_rows("generations", rows(model, 5, start=batch * 5), {"benchmark": "creation", "model": model})


def test_parallel_writer_processes_neither_crash_nor_lose_rows(warehouse):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(warehouse.database, f"m{i}", 8)) for i in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    counts = warehouse.query("SELECT model, count(*) AS n, min(item_id) AS first FROM generations GROUP BY model ORDER BY model")
    assert counts["n"].tolist() == [5, 5, 5]
    assert counts["first"].tolist() == ["i35", "i35", "i35"]  # the last batch of each writer won


def test_snapshot_is_readable_while_the_warehouse_keeps_writing(warehouse):
    warehouse.replace_rows("generations", rows("m1", 2), {"benchmark": "creation", "model": "m1"})
    views = warehouse.publish_snapshot()
    assert "creation_leaderboard_overall" in views
    analyst = duckdb.connect(warehouse.snapshot_path, read_only=True)
    try:
        assert analyst.execute("SELECT count(*) FROM generations").fetchall()[0][0] == 2
        tags = analyst.execute("SELECT tags FROM duckdb_databases() WHERE NOT internal").fetchall()[0][0]
        assert tags["storage_version"].startswith("v1.4.0")
        # The analyst's open handle does not block writers or a new snapshot.
        warehouse.replace_rows("generations", rows("m1", 4), {"benchmark": "creation", "model": "m1"})
        warehouse.publish_snapshot()
    finally:
        analyst.close()
    fresh = duckdb.connect(warehouse.snapshot_path, read_only=True)
    try:
        assert fresh.execute("SELECT count(*) FROM generations").fetchall()[0][0] == 4
        assert fresh.execute("SELECT count(*) FROM creation_leaderboard_overall").fetchall()[0][0] == 0
    finally:
        fresh.close()


def test_write_tables_is_all_or_nothing_and_matches_lists(warehouse):
    for model in ("m1", "m2", "m3"):
        warehouse.replace_rows("generations", rows(model, 2), {"benchmark": "creation", "model": model})
    problems = pd.DataFrame({"benchmark": ["creation"], "dataset": ["d"], "location": ["f:1"], "reason": ["bad"]})
    # A list value matches any of its items: m1 and m2 go, m3 stays; nothing is deleted where match is None.
    written = warehouse.write_tables([("generations", rows("m1", 1), {"model": ["m1", "m2"]}),
                                      ("dataset_problems", problems, None)])
    assert written == 2
    counts = warehouse.query("SELECT model, count(*) AS n FROM generations GROUP BY model ORDER BY model")
    assert counts.to_dict("records") == [{"model": "m1", "n": 1}, {"model": "m3", "n": 2}]
    # A failing write undoes the writes before it in the same call.
    with pytest.raises(duckdb.Error):
        warehouse.write_tables([("dataset_problems", problems, None),
                                ("generations", rows("m3", 1).drop(columns=["request_key"]), {"model": "m3"})])
    assert len(warehouse.query("SELECT * FROM dataset_problems")) == 1
    assert len(warehouse.query("SELECT * FROM generations WHERE model = 'm3'")) == 2


def test_fill_from_queries_replaces_whole_tables_in_order_and_all_or_nothing(warehouse):
    old = pd.DataFrame({"benchmark": ["urs"], "dataset": ["old"], "location": ["old:1"], "reason": ["gone"]})
    warehouse.replace_rows("dataset_problems", old, {})
    problems = ("SELECT 'creation' AS benchmark, 'd' AS dataset, 'f:' || i AS location, 'bad' AS reason "
                "FROM range(3) t(i) ORDER BY i;\n")
    # The second query reads the rows the first wrote in the same transaction, not the old ones.
    items = "SELECT 'J' AS judge, 'a' AS model_a, 'b' AS model_b, location AS item_id FROM dataset_problems"
    fills = [("dataset_problems", problems), ("comparison_model_items", items)]
    assert warehouse.fill_from_queries(fills) == {"dataset_problems": 3, "comparison_model_items": 3}
    assert warehouse.fill_from_queries(fills) == {"dataset_problems": 3, "comparison_model_items": 3}  # no duplicates
    assert sorted(warehouse.query("SELECT item_id FROM comparison_model_items")["item_id"]) == ["f:0", "f:1", "f:2"]
    # A failing query (judge is NOT NULL) undoes the fills before it.
    with pytest.raises(duckdb.Error):
        warehouse.fill_from_queries([("dataset_problems", "SELECT 'x' AS benchmark, 'd' AS dataset, 'l' AS location, "
                                                          "'r' AS reason"),
                                     ("comparison_model_items", "SELECT NULL AS judge, 'a' AS model_a, 'b' AS model_b, "
                                                                "'i' AS item_id")])
    assert len(warehouse.query("SELECT * FROM dataset_problems")) == 3
    assert len(warehouse.query("SELECT * FROM comparison_model_items")) == 3


def test_a_warehouse_made_before_the_annotation_columns_gains_them_and_keeps_its_rows(tmp_path):
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE urs_human_pairwise (item_id VARCHAR, model_a VARCHAR NOT NULL, model_b VARCHAR NOT NULL, "
                "winner VARCHAR NOT NULL, annotator VARCHAR, source_file VARCHAR NOT NULL)")
    con.execute("INSERT INTO urs_human_pairwise VALUES ('u1', 'a', 'b', 'A', 'ann', 'old.csv')")
    con.close()
    warehouse = Warehouse(database=str(path))
    stored = warehouse.query("SELECT * FROM urs_human_pairwise")
    assert {"strength", "left_model", "item_position", "round_id", "recorded_at", "seconds_taken"} <= set(stored.columns)
    assert stored["item_id"].tolist() == ["u1"] and stored["left_model"].isna().all()
    warehouse.replace_rows("urs_human_pairwise", pd.DataFrame([{"item_id": "u2", "model_a": "a", "model_b": "b", "winner": "B",
                                                                "strength": 2, "left_model": "b", "item_position": 3,
                                                                "source_file": "new.csv"}]), match={})
    assert warehouse.query("SELECT strength, left_model, item_position FROM urs_human_pairwise").values.tolist() == [[2, "b", 3]]


def test_publishing_removes_temp_copies_of_killed_publishes(tmp_path):
    import subprocess
    import sys

    warehouse = Warehouse(database=str(tmp_path / "w.duckdb"), snapshot_path=str(tmp_path / "analyst.duckdb"))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)  # that process has exited: its copy can never be finished
    stale = [tmp_path / f".analyst.duckdb.{dead_pid}.tmp", tmp_path / f".analyst.duckdb.{dead_pid}.tmp.wal",
             # a killed publish whose pid now belongs to a live process (here: this one)
             tmp_path / f".analyst.duckdb.{os.getpid()}.0badf00d.tmp"]
    for path in stale:
        path.write_bytes(b"half a snapshot")
    warehouse.publish_snapshot()
    assert not any(path.exists() for path in stale)
    assert sorted(p.name for p in tmp_path.iterdir() if ".tmp" in p.name) == []
    assert (tmp_path / "analyst.duckdb").exists()


def test_a_publish_in_progress_is_never_cleaned_up_nor_overtaken_by_a_later_one(tmp_path, monkeypatch):
    import threading

    import resources.warehouse as warehouse_module

    warehouse = Warehouse(database=str(tmp_path / "w.duckdb"), snapshot_path=str(tmp_path / "analyst.duckdb"))
    warehouse.replace_rows("generations", rows("m1", 2), {"benchmark": "creation", "model": "m1"})
    # The first publish stops just before its rename: its copy is complete on disk, not yet in place.
    first_is_mid_write, go_on = threading.Event(), threading.Event()
    real_replace = os.replace

    def replace_after_a_pause(src, dst):
        if threading.current_thread().name == "first":
            first_is_mid_write.set()
            assert go_on.wait(60)
        real_replace(src, dst)

    monkeypatch.setattr(warehouse_module.os, "replace", replace_after_a_pause)
    first = threading.Thread(target=warehouse.publish_snapshot, name="first")
    first.start()
    assert first_is_mid_write.wait(60)
    [in_progress] = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert in_progress.name.startswith(f".analyst.duckdb.{os.getpid()}.")
    # New rows arrive; a second publish starts while the first is still writing.
    warehouse.replace_rows("generations", rows("m1", 5), {"benchmark": "creation", "model": "m1"})
    second = threading.Thread(target=warehouse.publish_snapshot, name="second")
    second.start()
    second.join(1.5)
    assert second.is_alive(), "the second publish must wait for the first"
    assert in_progress.exists(), "a live publish's copy was removed mid-write"
    go_on.set()
    first.join(60)
    second.join(60)
    assert not first.is_alive() and not second.is_alive()
    # The later copy was renamed last: the snapshot has the new rows, and nothing is left behind.
    snapshot = duckdb.connect(str(tmp_path / "analyst.duckdb"), read_only=True)
    try:
        assert snapshot.execute("SELECT count(*) FROM generations").fetchall()[0][0] == 5
    finally:
        snapshot.close()
    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []


def test_a_publish_killed_in_another_process_is_cleaned_up_by_the_next(tmp_path):
    import signal
    import subprocess
    import sys

    from benchwright.paths import ROOT

    warehouse = Warehouse(database=str(tmp_path / "w.duckdb"), snapshot_path=str(tmp_path / "analyst.duckdb"))
    warehouse.replace_rows("generations", rows("m1", 3), {"benchmark": "creation", "model": "m1"})
    # Another process publishes and is killed (SIGKILL) just before its rename.
    child = subprocess.Popen([sys.executable, "-c", f"""
import os, sys, time
from resources.warehouse import Warehouse
os.replace = lambda src, dst: (print("mid-write", flush=True), time.sleep(120))
Warehouse(database={str(tmp_path / "w.duckdb")!r}, snapshot_path={str(tmp_path / "analyst.duckdb")!r}).publish_snapshot()
"""], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "mid-write"
        [left] = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        assert left.name.startswith(f".analyst.duckdb.{child.pid}.")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    assert left.exists() and not (tmp_path / "analyst.duckdb").exists()
    warehouse.publish_snapshot()   # the lock died with its holder: this publish proceeds and cleans up
    assert not left.exists() and (tmp_path / "analyst.duckdb").exists()


def test_rewriting_the_same_partitions_does_not_grow_the_file_once_space_is_reclaimed(warehouse):
    partitions = [(f"m{k}", rows(f"m{k}", 4000).assign(response=lambda d: d["response"] + " with a longer text" * 30))
                  for k in range(6)]

    def write_all():
        for model, df in partitions:
            warehouse.replace_rows("generations", df, {"benchmark": "creation", "model": model})

    write_all()
    warehouse.reclaim_space()
    first = os.path.getsize(warehouse.database)
    write_all()  # the same work again, without reclaiming: DuckDB keeps the freed blocks (less so without vacuum)
    assert os.path.getsize(warehouse.database) > first
    for _ in range(3):
        write_all()
        assert warehouse.reclaim_space() >= 0
    assert os.path.getsize(warehouse.database) <= 1.10 * first
    assert warehouse.query("SELECT count(*) AS n FROM generations")["n"][0] == 6 * 4000
    # Nothing to give back: no copy is made.
    assert warehouse.reclaim_space() == 0


def test_a_new_process_runs_the_ddl_only_when_it_differs_from_what_the_file_was_brought_to(tmp_path, monkeypatch):
    import resources.warehouse as warehouse_module

    wh = Warehouse(database=str(tmp_path / "w.duckdb"))
    with wh.session() as con:
        con.execute("DROP TABLE dataset_problems")  # gone behind the DDL's back, to see whether it runs
    monkeypatch.setattr(warehouse_module, "_SCHEMA_APPLIED", set())  # a new process, the same code
    with wh.session() as con:
        tables = {row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        assert "dataset_problems" not in tables and "generations" in tables  # the same DDL: not run again
        con.execute("UPDATE warehouse_schema SET ddl_sha256 = 'an older version'")
    monkeypatch.setattr(warehouse_module, "_SCHEMA_APPLIED", set())  # a new process of a newer version
    with wh.session() as con:
        assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'dataset_problems'").fetchone() == (1,)
        assert con.execute("SELECT ddl_sha256 FROM warehouse_schema").fetchone()[0] == warehouse_module._ddl()[1]
