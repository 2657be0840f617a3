"""Dataset and description assets on awkward input: corrupt images, personal data, query-specific mode."""

import json
import shutil

import dagster as dg
from benchwright.paths import ROOT
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, check_results, materialize, resources_for, write_registry

SAMPLE = ROOT / "sample_data" / "creation"


def small_dataset(folder, rows):
    (folder / "images").mkdir(parents=True)
    lines = []
    for row in rows:
        for path in row["images"]:
            source = SAMPLE / path
            if source.exists():
                shutil.copy(source, folder / path)
        lines.append(json.dumps(row))
    (folder / "items.jsonl").write_text("\n".join(lines) + "\n")
    return folder / "items.jsonl"


def sample_rows(n):
    return [json.loads(line) for line in (SAMPLE / "items.jsonl").read_text().splitlines()[:n]]


def test_corrupt_image_skips_the_item_not_the_run_and_pii_is_redacted(tmp_path):
    rows = sample_rows(3)
    rows[1]["images"] = ["images/broken.png"]
    rows[2]["background"] += " Reach the organiser at jane.doe@example.com or +1 415-555-0132."
    dataset = small_dataset(tmp_path / "data", rows)
    (tmp_path / "data" / "images" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    write_registry(tmp_path, SHIPPED_MODELS, SHIPPED_JUDGES)
    resources = resources_for(tmp_path)
    with dg.instance_for_test() as instance:
        result = materialize(["creation_items"], instance, resources,
                             run_config={"ops": {"creation_items": {"config": {"path": str(dataset)}}}})
    assert result.success
    wh = resources["warehouse"]
    items = wh.query("SELECT item_id, background FROM creation_items ORDER BY item_id")
    assert sorted(items["item_id"]) == sorted([rows[0]["item_id"], rows[2]["item_id"]])
    problems = wh.query("SELECT * FROM dataset_problems")
    assert len(problems) == 1 and rows[1]["item_id"] in problems["location"][0]
    assert "image" in problems["reason"][0].lower()
    background = items.set_index("item_id").loc[rows[2]["item_id"], "background"]
    assert "jane.doe@example.com" not in background and "555-0132" not in background
    assert "[REDACTED:email]" in background and "[REDACTED:phone]" in background
    event = result.get_asset_materialization_events()[0].materialization
    assert event.metadata["pii_redactions"].value == 2 and event.metadata["problems"].value == 1
    assert check_results(result)["creation_items_residual_pii"].passed


def test_query_specific_descriptions_carry_their_focus(tmp_path):
    write_registry(tmp_path, SHIPPED_MODELS, SHIPPED_JUDGES)
    resources = resources_for(tmp_path)
    with dg.instance_for_test() as instance:
        assert materialize(["creation_items"], instance, resources).success
        result = materialize(["creation_image_descriptions"], instance, resources,
                             run_config={"ops": {"creation_image_descriptions": {"config": {"mode": "query_specific"}}}})
        assert result.success
        bad = materialize(["creation_image_descriptions"], instance, resources,
                          run_config={"ops": {"creation_image_descriptions": {"config": {"mode": "psychic"}}}})
        assert not bad.success
    rows = resources["warehouse"].query("SELECT * FROM creation_image_descriptions")
    assert len(rows) == 15 and set(rows["mode"]) == {"query_specific"}
    assert rows["focus"].notna().all() and rows["description"].notna().all()
    # Focus and description are separate calls: 15 + 15.
    assert result.get_asset_materialization_events()[0].materialization.metadata["api_calls"].value == 30
