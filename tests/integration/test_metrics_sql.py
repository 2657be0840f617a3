"""Metrics computed in DuckDB give exactly the rows of their Python definitions (benchwright/<benchmark>/),
on stored tables with parse failures, failed calls and both languages."""

import json
import random

import pandas as pd
import pytest

from benchwright.urs.metrics import CRITERION_MEANS_SQL, LEADERBOARD_SQL
from benchwright.urs import metrics as urs_metrics
from benchwright.urs.intents import CRITERIA_BY_INTENT, INTENTS, LANGUAGES
from resources.warehouse import Warehouse


@pytest.fixture
def warehouse(tmp_path):
    return Warehouse(database=str(tmp_path / "w.duckdb"), snapshot_path=str(tmp_path / "snap.duckdb"))


def _urs_judgments(seed: int = 7) -> pd.DataFrame:
    """Judgments of 3 models by 2 judges: mostly parsed, some parse failures, some failed calls, a criterion
    the judge left out or left empty, and an intent seen in one language only."""
    rng = random.Random(seed)
    rows = []
    for judge in ("judge-b", "judge-a"):
        for model in ("m-3", "m-1", "m-2"):
            for number in range(90):
                intent, language = INTENTS[number % len(INTENTS)], LANGUAGES[number % 3 % 2]
                if intent == "Leisure":
                    language = "zh"
                criteria = {c: rng.randint(1, 10) for c in CRITERIA_BY_INTENT[intent]}
                if number % 17 == 0:
                    criteria.pop(next(iter(criteria)))
                if number % 23 == 0:  # a score left empty, and the final score inside the dict: neither is a criterion
                    criteria |= {next(iter(criteria)): None, "final": 5}
                outcome = rng.random()
                failed_call, parsed = outcome < 0.05, outcome >= 0.12
                rows.append({
                    "model": model, "judge": judge, "item_id": f"q{number:03d}", "intent": intent, "language": language,
                    "reference_model": "dataset", "raw_text": "…",
                    "final_score": rng.randint(1, 10) if parsed and not failed_call else None,
                    "criterion_scores": json.dumps(criteria, ensure_ascii=False, sort_keys=True)
                    if parsed and not failed_call else None,
                    "parse_ok": parsed and not failed_call, "parse_problem": None if parsed else "no_dict",
                    "error": "timeout" if failed_call else None, "request_key": f"k{number}", "simulated": True,
                    "source": "benchwright"})
    df = pd.DataFrame(rows)
    df["final_score"] = df["final_score"].astype("Int64")
    return df


def _same(sql_frame: pd.DataFrame, python_frame: pd.DataFrame) -> None:
    assert len(python_frame) > 0
    pd.testing.assert_frame_equal(sql_frame.reset_index(drop=True), python_frame.reset_index(drop=True),
                                  check_dtype=False, check_exact=True)


def test_urs_leaderboard_and_criterion_means_in_sql_equal_the_python_definitions(warehouse):
    stored = _urs_judgments()
    warehouse.replace_rows("urs_judgments", stored, match={})
    returned = warehouse.query("SELECT * FROM urs_judgments WHERE error IS NULL")  # what the Python path read
    _same(warehouse.query_file(LEADERBOARD_SQL), urs_metrics.leaderboard(returned))
    _same(warehouse.query_file(CRITERION_MEANS_SQL), urs_metrics.criterion_means(returned))
    # The data has what the queries must get right: failures counted beside n, 'all' margins, one-language intents.
    board = warehouse.query_file(LEADERBOARD_SQL)
    assert board["parse_failures"].sum() > 0
    assert set(board.query("intent == 'Leisure'")["language"]) == {"zh", "all"}
