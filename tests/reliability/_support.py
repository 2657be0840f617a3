"""Helpers shared by the reliability tests: item files of any size, registries, whole-file scans."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import duckdb
from PIL import Image

from benchwright.paths import ROOT

SAMPLE_ITEMS = ROOT / "sample_data" / "creation" / "items.jsonl"


def write_items(folder: Path, count: int) -> Path:
    """`count` distinct Creation items (the sample's, cycled, each with its own instruction) and one
    small image, as a JSONL dataset in `folder`. Returns the JSONL path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "images").mkdir(exist_ok=True)
    Image.new("RGB", (16, 16), (200, 30, 30)).save(folder / "images" / "red.png")
    sample = [json.loads(line) for line in SAMPLE_ITEMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = []
    for i in range(count):
        item = dict(sample[i % len(sample)])
        item["item_id"] = f"item-{i:04d}"
        item["instruction"] = f"{item['instruction']} (version {i})"  # distinct requests, distinct cache keys
        item["images"] = ["images/red.png"]
        lines.append(json.dumps(item))
    path = folder / "items.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def items_run_config(path: Path) -> dict:
    return {"ops": {"creation_items": {"config": {"path": str(path)}}}}


def http_entry(base_url: str, model: str, role: str, **extra) -> dict:
    return {"model": f"openai/{model}", "api_base": base_url, "role": role, "display_name": f"{model} over HTTP", **extra}


def duckdb_text(path: str) -> dict[str, str]:
    """`table.column` -> the text of all its cells, one per line, for every table and view of a DuckDB
    file. Read through SQL, so compression cannot hide a value the way it can from a scan of the
    file's bytes. Lists, structs and blobs are taken in their text form."""
    con = duckdb.connect(path, read_only=True)
    try:
        columns = con.execute("SELECT table_name, column_name FROM duckdb_columns() "
                              "WHERE NOT internal AND database_name = current_database()").fetchall()
        return {f"{table}.{column}": "\n".join(
                    str(v) for (v,) in con.execute(f'SELECT CAST("{column}" AS VARCHAR) FROM "{table}"').fetchall())
                for table, column in columns}
    finally:
        con.close()


def containing(texts: dict[str, str], needle: str) -> list[str]:
    """The names whose text contains `needle`."""
    return [name for name, text in texts.items() if needle in text]


def sqlite_dump(path: Path) -> str:
    con = sqlite3.connect(str(path))
    try:
        return "\n".join(con.iterdump())
    finally:
        con.close()


def files_containing(folder: Path, needle: str) -> list[str]:
    """Every file under `folder` whose raw bytes contain `needle` (UTF-8)."""
    raw = needle.encode("utf-8")
    return [str(p) for p in sorted(folder.rglob("*")) if p.is_file() and raw in p.read_bytes()]
