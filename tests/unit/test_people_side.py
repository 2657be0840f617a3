"""The people's side, pure parts: handles and tokens, durable files, game rules, annotation records."""

import csv
import json
import random

import pytest

from benchwright import annotation, durable, people
from benchwright.gap import game
from benchwright.gap import logs, reliability
from benchwright.human_pairwise import COLUMNS, load_pairwise_csv, value_for_b


# --- handles and tokens ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["ana", "Player_1", "x.y-z", "a" * 32])
def test_valid_handles_pass(name):
    assert people.validate_handle(f" {name} ") == name


@pytest.mark.parametrize("name", ["", "a", "1abc", "has space", "me@example.com", "<script>", "a" * 33, "ünï", None, 5,
                                  "p5551234567"])
def test_bad_handles_are_refused_with_a_reason(name):
    with pytest.raises(ValueError):
        people.validate_handle(name)


def test_a_phone_number_is_not_a_handle():
    with pytest.raises(ValueError, match="personal data"):
        people.validate_handle("call.415-555-0132")


def test_tokens_are_unique_and_only_their_digest_matches():
    first, second = people.new_token(), people.new_token()
    assert first != second and len(first) >= 30
    digest = people.token_digest(first)
    assert first not in digest
    assert people.token_matches(first, digest) and not people.token_matches(second, digest)
    assert not people.token_matches(None, digest) and not people.token_matches("x" * 500, digest)


@pytest.mark.parametrize("text,problem", [("hi", "too short"), ("x" * 301, "too long"), ("bad\x00byte", "control"),
                                          ("zero\u200bwidth", "control"), (None, "missing")])
def test_free_text_limits(text, problem):
    with pytest.raises(ValueError, match=problem):
        people.clean_text(text, what="the question", max_chars=300, min_chars=3)


def test_free_text_becomes_one_trimmed_line():
    assert people.clean_text("  What\ncolour\t is  it? ", what="q", max_chars=50) == "What colour is it?"


# --- durable files -----------------------------------------------------------------------------------

def test_append_then_repair_a_torn_tail(tmp_path):
    path = tmp_path / "log.jsonl"
    durable.append_line(path, '{"a": 1}')
    durable.append_line(path, '{"a": 2}')
    with open(path, "ab") as handle:          # a crash mid-write: half a record, no newline
        handle.write(b'{"a": 3')
    assert durable.read_lines(path) == ['{"a": 1}', '{"a": 2}']
    assert durable.repair_torn_tail(path) == len(b'{"a": 3')
    durable.append_line(path, '{"a": 4}')
    assert [json.loads(x)["a"] for x in durable.read_lines(path)] == [1, 2, 4]
    with pytest.raises(ValueError):
        durable.append_line(path, "two\nlines")


def test_csv_rows_get_one_header_and_publish_is_atomic_and_idempotent(tmp_path):
    path = tmp_path / "round.csv"
    durable.append_csv_row(path, ["a", "b"], {"a": 1, "b": None})
    durable.append_csv_row(path, ["a", "b"], {"a": "x,y", "b": 2})
    assert list(csv.DictReader(path.open())) == [{"a": "1", "b": ""}, {"a": "x,y", "b": "2"}]
    with pytest.raises(ValueError, match="one line"):         # never half a record on disk
        durable.append_csv_row(path, ["a", "b"], {"a": "two\nlines", "b": 3})
    assert len(path.read_text().splitlines()) == 3
    final = tmp_path / "final.csv"
    assert durable.publish(path, final) and final.exists() and not path.exists()
    assert not durable.publish(path, final)


# --- game rules ----------------------------------------------------------------------------------------

def _images(prefix, n):
    return [(f"{prefix}{k}", f"{prefix}sha{k}") for k in range(n)]


def test_a_session_has_five_of_each_set_in_a_mixed_order():
    orders = set()
    for seed in range(20):
        plan = game.plan_session(_images("t", 8), _images("u", 8), random.Random(seed))
        assert [p.order for p in plan] == list(range(1, 11))
        assert sum(p.tainted for p in plan) == 5 and len({p.image_id for p in plan}) == 10
        orders.add(tuple(p.tainted for p in plan))
    assert len(orders) > 10          # the tainted positions move from session to session
    with pytest.raises(ValueError, match="5 tainted"):
        game.plan_session(_images("t", 4), _images("u", 8), random.Random(0))


def test_the_planted_draw_is_reproducible_and_has_the_configured_rate():
    draws = [game.planted("seed-a", order, q, 0.3) for order in range(1, 101) for q in range(100)]
    assert abs(sum(draws) / len(draws) - 0.3) < 0.02
    assert draws == [game.planted("seed-a", order, q, 0.3) for order in range(1, 101) for q in range(100)]
    assert draws != [game.planted("seed-b", order, q, 0.3) for order in range(1, 101) for q in range(100)]


def _mark(order, index, mark):
    return {"image_order": order, "question_index": index, "player_mark": mark}


def test_an_image_is_over_when_marked_wrong_or_when_its_time_is_up():
    plan = game.plan_session(_images("t", 5), _images("u", 5), random.Random(1))
    marks = [_mark(1, 0, "correct"), _mark(1, 1, "wrong"), _mark(2, 0, "correct")]
    states = game.image_states(plan, marks, {1: 0.0, 2: 10.0}, now=50.0, limit=120)
    assert (states[0].over, states[0].why_over) == (True, "marked_wrong")
    assert not states[1].over and game.current_image(states).image.order == 2
    assert states[1].seconds_left(50.0, 120) == 80.0
    later = game.image_states(plan, marks, {1: 0.0, 2: 10.0}, now=130.0, limit=120)
    assert later[1].why_over == "time_up" and game.current_image(later).image.order == 3
    assert game.current_image(game.image_states(plan, [_mark(k, 0, "wrong") for k in range(1, 11)], {}, 0.0, 120)) is None


def test_mark_records_pass_the_ingest_parser_and_bad_ones_are_refused():
    image = game.PlannedImage(3, "t001", True, "f" * 64)
    common = dict(session_id="s1", player_id="ana", session_start="2026-11-22T10:00:00+00:00", image=image, limit=120.0,
                  question_index=0, question="How many circles?", model_answer="Two.", instructed_wrong=True)
    record = game.mark_record(**common, mark="wrong", seconds_taken=500.0)
    assert logs.parse_log_line(json.dumps(record))["seconds_taken"] == 120.0     # clipped to the limit
    with pytest.raises(ValueError):
        game.mark_record(**common, mark="maybe", seconds_taken=3.0)


def test_session_points_follow_the_pipeline_rule():
    base = {"session_id": "s", "player_id": "p", "session_start": "2026-11-22T10:00:00", "tainted": True}
    marks = [{**base, "image_id": "t1", "instructed_wrong": True, "player_mark": "wrong"},
             {**base, "image_id": "t1", "instructed_wrong": True, "player_mark": "wrong"},   # same image: once
             {**base, "image_id": "t2", "instructed_wrong": False, "player_mark": "wrong"},  # nothing planted
             {**base, "image_id": "t3", "instructed_wrong": True, "player_mark": "correct"}]  # missed
    assert game.session_points(marks) == reliability.POINTS_PER_CAUGHT
    assert game.session_points([]) == 0


# --- annotation ------------------------------------------------------------------------------------------

PAIRS = [annotation.Pair("creation", f"c{k}", "base", f"cand{k % 3}") for k in range(5)] + \
        [annotation.Pair("urs", "u1", "m1", "m2"), annotation.Pair("urs", "u1", "m1", "m3")]


def test_a_round_shuffles_items_and_sides_without_repeating_an_item():
    lefts, firsts = set(), set()
    for seed in range(30):
        tasks = annotation.plan_round(PAIRS, random.Random(seed), size=6)
        assert [t.position for t in tasks] == list(range(1, 7))
        # URS has one item only, so the round takes it once and fills up with Creation items.
        assert sum(t.pair.benchmark == "urs" for t in tasks) == 1
        assert len({(t.pair.benchmark, t.pair.item_id) for t in tasks}) == 6
        assert all(t.left_model in (t.pair.model_a, t.pair.model_b) for t in tasks)
        lefts |= {t.left_model == t.pair.model_a for t in tasks}
        firsts.add(tasks[0].pair.item_id)
    assert lefts == {True, False} and len(firsts) > 3
    assert annotation.round_from_json(annotation.round_to_json(tasks)) == tasks
    many_urs = PAIRS + [annotation.Pair("urs", f"u{k}", "m1", "m2") for k in range(2, 9)]
    assert sum(t.pair.benchmark == "urs" for t in annotation.plan_round(many_urs, random.Random(0), size=6)) == 3
    with pytest.raises(ValueError, match="nothing to annotate"):
        annotation.plan_round([], random.Random(0))


@pytest.mark.parametrize("left_is_a", [True, False])
@pytest.mark.parametrize("choice,toward_left,strength", [
    ("left_much_better", 1, 2), ("left_better", 1, 1), ("same", 0, 0), ("right_better", -1, 1),
    ("right_much_better", -1, 2), ("cannot_tell", None, None)])
def test_choices_become_winner_and_strength_relative_to_model_a_and_b(tmp_path, left_is_a, choice, toward_left, strength):
    pair = annotation.Pair("creation", "c1", "base", "cand")
    task = annotation.Task(1, pair, "base" if left_is_a else "cand")
    record = annotation.choice_record(task, choice, annotator="ana", round_id="r1", recorded_at="2026-11-22T10:00:00+00:00",
                                      seconds_taken=4.2)
    assert list(record) == COLUMNS and record["left_model"] == task.left_model
    # The candidate's (model_b's) value on the −2..+2 scale, derived from what the person saw.
    expected = None if toward_left is None else (toward_left * strength) * (-1 if left_is_a else 1)
    assert value_for_b(record["winner"], record["strength"]) == expected
    # ... and the loader the pipeline uses reads the record back unchanged in meaning.
    path = tmp_path / "round.csv"
    durable.append_csv_row(path, COLUMNS, record)
    rows, problems = load_pairwise_csv(path)
    assert problems == [] and rows[0]["winner"] == record["winner"] and rows[0]["benchmark"] == "creation"
    with pytest.raises(ValueError):
        annotation.choice_record(task, "left_best", annotator="ana", round_id="r", recorded_at="x", seconds_taken=0)
