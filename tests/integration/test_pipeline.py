"""The whole Creation graph through Dagster: end to end, re-runs, checks, groups and metadata."""

import duckdb
import pytest

import dagster as dg
from benchwright.paths import sql_files
from scripts.orchestrate import materialize_everything
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, materialize, resources_for, write_registry


def test_definitions_load_with_groups_descriptions_and_the_step_processes_executor():
    from definitions import defs

    graph = defs.resolve_asset_graph()
    # Every dependency is a real asset of ours (a mistyped key would become a silent external asset), or one
    # of the observable inputs whose versions the main job records.
    from assets.sources import VERSIONS

    outside = {key.to_user_string() for key in graph.get_all_asset_keys() if not graph.get(key).is_materializable}
    assert outside == set(VERSIONS)
    assert all(graph.get(dg.AssetKey(name)).is_observable for name in outside)
    groups = {graph.get(key).group_name for key in graph.get_all_asset_keys()}
    assert groups == {"inputs", "datasets", "generations", "judgments", "metrics", "publish"}
    for key in graph.get_all_asset_keys():
        assert graph.get(key).description, f"{key} has no description"
    # A run launched from the UI executes its steps in its own process; `step_processes: N` forks N at once.
    from definitions import step_processes

    assert defs.executor.name == "benchwright_executor"
    assert step_processes({"step_processes": 1}) == {"in_process": {}}
    forked = step_processes({"step_processes": 2})["multiprocess"]
    assert forked["max_concurrent"] == 2 and "scripts.step_preload" in forked["start_method"]["forkserver"]["preload_modules"]
    sensors = {s.name: s for s in defs.sensors}
    assert sensors["automation_sensor"].default_status == dg.DefaultSensorStatus.RUNNING
    assert sensors["registry_sensor"].default_status == dg.DefaultSensorStatus.RUNNING


@pytest.fixture(scope="module")
def demo(shipped_demo):
    """The full shipped registry on the sample, materialized twice (tests/conftest.py)."""
    return shipped_demo


def test_demo_leaderboard_has_every_candidate_for_every_judge(demo):
    assert demo["first"]["failed_runs"] == 0
    board = demo["resources"]["warehouse"].query("SELECT * FROM creation_leaderboard WHERE scope = 'overall'")
    candidates = {slug for slug, e in SHIPPED_MODELS.items() if e.get("role") == "candidate"}
    assert {(r.judge, r.model) for r in board.itertuples()} == {(j, m) for j in SHIPPED_JUDGES for m in candidates}
    assert board["simulated"].all() and board["model_display"].str.endswith("[simulated]").all()
    assert board["reward"].between(-100, 100).all() and board["win_rate"].between(0, 1).all()
    # The fair judge ranks the simulated writers by their skill setting.
    fair = board[board["judge"] == "sim-fair-judge"].set_index("model")["reward"]
    assert fair["sim-strong"] > fair["sim-average"] > fair["sim-weak"]
    scopes = demo["resources"]["warehouse"].query("SELECT DISTINCT scope FROM creation_leaderboard")["scope"]
    assert set(scopes) == {"overall", "category", "task"}


def test_rerun_with_nothing_new_makes_zero_llm_calls(demo):
    assert demo["first"]["api_calls"] > 0
    assert demo["second"]["api_calls"] == 0
    assert demo["second"]["cache_hits"] == demo["first"]["api_calls"] + demo["first"]["cache_hits"]
    # ... and rewrote the same rows, not extra ones.
    counts = demo["resources"]["warehouse"].query(
        "SELECT count(*) AS n, count(DISTINCT (model, judge, item_id, judge_order)) AS k FROM creation_pairwise_judgments")
    assert counts["n"][0] == counts["k"][0] > 0


def test_position_biased_judge_is_flagged_and_fair_one_is_not(demo):
    failures = demo["first"]["check_failures"]
    assert any("position_swap_consistency" in f and "sim-biased-judge" in f for f in failures)
    assert not any("position_swap_consistency" in f and "sim-fair-judge" in f for f in failures)
    assert all(f.startswith("WARN") for f in failures), failures
    quality = demo["resources"]["warehouse"].query("SELECT * FROM judge_quality").set_index("judge")
    assert quality.loc["sim-fair-judge", "exact_consistency"] > quality.loc["sim-biased-judge", "exact_consistency"] + 0.3
    assert quality.loc["sim-biased-judge", "p_prefer_first"] > 0.55


def test_analyst_snapshot_answers_sql_through_the_views(demo):
    con = duckdb.connect(demo["resources"]["warehouse"].snapshot_path, read_only=True)
    try:
        rows = con.execute("SELECT judge, model, reward FROM creation_leaderboard_overall").fetchall()
        assert len(rows) == len(SHIPPED_JUDGES) * sum(e.get("role") == "candidate" for e in SHIPPED_MODELS.values())
        assert con.execute("SELECT count(*) FROM judge_report").fetchall()[0][0] == len(SHIPPED_JUDGES)
        assert con.execute("SELECT count(*) FROM creation_verdicts WHERE verdict_baseline_first IS NULL "
                           "AND verdict_candidate_first IS NULL").fetchall()[0][0] < 5
    finally:
        con.close()


def test_no_canary_beats_a_shipped_judge_and_none_is_on_a_leaderboard(demo):
    """docs/CANARIES.md: on the demo every canary loses under every shipped judge and its check passes."""
    canaries = {slug for slug, e in SHIPPED_MODELS.items() if e.get("role") == "canary"}
    for run in ("first", "second"):
        assert not [f for f in demo[run]["check_failures"] if "canaries_lose" in f], demo[run]["check_failures"]
    con = duckdb.connect(demo["resources"]["warehouse"].snapshot_path, read_only=True)
    try:
        report = con.execute("SELECT * FROM canary_report").df()
        # every judge × benchmark it serves × canary (the blind one where questions show a picture)
        assert {(r.judge, r.benchmark, r.model) for r in report.itertuples()} == {
            (j, b, c) for j in SHIPPED_JUDGES for b in ("creation", "urs", "mmmt_if", "gap") for c in canaries
            if not (b == "urs" and c == "canary-blind")}
        # Creation's two judges each judge them: the pairwise win rate and the Visual Factuality Score
        assert set(zip(report["benchmark"], report["metric"])) == {
            ("creation", "win_rate"), ("creation", "vfs"), ("urs", "mean_score"), ("mmmt_if", "preference"),
            ("gap", "mean_score")}
        assert report["canary"].all() and report["model_display"].str.endswith("[canary]").all()
        assert (report["judged"] >= 0.9 * report["items"]).all()  # the figures rest on parsed judgments
        # they lose: below the baseline or the scale's middle, and none clearly above the weakest candidate
        assert (report["figure"] < report["null_figure"]).all() and not report["beats_threshold"].any()
        assert report["weakest_model"].notna().all()
        judges = con.execute("SELECT judge, canary_figures, canaries_beaten FROM judge_report").df()
        assert (judges["canary_figures"] == len(report) // len(SHIPPED_JUDGES)).all()
        assert (judges["canaries_beaten"] == 0).all()
        # no leaderboard lists a canary
        views = [name for (name,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal "
                                                 "AND view_name LIKE '%leaderboard%'").fetchall()]
        assert len(views) > 4
        for view in views:
            columns = [c for (c,) in con.execute(f"SELECT column_name FROM duckdb_columns() WHERE table_name = '{view}'"
                                                 ).fetchall()]
            if "model" in columns:
                listed = {m for (m,) in con.execute(f'SELECT DISTINCT model FROM "{view}"').fetchall()}
                assert not listed & canaries, view
        # their calls: the ledger's own stage, one per judge × canary × benchmark
        stages = con.execute("SELECT DISTINCT benchmark, model, judge FROM cost_ledger WHERE stage = 'canary_judgments'"
                             ).fetchall()
        assert set(stages) == {(r.benchmark, r.model, r.judge) for r in report.itertuples()}
    finally:
        con.close()


def test_text_only_candidate_answered_from_descriptions(demo):
    wh = demo["resources"]["warehouse"]
    variants = wh.query("SELECT model, variant, count(*) AS n FROM generations WHERE benchmark = 'creation' GROUP BY ALL")
    assert set(variants[variants["model"] == "sim-text-only"]["variant"]) == {"text_only"}
    assert set(variants[variants["model"] == "sim-strong"]["variant"]) == {"vision"}
    assert wh.query("SELECT count(*) AS n FROM creation_image_descriptions WHERE description IS NOT NULL")["n"][0] >= 12


def test_materializations_carry_llm_statistics_and_previews(demo):
    instance = demo["instance"]
    event = instance.get_latest_materialization_event(dg.AssetKey("creation_pairwise_judgments"))
    metadata = event.asset_materialization.metadata
    for key in ("rows", "preview", "api_calls", "cache_hits", "errors", "cost_usd", "latency_p50_ms", "latency_p95_ms"):
        assert key in metadata, key
    assert "| item_id |" in metadata["preview"].value
    # rows counts the written table, not the preview (which shows the overall rows only)
    wh = demo["resources"]["warehouse"]
    for table in ("creation_leaderboard", "urs_leaderboard", "urs_criterion_means", "urs_rating_bias"):
        event = instance.get_latest_materialization_event(dg.AssetKey(table))
        written = wh.query(f"SELECT count(*) AS n FROM {table}")["n"][0]
        assert event.asset_materialization.metadata["rows"].value == written > 0, table
    overall = wh.query("SELECT count(*) AS n FROM creation_leaderboard WHERE scope = 'overall'")["n"][0]
    rows = instance.get_latest_materialization_event(dg.AssetKey("creation_leaderboard")).asset_materialization.metadata
    assert rows["rows"].value > overall  # the preview shows the overall rows; rows counts every scope


def test_views_name_slugs_model_and_judge_and_the_readme_sql_works_as_written(demo):
    import re
    from pathlib import Path

    from benchwright.registry import RESERVED_SLUGS, load_registry

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    entries = [e for kind in ("models", "judges") for e in load_registry(root / "registry" / f"{kind}.yaml", kind)[0]]
    slugs = {e.slug for e in entries} | RESERVED_SLUGS  # the reserved words mark rows that are not a model
    labels = {e.label for e in entries} | RESERVED_SLUGS
    con = duckdb.connect(demo["resources"]["warehouse"].snapshot_path, read_only=True)
    try:
        for block in re.findall(r"```sql\n(.*?)```", readme, re.DOTALL):
            assert len(con.execute(block).fetchall()) > 0, block
        # Every view: model / judge (and model_a, reference_model ...) are slugs, *_name the display labels.
        checked = set()
        views = sorted(p.stem for p in sql_files("views"))
        assert len(views) > 20, views  # every area's views, not an empty folder
        for view in views:
            columns = [c for (c,) in con.execute("SELECT column_name FROM information_schema.columns "
                                                  "WHERE table_name = ?", [view]).fetchall()]
            assert columns, view
            for column in columns:
                is_slug = column in ("model", "judge", "model_a", "model_b", "reference_model")
                is_label = column.endswith("model_name") or column == "judge_name"
                if not (is_slug or is_label):
                    continue
                values = {v for (v,) in con.execute(f'SELECT DISTINCT "{column}" FROM {view}').fetchall()} - {None}
                if is_slug:
                    assert values <= slugs, (view, column, values - slugs)
                    checked.add(view)
                else:
                    assert values <= labels and column.removesuffix("_name") in columns, (view, column, values)
        assert {"creation_leaderboard_overall", "urs_leaderboard_overall", "mmmt_if_leaderboard", "gap_leaderboard",
                "judge_report", "interop_leaderboard"} <= checked
        weak = con.execute("SELECT count(*) FROM creation_leaderboard_overall WHERE model = 'sim-weak'").fetchall()[0][0]
        assert weak == len(SHIPPED_JUDGES)
        names = {n for (n,) in con.execute("SELECT DISTINCT model_name FROM gap_leaderboard").fetchall()}
        assert names and all(n.endswith("[simulated]") for n in names), names
    finally:
        con.close()


def test_garbage_judge_trips_the_blocking_parse_failure_check(tmp_path):
    models = {k: v for k, v in SHIPPED_MODELS.items() if k in ("sim-baseline", "sim-describer", "sim-strong")}
    judges = {"sim-garbage": {"model": "sim/garbage-judge", "role": "judge", "params": {"malformed_rate": 1.0}}}
    write_registry(tmp_path, models, judges)
    resources = resources_for(tmp_path)
    with dg.instance_for_test() as instance:
        summary = materialize_everything(instance, resources)
        assert summary["failed_runs"] >= 1  # the blocking check stops the run
        key = dg.MultiPartitionKey({"model": "sim-strong", "judge": "sim-garbage"})
        result = materialize(["creation_pairwise_judgments"], instance, resources, partition_key=key)
    check = {e.check_name: e for e in result.get_asset_check_evaluations()}["pairwise_parse_failures"]
    assert not check.passed and check.severity == dg.AssetCheckSeverity.ERROR
    assert check.metadata["parse_failure_rate"].value == 1.0
    assert len(check.metadata["examples"].value) == 3
    # Parse failures are counted as Fail, never as losses.
    rows = resources["warehouse"].query("SELECT outcome, count(*) AS n FROM creation_pairwise_judgments GROUP BY ALL")
    assert rows["outcome"].tolist() == ["Fail"]


def test_our_own_battles_are_rated_under_every_style_control(demo):
    """Every judge of the demo is rated with and without style control, on every candidate and the anchor, and
    nothing is left unrated: the reference answers' style is counted under the name the battles give them."""
    wh = demo["resources"]["warehouse"]
    ratings = wh.query("SELECT judge, control, model, style_coefficients FROM interop_ratings "
                       "WHERE source = 'benchwright'")
    candidates = {slug for slug, e in SHIPPED_MODELS.items() if e.get("role") == "candidate"}
    judges = set(wh.query("SELECT DISTINCT judge FROM creation_pairwise_judgments WHERE source = 'benchwright'")["judge"])
    for judge in judges:
        for control in ("none", "style", "length", "markdown"):
            rated = ratings[(ratings["judge"] == judge) & (ratings["control"] == control)]
            assert candidates <= set(rated["model"]), (judge, control)
            # A controlled fit stores its coefficients (feature=value per covariate); the plain fit has none.
            fitted = rated["style_coefficients"].dropna().unique()
            assert (len(fitted) == 1 and "=" in fitted[0]) if control != "none" else len(fitted) == 0, (judge, control)
    event = demo["instance"].get_latest_materialization_event(dg.AssetKey("interop_ratings"))
    assert event.asset_materialization.metadata["not_rated"].value == []
