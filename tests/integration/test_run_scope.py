"""`dev.py run` scoped, end to end (scripts/materialize_all.py, in this process): two candidates and two judges that
answer over HTTP from the loopback server, which counts every request. A run scoped to one benchmark, one model,
one judge and the first 2 items asks exactly those calls and writes to a home of its own; the full run of the
same model and judge that follows asks only what the smoke test did not: every answer it paid for comes from the
shared response cache."""

import re
import sqlite3
import time
from pathlib import Path

import duckdb
import pytest

from benchwright.simulate import complete
from scripts.materialize_all import main
from scripts.plan import main as plan_main
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline import SHIPPED_MODELS, pick, write_registry

LIMIT = 2


def simulated_reply(body: dict) -> str:
    """Answer as a simulated model named after the requested model (real verdict formats for the judges)."""
    return complete(f"sim/{body['model']}", body["messages"], {"skill": 0.8}, 0).text


def http_entry(slug: str, role: str, base_url: str) -> dict:
    return {"model": f"openai/{slug}", "api_base": base_url, "role": role, "display_name": slug}


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A fresh home whose registry names the loopback server's models; the environment the command reads."""
    home = tmp_path / "home"
    monkeypatch.setenv("BENCHWRIGHT_MODELS", str(tmp_path / "registry" / "models.yaml"))
    monkeypatch.setenv("BENCHWRIGHT_JUDGES", str(tmp_path / "registry" / "judges.yaml"))
    for variable in ("BENCHWRIGHT_WAREHOUSE", "BENCHWRIGHT_PANELS", "BENCHWRIGHT_LLM_MODE", "BENCHWRIGHT_PROVIDERS",
                     "BENCHWRIGHT_PLUGINS"):
        monkeypatch.delenv(variable, raising=False)
    with OpenAIServer(reply=simulated_reply, max_lifetime_s=240) as server:
        models = {**pick(SHIPPED_MODELS, "sim-baseline", "sim-describer"),
                  **{slug: http_entry(slug, "candidate", server.base_url) for slug in ("writer-a", "writer-b")}}
        judges = {slug: http_entry(slug, "judge", server.base_url) for slug in ("judge-a", "judge-b")}
        write_registry(tmp_path / "registry", models, judges)
        yield home, server, monkeypatch


def run(home: Path, monkeypatch, *options: str) -> float:
    """The command as a new process starts it: with the user's home (a limited run moves its own process to
    the limited home)."""
    monkeypatch.setenv("BENCHWRIGHT_HOME", str(home))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster_home"))
    started = time.monotonic()
    assert main([*options, "--parallel-runs", "1"]) == 0
    return time.monotonic() - started


def rows(warehouse: Path, sql: str) -> int:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def asked(home: Path, model: str) -> int:
    """Distinct requests of a model answered in the home's response cache (one journal row each)."""
    con = sqlite3.connect(str(home / "llm_cache.sqlite3"))
    try:
        return con.execute("SELECT count(*) FROM responses WHERE model = ?", [f"openai/{model}"]).fetchone()[0]
    finally:
        con.close()


GENERATIONS = "SELECT count(*) FROM generations WHERE model = 'writer-a' AND benchmark = 'creation' AND error IS NULL"
JUDGMENTS = ("SELECT (SELECT count(*) FROM creation_pairwise_judgments WHERE judge = 'judge-a' AND error IS NULL) + "
             "(SELECT count(*) FROM creation_vfs_judgments WHERE judge = 'judge-a' AND error IS NULL)")


def test_a_scoped_limited_run_asks_its_scope_and_the_full_run_reuses_it(home, capsys):
    home, server, monkeypatch = home
    scope = ["--benchmark", "creation", "--model", "writer-a", "--judge", "judge-a"]
    cpu_started = time.process_time()
    # `dev.py plan` with the same options counts the scoped, limited run's calls without making one.
    monkeypatch.setenv("BENCHWRIGHT_HOME", str(home))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster_home"))
    capsys.readouterr()
    assert plan_main([*scope, "--limit", str(LIMIT)]) == 0
    planned = int(re.search(r"Would call: (\d+) calls", capsys.readouterr().out).group(1))
    assert server.count() == 0 and not (home / "limited" / str(LIMIT) / "warehouse.duckdb").exists()
    limited_s = run(home, monkeypatch, *scope, "--limit", str(LIMIT))
    assert planned == server.count() > 0

    limited = home / "limited" / str(LIMIT) / "warehouse.duckdb"
    # Its own home: the full home holds only the shared cache, no warehouse, snapshot or Dagster runs of it.
    assert limited.exists() and not (home / "warehouse.duckdb").exists() and not (home / "analyst.duckdb").exists()
    assert (home / "llm_cache.sqlite3").exists() and not (limited.parent / "llm_cache.sqlite3").exists()
    assert rows(limited, "SELECT count(*) FROM creation_items") == LIMIT
    # Exactly the scope's calls: writer-a's answers to the 2 items, judge-a's verdicts on them; nothing else.
    assert server.count(model="writer-a") == rows(limited, GENERATIONS) == LIMIT
    assert server.count(model="judge-a") == rows(limited, JUDGMENTS) > 0
    assert server.count(model="writer-b") == server.count(model="judge-b") == 0
    assert server.count() == server.count(model="writer-a") + server.count(model="judge-a")
    # Other benchmarks were out of scope: none of their items were even loaded.
    for table in ("urs_items", "mmmt_if_chats", "gap_vqa_items"):
        assert rows(limited, f"SELECT count(*) FROM {table}") == 0, table
    smoke = {"writer-a": server.count(model="writer-a"), "judge-a": server.count(model="judge-a")}

    server.reset_counts()
    full_s = run(home, monkeypatch, *scope)
    full = home / "warehouse.duckdb"
    items = rows(full, "SELECT count(*) FROM creation_items")
    assert items > LIMIT and rows(full, GENERATIONS) == items
    # The full run asked only what the smoke test had not: its answers came from the cache, none was asked twice.
    assert server.count(model="writer-a") == items - smoke["writer-a"]
    assert server.count(model="judge-a") == rows(full, JUDGMENTS) - smoke["judge-a"]
    for model in ("writer-a", "judge-a"):
        assert asked(home, model) == smoke[model] + server.count(model=model), model
    assert server.count(model="writer-b") == server.count(model="judge-b") == 0
    # The smoke test's home is as it was: its partial figures and the full ones live apart.
    assert rows(limited, "SELECT count(*) FROM creation_items") == LIMIT
    assert rows(limited, GENERATIONS) == LIMIT
    # Planning the smoke test again, now that its own home has a warehouse: it copies that home and has nothing
    # left to call.
    capsys.readouterr()
    assert plan_main([*scope, "--limit", str(LIMIT)]) == 0
    assert re.search(r"Would call: 0 calls", capsys.readouterr().out)
    print(f"limited run {limited_s:.1f} s, full run {full_s:.1f} s (wall); {time.process_time() - cpu_started:.1f} s CPU")


def test_each_benchmark_takes_its_first_items(tmp_path):
    """`--limit`'s run config (each module's `limited_config`) on the dataset steps and the game's questions: the
    first N usable items in file order, and for the game the very questions a full run asks of those pictures."""
    import dagster as dg

    from benchwright.creation.loader import stream_creation_items
    from benchwright.loading import LoadProblem
    from benchwright.mmmt_if.loader import load_chats
    from benchwright.paths import ROOT
    from benchwright.urs.loader import load_urs_csv
    from scripts.orchestrate import limited_asset_config
    from tests.support.pipeline import materialize, resources_for

    write_registry(tmp_path, pick(SHIPPED_MODELS, "sim-baseline", "sim-describer"), {})
    resources = resources_for(tmp_path)
    warehouse = resources["warehouse"]
    limited = {"ops": {name: {"config": config} for name, config in limited_asset_config(LIMIT).items()}}
    first = lambda ids: list(ids)[:LIMIT]  # noqa: E731
    with dg.instance_for_test() as instance:
        full_game = materialize(["gap_images", "gap_tainted_answers"], instance, resources)
        assert full_game.success
        questions = "SELECT image_id, question_index, question, instructed_wrong FROM gap_tainted_answers ORDER BY ALL"
        full_questions = warehouse.query(questions)
        assert materialize(["gap_tainted_answers"], instance, resources, run_config={
            "ops": {"gap_tainted_answers": limited["ops"]["gap_tainted_answers"]}}).success
        limited_questions = warehouse.query(questions)
        pictures = first(sorted(full_questions["image_id"].unique()))
        assert sorted(limited_questions["image_id"].unique()) == pictures
        assert limited_questions.equals(full_questions[full_questions["image_id"].isin(pictures)].reset_index(drop=True))

        keys = ["creation_items", "urs_items", "mmmt_if_source_chats"]
        assert materialize(keys, instance, resources, run_config={"ops": {k: limited["ops"][k] for k in keys}}).success
    creation = [e.item_id for e in stream_creation_items(ROOT / "sample_data/creation/items.jsonl")
                if not isinstance(e, LoadProblem)]
    assert sorted(warehouse.query("SELECT item_id FROM creation_items")["item_id"]) == sorted(first(creation))
    urs = [item.item_id for item in load_urs_csv(ROOT / "sample_data/urs/questions.csv").items]
    assert sorted(warehouse.query("SELECT item_id FROM urs_items")["item_id"]) == sorted(first(urs))
    chats = [chat.chat_id for chat in load_chats(ROOT / "sample_data/mmmt_if/chats.jsonl")[0]]
    assert sorted(warehouse.query("SELECT chat_id FROM mmmt_if_source_chats")["chat_id"]) == sorted(first(chats))
    # The pictures of the chats kept are stored with them.
    kept = {h for hashes in warehouse.query("SELECT image_hashes FROM mmmt_if_source_chats")["image_hashes"] for h in hashes}
    assert kept <= set(warehouse.query("SELECT sha256 FROM images")["sha256"])


def test_a_run_on_the_anchors_keeps_only_their_items(tmp_path):
    """`--limit anchors`' run config: Creation and URS load only the anchor items named in the full home's snapshot
    (the union over a benchmark's judges), and anchor_sets copies the sets from there
    (benchwright.anchors.anchored_items, each module's anchored_config)."""
    import dagster as dg
    import pandas as pd

    from scripts.orchestrate import limited_asset_config
    from tests.support.pipeline import materialize, resources_for

    fits = pd.DataFrame({"benchmark": ["creation", "creation", "urs"], "source": "benchwright",
                         "judge": ["j1", "j2", "j1"], "status": "fitted", "reason": ""})
    items = pd.DataFrame({"benchmark": ["creation"] * 4 + ["urs"] * 2,
                          "item_id": ["lw-001", "cfw-002", "lw-001", "pfw-003", "urs-0003", "urs-0001"],
                          "is_anchor": [True, True, True, False, True, True]})
    with duckdb.connect(str(tmp_path / "analyst.duckdb")) as con:
        con.execute("CREATE TABLE anchor_fits AS SELECT * FROM fits")
        con.execute("CREATE TABLE anchor_items AS SELECT * FROM items")
    config = limited_asset_config("anchors", tmp_path)
    assert config == {"anchor_sets": {"from_snapshot": str(tmp_path / "analyst.duckdb")},
                      "creation_items": {"item_ids": ["cfw-002", "lw-001"]},
                      "urs_items": {"item_ids": ["urs-0001", "urs-0003"]}}

    home = tmp_path / "limited" / "anchors"
    write_registry(home, pick(SHIPPED_MODELS, "sim-baseline", "sim-describer"), {})
    resources = resources_for(home)
    keys = ["creation_items", "urs_items"]
    with dg.instance_for_test() as instance:
        assert materialize(keys, instance, resources, run_config={"ops": {k: {"config": config[k]} for k in keys}}).success
    warehouse = resources["warehouse"]
    assert sorted(warehouse.query("SELECT item_id FROM creation_items")["item_id"]) == ["cfw-002", "lw-001"]
    assert sorted(warehouse.query("SELECT item_id FROM urs_items")["item_id"]) == ["urs-0001", "urs-0003"]


def test_a_run_on_the_anchors_asks_only_their_calls_and_prints_the_estimates(home, capsys):
    """`dev.py run --limit anchors` end to end on a full home whose snapshot holds a Creation anchor set (planted:
    the sample has too few items to fit one): only the anchor items are answered and judged, in
    `<home>/limited/anchors/`, and the run ends with each model's estimated full score and its interval."""
    import pandas as pd

    home, server, monkeypatch = home
    home.mkdir(parents=True)
    chosen = ["cfw-002", "lw-001"]
    fits = pd.DataFrame([{"benchmark": "creation", "source": "benchwright", "judge": "judge-a", "baseline": "x",
                          "status": "fitted", "reason": "", "models": 12, "items": 60, "anchors": 2,
                          "outcome_weights": "w", "single_game_rule": "none", "score_min": 0.0, "score_max": 100.0,
                          "weight_slope": 0.0, "seed": 0}])
    items = pd.DataFrame({"benchmark": "creation", "source": "benchwright", "judge": "judge-a",
                          "item_id": chosen + ["pfw-001"], "is_anchor": [True, True, False],
                          "weight": [0.5, 0.5, 0.0], "discrimination": 1.0, "intercept": 0.0, "difficulty": 0.0,
                          "mean_weight": 2.0, "mean_decisiveness": 0.1})
    with duckdb.connect(str(home / "analyst.duckdb")) as con:
        con.execute("CREATE TABLE anchor_fits AS SELECT * FROM fits")
        con.execute("CREATE TABLE anchor_items AS SELECT * FROM items")
    capsys.readouterr()
    run(home, monkeypatch, "--model", "writer-a", "--judge", "judge-a", "--limit", "anchors")
    printed = capsys.readouterr().out
    limited = home / "limited" / "anchors" / "warehouse.duckdb"
    assert sorted(duckdb.connect(str(limited), read_only=True).execute(
        "SELECT item_id FROM creation_items").df()["item_id"]) == chosen
    assert server.count(model="writer-a") == rows(limited, GENERATIONS) == len(chosen)
    assert server.count(model="writer-b") == server.count(model="judge-b") == 0
    estimate = duckdb.connect(str(limited), read_only=True).execute(
        "SELECT * FROM anchor_estimates WHERE model = 'writer-a'").df()
    assert len(estimate) == 1 and estimate.loc[0, "anchors_answered"] == 2 and estimate.loc[0, "judge"] == "judge-a"
    assert estimate.loc[0, "estimate_low"] <= estimate.loc[0, "estimate"] <= estimate.loc[0, "estimate_high"]
    # The sets are the full home's, copied, not fitted on the two items judged here.
    copied = duckdb.connect(str(limited), read_only=True).execute("SELECT * FROM anchor_items ORDER BY item_id").df()
    assert copied.equals(items.sort_values("item_id").reset_index(drop=True))
    assert "Estimated full-benchmark scores from the anchor items" in printed
    assert "the anchor items of each benchmark with an anchor set" in printed
