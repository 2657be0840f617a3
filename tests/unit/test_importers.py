"""Importers read others' formats into our rows, and name the file and line of anything they cannot read."""

import json

import pytest

from benchwright.importers import ImportFormatError, iter_json_array
from benchwright.importers.alpaca_eval import import_alpaca_eval, verdict_from_preference
from benchwright.importers.arena_hard import STYLE_METADATA_COLUMNS, import_arena_hard
from benchwright.importers.pairwise_human import import_auto_j, import_llmbar, llmbar_names


def write_lines(path, records):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def arena_record(qid, model="m", games=({"score": "A>B"}, {"score": "B>A"}), **extra):
    return {"question_id": qid, "model": model, "judge": "gpt", "games": list(games), **extra}


def test_arena_hard_style_metadata_sums_each_group_and_names_models_without_it(tmp_path):
    judgments = write_lines(tmp_path / "m.jsonl", [arena_record("q1"), arena_record("q1", model="other")])
    header = ",".join(STYLE_METADATA_COLUMNS)
    metadata = tmp_path / "style.csv"
    metadata.write_text(f"{header}\nm,q1,120,1,2,0,0,0,3,4,5,6,1\nbase,q1,80,0,0,0,0,0,0,0,0,0,0\n")
    imported = import_arena_hard([judgments], "bench", "base", metadata)
    style = imported.answer_style.set_index("model")
    assert (style.loc["m", "tokens"], style.loc["m", "headers"], style.loc["m", "lists"], style.loc["m", "bold"]) == (
        120, 6, 9, 7)
    assert set(style["source"]) == {"arena_hard:bench"} and style.loc["base", "item_id"] == "q1"
    assert "none for ['other']" in imported.notes[-1] and str(metadata) in imported.files
    assert import_arena_hard([judgments], "bench", "base").answer_style.empty

    metadata.write_text(f"{header}\nm,q1,120,1,2,0,0,0,3,4,5,6,1\nbase,q1,-80,0,0,0,0,0,0,0,0,0,0\n")
    refused = import_arena_hard([judgments], "bench", "base", metadata)  # one bad row: that row refused
    assert list(refused.answer_style["model"]) == ["m"]
    assert [(p.location, p.reason) for p in refused.problems] == [
        (f"{metadata}:3", "'token_len': style counts must be non-negative integers, found '-80'")]
    metadata.write_text("model,question_id,token_len\nm,q1,3\n")
    with pytest.raises(ImportFormatError, match="lacks columns"):
        import_arena_hard([judgments], "bench", "base", metadata)


def test_arena_hard_games_become_orders_with_displayed_verdicts(tmp_path):
    path = write_lines(tmp_path / "m.jsonl", [
        arena_record("q1", games=[{"score": "B>>A", "judgment": "long text"}, {"score": "A >> B"}]),
        arena_record("q2", games=[{"score": None}, {"score": "[[weird]]"}]),
        {"uid": "q3", "model": "m", "judge": "gpt", "games": [{"score": "A=B"}]},
    ])
    imported = import_arena_hard([path], "bench", "base")
    rows = imported.judgments.set_index(["item_id", "judge_order"])
    assert imported.source == "arena_hard:bench" and imported.baseline == "base"
    assert rows.loc[("q1", 1), "verdict"] == "B>>A" and rows.loc[("q1", 1), "outcome"] == "MB"
    assert rows.loc[("q1", 1), "raw_text"] == "long text"
    assert rows.loc[("q1", 2), "verdict"] == "A>>B" and rows.loc[("q1", 2), "candidate_position"] == "A"
    assert rows.loc[("q1", 2), "outcome"] == "MB"
    assert not rows.loc[("q2", 1), "parse_ok"] and rows.loc[("q2", 2), "outcome"] == "Fail"
    assert ("q3", 2) not in rows.index  # a single game is never invented as a row
    assert "1 records with a single game" in imported.notes[0]


@pytest.mark.parametrize(("bad_line", "message"), [
    ("{not json", "not valid JSON"),
    (json.dumps({"question_id": "q9", "model": "m", "judge": "gpt"}), "missing field 'games'"),
    (json.dumps(arena_record("q9", games=[])), "one or two games"),
    (json.dumps(arena_record("q9", games=[{"score": "A>B"}] * 3)), "one or two games"),
    (json.dumps(arena_record("q9", games=[{"verdict": "A>B"}])), "no 'score'"),
    (json.dumps(arena_record("q9", games=[{"score": 3}])), "score must be"),
    (json.dumps(arena_record("q1")), "already read at m.jsonl, line 1"),
])
def test_arena_hard_bad_records_are_refused_one_by_one_with_file_and_line(tmp_path, bad_line, message):
    path = write_lines(tmp_path / "m.jsonl", [arena_record("q1"), arena_record("q2"), bad_line, arena_record("q4")])
    imported = import_arena_hard([path], "bench", "base")
    assert sorted(set(imported.judgments["item_id"])) == ["q1", "q2", "q4"] and len(imported.judgments) == 6
    (problem,) = imported.problems
    assert problem.location == f"{path}:3" and message in problem.reason
    assert imported.refused == 1 and "1 records refused" in imported.notes


def test_an_importer_still_refuses_a_file_it_cannot_read_at_all(tmp_path):
    with pytest.raises(ImportFormatError, match="cannot be read"):
        import_arena_hard([tmp_path / "missing.jsonl"], "bench", "base")
    path = tmp_path / "annotations.json"
    path.write_text('{"not": "an array"}')
    with pytest.raises(ImportFormatError, match="expected a JSON array"):
        import_alpaca_eval([path])
    # The wrong kind of file: not one record can be used, so the file is refused whole, saying why.
    csv_file = write_lines(tmp_path / "scores.jsonl", ["model,score", "m,1"])
    with pytest.raises(ImportFormatError, match=r"scores.jsonl: holds no usable record \(2 refused, the first: "
                                                r".*scores.jsonl:1: not valid JSON"):
        import_arena_hard([csv_file], "bench", "base")
    path.write_text(json.dumps([{"rows": 1}], indent=1))
    with pytest.raises(ImportFormatError, match=r"holds no usable record \(1 refused.*missing field 'instruction'"):
        import_alpaca_eval([path])


def test_json_array_records_carry_the_line_they_start_on(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('[\n  {"a": 1},\n  {"a":\n    2},\n  {"a": 3}\n]\n')
    problems = []
    assert [line for line, _ in iter_json_array(path, problems)] == [2, 3, 5] and problems == []
    # A record with a stray quote, and one with bytes that are not UTF-8: each refused, reading goes on.
    path.write_bytes(b'[\n  {\n    "a": 1\n  },\n  {\n    "a": "x"y"\n  },\n  {\n    "a": "\xff"\n  },\n  {\n    "a": 4\n  }\n]\n')
    assert [(line, value) for line, value in iter_json_array(path, problems)] == [(2, {"a": 1}), (11, {"a": 4})]
    assert [(p.location, p.reason.split(" (")[0]) for p in problems] == [
        (f"{path}:5", "not valid JSON"), (f"{path}:8", "bytes that are not UTF-8")]
    path.write_text('[\n  {"a": 1}\n  {"a": 2},\n  {"a": 3\n  {"a": 4}\n]')  # a comma missing, a brace missing
    problems = []
    assert [value for _, value in iter_json_array(path, problems)] == [{"a": 2}, {"a": 4}]
    assert [p.location for p in problems] == [f"{path}:2", f"{path}:4"]
    assert "expected ',' or ']'" in problems[0].reason


def alpaca(preference, instruction="say hi", model="m", baseline="base", annotator="ann"):
    return {"instruction": instruction, "output_1": "hello", "output_2": "hi there", "generator_1": baseline,
            "generator_2": model, "annotator": annotator, "preference": preference}


def test_alpaca_eval_preferences_become_order_one_verdicts_and_are_kept(tmp_path):
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps([alpaca(1.8, "a"), alpaca(0, "b"), alpaca(None, "c"), alpaca(1, "d")], indent=1))
    (imported,) = import_alpaca_eval([path])
    assert imported.source == "alpaca_eval:ann" and imported.baseline == "base"
    verdicts = imported.judgments["verdict"]
    assert verdicts.isna().tolist() == [False, False, True, False]
    assert verdicts.dropna().tolist() == ["B>A", "A=B", "A>B"]
    assert imported.judgments["judge_order"].eq(1).all() and imported.parse_failures == 1
    assert imported.judgments["candidate_len"].tolist() == [8] * 4 and imported.judgments["baseline_len"].iloc[0] == 5
    assert imported.preferences["preference"].tolist()[:2] == [1.8, 0.0]
    assert verdict_from_preference(1.5) == "A=B" and verdict_from_preference(1.4999) == "A>B"


def test_alpaca_eval_bad_preference_and_mixed_baselines_are_located(tmp_path):
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps([alpaca(1.0, "a"), alpaca(3.0, "b")], indent=1))
    (imported,) = import_alpaca_eval([path])
    assert imported.preferences["preference"].tolist() == [1.0]
    assert [p.reason for p in imported.problems] == ["preference 3.0 is outside [1, 2] (0 means a draw)"]
    assert imported.problems[0].location == f"{path}:{path.read_text().splitlines().index(' {', 2) + 1}"
    path.write_text(json.dumps([alpaca(1.0, "a"), alpaca(2.0, "b", baseline="other")], indent=1))
    (imported,) = import_alpaca_eval([path])
    assert len(imported.judgments) == 1 and "baseline 'other' differs" in imported.problems[0].reason


def auto_j_files(tmp_path, original=(0, 1, 2), swapped=(1, 1, 2)):
    pairs = write_lines(tmp_path / "pairs.jsonl", [
        {"scenario": "code_generation", "label": 0, "prompt": "p", "response 1": "r1", "response 2": "resp2"},
        {"scenario": "code_generation", "label": 1, "prompt": "p", "response 1": "r1", "response 2": "resp2"},
        {"scenario": "poem", "label": 2, "prompt": "p", "response 1": "r1", "response 2": "resp2"}])
    first = write_lines(tmp_path / "orig.jsonl", [{"output": o} for o in original])
    second = write_lines(tmp_path / "swap.jsonl", [{"output": o} for o in swapped])
    return pairs, first, second


def test_auto_j_swapped_outputs_are_read_in_displayed_positions(tmp_path):
    imported = import_auto_j(*auto_j_files(tmp_path), judge="autoj", scenario_groups={"code_generation": "Code",
                                                                                      "poem": "Creative"})
    rows = imported.judgments.set_index(["item_id", "judge_order"])
    # Pair 1: original 0 (response 1 better) -> A>B; swapped 1 (the one shown second = response 1) -> B>A.
    assert rows.loc[("1", 1), "verdict"] == "A>B" and rows.loc[("1", 2), "verdict"] == "B>A"
    assert rows.loc[("1", 1), "outcome"] == rows.loc[("1", 2), "outcome"] == "W"
    humans = imported.human_labels.set_index("item_id")
    assert humans["label"].tolist() == ["first", "second", "tie"] and humans["item_group"].tolist()[-1] == "Creative"
    assert imported.source == "auto_j:pairs"


def test_auto_j_files_are_matched_by_line_and_missing_or_bad_outputs_are_located(tmp_path):
    # The swapped file ends early: the third pair has no swapped output, and only that judgment is refused.
    imported = import_auto_j(*auto_j_files(tmp_path, swapped=(1, 1)), judge="autoj")
    assert [(p.location.rsplit("/", 1)[1], p.field) for p in imported.problems] == [("swap.jsonl:3", "output")]
    assert "no output for the pair on line 3" in imported.problems[0].reason
    assert sorted(zip(imported.judgments["item_id"], imported.judgments["judge_order"])) == [
        ("1", 1), ("1", 2), ("2", 1), ("2", 2), ("3", 1)] and len(imported.human_labels) == 3
    assert any("swap.jsonl ends at line 2, pairs.jsonl at line 3" in note for note in imported.notes)
    # A record missing in its place (a blank line) keeps the lines after it in theirs; an output past the
    # pairs file's end has no pair.
    pairs, first, second = auto_j_files(tmp_path)
    first.write_text('{"output": 0}\n\n{"output": 2}\n{"output": 1}\n')
    imported = import_auto_j(pairs, first, second, judge="autoj")
    assert [(p.location.rsplit("/", 1)[1], p.field) for p in imported.problems] == [("orig.jsonl:4", None),
                                                                                   ("orig.jsonl:2", None)]
    assert "blank line" in imported.problems[1].reason and "without a pair" in imported.problems[0].reason
    rows = imported.judgments.set_index(["item_id", "judge_order"])
    assert ("2", 1) not in rows.index and rows.loc[("3", 1), "verdict"] == "A=B"
    # A bad output takes out that order's judgment only; a bad pair takes out its item.
    imported = import_auto_j(*auto_j_files(tmp_path, original=(0, "x", 2)), judge="autoj")
    assert [(p.location.rsplit("/", 1)[1], p.reason, p.field) for p in imported.problems] == [
        ("orig.jsonl:2", "output must be 0, 1, 2 or null, found 'x'", "output")]
    assert sorted(zip(imported.judgments["item_id"], imported.judgments["judge_order"])) == [
        ("1", 1), ("1", 2), ("2", 2), ("3", 1), ("3", 2)] and len(imported.human_labels) == 3
    imported = import_auto_j(*auto_j_files(tmp_path), judge="autoj", scenario_groups={"code_generation": "Code"})
    assert [p.location.rsplit("/", 1)[1] for p in imported.problems] == ["pairs.jsonl:3"]
    assert "'scenario' 'poem' is in no group" in imported.problems[0].reason
    assert set(imported.judgments["item_id"]) == set(imported.human_labels["item_id"]) == {"1", "2"}


def llmbar_file(tmp_path, winners, labels=(1, 2), evaluator="GPT-4/Vanilla"):
    folder = tmp_path / "Dataset" / "LLMBar" / "Natural" / "evaluators" / evaluator
    folder.mkdir(parents=True)
    records = [{"input": "i", "output_1": "one", "output_2": "two!", "label": label,
                "results": [["aux text", "stop"], {"swap = False": {"completion": ["Output (a)", "stop"], "winner": w1},
                                                   "swap = True": {"winner": w2}}]}
               for label, (w1, w2) in zip(labels, winners)]
    (folder / "result.json").write_text(json.dumps(records, indent=2))
    return folder / "result.json"


def test_llmbar_winners_are_mapped_to_displayed_verdicts(tmp_path):
    path = llmbar_file(tmp_path, [("1", "1"), ("2", None)])
    assert llmbar_names(path) == ("LLMBar/Natural", "GPT-4/Vanilla")
    (imported,) = import_llmbar([path])
    rows = imported.judgments.set_index(["item_id", "judge_order"])
    # winner "1" = output_1: shown in A in order 1, in B in order 2.
    assert rows.loc[("1", 1), "verdict"] == "A>B" and rows.loc[("1", 2), "verdict"] == "B>A"
    assert rows.loc[("1", 1), "raw_text"] == "Output (a)"
    assert rows.loc[("2", 1), "verdict"] == "B>A" and not rows.loc[("2", 2), "parse_ok"]
    assert imported.human_labels["label"].tolist() == ["first", "second"]


def test_llmbar_unknown_winner_and_disagreeing_gold_labels_are_refused_records(tmp_path):
    path = llmbar_file(tmp_path, [("1", "tie"), ("2", "2")])
    (imported,) = import_llmbar([path])
    assert [p.location for p in imported.problems] == [f"{path}:2"]
    assert imported.problems[0].reason.startswith("'swap = True': winner must be")
    assert set(imported.judgments["item_id"]) == {"2"} and imported.human_labels["item_id"].tolist() == ["2"]
    first = llmbar_file(tmp_path / "a", [("1", "1"), ("2", "2")])
    second = llmbar_file(tmp_path / "a", [("1", "1"), ("2", "2")], labels=(1, 1), evaluator="GPT-4/CoT")
    (imported,) = import_llmbar([first, second])
    assert len(imported.problems) == 1 and "gold label 'second' of item 2 differs" in imported.problems[0].reason
    assert imported.human_labels["label"].tolist() == ["first", "first"]  # as read first (CoT sorts first)
    assert len(imported.judgments) == 6  # item 2 of the second run is left out
