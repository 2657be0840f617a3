"""Human pairwise choices: the file format and loader, the −2..+2 value, and human alignment on a hand-built case."""

import csv
import io

import pandas as pd
import pytest

from benchwright.creation import human as creation_human
from benchwright.agreement import verdict_value
from benchwright.pairwise import OUTCOME_VALUE
from benchwright import human_pairwise
from benchwright.urs import loader as urs_datasets
from benchwright.human_pairwise import COLUMNS, load_folder, load_pairwise_csv, value_for_b
from benchwright.paths import ROOT

LEGACY_SAMPLE = ROOT / "sample_data" / "urs" / "human_pairwise.csv"


def write_round(path, rows, columns=COLUMNS, torn_tail: str = "") -> None:
    """A round file as the annotation app writes it: header, then one appended row per choice."""
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({c: row.get(c, "") for c in columns})
        f.write(torn_tail)


def choice(**overrides) -> dict:
    base = {"benchmark": "creation", "item_id": "lw-001", "model_a": "sim-baseline", "model_b": "sim-strong",
            "winner": "B", "strength": "2", "annotator": "ann-1", "left_model": "sim-strong", "item_position": "1",
            "round_id": "round-1", "recorded_at": "2025-05-01T09:30:00Z", "seconds_taken": "41.5"}
    return base | overrides


# --- the loader -------------------------------------------------------------------------------------

def test_a_full_row_keeps_every_column_with_types(tmp_path):
    write_round(tmp_path / "round-1.csv", [choice(), choice(item_id="lw-002", recorded_at="2025-05-01T11:30:00+02:00",
                                                         winner="tie", strength="0", left_model="sim-baseline")])
    rows, problems = load_pairwise_csv(tmp_path / "round-1.csv")
    assert problems == []
    first, second = rows
    assert first == {"benchmark": "creation", "item_id": "lw-001", "model_a": "sim-baseline", "model_b": "sim-strong",
                     "winner": "B", "strength": 2, "annotator": "ann-1", "left_model": "sim-strong",
                     "item_position": 1, "round_id": "round-1", "recorded_at": "2025-05-01T09:30:00+00:00",
                     "seconds_taken": 41.5, "source_file": "round-1.csv", "source_row": 1}
    # Stored in UTC: 11:30 at +02:00 is 09:30 UTC.
    assert second["recorded_at"] == "2025-05-01T09:30:00+00:00" and second["strength"] == 0
    assert set(first) == {*human_pairwise.ROW_COLUMNS, "source_row"}


def test_an_annotator_or_file_named_by_an_email_is_stored_under_a_stable_pseudonym(tmp_path):
    named = tmp_path / "round-jean.dupont@exemple.fr.csv"
    write_round(named, [choice(annotator="jean.dupont@exemple.fr", round_id="round for +33 6 12 34 56 78"),
                        choice(item_id="lw-002", annotator="ann-1")])
    rows, problems = load_pairwise_csv(named)
    assert problems == []
    first, second = rows
    assert first["annotator"].startswith("person-") and second["annotator"] == "ann-1"
    assert first["round_id"] == "round for [REDACTED:phone]"
    assert first["source_file"].startswith("person-") and "@" not in first["source_file"]
    # The same person and file, read again, keep their keys (a re-delivery is recognised as one).
    again, _ = load_pairwise_csv(named)
    assert (again[0]["annotator"], again[0]["source_file"]) == (first["annotator"], first["source_file"])


def test_every_bad_row_is_a_located_problem_and_the_good_rows_still_load(tmp_path):
    good = [choice(item_id="ok-1"), choice(item_id="ok-2", winner="undetermined", strength="")]
    bad = {
        "strength '3' is not 0, 1 or 2": choice(strength="3"),
        "does not fit winner 'A'": choice(winner="A", strength="0"),      # a preference with tie strength
        "does not fit winner 'tie'": choice(winner="tie", strength="1"),
        "does not fit winner 'undetermined'": choice(winner="cannot tell", strength="2"),
        "does not fit winner 'B'": choice(strength=""),                    # strength missing for a choice
        "unknown benchmark 'mmmt_if'": choice(benchmark="mmmt_if"),
        "compared with itself": choice(model_b="sim-baseline", left_model="sim-baseline"),
        "unknown winner 'maybe'": choice(winner="maybe"),
        "needs an item_id": choice(item_id=""),
        "left_model 'sim-weak' is neither": choice(left_model="sim-weak"),
        "item_position '0'": choice(item_position="0"),
        "recorded_at 'yesterday'": choice(recorded_at="yesterday"),
        "seconds_taken '-3'": choice(seconds_taken="-3"),
    }
    rows_in_order = [good[0], *bad.values(), good[1]]
    # A crash mid-append (or a producer still writing) leaves a last line without its line end: not read.
    write_round(tmp_path / "r.csv", rows_in_order, torn_tail="creation,lw-009,sim-baseline,sim-str")
    rows, problems = load_pairwise_csv(tmp_path / "r.csv")
    assert [r["item_id"] for r in rows] == ["ok-1", "ok-2"]
    assert rows[1]["winner"] == "undetermined" and rows[1]["strength"] is None
    expected_locations = [f"r.csv:row {n}" for n in range(2, 2 + len(bad))] + [f"r.csv:row {len(rows_in_order) + 1}"]
    assert [p.location for p in problems] == expected_locations
    for problem, reason in zip(problems, [*bad, "incomplete last line"]):
        assert reason in problem.reason, (problem, reason)


def test_a_line_joined_to_a_torn_one_and_bad_bytes_are_problems_not_crashes(tmp_path):
    path = tmp_path / "r.csv"
    write_round(path, [choice(item_id="ok-1")])
    # The app restarted after a torn line and appended to it: one line with too many fields.
    line = io.StringIO()
    csv.writer(line).writerow([choice()[c] for c in COLUMNS])
    with path.open("ab") as f:
        f.write(b"creation,lw-009,sim-base" + line.getvalue().encode())
        f.write(b"creation,lw-003,sim-baseline,sim-strong,B,1,ann-\xff,,,,,\n")
    rows, problems = load_pairwise_csv(path)
    assert [r["item_id"] for r in rows] == ["ok-1"]
    joined = 3 + len(COLUMNS) - 1  # the torn piece's last field runs into the next row's first
    assert [(p.location, p.reason) for p in problems] == [
        ("r.csv:row 2", f"has {joined} fields, header has {len(COLUMNS)}"), ("r.csv:row 3", "not valid UTF-8")]


def test_a_quote_never_closed_and_cells_beyond_the_header_are_located_problems(tmp_path):
    path = tmp_path / "r.csv"
    write_round(path, [choice(item_id="ok-1"), choice(item_id="ok-2")])
    with path.open("a", encoding="utf-8", newline="") as f:
        f.write("urs,,x,y,A,1,ann-2,,,,,,extra\n")  # a 13th cell: which column was it for?
        f.write('urs,,x,y,"A,1,ann-3,,,,,\n')  # the quote opens and never closes...
        f.write("urs,,x,y,B,1,ann-4,,,,,\n")  # ...so this row cannot be told apart from it
    rows, problems = load_pairwise_csv(path)
    assert [r["item_id"] for r in rows] == ["ok-1", "ok-2"]
    assert [(p.location, p.reason) for p in problems] == [
        ("r.csv:row 3", f"has {len(COLUMNS) + 1} fields, header has {len(COLUMNS)}"),
        ("r.csv:row 4", "a quoted cell is never closed: the rest of the file (lines 5-6) is not read")]


def test_a_column_named_twice_refuses_the_file_with_its_name(tmp_path):
    (tmp_path / "a.csv").write_text("model_a,model_b,winner,winner\nx,y,A,B\n")
    write_round(tmp_path / "b.csv", [choice()])
    rows, problems = load_folder(tmp_path)
    assert len(rows) == 1 and rows[0]["source_file"] == "b.csv"
    [problem] = problems
    assert problem.location == "a.csv" and "'winner' appears twice in the header (columns 3 and 4)" in problem.reason


def test_the_legacy_urs_sample_loads_as_urs_with_default_strengths():
    rows, problems = load_pairwise_csv(LEGACY_SAMPLE)
    with LEGACY_SAMPLE.open(encoding="utf-8", newline="") as f:
        records = list(csv.DictReader(f))
    assert problems == [] and len(rows) == len(records) > 0
    assert {r["benchmark"] for r in rows} == {"urs"}
    for row, record in zip(rows, records):
        assert (row["model_a"], row["model_b"], row["annotator"]) == (record["model_a"], record["model_b"],
                                                                      record["annotator"])
        # Without a strength column a choice counts as 'better' (1), a tie as 0, cannot-tell as none.
        assert row["strength"] == {"A": 1, "B": 1, "tie": 0, "undetermined": None}[row["winner"]]
        assert row["round_id"] is None and row["source_file"] == LEGACY_SAMPLE.name


def test_the_urs_module_reexports_the_one_loader_and_keeps_the_old_spellings(tmp_path):
    assert urs_datasets.load_pairwise_csv is load_pairwise_csv
    (tmp_path / "p.csv").write_text("model_a,model_b,winner\nx,y,Draw\nx,y,EQUAL\nx,y,=\nx,y,Unknown\nx,y,b\n")
    rows, problems = load_pairwise_csv(tmp_path / "p.csv")
    assert problems == [] and [r["winner"] for r in rows] == ["tie", "tie", "tie", "undetermined", "B"]


def test_unusable_files_raise_naming_the_path(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "cols.csv").write_text("model_a,winner\nx,A\n")
    with pytest.raises(ValueError, match="empty.csv is empty"):
        load_pairwise_csv(tmp_path / "empty.csv")
    with pytest.raises(ValueError, match="cols.csv lacks required column.*model_b"):
        load_pairwise_csv(tmp_path / "cols.csv")
    with pytest.raises(FileNotFoundError, match="nowhere.csv"):
        load_pairwise_csv(tmp_path / "nowhere.csv")


def test_load_folder_reads_every_csv_in_name_order_and_never_counts_a_copy_twice(tmp_path):
    write_round(tmp_path / "b-round.csv", [choice(item_id="b1"), choice(item_id="b2")])
    write_round(tmp_path / "a-round.csv", [choice(item_id="a1", benchmark="urs", model_a="sim-weak")])
    (tmp_path / "c-copy.csv").write_bytes((tmp_path / "b-round.csv").read_bytes())  # re-delivered under a new name
    (tmp_path / "d-broken.csv").write_text("who,what\n1,2\n")
    (tmp_path / "notes.txt").write_text("not a round")
    rows, problems = load_folder(tmp_path)
    assert [(r["source_file"], r["item_id"]) for r in rows] == [("a-round.csv", "a1"), ("b-round.csv", "b1"),
                                                                ("b-round.csv", "b2")]
    # Every choice of the copy is a located duplicate of the one it repeats, never counted again.
    assert [(p.location, p.reason) for p in problems] == [
        ("d-broken.csv", problems[0].reason), ("c-copy.csv:row 1", "duplicate of b-round.csv:row 1"),
        ("c-copy.csv:row 2", "duplicate of b-round.csv:row 2")]
    assert "lacks required column" in problems[0].reason
    assert load_folder(tmp_path / "not-there") == ([], [])


# --- the value scale --------------------------------------------------------------------------------

# benchwright/creation/README.md#human-alignment: the candidate (model_b) much better +2 ... much worse −2, as outcome names (#pairwise-judging).
SPEC_OUTCOME = {("B", 2): "MB", ("B", 1): "B", ("tie", 0): "T", ("A", 1): "W", ("A", 2): "MW"}
# The same choice as a judge's order-1 verdict (baseline in A, candidate in B).
AS_VERDICT = {("B", 2): "B>>A", ("B", 1): "B>A", ("tie", 0): "A=B", ("A", 1): "A>B", ("A", 2): "A>>B"}


@pytest.mark.parametrize("winner,strength", sorted(SPEC_OUTCOME))
def test_value_for_b_is_the_candidates_point_of_view(winner, strength):
    assert value_for_b(winner, strength) == OUTCOME_VALUE[SPEC_OUTCOME[(winner, strength)]]
    # A person and a judge saying the same thing land on the same value.
    assert value_for_b(winner, strength) == verdict_value(AS_VERDICT[(winner, strength)], "B")


@pytest.mark.parametrize("winner,strength", [("A", 0), ("B", None), ("B", 3), ("tie", 1), ("undetermined", 1),
                                             ("left", 1)])
def test_value_for_b_refuses_a_strength_that_does_not_fit(winner, strength):
    with pytest.raises(ValueError):
        value_for_b(winner, strength)


def test_cannot_tell_has_no_value():
    assert value_for_b("undetermined", None) is None


# --- human alignment on a hand-built case -------------------------------------------------------------------

def _judgment(item, order, verdict, parse_ok=True, error=None, model="cand", judge="j"):
    return {"judge": judge, "model": model, "item_id": item, "judge_order": order,
            "candidate_position": "B" if order == 1 else "A", "verdict": verdict, "parse_ok": parse_ok,
            "error": error, "source": "benchwright"}


def _human(item, annotator, winner, strength, model="cand"):
    return {"benchmark": "creation", "item_id": item, "model_a": "base", "model_b": model, "winner": winner,
            "strength": strength, "annotator": annotator, "source_file": "round.csv"}


def _mae_consistency(pairs):
    diffs = [abs(j - p) for j, p in pairs]
    return sum(diffs) / len(diffs), sum(d <= 1 for d in diffs) / len(diffs)


def test_mae_and_consistency_follow_the_definition_on_a_small_case():
    judgments = pd.DataFrame([
        _judgment("i1", 1, "B>>A"), _judgment("i1", 2, "A>B"),                   # +2 and +1 (candidate is A)
        _judgment("i2", 1, "A=B"), _judgment("i2", 2, "B>>A"),                   # 0 and −2
        _judgment("i3", 1, "A>B"), _judgment("i3", 2, None, parse_ok=False),     # −1 and a parse failure
        _judgment("i4", 1, None, parse_ok=False), _judgment("i4", 2, "A>>B"),   # a parse failure and +2
        _judgment("i5", 1, None, parse_ok=False, error="timeout"), _judgment("i5", 2, "B>A"),  # a failed call
        _judgment("i1", 1, "B>A", model="nobody-rated"), _judgment("i1", 2, "A>B", model="nobody-rated"),
    ])
    humans = pd.DataFrame([
        _human("i1", "h1", "A", 1), _human("i1", "h2", "tie", 0), _human("i1", "h3", "B", 2),   # −1, 0, +2
        _human("i2", "h1", "A", 1), _human("i2", "h2", "tie", 0),                              # −1, 0
        _human("i2", "h3", "undetermined", None),                                             # left out
        _human("i3", "h1", "A", 2),                                                           # −2
        _human("i4", "h2", "B", 1),                                                           # +1
        _human("i5", "h1", "tie", 0),                                                         # 0
    ])
    table = creation_human.alignment_table(judgments, humans).set_index(["judge", "model", "mode"])
    p = {"i1": (-1 + 0 + 2) / 3, "i2": (-1 + 0) / 2, "i3": -2.0, "i4": 1.0, "i5": 0.0}

    # Non-dual: J = order 1. i4 did not parse and i5's call failed: both left out, both counted.
    non_dual = table.loc[("j", "cand", "non_dual")]
    mae, consistency = _mae_consistency([(2, p["i1"]), (0, p["i2"]), (-1, p["i3"])])
    assert non_dual["mae"] == pytest.approx(mae) and non_dual["consistency"] == pytest.approx(consistency)
    assert (non_dual["items"], non_dual["judge_failures"], non_dual["judge_errors"]) == (3, 1, 1)

    # Dual: J = mean of both orders; only i1 and i2 have both.
    dual = table.loc[("j", "cand", "dual")]
    mae, consistency = _mae_consistency([((2 + 1) / 2, p["i1"]), ((0 - 2) / 2, p["i2"])])
    assert dual["mae"] == pytest.approx(mae) and dual["consistency"] == pytest.approx(consistency)
    assert (dual["items"], dual["judge_failures"], dual["judge_errors"]) == (2, 2, 1)
    assert dual["human_choices"] == 8  # the 'cannot tell' is not a choice with a value

    # Human–human: each person against the mean of the others, on items with two or more people.
    people = table.loc[("(humans)", "cand", "human_human")]
    loo = [(-1, (0 + 2) / 2), (0, (-1 + 2) / 2), (2, (-1 + 0) / 2), (-1, 0), (0, -1)]
    mae, consistency = _mae_consistency(loo)
    assert people["mae"] == pytest.approx(mae) and people["consistency"] == pytest.approx(consistency)
    assert (people["items"], people["comparisons"]) == (2, len(loo))

    # Nobody rated the other model's answers: nothing to align, no row.
    assert "nobody-rated" not in table.index.get_level_values("model")
    assert set(table.index.get_level_values("mode")) == {"dual", "non_dual", "human_human"}


def test_a_judge_with_only_failures_gets_counts_and_no_figures():
    judgments = pd.DataFrame([_judgment("i1", 1, None, parse_ok=False), _judgment("i1", 2, None, parse_ok=False)])
    table = creation_human.alignment_table(judgments, pd.DataFrame([_human("i1", "h1", "B", 1)]))
    rows = table[table["judge"] == "j"].set_index("mode")
    assert rows.loc["dual", "items"] == 0 and rows.loc["dual", "judge_failures"] == 2
    assert rows["mae"].isna().all() and rows["consistency"].isna().all()  # never a zero


def test_choices_against_another_baseline_are_set_aside_with_a_reason():
    choices = pd.DataFrame([_human("i1", "h1", "B", 1), {**_human("i2", "h1", "B", 1), "model_a": "someone-else"},
                            _human("gone", "h1", "B", 1)])
    kept, problems = creation_human.check_baselines(choices, {"i1": "base", "i2": "base"})
    assert kept["item_id"].tolist() == ["i1"]
    assert [p["location"] for p in problems] == ["round.csv: item i2, model_b cand, annotator h1",
                                                 "round.csv: item gone, model_b cand, annotator h1"]
    assert "'someone-else' is not the item's baseline 'base'" in problems[0]["reason"]
    assert "no Creation reference answer" in problems[1]["reason"]


def test_no_choices_yet_gives_an_empty_table_not_an_error():
    columns = ["benchmark", "item_id", "model_a", "model_b", "winner", "strength", "annotator", "source_file"]
    kept, problems = creation_human.check_baselines(pd.DataFrame(columns=columns), {"i1": "base"})
    assert list(kept.columns) == columns and problems == []
    judgments = pd.DataFrame([_judgment("i1", 1, "B>A"), _judgment("i1", 2, "A>B")])
    table = creation_human.alignment_table(judgments, kept)
    assert table.empty and list(table.columns) == creation_human.ALIGNMENT_COLUMNS


def test_every_redelivery_of_a_choice_counts_once(tmp_path):
    from benchwright.human_pairwise import without_duplicates

    write_round(tmp_path / "a.csv", [choice(item_id="x1"), choice(item_id="x2")])
    raw = (tmp_path / "a.csv").read_bytes()
    (tmp_path / "b-crlf.csv").write_bytes(raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    (tmp_path / "c-blank.csv").write_bytes(raw + b"\n")
    # an exact duplicate row inside one file (the same timed choice written twice)
    lines = raw.splitlines(keepends=True)
    (tmp_path / "d-twice.csv").write_bytes(b"".join([lines[0], lines[1], lines[1]]))
    rows, problems = load_folder(tmp_path)
    assert [(r["source_file"], r["item_id"]) for r in rows] == [("a.csv", "x1"), ("a.csv", "x2")]
    assert len(problems) == 2 + 2 + 2 and all(p.reason.startswith("duplicate of a.csv:row ") for p in problems)
    # Anonymous votes without a time (the older URS layout): equal votes in one file all count,
    # a copy of the file counts none.
    legacy = [{"benchmark": "urs", "item_id": None, "model_a": "m1", "model_b": "m2", "winner": "A", "strength": 1,
               "annotator": None, "left_model": None, "item_position": None, "round_id": None, "recorded_at": None,
               "seconds_taken": None, "source_file": f, "source_row": n} for f in ("s.csv", "copy.csv") for n in (1, 2)]
    kept, repeated = without_duplicates(legacy)
    assert [(r["source_file"], r["source_row"]) for r in kept] == [("s.csv", 1), ("s.csv", 2)]
    assert [p.reason for p in repeated] == ["duplicate of s.csv:row 1", "duplicate of s.csv:row 2"]


def test_the_configured_sample_dropped_into_the_folder_counts_once(tmp_path):
    from benchwright.human_pairwise import without_duplicates
    from benchwright.paths import ROOT

    sample = ROOT / "sample_data" / "urs" / "human_pairwise.csv"
    sample_rows, _ = load_pairwise_csv(sample)
    (tmp_path / "copy-crlf.csv").write_bytes(sample.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    dropped, problems = load_folder(tmp_path)
    assert problems == [] and len(dropped) == len(sample_rows) > 30
    rows, repeated = without_duplicates([*sample_rows, *dropped])
    assert len(rows) == len(sample_rows) and len(repeated) == len(sample_rows)
    assert repeated[0].location == "copy-crlf.csv:row 1" and repeated[0].reason == "duplicate of human_pairwise.csv:row 1"
