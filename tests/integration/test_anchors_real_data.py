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
