"""The helpers every loader shares (benchwright.loading)."""

import pytest

from benchwright.loading import RowError, csv_table, json_object, read_text_keeping_bad_bytes


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
