"""URS (benchwright/urs/README.md): criteria table, prompts, the judge-dict parser, metrics, loader, simulator, steps."""

import csv
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchwright.urs import intents, metrics, parse, prompts
from benchwright.urs import steps as urs_steps
from benchwright.urs.loader import load_pairwise_csv, load_satisfaction_csv, load_urs_csv
from benchwright.llm.request import request_key
from benchwright.registry import RegistryEntry
from benchwright.simulate import complete, house_style
from benchwright.simulate.request import SimRequest

CARD = Path(__file__).resolve().parents[3] / "benchwright" / "urs" / "README.md"


# --- criteria table ---------------------------------------------------------------------------------

def test_criteria_table_matches_the_benchmark_card():
    section = CARD.read_text(encoding="utf-8").split("## Criteria by intent")[1].split("\n## ")[0]
    rows = re.findall(r"^\| ([A-Z][^|]+?) \| ([^|]+?) \|$", section, re.MULTILINE)
    by_intent = {name: tuple(c.strip() for c in text.split(",")) for name, text in rows if name in intents.INTENTS}
    definitions = {name: text for name, text in rows if name in intents.CRITERIA}
    assert definitions == {name: english for name, (_, english, _) in intents.CRITERIA.items()}
    assert by_intent == intents.CRITERIA_BY_INTENT


def test_every_intent_has_five_distinct_known_criteria_and_chinese_names():
    assert set(intents.CRITERIA_BY_INTENT) == set(intents.INTENTS) == set(intents.INTENT_NAMES_ZH)
    for intent, criteria in intents.CRITERIA_BY_INTENT.items():
        assert len(criteria) == len(set(criteria)) == 5, intent
        assert set(criteria) <= set(intents.CRITERIA)
    zh_names = [zh for zh, _, _ in intents.CRITERIA.values()]
    assert len(set(zh_names)) == len(zh_names) and all(re.search(r"[\u4e00-\u9fff]", n) for n in zh_names)


# --- prompts ----------------------------------------------------------------------------------------

def test_english_prompt_has_the_four_parts_and_the_intents_criteria():
    system, user = prompts.judge_messages("Q?", "Leisure", "en", "REF", "ANS")
    text = system["content"]
    for criterion in intents.CRITERIA_BY_INTENT["Leisure"]:
        assert f"- {criterion}: {intents.CRITERIA[criterion][1]}" in text
    assert "Factuality, Clarity" not in text and "Completeness" not in text  # not Leisure's criteria
    assert "worth 8" in text and "not better for being longer" in text and "9-10" in text
    assert prompts.output_template("Leisure", "en") in text and "'Final Score': <1-10>" in text
    body = user["content"]
    assert body.index("<user_question>\nQ?") < body.index("<reference_answer>\nREF") < body.index("<answer_to_evaluate>\nANS")


def test_chinese_prompt_uses_chinese_names_and_final_key():
    system, _ = prompts.judge_messages("问题", "Ask for Advice", "zh", "参考", "回答")
    text = system["content"]
    assert "寻求建议" in text and "参考答案本身的分数为 8 分" in text
    assert "'公平与可负责程度': <1-10>" in text and "'综合得分': <1-10>" in text
    assert "Final Score" not in text


def test_prompt_rejects_unknown_intent_or_language():
    with pytest.raises(ValueError, match="intent"):
        prompts.judge_messages("q", "Chit-chat", "en", "r", "a")
    with pytest.raises(ValueError, match="language"):
        prompts.judge_messages("q", "Leisure", "fr", "r", "a")


# --- parsing ----------------------------------------------------------------------------------------

def test_parses_english_dict_with_text_around_it():
    text = ("The answer misses the unit conversion.\n\n{'Factuality': 6, 'User Satisfaction': 5, 'Clarity': 8, "
            "'Completeness': 4, 'Logical Coherence': 7, 'Final Score': 5}\nThanks.")
    assert parse.parse_scores(text) == {"Factuality": 6, "User Satisfaction": 5, "Clarity": 8, "Completeness": 4,
                                      "Logical Coherence": 7, "final": 5}


def test_parses_chinese_dict_with_full_width_punctuation_and_quotes():
    text = "回答基本正确，但不够完整。\n｛‘满足用户需求’：7，‘趣味性’：８，‘适宜性’：9，‘创造性’：6，‘事实正确性’：7，‘综合得分’：7｝"
    assert parse.parse_scores(text) == {"User Satisfaction": 7, "Engagement": 8, "Appropriateness": 9,
                                      "Creativity": 6, "Factuality": 7, "final": 7}


def test_parses_double_quotes_bilingual_keys_and_a_fenced_dict():
    text = '```python\n{"事实正确性(Factuality)": 9, "Final_Score": "8"}\n```'
    assert parse.parse_scores(text) == {"Factuality": 9, "final": 8}


def test_the_last_dict_is_the_judges_answer():
    text = ("You asked for {'Factuality': <1-10>, 'Final Score': <1-10>}. My scores:\n"
            "{'Factuality': 3, 'Final Score': 4}")
    assert parse.parse_scores(text) == {"Factuality": 3, "final": 4}
    # ... but a later brace that names no known key (a set in the explanation) is not a dict of scores.
    assert parse.parse_scores("{'Factuality': 3, 'Final Score': 4} the set {a, b} is small") == {"Factuality": 3, "final": 4}


@pytest.mark.parametrize("text", [
    "{'Factuality': 7, 'User Satisfaction': 6}",                       # no final score
    "{'事实正确性': 7, '满足用户需求': 6}",                               # no 综合得分
    "{'Factuality': 7, 'Final Score': 11}",                            # out of range
    "{'Factuality': 0, 'Final Score': 5}",                             # out of range
    "{'Factuality': 7, 'Final Score': 7.5}",                           # not an integer
    "{'Factuality': 7, 'Final Score': 7.0}",                           # written as a decimal
    "{'Factuality': 7, 'Final Score': 'N/A'}",                         # not a number
    "{'Factuality': 7, 'Final Score': 8/10}",                          # a fraction
    "{'Factuality': 7, 'Helpfulness': 6, 'Final Score': 7}",           # a key we do not know
    "{'Factuality': 7, 'Factuality': 6, 'Final Score': 7}",            # one key, two values
    "{'Factuality': 7, 'Final Score': 7",                              # unclosed
    "The answer is fine overall. Final Score: 7",                      # no dict
    "",
    None,
])
def test_malformed_outputs_are_parse_failures(text):
    assert parse.parse_scores(text) is None


@pytest.mark.parametrize("language", intents.LANGUAGES)
@pytest.mark.parametrize("intent", intents.INTENTS)
def test_every_filled_template_parses_back(intent, language):
    scores = list(range(2, 8))
    filled = prompts.output_template(intent, language)
    for score in scores:
        filled = filled.replace(prompts.SCORE_PLACEHOLDER, str(score), 1)
    parsed = parse.parse_scores(f"Explanation first.\n{filled}")
    assert parsed == {**dict(zip(intents.CRITERIA_BY_INTENT[intent], scores[:5])), "final": scores[5]}


# --- metrics ------------------------------------------------------------------------------------------

def _judgments():
    rows = [
        # judge, model, intent, language, final, parse_ok, criteria
        ("j", "m1", "Leisure", "en", 8, True, {"Engagement": 9}),
        ("j", "m1", "Leisure", "zh", 6, True, {"Engagement": 5}),
        ("j", "m1", "Factual QA", "en", 4, True, {"Clarity": 4}),
        ("j", "m1", "Factual QA", "en", None, False, None),
        ("j", "m2", "Leisure", "en", 3, True, {"Engagement": 2}),
    ]
    return pd.DataFrame([{"judge": j, "model": m, "intent": i, "language": lang, "final_score": f, "parse_ok": ok,
                          "criterion_scores": None if c is None else json.dumps(c)}
                         for j, m, i, lang, f, ok, c in rows])


def test_leaderboard_means_per_scope_and_counts_failures_apart():
    board = metrics.leaderboard(_judgments()).set_index(["model", "intent", "language"])
    assert board.loc[("m1", "all", "all"), "final_score"] == pytest.approx((8 + 6 + 4) / 3)
    assert board.loc[("m1", "all", "all"), ["n", "parse_failures"]].tolist() == [3, 1]
    assert board.loc[("m1", "Leisure", "all"), "final_score"] == 7
    assert board.loc[("m1", "all", "en"), "final_score"] == 6
    # A scope with only a parse failure would be NaN, never 0; here Factual QA en has one parsed score.
    assert board.loc[("m1", "Factual QA", "en"), ["final_score", "n", "parse_failures"]].tolist() == [4, 1, 1]
    assert ("m2", "Leisure", "zh") not in board.index  # no item there, no row


def test_leaderboard_scope_with_only_failures_is_nan():
    df = _judgments()
    df.loc[df["model"] == "m2", ["final_score", "parse_ok"]] = [None, False]
    row = metrics.leaderboard(df).query("model == 'm2' and intent == 'all' and language == 'all'").iloc[0]
    assert math.isnan(row["final_score"]) and row["n"] == 0 and row["parse_failures"] == 1


def test_criterion_means():
    means = metrics.criterion_means(_judgments()).set_index(["model", "intent", "language", "criterion"])["mean_score"]
    assert means[("m1", "all", "all", "Engagement")] == 7
    assert means[("m1", "Factual QA", "en", "Clarity")] == 4
    assert ("m1", "all", "all", "Factuality") not in means.index


def _cross():
    rows = []
    for judge, lenient in (("fair", 0), ("easy", 2)):
        for reference in ("a", "b"):
            for model, base in (("a", 7), ("b", 5)):
                for item, delta in (("i1", 0), ("i2", 1)):
                    rows.append({"judge": judge, "reference_model": reference, "model": model, "item_id": item,
                                 "final_score": min(10, base + delta + lenient), "parse_ok": True})
    return pd.DataFrame(rows)


def test_cross_validation_grid_and_rank():
    grid = metrics.cross_validation_grid(_cross()).set_index(["judge", "reference_model", "model"])
    assert grid.loc[("fair", "b", "a"), "mean_score"] == 7.5 and grid.loc[("fair", "b", "a"), "rank"] == 1
    assert grid.loc[("fair", "b", "b"), "rank"] == 2
    assert len(grid) == 2 * 2 * 2


def test_rating_bias_is_mean_over_models_of_own_reference_score_minus_8():
    bias = metrics.rating_bias(_cross()).set_index(["judge", "model"])
    # fair: a judged against a's own answer: mean(7, 8) = 7.5; b against b: mean(5, 6) = 5.5.
    assert bias.loc[("fair", "a"), "bias"] == -0.5 and bias.loc[("fair", "b"), "bias"] == -2.5
    assert bias.loc[("fair", "all"), "bias"] == pytest.approx(((7.5 - 8) + (5.5 - 8)) / 2)
    assert bias.loc[("easy", "all"), "bias"] == pytest.approx(bias.loc[("fair", "all"), "bias"] + 2)
    assert bias.loc[("fair", "all"), "n"] == 2


def test_user_alignment_is_pearson_over_intents():
    chosen = list(intents.INTENTS[:4])
    scores = [6.0, 7.5, 5.0, 8.0]
    board = pd.DataFrame({"judge": "j", "model": "m", "intent": chosen + ["all"], "language": "all",
                          "final_score": scores + [6.6], "n": 1, "parse_failures": 0})
    satisfaction = pd.DataFrame({"intent": chosen, "satisfaction": [3.0, 4.5, 3.5, 4.0]})
    row = metrics.user_alignment(board, satisfaction).iloc[0]
    assert row["n_intents"] == 4 and row["model"] == "all"
    assert row["pearson_r"] == pytest.approx(np.corrcoef(scores, [3.0, 4.5, 3.5, 4.0])[0, 1])


def test_bradley_terry_excludes_undetermined_and_orders_models():
    comparisons = pd.DataFrame(
        [("x", "y", "A")] * 6 + [("x", "y", "B")] * 2 + [("y", "z", "A")] * 5 + [("y", "z", "tie")] * 2
        + [("z", "y", "A")] + [("x", "z", "A")] * 4 + [("z", "x", "A")],
        columns=["model_a", "model_b", "winner"])
    fitted = metrics.bradley_terry(comparisons).set_index("model")
    assert fitted.loc["x", "coefficient"] > fitted.loc["y", "coefficient"] > fitted.loc["z", "coefficient"]
    assert fitted["coefficient"].sum() == pytest.approx(0, abs=1e-9)
    assert fitted.loc["y", "ties"] == 2 and fitted.loc["y", "comparisons"] == 8 + 5 + 2 + 1
    noisy = pd.concat([comparisons, pd.DataFrame([("z", "x", "undetermined")] * 9, columns=comparisons.columns)])
    assert metrics.bradley_terry(noisy).set_index("model")["coefficient"].to_dict() == pytest.approx(
        fitted["coefficient"].to_dict())


def test_human_alignment_correlation_and_rank_agreement():
    board = pd.DataFrame({"judge": "j", "model": ["x", "y", "z"], "intent": "all", "language": "all",
                          "final_score": [7.0, 6.0, 3.0]})
    coefficients = pd.DataFrame({"model": ["x", "y", "z", "unjudged"], "coefficient": [1.0, 0.2, -1.2, 5.0]})
    row = metrics.human_alignment(board, coefficients).iloc[0]
    assert row["n_models"] == 3 and row["ranks_agree"]
    assert row["pearson_r"] == pytest.approx(np.corrcoef([7, 6, 3], [1.0, 0.2, -1.2])[0, 1])
    swapped = coefficients.assign(coefficient=[0.2, 1.0, -1.2, 5.0])
    assert not metrics.human_alignment(board, swapped).iloc[0]["ranks_agree"]


# --- loader -----------------------------------------------------------------------------------------

def _write_csv(path: Path, rows, header=("question", "reference_ans", "user_intent", "language")):
    with path.open("w", encoding="utf-8-sig", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_loader_normalizes_both_layouts_and_reports_bad_rows(tmp_path):
    path = _write_csv(tmp_path / "urs.csv", [
        ("What is 2+2?", "4", "Factual_QA", "EN"),
        ("一加仑是多少升？", "", "Factual QA", "CN"),           # old layout, no reference answer
        ("Plan a trip", "Go by train.", "Usage through API", "en"),
        ("Tell a joke", "A joke.", "Chit_Chat", "EN"),       # row 4: unknown intent
        ("  ", "x", "Leisure", "EN"),                        # row 5: empty question
        ("Hello", "Hi", "Leisure", "FR"),                    # row 6: unknown language
        ("Too", "many", "Leisure", "EN", "fields"),          # row 7
        ("Write a poem", "A poem.", "Seek Creativity", "EN"),
    ])
    loaded = load_urs_csv(path)
    assert [(i.item_id, i.intent, i.language) for i in loaded.items] == [
        ("urs-0001", "Factual QA", "en"), ("urs-0002", "Factual QA", "zh"), ("urs-0003", "Usage through API", "en"),
        ("urs-0008", "Seek Creativity", "en")]
    assert loaded.items[1].reference_answer is None and loaded.items[1].source_intent == "Factual QA"
    problems = {p.location: p.reason for p in loaded.problems}
    assert set(problems) == {f"urs.csv:row {n}" for n in (4, 5, 6, 7)}
    assert "Chit_Chat" in problems["urs.csv:row 4"] and "empty question" in problems["urs.csv:row 5"]
    assert "FR" in problems["urs.csv:row 6"] and "5 fields" in problems["urs.csv:row 7"]


def test_loader_reports_bad_bytes_per_row_and_missing_columns_per_file(tmp_path):
    good = "question,reference_ans,user_intent,language\r\nok,fine,Leisure,EN\r\n".encode()
    (tmp_path / "bytes.csv").write_bytes(good + b"bad \xff,x,Leisure,EN\r\n")
    loaded = load_urs_csv(tmp_path / "bytes.csv")
    assert len(loaded.items) == 1 and loaded.problems[0].location == "bytes.csv:row 2"
    _write_csv(tmp_path / "cols.csv", [("q", "Leisure", "EN")], header=("question", "user_intent", "language"))
    with pytest.raises(ValueError, match="reference_ans"):
        load_urs_csv(tmp_path / "cols.csv")
    with pytest.raises(FileNotFoundError, match="nowhere.csv"):
        load_urs_csv(tmp_path / "nowhere.csv")


def test_alignment_file_loaders(tmp_path):
    (tmp_path / "s.csv").write_text("intent,satisfaction\nFactual_QA,4.2\nLeisure,six\nGossip,3\n")
    rows, problems = load_satisfaction_csv(tmp_path / "s.csv")
    assert rows == [{"intent": "Factual QA", "satisfaction": 4.2, "model": None}]
    assert [p.location for p in problems] == ["s.csv:row 2", "s.csv:row 3"]
    (tmp_path / "p.csv").write_text("model_a,model_b,winner\nx,y,A\nx,y,Cannot tell\nx,x,A\nx,y,maybe\n")
    rows, problems = load_pairwise_csv(tmp_path / "p.csv")
    assert [r["winner"] for r in rows] == ["A", "undetermined"]
    assert [p.location for p in problems] == ["p.csv:row 3", "p.csv:row 4"]


# --- simulator ----------------------------------------------------------------------------------------

QUESTION = "How can I improve my English listening skills quickly?"
REFERENCE = ("Listen every day to podcasts and news slightly above your level, practise active listening and "
             "shadowing, learn common reductions, and track your progress every few weeks.")


def _judge(answer: str, language: str = "en", params=None, question=QUESTION, reference=REFERENCE, sample=0):
    messages = prompts.judge_messages(question, "Ask for Advice", language, reference, answer)
    return complete("sim/judge", messages, params or {}, sample).text


def test_sim_judge_scores_the_reference_at_8_and_a_worse_answer_lower():
    itself = [parse.parse_scores(_judge(REFERENCE, sample=s))["final"] for s in range(5)]
    assert all(7 <= score <= 9 for score in itself) and sum(itself) / 5 == pytest.approx(8, abs=0.6)
    poor = parse.parse_scores(_judge("I like cats."))
    assert poor["final"] < 5 and set(poor) == {*intents.CRITERIA_BY_INTENT["Ask for Advice"], "final"}


def test_sim_judge_answers_chinese_prompts_in_chinese_and_caps_the_wrong_language():
    question, reference = "晚上睡不着怎么办？", "固定作息，白天多运动，睡前少看手机，保持卧室安静黑暗。"
    text = _judge(reference, "zh", question=question, reference=reference)
    assert "综合得分" in text and "与参考答案相比" in text
    english = parse.parse_scores(_judge("Keep a fixed schedule and avoid screens before bed.", "zh",
                                      question=question, reference=reference))
    assert max(english.values()) <= 3


def test_sim_judge_leniency_and_malformed_rate():
    fair = [parse.parse_scores(_judge(REFERENCE, sample=s))["final"] for s in range(8)]
    lenient = [parse.parse_scores(_judge(REFERENCE, params={"leniency": 1.5}, sample=s))["final"] for s in range(8)]
    assert sum(lenient) > sum(fair)
    assert all(parse.parse_scores(_judge(REFERENCE, params={"malformed_rate": 1.0}, sample=s)) is None for s in range(8))


def test_sim_judge_adds_its_self_preference_to_its_own_familys_answers_only():
    """A judge with `self_preference` d and `family` alpha: an answer in alpha's house style (the mark a writer
    with `family: alpha` ends with) scores d higher on average than the same answer in beta's; without the
    param the two marks score alike."""
    partial = REFERENCE[:80]  # half the reference: scores in the middle of the scale, far from the clip

    def mean_final(judge_params, family):
        answer = house_style.signed(SimRequest.build("sim/w", [], {"family": family}, 0), partial)
        finals = [parse.parse_scores(_judge(answer, params=judge_params, sample=s))["final"] for s in range(30)]
        return sum(finals) / len(finals)

    assert 3 <= mean_final({"family": "alpha"}, "beta") <= 7
    preferring = {"family": "alpha", "self_preference": 2.0}
    assert mean_final(preferring, "alpha") - mean_final(preferring, "beta") == pytest.approx(2.0, abs=0.4)
    neutral = {"family": "alpha"}
    assert mean_final(neutral, "alpha") - mean_final(neutral, "beta") == pytest.approx(0.0, abs=0.4)
    written = complete("sim/c", prompts.candidate_messages(QUESTION), {"skill": 0.6, "family": "Alpha"}, 0).text
    assert written.splitlines()[-1] == "— alpha"
    assert "— " not in complete("sim/c", prompts.candidate_messages(QUESTION), {"skill": 0.6}, 0).text


def test_sim_candidates_skill_shows_in_the_judges_scores():
    def mean_final(skill):
        finals = []
        for sample in range(12):
            answer = complete("sim/c", prompts.candidate_messages(QUESTION), {"skill": skill}, sample).text
            finals.append(parse.parse_scores(_judge(answer, sample=sample))["final"])
        return sum(finals) / len(finals)

    assert mean_final(0.95) > mean_final(0.2) + 1


# --- steps --------------------------------------------------------------------------------------------

MODEL = RegistryEntry(slug="m", model="sim/m", display_name="M", role="candidate")


def test_two_samples_per_question_have_distinct_cache_keys():
    items = [{"item_id": "a", "question": "Q1"}, {"item_id": "b", "question": "Q2"}]
    plan = urs_steps.generation_plan(items, MODEL)
    assert [(p.item_id, p.request.sample_index) for p in plan] == [("a", 0), ("a", 1), ("b", 0), ("b", 1)]
    assert len({request_key(p.request) for p in plan}) == 4


def test_cross_sample_is_language_balanced_and_stable():
    items = [{"item_id": f"e{i}", "language": "en"} for i in range(10)] + \
            [{"item_id": f"z{i}", "language": "zh"} for i in range(3)]
    sample = urs_steps.cross_sample(items, 6)
    assert [i["language"] for i in sample].count("zh") == 3 and len(sample) == 6
    assert sample == urs_steps.cross_sample(list(reversed(items)), 6)


def test_cross_plan_uses_the_reference_models_second_sample():
    judge = RegistryEntry(slug="j", model="sim/j", display_name="J", role="judge")
    item = {"item_id": "i", "question": "Q", "intent": "Leisure", "language": "en"}
    answers = {("a", 0): {"i": "A0"}, ("a", 1): {"i": "A1"}, ("b", 0): {"i": "B0"}}  # b has no sample 1
    plan, skipped = urs_steps.cross_plan([item], [judge], ["a", "b"], answers)
    assert [(p.row["reference_model"], p.row["model"]) for _, p in plan] == [("a", "a"), ("a", "b")] and skipped == 2
    user = plan[1][1].request.messages[1]["content"]
    assert "<reference_answer>\nA1" in user and "<answer_to_evaluate>\nB0" in user


def test_reference_plan_fills_gaps_or_answers_everything():
    items = [{"item_id": "a", "question": "Q1", "reference_answer": "R"}, {"item_id": "b", "question": "Q2",
                                                                          "reference_answer": None}]
    assert [p.item_id for p in urs_steps.reference_plan(items, MODEL, every_item=False)] == ["b"]
    assert [p.item_id for p in urs_steps.reference_plan(items, MODEL, every_item=True)] == ["a", "b"]


def test_a_satisfaction_file_read_wrong_by_a_dict_reader_gives_located_problems(tmp_path):
    # A cell beyond the header (a DictReader files it under None and drops it) and a short row are problems.
    (tmp_path / "s.csv").write_text("intent,satisfaction\nFactual_QA,4.2\nLeisure,3,5\nAPI\n")
    rows, problems = load_satisfaction_csv(tmp_path / "s.csv")
    assert rows == [{"intent": "Factual QA", "satisfaction": 4.2, "model": None}]
    assert [(p.location, p.reason) for p in problems] == [
        ("s.csv:row 2", "has 3 fields, header has 2"), ("s.csv:row 3", "has 1 fields, header has 2 (a torn line?)")]
    (tmp_path / "twice.csv").write_text("intent,satisfaction,satisfaction\nLeisure,3,5\n")
    with pytest.raises(ValueError, match="twice.csv: column 'satisfaction' appears twice"):
        load_satisfaction_csv(tmp_path / "twice.csv")
    # A byte that is not UTF-8 refuses its record only.
    (tmp_path / "bytes.csv").write_bytes(b"intent,satisfaction\nFactual_QA,4.2\nLeis\xffure,3\nAPI,2\n")
    rows, problems = load_satisfaction_csv(tmp_path / "bytes.csv")
    assert [r["satisfaction"] for r in rows] == [4.2, 2.0]
    assert [(p.location, p.reason) for p in problems] == [("bytes.csv:row 2", "bytes that are not UTF-8")]
