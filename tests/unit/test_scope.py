"""The main job's scope (benchwright/scope.py): names checked against the registry with a did-you-mean, the
limited run's home, which assets and partitions a scope keeps; and the command line refusing a typo with
status 2 before anything runs."""

from pathlib import Path

import pytest

from benchwright.scope import Scope, ScopeError, benchmark_of, checked_scope, is_limited_home, limited_home

CANDIDATES = ["sim-strong", "sim-average", "gpt-4o-mini"]
JUDGES = ["sim-fair-judge", "sim-biased-judge", "sim-panel"]


def scope(**options) -> Scope:
    return checked_scope(known_models=CANDIDATES, known_judges=JUDGES, **options)


def test_no_option_is_everything():
    everything = scope()
    assert everything == Scope() and not everything.narrowed and not everything.by_entry
    assert everything.pick("models", CANDIDATES) == CANDIDATES
    assert everything.covers_benchmark("urs") and everything.home(Path("/h")) == Path("/h")


def test_a_typo_names_the_closest_registered_slug():
    with pytest.raises(ScopeError) as refused:
        scope(models=["sim-strnog"])
    message = str(refused.value)
    assert "--model 'sim-strnog': no such candidate" in message and "did you mean 'sim-strong'?" in message
    assert "registered candidates: gpt-4o-mini, sim-average, sim-strong" in message


def test_every_fault_is_listed_at_once():
    with pytest.raises(ScopeError) as refused:
        scope(benchmarks=["creation", "urz"], judges=["sim-fair-jugde", "sim-fair-judge"], limit=0)
    lines = str(refused.value).splitlines()
    assert "--benchmark 'urz': no such benchmark; did you mean 'urs'?" in lines
    assert "--judge 'sim-fair-jugde': no such judge or judge panel in the registry; did you mean 'sim-fair-judge'?" \
        in lines
    assert "--limit must be a whole number of at least 1, not 0 (or 'anchors')" in lines


def test_a_name_far_from_every_known_one_gets_no_guess():
    with pytest.raises(ScopeError) as refused:
        scope(benchmarks=["mmlu"])
    assert "--benchmark 'mmlu': no such benchmark\n" in str(refused.value)
    assert "did you mean" not in str(refused.value)


def test_a_refused_entry_is_named_as_refused():
    with pytest.raises(ScopeError) as refused:
        scope(models=["sim-dated"], refused={"sim-dated": "models.yaml: entry 'sim-dated': params.since is a YAML date"})
    assert str(refused.value).startswith("--model 'sim-dated': its registry entry is refused: models.yaml: entry "
                                         "'sim-dated': params.since is a YAML date")


def test_a_model_is_not_a_judge():
    with pytest.raises(ScopeError, match="--judge 'sim-strong': no such judge"):
        scope(judges=["sim-strong"])  # a candidate given as a judge: refused, not judged by nobody


def test_repeats_are_kept_once_in_order_and_pick_keeps_registry_order():
    chosen = scope(models=["gpt-4o-mini", "sim-strong", "gpt-4o-mini"], judges=["sim-panel"])
    assert chosen.models == ("gpt-4o-mini", "sim-strong")
    assert chosen.pick("models", CANDIDATES) == ["sim-strong", "gpt-4o-mini"]
    assert chosen.pick("judges", JUDGES) == ["sim-panel"]
    assert chosen.narrowed and chosen.by_entry


def test_benchmark_scope_keeps_assets_of_no_benchmark():
    chosen = scope(benchmarks=["creation"])
    assert chosen.narrowed and not chosen.by_entry  # every model and judge: URS's grid may run in a urs scope
    assert chosen.covers_benchmark("creation") and not chosen.covers_benchmark("urs")
    assert chosen.covers_benchmark(None)  # the ledger, the snapshot


def test_assets_belong_to_a_benchmark_by_name():
    assert benchmark_of("creation_panel_vfs_judgments") == "creation"
    assert benchmark_of("mmmt_if_release_metrics") == "mmmt_if"
    assert benchmark_of("urs_cross_judgments") == "urs"
    assert benchmark_of("interop_mmmt_if_release") == "interop"  # an import, not the benchmark
    assert benchmark_of("analyst_snapshot") is None
    assert benchmark_of("tiny_generations", ["creation", "tiny"]) == "tiny"


def test_a_limited_run_has_a_home_of_its_own_per_limit():
    assert scope(limit=5).home(Path("/h")) == limited_home(Path("/h"), 5) == Path("/h/limited/5")
    assert is_limited_home(Path("/h/limited/5"), 5) and not is_limited_home(Path("/h/limited/5"), 6)
    assert not is_limited_home(Path("/h"), 5)
    assert scope(limit=5).home(Path("/h")) != scope(limit=6).home(Path("/h"))
    assert "first 5 items of each benchmark" in scope(limit=5).describe()
    with pytest.raises(ScopeError):
        scope(limit=True)  # not a count


def test_a_run_on_the_anchor_items_has_a_home_of_its_own():
    anchored = scope(limit="anchors")
    assert anchored.anchored and anchored.narrowed and not scope(limit=5).anchored
    assert anchored.home(Path("/h")) == Path("/h/limited/anchors") and is_limited_home(Path("/h/limited/anchors"),
                                                                                       "anchors")
    assert "the anchor items of each benchmark with an anchor set" in anchored.describe()
    with pytest.raises(ScopeError, match="not 'anchor'"):
        scope(limit="anchor")


def test_every_benchmark_that_calls_models_limits_its_items():
    from scripts.orchestrate import limited_asset_config
    from sensors.failed_calls import llm_asset_keys

    calling = {benchmark_of(key.to_user_string()) for key in llm_asset_keys()}
    # None: canary_judgments, which serves every benchmark (left out of a run scoped by benchmark, and its items are
    # the first of each benchmark's, which a limit keeps)
    assert calling == {"creation", "gap", "mmmt_if", "urs", None}
    calling.discard(None)
    config = limited_asset_config(3)
    for benchmark in calling:
        assert any(benchmark_of(asset) == benchmark for asset in config), benchmark
    assert config["gap_generations"] == {"max_val_items": 3}
    assert limited_asset_config(1000)["gap_generations"] == {"max_val_items": 40}  # never more than a full run


@pytest.mark.parametrize("argv, expected", [
    (["--model", "sim-strnog"], "did you mean 'sim-strong'?"),
    (["--benchmark", "creaton"], "did you mean 'creation'?"),
    (["--judge", "sim-fair"], "did you mean 'sim-fair-judge'?"),
    (["--limit", "0"], "must be a whole number (at least 1), not '0'"),
])
def test_the_command_refuses_before_running(argv, expected, tmp_path, monkeypatch, capsys):
    from scripts.materialize_all import main

    home = tmp_path / "home"
    monkeypatch.setenv("BENCHWRIGHT_HOME", str(home))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster_home"))
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert expected in capsys.readouterr().err
    assert not home.exists()  # nothing was created, nothing ran


def test_what_a_scope_leaves_out_of_the_asset_graph():
    from definitions import defs
    from scripts.orchestrate import out_of_scope
    from sensors.failed_calls import llm_asset_keys

    graph, calling = defs.resolve_asset_graph(), set(llm_asset_keys())
    names = lambda chosen: {key.to_user_string() for key in out_of_scope(graph, chosen, calling)}  # noqa: E731
    assert names(Scope()) == set()
    # By model or judge: only the grid that asks every judge about every model; the baseline's, the describer's and
    # the game's steps are what the scope's partitions need first.
    assert names(Scope(models=("sim-strong",))) == names(Scope(judges=("sim-fair-judge",))) == {"urs_cross_judgments"}
    urs_only = names(Scope(benchmarks=("urs",)))
    assert {"creation_generations", "gap_tainted_answers", "mmmt_if_chats", "interop_arena_hard"} <= urs_only
    assert not any(name.startswith("urs_") for name in urs_only)
    assert not {"analyst_snapshot", "llm_ledger"} & urs_only  # assets of no benchmark stay
    assert "urs_cross_judgments" in names(Scope(benchmarks=("urs",), models=("sim-strong",)))


def test_a_limited_run_refuses_a_full_home(tmp_path):
    from resources import default_resources
    from scripts.orchestrate import materialize_everything

    # Refused before the instance is touched (None here) and before anything is written.
    with pytest.raises(ValueError, match="writes to a limited home"):
        materialize_everything(None, default_resources(home=tmp_path), scope=Scope(limit=3))
    assert not (tmp_path / "warehouse.duckdb").exists()


def test_dev_py_run_is_the_main_job_with_its_scope(tmp_path):
    import os
    import subprocess
    import sys

    from benchwright.paths import ROOT

    env = {**os.environ, "BENCHWRIGHT_HOME": str(tmp_path / "home")}
    env.pop("DAGSTER_HOME", None)
    typo = subprocess.run([sys.executable, str(ROOT / "dev.py"), "run", "--judge", "sim-biased-jugde"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert typo.returncode == 2, typo.stderr
    assert "did you mean 'sim-biased-judge'?" in typo.stderr
    assert not (tmp_path / "home" / "warehouse.duckdb").exists()
