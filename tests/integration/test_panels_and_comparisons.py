"""Judge panels and comparisons on the demo subset: a panel's rows are judgments like a judge's, judge_report
carries its members' agreement, the comparison views read right, and a member added to a panel makes the
panel stale by Dagster's own staleness (an existing judge) and automation (a new judge)."""

import duckdb
import dagster as dg
# The resolver's statuses, as scripts/orchestrate.py reads them (Dagster exports no public name).
from dagster._core.definitions.data_version import StaleStatus
import pandas as pd
import pytest
import yaml

from benchwright import agreement
from definitions import defs
from scripts.compare import comparison
from scripts.orchestrate import materialize_everything, observe_sources, stale_status_resolver, sync_partitions
from tests.integration.test_sensors import requested, run_requested, sensor_tick
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, SMALLER, pick, resources_for, write_registry

ITEMS = 15  # sample items, each judged in two orders
MODELS = pick(SHIPPED_MODELS, "sim-baseline", "sim-describer", "sim-strong", "sim-weak")
HARSH = {"model": "sim/fair-judge", "display_name": "Harsh judge", "role": "judge",
         "params": {"position_bias": 0.3, "malformed_rate": 0.1}}
LENIENT = {"model": "sim/fair-judge", "display_name": "Lenient judge", "role": "judge",
           "params": {"position_bias": 0.1, "malformed_rate": 0.05}}
JUDGES = {**pick(SHIPPED_JUDGES, "sim-fair-judge", "sim-biased-judge"), "sim-harsh-judge": HARSH}
PANEL = dg.AssetKey("creation_panel_pairwise_judgments")


def write_panels(home, members):
    (home / "panels.yaml").write_text(yaml.safe_dump({"sim-panel": {"display_name": "Panel", "members": members}}))


def expected_panel_verdicts(warehouse, members) -> pd.Series:
    """The majority rule written out again over the members' stored rows: strict majority of parsed verdicts."""
    rows = warehouse.query("SELECT model, item_id, judge_order, verdict FROM creation_pairwise_judgments "
                           "WHERE list_contains(?, judge) AND parse_ok AND error IS NULL", [members])

    def rule(votes):
        top = votes.value_counts()
        return top.index[0] if top.iloc[0] * 2 > len(votes) else "A=B"

    return rows.groupby(["model", "item_id", "judge_order"])["verdict"].agg(rule)


def panel_rows(warehouse) -> pd.DataFrame:
    return warehouse.query("SELECT * FROM creation_pairwise_judgments WHERE judge = 'sim-panel' ORDER BY ALL")


def snapshot(home):
    return duckdb.connect(str(home / "analyst.duckdb"), read_only=True)


def test_panel_judgments_agreement_comparisons_and_staleness(tmp_path):
    write_registry(tmp_path, MODELS, JUDGES)
    write_panels(tmp_path, ["sim-fair-judge", "sim-biased-judge"])
    resources = resources_for(tmp_path)
    warehouse = resources["warehouse"]
    with dg.instance_for_test() as instance:
        # Panels are Creation's and URS's: MMMT-IF and GAP run on the smaller sample (SMALLER), as below.
        summary = materialize_everything(instance, resources, asset_config=SMALLER)
        assert summary["failed_runs"] == 0, summary

        # --- the panel's rows are judgments, by the rule, with the panel's slug as judge ---------------------
        rows = panel_rows(warehouse)
        assert len(rows) == 2 * 2 * ITEMS  # two models, every item in both orders
        parsed = rows[rows["parse_ok"]].set_index(["model", "item_id", "judge_order"])["verdict"]
        expected = expected_panel_verdicts(warehouse, ["sim-fair-judge", "sim-biased-judge"])
        assert parsed.sort_index().equals(expected.sort_index())
        assert (parsed == "A=B").any(), "the two members must split somewhere for the tie rule to be exercised"
        assert rows["request_key"].isna().all() and rows["source"].eq("benchwright").all()
        vfs = warehouse.query("SELECT count(*) AS n FROM creation_vfs_judgments WHERE judge = 'sim-panel'")
        assert vfs["n"][0] == 2 * 14
        board = warehouse.query("SELECT DISTINCT judge FROM creation_leaderboard")
        assert "sim-panel" in set(board["judge"])
        # URS: the mean of the members' parsed final scores, question by question, in the URS leaderboard.
        urs = warehouse.query("SELECT model, item_id, judge, final_score FROM urs_judgments WHERE parse_ok AND "
                              "error IS NULL").pivot_table(index=["model", "item_id"], columns="judge",
                                                          values="final_score")
        means = urs[["sim-fair-judge", "sim-biased-judge"]].mean(axis=1)
        assert urs["sim-panel"].to_numpy() == pytest.approx(means.to_numpy(), nan_ok=True)
        urs_board = warehouse.query("SELECT DISTINCT judge FROM urs_leaderboard")
        assert "sim-panel" in set(urs_board["judge"])
        failed = [c for c in summary["checks"] if "panel" in c["check"] and not c["passed"]]
        assert [c["check"] for c in summary["checks"] if c["check"] == "panel_pairwise_parse_failures"] and not failed

        # --- judge_report: the members' agreement on the panel's row, computed again here ------------------
        with snapshot(tmp_path) as con:
            report = con.sql("SELECT * FROM judge_report").df().set_index("judge")
            pairs = con.sql("SELECT * FROM compare_judges WHERE model = 'all'").df()
            models = con.sql("SELECT * FROM compare_models").df()
        members = warehouse.query(
            "SELECT model, item_id, judge_order, judge, verdict FROM creation_pairwise_judgments "
            "WHERE judge IN ('sim-fair-judge', 'sim-biased-judge') AND parse_ok AND error IS NULL")
        wide = members.pivot_table(index=["model", "item_id", "judge_order"], columns="judge", values="verdict",
                                   aggfunc="first").dropna()
        kappa = agreement.cohen_kappa(wide["sim-biased-judge"].tolist(), wide["sim-fair-judge"].tolist())
        panel = report.loc["sim-panel"]
        assert panel["panel_units"] == len(wide)
        assert panel["panel_mean_cohen_kappa"] == pytest.approx(kappa)
        assert panel["panel_exact_agreement"] == pytest.approx((wide.nunique(axis=1) == 1).mean())
        assert -1 <= panel["panel_fleiss_kappa"] <= 1 and panel["panel_cohen_kappas"].startswith("sim-biased-judge~")
        failures = warehouse.query("SELECT count(*) AS n FROM creation_pairwise_judgments WHERE "
                                   "judge IN ('sim-fair-judge', 'sim-biased-judge') AND NOT parse_ok AND error IS NULL")
        assert panel["panel_member_parse_failures"] == failures["n"][0]
        assert report.loc["sim-fair-judge", ["panel_units", "panel_fleiss_kappa"]].isna().all()

        # --- comparisons: the panel against a member, and two candidates --------------------------------
        one = pairs[(pairs["judge_a"] == "sim-panel") & (pairs["judge_b"] == "sim-fair-judge")].iloc[0]
        back = pairs[(pairs["judge_a"] == "sim-fair-judge") & (pairs["judge_b"] == "sim-panel")].iloc[0]
        assert one["win_delta"] == -back["win_delta"] and one["agreement"] == back["agreement"]
        assert one["compared"] > 0 and 0 <= one["agreement"] <= 1
        strong_weak = models[(models["model_a"] == "sim-strong") & (models["model_b"] == "sim-weak")
                             & (models["judge"] == "sim-fair-judge")].iloc[0]
        assert strong_weak["compared"] == ITEMS and strong_weak["win_delta"] > 0
        text = comparison(tmp_path / "analyst.duckdb", "models", "sim-weak", "sim-strong", "sim-fair-judge")
        assert "model sim-weak (a) vs sim-strong (b)" in text and f"{strong_weak['flipped']} items flipped" in text

        # --- an existing judge joins the panel: Dagster's staleness says the panel is stale, nothing else ---
        write_panels(tmp_path, ["sim-fair-judge", "sim-biased-judge", "sim-harsh-judge"])
        sync_partitions(instance, resources["registry"], lambda _m: None)
        observe_sources(instance, resources, lambda _m: None)
        graph = defs.resolve_asset_graph()
        resolver = stale_status_resolver(instance, graph)
        key = dg.MultiPartitionKey({"model": "sim-strong", "judge": "sim-panel"})
        assert resolver.get_status(PANEL, key) == StaleStatus.STALE
        judge_key = dg.MultiPartitionKey({"model": "sim-strong", "judge": "sim-fair-judge"})
        assert resolver.get_status(dg.AssetKey("creation_pairwise_judgments"), judge_key) == StaleStatus.FRESH
        again = materialize_everything(instance, resources, asset_config=SMALLER)
        assert again["api_calls"] == 0 and (PANEL.to_user_string(), key) in again["materialized"]
        assert "sim-harsh-judge" in panel_rows(warehouse)["raw_text"].iloc[0]
        members3 = ["sim-fair-judge", "sim-biased-judge", "sim-harsh-judge"]
        parsed = panel_rows(warehouse).query("parse_ok").set_index(["model", "item_id", "judge_order"])["verdict"]
        assert parsed.sort_index().equals(expected_panel_verdicts(warehouse, members3).sort_index())
        pair_rows = warehouse.query("SELECT * FROM panel_agreement WHERE judge_a <> '*'")
        assert len(pair_rows) == 3

        # --- a new judge joins the panel: the sensor adds it, automation judges, then rebuilds the panel -----
        write_registry(tmp_path, MODELS, {**JUDGES, "sim-lenient-judge": LENIENT})
        write_panels(tmp_path, [*members3, "sim-lenient-judge"])
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance)
        sensor_tick(instance, resources)
        assert "sim-lenient-judge" in instance.get_dynamic_partitions("judges")
        panel_runs = set()
        for _ in range(6):
            tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=tick.cursor)
            wanted = requested(tick, instance)
            if not wanted:
                break
            panel_runs |= wanted.get(PANEL.to_user_string(), set())
            run_requested(wanted, instance, resources)
        assert {"sim-panel|sim-strong", "sim-panel|sim-weak"} <= panel_runs
        assert "sim-lenient-judge" in panel_rows(warehouse)["raw_text"].iloc[0]
