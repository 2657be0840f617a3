"""MMMT-IF through Dagster on the shipped sample chats with simulated models: end to end, ranking, checks,
the instructions-appended variant, a failing model, the autorater, human ratings and the charts."""

import dagster as dg
import numpy as np
import pandas as pd
import pytest

from benchwright import simulate
from benchwright.mmmt_if import simulated
from benchwright.mmmt_if import prompts
from benchwright.mmmt_if import steps as mmmt_if_steps
from checks.mmmt_if import mmmt_if_pif_n_k_monotone
from sensors.mmmt_if import mmmt_if_human_ratings_sensor
from tests.support.pipeline import SHIPPED_JUDGES, check_results, materialize, resources_for, write_registry

# Three candidates that differ only in instruction-following skill, one that fails on one question,
# a fair judge and one whose every output is malformed.
MODELS = {
    "sim-if-high": {"model": "sim/if-high", "role": "candidate", "params": {"skill": 0.7, "if_skill": 0.97}},
    "sim-if-mid": {"model": "sim/if-mid", "role": "candidate", "params": {"skill": 0.7, "if_skill": 0.8}},
    "sim-if-low": {"model": "sim/if-low", "role": "candidate", "params": {"skill": 0.7, "if_skill": 0.5}},
    "sim-flaky": {"model": "sim/flaky", "role": "candidate", "params": {"skill": 0.7}},
}
RANKED = ["sim-if-high", "sim-if-mid", "sim-if-low"]
JUDGES = {"sim-fair-judge": SHIPPED_JUDGES["sim-fair-judge"],
          "sim-garbage": {"model": "sim/garbage", "role": "judge", "params": {"malformed_rate": 1.0}}}
FLAKY_QUESTION = "How would you water the beds in both pictures during a dry week?"  # garden-beds, turn 3
METRIC_ASSETS = ["mmmt_if_pif_metrics", "mmmt_if_model_comparisons", "mmmt_if_preferences", "mmmt_if_human_alignment"]


def _flaky(request):
    raise RuntimeError("simulated outage")


def _asks_flaky_question(request) -> bool:
    """The flaky model's request whose own question (reminder list aside) is FLAKY_QUESTION."""
    own_text = request.last_user_text.split(prompts.REMINDER_LEAD)[0].rstrip()
    return request.model == "sim/flaky" and own_text.endswith(FLAKY_QUESTION)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    home = tmp_path_factory.mktemp("mmmt_if")
    write_registry(home, MODELS, JUDGES)
    resources = resources_for(home)
    # The flaky model's calls fail on one question (every sample): the chat must go on without it.
    registered = dict(simulate.REGISTERED)
    simulate.register(prompts.CANDIDATE_PROMPT_VERSION,
                      lambda request: _flaky(request) if _asks_flaky_question(request) else simulated.candidate_answer(request))
    try:
        with dg.instance_for_test() as instance:
            instance.add_dynamic_partitions("models", list(MODELS))
            instance.add_dynamic_partitions("judges", list(JUDGES))
            results = {"datasets": materialize(["mmmt_if_source_chats", "mmmt_if_chats", "mmmt_if_human_ratings"],
                                               instance, resources)}
            for model in MODELS:  # the turn scores are per model too: scored in the model's run
                results[model] = materialize(["mmmt_if_generations", "mmmt_if_turn_scores"], instance, resources,
                                             partition_key=model)
            for model in RANKED + ["sim-flaky"]:
                key = dg.MultiPartitionKey({"model": model, "judge": "sim-fair-judge"})
                results[f"judge:{model}"] = materialize(["mmmt_if_autorater_judgments"], instance, resources,
                                                        partition_key=key)
            key = dg.MultiPartitionKey({"model": "sim-if-mid", "judge": "sim-garbage"})
            results["garbage"] = materialize(["mmmt_if_autorater_judgments"], instance, resources, partition_key=key)
            results["metrics"] = materialize(METRIC_ASSETS, instance, resources)
            results["again"] = materialize(["mmmt_if_generations"], instance, resources, partition_key="sim-if-high")
            yield {"home": home, "resources": resources, "instance": instance, "results": results,
                   "wh": resources["warehouse"]}
    finally:
        simulate.REGISTERED.clear()
        simulate.REGISTERED.update(registered)


def test_sample_chats_run_end_to_end_and_every_check_passes(run):
    results = run["results"]
    for name, result in results.items():
        assert result.success or name == "garbage", name
    for name in ("datasets", "metrics", *MODELS):
        checks = check_results(results[name])
        if name == "sim-flaky":
            # Its calls on one question fail by design: shown as failed calls, a warning below the share that fails
            # a run (checks/failed_calls.py).
            flaky = checks.pop("failed_calls")
            assert not flaky.passed and flaky.severity == dg.AssetCheckSeverity.WARN
        failed = [c for c, e in checks.items() if not e.passed]
        assert not failed, (name, failed)
    wh = run["wh"]
    chats = wh.query("SELECT * FROM mmmt_if_chats")
    turns = wh.query("SELECT * FROM mmmt_if_turns")
    assert len(chats) >= 6 and chats["n_images"].between(2, 5).all() and len(turns) == chats["n_turns"].sum()
    # 4 samples x 2 variants of every turn, for every model.
    counts = wh.query("SELECT model, count(*) AS n FROM generations WHERE benchmark = 'mmmt_if' GROUP BY model")
    assert set(counts["n"]) == {len(turns) * 4 * 2}
    scores = wh.query("SELECT * FROM mmmt_if_turn_scores")
    assert scores["pif"].dropna().between(0, 1).all()


def test_turn_scores_stored_per_model_equal_scoring_every_model_at_once(run):
    """Each model's run scores its own responses only; together they are the rows of one pass over all."""
    wh = run["wh"]
    generations = wh.query("SELECT model, item_id, variant, sample_index, response, error FROM generations "
                           "WHERE benchmark = 'mmmt_if'")
    turns = wh.query("SELECT turn_id, chat_id, turn, instructions_in_force FROM mmmt_if_turns")
    scores, results = mmmt_if_steps.score_rows(generations, turns)
    for table, expected in (("mmmt_if_turn_scores", scores), ("mmmt_if_instruction_results", results)):
        keys = [c for c in expected.columns if c in ("model", "variant", "turn_id", "sample_index", "instruction_id")]
        stored = wh.query(f"SELECT * FROM {table}")[list(expected.columns)].sort_values(keys, ignore_index=True)
        assert set(stored["model"]) == set(MODELS) and len(stored) == len(expected) > 0
        pd.testing.assert_frame_equal(stored, expected.sort_values(keys, ignore_index=True), check_dtype=False)


def test_rematerializing_generations_makes_no_llm_call(run):
    metadata = run["results"]["again"].get_asset_materialization_events()[0].materialization.metadata
    assert metadata["api_calls"].value == 0 and metadata["cache_hits"].value > 0


def test_models_rank_by_instruction_following_skill_on_pif_and_pif_4_4(run):
    summary = run["wh"].query("SELECT * FROM mmmt_if_summary").set_index(["variant", "model"])
    for variant in prompts.VARIANTS:
        pif = [summary.loc[(variant, m), "pif"] for m in RANKED]
        pif_4_4 = [summary.loc[(variant, m), "pif_n_n"] for m in RANKED]
        assert pif[0] > pif[1] > pif[2], (variant, pif)
        assert pif_4_4[0] > pif_4_4[1] > pif_4_4[2], (variant, pif_4_4)
        assert set(summary.loc[variant, "n_samples"]) == {4}
    pairs = run["wh"].query("SELECT * FROM mmmt_if_wilcoxon WHERE variant = 'standard'").set_index(["model_a", "model_b"])
    assert pairs.loc[("sim-if-high", "sim-if-low"), "p_a_greater"] < 0.01
    assert set(pairs["method"]) <= {"exact", "asymptotic", "all sign flips"}  # each pair's test is named
    dominance = run["wh"].query("SELECT * FROM mmmt_if_dominance WHERE variant = 'standard'")
    assert (dominance.set_index(["model_a", "model_b"]).loc[("sim-if-high", "sim-if-low"), "turns_a_dominates"]
            > dominance["turns"].max() / 2)


def test_pif_4_k_is_non_increasing_and_the_check_fails_when_it_is_not(run):
    wh = run["wh"]
    n_k = wh.query("SELECT * FROM mmmt_if_pif_n_k ORDER BY model, variant, k")
    assert set(n_k["k"]) == {1, 2, 3, 4}
    for _, part in n_k.groupby(["model", "variant"]):
        assert (np.diff(part["pif_n_k"].to_numpy()) <= 1e-12).all()
    assert check_results(run["results"]["metrics"])["mmmt_if_pif_n_k_monotone"].passed
    # Break the table (K=4 above K=1) and run the check alone: it must fail, and block.
    broken = n_k.copy()
    broken.loc[broken["k"] == 4, "pif_n_k"] = 1.0
    broken.loc[broken["k"] == 1, "pif_n_k"] = 0.0
    wh.replace_rows("mmmt_if_pif_n_k", broken, match={})
    try:
        from definitions import defs

        result = dg.materialize(list(defs.assets) + list(defs.asset_checks),
                                selection=dg.AssetSelection.checks(mmmt_if_pif_n_k_monotone),
                                instance=run["instance"], resources=run["resources"], raise_on_error=False)
        evaluation = check_results(result)["mmmt_if_pif_n_k_monotone"]
        assert not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR
        assert len(evaluation.metadata["violations"].value) == len(n_k.groupby(["model", "variant"]))
    finally:
        wh.replace_rows("mmmt_if_pif_n_k", n_k, match={})


def test_instructions_appended_is_a_separate_comparable_row_in_every_metric_table(run):
    wh = run["wh"]
    for table in ("mmmt_if_summary", "mmmt_if_pif_by_turn", "mmmt_if_pif_by_count", "mmmt_if_pif_by_instruction",
                  "mmmt_if_pif_n_k", "mmmt_if_ecdf", "mmmt_if_dominance", "mmmt_if_wilcoxon",
                  "mmmt_if_preference_scores", "mmmt_if_preferences", "mmmt_if_ratings"):
        df = wh.query(f"SELECT * FROM {table}")
        assert set(df["variant"]) == set(prompts.VARIANTS), table
        model_column = "model" if "model" in df.columns else "model_a"
        per_variant = [set(df.loc[df["variant"] == v, model_column]) for v in prompts.VARIANTS]
        assert per_variant[0] == per_variant[1] and per_variant[0], table
    by_turn = wh.query("SELECT * FROM mmmt_if_pif_by_turn")
    standard, appended = (by_turn[by_turn["variant"] == v].set_index(["model", "turn"]) for v in prompts.VARIANTS)
    assert standard.index.equals(appended.index) and (standard["n"] == appended["n"]).all()
    uplift = wh.query("SELECT * FROM mmmt_if_uplift").set_index("model")
    assert set(uplift.index) == set(MODELS) and uplift[["pif_standard", "pif_appended"]].notna().all().all()
    assert (uplift.loc[RANKED, "uplift"] > 0).all()  # the simulated models follow better when reminded


def test_a_failed_turn_is_recorded_and_the_chat_goes_on(run):
    wh = run["wh"]
    turns = wh.query("SELECT turn_id, turn FROM mmmt_if_turns WHERE chat_id = 'garden-beds' ORDER BY turn")
    failed_turn = turns.loc[turns["turn"] == 3, "turn_id"].iloc[0]
    rows = wh.query("SELECT item_id, variant, response, error FROM generations WHERE benchmark = 'mmmt_if' "
                    "AND model = 'sim-flaky' AND item_id LIKE 'garden-beds%'")
    failed = rows[rows["item_id"] == failed_turn]
    assert len(failed) == 8 and failed["response"].isna().all() and failed["error"].str.contains("simulated outage").all()
    later = rows[rows["item_id"] > failed_turn]
    assert len(later) == 8 * (len(turns) - 3) and later["error"].isna().all()
    scores = wh.query("SELECT * FROM mmmt_if_turn_scores WHERE model = 'sim-flaky'")
    assert scores.loc[scores["turn_id"] == failed_turn, "pif"].isna().all()
    summary = wh.query("SELECT * FROM mmmt_if_summary WHERE model = 'sim-flaky'")
    assert set(summary["failed"]) == {4} and summary["pif"].between(0, 1).all()  # failures are not zeros
    judged = wh.query("SELECT turn_id FROM mmmt_if_autorater_judgments WHERE model = 'sim-flaky'")
    assert failed_turn not in set(judged["turn_id"])  # nothing to judge
    # The history holds no answer for the failed turn; its question went with the next user turn.
    generations = wh.query("SELECT * FROM generations WHERE benchmark = 'mmmt_if' AND model = 'sim-flaky'")
    by_chat = {"garden-beds": wh.query("SELECT * FROM mmmt_if_turns WHERE chat_id = 'garden-beds' ORDER BY turn")
               .to_dict("records")}
    history = mmmt_if_steps.histories(generations, by_chat)["garden-beds"]
    assert history[2] is None and all(isinstance(a, str) for i, a in enumerate(history) if i != 2)


def test_autorater_preferences_ratings_and_the_garbage_judge(run):
    wh = run["wh"]
    fair = wh.query("SELECT * FROM mmmt_if_autorater_judgments WHERE judge = 'sim-fair-judge'")
    assert fair["parse_ok"].mean() > 0.9
    assert check_results(run["results"]["judge:sim-if-high"])["mmmt_if_autorater_parse_failures"].passed
    garbage = check_results(run["results"]["garbage"])["mmmt_if_autorater_parse_failures"]
    assert not garbage.passed and garbage.metadata["parse_failure_rate"].value == 1.0
    rows = wh.query("SELECT * FROM mmmt_if_autorater_judgments WHERE judge = 'sim-garbage'")
    assert not rows["parse_ok"].any() and rows["instruction_following"].isna().all()  # failures are not zeros
    assert rows["parse_problem"].notna().all()
    scores = wh.query("SELECT * FROM mmmt_if_preference_scores")
    assert scores.loc[scores["judge"] == "sim-garbage", "preference"].isna().all()
    ratings = wh.query("SELECT * FROM mmmt_if_ratings WHERE judge = 'sim-fair-judge' AND variant = 'standard'")
    # Bounds from 1,000 rounds over contexts with a recorded seed, and a rank by upper bound for every model.
    assert (ratings["rounds"] == 1000).all() and (ratings["seed"] == 0).all() and ratings["rank"].notna().all()
    assert (ratings["rating_lower"] <= ratings["rating"]).all() and (ratings["rating"] <= ratings["rating_upper"]).all()
    assert all(r.rank == 1 + int((ratings["rating_lower"] > r.rating_upper).sum()) for r in ratings.itertuples())
    ratings = ratings.set_index("model")["rating"]
    assert ratings.mean() == pytest.approx(1000.0) and ratings["sim-if-high"] > ratings["sim-if-low"]
    prefs = wh.query("SELECT * FROM mmmt_if_preferences WHERE judge = 'sim-fair-judge' AND variant = 'standard'")
    assert ((prefs["wins"] + prefs["ties"] + prefs["losses"]) == prefs["turns"]).all()
    assert set(wh.query("SELECT judge FROM mmmt_if_self_preference")["judge"]) == {"sim-fair-judge"}


def test_charts_are_attached_and_written_next_to_the_snapshot(run):
    events = {e.asset_key.to_user_string(): e.materialization.metadata
              for e in run["results"]["metrics"].get_asset_materialization_events()}
    for asset, name in (("mmmt_if_pif_metrics", "mmmt_if_pif_by_turn.png"), ("mmmt_if_model_comparisons", "mmmt_if_ecdf.png")):
        assert events[asset]["chart"].value.startswith("![")
        path = run["home"] / "plots" / name
        assert events[asset]["chart_path"].value == str(path)
        assert path.read_bytes().startswith(b"\x89PNG")


def test_human_ratings_dropped_as_csv_are_picked_up_and_correlated_with_pif(run):
    wh, instance, resources = run["wh"], run["instance"], run["resources"]
    sensor_resources = {"warehouse": resources["warehouse"]}
    first = mmmt_if_human_ratings_sensor(dg.build_sensor_context(instance=instance, resources=sensor_resources))
    assert isinstance(first, dg.SkipReason)  # empty folder, nothing to do
    scores = wh.query("SELECT model, chat_id, turn, variant, sample_index, pif FROM mmmt_if_turn_scores "
                      "WHERE variant = 'standard' AND sample_index = 0 AND pif IS NOT NULL AND model LIKE 'sim-if-%'")
    rng = np.random.default_rng(7)
    ratings = scores.assign(rating=np.clip(np.round(1 + 9 * scores["pif"] + rng.normal(0, 1.2, len(scores))), 1, 10))
    folder = run["home"] / "drops" / "mmmt_if_human"
    folder.mkdir(parents=True)
    ratings.drop(columns="pif").to_csv(folder / "ratings.csv", index=False)
    (folder / "broken.csv").write_text("model,chat_id,turn,rating\nsim-if-high,harbour-day,1,eleven\n")
    result = mmmt_if_human_ratings_sensor(dg.build_sensor_context(instance=instance, resources=sensor_resources))
    assert len(result.run_requests) == 1 and result.cursor
    again = mmmt_if_human_ratings_sensor(dg.build_sensor_context(instance=instance, resources=sensor_resources,
                                                                 cursor=result.cursor))
    assert isinstance(again, dg.SkipReason)  # nothing changed since
    assert materialize(["mmmt_if_human_ratings", "mmmt_if_human_alignment"], instance, resources).success
    problems = wh.query("SELECT * FROM dataset_problems WHERE benchmark = 'mmmt_if_human'")
    assert problems["location"].tolist() == ["broken.csv:2"]
    alignment = wh.query("SELECT * FROM mmmt_if_human_alignment").set_index(["measure", "scope"])
    overall = alignment.loc[("pearson_pif_human_rating", "overall")]
    expected = np.corrcoef(ratings["pif"], ratings["rating"])[0, 1]
    assert overall["n"] == len(ratings) and overall["value"] == pytest.approx(expected) and overall["value"] > 0.6
    assert {f"model:{m}" for m in RANKED} <= set(alignment.loc["pearson_pif_human_rating"].index)
