"""URS schema and range suites (validated with benchwright.quality.validate_frame)."""

from __future__ import annotations


from benchwright.quality import between
from benchwright.urs.intents import INTENTS, LANGUAGES, REFERENCE_SCORE, SCORE_MAX, SCORE_MIN
from benchwright.urs.metrics import ALL


SUITES: dict[str, list[dict]] = {
    "urs_items": [
        {"type": "columns_exist", "columns": ["item_id", "intent", "language", "question", "reference_answer"]},
        {"type": "column_values_in_set", "column": "intent", "values": list(INTENTS)},
        {"type": "column_values_in_set", "column": "language", "values": list(LANGUAGES)},
        {"type": "column_not_null", "column": "question"},
        {"type": "columns_unique", "columns": ["item_id"]},
    ],
    "urs_generations": [
        {"type": "columns_exist", "columns": ["benchmark", "model", "item_id", "sample_index", "response", "error"]},
        {"type": "column_values_in_set", "column": "benchmark", "values": ["urs"]},
        {"type": "column_values_in_set", "column": "sample_index", "values": [0, 1]},
        {"type": "columns_unique", "columns": ["model", "item_id", "sample_index"]},
    ],
    "urs_judgments": [
        {"type": "columns_exist", "columns": ["model", "judge", "item_id", "raw_text", "final_score",
                                              "criterion_scores", "parse_ok", "error"]},
        between("final_score", SCORE_MIN, SCORE_MAX),
        {"type": "column_values_in_set", "column": "intent", "values": list(INTENTS)},
        {"type": "column_values_in_set", "column": "language", "values": list(LANGUAGES)},
        {"type": "columns_unique", "columns": ["model", "judge", "item_id"]},
    ],
    "urs_cross_judgments": [
        between("final_score", SCORE_MIN, SCORE_MAX),
        {"type": "columns_unique", "columns": ["judge", "reference_model", "model", "item_id"]},
    ],
    "urs_leaderboard": [
        between("final_score", SCORE_MIN, SCORE_MAX),
        between("n", 0, None, allow_null=False),
        {"type": "column_values_in_set", "column": "intent", "values": [ALL, *INTENTS]},
        {"type": "column_values_in_set", "column": "language", "values": [ALL, *LANGUAGES]},
        {"type": "columns_unique", "columns": ["judge", "model", "intent", "language"]},
    ],
    "urs_cross_validation": [
        between("mean_score", SCORE_MIN, SCORE_MAX),
        {"type": "columns_unique", "columns": ["judge", "reference_model", "model"]},
    ],
    "urs_rating_bias": [
        between("mean_rating", SCORE_MIN, SCORE_MAX, allow_null=False),
        between("bias", SCORE_MIN - REFERENCE_SCORE, SCORE_MAX - REFERENCE_SCORE, allow_null=False),
        {"type": "columns_unique", "columns": ["judge", "model"]},
    ],
}
