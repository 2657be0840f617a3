"""The MMMT-IF public release importer reads the file's quirks as documented and names the line of a bad record."""

import csv
import io

import pandas as pd
import pytest

from benchwright.importers import ImportFormatError
from benchwright.importers.mmmt_if_release import CRITERIA, import_mmmt_if_release
from benchwright.mmmt_if import alignment, preferences
from benchwright.mmmt_if import release as release_method
from benchwright.mmmt_if.prompts import SCORE_COLUMNS
from benchwright.mmmt_if.release import release_metrics

MODELS = ("Gemini", "GPT-4o")
HEADER = ["conversation id", "turn count (which turn in this conversation)", "prompt", "all instructions",
          "instruction count", "question topic", "LLM capability tested", "image 1", "image 2", "image 3", "image 4",
          "image 5", "auto eval metric weights",
          *(f"{c} {m}" for m in MODELS for c in [*CRITERIA, "Programmatic Instruction Following"]),
          "Preference: 1 for Gemini, 0 for GPT-4o"]


def record(chat="0", turn=1, instructions="Instruction: Be brief.", count=1, topic="Visual Object Description",
           scores=(7, 7), pif=(1, 0), preference="1", weights="1 1 1 1 1 1 1 1 20", prompt="Describe the \nimage."):
    cells = [chat, str(turn), prompt, instructions, str(count), topic, topic, "", "", "", "", "", weights]
    for score, value in zip(scores, pif):
        cells += [str(score)] * len(CRITERIA) + [str(value)]
    return cells + [preference]


def write(tmp_path, *records, header=HEADER):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(records)
    path = tmp_path / "release.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def test_the_release_criteria_are_our_autorater_columns():
    assert list(CRITERIA.values()) == list(SCORE_COLUMNS)


def test_quirks_are_read_as_documented(tmp_path):
    path = write(tmp_path,
                 record(turn=1, topic="Knowledge-Based Reasoning'", preference="0.5"),
                 record(turn=2, instructions="Instruction: Be brief. Instruction: Use \n'per se'.", count=2,
                        topic="Knowledge-Based Reasoning", preference="0"))
    release = import_mmmt_if_release(path)
    rows = release.responses[release.responses["model"] == "Gemini"].set_index("turn")
    assert rows.loc[1, "topic"] == "Knowledge-Based Reasoning" and rows.loc[1, "topic_raw"].endswith("'")
    assert rows.loc[1, "prompt"] == "Describe the image."
    assert rows.loc[2, "instructions"] == ["Instruction: Be brief.", "Instruction: Use 'per se'."]
    assert list(release.human_preferences["preferred"]) == ["tie", "b"]
    assert release.responses["line"].tolist() == [2, 2, 4, 4]  # record 1 spans two lines (a wrapped cell)
    assert "1 topic labels with stray apostrophes cleaned" in release.notes


@pytest.mark.parametrize(("bad", "message"), [
    (record(turn=2, preference="2"), "must be 1, 0 or 0.5"),
    (record(turn=2, count=2), "instruction count 2 but 1"),
    (record(turn=2, instructions="Instruction: Other.", count=1), "previous turn's instructions plus new ones"),
    (record(turn=1), "already read at line 2"),
    (record(turn=2, pif=(1.5, 0)), "outside \\[0, 1\\]"),
    (record(turn=2, scores=("seven", 7)), "must be a number"),
    (record(turn=2, weights="2 1 1 1 1 1 1 1 20"), "metric weights"),
])
def test_a_bad_record_is_refused_with_the_file_and_the_line_it_starts_on(tmp_path, bad, message):
    path = write(tmp_path, record(turn=1), bad, record(chat="1", turn=1))
    release = import_mmmt_if_release(path)
    (problem,) = release.problems
    assert problem.location == f"{path}:4" and message.replace("\\", "") in problem.reason.replace("\\", "")
    assert sorted(set(zip(release.responses["chat_id"], release.responses["turn"]))) == [("0", 1), ("1", 1)]
    assert "1 records refused" in release.notes


def test_an_empty_file_a_column_twice_and_an_open_quote_are_located_errors(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ImportFormatError, match="empty.csv: is empty: no header line") as caught:
        import_mmmt_if_release(empty)  # was a bare StopIteration
    assert caught.value.line is None
    twice = write(tmp_path, record(), header=HEADER[:-1] + ["prompt"])
    with pytest.raises(ImportFormatError, match="column 'prompt' appears twice in the header") as caught:
        import_mmmt_if_release(twice)  # one of the two prompts would have been kept without a word
    assert caught.value.line == 1
    path = write(tmp_path, record(turn=1), record(turn=2))
    text = path.read_text(encoding="utf-8")
    assert text.endswith(",1\n")
    path.write_text(text[:-2] + '"1\n', encoding="utf-8")  # the last record's last cell opens a quote
    release = import_mmmt_if_release(path)  # that record is refused, where it starts (its prompt runs over two lines)
    assert [p.location for p in release.problems] == [f"{path}:4"] and "never closed" in release.problems[0].reason
    assert set(release.responses["turn"]) == {1}
    path.write_text(text[:-2] + '"1\n', encoding="utf-8")
    lone = write(tmp_path, record(turn=1, scores=("seven", 7)))
    with pytest.raises(ImportFormatError, match="holds no usable record \\(1 refused, the first: .*:2: "):
        import_mmmt_if_release(lone)  # nothing to import at all: the file is refused, saying why


def test_a_preference_column_naming_an_unscored_model_is_refused(tmp_path):
    header = HEADER[:-1] + ["Preference: 1 for Gemini, 0 for Claude"]
    with pytest.raises(ImportFormatError, match="names a model without scores"):
        import_mmmt_if_release(write(tmp_path, record(), header=header))


def test_agreement_turns_a_human_pair_to_our_orientation():
    outcomes = pd.DataFrame({"chat_id": ["0", "0"], "turn": [1, 2], "model_a": ["GPT-4o", "GPT-4o"],
                             "model_b": ["Gemini", "Gemini"], "outcome": ["loss", "tie"]})
    human = pd.DataFrame({"chat_id": ["0", "0"], "turn": [1, 2], "model_a": ["Gemini", "Gemini"],
                          "model_b": ["GPT-4o", "GPT-4o"], "preferred": ["a", "b"]})
    table = alignment.preference_agreement(outcomes, human).set_index("model_a")
    assert table.loc["Gemini", "n"] == 2 and table.loc["Gemini", "agreement"] == 0.5
    assert table.loc["Gemini", "n_without_ties"] == 1 and table.loc["Gemini", "agreement_without_ties"] == 1.0


def test_release_metrics_score_with_the_file_pif_weight(tmp_path):
    # Gemini: criteria 7, PIF 0; GPT-4o: criteria 6, PIF 1. With weight 20 GPT-4o wins; with 0 Gemini would.
    release = import_mmmt_if_release(write(tmp_path, record(scores=(7, 6), pif=(0, 1), preference="0")))
    tables = release_metrics(release.responses, release.human_preferences, release.pif_weight, bootstrap_rounds=0)
    assert list(tables) == release_method.METRIC_TABLES  # the asset empties exactly these when no release is left
    row = tables["mmmt_if_release_preferences"].iloc[0]
    assert (row["model_a"], row["wins"], row["losses"]) == ("GPT-4o", 1, 0)
    assert tables["mmmt_if_release_agreement"].set_index("model_a").loc["all", "agreement"] == 1.0
    swapped = release_metrics(release.responses, release.human_preferences, 0.0, bootstrap_rounds=0)
    assert swapped["mmmt_if_release_preferences"].iloc[0]["wins"] == 0


def test_release_ratings_resample_contexts_with_a_recorded_seed(tmp_path):
    release = import_mmmt_if_release(write(tmp_path, record(scores=(7, 6), pif=(0, 1), preference="0")))
    battles = preferences.battles(preferences.pairwise_outcomes(release_method.preference_scores(
        release.responses, release.pif_weight)))
    assert battles["prompt"].str.contains("/").all()  # chat / turn: a context's battles are drawn together
    first = release_metrics(release.responses, release.human_preferences, release.pif_weight, bootstrap_rounds=50,
                            seed=7)["mmmt_if_release_ratings"]
    again = release_metrics(release.responses, release.human_preferences, release.pif_weight, bootstrap_rounds=50,
                            seed=7)["mmmt_if_release_ratings"]
    pd.testing.assert_frame_equal(first, again)
    assert (first["rounds"] == 50).all() and (first["seed"] == 7).all() and first["rank"].notna().all()
