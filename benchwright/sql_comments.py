"""The warehouse documents itself: COMMENT ON statements made from the comments the SQL files already carry.

One source, the SQL files. A table's comment is the ``--`` block right above its ``CREATE TABLE`` in sql/*/ddl
(else its file's header). A column's is, in this order: the ``-- ...`` written beside it (continued on the
comment-only lines below it, or beside its ``ALTER TABLE ... ADD COLUMN``); the meaning its name has everywhere
(a ``-- Shared columns:`` block of a DDL file: sql/core/ddl/00_core.sql's model, judge, simulated ..., or a
benchmark's own, as MMMT-IF's chat_id, turn ...; the first file to name a column wins); the block above the ALTER
that added it. A column nobody described stays without a comment: nothing is invented (the shipped DDL describes
every column).

A view's comment is its file's header (the ``--`` lines above ``CREATE ... VIEW``). A view's column takes:

1. a header line ``name: text`` (or ``name, other: text``; also ```name`: text`` inside a sentence);
2. the comment of the column it is selected from (``l.judge_display AS judge_name``, ``round(r.rating, 1) AS
   rating``; not through count/list, which change what it means), in the tables and earlier views the view
   reads (FROM / JOIN), in that order;
3. the shared meaning of that column's name.

Pure text in, SQL text out: resources/warehouse.py runs the statements when it applies the DDL and when it
publishes the snapshot's views; tests/unit/test_sql_comments.py fails when a shipped table, table column, view
or view column has no comment.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

_CREATE_TABLE = re.compile(r"^CREATE\s+(?:OR\s+REPLACE\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s*\(", re.I)
_CREATE_VIEW = re.compile(r"^CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+AS\b", re.I)
_ADD_COLUMN = re.compile(r"^ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)[^;]*;\s*(?:--\s*(.*))?$",
                         re.I)
_COLUMN = re.compile(r"^\s+(\w+)\s+[A-Za-z][^-]*?(?:--\s*(.*))?$")
_CONTINUATION = re.compile(r"^\s+--\s?(.*)$")
# A header naming columns: `name`: ..., name, other: ... at the start of the header or of a sentence.
_HEADER_COLUMNS = re.compile(r"(?:^|(?<=[.;)]\s))(`?\w+`?(?:\s*,\s*`?\w+`?)*)\s*:\s+", re.M)
# The column an output column is computed from: `x.col AS alias`, `f(x.col, 1) AS alias`, `coalesce(col, 0) AS alias`.
_ALIAS = re.compile(r"((?:\b\w+\()*)(?:\w+\.)?(\w+)((?:\)|\s*,\s*[\w'.]+\s*\))*)\s+AS\s+(\w+)\b", re.I)
# Functions whose result no longer means what their argument's comment says.
_COUNTING = {"count", "list", "string_agg", "array_agg", "len", "length", "count_distinct"}
COMMENTS_VERSION = "1"  # in the schema digest (resources/warehouse.py): bump when what is made here changes
SHARED = "*shared*"   # the key of the shared columns' meanings among the tables' comments
_READS = re.compile(r"\b(?:FROM|JOIN)\s+(\w+)", re.I)
_NOT_COLUMNS = {"constraint", "primary", "unique", "check", "foreign"}


@dataclass
class Documented:
    """A table's or view's comment and its columns' comments (in file order)."""

    name: str
    kind: str  # 'TABLE' | 'VIEW'
    comment: str = ""
    columns: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)


def _joined(lines: Iterable[str]) -> str:
    return " ".join(line.strip() for line in lines if line.strip()).strip()


def _comment_block(lines: list[str]) -> list[str]:
    return [line[2:].strip() for line in lines]


def ddl_documentation(text: str) -> dict[str, Documented]:
    """Every table a DDL file creates or adds columns to, with the comments written beside it. A table with no
    block of its own takes the file's header; a column added by ALTER with no comment beside it takes the block
    above (often an upgrade note, so ``notes``: used only when no same-named column says more)."""
    tables: dict[str, Documented] = {}
    lines = text.splitlines()
    header = _comment_block(lines[:next((i for i, line in enumerate(lines) if not line.startswith("--")), len(lines))])
    pending: list[str] = []   # the `--` lines right above the statement being read
    after_statement = False   # a comment line after an ALTER starts a new block
    current: Documented | None = None   # the table whose column list is being read
    column: str | None = None   # its last column, which comment-only lines continue
    for line in lines:
        stripped = line.strip()
        if current is not None:
            if stripped.startswith(")"):
                current, column = None, None
                continue
            continuation = _CONTINUATION.match(line)
            if continuation:
                if column is not None and current.columns.get(column):
                    current.columns[column] = f"{current.columns[column]} {continuation.group(1).strip()}"
                continue
            found = _COLUMN.match(line)
            if found and found.group(1).lower() not in _NOT_COLUMNS:
                column = found.group(1)
                current.columns.setdefault(column, (found.group(2) or "").strip())
            continue
        if line.startswith("--"):
            pending = [line] if after_statement else pending + [line]
            after_statement = False
            continue
        created = _CREATE_TABLE.match(line)
        if created and not re.match(r"^CREATE\s+(?:OR\s+REPLACE\s+)?TEMP", line, re.I):
            current = tables.setdefault(created.group(1), Documented(created.group(1), "TABLE"))
            current.comment = current.comment or _joined(_comment_block(pending)) or _joined(header)
            column, pending = None, []
            continue
        added = _ADD_COLUMN.match(line)
        if added:
            table = tables.setdefault(added.group(1), Documented(added.group(1), "TABLE"))
            if (added.group(3) or "").strip() and not table.columns.get(added.group(2)):
                table.columns[added.group(2)] = added.group(3).strip()
            elif pending:
                table.notes.setdefault(added.group(2), _joined(_comment_block(pending)))
            after_statement = True   # a block above several ALTERs describes them all
            continue
        pending, after_statement = [], False
    return tables


def shared_columns(ddl_texts: Iterable[str]) -> dict[str, str]:
    """The DDL's ``-- Shared columns`` blocks (sql/core/ddl/00_core.sql's, a benchmark's own): name -> what it
    means everywhere; a name two blocks describe keeps the first file's meaning."""
    shared: dict[str, str] = {}
    for text in ddl_texts:
        for block in re.findall(r"^-- Shared columns.*?(?=^[^-]|\Z)", text, re.M | re.S):
            lines = "\n".join(_comment_block(block.splitlines()))
            marks = list(_HEADER_COLUMNS.finditer(lines))
            for mark, following in zip(marks, [*marks[1:], None]):
                described = " ".join(lines[mark.end():following.start() if following else len(lines)].split())
                for name in re.findall(r"\w+", mark.group(1)):
                    shared.setdefault(name, described)
    return shared


def merged(documented: Iterable[dict[str, Documented]]) -> dict[str, Documented]:
    """The tables of several DDL files, a table's first comments kept."""
    tables: dict[str, Documented] = {}
    for found in documented:
        for name, item in found.items():
            table = tables.setdefault(name, Documented(name, item.kind))
            table.comment = table.comment or item.comment
            for column, comment in item.columns.items():
                if not table.columns.get(column):
                    table.columns[column] = comment
            for column, note in item.notes.items():
                table.notes.setdefault(column, note)
    return tables


def table_column_comments(table: Documented, columns: list[str], shared: Mapping[str, str]) -> dict[str, str]:
    """A table's columns' comments: beside the column, else the shared meaning of its name (the DDL's ``Shared
    columns``), else the note above the ALTER that added it. Another table's column of the same name is not
    asked: `n` or `pairs` say different things in different tables."""
    found = {name: table.columns.get(name) or shared.get(name) or table.notes.get(name, "") for name in columns}
    return {name: comment for name, comment in found.items() if comment}


def view_documentation(text: str) -> Documented:
    """A view file's view: its header as the comment, and the columns its header names (``name: text`` or
    ```name`, `other`: text`` at the start of a line or sentence; the text runs to the next such name)."""
    header: list[str] = []
    for line in text.splitlines():
        created = _CREATE_VIEW.match(line)
        if created:
            lines = _comment_block(header)
            view = Documented(created.group(1), "VIEW", _joined(lines))
            text = "\n".join(lines)
            marks = list(_HEADER_COLUMNS.finditer(text))
            for mark, following in zip(marks, [*marks[1:], None]):
                described = " ".join(text[mark.end():following.start() if following else len(text)].split())
                for name in re.findall(r"\w+", mark.group(1)):
                    view.columns.setdefault(name, described)
            return view
        header = header + [line] if line.startswith("--") else []
    raise ValueError("no CREATE VIEW in this file")


def view_column_comments(view_sql: str, view: Documented, columns: list[str],
                         read: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """The comment of each of a view's output ``columns`` (those found; see the module's docstring). ``read``:
    table or earlier view -> its columns' comments; the tables this view reads (FROM / JOIN) are searched in order."""
    # Keywords and types are upper case in our SQL (`NULL::BOOLEAN AS x`, `END AS x`): no column there.
    sources = {alias: source for functions, source, closing, alias in _ALIAS.findall(view_sql)
               if functions.count("(") == closing.count(")") and not source.isupper()
               and not _COUNTING & {f.lower() for f in re.findall(r"(\w+)\(", functions)}}
    tables = [name for name in dict.fromkeys(_READS.findall(view_sql)) if name in read]
    comments = {}
    for name in columns:
        source = sources.get(name, name)
        comment = view.columns.get(name) or next((read[t][source] for t in tables if read[t].get(source)), "") \
            or read.get(SHARED, {}).get(source, "")
        if comment:
            comments[name] = comment
    return comments


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def comment_statements(kind: str, name: str, comment: str, columns: dict[str, str]) -> list[str]:
    """COMMENT ON statements for a table or view and the commented columns given."""
    statements = [f"COMMENT ON {kind} {name} IS {_literal(comment)}"] if comment else []
    statements += [f"COMMENT ON COLUMN {name}.{column} IS {_literal(text)}"
                   for column, text in columns.items() if text]
    return statements


def table_statements(ddl_texts: Iterable[str], present: Mapping[str, list[str]]
                     ) -> tuple[list[str], dict[str, dict[str, str]]]:
    """COMMENT ON statements for the tables of ``present`` (table -> its columns) that the DDL texts describe,
    and every DDL table's column comments, which the views' columns are looked up in."""
    ddl_texts = list(ddl_texts)
    tables = merged(ddl_documentation(text) for text in ddl_texts)
    shared = shared_columns(ddl_texts)
    read = {name: table_column_comments(table, [*table.columns, *table.notes], shared)
            for name, table in tables.items()}
    read[SHARED] = shared
    statements = []
    for name, columns in present.items():
        if name in tables:
            table = tables[name]
            statements += comment_statements("TABLE", name, table.comment,
                                             table_column_comments(table, columns, shared))
    return statements, read


def view_statements(view_sql: str, view_columns: Mapping[str, list[str]], read: dict[str, dict[str, str]]
                    ) -> list[str]:
    """COMMENT ON statements for the view a file creates (``view_columns``: view -> its output columns, as the
    database has them). Its columns' comments join ``read`` for the views applied after it."""
    try:
        view = view_documentation(view_sql)
    except ValueError:   # a plugin's file written otherwise: its view stays uncommented, the publish goes on
        return []
    comments = view_column_comments(view_sql, view, view_columns.get(view.name, []), read)
    read[view.name] = comments
    return comment_statements("VIEW", view.name, view.comment, comments)
