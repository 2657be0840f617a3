"""The real provider path, asset by asset: litellm over HTTP to an OpenAI-compatible server on loopback.

The server's answers come from our simulator (so the judge replies carry real verdict formats), but
everything between the asset and the server is the production path: LLMClient, litellm, HTTP,
retries, the response cache.
"""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb

import dagster as dg
from benchwright.simulate import complete
from resources.llm import LLMClient
from scripts.orchestrate import materialize_everything
from tests.support.openai_server import OpenAIServer
from tests.support.processes import kill_when
from tests.support.pipeline import (SHIPPED_JUDGES, SHIPPED_MODELS, SMALLER, check_results, materialize, metadata_total,
                                    pick, resources_for, write_registry)

ROOT = Path(__file__).resolve().parents[2]
ITEMS, VFS_ITEMS = 15, 14
SIM_JUDGE = "sim-fair-judge"


def simulated_reply(body: dict) -> str:
    """Answer as a simulated model named after the requested model."""
    return complete(f"sim/{body['model']}", body["messages"], {"skill": 0.8}, 0).text


def registry_for(base_url: str, max_concurrency: int = 8):
    models = {**pick(SHIPPED_MODELS, "sim-baseline", "sim-describer"),
              "http-writer": {"model": "openai/http-writer", "api_base": base_url, "role": "candidate",
                              "display_name": "Writer over HTTP", "max_concurrency": max_concurrency}}
    judges = {"http-judge": {"model": "openai/http-judge", "api_base": base_url, "role": "judge",
                             "display_name": "Judge over HTTP"}}
    return models, judges


def test_generation_and_judgment_through_litellm_with_faults(tmp_path):
    # The first requests meet a 429 with Retry-After, a 500, a timeout and a malformed body.
    faults = ["429", "500", "hang", "malformed"]
    # The whole graph runs against the server (≈ 2 min on a machine shared at a load of 10+): its lifetime, a cap
    # for a stuck test only, must not end it mid-run (the HTTP judge's last steps then failed with 500s).
    with OpenAIServer(faults=faults, retry_after="1", hang_s=20, reply=simulated_reply, max_lifetime_s=360) as srv:
        models, judges = registry_for(srv.base_url)
        # A simulated judge too: the real model it judges must read as real, the judge as simulated, everywhere.
        # Never malformed, like the HTTP judge, so URS's small cross grid (6 verdicts) stays under its parse check.
        shipped = SHIPPED_JUDGES[SIM_JUDGE]
        sim_judge = {**shipped, "params": {**shipped["params"], "malformed_rate": 0.0}}
        write_registry(tmp_path, models, {**judges, SIM_JUDGE: sim_judge})
        resources = resources_for(tmp_path)
        resources["llm"] = LLMClient(cache_path=resources["llm"].cache_path, timeout_s=3, max_retries=3)
        with dg.instance_for_test() as instance:
            # Every benchmark over HTTP, on the smaller sample: fewer MMMT-IF turns and GAP items still put rows of
            # both judges and the real model in every table, with a fraction of the requests.
            summary = materialize_everything(instance, resources, asset_config=SMALLER)
            # Every request the server saw is an answer or a retry the runner counted (the injected faults'
            # retries, and any call that a loaded machine let run past its timeout); a counted retry may also
            # never have reached the server (an attempt that timed out before it was sent).
            retries = sum(int(event.asset_materialization.metadata["retries"].value)
                          for run_id in summary["run_ids"]
                          for event in instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)
                          if "retries" in event.asset_materialization.metadata)
        assert summary["failed_runs"] == 0
        # Every call succeeded in the end (one journal row each, whatever the benchmark).
        answered = _responses(Path(resources["llm"].cache_path), "openai/http-%")
        assert answered >= ITEMS + 2 * ITEMS + VFS_ITEMS
        assert retries >= len(faults)  # each injected fault was retried
        seen = srv.count(model="http-writer") + srv.count(model="http-judge")
        assert answered + len(faults) <= seen <= answered + retries

    wh = resources["warehouse"]
    generations = wh.query("SELECT * FROM generations WHERE model = 'http-writer' AND benchmark = 'creation'")
    assert len(generations) == ITEMS and generations["error"].isna().all()
    assert (generations["tokens_out"] > 0).all() and not generations["simulated"].any()
    judgments = wh.query("SELECT * FROM creation_pairwise_judgments WHERE judge = 'http-judge'")
    assert len(judgments) == 2 * ITEMS and judgments["error"].isna().all()
    assert judgments["parse_ok"].mean() > 0.8
    board = wh.query("SELECT * FROM creation_leaderboard WHERE scope = 'overall' ORDER BY judge")
    assert board[["judge", "model"]].values.tolist() == [["http-judge", "http-writer"], [SIM_JUDGE, "http-writer"]]
    assert board["simulated"].tolist() == [False, True]
    con = duckdb.connect(wh.snapshot_path, read_only=True)
    try:
        checked = _simulation_flags_by_view(con)
    finally:
        con.close()
    con = duckdb.connect(wh.database, read_only=True)
    try:
        stored = _simulation_flags_by_table(con)
    finally:
        con.close()
    # Answers (no judge), verdicts of both judges, and the inputs other models answered (the simulated baseline's
    # references, the simulated describer's descriptions; URS's sample ships its own) carry the same flags.
    assert (None, "http-writer") in stored["generations"]
    for table in ("creation_pairwise_judgments", "creation_vfs_judgments", "urs_judgments", "urs_cross_judgments",
                  "mmmt_if_autorater_judgments", "creation_leaderboard", "llm_ledger"):
        assert {(SIM_JUDGE, "http-writer"), ("http-judge", "http-writer")} <= stored[table], table
    for table, answered_by in (("creation_references", "sim-baseline"), ("urs_references", "dataset"),
                               ("creation_image_descriptions", "sim-describer")):
        assert (None, answered_by) in stored[table], table
    # The real model judged by the simulated judge, in each benchmark's board and in the cost ledger.
    for view in ("creation_leaderboard_overall", "urs_leaderboard_overall", "gap_leaderboard", "cost_ledger"):
        assert (SIM_JUDGE, "http-writer") in checked[view], view
    assert (None, "http-writer") in checked["mmmt_if_leaderboard"]  # code checks PIF: no judge
    assert (SIM_JUDGE, None) in checked["judge_report"]


def _simulation_flags_by_view(con) -> dict[str, set]:
    """Every published view with the flags (found by column, so a new view is covered): rows of the real
    model read model_simulated = false, rows of the simulated judge judge_simulated = true, and simulated =
    either. Returns the (judge, model) pairs seen per view, to check that the rows were there."""
    views = [name for (name,) in con.execute(
        "SELECT DISTINCT c.table_name FROM information_schema.columns c JOIN duckdb_views() v "
        "ON v.view_name = c.table_name AND NOT v.internal WHERE c.column_name = 'model_simulated'").fetchall()]
    seen = {}
    for view in views:
        cursor = con.execute(f"SELECT * FROM {view}")
        columns = [d[0] for d in cursor.description]
        assert {"judge_simulated", "simulated"} <= set(columns), view
        pairs = set()
        for row in (dict(zip(columns, values)) for values in cursor.fetchall()):
            model = row.get("model") if row.get("model") in ("http-writer",) else None
            judge = row.get("judge") if row.get("judge") in (SIM_JUDGE, "http-judge") else None
            if model:
                assert row["model_simulated"] is False, (view, row)
            if judge:
                assert row["judge_simulated"] is (judge == SIM_JUDGE), (view, row)
            # (URS's cross-validation grid counts its reference model too; here that is the real model.)
            if (model or judge) and row.get("reference_model", model) in (model, "http-writer"):
                sides = [row[f] for f in ("model_simulated", "judge_simulated") if isinstance(row[f], bool)]
                assert row["simulated"] is any(sides), (view, row)
            if model or judge:
                pairs.add((judge, model))
        seen[view] = pairs
    return seen


# The registry of this test, as it means it (not read through the rule under test). Other words in a slug
# column ('dataset': the dataset's own reference, 'all') are no entry, so no simulation.
SIMULATED = {"http-writer": False, "http-judge": False, SIM_JUDGE: True, "sim-baseline": True, "sim-describer": True}
# The column that names the model who answered, in a table without a `model` column.
ANSWERED_BY = ("baseline", "describer", "reference_model")


def _simulation_flags_by_table(con) -> dict[str, set]:
    """Every warehouse table with a `simulated` column (found by column, so a new table is covered) carries
    model_simulated and judge_simulated: each row's flag is its model's (or, in a table of references or
    descriptions, the model's that answered) and its judge's, NULL where the table has no such side, and
    `simulated` is either. Returns the (judge, answering model) pairs seen per table."""
    tables = [name for (name,) in con.execute(
        "SELECT DISTINCT c.table_name FROM duckdb_columns() c JOIN duckdb_tables() t "
        "ON t.table_name = c.table_name AND NOT t.internal WHERE c.column_name = 'simulated'").fetchall()]
    assert {"generations", "creation_pairwise_judgments", "creation_leaderboard"} <= set(tables)
    seen = {}
    for table in tables:
        cursor = con.execute(f"SELECT * FROM {table}")
        columns = [d[0] for d in cursor.description]
        assert {"model_simulated", "judge_simulated"} <= set(columns), table
        answered = "model" if "model" in columns else next((c for c in ANSWERED_BY if c in columns), None)
        pairs = set()
        for row in (dict(zip(columns, values)) for values in cursor.fetchall()):
            # ('' in the cost ledger: a call for no model, or an answer, which has no judge)
            model, judge = (row.get(answered) or None) if answered else None, row.get("judge") or None
            if model is None:
                assert row["model_simulated"] is None, (table, row)
            elif model in SIMULATED or model == "dataset":
                assert row["model_simulated"] is SIMULATED.get(model, False), (table, row)
            if "judge" not in columns or judge is None:
                assert row["judge_simulated"] is None, (table, row)
            elif judge in SIMULATED:
                assert row["judge_simulated"] is SIMULATED[judge], (table, row)
            sides = [row[f] for f in ("model_simulated", "judge_simulated") if isinstance(row[f], bool)]
            reference = row.get("reference_model") if answered != "reference_model" else None
            if table != "llm_ledger":  # the journal's own `simulated`: that one call went to the simulator
                assert row["simulated"] is (any(sides) or row["simulated"] and SIMULATED.get(reference, False)), (
                    table, row)
            pairs.add((judge, model))
        seen[table] = pairs
    return seen


CHILD = """
import sys
import dagster as dg
from tests.support.pipeline import materialize, resources_for
from pathlib import Path
resources = resources_for(Path(sys.argv[1]))
with dg.instance_for_test() as instance:
    instance.add_dynamic_partitions("models", ["http-writer"])
    materialize(["creation_generations"], instance, resources, partition_key="http-writer")
"""


def _responses(cache: Path, model_like: str = "openai/http-writer") -> int:
    try:
        con = sqlite3.connect(str(cache), timeout=5)
        try:
            return con.execute("SELECT count(*) FROM responses WHERE model LIKE ?", [model_like]).fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def test_killed_generation_run_repeats_no_finished_call(tmp_path):
    with OpenAIServer(latency_s=0.3, reply=simulated_reply, max_lifetime_s=120) as srv:
        models, judges = registry_for(srv.base_url, max_concurrency=2)
        write_registry(tmp_path, models, judges)
        resources = resources_for(tmp_path)
        with dg.instance_for_test() as instance:
            assert materialize(["creation_items"], instance, resources).success
            assert materialize(["creation_image_descriptions"], instance, resources).success
        cache = Path(resources["llm"].cache_path)

        child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], cwd=ROOT,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        kill_when(child, lambda: _responses(cache) >= 4)
        finished = _responses(cache)
        assert 4 <= finished < ITEMS

        srv.reset_counts()
        with dg.instance_for_test() as instance:
            instance.add_dynamic_partitions("models", ["http-writer"])
            result = materialize(["creation_generations"], instance, resources, partition_key="http-writer")
        assert result.success
        assert srv.count(model="http-writer") == ITEMS - finished
        assert metadata_total(result, "api_calls") == ITEMS - finished
        assert metadata_total(result, "cache_hits") == finished

    # The warehouse opens cleanly and the partition is complete, once.
    con = duckdb.connect(resources["warehouse"].database, read_only=True)
    try:
        rows = con.execute("SELECT count(*), count(DISTINCT item_id), count(error) FROM generations "
                           "WHERE model = 'http-writer'").fetchall()[0]
    finally:
        con.close()
    assert rows == (ITEMS, ITEMS, 0)


def test_answers_without_content_are_failed_calls_asked_again_and_do_not_fail_the_schema_check(tmp_path):
    # A provider's 200 with "content": null (a refusal, a content filter), for 3 candidate answers and
    # then 2 judge calls: error rows, not empty answers; the schema check passes and counts them; the
    # next run asks exactly those again and completes the partition.
    with OpenAIServer(faults=["no_content"] * 3, reply=simulated_reply, max_lifetime_s=180) as srv:
        models, judges = registry_for(srv.base_url)
        write_registry(tmp_path, models, judges)
        resources = resources_for(tmp_path)
        pair = dg.MultiPartitionKey({"model": "http-writer", "judge": "http-judge"})
        wh = resources["warehouse"]
        with dg.instance_for_test() as instance:
            instance.add_dynamic_partitions("models", ["http-writer"])
            instance.add_dynamic_partitions("judges", ["http-judge"])
            assert materialize(["creation_items", "creation_image_descriptions", "creation_references"],
                               instance, resources).success
            generated = materialize(["creation_generations"], instance, resources, partition_key="http-writer")
            # 3 of 15 calls failed: the blocking failed_calls check is an ERROR (above 10 %), which fails the run.
            failed_calls = check_results(generated)["failed_calls"]
            assert not generated.success and not failed_calls.passed
            assert failed_calls.severity == dg.AssetCheckSeverity.ERROR
            assert failed_calls.metadata["failed_calls"].value == 3 and failed_calls.metadata["requests"].value == ITEMS
            answers = wh.query("SELECT response, error FROM generations WHERE model = 'http-writer'")
            failed = answers[answers["error"].notna()]
            assert len(answers) == ITEMS and len(failed) == 3 and failed["response"].isna().all()
            assert failed["error"].str.contains("no content").all() and (answers["response"] != "").all()

            srv.faults = ["no_content"] * 2
            first = materialize(["creation_pairwise_judgments"], instance, resources, partition_key=pair)
            checks = check_results(first)
            # 2 of 24 judge calls failed: a WARN, which does not fail the run
            assert checks["failed_calls"].severity == dg.AssetCheckSeverity.WARN and not checks["failed_calls"].passed
            assert first.success and checks["schema_and_ranges"].passed, checks["schema_and_ranges"].metadata
            assert checks["schema_and_ranges"].metadata["failed_calls"].value == 2
            assert checks["pairwise_parse_failures"].passed
            judged = wh.query("SELECT outcome, error FROM creation_pairwise_judgments WHERE judge = 'http-judge'")
            assert len(judged) == 2 * (ITEMS - 3) and judged["error"].notna().sum() == 2
            assert judged[judged["error"].notna()]["outcome"].isna().all()

            srv.reset_counts()
            again = materialize(["creation_generations"], instance, resources, partition_key="http-writer")
            assert srv.count(model="http-writer") == 3 and metadata_total(again, "api_calls") == 3
            assert wh.query("SELECT count(*) AS n FROM generations WHERE model = 'http-writer' "
                            "AND response IS NOT NULL AND error IS NULL")["n"][0] == ITEMS
            second = materialize(["creation_pairwise_judgments"], instance, resources, partition_key=pair)
            # The two failed judge calls and both orders of the three new answers; nothing else.
            assert srv.count(model="http-judge") == 2 + 2 * 3 and metadata_total(second, "api_calls") == 8
            judged = wh.query("SELECT outcome, error FROM creation_pairwise_judgments WHERE judge = 'http-judge'")
            assert len(judged) == 2 * ITEMS and judged["error"].isna().all() and judged["outcome"].notna().all()
