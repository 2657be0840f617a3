"""Report tables go to Dagster's event log and to terminals: they never show personal data."""

import pandas as pd

from benchwright.report import markdown_table, text_table


def test_previews_and_console_tables_mask_personal_data_and_keep_the_row_count():
    df = pd.DataFrame({"who": ["jean.dupont@exemple.fr", "anon"] * 8, "score": [0.5] * 16})
    preview = markdown_table(df)
    assert "jean.dupont" not in preview and "[REDACTED:email]" in preview
    assert "6 more rows" in preview  # the first 10 of 16 are shown
    console = text_table(df.head(2))
    assert "jean.dupont" not in console and "anon" in console and "0.5" in console
