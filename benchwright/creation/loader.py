"""Loaders for Creation items (benchwright/creation/README.md#items): our JSONL layout and the published TSV layout.

Both loaders are lenient per row and strict per file: a bad row becomes a `LoadProblem` with its
location and is skipped, so one broken line never hides the other items; a file that cannot be
opened at all raises (FileNotFoundError / ValueError naming the path).

Images are returned as raw bytes. Checking that they decode is `normalize_item_images`' job
(called by the items asset), so a corrupt picture is reported per item, not as a load failure.

`stream_creation_items` yields the items and problems one at a time, in file order, reading an
item's image bytes only when it yields that item: a dataset of gigabytes of pictures is never held
in memory at once (the TSV is read row by row, never whole). `load_creation_jsonl` and
`load_creation_tsv` collect the same stream into a `LoadResult`, for small files and tests.

Requirements are stored without their numbers ("Use a warm tone", not "1. Use a warm tone");
whoever builds the query numbers them.

JSONL layout (ours, see sample_data/creation)
---------------------------------------------
One JSON object per line with the `CreationItem` fields; `images` is a list of paths relative to
the JSONL file's folder. Paths that are absolute, contain `..` that leaves the folder, or are
symlinks pointing outside it are refused. Blank lines are ignored; unknown keys are ignored.
`visual_factuality_criteria`, `ground_truth` and `reference_answer` may be missing, null or "";
all three mean "absent" (None).

TSV layout (the published benchmark, VLMEvalKit style)
------------------------------------------------------
Learned from open-compass/VLMEvalKit `vlmeval/dataset/creation.py` (CreationMMBenchDataset reads
Creation_MMBench.tsv; `build_prompt` and `dump_image` show which columns it uses), the shared
VLMEvalKit TSV convention in `vlmeval/dataset/image_base.py` (image column handling), and a
third-party port of the Hugging Face release that lists the columns. Mapping:

    TSV column                  -> our field
    index                       -> item_id (as a string)
    task_name                   -> task; category comes from TASK_CATEGORIES (a `category`
                                   column, when present, wins)
    role, background,
    instruction                 -> role, background, instruction
    requirement(s)              -> requirements (split into lines, numbers stripped)
    criteria                    -> a Python-literal dict: the key containing "subjective"
                                   -> subjective_criteria, the other key (published as
                                   "groundtruth alignment", the visual-factuality points)
                                   -> visual_factuality_criteria. A plain string is the
                                   subjective criteria alone.
    ground_truth                -> ground_truth (empty / NaN -> None)
    reference_answer_by_gpt4o   -> reference_answer
    image                       -> images: one base64 string, or a JSON / Python-literal list
                                   of base64 strings; a value of <= 64 characters is the
                                   `index` of another row whose image it shares
    question                    -> used only when role/background/instruction columns are
                                   absent: the assembled query is split back into its parts
                                   (template: the card's query)
    image_path, source          -> ignored

Assumptions (not verifiable without the file itself): the TSV is UTF-8 with a header row and
standard double-quote CSV quoting (what pandas writes); the requirement column is one text with one
requirement per line; a criteria value of "\\" or one with no letters means "no criteria" (the
reference code treats such values as invalid).
"""

from __future__ import annotations

import ast
import base64
import binascii
import csv
import io
import json
import os
import re
import sys
from dataclasses import dataclass, field, fields
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from benchwright.loading import (LoadProblem, LoadResult, read_bytes, RowError, bad_bytes_cell, json_object,
                                 problem_of)
from benchwright.images import ImageError, NormalizedImage, normalize_image
from benchwright.pii import redact

CATEGORIES = (
    "Literary Writing",
    "Common Functional Writing",
    "Professional Functional Writing",
    "Creative Multimodal Understanding",
)

# The 51 task names of the published benchmark and their categories (task identifiers as they
# appear in the TSV's task_name column).
_TASKS_BY_CATEGORY = {
    "Literary Writing": (
        "story_continue landscape_to_poem historical_story_creation story_novel_creation "
        "prose_writing_scenery art_inspired_prose daily_conversation_creation "
        "children_book_illustration_dialogue_creation"
    ),
    "Common Functional Writing": (
        "ins_simple_daily_copywriter travel_journal short_video_scripts_for_social_media "
        "social_media_travel_content daily_achievement_show_off "
        "scientific_research_simple_promotion twitter_comment_on_daily_news "
        "personal_event_summaries daily_affairs_inquiries business_collaborative_email_writing "
        "daily_emotional_email_writing letter_of_complaint daily_invitation_email_writing "
        "holiday_card_writing letter_of_application product_usage_experience_review "
        "store_experience_review public_welfare_activity_participation_initiative"
    ),
    "Professional Functional Writing": (
        "museum_guide_word_creation recipe_infer_and_guide landscape_introduction "
        "drafting_announcements_for_public_spaces floor_plan_renovation_design teaching_plan "
        "nutritional_formulation_of_recipe clothing_match_design "
        "software_engineering_diagram_explanation event_planning_and_venue_arrangement "
        "ui_design_analysis_and_optimization attraction_promotional_words "
        "product_marketing_strategy script_writing_for_product_advertisement_promotional_video "
        "residence_reasoning scientific_diagram_understanding pulitzer_prize_judge "
        "architecture_appreciation company_team_amuse_broadcast"
    ),
    "Creative Multimodal Understanding": (
        "travel_itinerary_planning_and_recommendations photography_appreciation "
        "meme_explanation advertisement_explanation document_understanding snapshot_analysis"
    ),
}
TASK_CATEGORIES: dict[str, str] = {
    task: category for category, names in _TASKS_BY_CATEGORY.items() for task in names.split()
}

_REQUIRED_TEXT = ("item_id", "category", "task", "role", "background", "instruction",
                  "subjective_criteria")
_OPTIONAL_TEXT = ("visual_factuality_criteria", "ground_truth", "reference_answer")


@dataclass
class CreationItem:
    item_id: str
    category: str
    task: str
    role: str
    background: str
    instruction: str
    requirements: list[str]
    subjective_criteria: str
    visual_factuality_criteria: str | None
    ground_truth: str | None
    reference_answer: str | None
    images: list[bytes] = field(repr=False)

    def to_row(self) -> dict:
        """Every field except the image bytes, ready for a warehouse row."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "images"}


# --------------------------------------------------------------------------- JSONL


def stream_creation_items(path: str | os.PathLike) -> Iterator[CreationItem | LoadProblem]:
    """The items and problems of a JSONL or TSV (by its suffix) file, one at a time, in file order."""
    path = Path(path)
    return stream_creation_tsv(path) if path.suffix.lower() == ".tsv" else stream_creation_jsonl(path)


def images_field(path: str | os.PathLike) -> str:
    """The field that holds an item's pictures in the file at `path`: the TSV's `image` column, the JSONL's
    `images` key (where a picture that cannot be normalized is located)."""
    return "image" if Path(path).suffix.lower() == ".tsv" else "images"


def _collect(stream: Iterator[CreationItem | LoadProblem]) -> LoadResult:
    items: list[CreationItem] = []
    problems: list[LoadProblem] = []
    for entry in stream:
        (problems if isinstance(entry, LoadProblem) else items).append(entry)
    return LoadResult(items, problems)


def load_creation_jsonl(path: str | os.PathLike) -> LoadResult:
    return _collect(stream_creation_jsonl(path))


def stream_creation_jsonl(path: str | os.PathLike) -> Iterator[CreationItem | LoadProblem]:
    path = Path(path)
    # The JSONL holds only text and image paths; the pictures are read one item at a time.
    raw = read_bytes(path, "Creation dataset file")

    base = path.parent.resolve()
    seen: set[str] = set()

    # Split bytes, not text, so one non-UTF-8 line is a located problem, not a failed file.
    for lineno, line_bytes in enumerate(raw.split(b"\n"), start=1):
        location = f"{path.name}:{lineno}"
        if lineno == 1 and line_bytes.startswith(b"\xef\xbb\xbf"):
            line_bytes = line_bytes[3:]
        try:
            line = line_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield LoadProblem(location, f"not valid UTF-8 (byte 0x{line_bytes[exc.start]:02x} at column "
                                        f"{exc.start + 1})")
            continue
        if not line.strip():
            continue
        try:
            item = _item_from_json(line, base)
            if item.item_id in seen:
                raise RowError(f"duplicate item_id {item.item_id!r}", "item_id")
        except RowError as exc:
            yield problem_of(location, exc)
            continue
        seen.add(item.item_id)
        yield item


def _item_from_json(line: str, base: Path) -> CreationItem:
    obj = json_object(line)

    text = {name: _required_text(obj, name) for name in _REQUIRED_TEXT}
    optional = {name: _optional_text(obj, name) for name in _OPTIONAL_TEXT}
    _check_category(text["category"])
    requirements = _string_list(obj, "requirements")

    image_paths = _string_list(obj, "images")
    images = [_read_image_file(base, rel) for rel in image_paths]
    return CreationItem(requirements=requirements, images=images, **text, **optional)


def _required_text(obj: dict, name: str) -> str:
    if name not in obj or obj[name] is None:
        raise RowError(f"missing required field {name!r}", name)
    value = obj[name]
    if not isinstance(value, str):
        raise RowError(f"field {name!r} must be a string, got {type(value).__name__}", name)
    if not value.strip():
        raise RowError(f"field {name!r} is empty", name)
    return value


def _optional_text(obj: dict, name: str) -> str | None:
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise RowError(f"field {name!r} must be a string or null, got {type(value).__name__}", name)
    return value if value.strip() else None


def _string_list(obj: dict, name: str) -> list[str]:
    value = obj.get(name)
    if value is None:
        raise RowError(f"missing required field {name!r}", name)
    if not isinstance(value, list):
        raise RowError(f"field {name!r} must be a list, got {type(value).__name__}", name)
    if not value:
        raise RowError(f"field {name!r} is empty", name)
    for i, entry in enumerate(value, start=1):
        if not isinstance(entry, str) or not entry.strip():
            raise RowError(f"field {name!r} entry {i} must be a non-empty string", f"{name}[{i - 1}]")
    return value


def _check_category(category: str) -> None:
    if category not in CATEGORIES:
        raise RowError(f"unknown category {category!r} (expected one of {', '.join(CATEGORIES)})", "category")


def _read_image_file(base: Path, rel: str) -> bytes:
    if "\x00" in rel:
        raise RowError(f"image path {rel!r} contains a NUL byte", "images")
    # Refuse anything that could read outside the dataset folder: absolute paths, drive
    # letters, '..' and symlinks are all caught by resolving and comparing with the folder.
    if os.path.isabs(rel) or rel.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", rel):
        raise RowError(f"image path {rel!r} is absolute; it must be relative to the "
                       "dataset folder", "images")
    target = (base / rel).resolve()
    if not target.is_relative_to(base):
        raise RowError(f"image path {rel!r} escapes the dataset folder", "images")
    if not target.is_file():
        raise RowError(f"image file not found: {rel!r}", "images")
    try:
        return target.read_bytes()
    except OSError as exc:
        raise RowError(f"cannot read image {rel!r}: {exc.strerror or exc}", "images") from None


# --------------------------------------------------------------------------- TSV

_TEMPLATE = re.compile(
    r"^Assume you are (?P<role>.*?)\n(?P<background>.*?)\n"
    r"Please follow the requirements below to (?P<instruction>.*?)\.?\n(?P<requirements>.*)$",
    re.DOTALL,
)
_NUMBER_PREFIX = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")
_IMAGE_REF_MAX = 64  # VLMEvalKit convention: shorter image values name another row's index


def load_creation_tsv(path: str | os.PathLike) -> LoadResult:
    return _collect(stream_creation_tsv(path))


def stream_creation_tsv(path: str | os.PathLike) -> Iterator[CreationItem | LoadProblem]:
    path = Path(path)
    # Base64 images make fields far longer than csv's default 128 KiB limit.
    csv.field_size_limit(sys.maxsize)
    rows = _tsv_rows(path)
    try:
        header_row = next(rows, None)
    except FileNotFoundError:
        raise FileNotFoundError(f"Creation TSV not found: {path}") from None
    except OSError as exc:
        raise ValueError(f"cannot read Creation TSV {path}: {exc}") from None
    if header_row is None:
        raise ValueError(f"{path} is empty (no header row)")
    header = [h.strip() for h in header_row[1]]
    missing = _missing_columns(header)
    if missing:
        raise ValueError(f"{path} lacks required column(s): {', '.join(missing)}")

    # Where each index's row starts, for rows whose image cell names another row's index; read in a
    # second pass over the file only when the first such row appears (the target may come later).
    row_by_index: dict[str, int] | None = None

    def image_of_index(index: str) -> str:
        nonlocal row_by_index
        if row_by_index is None:
            row_by_index = _row_offsets_by_index(path, header)
        offset = row_by_index.get(index)
        if offset is None:
            return ""
        with closing(_tsv_rows(path, offset)) as rows_from_there:
            return _record(header, next(rows_from_there)[1]).get("image", "")

    seen: set[str] = set()
    for rowno, (_, row) in enumerate(rows, start=1):
        if row is not _UNCLOSED_QUOTE and not any(cell.strip() for cell in row):
            continue
        record = _record(header, row)
        location = f"{path.name}:row {rowno} (index={record.get('index', '').strip() or '?'})"
        try:
            if row is _UNCLOSED_QUOTE:
                raise RowError("a field opens a quote that its line never closes (the row is skipped, "
                                "the rows after it are read on their own)")
            if len(row) != len(header):
                raise RowError(f"has {len(row)} columns, header has {len(header)}")
            bad_cell = bad_bytes_cell(header, row)
            if bad_cell is not None:
                raise RowError("not valid UTF-8", bad_cell)
            item = _item_from_tsv(record, image_of_index)
            if item.item_id in seen:
                raise RowError(f"duplicate index {item.item_id!r}", "index")
        except RowError as exc:
            yield problem_of(location, exc)
            continue
        seen.add(item.item_id)
        yield item


_UNCLOSED_QUOTE: list[str] = []  # marks a physical line whose stray quote would swallow the rows after it


def _record(header: list[str], row: list[str]) -> dict[str, str]:
    return dict(zip(header, row)) if row is not _UNCLOSED_QUOTE else {}


def _row_offsets_by_index(path: Path, header: list[str]) -> dict[str, int]:
    """index -> where its row starts in the file, for rows that hold an image of their own (the last row
    of an index wins, as in a dict built from every row); images are not kept."""
    offsets: dict[str, int] = {}
    with closing(_tsv_rows(path)) as rows:
        next(rows)  # the header
        for offset, row in rows:
            record = _record(header, row)
            index = record.get("index", "").strip()
            if len(record.get("image", "").strip()) > _IMAGE_REF_MAX:
                offsets[index] = offset
            else:
                offsets.pop(index, None)
    return offsets


class _Lines:
    """A TSV file's lines for csv.reader, read one at a time, with the byte offset where each begins.

    Lines end as Python's universal newlines say (LF, CRLF or a lone CR); a leading UTF-8 BOM is skipped;
    undecodable bytes survive as surrogate escapes (`has_bad_bytes`), so a bad row is reported, not the file.
    """

    def __init__(self, path: Path, offset: int):
        self._file = open(path, "rb")
        if offset == 0 and self._file.read(3) == b"\xef\xbb\xbf":
            offset = 3
        self._file.seek(offset)
        self._text = io.TextIOWrapper(self._file, encoding="utf-8", errors="surrogateescape", newline="")
        self.offset = offset    # where the next line begins
        self.starts: list[int] = []  # where each line handed out since the caller last cleared it begins

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = next(self._text)
        self.starts.append(self.offset)
        self.offset += len(line) if line.isascii() else len(line.encode("utf-8", "surrogateescape"))
        return line

    def close(self) -> None:
        self._text.close()


def _tsv_rows(path: Path, offset: int = 0) -> Iterator[tuple[int, list[str]]]:
    """(where the row begins, row) for each row of a TSV from `offset` on, quoted fields (with newlines)
    allowed, without losing rows to a stray quote.

    A quoted field may span lines, but one that holds a newline followed by a tab has swallowed
    the rows after it: its first line becomes an `_UNCLOSED_QUOTE` row and reading starts again
    on the next line.
    """
    while True:
        lines = _Lines(path, offset)
        try:
            reader = csv.reader(lines, delimiter="\t")
            while True:
                start = lines.offset
                lines.starts.clear()
                try:
                    row = next(reader)
                except StopIteration:
                    return
                except csv.Error as exc:
                    raise ValueError(f"{path} is not a readable TSV: {exc}") from None
                spans_lines = len(lines.starts) > 1
                if spans_lines and any("\n" in cell and "\t" in cell.split("\n", 1)[1] for cell in row):
                    yield start, _UNCLOSED_QUOTE
                    offset = lines.starts[1]
                    break
                yield start, row
        finally:
            lines.close()


def _missing_columns(header: list[str]) -> list[str]:
    need = ["index", "task_name", "criteria", "image"]
    if not {"role", "background", "instruction"} <= set(header) and "question" not in header:
        need += ["role", "background", "instruction"]
    if "question" not in header and not {"requirement", "requirements"} & set(header):
        need.append("requirement")
    return [c for c in need if c not in header]



def _cell(record: dict, name: str) -> str | None:
    """A cell's text, with pandas' missing-value spellings treated as absent."""
    value = record.get(name)
    if value is None:
        return None
    value = value.strip()
    return None if value in ("", "nan", "NaN", "None") else value


def _item_from_tsv(record: dict, image_of_index: Callable[[str], str]) -> CreationItem:
    item_id = _cell(record, "index")
    if item_id is None:
        raise RowError("missing index", "index")
    task = _cell(record, "task_name")
    if task is None:
        raise RowError("missing task_name", "task_name")

    category = _cell(record, "category")
    if category is None:
        category = TASK_CATEGORIES.get(task)
        if category is None:
            raise RowError(f"unknown task_name {task!r} and no category column", "task_name")
    _check_category(category)

    role, background, instruction, requirement_text = (
        _cell(record, "role"), _cell(record, "background"), _cell(record, "instruction"),
        _cell(record, "requirement") or _cell(record, "requirements"),
    )
    if role is None and instruction is None:
        role, background, instruction, requirement_text = _split_question(_cell(record, "question"))
    for name, value in (("role", role), ("background", background), ("instruction", instruction)):
        if value is None:
            raise RowError(f"missing {name}", name)
    requirements = _split_requirements(requirement_text or "")
    if not requirements:
        raise RowError("missing requirement", "requirement")

    subjective, visual = _split_criteria(_cell(record, "criteria"))
    images = _decode_image_cell(_cell(record, "image"), image_of_index)
    return CreationItem(
        item_id=item_id,
        category=category,
        task=task,
        role=role,
        background=background,
        instruction=instruction,
        requirements=requirements,
        subjective_criteria=subjective,
        visual_factuality_criteria=visual,
        ground_truth=_cell(record, "ground_truth"),
        reference_answer=_cell(record, "reference_answer_by_gpt4o"),
        images=images,
    )


def _split_question(question: str | None) -> tuple[str, str, str, str]:
    if question is None:
        raise RowError("missing role/background/instruction and no question to split", "question")
    match = _TEMPLATE.match(question.replace("\r\n", "\n"))
    if not match:
        raise RowError("question does not follow the 'Assume you are ...' template", "question")
    return (match["role"].strip(), match["background"].strip(),
            match["instruction"].strip(), match["requirements"])


def _split_requirements(text: str) -> list[str]:
    """One requirement per numbered item; unnumbered lines continue the previous item."""
    out: list[str] = []
    numbered = any(_NUMBER_PREFIX.match(line) for line in text.splitlines())
    for line in text.splitlines():
        if not line.strip():
            continue
        if numbered and not _NUMBER_PREFIX.match(line) and out:
            out[-1] = f"{out[-1]} {line.strip()}"
        else:
            out.append(_NUMBER_PREFIX.sub("", line).strip())
    return [r for r in out if r]


def _meaningful(text: Any) -> bool:
    # The reference code treats "\" or text without letters as "no criteria".
    return isinstance(text, str) and bool(re.search(r"[^\W\d_]", text))


def _split_criteria(value: str | None) -> tuple[str, str | None]:
    if value is None:
        raise RowError("missing criteria", "criteria")
    parsed: Any = value
    if value.startswith("{"):
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise RowError("criteria looks like a dict but cannot be parsed", "criteria") from None
    if isinstance(parsed, str):
        if not _meaningful(parsed):
            raise RowError("criteria is empty", "criteria")
        return parsed, None
    if not isinstance(parsed, dict):
        raise RowError(f"criteria must be text or a dict, got {type(parsed).__name__}", "criteria")

    subjective = visual = None
    for key, text in parsed.items():
        if "subjective" in str(key).lower():
            subjective = text
        else:
            visual = text
    if not _meaningful(subjective):
        raise RowError("criteria has no subjective part", "criteria")
    return subjective, (visual if _meaningful(visual) else None)


def _decode_image_cell(value: str | None, image_of_index: Callable[[str], str]) -> list[bytes]:
    if value is None:
        raise RowError("missing image", "image")
    if len(value) <= _IMAGE_REF_MAX:
        target = image_of_index(value).strip()
        if len(target) <= _IMAGE_REF_MAX:
            raise RowError(f"image refers to index {value!r}, which has no image of its own", "image")
        value = target

    encoded: Any = value
    if value.startswith("["):
        try:
            encoded = json.loads(value)
        except json.JSONDecodeError:
            try:
                encoded = ast.literal_eval(value)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                raise RowError("image list cannot be parsed", "image") from None
    if isinstance(encoded, str):
        encoded = [encoded]
    if not isinstance(encoded, list) or not encoded:
        raise RowError("image must be base64 text or a non-empty list of it", "image")

    images = []
    for i, b64 in enumerate(encoded, start=1):
        if not isinstance(b64, str):
            raise RowError(f"image {i} is not text", "image")
        try:
            data = base64.b64decode("".join(b64.split()), validate=True)
        except (binascii.Error, ValueError):
            raise RowError(f"image {i} is not valid base64", "image") from None
        if not data:
            raise RowError(f"image {i} is empty", "image")
        images.append(data)
    return images


# --------------------------------------------------------------------------- images


def normalize_item_images(
    item: CreationItem, **limits: int
) -> tuple[list[NormalizedImage], str | None]:
    """Normalize all of an item's images.

    Returns (images, None) when every image is usable, or ([], reason) at the first bad one:
    an item with a broken picture cannot be asked fairly, so it is reported, not half-used.
    `limits` are passed to `normalize_image` (max_side, max_input_bytes, max_pixels).
    """
    if not item.images:
        return [], "item has no images"
    out = []
    for i, data in enumerate(item.images, start=1):
        try:
            out.append(normalize_image(data, **limits))
        except ImageError as exc:
            return [], f"image {i} of {len(item.images)}: {exc}"
    return out, None


# The item's texts that are stored redacted (benchwright.pii): a dataset may quote someone.
TEXT_FIELDS = ("role", "background", "instruction", "subjective_criteria", "visual_factuality_criteria",
               "ground_truth", "reference_answer")


def item_row(item: CreationItem, images: list[NormalizedImage], dataset: str) -> tuple[dict, int]:
    """The `creation_items` row of an item whose pictures are normalized: its texts and requirements redacted,
    its pictures by content hash. Returns the row and how many spans were redacted."""
    row, redactions = item.to_row(), 0
    for name in TEXT_FIELDS:
        row[name], found = redact(row.get(name))
        redactions += len(found)
    row["requirements"] = [redact(r)[0] for r in row["requirements"]]
    row["image_hashes"] = [img.sha256 for img in images]
    row["dataset"] = dataset
    return row, redactions


__all__ = [
    "CATEGORIES",
    "TASK_CATEGORIES",
    "CreationItem",
    "LoadProblem",
    "LoadResult",
    "load_creation_jsonl",
    "load_creation_tsv",
    "item_row",
    "normalize_item_images",
    "stream_creation_items",
]
