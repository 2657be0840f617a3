"""docs/ARCHITECTURE.md "Adding a benchmark", proven: a tiny benchmark that exists only in this test (a
loader, a step, a metric, its DDL and view) is written to a folder outside the repository, named in
BENCHWRIGHT_PLUGINS, and the README's main job runs it with every other benchmark — its runs, its
table, its snapshot view and its printed report — with no file of the repository changed.
"""

import os
import subprocess
import sys
import textwrap

import duckdb

from benchwright.paths import ROOT

# The benchmark's pure logic (what would be benchwright/<name>/): load questions, plan answers, score.
LOGIC = '''
import json

from benchwright.loading import LoadProblem, RowError, json_object
from benchwright.steps import Plan, request_for

BENCHMARK = "tiny"
PROMPT_VERSION = "tiny-v1"


def load_questions(path):
    """Each line {"item_id", "question"}; a bad line is a located problem, the rest load."""
    items, problems = [], []
    for number, line in enumerate(open(path, encoding="utf-8").read().splitlines(), start=1):
        try:
            row = json_object(line)
            if not isinstance(row.get("question"), str):
                raise RowError("question must be text")
            items.append({"item_id": str(row["item_id"]), "question": row["question"]})
        except RowError as exc:
            problems.append(LoadProblem(f"{path}:{number}", str(exc)))
    return items, problems


def answer_plan(items, model):
    return [Plan(i["item_id"], request_for(model, [{"role": "user", "content": i["question"]}], PROMPT_VERSION,
                                           tag=i["item_id"]), variant="text")
            for i in items]


def words_per_answer(generations):
    """The metric: mean words per answered question, per model."""
    answered = generations[generations["response"].notna()]
    counts = answered.assign(words=answered["response"].str.split().str.len())
    return counts.groupby("model", as_index=False).agg(mean_words=("words", "mean"), answers=("words", "size"))
'''

# The thin Dagster wiring (what would be assets/<name>.py), with the report the main job prints.
WIRING = '''
import dagster as dg

import pandas as pd

from assets.common import LOAD_WHEN_MISSING, llm_metadata, record_problems, store_generations, table_metadata
from assets.partitions import models_partitions
from benchwright.steps import generation_rows, limits_for
from resources.llm import LLMClient
from resources.registry import Registry
from resources.warehouse import Warehouse
import tiny_logic

QUESTIONS = {questions!r}

REPORTS = [("Tiny benchmark (mean words per answer)",
            "SELECT model, round(mean_words, 1) AS mean_words, answers FROM tiny_leaderboard")]


@dg.asset(group_name="datasets", automation_condition=LOAD_WHEN_MISSING)
def tiny_items(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    items, problems = tiny_logic.load_questions(QUESTIONS)
    df = pd.DataFrame(items, columns=["item_id", "question"])
    warehouse.write_tables([("tiny_items", df, {{}})])
    record_problems(context, warehouse, problems, "tiny", "questions")
    return dg.MaterializeResult(metadata=table_metadata(df, problems=len(problems)))


@dg.asset(group_name="generations", deps=[tiny_items], partitions_def=models_partitions,
          code_version=tiny_logic.PROMPT_VERSION, automation_condition=dg.AutomationCondition.eager())
def tiny_generations(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient,
                     registry: Registry) -> dg.MaterializeResult:
    model = registry.model(context.partition_key)
    plan = tiny_logic.answer_plan(warehouse.query("SELECT * FROM tiny_items ORDER BY item_id").to_dict("records"), model)
    results, stats = llm.run([p.request for p in plan], limits=limits_for([model]), progress=context.log.info)
    df = generation_rows(tiny_logic.BENCHMARK, model, plan, results)
    store_generations(warehouse, df, tiny_logic.BENCHMARK, model.slug)
    return dg.MaterializeResult(metadata=table_metadata(df, ["item_id", "response"], **llm_metadata(stats)))


@dg.asset(group_name="metrics", deps=[tiny_generations], automation_condition=dg.AutomationCondition.eager())
def tiny_scores(warehouse: Warehouse) -> dg.MaterializeResult:
    df = tiny_logic.words_per_answer(warehouse.query("SELECT model, response FROM generations WHERE benchmark = 'tiny'"))
    warehouse.write_tables([("tiny_scores", df, {{}})])
    return dg.MaterializeResult(metadata=table_metadata(df))
'''

DDL = """
CREATE TABLE IF NOT EXISTS tiny_items (item_id VARCHAR PRIMARY KEY, question VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS tiny_scores (model VARCHAR PRIMARY KEY, mean_words DOUBLE, answers BIGINT);
"""

VIEW = "CREATE OR REPLACE VIEW tiny_leaderboard AS SELECT * FROM tiny_scores ORDER BY mean_words DESC;\n"


def write_plugin(folder):
    questions = folder / "questions.jsonl"
    questions.write_text('{"item_id": "q1", "question": "Describe a red boat."}\n'
                         '{"item_id": "q2", "question": "Write two lines about rain."}\n'
                         'not json\n', encoding="utf-8")
    (folder / "tiny_logic.py").write_text(textwrap.dedent(LOGIC), encoding="utf-8")
    (folder / "tiny_bench.py").write_text(textwrap.dedent(WIRING).format(questions=str(questions)), encoding="utf-8")
    (folder / "sql" / "ddl").mkdir(parents=True)
    (folder / "sql" / "views").mkdir(parents=True)
    (folder / "sql" / "ddl" / "90_tiny.sql").write_text(DDL, encoding="utf-8")
    (folder / "sql" / "views" / "tiny_leaderboard.sql").write_text(VIEW, encoding="utf-8")


def test_a_benchmark_defined_outside_the_repository_runs_in_the_main_job(tmp_path):
    plugin, home = tmp_path / "plugin", tmp_path / "home"
    plugin.mkdir()
    write_plugin(plugin)
    tracked_before = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    env = {**os.environ, "BENCHWRIGHT_HOME": str(home), "DAGSTER_HOME": str(home / "dagster_home"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": f"{ROOT}{os.pathsep}{plugin}",
           "BENCHWRIGHT_PLUGINS": "tiny_bench"}
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "materialize_all.py")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "(0 failed)" in run.stdout
    # Its runs: one per registered candidate, like every benchmark's generations.
    assert "materializing tiny_generations [sim-strong]" in run.stdout
    # Its report, printed after ours, from its own view in the analyst snapshot.
    report = run.stdout[run.stdout.index("== Tiny benchmark (mean words per answer) =="):]
    assert "mean_words" in report.splitlines()[1] and "sim-strong" in report
    snapshot = duckdb.connect(str(home / "analyst.duckdb"), read_only=True)
    try:
        board = snapshot.execute("SELECT model, answers FROM tiny_leaderboard ORDER BY model").fetchall()
        models = snapshot.execute("SELECT DISTINCT model FROM generations WHERE benchmark = 'creation' "
                                  "ORDER BY model").fetchall()
        problems = snapshot.execute("SELECT location FROM dataset_problems WHERE benchmark = 'tiny'").fetchall()
    finally:
        snapshot.close()
    assert [m for m, _ in board] == [m for (m,) in models]  # every candidate, the same ones as Creation's
    assert all(answers == 2 for _, answers in board)  # both good questions; the bad line is a problem
    assert problems == [(f"{plugin / 'questions.jsonl'}:3",)]
    # Nothing of the repository changed to get here.
    assert subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                          text=True).stdout == tracked_before
