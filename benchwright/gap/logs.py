"""GAP game logs (benchwright/gap/README.md#the-game): one JSON object per line, one question, the model's answer and the player's mark;
parsed with their natural key and personal data removed."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pandas as pd

from benchwright.loading import complete_lines
from benchwright.pii import pseudonym, redacted

TIME_LIMIT_S = 120.0  # seconds per picture (the game's rule)
MARKS = ("correct", "wrong")  # the player's two buttons


LOG_FIELDS: dict[str, type | tuple] = {
    "session_id": str, "player_id": str, "session_start": str, "image_id": str, "tainted": bool,
    "image_order": int, "time_limit_s": (int, float), "question_index": int, "question": str,
    "model_answer": str, "instructed_wrong": bool, "player_mark": str, "seconds_taken": (int, float),
}
LOG_COLUMNS = list(LOG_FIELDS)


def parse_log_line(line: str) -> dict:
    """One log line -> a row; raises ValueError naming what is wrong."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg}") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    missing = [f for f in LOG_FIELDS if f not in record]
    if missing:
        raise ValueError(f"missing field(s): {', '.join(missing)}")
    for field, kind in LOG_FIELDS.items():
        value = record[field]
        # bool is an int in Python: an int field must not accept true/false.
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            raise ValueError(f"field {field!r} has the wrong type ({type(value).__name__})")
    if record["player_mark"] not in MARKS:
        raise ValueError(f"player_mark must be one of {MARKS}, got {record['player_mark']!r}")
    if record["instructed_wrong"] and not record["tainted"]:
        raise ValueError("instructed_wrong on an untainted image")
    if not 0 <= record["seconds_taken"] <= record["time_limit_s"]:
        raise ValueError(f"seconds_taken {record['seconds_taken']} outside [0, time_limit_s]")
    if record["image_order"] < 1 or record["question_index"] < 0:
        raise ValueError("image_order must be >= 1 and question_index >= 0")
    try:
        pd.Timestamp(record["session_start"])
    except ValueError:
        raise ValueError(f"session_start is not a timestamp: {record['session_start']!r}") from None
    return without_personal_data({field: record[field] for field in LOG_FIELDS})


def without_personal_data(mark: dict) -> dict:
    """A parsed mark as it may be stored, whoever produced the file (the web app masks, other producers
    may not): the free text redacted, and an identity that is personal data (a player or session named
    by an e-mail) replaced by its stable pseudonym, so the natural key stays one key per person."""
    return {**mark, "question": redacted(mark["question"]), "model_answer": redacted(mark["model_answer"]),
            "player_id": pseudonym(mark["player_id"]), "session_id": pseudonym(mark["session_id"])}


# A game mark's natural key: a session shows each picture once (image_order) and numbers its questions.
MARK_KEY = ["session_id", "image_order", "question_index"]
# Where a mark was read: the same file and line read again is the same record, not a duplicate.
MARK_PLACE = ["file_name", "line_no"]


QUARANTINE_COLUMNS = ["file_sha256", "file_name", "line_no", "reason", "line"]


@dataclass
class LogFile:
    """One game-log file as read for storing: its marks, its quarantined lines and the file's own record land in
    the warehouse together (`gap_marks`, `gap_log_quarantine`, `gap_log_files`); `unfinished` is a last line
    with no line end yet, read when it is complete."""

    name: str
    digest: str
    marks: pd.DataFrame
    quarantine: pd.DataFrame
    record: pd.DataFrame
    unfinished: bool


def read_log_file(path: Path, now: datetime) -> LogFile:
    """Read one log file. A file named after its player (an outside producer's choice) is stored under a
    pseudonym; its record says when it was read (`now`, naive UTC like every stored time)."""
    name = pseudonym(path.name)
    digest, good, bad, tail = parse_log_file(path.read_bytes(), name)
    record = pd.DataFrame([{"file_sha256": digest, "file_name": name, "lines_loaded": len(good),
                            "lines_quarantined": len(bad), "ingested_at": now}])
    return LogFile(name, digest, good, pd.DataFrame(bad, columns=QUARANTINE_COLUMNS), record, bool(tail.strip()))


def parse_log_file(data: bytes, file_name: str) -> tuple[str, pd.DataFrame, list[dict], bytes]:
    """(content sha256, good rows with file name and line numbers, quarantined lines with reasons, the
    unfinished last line).

    Follows the drop-folder contract (``benchwright.loading``): only complete lines are records (LF or
    CRLF; blank lines skipped); a last line without a line end is still being written and is returned
    as the tail, not read. A line that is not valid UTF-8 is quarantined, never silently altered.
    """
    digest = hashlib.sha256(data).hexdigest()
    rows, bad = [], []
    lines, tail = complete_lines(data)
    for number, raw_bytes in lines:
        try:
            raw = raw_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad.append({"file_sha256": digest, "file_name": file_name, "line_no": number,
                        "reason": f"not valid UTF-8 (byte {exc.start} of the line)",
                        "line": redacted(raw_bytes.decode("utf-8", errors="replace")[:2000])})
            continue
        try:
            row = parse_log_line(raw)
        except ValueError as exc:
            # A quarantined line is kept for the operator, redacted like every stored text.
            bad.append({"file_sha256": digest, "file_name": file_name, "line_no": number,
                        "reason": redacted(str(exc)), "line": redacted(raw[:2000])})
            continue
        rows.append({"file_sha256": digest, "file_name": file_name, "line_no": number, **row})
    frame = pd.DataFrame(rows, columns=["file_sha256", "file_name", "line_no", *LOG_COLUMNS])
    if len(frame):
        frame["session_start"] = pd.to_datetime(frame["session_start"], utc=True).dt.tz_localize(None)
        frame["seconds_taken"] = frame["seconds_taken"].astype(float)
        frame["time_limit_s"] = frame["time_limit_s"].astype(float)
    return digest, frame, bad, tail
