"""The blocking residual-PII checks read the same detector that masks: a row stored unmasked (as an older
version stored phone extensions and never-issued SSNs) fails its check, and the masked row passes."""

import json

import pandas as pd

from benchwright.pii import redacted
from checks.residual_pii import residual_pii_result, specs
from resources.warehouse import Warehouse

LEFT_BEHIND = {  # what the check must find, by question
    "u1": "Call 415-555-0134 ext. 12 or (415) 555-0134 ext 12 about my claim.",
    "u2": "My SSN is 078-05-1120 and my wife's SSN: 219-09-9999; what do we file?",
}
CLEAN = {"u3": "Is 078-05-1120 a part number? It was shipped on 2024-05-17."}


def urs_items(questions: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame([{"item_id": item_id, "dataset": "test", "intent": "Factual QA", "language": "en",
                          "question": question, "reference_answer": None, "source_intent": "Factual QA",
                          "source_row": k + 1, "pii_redactions": 0} for k, (item_id, question) in enumerate(questions.items())])


def test_the_check_finds_extensions_and_named_ssns_left_unmasked_and_passes_once_masked(tmp_path):
    warehouse = Warehouse(database=str(tmp_path / "warehouse.duckdb"))
    spec = next(spec for spec in specs() if spec.name == "urs_items_residual_pii")
    warehouse.replace_rows("urs_items", urs_items({**LEFT_BEHIND, **CLEAN}), {})
    result = residual_pii_result(warehouse, spec)
    assert not result.passed
    assert result.metadata["by_kind"].data == {"national_id": 2, "phone": 2}
    assert result.metadata["by_detector"].data == {"context.us_ssn": 2, "phonenumbers": 2}
    shown = json.dumps(result.metadata["examples"].data)
    assert not any(digits in shown for digits in ("0134", "1120", "9999", "ext. 12", "ext 12"))
    # What the loaders write (every text through the same redactor) passes.
    warehouse.replace_rows("urs_items", urs_items({k: redacted(v) for k, v in {**LEFT_BEHIND, **CLEAN}.items()}), {})
    assert residual_pii_result(warehouse, spec).passed
    assert warehouse.query("SELECT question FROM urs_items WHERE item_id = 'u3'")["question"].tolist() == [CLEAN["u3"]]
