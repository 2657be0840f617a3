"""The helpers every loader shares (benchwright.loading)."""

import pytest

from benchwright.loading import RowError, json_object, read_text_keeping_bad_bytes


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
