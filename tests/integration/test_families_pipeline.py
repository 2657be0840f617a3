"""Judge self-preference on the demo subset: with each simulated judge given the family of one candidate
(none of them favours a family), judge_self_preference has a row per judge and benchmark and its WARN check
does not fire; a panel's agreement row carries its effective number of judges. And through the pipeline on URS:
a simulated judge given a known self-preference (benchwright.simulate.house_style) has it recovered within its
interval and the check warns, while a judge with none has an interval covering 0."""

import dagster as dg
import duckdb
import pandas as pd
import pytest

from scripts.orchestrate import materialize_everything, sync_partitions
from tests.integration.test_panels_and_comparisons import HARSH, write_panels
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, SMALLER, check_results, materialize, pick, \
    resources_for, write_registry

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
        # The smaller sample: fewer MMMT-IF turns and GAP items, which self-preference (Creation, URS) does not read.
        summary = materialize_everything(instance, resources, asset_config=SMALLER)
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


PLANTED = 1.5  # points of URS's 1-10 scale


def test_a_simulated_judges_planted_self_preference_is_recovered_within_its_interval(tmp_path):
    """URS only (16 questions, two samples each): two candidates of families alpha and beta of equal skill; the
    alpha judge adds PLANTED points to answers in its family's house style, the beta judge nothing, the gamma
    judge (no candidate of its family) gives the others a consensus. The families are params, as the simulator
    sees them and derive_family reads them."""
    models = {f"{family}-writer": {"model": f"sim/{family}-writer", "role": "candidate",
                                   "params": {"skill": 0.6, "verbosity": 1.0, "family": family}}
              for family in ("alpha", "beta")}
    judges = {f"{family}-judge": {"model": f"sim/{family}-judge", "role": "judge",
                                  "params": {"family": family, "self_preference": planted}}
              for family, planted in (("alpha", PLANTED), ("beta", 0.0), ("gamma", 0.0))}
    write_registry(tmp_path, models, judges)
    resources = resources_for(tmp_path)
    warehouse = resources["warehouse"]
    with dg.instance_for_test() as instance:
        sync_partitions(instance, resources["registry"], log=lambda _msg: None)
        assert materialize(["urs_items", "urs_references"], instance, resources).success
        for model in models:
            assert materialize(["urs_generations"], instance, resources, partition_key=model).success
            for judge in judges:
                key = dg.MultiPartitionKey({"model": model, "judge": judge})
                assert materialize(["urs_judgments"], instance, resources, partition_key=key).success
        result = materialize(["judge_self_preference"], instance, resources)
    assert result.success
    # Each writer signs with its family's mark: what the alpha judge recognises.
    answers = warehouse.query("SELECT model, response FROM generations WHERE benchmark = 'urs'")
    assert len(answers) == 2 * 2 * 16
    assert all(text.endswith(f"— {model.split('-')[0]}") for model, text in answers.itertuples(index=False))

    table = warehouse.query("SELECT * FROM judge_self_preference").set_index(["benchmark", "judge"])
    assert set(table.index) == {("urs", "alpha-judge"), ("urs", "beta-judge")}  # gamma has no candidate
    planted, unbiased = table.loc[("urs", "alpha-judge")], table.loc[("urs", "beta-judge")]
    for row in (planted, unbiased):
        assert row["items"] == 16 and row["own_family_models"] == 1 and row["upper"] - row["lower"] < 1.0
    assert planted["lower"] <= PLANTED <= planted["upper"] and planted["flagged"]
    assert unbiased["lower"] <= 0 <= unbiased["upper"] and not unbiased["flagged"]
    check = check_results(result)["judge_self_preference_below_threshold"]
    assert not check.passed and check.severity == dg.AssetCheckSeverity.WARN
    assert [(f["judge"], f["benchmark"]) for f in check.metadata["flagged"].value] == [("alpha-judge", "urs")]
