"""The helpers every loader shares (benchwright.loading)."""

import os
import shutil

import pytest

from benchwright.loading import RowError, csv_table, files_version, json_object, read_text_keeping_bad_bytes


def test_json_object_refuses_what_a_row_cannot_be():
    assert json_object('{"chat_id": "c1", "turns": ["a"]}') == {"chat_id": "c1", "turns": ["a"]}
    with pytest.raises(RowError, match="malformed JSON"):
        json_object('{"chat_id": ')
    with pytest.raises(RowError, match="expected a JSON object, got list"):
        json_object("[1, 2]")
    # Valid JSON, but no database can store a lone surrogate: refused here, naming the field.
    with pytest.raises(RowError, match="'turns' holds an escaped lone surrogate"):
        json_object('{"chat_id": "c1", "turns": ["fine", "bad \\ud800 text"]}')


def test_bad_bytes_survive_reading_and_missing_files_name_themselves(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes(b"\xef\xbb\xbfgood\nbad \xff byte\n")
    text = read_text_keeping_bad_bytes(path, "test file")
    assert text.startswith("good\n") and "\udcff" in text  # BOM dropped, the bad byte kept as an escape
    with pytest.raises(FileNotFoundError, match="test file not found"):
        read_text_keeping_bad_bytes(tmp_path / "missing.csv", "test file")


def test_csv_table_locates_every_record_it_cannot_read_and_keeps_the_others():
    table = csv_table('a,b\n"multi\nline",1\n\nx,2,\ny,3,4\nz\n"q"w,5\nv,6\n"open,7\nu,8\n')
    assert table.header == ["a", "b"] and table.header_problem is None
    got = [(r.line, r.row, r.cells, r.problem) for r in table.records]
    assert got == [
        (2, 1, ["multi\nline", "1"], None),  # a quoted cell over two lines: located where it starts
        (5, 3, ["x", "2"], None),  # (row 2 was blank) an empty cell beyond the header loses nothing
        (6, 4, ["y", "3"], "has 3 fields, header has 2"),
        (7, 5, ["z"], "has 1 fields, header has 2 (a torn line?)"),
        (8, 6, [], "not valid CSV (',' expected after '\"')"),
        (9, 7, ["v", "6"], None),
        (10, 8, [], "a quoted cell is never closed: the rest of the file (lines 10-11) is not read")]
    assert csv_table("a,b\nz\n", short_records_ok=True).records[0].cells == ["z", ""]


def test_csv_table_reads_the_rest_of_a_record_with_broken_quoting_as_its_rest_not_as_records():
    # Record 2's quoted cell runs over three lines and breaks on its first: its other lines are not records.
    table = csv_table('a,b,c\nx,1,2\n"he said "hi" and\nthen, more\n\nstill",3,4\ny,5,6\n')
    got = [(r.line, r.row, r.cells, r.problem) for r in table.records]
    assert got == [
        (2, 1, ["x", "1", "2"], None),
        (3, 2, [], "not valid CSV (',' expected after '\"'); lines 3-6 not read"),
        (7, 3, ["y", "5", "6"], None)]


@pytest.mark.parametrize("text, problem", [
    ("", "the file is empty"),
    (" , \nx,y\n", "the header) is empty"),
    ("a,b , a\n1,2,3\n", "column 'a' appears twice in the header (columns 1 and 3)"),
    ('a,"b\n1,2\n', "the header: a quoted cell is never closed"),
])
def test_csv_table_refuses_a_header_it_cannot_trust(text, problem):
    table = csv_table(text)
    assert problem in table.header_problem and table.records == []


def folders(root):
    """A dataset folder (a file in a subfolder) and a drop folder, as a source hashes them."""
    (root / "dataset" / "images").mkdir(parents=True)
    (root / "dataset" / "items.jsonl").write_text('{"item_id": "a"}\n')
    (root / "dataset" / "images" / "a.png").write_bytes(b"\x89PNG")
    (root / "drops").mkdir()
    (root / "drops" / "game-1.jsonl").write_text('{"mark": 1}\n')
    return [root / "dataset", root / "drops"]


def test_a_files_version_is_the_same_wherever_the_folders_are(tmp_path):
    original = files_version(folders(tmp_path / "home"))
    shutil.copytree(tmp_path / "home", tmp_path / "copy")
    assert files_version([tmp_path / "copy" / "dataset", tmp_path / "copy" / "drops"]) == original
    (tmp_path / "home").rename(tmp_path / "moved")
    assert files_version([tmp_path / "moved" / "dataset", tmp_path / "moved" / "drops"]) == original


def test_a_settled_file_is_hashed_once_until_it_changes_and_a_fresh_one_every_time(tmp_path, monkeypatch):
    import hashlib

    from benchwright import loading

    hashed = []
    real = hashlib.file_digest
    monkeypatch.setattr(hashlib, "file_digest", lambda handle, name: hashed.append(handle.name) or real(handle, name))
    paths = folders(tmp_path)
    items = paths[0] / "items.jsonl"
    # Just written: hashed at every call, so a same-size rewrite with its old times put back is still seen.
    first = files_version(paths)
    stat = items.stat()
    items.write_text('{"item_id": "b"}\n')
    os.utime(items, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (second := files_version(paths)) != first and len(hashed) == 6
    # Settled (as if written long ago): the next calls read no file until one changes.
    monkeypatch.setattr(loading, "SETTLED_S", -1.0)
    hashed.clear()
    assert files_version(paths) == files_version(paths) == second and len(hashed) == 3
    items.write_text('{"item_id": "cc"}\n')
    assert files_version(paths) != second and hashed[3:] == [str(items)]
    # One entry per file however often it changes: a long-lived process does not grow with its files' history.
    assert sorted(p for p in loading._DIGESTS if p.startswith(str(tmp_path))) == sorted(map(str, [
        items, paths[0] / "images" / "a.png", paths[1] / "game-1.jsonl"]))


def test_a_files_version_changes_with_content_names_and_presence_only(tmp_path):
    paths = folders(tmp_path)
    original = files_version(paths)
    # Unfinished and hidden files are not read, so they change nothing (a game in play, an editor's swap file).
    (paths[1] / "game-2.jsonl.part").write_text('{"mark": 2}\n')
    (paths[0] / ".items.jsonl.swp").write_text("x")
    assert files_version(paths) == original
    (paths[1] / "game-2.jsonl.part").rename(paths[1] / "game-2.jsonl")
    assert (published := files_version(paths)) != original
    (paths[0] / "items.jsonl").write_text('{"item_id": "b"}\n')
    assert (edited := files_version(paths)) != published
    (paths[0] / "images" / "a.png").rename(paths[0] / "images" / "b.png")
    assert (renamed := files_version(paths)) != edited
    # A file moved from one folder to the other is a change, and so is a folder that appears.
    (paths[1] / "game-1.jsonl").rename(paths[0] / "game-1.jsonl")
    assert (moved := files_version(paths)) != renamed
    assert files_version(paths + [tmp_path / "later"]) != moved
    (tmp_path / "later").mkdir()
    assert files_version(paths + [tmp_path / "later"]) not in (moved, files_version(paths + [tmp_path / "missing"]))
