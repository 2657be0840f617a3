"""Both pages in headless Chromium against the real server process, on a copy of the session's demo home:
a full game (one picture left to time out, the server killed mid-game) and an annotation round; then the
drop-folder sensors pick the files up and the leaderboard and alignment tables change accordingly; and the
read-only results explorer on the same server."""

import csv
import json
import re
import shutil
import time
from datetime import datetime, timezone

import dagster as dg
import pytest
from playwright.sync_api import expect, sync_playwright

from benchwright import durable
from resources import default_resources
from sensors.gap import gap_log_drop_sensor
from sensors.human_pairwise import human_pairwise_drop_sensor
from tests.support.browser import WebServer, launch
from tests.support.pipeline import materialize

TIME_LIMIT_S = 20      # long enough for a server restart inside one picture, short enough to wait out once


@pytest.fixture(scope="module")
def home(shipped_demo, tmp_path_factory):
    """A copy of the session's demo home (tests/conftest.py): the pages and the drop folders change it, and a
    copied home is a home like any other (tests/integration/test_main_job.py runs one), so no graph is built
    here a second time."""
    home = tmp_path_factory.mktemp("browser") / "home"
    shutil.copytree(shipped_demo["home"], home, symlinks=True)
    return home


@pytest.fixture(scope="module")
def server(home):
    server = WebServer(home, "--time-limit", str(TIME_LIMIT_S)).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def pipeline(home):
    with dg.instance_for_test() as instance:
        resources = default_resources(home=home)
        yield {"instance": instance, "resources": resources, "warehouse": resources["warehouse"]}


def new_page(browser, server):
    page = browser.new_context(base_url=server.url).new_page()
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    return page


def join(page, name):
    page.goto("/join")
    page.fill("#name", name)
    page.click("button[type=submit]")
    expect(page.locator("#token")).to_be_visible()
    return page.inner_text("#token")


def ask(page, question):
    page.fill("#question", question)
    page.click("#ask")
    expect(page.locator("#model-answer")).to_be_visible()


def game_files(home):
    return sorted((home / "drops" / "gap_logs").glob("gap-*"))


def test_a_full_game_is_played_in_chromium_and_reaches_the_weekly_leaderboard(home, server, browser, pipeline):
    page = new_page(browser, server)
    join(page, "player_one")
    page.goto("/game")
    page.click("#start")
    for order in range(1, 11):
        expect(page.locator("#image-number")).to_have_text(str(order))
        page.wait_for_function("() => { const img = document.getElementById('picture'); "
                               "return img.complete && img.naturalWidth > 0; }", timeout=10_000)
        if order == 1:     # markup in a question is shown as text, never run
            ask(page, "<img src=x onerror=alert(1)> How many circles are in the image?")
            expect(page.locator("#pending-question")).to_contain_text("<img src=x onerror=alert(1)>")
            page.click("#mark-wrong")
        elif order == 3:   # the timer runs out: the page moves on by itself and the open question is not logged
            shown = time.monotonic()
            ask(page, "What colour is the square nearest the left edge?")
            expect(page.locator("#image-number")).to_have_text("4", timeout=(TIME_LIMIT_S + 10) * 1000)
            assert time.monotonic() - shown >= TIME_LIMIT_S - 1      # not before its time was up
            continue
        elif order == 5:   # the server dies after an accepted mark and with a question open; nothing is lost
            ask(page, "How many triangles are in the image?")
            page.click("#mark-correct")
            ask(page, "How many squares are in the image?")
            server.crash()
            server.start()
            page.reload()
            expect(page.locator("#image-number")).to_have_text("5")
            expect(page.locator("#history li")).to_have_count(1)
            expect(page.locator("#pending-question")).to_have_text("How many squares are in the image?")
            page.click("#mark-wrong")
        else:
            ask(page, "How many circles are in the image?")
            page.click("#mark-wrong")
    expect(page.locator("#summary")).to_be_visible()
    shown_points = int(page.inner_text("#points"))
    assert page.dialogs == []

    marks = [json.loads(line) for path in game_files(home) for line in durable.read_lines(path)]
    assert all(path.suffix == ".jsonl" for path in game_files(home))          # every picture published
    assert {m["player_id"] for m in marks} == {"player_one"}
    assert sorted({m["image_order"] for m in marks}) == [1, 2, 4, 5, 6, 7, 8, 9, 10]
    assert [m["player_mark"] for m in marks if m["image_order"] == 5] == ["correct", "wrong"]

    # The pipeline: the drop-folder sensor requests the ingest; reliability and the leaderboard follow.
    wh, instance, resources = pipeline["warehouse"], pipeline["instance"], pipeline["resources"]
    marks_before = int(wh.query("SELECT count(*) AS n FROM gap_marks")["n"][0])
    tick = gap_log_drop_sensor(dg.build_sensor_context(instance=instance, resources={"warehouse": wh}))
    assert isinstance(tick, dg.SensorResult) and len(tick.run_requests) == 1
    assert materialize(["gap_game_logs", "gap_reliability", "analyst_snapshot"], instance, resources).success
    assert int(wh.query("SELECT count(*) AS n FROM gap_marks")["n"][0]) == marks_before + len(marks)
    iso = datetime.now(timezone.utc).isocalendar()
    week = f"{iso.year}-W{iso.week:02d}"
    board = wh.query("SELECT points FROM gap_weekly_leaderboard WHERE player_id = 'player_one' AND week = ?", [week])
    assert board["points"].tolist() == [shown_points]
    page.goto("/leaderboard")
    mine = page.locator("tr.me")
    expect(mine).to_have_count(1)
    expect(mine.locator("td").nth(2)).to_have_text(str(shown_points))


CHOICES = ["left_much_better", "right_better", "right_much_better", "left_better", "same", "right_much_better"]


def test_an_annotation_round_in_chromium_moves_the_alignment_tables(home, server, browser, pipeline):
    wh, instance, resources = pipeline["warehouse"], pipeline["instance"], pipeline["resources"]
    page = new_page(browser, server)
    join(page, "annotator_one")
    page.goto("/annotate")
    page.click("#start")
    for position, choice in enumerate(CHOICES, start=1):
        expect(page.locator("#position")).to_have_text(str(position))
        left, right = page.inner_text("#left-answer"), page.inner_text("#right-answer")
        assert left.strip() and right.strip() and left != right
        page.check(f"#choice-{choice}")
        page.click("#submit-choice")
    expect(page.locator("#recorded")).to_have_text(str(len(CHOICES)))

    [path] = (home / "drops" / "human_pairwise").glob("annotation-*.csv")
    rows = list(csv.DictReader(path.open()))
    assert [int(r["item_position"]) for r in rows] == list(range(1, 7)) and {r["annotator"] for r in rows} == {"annotator_one"}
    assert {r["benchmark"] for r in rows} == {"creation", "urs"}
    assert {r["left_model"] == r["model_a"] for r in rows} <= {True, False}

    bt_before = wh.query("SELECT model, coefficient FROM urs_bradley_terry ORDER BY model")
    tick = human_pairwise_drop_sensor(dg.build_sensor_context(instance=instance, resources={"warehouse": wh}))
    assert isinstance(tick, dg.SensorResult) and len(tick.run_requests) == 1
    assert materialize(["urs_human_alignment", "creation_human_alignment"], instance, resources).success

    urs_rows = [r for r in rows if r["benchmark"] == "urs"]
    stored = wh.query("SELECT * FROM urs_human_pairwise WHERE annotator = 'annotator_one'")
    assert len(stored) == len(urs_rows)
    assert sorted(stored["item_position"]) == sorted(int(r["item_position"]) for r in urs_rows)
    assert stored["left_model"].notna().all() and stored["strength"].notna().all()
    assert not wh.query("SELECT model, coefficient FROM urs_bradley_terry ORDER BY model").equals(bt_before)
    creation_rows = [r for r in rows if r["benchmark"] == "creation"]
    human = wh.query("SELECT * FROM creation_human_pairwise WHERE annotator = 'annotator_one'")
    assert len(human) == len(creation_rows)
    alignment = wh.query("SELECT * FROM creation_human_alignment")
    assert {r["model_b"] for r in creation_rows} <= set(alignment["model"])


def test_the_results_explorer_in_chromium(server, browser):
    """Read-only pages on the same server: a leaderboard's intervals drawn, a filter, an item with its pictures and
    both orders of a verdict, the compare view's way back to an item; no console error on the way."""
    page = new_page(browser, server)
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))

    page.goto("/explore/")
    page.click("text=Ratings (Bradley-Terry)")
    rows = page.locator("tr.board-row")
    expect(rows.first).to_be_visible()
    assert rows.count() >= 3
    assert page.locator("tr.board-row svg.bar g.whisker").count() == rows.count()
    before = page.locator("tr.board-row td.value").all_inner_texts()
    page.click("[data-filter=control] >> text=style")
    expect(page).to_have_url(re.compile(r"control=style"))
    assert page.locator("tr.board-row td.value").all_inner_texts() != before

    page.click("text=creation items")
    page.locator("table.items a").first.click()
    images = page.locator(".images img")
    expect(images.first).to_be_visible()
    assert all(page.evaluate("i => i.complete && i.naturalWidth > 0", i.element_handle()) for i in images.all())
    verdicts = page.locator("section.model .verdicts").first
    for order in (1, 2):
        expect(verdicts.locator(f"article.order[data-order='{order}'] .verdict")).to_be_visible()
    raw = verdicts.locator("article.order[data-order='1'] details")
    raw.locator("summary").click()
    expect(raw.locator(".raw")).to_be_visible()

    page.locator("section.model a", has_text="compare").first.click()
    expect(page.locator("tr.compare-row").first).to_be_visible()
    page.locator("tr.compare-row a").first.click()
    expect(page.locator("h1")).to_contain_text("Creation item")
    assert problems == []


def test_the_compare_views_and_the_analyst_server_in_chromium(home, server, browser):
    """The compare views added since (two judges; MMMT-IF and GAP models) on the game's server, then the analyst
    server (`python -m web --explorer-only`, the same home) with GAP's game records: no console error on any page."""
    problems = []

    def watched(on):
        page = new_page(browser, on)
        page.on("console", lambda m: problems.append(f"{page.url}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(f"{page.url}: {e}"))
        return page

    page = watched(server)
    for url in ("/explore/compare/judges", "/explore/compare/judges?benchmark=gap", "/explore/compare?benchmark=gap",
                "/explore/compare?benchmark=mmmt_if"):
        page.goto(url)
        expect(page.locator("tr.compare-row").first).to_be_visible()
    page.locator("tr.compare-row a").first.click()           # back to the chat, at the turn compared
    expect(page).to_have_url(re.compile(r"/explore/mmmt_if/items/[^?]+\?variant=standard#turn-\d+$"))
    expect(page.locator("section.turn:target .answer").first).to_be_visible()

    analyst = WebServer(home, "--explorer-only").start()
    try:
        page = watched(analyst)
        page.goto("/")
        expect(page).to_have_url(re.compile(r"/explore/$"))
        page.click("text=GAP game pictures")
        page.locator("table.items tr", has_text="tainted").locator("a").first.click()
        expect(page.locator("#image-set")).to_have_text("tainted")
        expect(page.locator("tr.planted-answer[data-planted=yes]").first).to_be_visible()
        assert page.evaluate("i => i.complete && i.naturalWidth > 0", page.locator(".images img").element_handle())
        page.goto("/explore/gap/items")
        page.locator("table.items a").first.click()
        expect(page.locator("#in-the-game tr.game-mark").first).to_be_visible()
    finally:
        analyst.stop()
    assert problems == []
