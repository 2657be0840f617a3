"""Secrets and personal data, end to end.

The Creation graph runs in a child process, like the main job, with a fake OpenAI key in its
environment: simulated baseline and describer, a candidate and a judge served over HTTP by the
loopback server. Every answer of the server carries each kind of personal data our redactor knows,
the items file carries some too, and the first call meets a 401 whose message echoes the key (the
worst a provider can do). Python logging is at DEBUG for every library and Dagster's console logger
at DEBUG. Afterwards the key must be in none of: the warehouse, the analyst snapshot, the response
cache, the Dagster instance (runs, event logs, captured compute logs), stdout, stderr, the log file;
and no personal data may be left in the warehouse, snapshot, cache or event logs.
"""

import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import dagster as dg
import duckdb
import pytest
from dagster_shared.serdes import serialize_value

from benchwright.pii import KINDS, find_pii
from benchwright.simulate import complete
from benchwright.paths import ROOT
from tests.reliability._support import containing, duckdb_text, files_containing, http_entry, sqlite_dump
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline import SHIPPED_MODELS, pick, write_registry

# The first items of the sample: enough for every path, few enough to keep DEBUG logs small, and enough that the
# one 401 among the candidate's calls stays below the failed_calls check's ERROR share (1 of 11), so the run succeeds.
ITEMS = 11

# One of every kind, in the forms people write them.
PERSONAL_DATA = {
    "email": ["maria.rossi@example.org"],
    "iban": ["DE89 3704 0044 0532 0130 00", "FR1420041010050500013M02606"],
    "phone": ["+44 20 7946 0958", "(415) 555-0199", "06 12 34 56 78", "+33 6 12 34 56 78", "415-555-0134 ext. 12",
              "(415) 555-0134 ext 12"],
    "payment_card": ["4111 1111 1111 1111"],  # passes the Luhn check
    "ip_address": ["203.0.113.45", "2001:db8:85a3::8a2e:370:7334"],
    "national_id": ["123-45-6789", "11010519491231002X", "AB 12 34 56 C"],  # US SSN, Chinese ID, UK NINO
    "street_address": ["221B Baker Street"],
}
# Numbers stdnum refuses as never issued, but called an SSN: personal data all the same (the value alone,
# without its label, is not found, so these are looked for apart).
NAMED_SSNS = ["078-05-1120", "219-09-9999"]
ALL_PERSONAL = [value for values in PERSONAL_DATA.values() for value in values] + NAMED_SSNS
NOT_A_CARD = "4111 1111 1111 1112"  # fails the Luhn check: must survive untouched
PII_TEXT = ("Write to maria.rossi@example.org or call +44 20 7946 0958 or (415) 555-0199, in Paris 06 12 34 56 78 "
            "or +33 6 12 34 56 78. IBAN DE89 3704 0044 0532 0130 00 or FR1420041010050500013M02606. "
            "Card 4111 1111 1111 1111 "
            f"(order ref {NOT_A_CARD}). Host 203.0.113.45 and 2001:db8:85a3::8a2e:370:7334. SSN 123-45-6789, "
            "resident ID 11010519491231002X, NI number AB 12 34 56 C. Office: 221B Baker Street. "
            "Desk 415-555-0134 ext. 12 or (415) 555-0134 ext 12. My SSN 078-05-1120, my wife's SSN: 219-09-9999.")
ITEM_PII = "Reach the author at maria.rossi@example.org or +44 20 7946 0958."
# People's files: a game log written by some other producer than our web app (nothing masked), and an
# annotator who signed with an e-mail address.
PLAYER_EMAIL = "jean.dupont@exemple.fr"
GAME_QUESTION = "My IBAN is FR1420041010050500013M02606 and my phone 06 12 34 56 78: how many circles?"
GAME_ANSWER = "Call +44 20 7946 0958 or mail maria.rossi@example.org; there are three circles."

CHILD = """
import json, logging, sys
from pathlib import Path
home, log_file, summary_file, items = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), sys.argv[4]
logging.basicConfig(level=logging.DEBUG, filename=log_file, format="%(asctime)s %(name)s %(levelname)s %(message)s")
import dagster as dg
from benchwright.llm.litellm_setup import load_litellm as _litellm
from tests.support.pipeline import materialize, resources_for
_litellm()
for name in list(logging.root.manager.loggerDict):  # libraries that set their own level: all to DEBUG
    logging.getLogger(name).setLevel(logging.DEBUG)
resources = resources_for(home)
console = {"loggers": {"console": {"config": {"log_level": "DEBUG"}}}}
pair = dg.MultiPartitionKey({"model": "http-writer", "judge": "http-judge"})
steps = [
    (["creation_items"], None, {**console, "ops": {"creation_items": {"config": {"path": items}}}}),
    (["creation_references", "creation_image_descriptions"], None, console),
    (["creation_generations"], "http-writer", console),
    (["creation_pairwise_judgments", "creation_vfs_judgments"], pair, console),
    (["creation_leaderboard", "judge_quality", "creation_human_alignment"], None, console),
    (["gap_images", "gap_game_logs", "gap_reliability", "gap_vqa_dataset"], None, console),
    (["analyst_snapshot"], None, console),
]
summary = {"runs": [], "checks": {}, "metadata": {}}
with dg.DagsterInstance.get() as instance:
    instance.add_dynamic_partitions("models", ["http-writer"])
    instance.add_dynamic_partitions("judges", ["http-judge"])
    for keys, partition_key, run_config in steps:
        result = materialize(keys, instance, resources, partition_key=partition_key, run_config=run_config)
        summary["runs"].append(result.success)
        for e in result.get_asset_check_evaluations():
            summary["checks"][e.check_name] = e.passed
        for e in result.get_asset_materialization_events():
            summary["metadata"][e.asset_key.to_user_string()] = {
                k: v.value for k, v in e.materialization.metadata.items() if isinstance(v.value, (int, float, str))}
summary_file.write_text(json.dumps(summary))
"""


def server_reply(body: dict) -> str:
    """The candidate echoes its prompt; the judge answers in the real format; both add personal data."""
    if body["model"] == "http-judge":
        return complete("sim/http-judge", body["messages"], {}, 0).text + f"\nJudge's note: {PII_TEXT}"
    return f"{complete('sim/http-writer', body['messages'], {'skill': 0.8}, 0).text}\n{PII_TEXT}"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    home = tmp_path_factory.mktemp("secrets")
    key = f"sk-test-{secrets.token_hex(20)}"
    dataset = home / "dataset"
    shutil.copytree(ROOT / "sample_data" / "creation", dataset, ignore=shutil.ignore_patterns("*.py"))
    lines = (dataset / "items.jsonl").read_text(encoding="utf-8").splitlines()[:ITEMS]
    first = json.loads(lines[0])
    first["background"] += " " + ITEM_PII
    lines[0] = json.dumps(first)
    (dataset / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    drop_peoples_files(home, first["item_id"])

    dagster_home = home / "dagster_home"
    dagster_home.mkdir()
    (dagster_home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    env = {**os.environ, "OPENAI_API_KEY": key, "DAGSTER_HOME": str(dagster_home), "PYTHONPATH": str(ROOT),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with OpenAIServer(faults=["401"], reply=server_reply, max_lifetime_s=170) as srv:
        models = {**pick(SHIPPED_MODELS, "sim-baseline", "sim-describer"),
                  "http-writer": http_entry(srv.base_url, "http-writer", "candidate")}
        write_registry(home, models, {"http-judge": http_entry(srv.base_url, "http-judge", "judge")})
        child = subprocess.run([sys.executable, "-c", CHILD, str(home), str(home / "debug.log"),
                                str(home / "summary.json"), str(dataset / "items.jsonl")],
                               cwd=ROOT, env=env, capture_output=True, timeout=160)
        assert child.returncode == 0, child.stderr.decode(errors="replace")[-3000:]
        yield {"home": home, "key": key, "srv": srv, "summary": json.loads((home / "summary.json").read_text()),
               "warehouse": duckdb_text(str(home / "warehouse.duckdb")),
               "snapshot": duckdb_text(str(home / "analyst.duckdb")),
               "cache": sqlite_dump(home / "llm_cache.sqlite3"),
               "logs": {"stdout": child.stdout.decode(errors="replace"),
                        "stderr": child.stderr.decode(errors="replace"),
                        "python logging": (home / "debug.log").read_text(errors="replace"),
                        "dagster event logs": event_log_text(dagster_home)}}


def drop_peoples_files(home: Path, item_id: str) -> None:
    """A game log from an outside producer and an annotation file, both carrying personal data."""
    logs = home / "drops" / "gap_logs"
    logs.mkdir(parents=True)
    line = json.loads((ROOT / "sample_data" / "gap" / "logs" / "game_log_000.jsonl").read_text().splitlines()[0])
    line.update(session_id="outside-s0", player_id=PLAYER_EMAIL, question=GAME_QUESTION, model_answer=GAME_ANSWER)
    (logs / "outside.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    choices = home / "drops" / "human_pairwise"
    choices.mkdir(parents=True)
    (choices / "round-x.csv").write_text(
        "benchmark,item_id,model_a,model_b,winner,strength,annotator,recorded_at\n"
        f"creation,{item_id},sim-baseline,http-writer,B,1,{PLAYER_EMAIL},2026-01-01T10:00:00+00:00\n", encoding="utf-8")


def event_log_text(dagster_home: Path) -> str:
    """Every event of every run, serialized, read through the instance's own API."""
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        return "\n".join(serialize_value(event) for record in instance.get_run_records()
                         for event in instance.all_logs(record.dagster_run.run_id))


def test_the_run_succeeded_and_really_used_the_key(run):
    assert all(run["summary"]["runs"]), run["summary"]
    srv = run["srv"]
    # Every request carried the key: the test guards a secret that really passed through the stack.
    assert dict(srv.authorizations) == {f"Bearer {run['key']}": srv.count()}
    assert srv.faults_served["401"] == 1 and srv.count(model="http-writer") == ITEMS
    con = duckdb.connect(str(run["home"] / "warehouse.duckdb"), read_only=True)
    try:
        failed = con.execute("SELECT count(*) FROM generations WHERE error IS NOT NULL").fetchall()[0][0]
        judgments = con.execute("SELECT (SELECT count(*) FROM creation_pairwise_judgments) + "
                                "(SELECT count(*) FROM creation_vfs_judgments)").fetchall()[0][0]
        parsed = con.execute("SELECT avg(parse_ok::INT) FROM creation_pairwise_judgments "
                             "WHERE error IS NULL").fetchall()[0][0]
    finally:
        con.close()
    assert failed == 1  # the item that met the 401 (not retried: a bad key does not get better)
    assert srv.count(model="http-judge") == judgments > 0
    assert parsed > 0.9  # the redacted judge outputs still parse


def test_api_key_is_nowhere_on_disk_or_in_the_logs(run):
    key, home = run["key"], run["home"]
    secret_part = key.removeprefix("sk-test-")  # also catches a re-prefixed or partly masked copy
    for needle in (secret_part, f"Bearer {key}"):
        assert containing(run["warehouse"], needle) == []
        assert containing(run["snapshot"], needle) == []
        assert needle not in run["cache"]
        assert files_containing(home, needle) == []  # every file: databases, WAL, Dagster home, log file
        assert containing(run["logs"], needle) == []

    # The scans can see: what we know is there is found by the same code.
    assert "generations.error" in containing(run["warehouse"], "Incorrect API key provided: ***")
    assert containing(run["snapshot"], "[REDACTED:email]")
    assert "[REDACTED:email]" in run["cache"]
    assert "LLM requests:" in run["logs"]["dagster event logs"] and "STEP_SUCCESS" in run["logs"]["stderr"]
    assert "openai._base_client DEBUG" in run["logs"]["python logging"]  # DEBUG logging of the HTTP stack was on


@pytest.mark.parametrize("kind", KINDS)
def test_no_personal_data_of_any_kind_is_stored(run, kind):
    values = PERSONAL_DATA[kind]
    assert all([f.kind for f in find_pii(v)] == [kind] for v in values)  # the fixture means what it says
    for value in values:
        assert containing(run["warehouse"], value) == [], f"{kind} {value!r} in the warehouse"
        assert containing(run["snapshot"], value) == [], f"{kind} {value!r} in the snapshot"
        assert value not in run["cache"], f"{kind} {value!r} in the response cache"
        assert value not in run["logs"]["dagster event logs"], f"{kind} {value!r} in the Dagster event logs"
    # ... but redacted where it stood, in answers, judge outputs and items alike.
    placeholder = f"[REDACTED:{kind}]"
    assert {"generations.response", "creation_pairwise_judgments.raw_text",
            "creation_vfs_judgments.raw_text"} <= set(containing(run["warehouse"], placeholder))
    assert placeholder in run["cache"]


@pytest.mark.parametrize("ssn", NAMED_SSNS)
def test_a_number_called_an_ssn_is_stored_nowhere(run, ssn):
    assert containing(run["warehouse"], ssn) == [] and containing(run["snapshot"], ssn) == []
    assert ssn not in run["cache"] and ssn not in run["logs"]["dagster event logs"]


def test_peoples_files_are_stored_redacted_and_pseudonymised(run):
    for value in (PLAYER_EMAIL, "FR1420041010050500013M02606", "06 12 34 56 78", "+44 20 7946 0958"):
        assert containing(run["warehouse"], value) == [] and containing(run["snapshot"], value) == []
        assert value not in run["logs"]["dagster event logs"]
        assert not files_containing(run["home"] / "exports", value)
    assert "gap_marks.question" in containing(run["warehouse"], "[REDACTED:iban]")
    assert "gap_marks.model_answer" in containing(run["warehouse"], "[REDACTED:email]")
    assert "gap_marks.player_id" in containing(run["warehouse"], "person-")
    assert "creation_human_pairwise.annotator" in containing(run["warehouse"], "person-")
    for check in ("gap_marks_residual_pii", "creation_human_pairwise_residual_pii"):
        assert run["summary"]["checks"][check] is True


def test_item_personal_data_never_reaches_the_provider(run):
    bodies = json.dumps(run["srv"].bodies)
    assert not any(value in bodies for value in ALL_PERSONAL)
    assert "[REDACTED:email]" in bodies  # the item's e-mail went out redacted
    assert "creation_items.background" in containing(run["warehouse"], "[REDACTED:email]")


def test_what_is_not_personal_data_survives_redaction(run):
    assert "generations.response" in containing(run["warehouse"], NOT_A_CARD)  # Luhn-invalid: not a card


def test_residual_pii_checks_pass_and_item_redactions_are_counted(run):
    summary = run["summary"]
    assert summary["checks"]["generations_residual_pii"] is True
    assert summary["checks"]["creation_items_residual_pii"] is True
    assert summary["metadata"]["creation_items"]["pii_redactions"] == len(find_pii(ITEM_PII)) == 2


def test_generation_redactions_are_counted_in_the_metadata(run):
    meta = run["summary"]["metadata"]["creation_generations"]
    assert meta["pii_redactions"] == (ITEMS - 1) * len(find_pii(PII_TEXT))
