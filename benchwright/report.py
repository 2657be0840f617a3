"""Small, dependency-free formatting for reports: markdown previews and console tables."""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from benchwright.pii import redacted

if TYPE_CHECKING:  # annotations only: `dev.py show` prints tables without paying for pandas' import
    import pandas as pd


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:.0f}"
    # Tables are redacted when stored; a preview or a console table is masked again whatever it shows,
    # because it goes to Dagster's event log and to people's terminals.
    text = redacted(str(value)).replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= 80 else text[:77] + "..."


def markdown_table(df: pd.DataFrame, max_rows: int = 10) -> str:
    """A markdown table of the first `max_rows` rows (for Dagster's metadata preview)."""
    if df.empty:
        return "_(no rows)_"
    shown = df.head(max_rows)
    lines = ["| " + " | ".join(map(str, shown.columns)) + " |", "|" + "---|" * len(shown.columns)]
    for row in shown.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    if len(df) > max_rows:
        lines.append(f"\n_{len(df) - max_rows} more rows_")
    return "\n".join(lines)


def text_table(df: pd.DataFrame) -> str:
    """A fixed-width plain-text table for the console."""
    return rows_table(list(df.columns), df.itertuples(index=False))


def rows_table(columns: Sequence, rows: Iterable[Sequence]) -> str:
    """``text_table`` of plain rows under ``columns`` (a DB-API cursor's, say)."""
    cells = [[_cell(v) for v in row] for row in rows]
    if not cells:
        return "(no rows)"
    header = [str(c) for c in columns]
    widths = [max(len(header[i]), *(len(r[i]) for r in cells)) for i in range(len(header))]
    fmt = "  ".join("{:<%d}" % w for w in widths)
    return "\n".join([fmt.format(*header), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in cells])


def data_url_markdown(png: bytes, alt: str) -> str:
    """Markdown that shows the PNG inline (Dagster renders it in the asset's metadata)."""
    return f"![{alt}](data:image/png;base64,{base64.b64encode(png).decode('ascii')})"
