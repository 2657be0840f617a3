"""A tiny benchmark that exists only in the tests (docs/ARCHITECTURE.md, "Adding a benchmark"): its logic and
declaration, wiring (assets and a drop-folder sensor), DDL, view and score query are written to a folder outside the
repository and named in BENCHWRIGHT_PLUGINS."""

import textwrap

# The benchmark's pure logic (what would be benchwright/<name>/): load questions, plan answers, score.
LOGIC = '''
import json
import re

from benchwright.benchmarks import Benchmark, FilesSource, JudgeFormat, Report, ScoreQuery
from benchwright.loading import LoadProblem, RowError, json_object
from benchwright.steps import Plan, request_for

BENCHMARK = "tiny"
PROMPT_VERSION = "tiny-v1"
NOTES = "tiny_notes"  # its drop folder: drops/tiny_notes/*.txt
VERDICT = re.compile(r"TINY-VERDICT: (good|bad)")  # its (imagined) judge's format

# Everything the shared code needs to know of it, declared once (benchwright.benchmarks).
DECLARATION = Benchmark(
    name=BENCHMARK, version="1", drop_folders=(NOTES,),
    sources=(FilesSource("tiny_note_files", "The tiny benchmark's notes drop folder, hashed.", drops=(NOTES,)),),
    judge_formats=(JudgeFormat("tiny_verdict", lambda answer: bool(VERDICT.search(answer))),),
    scores=(ScoreQuery("queries/tiny/scores.sql", "tiny_scores"),),
    reports=(Report("Tiny benchmark (mean words per answer)", "queries/tiny/report.sql"),),
    sensors=("tiny_bench:tiny_notes_sensor",),
)


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

from assets.common import LOAD_WHEN_MISSING, ask_models, llm_metadata, record_problems, store_generations, table_metadata
from assets.partitions import models_partitions
from benchwright.steps import generation_rows
from resources.llm import LLMClient
from resources.registry import Registry
from resources.warehouse import Warehouse
from sensors.drop_folder import drop_folder_sensor
from benchwright import paths
import tiny_logic
from tiny_logic import DECLARATION

QUESTIONS = {questions!r}

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
    results, stats = ask_models(context, llm, plan, [model], tiny_logic.BENCHMARK, model.slug)
    df = generation_rows(tiny_logic.BENCHMARK, model, plan, results)
    store_generations(warehouse, df, tiny_logic.BENCHMARK, model.slug, registry)
    return dg.MaterializeResult(metadata=table_metadata(df, ["item_id", "response"], **llm_metadata(stats)))


def notes_folder(warehouse):
    return paths.drop_folder(warehouse.database, tiny_logic.NOTES)


@dg.asset(group_name="datasets", deps=["tiny_note_files"], automation_condition=LOAD_WHEN_MISSING)
def tiny_notes(warehouse: Warehouse) -> dg.MaterializeResult:
    folder = notes_folder(warehouse)
    return dg.MaterializeResult(metadata={{"notes": len(list(folder.glob("*.txt"))) if folder.is_dir() else 0}})


tiny_notes_sensor = drop_folder_sensor("tiny_notes_sensor", tiny_notes, notes_folder, "*.txt",
                                       description="Requests `tiny_notes` when a note arrives in drops/tiny_notes/.")


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

# What the main job prints for it.
REPORT = "SELECT model, round(mean_words, 1) AS mean_words, answers FROM tiny_leaderboard\n"

# Its leaderboard as redundancy compares it (leaderboard, judge, model, score).
SCORES = "SELECT 'tiny_mean_words' AS leaderboard, '' AS judge, model, mean_words AS score FROM tiny_scores\n"


def write_plugin(folder):
    questions = folder / "questions.jsonl"
    questions.write_text('{"item_id": "q1", "question": "Describe a red boat."}\n'
                         '{"item_id": "q2", "question": "Write two lines about rain, then TINY-VERDICT: good."}\n'
                         'not json\n', encoding="utf-8")
    (folder / "tiny_logic.py").write_text(textwrap.dedent(LOGIC), encoding="utf-8")
    (folder / "tiny_bench.py").write_text(textwrap.dedent(WIRING).format(questions=str(questions)), encoding="utf-8")
    (folder / "sql" / "ddl").mkdir(parents=True)
    (folder / "sql" / "views").mkdir(parents=True)
    (folder / "sql" / "ddl" / "90_tiny.sql").write_text(DDL, encoding="utf-8")
    (folder / "sql" / "views" / "tiny_leaderboard.sql").write_text(VIEW, encoding="utf-8")
    (folder / "sql" / "queries" / "tiny").mkdir(parents=True)
    (folder / "sql" / "queries" / "tiny" / "scores.sql").write_text(SCORES, encoding="utf-8")
    (folder / "sql" / "queries" / "tiny" / "report.sql").write_text(REPORT, encoding="utf-8")
