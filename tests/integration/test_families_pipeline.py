"""Judge self-preference on the demo subset: with each simulated judge given the family of one candidate
(none of them favours a family), judge_self_preference has a row per judge and benchmark and its WARN check
does not fire; a panel's agreement row carries its effective number of judges."""

import dagster as dg
import duckdb
import pandas as pd
import pytest

from scripts.orchestrate import materialize_everything
from tests.integration.test_panels_and_comparisons import HARSH, write_panels
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, check_results, materialize, pick, resources_for, \
    write_registry

FAMILIES = {"sim-strong": "alpha", "sim-average": "beta", "sim-weak": "gamma",
            "sim-fair-judge": "alpha", "sim-biased-judge": "beta", "sim-harsh-judge": "gamma"}


def test_the_demo_judges_show_no_false_self_preference(tmp_path):
    models = pick(SHIPPED_MODELS, "sim-baseline", "sim-describer", "sim-strong", "sim-average", "sim-weak")
    judges = {**pick(SHIPPED_JUDGES, "sim-fair-judge", "sim-biased-judge"), "sim-harsh-judge": dict(HARSH)}
    for entries in (models, judges):
        for slug in entries:
            if slug in FAMILIES:
                entries[slug] = {**entries[slug], "family": FAMILIES[slug]}
    write_registry(tmp_path, models, judges)
    write_panels(tmp_path, ["sim-fair-judge", "sim-biased-judge", "sim-harsh-judge"])
    resources = resources_for(tmp_path)
    warehouse = resources["warehouse"]
    with dg.instance_for_test() as instance:
        summary = materialize_everything(instance, resources)
        assert summary["failed_runs"] == 0, summary
        result = materialize(["judge_self_preference"], instance, resources)
        assert result.success
    table = warehouse.query("SELECT * FROM judge_self_preference")
    assert set(zip(table["benchmark"], table["judge"])) == {
        (benchmark, judge) for benchmark in ("creation_pairwise", "urs")
        for judge in ("sim-fair-judge", "sim-biased-judge", "sim-harsh-judge")}
    assert (table["own_family_models"] == 1).all() and (table["items"] > 5).all()
    assert (table["lower"] <= table["self_preference"]).all() and (table["self_preference"] <= table["upper"]).all()
    assert not table["flagged"].any(), table
    check = check_results(result)["judge_self_preference_below_threshold"]
    assert check.passed and check.severity == dg.AssetCheckSeverity.WARN
    whole = warehouse.query("SELECT * FROM panel_agreement WHERE judge_a = '*'").iloc[0]
    assert 1.0 <= whole["effective_judges"] <= 3.0
    with duckdb.connect(str(tmp_path / "analyst.duckdb"), read_only=True) as con:
        report = con.sql("SELECT * FROM judge_report").df().set_index("judge")
    assert report.loc["sim-panel", "panel_effective_judges"] == pytest.approx(whole["effective_judges"])
    assert pd.isna(report.loc["sim-fair-judge", "panel_effective_judges"])
    fair = table.set_index(["judge", "benchmark"]).loc[("sim-fair-judge", "urs")]
    assert f"urs={fair['self_preference']:.3f} [{fair['lower']:.3f}, " in report.loc["sim-fair-judge", "self_preference"]
    assert "!" not in "".join(report["self_preference"].dropna())
