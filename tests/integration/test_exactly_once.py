"""What people give us counts once: game marks are stored once by their natural key, whatever the
delivery (a copy, other line ends, a blank line, a file read half-written then complete, two ingests
at once), and every re-delivered record is a located problem, not data."""

from __future__ import annotations

import multiprocessing
import shutil

import pytest

from assets.gap import ingest_log_files
from benchwright.paths import ROOT
from resources.warehouse import Warehouse

SAMPLE = ROOT / "sample_data" / "gap" / "logs" / "game_log_000.jsonl"


@pytest.fixture()
def warehouse(tmp_path):
    return Warehouse(database=str(tmp_path / "warehouse.duckdb"))


def marks(warehouse) -> int:
    return int(warehouse.query("SELECT count(*) AS n FROM gap_marks")["n"][0])


def distinct_marks(warehouse) -> int:
    return int(warehouse.query("SELECT count(*) AS n FROM (SELECT DISTINCT session_id, image_order, question_index "
                               "FROM gap_marks)")["n"][0])


def duplicates(warehouse) -> list[tuple[str, str]]:
    df = warehouse.query("SELECT location, reason FROM dataset_problems WHERE benchmark = 'gap' ORDER BY location")
    return list(zip(df["location"], df["reason"]))


def test_every_kind_of_redelivery_is_counted_once_and_reported(tmp_path, warehouse):
    drop = tmp_path / "drops"
    drop.mkdir()
    original = drop / "game_log_000.jsonl"
    shutil.copy(SAMPLE, original)
    ingest_log_files(warehouse, [original])
    n = marks(warehouse)
    lines = SAMPLE.read_bytes().splitlines()
    assert n == len(lines) > 5 and duplicates(warehouse) == []

    crlf = drop / "copy_crlf.jsonl"
    crlf.write_bytes(b"\r\n".join(lines) + b"\r\n")
    blank = drop / "copy_blank_line.jsonl"
    blank.write_bytes(b"\n".join(lines) + b"\n\n")
    renamed = drop / "renamed.jsonl"
    shutil.copy(SAMPLE, renamed)
    counts = ingest_log_files(warehouse, [original, crlf, blank, renamed])
    assert marks(warehouse) == distinct_marks(warehouse) == n
    assert counts["marks_stored"] == 0 and counts["marks_duplicate"] == 3 * n
    found = duplicates(warehouse)
    assert len(found) == 3 * n
    assert ("renamed.jsonl:1", "duplicate of game_log_000.jsonl:1") in found
    assert ("copy_crlf.jsonl:2", "duplicate of game_log_000.jsonl:2") in found

    # The same file re-sent under its own name with other line ends: known records, no new problems.
    original.write_bytes(b"\r\n".join(lines) + b"\r\n")
    ingest_log_files(warehouse, [original, crlf, blank, renamed])
    assert marks(warehouse) == n and len(duplicates(warehouse)) == 3 * n


def test_a_file_read_while_half_written_then_complete_counts_each_mark_once(tmp_path, warehouse):
    lines = SAMPLE.read_bytes().splitlines()
    growing = tmp_path / "growing.jsonl"
    growing.write_bytes(b"\n".join(lines[:3]) + b"\n" + lines[3][: len(lines[3]) // 2])  # torn mid-record
    counts = ingest_log_files(warehouse, [growing])
    assert marks(warehouse) == 3 and counts["unfinished_lines"] == 1
    assert int(warehouse.query("SELECT count(*) AS n FROM gap_log_quarantine")["n"][0]) == 0  # not read, not bad
    growing.write_bytes(b"\n".join(lines) + b"\n")
    ingest_log_files(warehouse, [growing])
    assert marks(warehouse) == distinct_marks(warehouse) == len(lines)
    assert duplicates(warehouse) == []


def test_a_line_that_is_not_utf8_is_quarantined_not_altered(tmp_path, warehouse):
    lines = SAMPLE.read_bytes().splitlines()
    bad = lines[1].replace(b'"question": "', b'"question": "\xff\xfe', 1)
    assert bad != lines[1]
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b"\n".join([lines[0], bad, lines[2]]) + b"\n")
    ingest_log_files(warehouse, [path])
    assert marks(warehouse) == 2
    quarantined = warehouse.query("SELECT line_no, reason FROM gap_log_quarantine")
    assert quarantined["line_no"].tolist() == [2] and "not valid UTF-8" in quarantined["reason"][0]
    assert not warehouse.query("SELECT question FROM gap_marks")["question"].str.contains("\ufffd").any()


def _ingest_in_another_process(database: str, path: str, start) -> None:
    from pathlib import Path

    from assets.gap import ingest_log_files as ingest
    from resources.warehouse import Warehouse as W

    start.wait(30)
    ingest(W(database=database), [Path(path)])


def test_two_ingests_at_once_store_each_mark_once(tmp_path, warehouse):
    path = tmp_path / "both.jsonl"
    shutil.copy(SAMPLE, path)
    warehouse.query("SELECT 1")  # create the schema first, as the pipeline would have
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [context.Process(target=_ingest_in_another_process, args=(warehouse.database, str(path), start))
               for _ in range(2)]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    assert marks(warehouse) == distinct_marks(warehouse) == len(SAMPLE.read_bytes().splitlines())
    assert duplicates(warehouse) == []
    assert int(warehouse.query("SELECT count(*) AS n FROM gap_log_files")["n"][0]) == 1
