"""creation_items streams its pictures: the rows are those of loading every item at once, and the images go
to the warehouse in batches no larger than the bound (proved by counting bytes, not by timing)."""

import json
import math
import shutil

import dagster as dg
import pandas as pd
import pytest

import assets.common
from assets.common import ImageWriter
from benchwright.creation.loader import load_creation_jsonl, normalize_item_images
from benchwright.images import NormalizedImage, data_url, normalize_image
from benchwright.paths import ROOT
from resources.warehouse import Warehouse
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, materialize, resources_for, write_registry

SAMPLE = ROOT / "sample_data" / "creation"


def awkward_dataset(folder):
    """Sample items where one picture is corrupt, one is used by two items, and one is stored under two names."""
    rows = [json.loads(line) for line in (SAMPLE / "items.jsonl").read_text().splitlines()[:6]]
    (folder / "images").mkdir(parents=True)
    for row in rows:
        for path in row["images"]:
            shutil.copy(SAMPLE / path, folder / path)
    shared = rows[0]["images"][0]
    shutil.copy(SAMPLE / shared, folder / "images" / "same_picture_other_name.png")
    (folder / "images" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    rows[1]["images"] = ["images/broken.png"]
    rows[2]["images"] = [shared, "images/same_picture_other_name.png"]
    rows[3]["images"] = [shared]
    lines = [json.dumps(row) for row in rows] + ["{not json", json.dumps(rows[0])]
    (folder / "items.jsonl").write_text("\n".join(lines) + "\n")
    return folder / "items.jsonl"


def all_at_once(path):
    """What creation_items wrote before it streamed: every item loaded, then normalized, then written."""
    loaded = load_creation_jsonl(path)
    problems = [(p.location, p.reason) for p in loaded.problems]
    items, images = [], {}
    for item in loaded.items:
        normalized, problem = normalize_item_images(item)
        if problem:
            problems.append((f"{path.name}: item {item.item_id}", problem))
            continue
        items.append((item.item_id, [img.sha256 for img in normalized]))
        for img in normalized:
            images.setdefault(img.sha256, img.data)
    return items, images, problems


class BatchSpy:
    """Records the bytes of every batch written to `images`, then writes it as usual."""

    def __init__(self, monkeypatch):
        self.batches = []
        original = Warehouse.add_images

        def add_images(warehouse, rows):
            self.batches.append([len(data) for data in rows["data"]])
            return original(warehouse, rows)

        monkeypatch.setattr(Warehouse, "add_images", add_images)


@pytest.mark.parametrize("dataset", ["sample", "awkward"])
def test_streamed_items_match_loading_everything_at_once_in_bounded_batches(tmp_path, monkeypatch, dataset):
    path = SAMPLE / "items.jsonl" if dataset == "sample" else awkward_dataset(tmp_path / "data")
    items, images, problems = all_at_once(path)
    largest = max(len(data) for data in images.values())
    bound = 2 * largest  # a small bound: several batches, none above it
    monkeypatch.setattr(assets.common, "IMAGE_BATCH_BYTES", bound)
    spy = BatchSpy(monkeypatch)

    home = tmp_path / "home"
    write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
    resources = resources_for(home)
    with dg.instance_for_test() as instance:
        result = materialize(["creation_items"], instance, resources,
                             run_config={"ops": {"creation_items": {"config": {"path": str(path)}}}})
    assert result.success
    wh = resources["warehouse"]

    stored = wh.query("SELECT item_id, image_hashes FROM creation_items")
    assert [(r.item_id, list(r.image_hashes)) for r in stored.itertuples()] == items
    stored_images = wh.query("SELECT sha256, data FROM images")  # content-addressed: the order means nothing
    assert sorted((r.sha256, bytes(r.data)) for r in stored_images.itertuples()) == sorted(images.items())
    stored_problems = wh.query("SELECT location, reason FROM dataset_problems")
    assert list(stored_problems.itertuples(index=False, name=None)) == problems

    assert len(spy.batches) > 1
    assert all(sum(batch) <= bound for batch in spy.batches)
    assert sorted(size for batch in spy.batches for size in batch) == sorted(len(d) for d in images.values())
    if dataset == "awkward":
        assert len(images) < sum(len(hashes) for _, hashes in items)  # a repeated picture, stored once
        assert any("item lw-002" in location and "image 1 of 1" in reason for location, reason in problems)
    event = result.get_asset_materialization_events()[0].materialization
    assert event.metadata["images"].value == event.metadata["new_images"].value == len(images)

    # The model-calling assets name each picture by reference (its hash and type, nothing else read) and read it
    # as a request showing it is sent, IMAGE_READ_AHEAD per query: the data URL (and cache key) of encoding every
    # picture up front, as they did before.
    used = [{"image_hashes": hashes} for _, hashes in items]
    monkeypatch.setattr(assets.common, "IMAGE_READ_AHEAD", 2)
    refs = assets.common.image_refs(wh, used)
    assert list(refs) == list(dict.fromkeys(h for _, hashes in items for h in hashes)) and set(refs) == set(images)
    source = next(iter(refs.values())).source
    assert source.fetches == 0
    for sha, ref in refs.items():
        url = ref.data_url()
        assert url == data_url(NormalizedImage(sha, "image/png", 0, 0, images[sha])) and url.digest == ref.digest
    assert source.fetches == math.ceil(len(images) / 2)


class RecordingWarehouse:
    def __init__(self):
        self.batches = []

    def add_images(self, rows):
        self.batches.append(rows)
        return len(rows)


def test_image_writer_never_holds_more_than_its_bound_and_writes_each_picture_once():
    pictures = [normalize_image(open(path, "rb").read()) for path in sorted((SAMPLE / "images").glob("*.png"))]
    sizes = sorted(len(p.data) for p in pictures)
    bound = sizes[-1] + sizes[0]  # room for the largest and little else
    warehouse = RecordingWarehouse()
    writer = ImageWriter(warehouse, max_bytes=bound)
    for picture in pictures + pictures[:3]:  # the repeats are not written again
        writer.add(picture)
        assert writer._batch_bytes <= bound
    writer.flush()

    written = pd.concat(warehouse.batches)
    assert list(written["sha256"]) == [p.sha256 for p in pictures]
    assert len(warehouse.batches) > 1
    assert all(batch["data"].map(len).sum() <= bound for batch in warehouse.batches)
    assert writer.new == len(pictures) and writer.seen == {p.sha256 for p in pictures}

    alone = ImageWriter(RecordingWarehouse(), max_bytes=1)  # a picture larger than the bound is a batch of its own
    for picture in pictures[:3]:
        alone.add(picture)
    alone.flush()
    assert [len(batch) for batch in alone.warehouse.batches] == [1, 1, 1]


def test_each_batch_of_images_stays_its_own_row_group(tmp_path):
    """DuckDB's vacuum would merge a batch into the row groups before, and rewriting them holds all their pictures
    in memory: with the vacuum off, three batches stay three row groups, even after another section's checkpoint."""
    warehouse = Warehouse(database=str(tmp_path / "w.duckdb"))
    pictures = [normalize_image(open(path, "rb").read()) for path in sorted((SAMPLE / "images").glob("*.png"))]
    for batch in (pictures[:5], pictures[5:10], pictures[10:]):
        warehouse.add_images(pd.DataFrame([{"sha256": p.sha256, "mime": p.mime, "width": p.width,
                                            "height": p.height, "data": p.data} for p in batch]))
    warehouse.replace_rows("dataset_problems", pd.DataFrame([{"benchmark": "b", "dataset": "d", "location": "l",
                                                               "reason": "r"}]), match={})  # a later checkpoint
    groups = warehouse.query("SELECT count(DISTINCT row_group_id) AS n FROM pragma_storage_info('images')")
    assert groups["n"][0] == 3
    assert warehouse.add_images(pd.DataFrame([{"sha256": p.sha256, "mime": p.mime, "width": p.width,
                                               "height": p.height, "data": p.data} for p in pictures])) == 0
    assert sorted(warehouse.query("SELECT sha256 FROM images")["sha256"]) == sorted(p.sha256 for p in pictures)
