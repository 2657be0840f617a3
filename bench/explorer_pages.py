"""Benchmark: the results explorer's page load times (web/explorer.py), through the real server (`python -m web`,
waitress) over HTTP, on the demo's analyst snapshot and on a larger synthetic one: the demo's Creation and URS
items (and their answers and judgments) copied `--scale` times under new item ids (50: 750 Creation items, about
the real benchmark's 765, and 800 URS items). Per page the median of `--rounds` loads, the pages taken in turn
in each round. Target: every page's median ≤ 300 ms on the demo snapshot.

With `--before COMMIT` (default aa04467: the explorer as first written, one DuckDB connection opened and closed per
page) a second server runs that commit's web app (a temporary git worktree) on its own copy of the same snapshot,
and the two are loaded alternately, page by page, the order turning each round: the ratio now ÷ before per page.

    .venv/bin/python bench/explorer_pages.py                  # builds the demo graph cold in a temporary home first
    .venv/bin/python bench/explorer_pages.py --home HOME      # a home the demo already ran in (its analyst.duckdb)
    .venv/bin/python bench/explorer_pages.py --scale 0        # the demo snapshot only
    .venv/bin/python bench/explorer_pages.py --before ''      # this checkout only
"""

from __future__ import annotations

import argparse
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

TARGET_MS = 300
# Tables copied per scale step: (table, the column holding the item id).
ITEM_TABLES = [("creation_items", "item_id"), ("creation_references", "item_id"), ("creation_pairwise_judgments", "item_id"),
               ("creation_vfs_judgments", "item_id"), ("urs_items", "item_id"), ("urs_judgments", "item_id")]


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


def scaled_copy(snapshot: Path, home: Path, scale: int) -> None:
    """A copy of `snapshot` in `home` with the Creation and URS items, answers and judgments `scale` more times."""
    import duckdb

    home.mkdir(parents=True)
    shutil.copy(snapshot, home / "analyst.duckdb")
    if not scale:
        return
    con = duckdb.connect(str(home / "analyst.duckdb"))
    try:
        for table, column in ITEM_TABLES:
            names = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
            columns = ", ".join(f"{n} || '-s' || k AS {n}" if n == column else n for n in names)
            con.execute(f"INSERT INTO {table} SELECT {columns} FROM {table}, range(1, {scale} + 1) t(k)")
        names = [r[0] for r in con.execute("DESCRIBE generations").fetchall()]
        columns = ", ".join(f"item_id || '-s' || k AS item_id" if n == "item_id" else n for n in names)
        con.execute(f"INSERT INTO generations SELECT {columns} FROM generations, range(1, {scale} + 1) t(k) "
                    "WHERE benchmark IN ('creation', 'urs')")
        con.execute("CHECKPOINT")
    finally:
        con.close()


def pages(home: Path) -> dict[str, str]:
    import duckdb

    con = duckdb.connect(str(home / "analyst.duckdb"), read_only=True)
    try:
        creation = con.execute("SELECT min(item_id) FROM creation_items").fetchall()[0][0]
        urs = con.execute("SELECT min(item_id) FROM urs_items").fetchall()[0][0]
    finally:
        con.close()
    named = {"index": "/explore/", "creation items": "/explore/creation/items", "urs items": "/explore/urs/items",
             "creation item": f"/explore/creation/items/{creation}", "urs item": f"/explore/urs/items/{urs}",
             "compare creation": "/explore/compare?benchmark=creation", "compare urs": "/explore/compare?benchmark=urs"}
    for board in ("creation", "urs", "mmmt_if", "gap", "ratings"):
        named[f"{board} board"] = f"/explore/{board}"
    return named


@contextmanager
def server(root: Path, home: Path):
    """`python -m web` of the code under `root` on `home`, on a free port; yields its base URL."""
    from tests.support.browser import env_for, free_port

    port = free_port()
    with open(home / "web-server.log", "ab") as log:
        process = subprocess.Popen([sys.executable, "-m", "web", "--port", str(port)], cwd=root,
                                   env={**env_for(home), "PYTHONPATH": str(root)}, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(url + "/", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the web server under {root} did not start: see {home / 'web-server.log'}") from None
                time.sleep(0.2)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)


@contextmanager
def checkout(commit: str):
    """A temporary git worktree of `commit` (removed afterwards)."""
    folder = Path(tempfile.mkdtemp(prefix="explorer-before-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(folder / "tree"), commit], cwd=ROOT, check=True,
                   capture_output=True)
    try:
        yield folder / "tree"
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder / "tree")], cwd=ROOT, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def load_times(urls: dict[str, str], named: dict[str, str], rounds: int) -> dict[str, dict[str, list[float]]]:
    """ms per load, per server label and page: the servers alternate page by page, their order turning each round."""
    times = {label: {name: [] for name in named} for label in urls}
    for base in urls.values():
        for url in named.values():  # once unmeasured: templates compiled, the file in the page cache
            urllib.request.urlopen(base + url, timeout=30).read()
    labels = list(urls)
    for k in range(rounds):
        for name, url in named.items():
            for label in labels if k % 2 == 0 else labels[::-1]:
                t0 = time.perf_counter()
                with urllib.request.urlopen(urls[label] + url, timeout=30) as response:
                    response.read()
                    assert response.status == 200, (url, response.status)
                times[label][name].append((time.perf_counter() - t0) * 1000)
    return times


def measure(home: str | None, scale: int, rounds: int, before: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp, (checkout(before) if before else _nothing()) as before_root:
        folder = Path(tmp)
        t0 = time.perf_counter()
        snapshot = Path(home) / "analyst.duckdb" if home else demo_snapshot(folder)
        build_s = time.perf_counter() - t0
        results, parts = {}, []
        for label, factor in [("demo", 0)] + ([(f"x{scale}", scale)] if scale else []):
            roots = {"now": ROOT, **({"before": before_root} if before else {})}
            homes = {}
            for which in roots:
                homes[which] = folder / f"web-{label}-{which}"
                scaled_copy(snapshot, homes[which], factor)
            named = pages(homes["now"])
            with server(roots["now"], homes["now"]) as now_url, \
                    (server(roots["before"], homes["before"]) if before else _nothing()) as before_url:
                urls = {"now": now_url, **({"before": before_url} if before else {})}
                times = load_times(urls, named, rounds)
            medians = {name: statistics.median(ms) for name, ms in times["now"].items()}
            slowest = max(medians, key=medians.get)
            results[label] = medians
            verdict = f" (target ≤ {TARGET_MS} ms: {'met' if medians[slowest] <= TARGET_MS else 'missed'})" if factor == 0 else ""
            part = (f"{label}: slowest page {slowest} {medians[slowest]:.0f} ms{verdict}; "
                    + ", ".join(f"{name} {ms:.0f}" for name, ms in medians.items()))
            if before:
                old = {name: statistics.median(ms) for name, ms in times["before"].items()}
                results[f"{label}_before"] = old
                part += (f"; at {before} (a connection per page) slowest {max(old.values()):.0f} ms, now ÷ before per page "
                         + ", ".join(f"{name} {medians[name] / old[name]:.2f}" for name in medians))
            parts.append(part)
    summary = f"{machine()}; median of {rounds} loads per page, ms; " + "; ".join(parts)
    if not home:
        summary += f"; demo graph built cold in {build_s:.0f} s first"
    return {"summary": summary, **{f"{label}_{name}_ms": ms for label, m in results.items() for name, ms in m.items()}}


@contextmanager
def _nothing():
    yield None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", help="a home the demo graph ran in (default: build one in a temporary folder)")
    parser.add_argument("--scale", type=int, default=50, help="copies of the demo's items in the larger snapshot (0: none)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--before", default="aa04467", help="a commit whose web app to load alternately ('' for none)")
    args = parser.parse_args()
    emit("Results explorer page loads", **measure(args.home, args.scale, args.rounds, args.before))


if __name__ == "__main__":
    main()
