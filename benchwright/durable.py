"""Crash-safe files for what people do in the web app: append one record at a time, publish by rename.

A record is accepted only after its line is on disk (write + fsync), so a crash of the server can
lose at most a line that was never acknowledged. Such a torn line (no trailing newline) is cut off
by `repair_torn_tail` before the file is appended to again, so it never merges with the next record.
"""

from __future__ import annotations

import csv
import fcntl
import io
import os
from pathlib import Path


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _append(path: Path, text: str) -> None:
    """One write of whole lines, flushed to disk before returning; the file and folder are made if missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists()
    with open(path, "ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)   # one writer at a time, also across processes
        try:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    if new:
        _fsync_folder(path.parent)


def append_line(path: Path, line: str) -> None:
    """Append one record as one line."""
    if "\n" in line or "\r" in line:
        raise ValueError("a record must be one line")
    _append(path, line + "\n")


def append_csv_row(path: Path, columns: list[str], row: dict) -> None:
    """Append one CSV record as one line (with the header first when the file is new or empty)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n", extrasaction="raise")
    writer.writerow({c: "" if row.get(c) is None else row[c] for c in columns})
    record = buffer.getvalue()
    if record.count("\n") != 1 or "\r" in record:
        raise ValueError("a CSV record must be one line (a field holds a line break)")
    if not path.exists() or path.stat().st_size == 0:
        record = ",".join(columns) + "\n" + record
    _append(path, record)


def read_lines(path: Path) -> list[str]:
    """Complete lines only: a torn last line (a crash mid-write) is not a record."""
    if not path.exists():
        return []
    text = path.read_bytes().decode("utf-8", errors="replace")
    complete = text if text.endswith("\n") else text[: text.rfind("\n") + 1]
    return [line for line in complete.split("\n") if line.strip()]


def repair_torn_tail(path: Path) -> int:
    """Cut a last line that has no newline (written by a crashed process); returns the bytes dropped."""
    if not path.exists():
        return 0
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as handle:
        handle.truncate(keep)
        handle.flush()
        os.fsync(handle.fileno())
    return len(data) - keep


def publish(part: Path, final: Path) -> bool:
    """Move a finished file into place atomically (readers see all of it or none); False if nothing to move."""
    if not part.exists():
        return False
    os.replace(part, final)
    _fsync_folder(final.parent)
    return True
