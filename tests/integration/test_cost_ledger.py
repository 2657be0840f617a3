"""The cost ledger on the whole demo graph: every call of the main job is in it once, with who asked; a
forced re-run adds cache hits only; the snapshot's cost_ledger view adds it up per model × judge × stage."""

import duckdb


def test_every_call_of_the_demo_is_in_the_ledger_once(shipped_demo):
    warehouse, first, second = shipped_demo["warehouse"], shipped_demo["first"], shipped_demo["second"]
    ledger = warehouse.query("SELECT * FROM llm_ledger")
    assert ledger["ledger_id"].is_unique
    first_rows = ledger[ledger["run_id"].isin(first["run_ids"])]
    second_rows = ledger[ledger["run_id"].isin(second["run_ids"])]
    assert len(first_rows) + len(second_rows) == len(ledger)  # no row without a run of the two jobs
    # The runs' own statistics (Dagster metadata) and the ledger count the same calls and hits.
    assert (~first_rows["cached"]).sum() == first["api_calls"] > 0
    assert first_rows["results"].where(first_rows["cached"], 0).sum() == first["cache_hits"]
    assert (first_rows.loc[~first_rows["cached"], "results"] == 1).all()  # a call is a row
    # Forced: every asset again, not one call, and every result a hit, counted per run, partition and call of the
    # LLM layer (an MMMT-IF turn is one): a few rows, not one per hit (the ledger stays small when nothing is called).
    assert second["api_calls"] == 0 and len(second_rows) > 0 and second_rows["cached"].all()
    assert second_rows["results"].sum() == second["cache_hits"] > 10 * len(second_rows)
    assert (second_rows["request_key"] == "").all()

    assert set(ledger["benchmark"]) == {"creation", "urs", "mmmt_if", "gap"}
    judged = ledger[ledger["stage"] == "creation_pairwise_judgments"]
    assert (judged["judge"] != "").all() and (judged["model"] != "").all()
    assert set(judged["partition_key"]) == {f"{judge}|{model}" for model, judge in zip(judged["model"], judged["judge"])}
    answers = ledger[ledger["stage"] == "urs_generations"]
    assert (answers["judge"] == "").all() and (answers["partition_key"] == answers["model"]).all()


def test_the_snapshot_view_and_the_job_summary_add_up(shipped_demo):
    warehouse, first = shipped_demo["warehouse"], shipped_demo["first"]
    with duckdb.connect(warehouse.snapshot_path, read_only=True) as snapshot:
        view = snapshot.execute("SELECT * FROM cost_ledger").df()
        raw = snapshot.execute("SELECT sum(results) FILTER (WHERE NOT cached), sum(results) FILTER (WHERE cached), "
                               "sum(tokens_in) FILTER (WHERE NOT cached) FROM llm_ledger").fetchone()
    assert (int(view["calls"].sum()), int(view["cache_hits"].sum()), int(view["tokens_in"].sum())) == raw
    assert not view.duplicated(["benchmark", "model", "judge", "stage"]).any()
    called = view[view["calls"] > 0]
    assert (called["latency_p50_ms"] <= called["latency_p95_ms"]).all()

    job = warehouse.query_file("core/queries/ledger/job_costs.sql", [first["run_ids"]])
    assert int(job["calls"].sum()) == first["api_calls"]
    assert int(job["cache_hits"].sum()) == first["cache_hits"]
