"""The URS graph through Dagster on the shipped registry and sample: leaderboard, grid, bias, alignment,
checks, and the analyst snapshot, read from the session's shared demo home; the tests that need another
registry or a garbage judge build their own."""

import csv
import json
from collections import Counter

import dagster as dg
import duckdb
import pytest

from benchwright.paths import ROOT
from scripts.orchestrate import sync_partitions
from tests.support.pipeline import (SHIPPED_JUDGES, SHIPPED_MODELS, check_results, materialize, pick, resources_for,
                                    write_registry)

SAMPLE = ROOT / "sample_data" / "urs" / "questions.csv"
CANDIDATES = sorted(slug for slug, entry in SHIPPED_MODELS.items() if entry.get("role") == "candidate")
JUDGES = sorted(SHIPPED_JUDGES)


@pytest.fixture(scope="module")
def demo(shipped_demo):
    """The whole graph on the shipped registry and the sample (tests/conftest.py)."""
    return shipped_demo


def _sample_cells() -> Counter:
    with SAMPLE.open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    language = {"EN": "en", "CN": "zh"}
    return Counter((r["user_intent"], language[r["language"]]) for r in rows)


def test_every_run_succeeds_and_every_urs_check_passes(demo):
    assert demo["first"]["failed_runs"] == 0
    urs_checks = [c for c in demo["first"]["checks"] if c["asset"].startswith("urs_")]
    assert {"urs_parse_failures", "urs_cross_parse_failures", "schema_and_ranges"} <= {c["check"] for c in urs_checks}
    assert [c for c in urs_checks if not c["passed"]] == []


def test_leaderboard_shows_every_candidate_per_intent_and_language(demo):
    board = demo["warehouse"].query("SELECT * FROM urs_leaderboard WHERE intent <> 'all' AND language <> 'all'")
    items = demo["warehouse"].query("SELECT intent, language, count(*) AS n FROM urs_items GROUP BY ALL")
    cells = {(r.intent, r.language): r.n for r in items.itertuples()}
    # The sample covers all seven intents in both languages (counted from the file, not the loader).
    assert len(_sample_cells()) == 14 and sum(_sample_cells().values()) == sum(cells.values())
    assert {(r.judge, r.model, r.intent, r.language) for r in board.itertuples()} == {
        (j, m, i, lang) for j in JUDGES for m in CANDIDATES for (i, lang) in cells}
    # Every judged item is either a score or a counted parse failure.
    assert all(r.n + r.parse_failures == cells[(r.intent, r.language)] for r in board.itertuples())
    assert board["simulated"].all() and board["model_display"].str.endswith("[simulated]").all()
    assert board["final_score"].dropna().between(1, 10).all()
    overall = demo["warehouse"].query("SELECT * FROM urs_leaderboard WHERE intent = 'all' AND language = 'all' "
                                      "AND judge = 'sim-fair-judge'").set_index("model")["final_score"]
    assert overall["sim-strong"] > overall["sim-weak"] + 0.5  # the fair judge sees the skill settings


def test_two_samples_per_question_go_to_the_shared_generations_table(demo):
    df = demo["warehouse"].query("SELECT model, sample_index, count(*) AS n, count(DISTINCT request_key) AS keys "
                                 "FROM generations WHERE benchmark = 'urs' GROUP BY ALL")
    items = len(demo["warehouse"].query("SELECT item_id FROM urs_items"))
    assert {(r.model, r.sample_index) for r in df.itertuples()} == {(m, s) for m in CANDIDATES for s in (0, 1)}
    assert (df["n"] == items).all() and (df["keys"] == items).all()


def test_the_planted_pii_is_redacted_counted_and_shown_masked(demo):
    event = demo["instance"].get_latest_materialization_event(dg.AssetKey("urs_items"))
    metadata = event.asset_materialization.metadata
    assert metadata["pii_redactions"].value == 2
    found = metadata["pii_found"].value
    assert found["by_kind"] == {"email": 1, "phone": 1}
    assert all("[REDACTED:" in e["masked"] and "@" not in e["masked"] for e in found["examples"])
    stored = demo["warehouse"].query("SELECT question FROM urs_items WHERE pii_redactions > 0")["question"].tolist()
    assert len(stored) == 1 and "[REDACTED:email]" in stored[0] and "[REDACTED:phone]" in stored[0]
    assert "example.com" not in json.dumps(found)


def test_grid_bias_and_alignment_are_queryable_from_the_analyst_snapshot(demo):
    con = duckdb.connect(demo["warehouse"].snapshot_path, read_only=True)
    try:
        grid = con.execute("SELECT judge, reference_model, model, mean_score, rank FROM urs_cross_validation_grid").df()
        assert len(grid) == len(JUDGES) * len(CANDIDATES) ** 2
        assert grid["mean_score"].between(1, 10).all() and grid["rank"].min() == 1
        bias = con.execute("SELECT judge, bias, models FROM urs_rating_bias_by_judge").df().set_index("judge")
        assert set(bias.index) == set(JUDGES) and (bias["models"] == len(CANDIDATES)).all()
        # Recompute bias(A) from the raw grid judgments with SQL: mean over models of (own-reference mean − 8).
        recomputed = con.execute("""
            SELECT judge, avg(model_mean) - 8 AS bias FROM (
                SELECT judge, model, avg(final_score) AS model_mean FROM urs_cross_judgments
                WHERE model = reference_model AND parse_ok AND error IS NULL GROUP BY ALL)
            GROUP BY judge""").df().set_index("judge")["bias"]
        for judge in JUDGES:
            assert bias.loc[judge, "bias"] == pytest.approx(recomputed[judge])
        alignment = con.execute("SELECT * FROM urs_alignment").df()
        assert set(alignment["judge"]) == set(JUDGES)
        assert (alignment["n_intents"] == 7).all() and (alignment["n_models"] == len(CANDIDATES)).all()
        assert alignment["user_pearson_r"].between(-1, 1).all() and alignment["annotator_pearson_r"].between(-1, 1).all()
        assert alignment["simulated"].all()  # computed from simulated judges' scores, and labelled so
        excluded = con.execute("SELECT count(*) FROM urs_human_pairwise WHERE winner = 'undetermined'").fetchall()[0][0]
        compared = con.execute("SELECT sum(comparisons) / 2 FROM urs_bradley_terry").fetchall()[0][0]
        total = con.execute("SELECT count(*) FROM urs_human_pairwise").fetchall()[0][0]
        assert excluded > 0 and compared == total - excluded
        assert con.execute("SELECT count(*) FROM urs_leaderboard_overall").fetchall()[0][0] == len(JUDGES) * len(CANDIDATES)
    finally:
        con.close()


def test_a_garbage_judge_trips_the_blocking_parse_check_and_scores_nothing(tmp_path):
    write_registry(tmp_path, pick(SHIPPED_MODELS, "sim-baseline", "sim-strong"),
                   {"sim-garbage": {"model": "sim/garbage-judge", "role": "judge", "params": {"malformed_rate": 1.0}}})
    resources = resources_for(tmp_path)
    with dg.instance_for_test() as instance:
        sync_partitions(instance, resources["registry"], log=lambda _msg: None)
        materialize(["urs_items", "urs_references"], instance, resources)
        materialize(["urs_generations"], instance, resources, partition_key="sim-strong")
        result = materialize(["urs_judgments"], instance, resources,
                             partition_key=dg.MultiPartitionKey({"model": "sim-strong", "judge": "sim-garbage"}))
        check = check_results(result)["urs_parse_failures"]
        assert not result.success and not check.passed and check.severity == dg.AssetCheckSeverity.ERROR
        assert check.metadata["parse_failure_rate"].value == 1.0 and len(check.metadata["examples"].value) == 3
        materialize(["urs_leaderboard"], instance, resources)
    board = resources["warehouse"].query("SELECT * FROM urs_leaderboard WHERE intent = 'all' AND language = 'all'")
    items = len(resources["warehouse"].query("SELECT item_id FROM urs_items"))
    assert board["n"].tolist() == [0] and board["parse_failures"].tolist() == [items] and items == 16
    assert board["final_score"].isna().all()  # failures are counted, never turned into a score


def test_a_chosen_reference_model_answers_every_question(tmp_path):
    write_registry(tmp_path, pick(SHIPPED_MODELS, "sim-baseline", "sim-strong"), pick(SHIPPED_JUDGES, "sim-fair-judge"))
    resources = resources_for(tmp_path)
    with dg.instance_for_test() as instance:
        assert materialize(["urs_items"], instance, resources).success
        result = materialize(["urs_references"], instance, resources,
                             run_config={"ops": {"urs_references": {"config": {"reference_model": "sim-baseline"}}}})
    assert result.success
    refs = resources["warehouse"].query("SELECT * FROM urs_references")
    items = resources["warehouse"].query("SELECT item_id, reference_answer FROM urs_items")
    assert set(refs["item_id"]) == set(items["item_id"]) and (refs["reference_model"] == "sim-baseline").all()
    assert refs["answer"].notna().all() and refs["simulated"].all()
    # The model's answers replace the dataset's, they are not the same text.
    merged = refs.merge(items, on="item_id")
    assert (merged["answer"] != merged["reference_answer"]).all()


def test_alignment_without_a_dropped_file_writes_nothing_and_does_not_fail(tmp_path):
    write_registry(tmp_path, pick(SHIPPED_MODELS, "sim-strong"), pick(SHIPPED_JUDGES, "sim-fair-judge"))
    resources = resources_for(tmp_path)
    missing = str(tmp_path / "not_dropped_yet.csv")
    with dg.instance_for_test() as instance:
        result = materialize(["urs_user_alignment", "urs_human_alignment"], instance, resources, run_config={"ops": {
            "urs_user_alignment": {"config": {"path": missing}}, "urs_human_alignment": {"config": {"path": missing}}}})
    assert result.success
    for event in result.get_asset_materialization_events():
        assert event.materialization.metadata["rows"].value == 0
        assert "missing" in event.materialization.metadata["source"].value
