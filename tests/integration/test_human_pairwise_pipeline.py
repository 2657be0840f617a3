"""Human pairwise choices dropped by the annotation app feed URS and Creation alignment through the sensor.

Runs the Creation and URS slices with sim models on a temp home (one judge, two candidates), writes a
round file into the drop folder the way the app does, ticks the sensor and materializes what it asks for.
"""

import csv
import shutil

import dagster as dg
import duckdb
import pandas as pd
import pytest

from assets.human_pairwise import human_pairwise_drop_folder
from benchwright.human_pairwise import COLUMNS
from definitions import defs
from scripts.orchestrate import sync_partitions
from sensors.human_pairwise import human_pairwise_drop_sensor
from tests.support.pipeline import (SHIPPED_JUDGES, SHIPPED_MODELS, check_results, materialize, pick, resources_for,
                                    write_registry)

JUDGE, CANDIDATE, FAVOURITE = "sim-fair-judge", "sim-strong", "sim-weak"
ALIGNMENT = ["urs_human_alignment", "creation_human_alignment"]
# The outcome table of benchwright/creation/README.md#pairwise-judging: the candidate's value for each verdict, in order 1 (candidate is B) and order 2 (candidate is A).
ORDER1_VALUE = {"B>>A": 2, "B>A": 1, "A=B": 0, "A>B": -1, "A>>B": -2}
ORDER2_VALUE = {"A>>B": 2, "A>B": 1, "A=B": 0, "B>A": -1, "B>>A": -2}
# The app's (winner, strength) for a value from the candidate's (model_b's) side.
CHOICE_FOR_VALUE = {2: ("B", "2"), 1: ("B", "1"), 0: ("tie", "0"), -1: ("A", "1"), -2: ("A", "2")}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    home = tmp_path_factory.mktemp("human_pairwise")
    write_registry(home, pick(SHIPPED_MODELS, "sim-baseline", "sim-describer", CANDIDATE, FAVOURITE),
                   pick(SHIPPED_JUDGES, JUDGE))
    resources = resources_for(home)
    with dg.instance_for_test() as instance:
        models, judges = sync_partitions(instance, resources["registry"], log=lambda _msg: None)
        steps = [materialize(["creation_items", "creation_references", "creation_image_descriptions",
                              "urs_items", "urs_references"], instance, resources)]
        for model in models:
            steps.append(materialize(["creation_generations", "urs_generations"], instance, resources,
                                     partition_key=model))
            for judge in judges:
                steps.append(materialize(["creation_pairwise_judgments", "urs_judgments"], instance, resources,
                                         partition_key=dg.MultiPartitionKey({"model": model, "judge": judge})))
        steps.append(materialize(["urs_leaderboard", *ALIGNMENT], instance, resources))
        assert all(step.success for step in steps)
        yield {"home": home, "resources": resources, "instance": instance, "wh": resources["warehouse"]}


def tick(run, cursor=None):
    context = dg.build_sensor_context(instance=run["instance"], resources={"warehouse": run["wh"]}, cursor=cursor)
    return human_pairwise_drop_sensor(context)


def append_round(path, rows) -> None:
    """What the app does: header once, then one appended row per choice."""
    new = not path.exists()
    with path.open("a", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        for row in rows:
            writer.writerow(row)


def creation_choices(wh) -> tuple[list[dict], dict[str, int]]:
    """Two people per item on the candidate: one agrees with the judge's order-1 verdict, one says tie."""
    order1 = wh.query("SELECT item_id, verdict FROM creation_pairwise_judgments WHERE model = ? AND judge = ? "
                      "AND judge_order = 1 ORDER BY item_id", [CANDIDATE, JUDGE])
    baselines = dict(wh.query("SELECT item_id, baseline FROM creation_references").itertuples(index=False))
    first_person = {r.item_id: ORDER1_VALUE.get(r.verdict, 0) for r in order1.itertuples()}
    rows = []
    for position, (item, value) in enumerate(first_person.items(), start=1):
        for annotator, person_value in (("ann-1", value), ("ann-2", 0)):
            winner, strength = CHOICE_FOR_VALUE[person_value]
            rows.append({"benchmark": "creation", "item_id": item, "model_a": baselines[item], "model_b": CANDIDATE,
                         "winner": winner, "strength": strength, "annotator": annotator, "left_model": CANDIDATE,
                         "item_position": position, "round_id": "round-1",
                         "recorded_at": f"2025-05-01T10:{position:02d}:00Z", "seconds_taken": 30 + position})
    return rows, first_person


def urs_choices(n: int) -> list[dict]:
    """People who much prefer the weaker URS candidate (and once cannot tell)."""
    rows = [{"benchmark": "urs", "item_id": f"urs-{i + 1:04d}", "model_a": CANDIDATE, "model_b": FAVOURITE,
             "winner": "B", "strength": "2", "annotator": "ann-3", "left_model": FAVOURITE, "item_position": i + 1,
             "round_id": "round-1", "recorded_at": "2025-05-01T11:00:00Z", "seconds_taken": 12.0} for i in range(n)]
    return rows + [rows[0] | {"winner": "undetermined", "strength": ""}]


def test_a_dropped_round_moves_both_alignments_and_redelivery_requests_nothing(run):
    wh, instance, resources = run["wh"], run["instance"], run["resources"]
    folder = human_pairwise_drop_folder(wh)
    assert folder == run["home"] / "drops" / "human_pairwise"
    assert isinstance(tick(run), dg.SkipReason)  # nothing dropped yet
    assert wh.query("SELECT count(*) AS n FROM creation_human_alignment")["n"][0] == 0
    before_bt = wh.query("SELECT model, coefficient, wins, losses FROM urs_bradley_terry").set_index("model")
    sample_rows = wh.query("SELECT count(*) AS n FROM urs_human_pairwise")["n"][0]

    creation_rows, first_person = creation_choices(wh)
    wrong_baseline = creation_rows[0] | {"model_a": FAVOURITE, "annotator": "ann-9"}
    folder.mkdir(parents=True)
    round_file = folder / "round-1.csv"
    append_round(round_file, [*creation_rows, wrong_baseline, *urs_choices(12)])
    with round_file.open("a", encoding="utf-8") as f:
        f.write("creation,lw-001,dataset,sim-str")  # the app crashed mid-append

    first = tick(run)
    assert isinstance(first, dg.SensorResult) and len(first.run_requests) == 1 and first.cursor
    targets = human_pairwise_drop_sensor.asset_selection.resolve(defs.resolve_asset_graph())
    assert {key.to_user_string() for key in targets} == set(ALIGNMENT)
    result = materialize(ALIGNMENT, instance, resources)
    checks = check_results(result)
    assert result.success and {"schema_and_ranges", "human_pairwise_schema_and_ranges"} <= set(checks)
    assert all(check.passed for check in checks.values())

    # URS: 12 strong preferences for the weaker model raise its Bradley–Terry coefficient.
    after_bt = wh.query("SELECT model, coefficient, wins, losses, source_file FROM urs_bradley_terry").set_index("model")
    assert after_bt.loc[FAVOURITE, "coefficient"] > before_bt.loc[FAVOURITE, "coefficient"] + 0.5
    assert after_bt.loc[CANDIDATE, "coefficient"] < before_bt.loc[CANDIDATE, "coefficient"]
    # 12 wins counted once each; the 'cannot tell' row is stored but not counted.
    assert after_bt.loc[FAVOURITE, "wins"] == before_bt.loc[FAVOURITE, "wins"] + 12
    assert after_bt.loc[CANDIDATE, "losses"] == before_bt.loc[CANDIDATE, "losses"] + 12
    assert "round-1.csv" in after_bt["source_file"].iloc[0]
    stored = wh.query("SELECT source_file, count(*) AS n FROM urs_human_pairwise GROUP BY ALL").set_index("source_file")
    assert stored.loc["round-1.csv", "n"] == 13 and stored["n"].sum() == sample_rows + 13

    # Creation: every row kept as loaded, the wrong-baseline choice set aside with a reason, the torn line located.
    kept = wh.query("SELECT * FROM creation_human_pairwise")
    assert len(kept) == len(creation_rows) + 1 and kept["recorded_at"].str.endswith("+00:00").all()
    problems = wh.query("SELECT dataset, location, reason FROM dataset_problems WHERE benchmark = 'human_pairwise'")
    total_rows = len(creation_rows) + 1 + 13 + 1
    assert problems.loc[problems["dataset"] == "drop_folder", "location"].tolist() == [f"round-1.csv:row {total_rows}"]
    mismatch = problems[problems["dataset"] == "creation_baselines"]
    assert len(mismatch) == 1 and "ann-9" in mismatch["location"].iloc[0]

    # The figures of benchwright/creation/README.md#human-alignment, recomputed here from the judgments table and the choices we wrote.
    judged = wh.query("SELECT item_id, judge_order, verdict, parse_ok, error FROM creation_pairwise_judgments "
                      "WHERE model = ? AND judge = ? AND source = 'benchwright'", [CANDIDATE, JUDGE])
    usable = judged[judged["parse_ok"] & judged["error"].isna()]
    v1 = {r.item_id: ORDER1_VALUE[r.verdict] for r in usable[usable["judge_order"] == 1].itertuples()}
    v2 = {r.item_id: ORDER2_VALUE[r.verdict] for r in usable[usable["judge_order"] == 2].itertuples()}
    people = {item: (value + 0) / 2 for item, value in first_person.items()}  # ann-1 and ann-2's mean
    table = wh.query("SELECT * FROM creation_human_alignment").set_index(["judge", "model", "mode"])
    non_dual = table.loc[(JUDGE, CANDIDATE, "non_dual")]
    diffs = [abs(v1[i] - people[i]) for i in v1]
    assert non_dual["items"] == len(v1) > 10
    assert non_dual["mae"] == pytest.approx(sum(diffs) / len(diffs))
    assert non_dual["consistency"] == pytest.approx(sum(d <= 1 for d in diffs) / len(diffs))
    assert non_dual["judge_failures"] == int((~judged["parse_ok"] & judged["error"].isna()
                                              & (judged["judge_order"] == 1)).sum())
    dual = table.loc[(JUDGE, CANDIDATE, "dual")]
    both = [i for i in v1 if i in v2]
    diffs = [abs((v1[i] + v2[i]) / 2 - people[i]) for i in both]
    assert dual["items"] == len(both) and dual["mae"] == pytest.approx(sum(diffs) / len(diffs))
    humans = table.loc[("(humans)", CANDIDATE, "human_human")]
    # Two people per item: each is compared with the other, so |J − P| is |ann-1 − ann-2| both ways.
    gaps = [abs(value) for value in first_person.values()]
    assert humans["comparisons"] == 2 * len(gaps) and humans["mae"] == pytest.approx(sum(gaps) / len(gaps))
    assert table["simulated"].loc[(JUDGE, CANDIDATE)].all()

    # Human-calibrated estimates (benchwright.calibrated) read the same stored choices.
    result = materialize(["calibrated_estimates"], instance, resources)
    assert result.success and all(check.passed for check in check_results(result).values())
    estimates = wh.query("SELECT * FROM calibrated_estimates").set_index(["benchmark", "judge", "model", "opponent"])
    creation = estimates.loc[("creation", JUDGE, CANDIDATE, "baseline")]
    # Per item the two people's win scores (ann-2 always says tie): ann-1's is 1, ½ or 0 by the sign of the value.
    human_rate = sum((((value > 0) - (value < 0) + 1) / 2 + 0.5) / 2 for value in first_person.values())
    human_rate /= len(first_person)
    assert creation["n_human"] == len(first_person) and creation["human_only"] == pytest.approx(human_rate)
    # Every judged item has a human label here, so the judge can add nothing: the calibrated figure is the human one.
    assert creation["n_unlabeled"] == 0 and creation["ppi_lambda"] == 0
    assert creation["calibrated"] == creation["human_only"]
    urs = estimates.loc[("urs", JUDGE, FAVOURITE, CANDIDATE)]  # oriented by slug: sim-weak against sim-strong
    people = wh.query("SELECT item_id, model_b, winner FROM urs_human_pairwise WHERE winner <> 'undetermined' "
                      "AND item_id IS NOT NULL AND list_sort([model_a, model_b]) = list_sort([?, ?])",
                      [FAVOURITE, CANDIDATE])
    scores = [(w == "tie") / 2 + ((w == "B") == (b == FAVOURITE) and w != "tie") for w, b in
              zip(people["winner"], people["model_b"])]
    per_item = pd.Series(scores).groupby(people["item_id"].to_numpy()).mean()
    assert urs["n_human"] == len(per_item) >= 12 and urs["human_only"] == pytest.approx(per_item.mean())
    assert urs["n_human"] + urs["n_unlabeled"] == wh.query("SELECT count(*) AS n FROM urs_items")["n"][0]
    assert estimates["simulated"].all() and not (estimates.reset_index()["benchmark"] == "interop").any()

    # Same content on the next tick, or the same file re-delivered under another name: nothing requested.
    assert isinstance(tick(run, first.cursor), dg.SkipReason)
    shutil.copy(round_file, folder / "round-1-again.csv")
    assert isinstance(tick(run, first.cursor), dg.SkipReason)
    assert materialize(ALIGNMENT, instance, resources).success  # even if run anyway, nothing counts twice
    assert len(wh.query("SELECT * FROM creation_human_pairwise")) == len(kept)
    assert wh.query("SELECT count(*) AS n FROM urs_human_pairwise")["n"][0] == sample_rows + 13

    # One more appended choice is new content: one request.
    append_round(folder / "round-2.csv", urs_choices(1)[:1])
    assert len(tick(run, first.cursor).run_requests) == 1

    # Analysts see each judge beside the human–human figures for the same model.
    assert materialize(["analyst_snapshot"], instance, resources).success
    con = duckdb.connect(wh.snapshot_path, read_only=True)
    try:
        view = con.execute("SELECT * FROM creation_human_alignment_by_judge").df()
    finally:
        con.close()
    assert set(view["mode"]) == {"dual", "non_dual"} and (view["judge"] == JUDGE).all()
    assert (view["human_human_mae"] == round(humans["mae"], 3)).all() and view["model_name"].str.endswith("[simulated]").all()

