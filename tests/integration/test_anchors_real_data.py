"""Acceptance of issue #33 item 6 on real data: small anchor sets estimate held-out models' ko-arena-hard scores.

scripts/anchors_validation.py runs ten splits and prints the README's table; here two of them (fewer bootstrap
rounds: the interval is not what is asserted), each held to the issue's targets: fit on 50 models, at most 100
prompts, and on the other 26 models Spearman ≥ 0.95 with the full scores and median |error| ≤ 2 points.
"""

import numpy as np
import pytest

from benchwright import anchors
from scripts import anchors_validation as validation

pytestmark = pytest.mark.skipif(not validation.KO_JUDGMENTS.is_dir(),
                                reason=f"shared external data not present at {validation.KO_JUDGMENTS}")


@pytest.fixture(scope="module")
def responses():
    return validation.ko_responses()


def test_full_scores_are_the_published_win_rates(responses):
    """The score the anchors estimate is the benchmark's own: the published `score` of every model but the
    baseline (whose published row is pinned at 50; ours is its judged self-battles)."""
    import csv

    board = validation.KO / "leaderboard" / "arena_hard_leaderboard_20250423_ensemble" / "no_control.csv"
    with board.open(encoding="utf-8") as handle:
        published = {row["model"]: float(row["score"]) for row in csv.DictReader(handle)}
    ours = dict(zip(responses.models, anchors.full_scores(responses)))
    assert set(ours) == set(published) and len(ours) == 76 and len(responses.items) == 500
    assert all(round(ours[m], 2) == published[m] for m in published if m != validation.KO_BASELINE)


@pytest.mark.parametrize("split", [0, 1])
def test_held_out_models_meet_the_issue_targets(responses, split):
    found = anchors.held_out_validation(responses, validation.KNOWN_MODELS, 100, split, rounds=50)
    assert found.anchors <= 100 and len(found.held_out) == 26
    assert found.spearman >= validation.LEAST_SPEARMAN
    assert np.median(np.abs(found.errors)) <= validation.LARGEST_MEDIAN_ERROR
    assert np.all(found.low <= found.estimated) and np.all(found.estimated <= found.high)


# --- the same through the Dagster assets ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def anchored_home(tmp_path_factory):
    import dagster as dg

    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, materialize, pick, resources_for, write_registry

    home = tmp_path_factory.mktemp("anchors")
    write_registry(home, pick(SHIPPED_MODELS, "sim-baseline"), pick(SHIPPED_JUDGES, "sim-fair-judge"))
    resources = resources_for(home)
    with dg.instance_for_test() as instance:
        imported = materialize(["interop_arena_hard"], instance, resources,
                               run_config={"ops": {"interop_arena_hard": {"config": {"enabled": True,
                                                                                      "style_metadata": ""}}}})
        fitted = materialize(["anchor_sets", "anchor_estimates"], instance, resources,
                             run_config={"ops": {"anchor_estimates": {"config": {"bootstrap_rounds": 50}}}})
        yield {"resources": resources, "imported": imported, "fitted": fitted}


def test_assets_fit_ko_arena_hard(anchored_home):
    """The imported source gets a set of 100 anchors out of 500 prompts (our own Creation has no judgments here,
    so no row); every schema check passes."""
    warehouse = anchored_home["resources"]["warehouse"]
    assert anchored_home["imported"].success and anchored_home["fitted"].success
    assert all(check.passed for check in anchored_home["fitted"].get_asset_check_evaluations())
    fits = warehouse.query("SELECT * FROM anchor_fits").set_index("source")
    ko = fits.loc["arena_hard:ko-arena-hard-v0.1"]
    assert (ko["status"], ko["models"], ko["items"], ko["anchors"]) == ("fitted", 76, 500, 100)
    assert list(fits.index) == ["arena_hard:ko-arena-hard-v0.1"] and fits["reason"].isna().all()
    items = warehouse.query("SELECT * FROM anchor_items")
    assert len(items) == 500 and items["is_anchor"].sum() == 100
    assert items.loc[items["is_anchor"], "weight"].sum() == pytest.approx(1.0)
    assert set(items["source"]) == {"arena_hard:ko-arena-hard-v0.1"}


def test_asset_estimates_sit_beside_the_full_scores(anchored_home):
    """In the full home every model has all 500 prompts judged: its observed score is its published score, and the
    estimate from the anchors alone lies near it (in-sample: the anchors were chosen on these very models)."""
    warehouse = anchored_home["resources"]["warehouse"]
    table = warehouse.query("SELECT * FROM anchor_estimates").set_index("model")
    assert len(table) == 76 and (table["items_judged"] == 500).all() and (table["anchors_answered"] == 100).all()
    errors = (table["estimate"] - table["observed_score"]).abs()
    assert errors.median() <= validation.LARGEST_MEDIAN_ERROR
    assert ((table["estimate_low"] <= table["estimate"]) & (table["estimate"] <= table["estimate_high"])).all()
