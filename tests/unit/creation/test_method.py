import math

import pandas as pd
import pytest

from benchwright.creation import metrics, prompts
from benchwright.creation.metrics import judge_quality, leaderboard
from benchwright.creation.prompts import build_query, candidate_messages, describe_messages, focus_messages, pairwise_judge_messages, vfs_judge_messages
from benchwright.pairwise import CANONICAL_VERDICTS, OUTCOME_VALUE, mirror, outcome, parse_pairwise, summarize, swap_consistency
from benchwright.creation.vfs import parse_vfs

ITEM = {
    "item_id": "poem-1",
    "category": "Literary Writing",
    "task": "poem_writing",
    "role": "a poet who loves the sea",
    "background": "You found this postcard in an old book.",
    "instruction": "write a poem about the postcard",
    "requirements": ["Use four stanzas", "2. Mention the lighthouse", "Rhyme the last lines"],
    "subjective_criteria": "1. Creativity\n1.1 Original imagery\n2. Fluency",
    "visual_factuality_criteria": "1. The lighthouse is red\n2. The sky is blue",
    "ground_truth": None,
}
URLS = ["data:image/png;base64,AAAA", "data:image/png;base64,BBBB"]


def _text_of(message):
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part["text"] for part in content if part["type"] == "text")


def _image_urls_of(messages):
    urls = []
    for message in messages:
        if isinstance(message["content"], list):
            urls += [p["image_url"]["url"] for p in message["content"] if p["type"] == "image_url"]
    return urls


# --- prompts ------------------------------------------------------------------------------


def test_build_query_follows_the_method_layout():
    lines = build_query(ITEM).splitlines()
    assert lines[0] == "Assume you are a poet who loves the sea"
    assert lines[1] == "You found this postcard in an old book."
    assert lines[2] == "Please follow the requirements below to write a poem about the postcard."
    # requirements are numbered once, even when one already carried a number
    assert lines[3:] == ["1. Use four stanzas", "2. Mention the lighthouse", "3. Rhyme the last lines"]


def test_text_only_query_says_no_images_and_carries_the_description():
    query = build_query(ITEM, image_descriptions="A red lighthouse under a blue sky.")
    assert query.startswith(build_query(ITEM))
    assert "no images are provided" in query
    assert query.rstrip().endswith("Description of the image: A red lighthouse under a blue sky.")


def test_candidate_messages_have_text_then_one_part_per_image():
    messages = candidate_messages(ITEM, URLS)
    assert len(messages) == 1 and messages[0]["role"] == "user"
    parts = messages[0]["content"]
    assert parts[0] == {"type": "text", "text": build_query(ITEM)}
    assert _image_urls_of(messages) == URLS


def test_text_only_candidate_messages_have_no_images():
    messages = candidate_messages(ITEM, URLS, image_descriptions="Two pictures of the sea.")
    assert _image_urls_of(messages) == []
    assert "Description of the image: Two pictures of the sea." in _text_of(messages[0])


def test_describe_messages_generic_and_focused():
    generic = describe_messages(URLS)
    focused = describe_messages(URLS, focus="the colour of the lighthouse")
    assert _image_urls_of(generic) == URLS
    generic_text = _text_of(generic[-1])
    for aspect in ("how many images", "kind of image", "objects", "atmosphere", "relate", "text"):
        assert aspect in generic_text
    assert "pay special attention to" not in generic_text.lower()
    assert _text_of(focused[-1]).startswith(generic_text)
    assert "pay special attention to: the colour of the lighthouse" in _text_of(focused[-1]).lower()


def test_focus_messages_hold_examples_and_end_with_the_question():
    question = build_query(ITEM)
    user_text = _text_of(focus_messages(question)[-1])
    assert user_text.count(prompts.FOCUS_ANSWER_LEAD) == len(prompts.FOCUS_EXAMPLES) + 1
    assert len(prompts.FOCUS_EXAMPLES) >= 4
    assert user_text.rstrip().endswith(f"{question}\n{prompts.FOCUS_ANSWER_LEAD}")
    assert "never answer" in _text_of(focus_messages(question)[0]).lower()


def test_pairwise_prompt_order_images_and_verdict_demand():
    messages = pairwise_judge_messages(ITEM, "ANSWER-ONE", "ANSWER-TWO", URLS)
    text = "\n".join(_text_of(m) for m in messages)
    user_text = _text_of(messages[-1])
    # the method's order: task, A, criteria, B
    positions = [user_text.index(s) for s in ("Please follow", "ANSWER-ONE", "Original imagery", "ANSWER-TWO")]
    assert positions == sorted(positions)
    assert text.rstrip().endswith("Final Verdict is: [[VERDICT]]")
    assert "position" in text.lower() and "tie" in text.lower()
    assert _image_urls_of(messages) == URLS
    # the prompt itself must not parse as a verdict: only the template placeholder is in it
    assert parse_pairwise(user_text) is None


def test_pairwise_prompt_without_images_is_llm_as_a_judge():
    messages = pairwise_judge_messages(ITEM, "one", "two", None)
    assert _image_urls_of(messages) == []
    assert "not shown to you" in _text_of(messages[-1])


def test_vfs_prompt_ground_truth_only_when_present():
    without = "\n".join(_text_of(m) for m in vfs_judge_messages(ITEM, "REF", "CAND", URLS))
    assert "ground truth" not in without.lower()
    assert "10/X" in without and "10/X/Y" in without
    assert without.rstrip().endswith(
        "Response A Visual Factuality Score: <x>/10\nResponse B Visual Factuality Score: <y>/10"
    )
    assert parse_vfs(without) == (None, None)
    assert without.index("REF") < without.index("CAND")  # A = reference, B = candidate

    item = {**ITEM, "ground_truth": "The lighthouse was built in 1871."}
    with_truth = "\n".join(_text_of(m) for m in vfs_judge_messages(item, "REF", "CAND", None))
    assert "The lighthouse was built in 1871." in with_truth
    assert "did not see it" in with_truth


# --- outcomes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "verdict, position, expected",
    [
        ("B>>A", "B", "MB"), ("B>A", "B", "B"), ("A=B", "B", "T"), ("A>B", "B", "W"), ("A>>B", "B", "MW"),
        ("A>>B", "A", "MB"), ("A>B", "A", "B"), ("A=B", "A", "T"), ("B>A", "A", "W"), ("B>>A", "A", "MW"),
        (None, "A", "Fail"), (None, "B", "Fail"),
    ],
)  # fmt: skip
def test_outcome_table(verdict, position, expected):
    assert outcome(verdict, position) == expected


@pytest.mark.parametrize("verdict, position", [("B>A", "C"), ("B>A", "b"), ("B > A", "B"), ("VERDICT", "A")])
def test_outcome_rejects_bad_input(verdict, position):
    with pytest.raises(ValueError):
        outcome(verdict, position)


def test_mirror_is_an_involution_that_swaps_sides():
    for verdict in CANONICAL_VERDICTS:
        assert mirror(mirror(verdict)) == verdict
        assert outcome(verdict, "B") == outcome(mirror(verdict), "A")
    assert mirror("A=B") == "A=B"
    with pytest.raises(ValueError):
        mirror("A>>>B")


def test_summarize_hand_computed():
    # MB, B, T, W count; Fail does not: n = 4
    # reward = (100 + 50 - 50) / 4 = 25.0; win_rate = (1 + 1) / 4 = 0.5
    summary = summarize(["MB", "B", "T", "W", "Fail"])
    assert summary["n"] == 4 and summary["Fail"] == 1
    assert summary["reward"] == 25.0
    assert summary["win_rate"] == 0.5

    # 2 MW, 1 T: n = 3, reward = (-100 - 100) / 3 = -66.67, win_rate = 0
    summary = summarize(["MW", "MW", "T"])
    assert summary["reward"] == pytest.approx(-200 / 3)
    assert summary["win_rate"] == 0.0

    # all Much Better: the maximum, 100 and 1.0
    assert summarize(["MB"] * 3)["reward"] == 100.0


def test_summarize_baseline_against_itself_is_zero():
    # a symmetric set of outcomes (as the baseline would get against itself) has reward 0
    assert summarize(["MB", "MW", "B", "W", "T"])["reward"] == 0.0


def test_summarize_without_parsed_judgments_gives_none():
    for outcomes in ([], ["Fail", "Fail"]):
        summary = summarize(outcomes)
        assert summary["reward"] is None and summary["win_rate"] is None and summary["n"] == 0


def test_summarize_rejects_unknown_outcome():
    with pytest.raises(ValueError):
        summarize(["MB", "win"])


@pytest.mark.parametrize(
    "order1, order2, expected",
    [
        ("B>A", "A>B", (True, True)),  # Better both times
        ("A=B", "A=B", (True, True)),
        ("B>>A", "A>B", (False, True)),  # MB then B: one step apart
        ("B>A", "A=B", (False, True)),  # B then T
        ("B>A", "B>A", (False, False)),  # B then W: two steps apart
        ("B>>A", "B>>A", (False, False)),  # MB then MW
        (None, "A>B", (None, None)),
        ("B>A", None, (None, None)),
    ],
)
def test_swap_consistency(order1, order2, expected):
    assert swap_consistency(order1, order2) == expected


# --- tables -------------------------------------------------------------------------------


def _judgment(model, judge, item_id, order, verdict, candidate_len=100, baseline_len=100):
    position = "B" if order == 1 else "A"
    return {
        "model": model, "judge": judge, "item_id": item_id, "judge_order": order,
        "candidate_position": position, "verdict": verdict, "parse_ok": verdict is not None,
        "outcome": outcome(verdict, position),
        "candidate_len": candidate_len, "baseline_len": baseline_len,
    }  # fmt: skip


ITEMS = pd.DataFrame(
    [
        {"item_id": "i1", "category": "Literary Writing", "task": "poem"},
        {"item_id": "i2", "category": "Literary Writing", "task": "story"},
        {"item_id": "i3", "category": "Professional Functional Writing", "task": "recipe"},
    ]
)


def test_leaderboard_scopes_and_values():
    pairwise = pd.DataFrame(
        [
            _judgment("m1", "j1", "i1", 1, "B>>A"),  # MB
            _judgment("m1", "j1", "i1", 2, "A>B"),  # B
            _judgment("m1", "j1", "i2", 1, "A=B"),  # T
            _judgment("m1", "j1", "i2", 2, None),  # Fail
            _judgment("m1", "j1", "i3", 1, "A>B"),  # W
            _judgment("m1", "j1", "i3", 2, "B>>A"),  # MW
        ]
    )
    vfs = pd.DataFrame(
        [
            {"model": "m1", "judge": "j1", "item_id": "i1", "score_a": 5.0, "score_b": 8.0, "parse_ok": True},
            {"model": "m1", "judge": "j1", "item_id": "i2", "score_a": 5.0, "score_b": 6.0, "parse_ok": True},
            {"model": "m1", "judge": "j1", "item_id": "i3", "score_a": None, "score_b": None, "parse_ok": False},
        ]
    )
    table = leaderboard(pairwise, vfs, ITEMS)
    assert list(table.columns) == metrics.LEADERBOARD_COLUMNS
    # 1 overall + 2 categories + 3 tasks
    assert sorted(table["scope"].value_counts().items()) == [("category", 2), ("overall", 1), ("task", 3)]

    overall = table[table["scope"] == "overall"].iloc[0]
    assert overall["scope_value"] == "all"
    # outcomes MB, B, T, Fail, W, MW: n = 5, reward = (100 + 50 - 50 - 100) / 5 = 0, win = 2/5
    assert (overall["mb"], overall["better"], overall["tie"], overall["worse"], overall["mw"]) == (1, 1, 1, 1, 1)
    assert overall["fail"] == 1 and overall["n"] == 5
    assert overall["reward"] == 0.0 and overall["win_rate"] == pytest.approx(0.4)
    # vfs: mean of parsed B scores (8 + 6) / 2 = 7; one failure
    assert overall["vfs"] == 7.0 and overall["vfs_n"] == 2 and overall["vfs_fail"] == 1

    literary = table[(table["scope"] == "category") & (table["scope_value"] == "Literary Writing")].iloc[0]
    # MB, B, T (+1 Fail): reward = (100 + 50) / 3 = 50, win = 2/3
    assert literary["reward"] == pytest.approx(50.0) and literary["win_rate"] == pytest.approx(2 / 3)
    assert literary["vfs"] == 7.0

    recipe = table[(table["scope"] == "task") & (table["scope_value"] == "recipe")].iloc[0]
    # W, MW: reward = (-50 - 100) / 2 = -75; vfs has no parsed score -> missing, not 0
    assert recipe["reward"] == -75.0 and recipe["win_rate"] == 0.0
    assert math.isnan(recipe["vfs"]) and recipe["vfs_fail"] == 1

    story = table[(table["scope"] == "task") & (table["scope_value"] == "story")].iloc[0]
    assert story["n"] == 1 and story["fail"] == 1 and story["reward"] == 0.0


def test_leaderboard_model_with_only_failures_has_missing_reward():
    pairwise = pd.DataFrame([_judgment("m2", "j1", "i1", 1, None), _judgment("m2", "j1", "i1", 2, None)])
    vfs = pd.DataFrame(columns=["model", "judge", "item_id", "score_a", "score_b", "parse_ok"])
    overall = leaderboard(pairwise, vfs, ITEMS).query("scope == 'overall'").iloc[0]
    assert overall["n"] == 0 and overall["fail"] == 2
    assert math.isnan(overall["reward"]) and math.isnan(overall["win_rate"]) and math.isnan(overall["vfs"])


def test_judge_quality():
    pairwise = pd.DataFrame(
        [
            # judge "fair": consistent on both pairs, prefers the (longer) candidate
            _judgment("m1", "fair", "i1", 1, "B>A", candidate_len=300, baseline_len=100),
            _judgment("m1", "fair", "i1", 2, "A>B", candidate_len=300, baseline_len=100),
            _judgment("m1", "fair", "i2", 1, "A=B"),
            _judgment("m1", "fair", "i2", 2, "A=B"),
            # judge "first": always picks position A; one judgment failed to parse
            _judgment("m1", "first", "i1", 1, "A>B", candidate_len=300, baseline_len=100),
            _judgment("m1", "first", "i1", 2, "A>>B", candidate_len=300, baseline_len=100),
            _judgment("m1", "first", "i2", 1, "A>B", candidate_len=50, baseline_len=100),
            _judgment("m1", "first", "i2", 2, None, candidate_len=50, baseline_len=100),
        ]
    )
    table = judge_quality(pairwise).set_index("judge")
    assert list(judge_quality(pairwise).columns) == metrics.JUDGE_QUALITY_COLUMNS

    fair = table.loc["fair"]
    assert fair["pairs"] == 2 and fair["exact_consistency"] == 1.0 and fair["relaxed_consistency"] == 1.0
    assert fair["parse_rate"] == 1.0
    # non-tie verdicts: B>A (position B) and A>B (position A) -> 1/2 prefer first
    assert fair["p_prefer_first"] == 0.5
    # both non-tie verdicts chose the 300-char candidate over the 100-char baseline
    assert fair["p_prefer_longer"] == 1.0

    first = table.loc["first"]
    # only i1 has both orders parsed: A>B (W) then A>>B (MB): not exact, 3 steps apart
    assert first["pairs"] == 1 and first["exact_consistency"] == 0.0 and first["relaxed_consistency"] == 0.0
    assert first["parse_rate"] == 0.75
    assert first["p_prefer_first"] == 1.0
    # i1 order 1: A (baseline, 100) chosen over 300 -> shorter; i1 order 2: A (candidate, 300) -> longer;
    # i2 order 1: A (baseline, 100) chosen over 50 -> longer. 2 of 3.
    assert first["p_prefer_longer"] == pytest.approx(2 / 3)


def test_judge_quality_without_parsed_pairs_is_missing_not_zero():
    pairwise = pd.DataFrame([_judgment("m1", "broken", "i1", 1, None), _judgment("m1", "broken", "i1", 2, None)])
    row = judge_quality(pairwise).iloc[0]
    assert row["pairs"] == 0 and row["parse_rate"] == 0.0
    for column in ("exact_consistency", "relaxed_consistency", "p_prefer_first", "p_prefer_longer"):
        assert math.isnan(row[column])


def test_outcome_values_are_the_five_point_scale():
    assert sorted(OUTCOME_VALUE.values()) == [-2, -1, 0, 1, 2]


def test_judge_quality_handles_imported_rows_without_lengths():
    import pandas as pd

    from benchwright.creation.metrics import judge_quality

    rows = pd.DataFrame({
        "model": ["m", "m", "m", "m"], "judge": ["j"] * 4, "item_id": ["q1", "q1", "q2", "q2"],
        "judge_order": [1, 2, 1, 2], "candidate_position": ["B", "A", "B", "A"],
        "verdict": ["B>A", "A>B", "A>B", "A>B"], "parse_ok": [True] * 4,
        # Imported judgments carry no answer lengths: NULL from DuckDB arrives as <NA>.
        "candidate_len": pd.array([None, None, 10, 10], dtype="Int64"),
        "baseline_len": pd.array([None, None, 5, 5], dtype="Int64"),
    })
    table = judge_quality(rows).set_index("judge")
    assert table.loc["j", "pairs"] == 2
    assert table.loc["j", "exact_consistency"] == 0.5   # q1 mirrors, q2 does not
    assert table.loc["j", "p_prefer_first"] == 0.75     # winners B, A, A, A
    # Only q2 has lengths: order 1 prefers A = baseline (shorter), order 2 prefers A = candidate (longer).
    assert table.loc["j", "p_prefer_longer"] == 0.5
