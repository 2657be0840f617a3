"""What every loader shares: a located problem for each row it cannot use, row errors, lenient reading of
files with bad bytes, and the drop-folder contract (complete lines only, each record once).

Each benchmark's loader returns the items it could use and a ``LoadProblem`` for every row it could not."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class LoadProblem:
    """Where a row or file could not be used (``file:row``), why, and the field at fault: the column or key as
    the file names it (a dotted path inside a record, ``games[1].score``), None when the record as a whole is
    wrong (not JSON, not UTF-8, torn, a duplicate) or the problem is the file's."""

    location: str
    reason: str
    field: str | None = None


class RowError(ValueError):
    """A reason to skip one row, naming the field at fault when one is; the loaders turn it into a located
    problem (`problem_of`)."""

    def __init__(self, reason: str, field: str | None = None):
        super().__init__(reason)
        self.field = field


def problem_of(location: str, error: Exception) -> LoadProblem:
    """The located problem of an error that refused a row: its text, and its field when it names one."""
    return LoadProblem(location, str(error), getattr(error, "field", None))


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
            raise RowError(f"field {where or '?'!r} holds an escaped lone surrogate, not valid Unicode",
                           where or None) from None
    elif isinstance(value, dict):
        for key, inner in value.items():
            _check_unicode(inner, where or str(key))
    elif isinstance(value, list):
        for inner in value:
            _check_unicode(inner, where)


@dataclass
class LoadResult:
    """What a loader found: the usable items, and a located problem for everything it could not use."""

    items: list
    problems: list[LoadProblem]


def read_bytes(path: str | os.PathLike, what: str) -> bytes:
    """A whole file's bytes; a missing or unreadable file raises, naming `what` and the path."""
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} not found: {path}") from None
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path}: {exc}") from None


def read_text_keeping_bad_bytes(path: str | os.PathLike, what: str) -> str:
    """A whole text file (UTF-8, BOM allowed) whose undecodable bytes survive as surrogate escapes.

    A loader then reports the rows that hold them instead of failing the file. A missing or
    unreadable file raises, naming `what` and the path.
    """
    return decode_keeping_bad_bytes(read_bytes(path, what))


def decode_keeping_bad_bytes(raw: bytes) -> str:
    """UTF-8 (BOM allowed) with undecodable bytes kept as surrogate escapes (see `has_bad_bytes`)."""
    return raw.decode("utf-8-sig", errors="surrogateescape")


def has_bad_bytes(text: str) -> bool:
    """True when `text` holds a byte that was not UTF-8 (kept as a surrogate escape by the reader above)."""
    return any("\udc80" <= ch <= "\udcff" for ch in text)


def bad_bytes_cell(header: list[str], cells: list[str]) -> str | None:
    """The column of a record's first cell holding bytes that are not UTF-8 (the problem's field), or None."""
    return next((name for name, cell in zip(header, cells) if has_bad_bytes(cell)), None)


def bad_bytes_field(value: object, where: str = "") -> str | None:
    """Where in a parsed JSON record (decoded keeping bad bytes) the first text holding bytes that are not UTF-8
    is, as a dotted path (``games[1].judgment``; a key that holds them is named itself), or None."""
    if isinstance(value, str):
        return (where or None) if has_bad_bytes(value) else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        if isinstance(key, str) and has_bad_bytes(key):
            return f"{where}.{key}" if where else key
        path = f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}" if where else key
        found = bad_bytes_field(inner, path)
        if found:
            return found
    return None


def bad_bytes_json_field(text: str) -> str | None:
    """`bad_bytes_field` of a JSON record's text, or None when the text is not JSON (then no field can be told)."""
    try:
        return bad_bytes_field(json.loads(text))
    except (ValueError, RecursionError):
        return None


# --- CSV files: every record located, none read silently wrong ---------------------------------------------
#
# Python's csv module in its default mode reads a quoted cell that is never closed to the end of the file (one
# giant cell: the rows after it vanish), turns `"a"b` into `ab`, and a DictReader keeps one value of a column
# named twice and drops cells beyond the header. `csv_table` reads strictly and says where each of these is.

@dataclass(frozen=True)
class CsvRecord:
    """One record of a CSV file after its header."""

    line: int  # the file line the record starts on (a quoted cell may run over several lines)
    row: int  # its place after the header: 1 for the first record (blank records count)
    cells: list[str]
    problem: str | None = None  # why it cannot be used (broken quoting, a cell count unlike the header's)


@dataclass(frozen=True)
class CsvTable:
    header: list[str]  # the column names, stripped; [] when the file has no usable header
    records: list[CsvRecord]  # blank records (no cell holds anything) are left out
    header_problem: str | None = None  # why the file's records cannot be read at all (line 1)


def csv_table(text: str, short_records_ok: bool = False) -> CsvTable:
    """The header and records of a CSV text (complete lines: see `without_unfinished_line`), read strictly.

    A record with fewer cells than the header (a torn line; with ``short_records_ok``, for formats whose
    trailing cells may be left out, the missing cells are empty), with cells beyond the header that hold
    something (they would be lost), or whose quoting is broken (`"a"b`, a NUL) is returned with its
    ``problem``, and the records after it are still read. A quoted cell that is never closed runs to the end
    of the file, so the rows after it cannot be told apart: it is one problem, at the line its record starts
    on. A header that is empty, names a column twice (which cell would be meant?) or has broken quoting is the
    ``header_problem``, and no record is returned.
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    parsed: list[tuple[int, list[str] | None, str | None]] = []  # (first line, cells, problem)
    previous_end = 0
    while True:
        try:
            cells, problem = next(reader), None
        except StopIteration:
            break
        except csv.Error as exc:
            cells, problem = None, _csv_problem(str(exc), previous_end + 1, reader.line_num)
            if reader.line_num == previous_end:  # nothing read: never loop on the same spot
                parsed.append((previous_end + 1, cells, problem))
                break
        parsed.append((previous_end + 1, cells, problem))
        previous_end = reader.line_num
    if not parsed:
        return CsvTable([], [], "the file is empty (no header line)")
    if parsed[0][1] is None:
        return CsvTable([], [], f"the header: {parsed[0][2]}")
    header = [name.strip() for name in parsed[0][1]]
    if not any(header):
        return CsvTable([], [], "the first line (the header) is empty")
    first_at: dict[str, int] = {}
    for place, name in enumerate(header, start=1):
        if name and name in first_at:
            return CsvTable(header, [], f"column {name!r} appears twice in the header (columns {first_at[name]} "
                                        f"and {place}): which one holds the values is unclear, so no row is read")
        first_at.setdefault(name, place)
    records: list[CsvRecord] = []
    broken: int | None = None  # the index in `records` of a record whose quoting broke, while its rest is read
    raw_lines: list[str] = []
    row = 0
    for number, (line, cells, problem) in enumerate(parsed[1:], start=1):
        end = parsed[number + 1][0] - 1 if number + 1 < len(parsed) else line
        if broken is not None and not short_records_ok:
            # A quote that broke a record mid-way (`"He said "hi"` in a cell over several lines) leaves the
            # record's other lines to be read as records of their own: they are its rest, not records. A piece
            # is its rest when it cannot be a record (broken too, blank, a cell count unlike the header's) or
            # holds the quote that closes the broken cell (an odd number of quotes: a record has pairs).
            raw_lines = raw_lines or io.StringIO(text, newline="").readlines()
            closes = "".join(raw_lines[line - 1:end]).count('"') % 2 == 1
            if closes or _cannot_be_a_record(cells, len(header)):
                first = records[broken]
                reason = first.problem.split("; lines ", 1)[0]
                records[broken] = CsvRecord(first.line, first.row, [], f"{reason}; lines {first.line}-{end} not read")
                broken = None if closes else broken
                continue
        broken = None
        row += 1
        if cells is not None:
            if not any(cell.strip() for cell in cells):
                continue
            beyond = [cell for cell in cells[len(header):] if cell.strip()]
            if len(cells) < len(header) and short_records_ok:
                cells = cells + [""] * (len(header) - len(cells))
            elif len(cells) < len(header):
                problem = f"has {len(cells)} fields, header has {len(header)} (a torn line?)"
            elif beyond:  # (empty cells beyond the header, a trailing comma, lose nothing)
                problem = f"has {len(cells)} fields, header has {len(header)}"
        elif problem.startswith("not valid CSV"):
            broken = len(records)
        records.append(CsvRecord(line, row, cells[:len(header)] if cells else [], problem))
    return CsvTable(header, records)


def _cannot_be_a_record(cells: list[str] | None, width: int) -> bool:
    """Broken too, blank, or with another number of cells than the header's (a record of its own has them)."""
    return cells is None or not any(cell.strip() for cell in cells) or len(cells) != width


def _csv_problem(error: str, start: int, end: int) -> str:
    if error == "unexpected end of data":
        return f"a quoted cell is never closed: the rest of the file (lines {start}-{end}) is not read"
    return f"not valid CSV ({error})"


# --- the drop-folder contract and exactly-once records --------------------------------------------------
#
# Producers outside Benchwright (the web app, a game server, a script) deliver files to a drop folder.
# The contract, enforced by every loader of a drop folder:
#   1. a file under construction has another name (`*.part`) and is renamed when it is complete; only
#      the folder's final names (`*.jsonl`, `*.csv`) are read;
#   2. a record is a line that ends with a line end (LF or CRLF); a last line without one is still being
#      written and is not read (it is reported, and read once it is complete);
#   3. every record has a natural key; a record whose key is stored already is counted once: read again
#      from the same file and line (a file that grew, a re-read) it is simply known, from anywhere else
#      (a copy, a re-delivery with other line ends or blank lines, another file) it is a duplicate,
#      reported in `dataset_problems` as "duplicate of <file>:<line>", never data.

def complete_lines(data: bytes) -> tuple[list[tuple[int, bytes]], bytes]:
    """(line number, line without its line end) for every complete line, and the unfinished tail
    (b"" when the data ends with a line end). Blank lines keep their numbers but are left out."""
    parts = data.split(b"\n")
    tail = parts.pop()  # after the last "\n": b"" for a complete file
    lines = [(number, part.removesuffix(b"\r")) for number, part in enumerate(parts, start=1)]
    return [(n, line) for n, line in lines if line.strip()], tail


def split_new_records(incoming: list[dict], stored: dict[tuple, tuple], key: list[str], place: list[str]
                      ) -> tuple[list[dict], list[dict], int]:
    """Sort incoming records by their natural key: (new ones to store, duplicates, records already known).

    ``stored`` maps a key already in the table to the place (e.g. file, line) it was stored from. A
    duplicate is a dict with the record's place and ``first``, the place of the record it repeats.
    """
    # Compared as text, so that a key read back from the database (numbers as Python or NumPy ints,
    # say) matches the same key of a parsed record.
    first_at: dict[tuple, tuple] = {tuple(map(str, k)): tuple(map(str, v)) for k, v in stored.items()}
    new, duplicates, known = [], [], 0
    for record in incoming:
        record_key = tuple(str(record[c]) for c in key)
        record_place = tuple(str(record[c]) for c in place)
        if record_key not in first_at:
            first_at[record_key] = record_place
            new.append(record)
        elif first_at[record_key] == record_place:
            known += 1
        else:
            duplicates.append({"place": record_place, "first": first_at[record_key]})
    return new, duplicates, known


def once_each(rows: list[dict], key: list[str], identity: str) -> tuple[list[dict], list[tuple[str, str]]]:
    """Each record once, in order, for loaders that rebuild a table from every file of a folder: the kept
    rows and (place, "duplicate of <first place>") for every repeat.

    ``key``: the columns that make a record itself. Rows carry ``source_file`` and ``source_line``. A row
    whose ``identity`` column is empty (no time or rater: an anonymous vote) cannot tell two equal votes
    from one vote written twice; there the n-th equal row of a file is the key's n-th occurrence, so equal
    votes in one file all count while a copy of that file counts none.
    """
    occurrences: dict[tuple, int] = {}
    records = []
    for row in rows:
        content = tuple(row.get(c) for c in key)
        if row.get(identity) in (None, ""):
            in_file = (row["source_file"], content)
            occurrences[in_file] = occurrences.get(in_file, 0) + 1
            content += (occurrences[in_file],)
        records.append({"row": row, "natural_key": repr(content), "place": f"{row['source_file']}:{row['source_line']}"})
    kept, duplicates, _ = split_new_records(records, {}, ["natural_key"], ["place"])
    return [r["row"] for r in kept], [(d["place"][0], "duplicate of " + d["first"][0]) for d in duplicates]


def without_unfinished_line(text: str) -> tuple[str, str]:
    """(the complete lines, the unfinished tail): a last line without a line end is still being written."""
    if not text or text.endswith("\n"):
        return text, ""
    cut = text.rfind("\n") + 1
    return text[:cut], text[cut:]


def files_version(paths: list[str | os.PathLike]) -> str:
    """A short content hash of files and folders (recursively; unfinished ``*.part`` and hidden files left out),
    for the data version of an input that lives outside the warehouse. A missing path hashes as missing, so
    creating it later is a change too.

    Where the paths are is not part of it: each is known by its place in ``paths`` and its files by their
    names inside it, so a copied or moved home (its drop folders) or checkout (the sample data) has the
    same version, and a copy runs nothing that the original would not."""
    digest = hashlib.sha256()
    for place, root in enumerate(Path(p) for p in paths):
        if root.is_dir():
            kind, files = "folder", sorted((f.relative_to(root).as_posix(), f) for f in root.rglob("*") if f.is_file())
        else:
            kind, files = ("file", [(root.name, root)]) if root.is_file() else ("missing", [])
        files = [(relative, path) for relative, path in files
                 if not path.name.endswith(".part") and not any(part.startswith(".") for part in Path(relative).parts)]
        digest.update(f"{place}\0{kind}\0{len(files)}\0".encode())
        for relative, path in files:
            digest.update(f"{relative}\0".encode() + _file_digest(path))
    return digest.hexdigest()[:16]


# A long-lived process (the registry sensor's, at every tick) hashes a file again only when its stat changed. A file
# changed in the last SETTLED_S is hashed every time, as git does with "racily clean" entries: a second change
# within the timestamps' granularity could leave the stat as it was.
_DIGESTS: dict[str, tuple[tuple, bytes]] = {}  # path -> (its stat when hashed, its digest): one entry per file
SETTLED_S = 2.0


def _file_digest(path: Path) -> bytes:
    stat = path.stat()
    known = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    remembered = _DIGESTS.get(str(path))
    if remembered is not None and remembered[0] == known:
        return remembered[1]
    with open(path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").digest()
    if time.time() - max(stat.st_mtime, stat.st_ctime) > SETTLED_S:
        _DIGESTS[str(path)] = (known, digest)
    return digest
