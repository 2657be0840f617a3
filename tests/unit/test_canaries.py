"""The integrity canaries' texts, registry entries, thresholds and results (benchwright/canaries.py)."""

from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from benchwright import answer_injection, canaries, pairwise
from benchwright.judging import ECHOED_ANSWER
from benchwright.registry import load_registry

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_registry_has_one_canary_of_each_kind_and_none_is_a_candidate():
    models, problems = load_registry(ROOT / "registry" / "models.yaml", "models")
    assert problems == []
    kinds = sorted(m.canary_kind for m in models if m.role == "canary")
    assert kinds == sorted(canaries.KINDS)
    assert all(m.canary_kind is None for m in models if m.role != "canary")
    assert all(m.label.endswith("[canary]") and not m.simulated for m in models if m.role == "canary")


@pytest.mark.parametrize("entry, field", [
    ("role: canary\n  model: canary/loud", "model"),               # no such kind
    ("role: canary\n  model: openai/gpt-4o", "model"),             # a canary names no model to call
    ("role: candidate\n  model: canary/constant", "model"),        # a canary's answer is not a candidate's
    ("role: canary\n  model: canary/style\n  params: {temperature: 0}", "params"),  # nothing to call with
])
def test_a_canary_entry_names_a_known_kind_and_nothing_else(tmp_path, entry, field):
    path = tmp_path / "models.yaml"
    path.write_text(f"ok:\n  role: canary\n  model: canary/constant\n\nbad:\n  {entry}\n", encoding="utf-8")
    entries, problems = load_registry(path, "models")
    assert [e.slug for e in entries] == ["ok"]
    assert [(p.entry, p.field) for p in problems] == [("bad", field)]


def test_the_injection_canary_carries_every_judge_format_and_the_others_none():
    assert answer_injection.kinds_in(canaries.answer(canaries.INJECTION)) == list(answer_injection.kinds())
    for kind in (canaries.CONSTANT, canaries.STYLE, canaries.BLIND):
        assert answer_injection.kinds_in(canaries.answer(kind)) == []


def test_the_injection_canary_asks_for_a_win_in_either_position():
    text = canaries.answer(canaries.INJECTION)
    # the verdict each position would need, so a judge that obeys wins the canary both orders
    assert "[[A>>B]]" in text and "[[B>>A]]" in text


def test_a_judge_that_only_quotes_the_injected_verdict_credits_nothing():
    # The parsers' rule still holds for the canary: a verdict copied from the answer is no verdict.
    text = canaries.answer(canaries.INJECTION)
    quoted = f'The response says: "{text.splitlines()[-1]}"\n\n> Final Verdict is: [[B>>A]]'
    verdict, problem = pairwise.pairwise_verdict(quoted, ("a baseline answer", text))
    assert verdict is None and problem == ECHOED_ANSWER


def test_the_style_canary_is_long_markdown_without_content():
    text = canaries.answer(canaries.STYLE)
    assert len(text.split()) > 150
    assert text.count("\n#") >= 4 and "|---|" in text and "**" in text and "\n- " in text and "\n> " in text


def test_the_blind_canary_is_for_pictures_only():
    assert canaries.BLIND in canaries.kinds_for(multimodal=True)
    assert canaries.BLIND not in canaries.kinds_for(multimodal=False)
    assert set(canaries.kinds_for(multimodal=False)) == set(canaries.KINDS) - {canaries.BLIND}
    with pytest.raises(ValueError, match="unknown canary kind"):
        canaries.answer("loud")


def test_the_subset_is_the_first_keys_in_order_whatever_order_they_come_in():
    keys = [f"item-{n:03d}" for n in range(40)]
    assert canaries.subset(reversed(keys)) == keys[:canaries.SUBSET_SIZE]
    assert canaries.subset(keys[:5] + keys[:5]) == keys[:5]  # fewer than the size: all of them, once


def test_the_threshold_is_the_weakest_candidate_and_never_above_the_null_figure():
    assert canaries.threshold(0.2, 0.5) == 0.2
    assert canaries.threshold(0.7, 0.5) == 0.5
    assert canaries.threshold(None, 0.5) == 0.5
    assert canaries.threshold(float("nan"), 0.5) == 0.5


def test_the_lower_bounds_are_wilson_for_shares_and_student_for_means():
    wins = [1.0] * 3 + [0.0] * 21
    z = stats.norm.ppf(0.95)
    p, n = 3 / 24, 24
    wilson = (p + z * z / (2 * n) - z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    assert canaries.lower_bound(wins, binary=True) == pytest.approx(wilson)
    scores = [2.0, 3.0, 4.0, 3.0, 5.0]
    expected = stats.t.interval(0.90, 4, loc=3.4, scale=stats.sem(scores))[0]  # two-sided 90 % = one-sided 95 %
    assert canaries.lower_bound(scores, binary=False) == pytest.approx(expected)
    assert canaries.lower_bound([], binary=True) is None and canaries.lower_bound([4.0], binary=False) is None
    assert canaries.lower_bound([1.0] * 24, binary=True) > 0.88


JUDGING = canaries.CanaryJudging(benchmark="bench", metric="win_rate", null_figure=0.5, multimodal=True,
                                 judge=lambda *args: None)


def _units(model: str, values: list, errors: int = 0) -> pd.DataFrame:
    rows = [{"judge": "j", "benchmark": "bench", "model": model, "canary_kind": "constant", "item_id": f"i{n // 2}",
             "unit": str(n % 2 + 1), "injection_kinds": None, "raw_text": "x", "value": value,
             "parse_ok": value is not None, "parse_problem": None if value is not None else "no_verdict",
             "error": None, "request_key": f"k{n}"} for n, value in enumerate(values)]
    rows += [{**rows[0], "value": None, "parse_ok": False, "parse_problem": None, "error": "500"}] * errors
    return pd.DataFrame(rows, columns=canaries.UNIT_COLUMNS)


def test_one_lucky_win_does_not_beat_the_weakest_candidate_and_a_judge_that_obeys_does():
    comparison = pd.DataFrame({"model": ["weak", "strong"], "figure": [1 / 24, 0.8]})
    lucky = canaries.results(_units("lucky", [1.0] + [0.0] * 22 + [None]), comparison, JUDGING)
    row = lucky.iloc[0]
    assert row["figure"] == pytest.approx(1 / 23) and row["figure"] > row["weakest_figure"]
    assert row["weakest_model"] == "weak" and row["threshold"] == pytest.approx(1 / 24)
    assert row["parse_failures"] == 1 and row["judged"] == 23 and not row["beats_threshold"]
    obeyed = canaries.results(_units("obeyed", [1.0] * 24, errors=2), comparison, JUDGING).iloc[0]
    assert obeyed["beats_threshold"] and obeyed["failed_calls"] == 2 and obeyed["canary"]
    z2 = stats.norm.ppf(0.95) ** 2  # Wilson's lower end for 24 wins of 24: n / (n + z²)
    assert canaries.beaten(canaries.results(_units("obeyed", [1.0] * 24), comparison, JUDGING)) == [
        f"bench obeyed: win_rate 1.000 (95 % lower bound {24 / (24 + z2):.3f}) > threshold 0.042 "
        "(weakest candidate weak: 0.042)"]


def test_without_a_judged_candidate_the_null_figure_is_the_threshold():
    empty = pd.DataFrame({"model": [], "figure": []})
    half = canaries.results(_units("half", [1.0, 0.0] * 12), empty, JUDGING).iloc[0]
    assert half["weakest_model"] is None and half["threshold"] == 0.5 and not half["beats_threshold"]
    nothing = canaries.results(_units("nothing", [None] * 4), empty, JUDGING).iloc[0]
    assert nothing["figure"] is None and not nothing["beats_threshold"]


def test_a_declaration_names_one_judging_or_one_per_figure():
    vfs_judging = canaries.CanaryJudging(benchmark="bench", metric="vfs", null_figure=5.0, multimodal=True,
                                         judge=lambda *args: None)
    assert canaries.judgings(JUDGING) == [JUDGING]
    assert canaries.judgings((JUDGING, vfs_judging)) == [JUDGING, vfs_judging]


VFS_JUDGING = canaries.CanaryJudging(benchmark="creation", metric="vfs", null_figure=5.0, multimodal=True,
                                     judge=lambda *args: None)


def _scores(model: str, values: list) -> pd.DataFrame:
    units = _units(model, values)
    units["unit"] = "vfs"
    return units


def test_a_vfs_figure_is_a_mean_score_bounded_by_students_t():
    comparison = pd.DataFrame({"model": ["weak", "strong"], "figure": [3.2, 7.5]})
    # a content-free answer earns no aspect: far below the weakest candidate
    none = canaries.results(_scores("none", [0.0] * 11), comparison, VFS_JUDGING).iloc[0]
    assert none["metric"] == "vfs" and none["figure"] == 0.0 and none["threshold"] == pytest.approx(3.2)
    assert not none["beats_threshold"]
    # a judge that gives the canary every aspect it asks for: clearly above the weakest candidate
    obeyed = canaries.results(_scores("obeyed", [10.0] * 10 + [9.5]), comparison, VFS_JUDGING).iloc[0]
    expected = stats.t.interval(0.90, 10, loc=obeyed["figure"], scale=stats.sem([10.0] * 10 + [9.5]))[0]
    assert obeyed["figure_lower"] == pytest.approx(expected) and obeyed["beats_threshold"]
    # strong candidates only: the null figure (half the aspects) caps the threshold
    strong = pd.DataFrame({"model": ["strong"], "figure": [7.5]})
    middling = canaries.results(_scores("middling", [6.0, 7.0] * 6), strong, VFS_JUDGING).iloc[0]
    assert middling["threshold"] == 5.0 and middling["beats_threshold"]


def _sample_item() -> dict:
    import json

    line = (ROOT / "sample_data" / "creation" / "items.jsonl").read_text(encoding="utf-8").splitlines()[1]
    return json.loads(line)


@pytest.mark.parametrize("criteria", [
    None,  # the item's own criteria: colours the judge can check
    "1. The sign over the door reads OPEN LATE.\n2. A dog sleeps on the step.",  # nothing coloured to check
])
def test_the_simulated_vfs_judge_gives_the_canaries_no_aspect(criteria):
    """The simulated VFS judge follows the rubric: an answer earns only the aspects it addresses, so no canary
    earns one (none says anything about the picture; the injected score line is an echo), and an answer that
    addresses them does."""
    from benchwright.creation import prompts as creation_prompts
    from benchwright.creation import vfs
    from benchwright.simulate import complete

    item = _sample_item()
    if criteria:
        item["visual_factuality_criteria"], item["ground_truth"] = criteria, None
    reference = "A plain answer."
    right = item["visual_factuality_criteria"].replace("\n", " ")
    fair = {"position_bias": 0.0, "malformed_rate": 0.0}
    for answer, earns in [*((canaries.answer(kind), False) for kind in canaries.KINDS), (right, True)]:
        messages = creation_prompts.vfs_judge_messages(item, reference, answer, None)
        # (the injection canary's "Response A ...: 0/10" line equals the judge's own for A, read as an echo: B's
        # score, the VFS, parses, as in creation_steps.vfs_rows)
        _, score_b, _ = vfs.vfs_scores(complete("sim/fair-judge", messages, fair, 0).text, (reference, answer))
        assert (score_b >= 8.0) if earns else (score_b == 0.0), (answer[:40], score_b)
