"""The GAP graph through Dagster on the bundled sample: images, log ingest (exactly once, quarantine),
reliability and selection, interaction model, GAP-VQA export; and the log-drop sensor."""

import json
import shutil

import dagster as dg
import pytest

from assets.gap import gap_drop_folder
from benchwright.gap.vqa import CATEGORIES
from benchwright.paths import ROOT
from scripts.orchestrate import sync_partitions
from sensors.gap import gap_log_drop_sensor
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, check_results, materialize, resources_for, write_registry

SAMPLE_LOGS = ROOT / "sample_data" / "gap" / "logs"
GAP_ASSETS = ["gap_images", "gap_game_logs", "gap_reliability", "gap_interaction_model", "gap_vqa_dataset", "gap_engagement",
              "gap_tainted_answers"]


def score_on_val(instance, resources) -> list:
    """GAP scoring the way the graph runs it: answers per model, judgments per model × judge, then the summary."""
    models, judges = sync_partitions(instance, resources["registry"], lambda _msg: None)
    results = [materialize(["gap_generations"], instance, resources, partition_key=m) for m in models]
    results += [materialize(["gap_score_judgments"], instance, resources,
                            partition_key=dg.MultiPartitionKey({"model": m, "judge": j})) for m in models for j in judges]
    return results + [materialize(["gap_scores"], instance, resources)]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    home = tmp_path_factory.mktemp("gap_demo")
    write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
    resources = resources_for(home)
    with dg.instance_for_test() as instance:
        result = materialize(GAP_ASSETS, instance, resources)
        scoring = score_on_val(instance, resources)
        yield {"result": result, "scoring": scoring, "warehouse": resources["warehouse"], "instance": instance, "resources": resources,
               "home": home}


def test_every_gap_asset_and_check_succeeds(demo):
    assert demo["result"].success and all(r.success for r in demo["scoring"])
    scoring_checks = [e for r in demo["scoring"] for e in r.get_asset_check_evaluations()]
    assert {e.check_name for e in scoring_checks} >= {"gap_score_parse_failures", "answer_injection"}
    assert all(e.passed for e in scoring_checks), [(e.check_name, e.passed) for e in scoring_checks]
    checks = check_results(demo["result"])
    assert {"gap_vqa_no_image_leakage", "gap_log_quarantine_share", "schema_and_ranges"} <= set(checks)
    assert all(c.passed for c in checks.values()), {k: c.passed for k, c in checks.items()}


def test_bad_lines_are_quarantined_and_good_lines_load(demo):
    wh = demo["warehouse"]
    files = wh.query("SELECT file_name, lines_loaded, lines_quarantined FROM gap_log_files").set_index("file_name")
    broken = (SAMPLE_LOGS / "game_log_broken.jsonl").read_text().splitlines()
    assert files.at["game_log_broken.jsonl", "lines_loaded"] == 1
    assert files.at["game_log_broken.jsonl", "lines_quarantined"] == len(broken) - 1
    reasons = wh.query("SELECT line_no, reason FROM gap_log_quarantine ORDER BY line_no")
    assert reasons["line_no"].tolist() == [2, 3, 4, 5]
    assert reasons["reason"].str.len().min() > 5
    total_lines = sum(len(p.read_text().splitlines()) for p in SAMPLE_LOGS.glob("*.jsonl"))
    assert wh.query("SELECT count(*) AS n FROM gap_marks")["n"][0] == total_lines - 4


def test_redelivery_changes_nothing_and_sensor_fires_once(demo, tmp_path):
    wh, resources, instance = demo["warehouse"], demo["resources"], demo["instance"]
    drop = demo["home"] / "drops" / "gap_logs"
    assert drop == gap_drop_folder(wh)
    before = wh.query("SELECT count(*) AS n FROM gap_marks")["n"][0]
    drop.mkdir(parents=True, exist_ok=True)
    # Re-delivery under another name: every mark is known by its key, so nothing loads twice.
    shutil.copy(SAMPLE_LOGS / "game_log_000.jsonl", drop / "again.jsonl")
    context = dg.build_sensor_context(instance=instance, resources={"warehouse": wh})
    first = gap_log_drop_sensor(context)
    assert isinstance(first, dg.SensorResult) and len(first.run_requests) == 1
    assert materialize(["gap_game_logs"], instance, resources).success
    assert wh.query("SELECT count(*) AS n FROM gap_marks")["n"][0] == before
    # Same folder content on the next tick: no request.
    again = gap_log_drop_sensor(dg.build_sensor_context(instance=instance, resources={"warehouse": wh},
                                                        cursor=first.cursor))
    assert isinstance(again, dg.SkipReason)
    # A genuinely new file loads its lines once, even if materialized twice.
    record = json.loads((SAMPLE_LOGS / "game_log_000.jsonl").read_text().splitlines()[0])
    (drop / "new.jsonl").write_text(json.dumps(record | {"session_id": "fresh-s0"}) + "\n")
    new_tick = gap_log_drop_sensor(dg.build_sensor_context(instance=instance, resources={"warehouse": wh},
                                                           cursor=first.cursor))
    assert isinstance(new_tick, dg.SensorResult)
    for _ in range(2):
        assert materialize(["gap_game_logs"], instance, resources).success
    assert wh.query("SELECT count(*) AS n FROM gap_marks")["n"][0] == before + 1


def test_kept_questions_come_from_honest_players_and_no_spammer(demo):
    wh = demo["warehouse"]
    kept = wh.query("SELECT player_id FROM gap_adversarial_questions")
    assert len(kept) > 10
    assert not kept["player_id"].str.startswith("spammer").any()
    assert kept["player_id"].str.startswith("honest").mean() >= 0.9


def test_vqa_export_is_valid_sharegpt_with_existing_images_and_no_leakage(demo):
    wh = demo["warehouse"]
    folder = demo["home"] / "exports" / "gap_vqa"
    items = wh.query("SELECT * FROM gap_vqa_items")
    assert len(items) > 0 and set(items["split"]) == {"train", "val"}
    train_images = set(items.loc[items["split"] == "train", "image_id"])
    val_images = set(items.loc[items["split"] == "val", "image_id"])
    assert not train_images & val_images
    lines = (folder / "train.jsonl").read_text().splitlines()
    assert len(lines) == len(items[items["split"] == "train"])
    for line in lines:
        record = json.loads(line)
        assert [turn["from"] for turn in record["conversations"]] == ["human", "gpt"]
        assert record["conversations"][0]["value"].startswith("<image>\n")
        assert all((folder / path).is_file() for path in record["images"])
    assert set(items["category"]) <= set(CATEGORIES)


def test_interaction_model_reports_cv_and_calibration(demo):
    wh = demo["warehouse"]
    cv = wh.query("SELECT * FROM gap_interaction_cv")
    calibration = wh.query("SELECT * FROM gap_interaction_calibration")
    assert len(cv) == 5 and cv["auc"].between(0, 1).all()
    assert calibration["n"].sum() == wh.query("SELECT count(*) AS n FROM gap_marks WHERE tainted")["n"][0]


def test_every_candidate_is_scored_by_every_judge_on_val(demo):
    wh = demo["warehouse"]
    scores = wh.query("SELECT * FROM gap_scores")
    candidates = {slug for slug, e in SHIPPED_MODELS.items() if e.get("role") == "candidate"}
    assert {(j, m) for j, m in zip(scores["judge"], scores["model"])} == {(j, m) for j in SHIPPED_JUDGES for m in candidates}
    val = wh.query("SELECT count(*) AS n FROM gap_vqa_items WHERE split = 'val'")["n"][0]
    assert (scores["n"] + scores["parse_failures"] + scores["errors"] == min(val, 40)).all()
    assert scores["gpt_score"].dropna().between(0, 1).all()


def test_engagement_distributions_cover_every_player_and_session(demo):
    wh = demo["warehouse"]
    # Another test may have ingested a log since the fixture ran: bring the distributions up to date.
    assert materialize(["gap_engagement"], demo["instance"], demo["resources"]).success
    table = wh.query("SELECT measure, sum(count) AS n FROM gap_engagement GROUP BY measure").set_index("measure")["n"]
    counts = wh.query("SELECT count(DISTINCT session_id) AS s, count(DISTINCT player_id) AS p FROM gap_marks").iloc[0]
    assert table["images_per_session"] == counts["s"]
    assert table["tainted_accuracy"] == counts["p"]


def test_tainted_answers_are_wrong_only_when_instructed(demo):
    df = demo["warehouse"].query("SELECT * FROM gap_tainted_answers")
    assert len(df) == 2 * 20 and df["error"].isna().all()
    assert 0 < df["instructed_wrong"].mean() < 1
    # Told to be wrong, the simulated model changes a detail of its own answer (whose counts are guesses).
    wrong_when_told = 1 - df.loc[df["instructed_wrong"], "matches_truth"].mean()
    wrong_otherwise = 1 - df.loc[~df["instructed_wrong"], "matches_truth"].mean()
    print(f"wrong when instructed {wrong_when_told:.2f}, otherwise {wrong_otherwise:.2f}")
    assert wrong_when_told >= wrong_otherwise + 0.3
