"""Dataset loaders: each returns the items it could use and a located problem for every row it could not."""

from __future__ import annotations

import os
from pathlib import Path


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
    return raw.decode("utf-8-sig", errors="surrogateescape")
