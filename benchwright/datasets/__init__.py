"""Dataset loaders: each returns the items it could use and a located problem for every row it could not."""

from __future__ import annotations

import json
import os
from pathlib import Path


class RowError(ValueError):
    """A reason to skip one row; the loaders turn it into a located problem."""


def json_object(line: str) -> dict:
    """One JSONL line as a dict, or a RowError saying why not.

    JSON may escape a lone surrogate (\\ud800): valid JSON, but not text any database can store,
    so it is refused here rather than failing the whole write later.
    """
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RowError(f"malformed JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(obj, dict):
        raise RowError(f"expected a JSON object, got {type(obj).__name__}")
    _check_unicode(obj)
    return obj


def _check_unicode(value: object, where: str = "") -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise RowError(f"field {where or '?'!r} holds an escaped lone surrogate, not valid Unicode") from None
    elif isinstance(value, dict):
        for key, inner in value.items():
            _check_unicode(inner, where or str(key))
    elif isinstance(value, list):
        for inner in value:
            _check_unicode(inner, where)


def read_text_keeping_bad_bytes(path: str | os.PathLike, what: str) -> str:
    """A whole text file (UTF-8, BOM allowed) whose undecodable bytes survive as surrogate escapes.

    A loader then reports the rows that hold them instead of failing the file. A missing or
    unreadable file raises, naming `what` and the path.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} not found: {path}") from None
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path}: {exc}") from None
    return decode_keeping_bad_bytes(raw)


def decode_keeping_bad_bytes(raw: bytes) -> str:
    """UTF-8 (BOM allowed) with undecodable bytes kept as surrogate escapes (see `has_bad_bytes`)."""
    return raw.decode("utf-8-sig", errors="surrogateescape")


def has_bad_bytes(text: str) -> bool:
    """True when `text` holds a byte that was not UTF-8 (kept as a surrogate escape by the reader above)."""
    return any("\udc80" <= ch <= "\udcff" for ch in text)
