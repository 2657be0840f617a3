"""One bad record never voids a file: on a small copy of each shipped real file (in tmp_path), one record is
corrupted in each way a real file can be wrong, and exactly that record must be refused (a located problem)
while every figure the file reproduces equals the figure our code computes on the uncorrupted copy without
that record.

Ways of corruption: the wrong content in a cell or field, a short row (a CSV record with cells missing; a
JSON record torn in the middle), a stray quote (an unescaped quote inside a quoted cell, on the record's last
line or in the middle of its first, where a record over several lines leaves its other lines to be read as
if they were records; a quote in the middle of a JSON value), a bad number (a value that is not a number or out of its range), bad UTF-8 (a byte
0xff inside a value), and for Auto-J, whose three files are matched by line, a record missing in its place (a
blank line) or at the end of an output file. A way that has nothing to hit in a file (the URS and Arena-Hard
records hold no number that is checked) is left out of that file's cases. Where the wrong value sits in a field
the reader can name (a column, a JSON key of a record that still parses), the problem names that field.
"""

import csv
import functools
import io
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from benchwright import agreement, ratings
from benchwright.importers.alpaca_eval import import_alpaca_eval, item_id_for
from benchwright.importers.arena_hard import import_arena_hard, read_answer_style
from benchwright.importers.mmmt_if_release import import_mmmt_if_release
from benchwright.importers.pairwise_human import import_auto_j, import_llmbar
from benchwright.loading import csv_table
from benchwright.mmmt_if.release import release_metrics
from benchwright.urs.loader import load_urs_csv

EXTERNAL = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "external"
pytestmark = pytest.mark.skipif(not EXTERNAL.is_dir(), reason=f"shared external data not present at {EXTERNAL}")

KO_JUDGMENTS = EXTERNAL / "ko-arena-hard-auto" / "data" / "ko-arena-hard-v0.1" / "model_judgment" / "ensemble"
KO_STYLE = EXTERNAL / "ko-arena-hard-auto" / "answer_style_metadata.csv"
ALPACA = EXTERNAL / "alpaca_eval" / "results" / "alpaca-7b" / "weighted_alpaca_eval_gpt4_turbo" / "annotations.json"
AUTO_J = EXTERNAL / "auto-j"
AUTO_J_FILES = {"pairs": AUTO_J / "data" / "test" / "testdata_pairwise.jsonl",
                "original": AUTO_J / "data" / "outputs" / "pairwise_example_output.jsonl",
                "swapped": AUTO_J / "data" / "outputs" / "pairwise_exchange_example_output.jsonl"}
LLMBAR = EXTERNAL / "llmbar" / "Dataset" / "LLMBar" / "Natural" / "evaluators" / "GPT-4" / "Vanilla" / "result.json"
MMMT_IF = EXTERNAL / "mmmt-if" / "MMMT-IF_public_release_data.SAMPLE_first_40_rows.csv"
URS = EXTERNAL / "urs" / "data" / "data_all.csv"

RECORDS = 30  # records in each small copy
BAD = 17  # the place (1-based) of the corrupted record among them: neither first nor last
BAD_BYTE = "\udcff"  # written with surrogateescape: the byte 0xff, which is never UTF-8


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


# --- corrupting one JSON record (a JSONL line or an element of a JSON array), as text ------------------------

def _value_span(text: str, field: str) -> tuple[int, int]:
    """Where the value of the record's own `field` is in its text (not a quoted "field" inside a string)."""
    match = re.search(r'(?<!\\)"' + re.escape(field) + r'"\s*:\s*', text)
    assert match, f"no field {field!r} to corrupt"
    _, end = json.JSONDecoder().raw_decode(text, match.end())
    return match.end(), end


def json_corrupted(text: str, way: str, field: str, bad: str | None = None) -> str:
    if way == "short":  # torn in the middle
        return text[:len(text) // 2]
    start, end = _value_span(text, field)
    if way in ("wrong_content", "bad_number"):
        return text[:start] + bad + text[end:]
    middle = start + max(1, (end - start) // 2)
    return text[:middle] + {"stray_quote": '"', "bad_utf8": BAD_BYTE}[way] + text[middle:]


def jsonl_copy(source: Path, target: Path, corrupt=None) -> Path:
    """The first RECORDS lines of a JSONL file; `corrupt(text)` applied to line BAD."""
    lines = source.read_text(encoding="utf-8").splitlines()[:RECORDS]
    if corrupt:
        lines[BAD - 1] = corrupt(lines[BAD - 1])
    return write(target, "\n".join(lines) + "\n")


def json_array_copy(source: Path, target: Path, corrupt=None) -> tuple[Path, int]:
    """The first RECORDS elements of a JSON array file, each as written there; `corrupt(text)` applied to
    element BAD. Returns the copy and the line element BAD starts on."""
    text, decoder, elements, at = source.read_text(encoding="utf-8"), json.JSONDecoder(), [], 0
    at = text.index("[") + 1
    while len(elements) < RECORDS:
        at = text.index("{", at)
        _, end = decoder.raw_decode(text, at)
        elements.append(text[at:end])
        at = end
    if corrupt:
        elements[BAD - 1] = corrupt(elements[BAD - 1])
    body = "[\n  " + ",\n  ".join(elements) + "\n]\n"
    start = body.index(elements[BAD - 1], len("[\n  ") + sum(len(e) for e in elements[:BAD - 1]))
    return write(target, body), body.count("\n", 0, start) + 1


# --- corrupting one CSV record: its cells rewritten (all quoted), then the raw text changed -----------------

def csv_copy(source: Path, target: Path, corrupt=None, more: str = "") -> tuple[Path, int]:
    """The header and first RECORDS records of a CSV file, each as written there, then `more` (raw records);
    `corrupt(header, cells)` -> the record's new text, applied to record BAD. Returns the copy and the line
    record BAD starts on."""
    # The lines the csv module counts; enough of them for the records copied (the rest is not read: fast).
    lines = io.StringIO(source.read_bytes().decode("utf-8-sig"), newline="").readlines()[:3000]
    table = csv_table("".join(lines))
    starts = [record.line for record in table.records]
    head = "".join(lines[:starts[RECORDS] - 1])
    if not corrupt:
        return write(target, head + more), starts[BAD - 1]
    before = "".join(lines[:starts[BAD - 1] - 1])
    after = "".join(lines[starts[BAD] - 1:starts[RECORDS] - 1])
    return (write(target, before + corrupt(table.header, list(table.records[BAD - 1].cells)) + after + more),
            starts[BAD - 1])


def csv_line(cells: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(cells)
    return out.getvalue()


def csv_corruption(way: str, column: str | None = None, bad: str | None = None):
    def corrupt(header: list[str], cells: list[str]) -> str:
        if way == "short":
            return csv_line(cells[:-2])
        if way == "stray_quote":  # an unescaped quote inside the record's last (quoted) cell: `"0" x"`
            text = csv_line(cells)
            last = text.rstrip("\n").rfind('"', 0, len(text.rstrip("\n")) - 1)
            return text[:last + 2] + '" x' + text[last + 2:]
        if way == "stray_quote_early":  # the same in the middle of the record's first line: the quoting breaks
            text = csv_line(cells)    # there, and a record over several lines leaves lines that are its rest
            middle = text.index("\n") // 2
            return text[:middle] + '" ' + text[middle:]
        at = header.index(column)
        if way == "bad_utf8":
            cells[at] = cells[at][:len(cells[at]) // 2] + BAD_BYTE + cells[at][len(cells[at]) // 2:]
        else:
            cells[at] = bad(cells) if callable(bad) else bad
        return csv_line(cells)
    return corrupt


# --- each shipped file: its small copy, its reader, its figures, and the record taken out ------------------

def arena_hard_case(tmp_path, corrupt):
    source = sorted(KO_JUDGMENTS.glob("*.jsonl"))[0]
    path = jsonl_copy(source, tmp_path / "judgments.jsonl", corrupt)
    bad_item = json.loads(source.read_text(encoding="utf-8").splitlines()[BAD - 1])["question_id"]
    imported = import_arena_hard([path], "ko", "claude-3.7-sonnet")
    return imported.problems, imported, path, BAD, lambda s: s.judgments["item_id"] != bad_item


def arena_hard_figures(imported):
    battles = ratings.battles_from_judgments(imported.judgments, "claude-3.7-sonnet", reuse_single_game=True)
    table = ratings.rating_table(battles, anchor="claude-3.7-sonnet", weights=ratings.arena_hard_weights(3), rounds=0)
    return {"scores": table.reset_index(drop=True), "judgments": imported.judgments.reset_index(drop=True)}


KO_BASELINE = "claude-3.7-sonnet"


@functools.cache
def ko_first_model() -> tuple[list[str], pd.DataFrame]:
    """The style file's first RECORDS answers (all of its first model) and the baseline's answers to the same
    questions (raw lines), and that model's imported judgments: what a style-controlled rating needs."""
    lines = KO_STYLE.read_text(encoding="utf-8").splitlines(keepends=True)
    first = [next(csv.reader([line])) for line in lines[1:RECORDS + 1]]
    model, questions = first[0][0], {cells[1] for cells in first}
    assert {cells[0] for cells in first} == {model}
    baseline = [line for line in lines if line.startswith(KO_BASELINE + ",") and line.split(",")[1] in questions]
    judgments = import_arena_hard([KO_JUDGMENTS / f"{model}.jsonl"], "ko", KO_BASELINE).judgments
    return baseline, judgments


def ko_style_case(tmp_path, corrupt):
    baseline, _ = ko_first_model()
    path, line = csv_copy(KO_STYLE, tmp_path / "style.csv", corrupt, more="".join(baseline))
    problems = []
    style = read_answer_style(path, "arena_hard:ko", problems)
    bad_item = next(csv.reader(KO_STYLE.read_text(encoding="utf-8").splitlines()[BAD:BAD + 1]))[1]
    return problems, style, path, line, lambda s: (s["item_id"] != bad_item) | (s["model"] == KO_BASELINE)


def ko_style_figures(style: pd.DataFrame) -> dict:
    """The style-controlled ratings (every control) of the first model against the baseline: the battles
    whose two answers both have style counts, as in Arena-Hard's style control."""
    _, judgments = ko_first_model()
    battles = ratings.battles_from_judgments(judgments, KO_BASELINE, reuse_single_game=True, with_prompt=True)
    tables = {control: ratings.rating_table(battles, anchor=KO_BASELINE, weights=ratings.arena_hard_weights(3),
                                            rounds=0, control=control, style=style).reset_index(drop=True)
              for control in ("style", "length", "markdown")}
    return {"style": style.reset_index(drop=True), **tables}


def alpaca_case(tmp_path, corrupt):
    path, line = json_array_copy(ALPACA, tmp_path / "alpaca-7b" / "annotations.json", corrupt)
    (imported,) = import_alpaca_eval([path])
    original = json.loads(ALPACA.read_text(encoding="utf-8"))[BAD - 1]
    bad_item = item_id_for(original["instruction"])
    return imported.problems, imported, path, line, lambda s: s.preferences["item_id"] != bad_item


def alpaca_figures(imported):
    return {"leaderboard": ratings.win_rates_by_model(imported.preferences).reset_index(drop=True)}


def auto_j_case(which):
    def case(tmp_path, corrupt):
        paths = {name: jsonl_copy(source, tmp_path / source.name, corrupt if name == which else None)
                 for name, source in AUTO_J_FILES.items()}
        imported = import_auto_j(paths["pairs"], paths["original"], paths["swapped"], judge="auto-j-13b")
        item = str(BAD)
        order = {"original": 1, "swapped": 2}.get(which)
        # A bad pair takes its item out (label and both judgments); a bad output, that order's judgment only.
        keep = {"judgments": lambda s: ~((s["item_id"] == item) & (s["judge_order"] == order if order else True)),
                "humans": lambda s: s["item_id"] != item if order is None else s["item_id"].notna()}
        return imported.problems, imported, paths[which], BAD, keep
    return case


def llmbar_case(tmp_path, corrupt):
    target = tmp_path / "Dataset" / "LLMBar" / "Natural" / "evaluators" / "GPT-4" / "Vanilla" / "result.json"
    path, line = json_array_copy(LLMBAR, target, corrupt)
    (imported,) = import_llmbar([path])
    return imported.problems, imported, path, line, lambda s: s["item_id"] != str(BAD)


def llmbar_figures(judgments, humans):
    labels = agreement.judge_item_labels(judgments)
    gold = labels["item_id"].map(humans.set_index("item_id")["label"]).tolist()
    return {"correct_average": agreement.dual_agreement(labels["label1"].tolist(), labels["label2"].tolist(), gold,
                                                        rule="average"),
            "equal": agreement.swap_consistency(labels["label1"].tolist(), labels["label2"].tolist(),
                                                failures_match=True),
            "n_items": len(labels)}


def mmmt_if_case(tmp_path, corrupt):
    path, line = csv_copy(MMMT_IF, tmp_path / "release.csv", corrupt)
    release = import_mmmt_if_release(path)
    return release.problems, release, path, line, lambda s: s["line"] != line


def mmmt_if_figures(responses, human, pif_weight):
    tables = release_metrics(responses, human, pif_weight, bootstrap_rounds=20, seed=0)
    return {name: table.reset_index(drop=True) for name, table in tables.items()}


def urs_case(tmp_path, corrupt):
    path, line = csv_copy(URS, tmp_path / "data_all.csv", corrupt)
    loaded = load_urs_csv(path)
    return loaded.problems, loaded, path, line, lambda item: item.source_row != BAD


def urs_figures(items):
    return {"cells": Counter((i.intent, i.language) for i in items), "items": [i.to_row() for i in items]}


def _instructions_hold_a_response(cells):
    return cells[2]  # the prompt's text in the instruction-list cell, as in the real release's bad record


PIF = "Programmatic Instruction Following "
MMMT_MODEL = next(c for c in csv_table(MMMT_IF.read_text(encoding="utf-8")).header if c.startswith(PIF)) \
    if MMMT_IF.is_file() else ""

CASES = {
    # file: (how to read it, its ways: way -> the corruption of record BAD)
    "arena_hard_judgments": (arena_hard_case, {
        "wrong_content": lambda t: json_corrupted(t, "wrong_content", "games", '"A>B"'),
        "short": lambda t: json_corrupted(t, "short", ""),
        "stray_quote": lambda t: json_corrupted(t, "stray_quote", "model"),
        "bad_utf8": lambda t: json_corrupted(t, "bad_utf8", "judge")}),
    "arena_hard_style_metadata": (ko_style_case, {
        "wrong_content": csv_corruption("wrong_content", "token_len", "a long answer"),
        "short": csv_corruption("short"), "stray_quote": csv_corruption("stray_quote"),
        "stray_quote_early": csv_corruption("stray_quote_early"),
        "bad_number": csv_corruption("bad_number", "h2", "-1"),
        "bad_utf8": csv_corruption("bad_utf8", "bold_star")}),
    "alpaca_eval_annotations": (alpaca_case, {
        "wrong_content": lambda t: json_corrupted(t, "wrong_content", "preference", '"output_2"'),
        "short": lambda t: json_corrupted(t, "short", ""),
        "stray_quote": lambda t: json_corrupted(t, "stray_quote", "instruction"),
        "bad_number": lambda t: json_corrupted(t, "bad_number", "preference", "3.5"),
        "bad_utf8": lambda t: json_corrupted(t, "bad_utf8", "output_2")}),
    **{f"auto_j_{which}": (auto_j_case(which), {
        "wrong_content": lambda t, f=field: json_corrupted(t, "wrong_content", f, '"first"'),
        "short": lambda t: json_corrupted(t, "short", ""),
        "stray_quote": lambda t, f=field: json_corrupted(t, "stray_quote", f),
        "bad_number": lambda t, f=field: json_corrupted(t, "bad_number", f, "7"),
        "bad_utf8": lambda t, f=field: json_corrupted(t, "bad_utf8", f),
        "missing": lambda t: ""})  # the record gone, its line left blank: the lines after it keep their places
       for which, field in (("pairs", "label"), ("original", "output"), ("swapped", "output"))},
    "llmbar_result": (llmbar_case, {
        "wrong_content": lambda t: json_corrupted(t, "wrong_content", "label", '"output_1"'),
        "short": lambda t: json_corrupted(t, "short", ""),
        "stray_quote": lambda t: json_corrupted(t, "stray_quote", "input"),
        "bad_number": lambda t: json_corrupted(t, "bad_number", "label", "3"),
        "bad_utf8": lambda t: json_corrupted(t, "bad_utf8", "output_1")}),
    "mmmt_if_release": (mmmt_if_case, {
        "wrong_content": csv_corruption("wrong_content", "all instructions", _instructions_hold_a_response),
        "short": csv_corruption("short"), "stray_quote": csv_corruption("stray_quote"),
        "stray_quote_early": csv_corruption("stray_quote_early"),
        "bad_number": csv_corruption("bad_number", MMMT_MODEL, "0.8.1"),
        "bad_utf8": csv_corruption("bad_utf8", "prompt")}),
    "urs_questions": (urs_case, {
        "wrong_content": csv_corruption("wrong_content", "user_intent", lambda cells: cells[0]),
        "short": csv_corruption("short"), "stray_quote": csv_corruption("stray_quote"),
        "stray_quote_early": csv_corruption("stray_quote_early"),
        "bad_utf8": csv_corruption("bad_utf8", "question")}),
}


# The field each problem names: the column or key holding the wrong value; None where the record as a whole is
# wrong (torn, a stray quote, a cell count unlike the header's, a record missing) or a byte 0xff breaks the JSON
# of a number (Auto-J's label and outputs), so no key can be read.
FIELDS = {
    ("arena_hard_judgments", "wrong_content"): "games", ("arena_hard_judgments", "bad_utf8"): "judge",
    ("arena_hard_style_metadata", "wrong_content"): "token_len", ("arena_hard_style_metadata", "bad_number"): "h2",
    ("arena_hard_style_metadata", "bad_utf8"): "bold_star",
    ("alpaca_eval_annotations", "wrong_content"): "preference", ("alpaca_eval_annotations", "bad_number"): "preference",
    ("alpaca_eval_annotations", "bad_utf8"): "output_2",
    ("auto_j_pairs", "wrong_content"): "label", ("auto_j_pairs", "bad_number"): "label",
    **{(f"auto_j_{which}", way): "output" for which in ("original", "swapped") for way in ("wrong_content", "bad_number")},
    ("llmbar_result", "wrong_content"): "label", ("llmbar_result", "bad_number"): "label",
    ("llmbar_result", "bad_utf8"): "output_1",
    ("mmmt_if_release", "wrong_content"): "all instructions", ("mmmt_if_release", "bad_number"): MMMT_MODEL,
    ("mmmt_if_release", "bad_utf8"): "prompt",
    ("urs_questions", "wrong_content"): "user_intent", ("urs_questions", "bad_utf8"): "question",
}


def figures_of(name, read, keep=None):
    """The figures a file reproduces, from what its reader returned; with `keep`, without the record BAD."""
    if name == "arena_hard_judgments":
        return arena_hard_figures(read if keep is None else replace(read, judgments=read.judgments[keep(read)]))
    if name == "arena_hard_style_metadata":
        return ko_style_figures(read if keep is None else read[keep(read)])
    if name == "alpaca_eval_annotations":
        return alpaca_figures(read if keep is None else replace(read, preferences=read.preferences[keep(read)]))
    if name.startswith("auto_j_"):
        judgments, humans = read.judgments, read.human_labels
        if keep is not None:
            judgments, humans = judgments[keep["judgments"](judgments)], humans[keep["humans"](humans)]
        return {"agreement": agreement.agreement_table(judgments, humans).reset_index(drop=True)}
    if name == "llmbar_result":
        judgments, humans = read.judgments, read.human_labels
        if keep is not None:
            judgments, humans = judgments[keep(judgments)], humans[keep(humans)]
        return llmbar_figures(judgments, humans)
    if name == "mmmt_if_release":
        responses, human = read.responses, read.human_preferences
        if keep is not None:
            responses, human = responses[keep(responses)], human[keep(human)]
        return mmmt_if_figures(responses.reset_index(drop=True), human.reset_index(drop=True), read.pif_weight)
    if name == "urs_questions":
        return urs_figures(read.items if keep is None else [i for i in read.items if keep(i)])
    raise AssertionError(name)


ROW_KEYS = {"judgments", "style", "items"}  # the rows read, next to the figures computed from them


def assert_same(ours: dict, expected: dict) -> None:
    assert ours.keys() == expected.keys()
    for key in expected:
        assert_same_figure(ours, expected, key)


def assert_same_figure(ours: dict, expected: dict, key: str) -> None:
    if isinstance(expected[key], pd.DataFrame):
        pd.testing.assert_frame_equal(ours[key].reset_index(drop=True), expected[key].reset_index(drop=True),
                                      check_dtype=False, obj=key)
    else:
        assert ours[key] == expected[key], key


def changed_figures(ours: dict, expected: dict) -> list[str]:
    changed = []
    for key in expected.keys() - ROW_KEYS:
        try:
            assert_same_figure(ours, expected, key)
        except AssertionError:
            changed.append(key)
    return changed


@pytest.fixture(scope="module")
def clean_copies(tmp_path_factory):
    """file -> what its uncorrupted small copy gives: read once for all of its ways (the same copy each time)."""
    done = {}

    def clean(name):
        if name not in done:
            problems, read, _, line, keep = CASES[name][0](tmp_path_factory.mktemp("clean"), None)
            # The figures without record BAD (what a corrupted copy must give) and with it (what it changes).
            done[name] = {"problems": problems, "line": line, "expected": figures_of(name, read, keep),
                          "whole": figures_of(name, read)}
        return done[name]
    return clean


@pytest.mark.parametrize(("name", "way"), [(name, way) for name, (_, ways) in CASES.items() for way in ways])
def test_one_corrupted_record_is_refused_alone_and_the_figures_change_only_by_it(tmp_path, clean_copies, name, way):
    reader, ways = CASES[name]
    clean = clean_copies(name)
    assert clean["problems"] == []
    problems, corrupted, path, _, _ = reader(tmp_path / "corrupted", ways[way])
    # Exactly that record is refused, located at its file and the line it starts on (URS: its row).
    assert len(problems) == 1, [(p.location, p.reason) for p in problems]
    where = f"row {BAD}" if name == "urs_questions" else str(clean["line"])
    assert problems[0].location in (f"{path}:{where}", f"{path.name}:{where}"), problems[0]
    assert problems[0].field == FIELDS.get((name, way)), problems[0]
    # Every figure is the one of the clean copy without that record, and that record did count in one.
    assert_same(figures_of(name, corrupted), clean["expected"])
    assert changed_figures(clean["whole"], clean["expected"])


@pytest.mark.parametrize("which", ["original", "swapped"])
def test_an_auto_j_output_file_that_ends_early_loses_only_its_missing_records(tmp_path, which):
    # The last output gone (a copy cut short): matched by line, every other record keeps its pair, and only the
    # last item's judgment in that order is refused, located where the output should be.
    clean_problems, clean, _, _, _ = auto_j_case(which)(tmp_path / "clean", None)
    assert clean_problems == []
    paths = {name: jsonl_copy(source, tmp_path / "cut" / source.name) for name, source in AUTO_J_FILES.items()}
    write(paths[which], "".join(f"{line}\n" for line in paths[which].read_text(encoding="utf-8").splitlines()[:-1]))
    cut = import_auto_j(paths["pairs"], paths["original"], paths["swapped"], judge="auto-j-13b")
    assert [(p.location, p.field) for p in cut.problems] == [(f"{paths[which]}:{RECORDS}", "output")], cut.problems
    assert any("ends at line" in note for note in cut.notes), cut.notes
    order = {"original": 1, "swapped": 2}[which]
    judgments = clean.judgments
    keep = {"judgments": lambda s: ~((s["item_id"] == str(RECORDS)) & (s["judge_order"] == order)),
            "humans": lambda s: s["item_id"].notna()}
    expected = figures_of(f"auto_j_{which}", clean, keep)
    assert_same(figures_of(f"auto_j_{which}", cut), expected)
    assert len(cut.judgments) == len(judgments) - 1
