import base64
import importlib.util
import io
import os
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from benchwright.colors import PALETTE
from benchwright.creation.loader import (
    CATEGORIES,
    TASK_CATEGORIES,
    CreationItem,
    load_creation_jsonl,
    load_creation_tsv,
    normalize_item_images,
    stream_creation_items,
)

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "sample_data" / "creation"
BAD_JSONL = ROOT / "tests" / "data" / "creation" / "bad_jsonl" / "items.jsonl"


# --------------------------------------------------------------------------- shipped sample


@pytest.fixture(scope="module")
def sample():
    return load_creation_jsonl(SAMPLE / "items.jsonl")


def test_sample_loads_cleanly_across_all_categories(sample):
    assert sample.problems == []
    assert len(sample.items) >= 12
    per_category = Counter(item.category for item in sample.items)
    assert set(per_category) == set(CATEGORIES)
    assert min(per_category.values()) >= 3
    assert len({item.item_id for item in sample.items}) == len(sample.items)


def test_sample_exercises_optional_fields(sample):
    items = sample.items
    assert sum(item.ground_truth is not None for item in items) >= 3
    assert sum(item.reference_answer is not None for item in items) == 2
    assert any(len(item.images) == 2 for item in items)
    for item in items:
        assert TASK_CATEGORIES[item.task] == item.category  # real task names, right category
        assert 3 <= len(item.requirements) <= 5
        assert item.subjective_criteria.startswith("1. ")
        assert "\n1.1 " in item.subjective_criteria


def test_sample_visual_criteria_name_palette_colours(sample):
    with_criteria = [i for i in sample.items if i.visual_factuality_criteria]
    assert len(with_criteria) >= len(sample.items) - 1
    for item in with_criteria:
        named = [c for c in PALETTE if c in item.visual_factuality_criteria.lower()]
        assert named, f"{item.item_id} criteria name no palette colour"


def test_sample_images_normalize_and_use_only_palette_colours(sample):
    allowed = set(PALETTE.values())
    for item in sample.items:
        images, problem = normalize_item_images(item)
        assert problem is None
        assert len(images) == len(item.images)
        for raw in item.images:
            img = Image.open(io.BytesIO(raw)).convert("RGB")
            assert img.size == (320, 240)
            used = {colour for _, colour in img.getcolors(maxcolors=320 * 240)}
            assert used <= allowed, f"{item.item_id}: {used - allowed}"


def test_make_sample_regenerates_byte_identical_files(tmp_path):
    spec = importlib.util.spec_from_file_location("make_sample", SAMPLE / "make_sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(tmp_path)
    committed = sorted(p.relative_to(SAMPLE) for p in SAMPLE.rglob("*")
                       if p.suffix in (".png", ".jsonl"))
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert committed == fresh
    for rel in committed:
        assert (SAMPLE / rel).read_bytes() == (tmp_path / rel).read_bytes(), rel


def test_to_row_has_every_field_but_images(sample):
    item = sample.items[0]
    row = item.to_row()
    assert "images" not in row
    assert row["item_id"] == item.item_id
    assert row["requirements"] == item.requirements
    assert set(row) == set(CreationItem.__dataclass_fields__) - {"images"}


# --------------------------------------------------------------------------- bad JSONL


def test_bad_jsonl_reports_each_bad_line_and_keeps_good_ones():
    result = load_creation_jsonl(BAD_JSONL)
    assert [item.item_id for item in result.items] == ["good-1", "good-2"]
    got = [(p.location, p.reason) for p in result.problems]
    expected = [
        ("items.jsonl:2", "malformed JSON"),
        ("items.jsonl:3", "missing required field 'role'"),
        ("items.jsonl:4", "unknown category 'Poetry'"),
        ("items.jsonl:5", "duplicate item_id 'good-1'"),
        ("items.jsonl:6", "escapes the dataset folder"),
        ("items.jsonl:7", "image file not found: 'images/nope.png'"),
        ("items.jsonl:8", "not valid UTF-8"),
        ("items.jsonl:11", "is absolute"),
        ("items.jsonl:12", "'requirements' must be a list"),
        ("items.jsonl:13", "'instruction' is empty"),
    ]
    assert [loc for loc, _ in got] == [loc for loc, _ in expected]
    for (loc, reason), (_, want) in zip(got, expected):
        assert want in reason, (loc, reason)


def test_corrupt_image_is_left_to_normalization():
    good2 = load_creation_jsonl(BAD_JSONL).items[1]
    assert len(good2.images) == 2  # the loader only checks the file is there
    images, problem = normalize_item_images(good2)
    assert images == []
    assert problem.startswith("image 2 of 2:")
    assert "truncated" in problem


def test_symlink_out_of_the_dataset_folder_is_refused(tmp_path):
    outside = tmp_path / "secret.png"
    outside.write_bytes((BAD_JSONL.parent / "images" / "ok.png").read_bytes())
    dataset = tmp_path / "ds"
    (dataset / "images").mkdir(parents=True)
    os.symlink(outside, dataset / "images" / "link.png")
    (dataset / "images" / "real.png").write_bytes(outside.read_bytes())
    os.symlink(dataset / "images" / "real.png", dataset / "images" / "inner.png")
    line = BAD_JSONL.read_text(encoding="latin-1").splitlines()[0]
    (dataset / "items.jsonl").write_text(
        line.replace("images/ok.png", "images/link.png") + "\n"
        + line.replace("good-1", "inner").replace("images/ok.png", "images/inner.png") + "\n",
        encoding="utf-8",
    )
    result = load_creation_jsonl(dataset / "items.jsonl")
    assert [i.item_id for i in result.items] == ["inner"]  # a symlink inside the folder is fine
    assert [(p.location, "escapes" in p.reason) for p in result.problems] == [
        ("items.jsonl:1", True)
    ]


def test_missing_file_raises_with_its_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.jsonl"):
        load_creation_jsonl(tmp_path / "nowhere.jsonl")
    with pytest.raises(FileNotFoundError, match="nowhere.tsv"):
        load_creation_tsv(tmp_path / "nowhere.tsv")


# --------------------------------------------------------------------------- TSV


def png_b64(colour: str, size=(32, 24)) -> str:
    buf = io.BytesIO()
    Image.new("RGB", size, PALETTE[colour]).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def tsv_row(index, task, image, criteria, **extra):
    row = {
        "index": index,
        "image": image,
        "question": "(the assembled query)",
        "task_name": task,
        "role": "a storyteller.",
        "background": "A quiet street.",
        "instruction": "continue the story",
        "requirement": "1. Keep it short.\n2. Mention the colours\n   you can see.",
        "criteria": criteria,
        "reference_answer_by_gpt4o": "Once upon a time.",
        "ground_truth": None,
    }
    row.update(extra)
    return row


def write_tsv(path: Path, rows: list[dict]) -> Path:
    # pandas writes TSVs the way the published file is written (quoting multi-line cells).
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)
    return path


def test_tsv_maps_columns_and_reports_broken_base64(tmp_path):
    red, blue = png_b64("red"), png_b64("blue")
    criteria = repr({"subjective requirement": "1. Story\n1.1 It flows.",
                     "groundtruth alignment": "1. The square is red."})
    rows = [
        tsv_row(101, "story_continue", red, criteria),
        tsv_row(102, "teaching_plan", repr([red, blue]), "1. Plain criteria text.",
                ground_truth="APPLE 12", reference_answer_by_gpt4o=None),
        tsv_row(103, "meme_explanation", "101", criteria),  # shares row 101's image
        tsv_row(104, "story_continue", "!!not base64!!" * 10, criteria),
        tsv_row(105, "landscape_to_poem", f'["{blue}"]', criteria),  # JSON list form
    ]
    result = load_creation_tsv(write_tsv(tmp_path / "bench.tsv", rows))

    assert [(p.location, "base64" in p.reason) for p in result.problems] == [
        ("bench.tsv:row 4 (index=104)", True)
    ]
    by_id = {item.item_id: item for item in result.items}
    assert list(by_id) == ["101", "102", "103", "105"]

    first = by_id["101"]
    assert first.category == "Literary Writing"
    assert first.task == "story_continue"
    assert first.requirements == ["Keep it short.", "Mention the colours you can see."]
    assert first.subjective_criteria == "1. Story\n1.1 It flows."
    assert first.visual_factuality_criteria == "1. The square is red."
    assert first.reference_answer == "Once upon a time."
    assert first.ground_truth is None
    assert first.images == [base64.b64decode(red)]

    second = by_id["102"]
    assert second.category == "Professional Functional Writing"
    assert second.subjective_criteria == "1. Plain criteria text."
    assert second.visual_factuality_criteria is None
    assert second.ground_truth == "APPLE 12"
    assert second.reference_answer is None
    assert second.images == [base64.b64decode(red), base64.b64decode(blue)]

    assert by_id["103"].category == "Creative Multimodal Understanding"
    assert by_id["103"].images == first.images
    assert by_id["105"].images == [base64.b64decode(blue)]
    for item in result.items:
        assert normalize_item_images(item)[1] is None


def test_tsv_without_part_columns_splits_the_question(tmp_path):
    question = ("Assume you are a chef.\nYou run a small cafe.\n"
                "Please follow the requirements below to write a recipe.\n"
                "1. List ingredients.\n2. Number the steps.")
    row = tsv_row(7, "recipe_infer_and_guide", png_b64("green"),
                  repr({"subjective requirement": "1. Useful.", "groundtruth alignment": "\\"}),
                  question=question)
    for column in ("role", "background", "instruction", "requirement"):
        del row[column]
    result = load_creation_tsv(write_tsv(tmp_path / "q.tsv", [row]))
    assert result.problems == []
    (item,) = result.items
    assert (item.role, item.background, item.instruction) == (
        "a chef.", "You run a small cafe.", "write a recipe")
    assert item.requirements == ["List ingredients.", "Number the steps."]
    assert item.visual_factuality_criteria is None  # "\" means no criteria


def test_tsv_row_problems_are_located(tmp_path):
    good = png_b64("red")
    rows = [
        tsv_row(1, "no_such_task", good, "1. Fine."),
        tsv_row(2, "story_continue", good, "{'subjective requirement': "),
        tsv_row(3, "story_continue", "999", "1. Fine."),
        tsv_row(4, "story_continue", good, "1. Fine."),
        tsv_row(4, "story_continue", good, "1. Fine."),
    ]
    result = load_creation_tsv(write_tsv(tmp_path / "bad.tsv", rows))
    assert [i.item_id for i in result.items] == ["4"]
    reasons = {p.location: p.reason for p in result.problems}
    assert list(reasons) == ["bad.tsv:row 1 (index=1)", "bad.tsv:row 2 (index=2)",
                             "bad.tsv:row 3 (index=3)", "bad.tsv:row 5 (index=4)"]
    assert "unknown task_name 'no_such_task'" in reasons["bad.tsv:row 1 (index=1)"]
    assert "criteria" in reasons["bad.tsv:row 2 (index=2)"]
    assert "refers to index '999'" in reasons["bad.tsv:row 3 (index=3)"]
    assert "duplicate" in reasons["bad.tsv:row 5 (index=4)"]


def test_tsv_non_utf8_row_is_a_problem_not_a_crash(tmp_path):
    path = write_tsv(tmp_path / "enc.tsv", [
        tsv_row(1, "story_continue", png_b64("red"), "1. Fine.", background="caf\u00e9"),
        tsv_row(2, "story_continue", png_b64("red"), "1. Fine."),
    ])
    path.write_bytes(path.read_bytes().replace("caf\u00e9".encode(), b"caf\xe9"))
    result = load_creation_tsv(path)
    assert [i.item_id for i in result.items] == ["2"]
    assert [(p.location, p.reason) for p in result.problems] == [
        ("enc.tsv:row 1 (index=1)", "not valid UTF-8")
    ]


def test_tsv_missing_required_column_raises(tmp_path):
    row = tsv_row(1, "story_continue", png_b64("red"), "1. Fine.")
    del row["criteria"]
    with pytest.raises(ValueError, match="criteria"):
        load_creation_tsv(write_tsv(tmp_path / "nocrit.tsv", [row]))


# --------------------------------------------------------------------------- streaming


def test_stream_yields_items_and_problems_in_file_order(tmp_path):
    rows = [tsv_row(1, "story_continue", png_b64("red"), "1. Fine."),
            tsv_row(2, "no_such_task", png_b64("red"), "1. Fine."),
            tsv_row(3, "story_continue", png_b64("blue"), "1. Fine.")]
    entries = list(stream_creation_items(write_tsv(tmp_path / "s.tsv", rows)))
    assert [e.item_id if isinstance(e, CreationItem) else e.location for e in entries] == [
        "1", "s.tsv:row 2 (index=2)", "3"]
    jsonl = [e.item_id if isinstance(e, CreationItem) else e.location for e in stream_creation_items(BAD_JSONL)]
    assert jsonl[:3] == ["good-1", "items.jsonl:2", "items.jsonl:3"]


def test_tsv_reference_to_a_later_row_reads_that_row_again(tmp_path):
    red, blue, green = png_b64("red"), png_b64("blue"), png_b64("green")
    rows = [tsv_row(1, "story_continue", "3", "1. Fine."),  # its image comes later in the file
            tsv_row(2, "story_continue", blue, "1. Fine."),
            tsv_row(3, "story_continue", red, "1. Fine."),
            tsv_row(4, "story_continue", "5", "1. Fine."),
            tsv_row(5, "story_continue", "2", "1. Fine."),  # a reference has no image of its own
            tsv_row(3, "story_continue", green, "1. Fine."),  # duplicate index: its image is the one referred to
            tsv_row(6, "story_continue", red, "1. Fine.")]
    path = write_tsv(tmp_path / "refs.tsv", rows)
    raw = path.read_bytes()
    cut = raw.rindex(b"A quiet street.")
    path.write_bytes(b"\xef\xbb\xbf" + raw[:cut] + b"A quiet\rstreet." + raw[cut + 15:])  # a BOM, a lone CR
    result = load_creation_tsv(path)
    by_id = {item.item_id: item for item in result.items}
    assert by_id["1"].images == [base64.b64decode(green)]
    assert by_id["3"].images == [base64.b64decode(red)]
    reasons = {p.location: p.reason for p in result.problems}
    assert "refers to index '5', which has no image of its own" in reasons["refs.tsv:row 4 (index=4)"]
    assert "duplicate index '3'" in reasons["refs.tsv:row 6 (index=3)"]
    # A lone CR ends a line, as it did when the whole file was read as text: the last row splits in two.
    assert "columns, header has" in reasons["refs.tsv:row 7 (index=6)"]
    assert sorted(by_id) == ["1", "2", "3", "5"] and by_id["5"].images == [base64.b64decode(blue)]
