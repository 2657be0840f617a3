"""The warehouse's location is one setting (BENCHWRIGHT_WAREHOUSE), read in one place."""

import re
import subprocess

import pytest

from benchwright import paths
from benchwright.paths import ROOT, warehouse_location


def test_default_is_the_file_in_the_home(monkeypatch, tmp_path):
    monkeypatch.delenv("BENCHWRIGHT_WAREHOUSE", raising=False)
    assert warehouse_location(tmp_path) == tmp_path / "warehouse.duckdb"


def test_a_configured_path_wins_and_is_made_absolute(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BENCHWRIGHT_WAREHOUSE", "shared/results.duckdb")
    assert warehouse_location(tmp_path / "home") == tmp_path / "shared" / "results.duckdb"
    from resources import default_resources
    assert default_resources(home=tmp_path / "home")["warehouse"].database == str(tmp_path / "shared" / "results.duckdb")


@pytest.mark.parametrize("location", ["md:benchwright?motherduck_token=secret-token", "ducklake:postgres:dbname=wh"])
def test_a_shared_warehouse_string_is_refused_with_a_pointer_and_without_its_token(monkeypatch, tmp_path, location):
    monkeypatch.setenv("BENCHWRIGHT_WAREHOUSE", location)
    with pytest.raises(ValueError, match="docs/SCALE.md") as refused:
        warehouse_location(tmp_path)
    assert "secret-token" not in str(refused.value)


def test_no_other_module_names_the_warehouse_file():
    # The file name lives in benchwright/paths.py alone; code that spelled it out would miss the setting.
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    spelled = [name for name in tracked.stdout.split()
               if not name.startswith(("tests/", "bench/")) and name != "benchwright/paths.py"
               and re.search(r"""["']warehouse\.duckdb["']""", (ROOT / name).read_text(encoding="utf-8"))]
    assert spelled == [], spelled
    assert paths.WAREHOUSE_FILE == "warehouse.duckdb"
