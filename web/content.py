"""What the web app reads: the analyst snapshot (never the live warehouse, whose handle would block the
pipeline's writers; docs/DESIGN.md#storage) and the game model's answers through the same LLM client as the assets."""

from __future__ import annotations

import dataclasses
import threading
from functools import lru_cache
from pathlib import Path

import duckdb

from benchwright.gap import answering
from benchwright.annotation import Pair
from benchwright.steps import limits_for, request_for
from benchwright.images import NormalizedImage, data_url
from benchwright.llm.providers import ProviderEntriesRefused
from benchwright.pii import redact
from benchwright.urs.intents import CRITERIA, CRITERIA_BY_INTENT
from resources.warehouse import read_sql


class NoData(RuntimeError):
    """The pipeline has not published what a page needs yet."""


class Snapshot:
    """The analyst snapshot, read-only. One DuckDB handle on the file as it is now is kept between requests
    (opening the file costs tens of milliseconds a page); each read takes a cursor of its own (one per thread).
    The publish step replaces the file by rename, so a reader sees the old or the new snapshot, never half of
    one; a replaced file (another inode or mtime) is opened anew on the next read."""

    def __init__(self, path: Path):
        self.path = path
        self._guard = threading.Lock()
        self._open: tuple[tuple, duckdb.DuckDBPyConnection] | None = None
        self._retired: duckdb.DuckDBPyConnection | None = None

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            raise NoData(f"no analyst snapshot at {self.path}: run the pipeline first (python3.11 dev.py demo)") from None
        identity = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        with self._guard:
            if self._open is None or self._open[0] != identity:
                # ATTACHed to an in-memory database, not duckdb.connect(path): DuckDB's per-path instance cache
                # would hand back the replaced file while any handle on it is open.
                con = duckdb.connect(":memory:")
                con.execute(f"ATTACH '{str(self.path).replace(chr(39), chr(39) * 2)}' AS snapshot (READ_ONLY)")
                # The previous handle stays open until the next swap: a request may still be reading through it.
                self._retired = self._open[1] if self._open else None
                self._open = (identity, con)
            cursor = self._open[1].cursor()
        cursor.execute("USE snapshot")
        return cursor

    def rows(self, sql_file: str, params: list | None = None) -> list[dict]:
        return self.queries([(sql_file, params)])[0]

    def queries(self, queries: list[tuple[str, list | None]]) -> list[list[dict]]:
        """The rows of several `sql/web/` files, read through one cursor (one page, one snapshot)."""
        cursor = self._cursor()
        try:
            answers = []
            for sql_file, params in queries:
                result = cursor.execute(read_sql(f"web/{sql_file}"), params or [])
                names = [d[0] for d in result.description]
                answers.append([dict(zip(names, row)) for row in result.fetchall()])
            return answers
        except duckdb.CatalogException as exc:
            raise NoData(f"the analyst snapshot lacks a table this page needs ({exc}); run the pipeline") from None
        finally:
            cursor.close()

    def game_images(self) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        rows = self.rows("game_images.sql")
        return ([(r["image_id"], r["sha256"]) for r in rows if r["image_set"] == "tainted"],
                [(r["image_id"], r["sha256"]) for r in rows if r["image_set"] == "untainted"])

    @lru_cache(maxsize=256)
    def image(self, sha256: str) -> NormalizedImage | None:
        rows = self.rows("image.sql", [sha256])
        return NormalizedImage(**{**rows[0], "data": bytes(rows[0]["data"])}) if rows else None

    def pairs(self) -> list[Pair]:
        return [Pair(r["benchmark"], r["item_id"], r["model_a"], r["model_b"]) for r in self.rows("annotation_pairs.sql")]

    def task_view(self, pair: Pair) -> dict:
        """Question, images, criteria and the two answers, by model slug."""
        if pair.benchmark == "creation":
            rows = self.rows("creation_task.sql", [pair.item_id, pair.model_a, pair.model_b])
            if not rows:
                raise NoData(f"Creation item {pair.item_id} is not in the snapshot")
            r = rows[0]
            criteria = [("Quality", r["subjective_criteria"])]
            if r["visual_factuality_criteria"]:
                criteria.append(("What is really in the picture", r["visual_factuality_criteria"]))
            return {"prompt": r["instruction"], "context": [("Role", r["role"]), ("Background", r["background"])],
                    "requirements": list(r["requirements"] or []), "criteria": criteria,
                    "images": list(r["image_hashes"] or []), "answers": {pair.model_a: r["answer_a"], pair.model_b: r["answer_b"]}}
        rows = self.rows("urs_task.sql", [pair.item_id, pair.model_a, pair.model_b])
        if not rows:
            raise NoData(f"URS item {pair.item_id} is not in the snapshot")
        r = rows[0]
        criteria = [(f"For {_article(r['intent'])} {r['intent']} question", "\n".join(f"{c}: {CRITERIA[c][1]}"
                                                                 for c in CRITERIA_BY_INTENT.get(r["intent"], ())))]
        return {"prompt": r["question"], "context": [("Kind of question", r["intent"])], "requirements": [],
                "criteria": criteria, "images": [], "answers": {pair.model_a: r["answer_a"], pair.model_b: r["answer_b"]}}

    def known_people(self) -> set[str]:
        """Lower-cased names already in the data; empty before the pipeline has run."""
        try:
            return {r["name"].lower() for r in self.rows("known_people.sql")}
        except NoData:
            return set()

    def weekly_leaderboard(self) -> list[dict]:
        return self.rows("weekly_leaderboard.sql")


def _article(word: str) -> str:
    """'an' before a vowel sound as the intents spell them ("an Ask for Advice question"), else 'a'."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def ask_game_model(llm, entry, question: str, image: NormalizedImage, instructed_wrong: bool,
                   tag: str) -> tuple[str | None, str | None]:
    """(answer, error): one question to the game's model, with the image if it has vision. The answer is
    redacted of personal data before anyone sees or logs it."""
    url = data_url(image) if entry.vision else None
    version = answering.TAINT_PROMPT_VERSION if instructed_wrong else answering.ANSWER_PROMPT_VERSION
    request = request_for(entry, answering.answer_messages(question, url, instructed_wrong), version, tag=tag)
    # A person is waiting for this answer: always a live call, even for a model registered with `batch: true`.
    try:
        [result], _ = llm.run([request], limits=limits_for([dataclasses.replace(entry, batch=False)]))
    except ProviderEntriesRefused as refused:  # the provider's limits in providers.yaml must be fixed first
        return None, str(refused)
    if result.text is None:
        return None, result.error or "no answer"
    return redact(result.text)[0], None

