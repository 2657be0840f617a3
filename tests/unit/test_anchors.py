"""benchwright.anchors on hand-built judgments and on responses simulated from a known 2PL model."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchwright import anchors, ratings


def simulated(models=60, items=300, seed=0):
    """Binomial cells from σ(a·θ + d), two to six battles each (as Arena-Hard's weights give)."""
    rng = np.random.default_rng(seed)
    theta, a, d = rng.normal(size=models), rng.lognormal(0, 0.3, items), rng.normal(0, 1.2, items)
    p = 1 / (1 + np.exp(-(np.outer(theta, a) + d)))
    weight = rng.choice([2.0, 4.0, 6.0], size=(models, items))
    points = rng.binomial(weight.astype(int), p).astype(float)
    responses = anchors.ItemResponses([f"m{i}" for i in range(models)], [f"q{j}" for j in range(items)], points, weight)
    return responses, theta, a, d


def test_item_responses_count_battles_from_each_side():
    rows = pd.DataFrame({
        "model": ["x", "x", "x", "x", "base"], "item_id": ["1", "1", "2", "2", "1"], "judge_order": [1, 2, 1, 2, 1],
        "candidate_position": ["B", "A", "B", "A", "B"], "verdict": ["A>>B", "A=B", "B>A", "A>B", "A>B"],
        "parse_ok": [True, True, True, True, True]})
    found = anchors.item_responses(rows, "base", ratings.arena_hard_weights(3))
    cells = {(m, i): (found.points[r, c], found.weight[r, c]) for r, m in enumerate(found.models)
             for c, i in enumerate(found.items)}
    # item 1: a strong loss (3 battles, 0 won) and a tie (1 battle, half won); item 2: two plain wins.
    assert cells[("x", "1")] == (0.5, 4.0) and cells[("x", "2")] == (2.0, 2.0)
    # The baseline judged against itself is the candidate in position B: A>B is its loss.
    assert cells[("base", "1")] == (0.0, 1.0) and np.isnan(cells[("base", "2")][0])
    assert anchors.full_scores(found)[found.models.index("x")] == pytest.approx(100 * 2.5 / 6)


def test_fit_recovers_the_simulated_items_and_abilities():
    responses, theta, a, d = simulated()
    model = anchors.fit_item_model(responses)
    assert stats.pearsonr(model.intercept, d)[0] > 0.95
    assert stats.pearsonr(model.discrimination, a)[0] > 0.6
    assert stats.spearmanr(model.ability, theta)[0] > 0.97
    assert model.weight_slope == pytest.approx(0.0, abs=0.3)  # weights drawn independently of the outcome


def test_every_item_an_anchor_gives_the_full_score_exactly():
    responses, *_ = simulated(models=20, items=60)
    model = anchors.fit_item_model(responses)
    every = anchors.AnchorSet(model, np.arange(60), np.full(60, 1 / 60))
    for row in range(3):
        found = anchors.estimate(every, responses.points[row], responses.weight[row], rounds=20)
        assert found.anchor_estimate == pytest.approx(anchors.full_scores(responses)[row])
        assert found.irt_estimate == pytest.approx(found.anchor_estimate)


def test_anchors_are_distinct_items_whose_weights_are_cluster_shares():
    responses, *_ = simulated()
    chosen = anchors.choose_anchors(anchors.fit_item_model(responses), 40, seed=3)
    assert len(set(chosen.anchors)) == len(chosen.anchors) <= 40
    assert chosen.weights.sum() == pytest.approx(1.0) and np.all(chosen.weights > 0)
    assert chosen.item_ids == [responses.items[i] for i in chosen.anchors]


def test_held_out_estimates_beat_as_many_random_items():
    """Same number of items, chosen at random and averaged plainly: the anchors' estimate errs less."""
    responses, *_ = simulated(models=60, items=300, seed=1)
    found = anchors.held_out_validation(responses, 40, 60, split=0, rounds=100)
    held = [responses.models.index(m) for m in found.held_out]
    rng = np.random.default_rng(9)
    random_errors = []
    for _ in range(50):
        pick = rng.choice(300, 60, replace=False)
        plain = 100 * responses.points[np.ix_(held, pick)].sum(1) / responses.weight[np.ix_(held, pick)].sum(1)
        random_errors.append(np.median(np.abs(plain - found.full)))
    assert np.median(np.abs(found.errors)) < np.mean(random_errors)
    assert found.spearman > 0.95 and found.coverage >= 0.8
    assert np.all(found.low <= found.estimated) and np.all(found.estimated <= found.high)


def test_a_missing_anchor_is_left_out_and_no_anchor_at_all_is_refused():
    responses, *_ = simulated(models=20, items=60)
    chosen = anchors.choose_anchors(anchors.fit_item_model(responses), 12)
    points, weight = responses.points[0, chosen.anchors].copy(), responses.weight[0, chosen.anchors].copy()
    points[0] = weight[0] = np.nan
    assert anchors.estimate(chosen, points, weight, rounds=10).anchors_answered == len(chosen.anchors) - 1
    with pytest.raises(ValueError, match="no anchor"):
        anchors.estimate(chosen, np.full_like(points, np.nan), np.full_like(weight, np.nan))


def judgment_rows(responses: anchors.ItemResponses, source: str = "benchwright", judge: str = "j") -> pd.DataFrame:
    """Pairwise judgment rows giving each simulated cell: per battle one judgment, won (A>B with the candidate as A)
    or lost."""
    rows = []
    for m, model in enumerate(responses.models):
        for i, item in enumerate(responses.items):
            won, battles = int(responses.points[m, i]), int(responses.weight[m, i])
            rows += [{"source": source, "judge": judge, "model": model, "item_id": item, "judge_order": 2,
                      "candidate_position": "A", "verdict": "A>B" if k < won else "B>A", "parse_ok": True}
                     for k in range(battles)]
    return pd.DataFrame(rows)


def test_anchor_tables_fit_what_has_enough_and_say_why_not_otherwise():
    big, *_ = simulated(models=12, items=60, seed=4)
    small, *_ = simulated(models=5, items=60, seed=5)
    judgments = pd.concat([judgment_rows(big, judge="big"), judgment_rows(small, judge="small"),
                           judgment_rows(small, source="elsewhere", judge="small")])
    sets = anchors.pairwise_sets(judgments, {"benchwright": "base"}, {}, set())
    fits, items = anchors.anchor_tables(sets)
    fits = fits.set_index("judge")
    assert list(fits.index) == ["big", "small"]  # a source without a baseline is not fitted at all
    assert (fits.loc["big", "status"], fits.loc["big", "anchors"]) == ("fitted", anchors.anchor_count(60))
    assert fits.loc["small", "status"] == "not enough data" and fits.loc["small", "anchors"] == 0
    assert "5 models" in fits.loc["small", "reason"] and set(items["judge"]) == {"big"}
    estimates, problems = anchors.estimate_table(sets, fits.reset_index(), items, rounds=20)
    assert problems == [] and set(estimates["judge"]) == {"big"} and len(estimates) == 12
    assert np.allclose(estimates["observed_score"], anchors.full_scores(big)[[big.models.index(m) for m in
                                                                             estimates["model"]]])
    stored = anchors.anchor_set_from_rows(items, fits.loc["big", "weight_slope"])
    assert stored.weights.sum() == pytest.approx(1.0) and len(stored.anchors) == fits.loc["big", "anchors"]


def test_anchored_items_read_a_snapshot_and_say_why_a_benchmark_has_none(tmp_path):
    import duckdb

    snapshot = tmp_path / "analyst.duckdb"
    with duckdb.connect(str(snapshot)) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    found, reasons = anchors.anchored_items(str(snapshot))
    assert found == {} and "no anchor tables" in reasons[0]

    fits = pd.DataFrame([
        {"benchmark": "creation", "source": "benchwright", "judge": "j1", "status": "fitted", "reason": ""},
        {"benchmark": "creation", "source": "benchwright", "judge": "j2", "status": "fitted", "reason": ""},
        {"benchmark": "interop", "source": "arena_hard:x", "judge": "e", "status": "fitted", "reason": ""}])
    items = pd.DataFrame({"benchmark": ["creation"] * 4 + ["interop"], "item_id": ["a", "b", "b", "c", "q"],
                          "is_anchor": [True, False, True, True, True]})
    with duckdb.connect(str(snapshot)) as con:
        con.execute("CREATE TABLE anchor_fits AS SELECT * FROM fits")
        con.execute("CREATE TABLE anchor_items AS SELECT * FROM items")
    found, reasons = anchors.anchored_items(str(snapshot))
    # The union of the judges' anchors; an imported source has nothing to run.
    assert found == {"creation": ["a", "b", "c"]} and reasons == ["urs: no judgments in the full home yet"]

    with duckdb.connect(str(snapshot)) as con:
        con.execute("UPDATE anchor_fits SET status = 'not enough data', reason = '4 models' WHERE benchmark = 'creation'")
        con.execute("DELETE FROM anchor_items WHERE benchmark = 'creation'")
    found, reasons = anchors.anchored_items(str(snapshot))
    assert found == {} and reasons == ["creation (benchwright / j1): 4 models", "creation (benchwright / j2): 4 models",
                                       "urs: no judgments in the full home yet"]


def test_urs_scores_are_fitted_and_estimated_on_their_own_scale():
    """URS's final scores (1-10): a cell is (score − 1) / 9 of a point; the estimates and observed scores come back
    on the 1-10 scale, the observed one being the model's mean final score."""
    responses, *_ = simulated(models=12, items=60, seed=6)
    rng = np.random.default_rng(0)
    rows = pd.DataFrame([{"model": model, "judge": "j", "item_id": item, "reference_model": "ref",
                          "score": float(np.clip(round(1 + 9 * responses.points[m, i] / responses.weight[m, i]
                                                       + rng.normal(0, 0.5)), 1, 10))}
                         for m, model in enumerate(responses.models) for i, item in enumerate(responses.items)])
    sets = anchors.urs_sets(rows)
    fits, items = anchors.anchor_tables(sets)
    assert fits.loc[0, "status"] == "fitted" and (fits.loc[0, "score_min"], fits.loc[0, "score_max"]) == (1, 10)
    assert fits.loc[0, "benchmark"] == "urs" and fits.loc[0, "baseline"] == "ref"
    estimates, problems = anchors.estimate_table(sets, fits, items, rounds=20)
    means = rows.groupby("model")["score"].mean()
    assert problems == [] and np.allclose(estimates.set_index("model")["observed_score"], means[estimates["model"]])
    assert estimates["estimate"].between(1, 10).all()
    assert stats.spearmanr(estimates["estimate"], estimates["observed_score"])[0] > 0.9
