"""Dagster's instance on PostgreSQL (deploy/dagster.yaml) runs the demo graph and leaves the warehouse rows
the embedded SQLite instance leaves (the shared demo, tests/integration/conftest.py), with its runs and
events in the PostgreSQL server, not in files under the home."""

import shutil

import dagster as dg
import psycopg2

from benchwright.paths import ROOT
from resources import prepare_dagster_home
from scripts.compare_warehouses import compare
from scripts.orchestrate import materialize_everything
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry
from tests.support.postgres import postgres_server


def test_the_demo_on_a_postgres_instance_leaves_the_rows_of_the_embedded_one(shipped_demo, tmp_path, monkeypatch):
    home = tmp_path / "home"
    write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
    dagster_home = home / "dagster_home"
    dagster_home.mkdir()
    shutil.copy(ROOT / "deploy" / "dagster.yaml", dagster_home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_HOME", str(dagster_home))
    prepare_dagster_home(home)  # adds the run queue, monitoring, retention, as for the embedded home
    with postgres_server() as pg:
        for name, value in {"HOST": pg["host"], "PORT": str(pg["port"]), "USER": pg["user"],
                            "PASSWORD": pg["password"], "DB": pg["db_name"]}.items():
            monkeypatch.setenv(f"BENCHWRIGHT_PG_{name}", value)
        with dg.DagsterInstance.get() as instance:
            assert type(instance.run_storage).__name__ == "PostgresRunStorage"
            summary = materialize_everything(instance, resources_for(home))
            assert summary["failed_runs"] == 0 and summary["runs"] == shipped_demo["first"]["runs"]
            again = materialize_everything(instance, resources_for(home))
            assert (again["runs"], again["api_calls"]) == (0, 0)  # staleness read back from PostgreSQL
        with psycopg2.connect(host=pg["host"], port=pg["port"], user=pg["user"], dbname=pg["db_name"]) as con:
            with con.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM runs")
                assert cursor.fetchone()[0] == summary["runs"]
                cursor.execute("SELECT count(*) FROM event_logs WHERE dagster_event_type = 'ASSET_MATERIALIZATION'")
                assert cursor.fetchone()[0] == len(summary["materialized"])
    assert not list(dagster_home.glob("**/*.db"))  # nothing went to SQLite files
    differing = [row for row in compare(resources_for(home)["warehouse"].database, shipped_demo["warehouse"].database)
                 if row[1] < 0 or row[3] or row[4]]
    assert differing == []
