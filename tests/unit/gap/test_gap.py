"""GAP logic: the reliability estimate, reliability with its prior, selection on simulated players, points,
leaderboard, rotation, log parsing, the interaction model's recovery, categories, split, scoring parse."""

import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchwright.gap import answering, interaction, logs, reliability, scoring, vqa
from benchwright.gap.images import generate_images, true_answer
from benchwright.simulate import complete
from benchwright.gap.simulated import (TRUE_PARAMS, interaction_rows, make_players, play_sessions, subtly_wrong)

EXTERNAL = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "external" / "gap-vqa"
EVALUATE_INPUT = EXTERNAL / "evaluate" / "gpt_score" / "evaluate_input.example.json"


def test_wrong_given_marked_wrong_is_bayes_rule():
    # 0.9·0.5 / (0.1·0.5 + 0.9·0.5) = 0.9
    assert reliability.wrong_given_marked_wrong(0.9, 0.1, 0.5) == pytest.approx(0.9)
    assert reliability.wrong_given_marked_wrong(0.8, 0.2, 0.25) == pytest.approx(0.2 / (0.2 + 0.15))
    # A spammer marks everything Wrong: the estimate falls back to the planting rate.
    assert reliability.wrong_given_marked_wrong(1.0, 1.0, 0.3) == pytest.approx(0.3)
    assert reliability.wrong_given_marked_wrong(0.0, 0.0, 0.5) == 0.0
    with pytest.raises(ValueError, match="p_planted"):
        reliability.wrong_given_marked_wrong(0.5, 0.5, 1.5)


def test_reliability_prior_and_update_after_each_tainted_mark():
    r = reliability.Reliability()
    assert r.estimate(0.5) == pytest.approx(0.5)           # Beta(1,1) on both rates: no evidence
    r.add(instructed_wrong=True, marked_wrong=True)
    assert r.rates() == (pytest.approx(2 / 3), pytest.approx(1 / 2))
    for _ in range(9):
        r.add(True, True)
        r.add(False, False)
    p1, p0 = (10 + 1) / (10 + 2), (0 + 1) / (9 + 2)
    assert r.estimate(0.5) == pytest.approx(p1 / (p1 + p0))
    assert r.estimate(0.5) > reliability.DEFAULT_THETA


@pytest.fixture(scope="module")
def simulated():
    images = generate_images(20, 20, seed=3)
    records, truth = play_sessions(make_players(12, 6, 4, seed=3), images, sessions_per_player=3, seed=3)
    data = "\n".join(json.dumps(r) for r in records).encode()
    _, marks, bad, _ = logs.parse_log_file(data, "sim.jsonl")
    assert bad == []
    return images, marks, truth


def test_history_has_one_estimate_per_tainted_mark(simulated):
    _, marks, _ = simulated
    history = reliability.reliability_history(marks)
    assert len(history) == int(marks["tainted"].sum())
    last = history.groupby("player_id")["reliability"].last()
    players = reliability.player_reliability(marks).set_index("player_id")
    assert np.allclose(last.sort_index(), players.loc[last.index, "reliability"].sort_index())


def test_selection_keeps_reliable_players_and_excludes_spammers(simulated):
    _, marks, truth = simulated
    players = reliability.player_reliability(marks)
    kept = reliability.select_adversarial(marks, players).merge(truth, on=["session_id", "image_id", "question_index"])
    assert len(kept) >= 30
    precision_players = (kept["player_kind"] == "honest").mean()
    precision_answers = kept["model_wrong"].mean()           # the kept answers really were wrong
    print(f"kept {len(kept)}: from honest players {precision_players:.2%}, model really wrong {precision_answers:.2%}")
    assert precision_players >= 0.95
    assert precision_answers >= 0.7
    assert not (kept["player_kind"] == "spammer").any()
    spammers = players[players["player_id"].str.startswith("spammer")]
    assert (spammers["reliability"] < reliability.DEFAULT_THETA).all()


def test_points_leaderboard_and_rotation(simulated):
    _, marks, _ = simulated
    caught = marks[marks["tainted"] & marks["instructed_wrong"] & (marks["player_mark"] == "wrong")]
    board = reliability.weekly_leaderboard(marks)
    assert board["points"].sum() == 20 * len(caught.drop_duplicates(["session_id", "image_id"]))
    assert board["week"].str.match(r"^\d{4}-W\d{2}$").all()
    top = board.sort_values("points", ascending=False).groupby("week").head(1)
    assert (top["rank"] == 1).all()
    kept = pd.DataFrame({"image_id": ["u1"] * 11 + ["u2"] * 10})
    rotation = reliability.image_rotation(kept).set_index("image_id")
    assert rotation.at["u1", "move_to_tainted"] and not rotation.at["u2", "move_to_tainted"]


def test_log_lines_are_validated_with_reasons():
    good = {"session_id": "s", "player_id": "p", "session_start": "2026-01-05T09:00:00", "image_id": "t1",
            "tainted": True, "image_order": 1, "time_limit_s": 120, "question_index": 0, "question": "q",
            "model_answer": "a", "instructed_wrong": False, "player_mark": "wrong", "seconds_taken": 12.5}
    assert logs.parse_log_line(json.dumps(good))["player_mark"] == "wrong"
    cases = {"{oops": "not JSON", json.dumps([1]): "not a JSON object",
             json.dumps({k: v for k, v in good.items() if k != "question"}): "missing field",
             json.dumps(good | {"image_order": True}): "wrong type",
             json.dumps(good | {"player_mark": "maybe"}): "player_mark",
             json.dumps(good | {"tainted": False, "instructed_wrong": True}): "untainted",
             json.dumps(good | {"seconds_taken": 130}): "outside"}
    for line, reason in cases.items():
        with pytest.raises(ValueError, match=reason):
            logs.parse_log_line(line)
    digest, rows, bad, _ = logs.parse_log_file(("\n".join([json.dumps(good), "{oops", ""]) + "\n").encode(), "f.jsonl")
    assert len(rows) == 1 and [b["line_no"] for b in bad] == [2] and len(digest) == 64


def test_a_marks_personal_data_is_gone_before_it_is_returned_and_its_key_stays_one_per_person():
    # An outside producer: the player and the session named by an e-mail, personal data in the texts.
    line = {"session_id": "jean.dupont@exemple.fr-1", "player_id": "jean.dupont@exemple.fr",
            "session_start": "2026-01-05T09:00:00", "image_id": "t1", "tainted": True, "image_order": 1,
            "time_limit_s": 120, "question_index": 0,
            "question": "My IBAN is FR1420041010050500013M02606 and my phone 06 12 34 56 78: how many circles?",
            "model_answer": "Mail maria.rossi@example.org; three circles.", "instructed_wrong": False,
            "player_mark": "wrong", "seconds_taken": 12.5}
    mark = logs.parse_log_line(json.dumps(line))
    assert mark["question"] == "My IBAN is [REDACTED:iban] and my phone [REDACTED:phone]: how many circles?"
    assert mark["model_answer"] == "Mail [REDACTED:email]; three circles."
    assert mark["player_id"].startswith("person-") and mark["session_id"].startswith("person-")
    assert "@" not in json.dumps(mark) and "06 12" not in json.dumps(mark)
    # Deterministic: the same session read again (another file, another day) keeps its natural key.
    again = logs.parse_log_line(json.dumps(line | {"question_index": 1}))
    assert (again["session_id"], again["player_id"]) == (mark["session_id"], mark["player_id"])
    other = logs.parse_log_line(json.dumps(line | {"session_id": "ana@ejemplo.es-1"}))
    assert other["session_id"] != mark["session_id"]
    # Clean identities are kept as written.
    clean = logs.parse_log_line(json.dumps(line | {"session_id": "s-42", "player_id": "owl_7"}))
    assert (clean["session_id"], clean["player_id"]) == ("s-42", "owl_7")


def test_interaction_model_recovers_simulated_parameters():
    """Stated tolerances. α·A_i and β·D_j are identified only up to a shared scale (A, D ∈ [0, 1] rarely
    touch their bounds), and γ trades off against λ, so we test what the data pin down: τ within 0.5;
    the fatigue effect at the last image γ·(1 − e^(−0.9λ)) within 0.3; the spread (sd) of α·A_i and of
    β·D_j within 20 %; ability correlation > 0.9; mean |p̂ − p| < 0.05."""
    rows, ability, difficulty = interaction_rows(60, 40, 150, seed=5)
    model = interaction.fit_interaction_model(rows)
    assert abs(model.tau - TRUE_PARAMS["tau"]) < 0.5
    fatigue = lambda gamma, lam: gamma * (1 - np.exp(-0.9 * lam))  # noqa: E731
    assert abs(fatigue(model.gamma, model.lam) - fatigue(TRUE_PARAMS["gamma"], TRUE_PARAMS["lam"])) < 0.3
    spread_a = np.std([model.alpha * model.ability[p] for p in ability]) / np.std([TRUE_PARAMS["alpha"] * a for a in ability.values()])
    spread_d = np.std([model.beta * model.difficulty[i] for i in difficulty]) / np.std([TRUE_PARAMS["beta"] * d for d in difficulty.values()])
    assert abs(spread_a - 1) < 0.2 and abs(spread_d - 1) < 0.2
    players = sorted(ability)
    assert np.corrcoef([model.ability[p] for p in players], [ability[p] for p in players])[0, 1] > 0.9
    truth = interaction.InteractionModel(**TRUE_PARAMS, ability=ability, difficulty=difficulty).predict(rows)
    assert np.abs(model.predict(rows) - truth).mean() < 0.05
    cv, out_of_fold = interaction.cross_validate(rows, folds=3)
    assert (cv["auc"] > 0.7).all() and not np.isnan(out_of_fold).any()
    table = interaction.calibration_table(rows["revealed"].to_numpy(), out_of_fold)
    assert (np.abs(table["mean_predicted"] - table["observed_rate"])[table["n"] > 200] < 0.08).all()
    before = model.ability[players[0]]
    assert model.update_ability(players[0], observed=1.0, expected=0.4, eta=0.1) == pytest.approx(min(1.0, before + 0.06))


def test_roc_auc_matches_pairwise_definition():
    y = np.array([1, 0, 1, 0, 1])
    s = np.array([0.9, 0.8, 0.7, 0.1, 0.5])
    pairs = [(p, n) for p in s[y == 1] for n in s[y == 0]]
    assert interaction.roc_auc(y, s) == pytest.approx(np.mean([p > n for p, n in pairs]))
    assert np.isnan(interaction.roc_auc(np.ones(3), s[:3]))


def test_categories_and_split_by_image():
    assert vqa.categorize("How many circles are in the image?") == "Counting"
    assert vqa.categorize("What colour is the square nearest the left edge?") == "Object Attributes"
    assert vqa.categorize("Is the red circle on the left or the right?") == "Spatial Relationships"
    assert vqa.categorize("What does the sign say?") == "Text Recognition"
    assert vqa.categorize("What is the weather like?") == "Weather and Environment"
    assert vqa.categorize("Why is the man smiling?") == "Emotion Recognition"
    assert len(vqa.CATEGORIES) == 13 and {c for c, _ in vqa.CATEGORY_RULES} == set(vqa.CATEGORIES)
    ids = [f"u{k}" for k in range(20) for _ in range(3)]
    split = vqa.split_by_image(ids, 0.3, seed=1)
    assert sum(v == "val" for v in split.values()) == 6
    assert split == vqa.split_by_image(list(reversed(ids)), 0.3, seed=1)
    assert split != vqa.split_by_image(ids, 0.3, seed=2)


def test_generated_images_have_exact_truth_and_subtle_errors():
    images = generate_images(4, 2, seed=0)
    assert [im.image_set for im in images].count("tainted") == 4
    assert all(len(im.objects) <= 2 for im in images if im.image_set == "tainted")
    assert all(len(im.objects) >= 6 for im in images if im.image_set == "untainted")
    assert images[0].image.sha256 == generate_images(4, 2, seed=0)[0].image.sha256
    objects = [{"shape": "circle", "colour": "red", "x": 0.2, "y": 0.5, "size": 0.3},
               {"shape": "circle", "colour": "blue", "x": 0.8, "y": 0.5, "size": 0.3}]
    assert true_answer(objects, "How many circles are in the image?") == "There are 2 circles."
    assert true_answer(objects, "What colour is the circle nearest the right edge?") == "It is blue."
    assert true_answer(objects, "Is the red circle on the left or the right?") == "It is on the left."
    wrong = subtly_wrong("There are 2 circles.", random.Random(0))
    assert wrong in ("There are 1 circles.", "There are 3 circles.")


def test_parse_score_reads_one_number_in_unit_interval():
    assert scoring.parse_score("Fine.\nScore: 0.75") == (0.75, None)
    assert scoring.parse_score("**Score:** 1") == (1.0, None)
    assert scoring.parse_score("score = .5/1") == (0.5, None)
    assert scoring.parse_score("0.4") == (0.4, None)
    assert scoring.parse_score("Score: 0.2 at first, then Score: 0.6")[0] == 0.6
    for text, problem in (("", "empty"), ("Score: 75%", "percentage"), ("Score: 3", "outside"),
                          ("It is 0.5 or 0.7", "no 'Score")):
        value, reason = scoring.parse_score(text)
        assert value is None and problem in reason


@pytest.mark.skipif(not EVALUATE_INPUT.is_file(), reason=f"external GAP data not found at {EVALUATE_INPUT}")
def test_scoring_plumbing_on_published_evaluate_input_rows():
    rows = json.loads(EVALUATE_INPUT.read_text(encoding="utf-8"))
    assert len(rows) == 1000
    scores = []
    for row in rows:
        prompt = scoring.score_prompt(row["question"], row["correctAnswer"], row["modelAnswer"])
        text = complete("sim/judge", [{"role": "user", "content": prompt}], {}).text
        value, problem = scoring.parse_score(text)
        assert problem is None, text
        scores.append(value)
    scores = np.array(scores)
    assert ((0 <= scores) & (scores <= 1)).all() and 0 < scores.mean() < 1
    # An answer scored against itself is fully right.
    same = complete("sim/judge", [{"role": "user", "content": scoring.score_prompt(rows[0]["question"], rows[0]["correctAnswer"],
                                                                               rows[0]["correctAnswer"])}], {}).text
    assert scoring.parse_score(same)[0] == 1.0


def test_simulated_candidate_reads_sides_and_edge_colours_from_the_image():
    from benchwright.images import data_url

    objects = [{"shape": "circle", "colour": "red", "x": 0.27, "y": 0.5, "size": 0.3},
               {"shape": "square", "colour": "blue", "x": 0.73, "y": 0.5, "size": 0.3}]
    from benchwright.gap.images import _draw
    from benchwright.images import normalize_image
    url = data_url(normalize_image(_draw(objects, 0, random.Random(0))))
    for question, expected in (("Is the blue square on the left or the right?", "It is on the right."),
                               ("What colour is the circle nearest the left edge?", "It is red.")):
        text = complete("sim/x", answering.answer_messages(question, url), {"skill": 1.0}).text
        assert text == expected


def test_bundled_sample_logs_are_what_the_simulator_writes(tmp_path):
    from benchwright.gap.simulated import write_sample

    shipped = Path(__file__).resolve().parents[3] / "sample_data" / "gap" / "logs"
    written = write_sample(tmp_path)
    assert sorted(p.name for p in written) == sorted(p.name for p in shipped.glob("*.jsonl"))
    for path in written:
        assert path.read_bytes() == (shipped / path.name).read_bytes(), path.name
