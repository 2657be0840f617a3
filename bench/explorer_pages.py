"""Benchmark: the results explorer's page load times (web/explorer.py), through the real servers over HTTP
(`python -m web` and the analyst server `python -m web --explorer-only`, waitress), on the demo's analyst snapshot
and on a larger synthetic one made from it: every benchmark's items copied under new ids until it has about
`--items` of them (765, Creation's real size: Creation and URS items, GAP-VQA items that are scored, MMMT-IF turns),
then every candidate's rows copied under new model slugs until there are `--models` candidates (100). What is
copied is the rows the explorer reads: items, answers, judgments, checker results and leaderboard rows; people's
choices and the game's records stay the demo's. Per page the median of `--rounds` loads, the pages taken in turn
in each round, after one unmeasured load each. Targets: every page ≤ 300 ms on the demo snapshot, ≤ 1 s on the
large one.

    .venv/bin/python bench/explorer_pages.py                  # builds the demo graph cold in a temporary home first
    .venv/bin/python bench/explorer_pages.py --home HOME      # a home the demo already ran in (its analyst.duckdb)
    .venv/bin/python bench/explorer_pages.py --models 0 --items 0   # the demo snapshot only
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from _common import ROOT, emit, machine

TARGETS_MS = {"demo": 300, "large": 1000}
# Per benchmark: what counts its items in the demo, and the tables (with their item-id columns) to copy per item
# copy; a third element restricts the table's rows (generations holds every benchmark's answers).
ITEM_TABLES = {
    "creation": ("SELECT count(*) FROM creation_items",
                 [("creation_items", ("item_id",)), ("creation_references", ("item_id",)),
                  ("creation_pairwise_judgments", ("item_id",)), ("creation_vfs_judgments", ("item_id",)),
                  ("generations", ("item_id",), "benchmark = 'creation'")]),
    "urs": ("SELECT count(*) FROM urs_items",
            [("urs_items", ("item_id",)), ("urs_judgments", ("item_id",)), ("generations", ("item_id",), "benchmark = 'urs'")]),
    # GAP-VQA's val items are the scored ones (about a third): copies until ≈ `items` of them are scored.
    "gap": ("SELECT count(DISTINCT item_id) FROM gap_score_judgments",
            [("gap_vqa_items", ("item_id",)), ("gap_score_judgments", ("item_id",)),
             ("generations", ("item_id",), "benchmark = 'gap'")]),
    # MMMT-IF's unit is a turn of a chat (its item id in generations).
    "mmmt_if": ("SELECT count(*) FROM mmmt_if_turns",
                [("mmmt_if_chats", ("chat_id",)), ("mmmt_if_turns", ("chat_id", "turn_id")),
                 ("mmmt_if_turn_scores", ("chat_id", "turn_id")), ("mmmt_if_instruction_results", ("chat_id", "turn_id")),
                 ("generations", ("item_id",), "benchmark = 'mmmt_if'")]),
}
# Tables with one row (or more) per candidate that the explorer reads.
MODEL_TABLES = ["generations", "creation_pairwise_judgments", "creation_vfs_judgments", "creation_leaderboard",
                "urs_judgments", "urs_leaderboard", "gap_score_judgments", "gap_scores", "mmmt_if_turn_scores",
                "mmmt_if_instruction_results", "mmmt_if_summary", "mmmt_if_uplift", "interop_ratings"]


def demo_snapshot(folder: Path) -> Path:
    """The demo graph cold in a temporary home (as `dev.py demo` builds it); its analyst snapshot."""
    import dagster as dg

    from scripts.orchestrate import materialize_everything
    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

    home = folder / "demo"
    home.mkdir()
    write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
    with dg.instance_for_test() as instance:
        materialize_everything(instance, resources_for(home))
    return home / "analyst.duckdb"


def _copy_rows(con, table: str, renamed: dict[str, str], copies: int, where: str | None = None) -> None:
    """Insert `copies` more copies of `table`'s rows (those `where` picks), column c made `renamed[c]` (an
    expression of the copy number k)."""
    names = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
    columns = ", ".join(f"{renamed[n]} AS {n}" if n in renamed else n for n in names)
    con.execute(f"INSERT INTO {table} SELECT {columns} FROM {table}, range(1, {copies} + 1) t(k)"
                + (f" WHERE {where}" if where else ""))


def scaled_copy(snapshot: Path, home: Path, items: int, models: int) -> dict:
    """A copy of `snapshot` in `home` with ≈ `items` items per benchmark and ≈ `models` candidates (0: as it is);
    what it holds then."""
    import duckdb

    home.mkdir(parents=True)
    shutil.copy(snapshot, home / "analyst.duckdb")
    con = duckdb.connect(str(home / "analyst.duckdb"))
    try:
        con.execute("SET enable_progress_bar = false")
        if items:
            for benchmark, (count_sql, tables) in ITEM_TABLES.items():
                copies = math.ceil(items / con.execute(count_sql).fetchone()[0]) - 1
                for table, columns, *where in tables:
                    _copy_rows(con, table, {c: f"{c} || '-s' || k" for c in columns}, copies, *where)
        if models:
            candidates = [r[0] for r in con.execute("SELECT DISTINCT model FROM creation_pairwise_judgments "
                                                    "WHERE source = 'benchwright' ORDER BY model").fetchall()]
            copies = math.ceil(models / len(candidates)) - 1
            listed = ", ".join("'" + c.replace("'", "''") + "'" for c in candidates)
            for table in MODEL_TABLES:
                _copy_rows(con, table, {"model": "model || '-m' || k"}, copies, f"model IN ({listed})")
        con.execute("CHECKPOINT")
        size = {"candidates": con.execute("SELECT count(DISTINCT model) FROM creation_pairwise_judgments "
                                          "WHERE source = 'benchwright'").fetchone()[0],
                "creation items": con.execute("SELECT count(*) FROM creation_items").fetchone()[0],
                "urs items": con.execute("SELECT count(*) FROM urs_items").fetchone()[0],
                "gap scored items": con.execute("SELECT count(DISTINCT item_id) FROM gap_score_judgments").fetchone()[0],
                "mmmt_if turns": con.execute("SELECT count(*) FROM mmmt_if_turns").fetchone()[0],
                "creation judgments": con.execute("SELECT count(*) FROM creation_pairwise_judgments").fetchone()[0],
                "mmmt_if checks": con.execute("SELECT count(*) FROM mmmt_if_instruction_results").fetchone()[0]}
    finally:
        con.close()
    size["MB"] = round((home / "analyst.duckdb").stat().st_size / 1e6)
    return size


def pages(home: Path) -> dict[str, tuple[str, str]]:
    """Page name -> (server, path): every explorer page kind, on the game's server, and the analyst server's own."""
    import duckdb

    con = duckdb.connect(str(home / "analyst.duckdb"), read_only=True)
    try:
        first = {name: con.execute(sql).fetchone()[0] for name, sql in {
            "creation": "SELECT min(item_id) FROM creation_items", "urs": "SELECT min(item_id) FROM urs_items",
            "gap": "SELECT min(item_id) FROM gap_score_judgments", "mmmt_if": "SELECT min(chat_id) FROM mmmt_if_chats",
            "picture": "SELECT min(image_id) FROM gap_images WHERE image_set = 'tainted'"}.items()}
    finally:
        con.close()
    named = {"index": "/explore/"}
    for board in ("creation", "urs", "mmmt_if", "gap", "ratings"):
        named[f"{board} board"] = f"/explore/{board}"
    for benchmark in ("creation", "urs", "mmmt_if", "gap"):
        named[f"{benchmark} items"] = f"/explore/{benchmark}/items"
        named[f"{benchmark} item"] = f"/explore/{benchmark}/items/{first[benchmark]}"
        named[f"compare {benchmark}"] = f"/explore/compare?benchmark={benchmark}"
    for benchmark in ("creation", "urs", "gap"):
        named[f"judges {benchmark}"] = f"/explore/compare/judges?benchmark={benchmark}"
    pages = {name: ("game", url) for name, url in named.items()}
    pages.update({"analyst gap item": ("analyst", f"/explore/gap/items/{first['gap']}"),
                  "analyst pictures": ("analyst", "/explore/gap/pictures"),
                  "analyst picture": ("analyst", f"/explore/gap/pictures/{first['picture']}")})
    return pages


@contextmanager
def server(home: Path, *args: str):
    """`python -m web` on `home`, on a free port; yields its base URL."""
    from tests.support.browser import env_for, free_port

    port = free_port()
    with open(home / "web-server.log", "ab") as log:
        process = subprocess.Popen([sys.executable, "-m", "web", "--port", str(port), *args], cwd=ROOT,
                                   env=env_for(home), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(url + "/", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the web server did not start: see {home / 'web-server.log'}") from None
                time.sleep(0.2)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)


def load_times(bases: dict[str, str], named: dict[str, tuple[str, str]], rounds: int) -> dict[str, list[float]]:
    """ms per load, per page, the pages taken in turn in each round."""
    for which, url in named.values():  # once unmeasured: templates compiled, the file in the page cache
        urllib.request.urlopen(bases[which] + url, timeout=60).read()
    times = {name: [] for name in named}
    for _ in range(rounds):
        for name, (which, url) in named.items():
            t0 = time.perf_counter()
            with urllib.request.urlopen(bases[which] + url, timeout=60) as response:
                response.read()
                assert response.status == 200, (url, response.status)
            times[name].append((time.perf_counter() - t0) * 1000)
    return times


def measure(home: str | None, items: int, models: int, rounds: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        snapshot = Path(home) / "analyst.duckdb" if home else demo_snapshot(folder)
        build_s = time.perf_counter() - t0
        results, parts = {}, []
        sizes = [("demo", 0, 0)] + ([(f"{models}x{items}", items, models)] if models or items else [])
        for label, n_items, n_models in sizes:
            t0 = time.perf_counter()
            size = scaled_copy(snapshot, folder / f"web-{label}", n_items, n_models)
            copy_s = time.perf_counter() - t0
            named = pages(folder / f"web-{label}")
            with server(folder / f"web-{label}") as game, server(folder / f"web-{label}", "--explorer-only") as analyst:
                times = load_times({"game": game, "analyst": analyst}, named, rounds)
            medians = {name: statistics.median(ms) for name, ms in times.items()}
            slowest = max(medians, key=medians.get)
            target = TARGETS_MS["demo" if label == "demo" else "large"]
            results[label] = medians
            held = ", ".join(f"{v} {k}" for k, v in size.items())
            parts.append(f"{label} ({held}; made in {copy_s:.0f} s): slowest page {slowest} {medians[slowest]:.0f} ms "
                         f"(target ≤ {target} ms: {'met' if medians[slowest] <= target else 'missed'}); "
                         + ", ".join(f"{name} {ms:.0f}" for name, ms in medians.items()))
    summary = f"{machine()}; median of {rounds} loads per page, ms; " + "; ".join(parts)
    if not home:
        summary += f"; demo graph built cold in {build_s:.0f} s first"
    return {"summary": summary, **{f"{label}_{name}_ms": ms for label, m in results.items() for name, ms in m.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", help="a home the demo graph ran in (default: build one in a temporary folder)")
    parser.add_argument("--items", type=int, default=765, help="items per benchmark in the large snapshot (about)")
    parser.add_argument("--models", type=int, default=100, help="candidates in the large snapshot (0 and --items 0: "
                                                                 "the demo only)")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    emit("Results explorer page loads", **measure(args.home, args.items, args.models, args.rounds))


if __name__ == "__main__":
    main()
