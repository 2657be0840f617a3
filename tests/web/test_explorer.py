"""The results explorer through Flask's test client on the demo's analyst snapshot (the session's shipped demo,
tests/conftest.py): every page and every explorer link on it loads, a filter changes the rows to the snapshot's
own, the item view holds each image and both orders of every verdict with the judge's own text, the compare view
lists exactly the items where two models differ, stored redactions show and the original never does, and the
Dagster UI's links land on explorer pages."""

import csv
import re
import shutil
from html import escape, unescape
from urllib.parse import urlsplit

import dagster as dg
import duckdb
import pytest

from benchwright.paths import ROOT, explorer_url
from web.app import create_app

LINK = re.compile(r'href="(/explore/[^"#]*)"')


@pytest.fixture(scope="module")
def snapshot(shipped_demo, tmp_path_factory):
    """A home holding only a copy of the demo's analyst snapshot: the web app reads nothing else."""
    home = tmp_path_factory.mktemp("explorer") / "home"
    home.mkdir()
    shutil.copy(shipped_demo["home"] / "analyst.duckdb", home / "analyst.duckdb")
    return home


@pytest.fixture(scope="module")
def client(snapshot):
    return create_app(snapshot, sweep=False).test_client()


def query(home, sql, params=()):
    con = duckdb.connect(str(home / "analyst.duckdb"), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def page(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


def text_of(html: str) -> str:
    """The page's text as a reader sees it (tags dropped, entities decoded)."""
    return unescape(re.sub(r"<[^>]+>", " ", html))


def test_every_page_and_every_explorer_link_on_it_loads(client, snapshot):
    creation_items = [r[0] for r in query(snapshot, "SELECT item_id FROM creation_items ORDER BY item_id")]
    urs_items = [r[0] for r in query(snapshot, "SELECT item_id FROM urs_items ORDER BY item_id")]
    start = ["/explore/", "/explore/creation", "/explore/urs", "/explore/mmmt_if", "/explore/gap", "/explore/ratings",
             "/explore/creation/items", "/explore/urs/items", "/explore/mmmt_if/items", "/explore/gap/items", "/explore/compare",
             "/explore/compare?benchmark=urs"]
    seen = set()
    for url in start:
        html = page(client, url)
        seen.add(url)
        for link in {unescape(h) for h in LINK.findall(html)} - seen:
            page(client, link)
            seen.add(link)
    # The item lists link every item, and each item page loads.
    assert {f"/explore/creation/items/{i}" for i in creation_items} <= seen
    assert {f"/explore/urs/items/{i}" for i in urs_items} <= seen
    assert {f"/explore/mmmt_if/items/{c}" for (c,) in query(snapshot, "SELECT chat_id FROM mmmt_if_chats")} <= seen
    # Filter links of a page are its own URL with one choice changed: stable, shareable addresses.
    assert "/explore/ratings?control=style" in seen


def test_a_filter_changes_the_rows_to_the_snapshots_own(client, snapshot):
    def shown(url):
        html = page(client, url)
        return [(m, unescape(v).split(" ")[0]) for m, v in
                re.findall(r'<tr class="board-row" data-model="([^"]+)">.*?<td class="num value">([^<]*)', html, re.S)]

    def expected(judge, control):
        rows = query(snapshot, "SELECT model, rating FROM interop_leaderboard WHERE source = 'benchwright' AND judge = ? "
                               "AND control = ? ORDER BY rating DESC, model", [judge, control])
        return [(model, f"{rating:.0f}") for model, rating in rows]

    judge = query(snapshot, "SELECT min(judge) FROM interop_leaderboard WHERE source = 'benchwright'")[0][0]
    none = shown(f"/explore/ratings?judge={judge}&control=none")
    style = shown(f"/explore/ratings?judge={judge}&control=style")
    assert none == expected(judge, "none") and style == expected(judge, "style")
    assert none != style and len(none) >= 3
    # Simulated or real: the demo's models and judges are all simulations.
    assert shown(f"/explore/ratings?judge={judge}&control=none&simulated=simulated") == none
    assert shown(f"/explore/ratings?judge={judge}&control=none&simulated=real") == []
    # A category narrows Creation's rows to that category's.
    category = query(snapshot, "SELECT min(category) FROM creation_leaderboard_by_category")[0][0]
    html = page(client, f"/explore/creation?judge={judge}&category={category}")
    models = re.findall(r'<tr class="board-row" data-model="([^"]+)"', html)
    assert sorted(models) == sorted(r[0] for r in query(snapshot, "SELECT model FROM creation_leaderboard_by_category "
                                                                  "WHERE judge = ? AND category = ?", [judge, category]))
    # The interval is drawn: one whisker per row of a board with intervals.
    assert page(client, f"/explore/ratings?judge={judge}").count('class="whisker"') == len(none)


def test_a_filter_value_not_in_the_snapshot_is_an_error_not_a_guess(client):
    assert client.get("/explore/ratings?control=colour").status_code == 404
    assert client.get("/explore/creation?judge=nobody").status_code == 404
    assert client.get("/explore/creation/items/no-such-item").status_code == 404
    assert client.get("/explore/nothing").status_code == 404


def test_the_item_view_shows_the_images_and_both_orders_of_every_verdict(client, snapshot):
    [(item_id, hashes)] = query(snapshot, "SELECT item_id, image_hashes FROM creation_items ORDER BY item_id LIMIT 1")
    html = page(client, f"/explore/creation/items/{item_id}")
    for sha in hashes:
        assert f'src="/image/{sha}"' in html
        assert client.get(f"/image/{sha}").status_code == 200
    judgments = query(snapshot, "SELECT model, judge, judge_order, verdict, raw_text FROM creation_pairwise_judgments "
                                "WHERE item_id = ? AND source = 'benchwright'", [item_id])
    assert {r[2] for r in judgments} == {1, 2}
    for model, judge, order, verdict, raw_text in judgments:
        section = re.search(rf'<section class="model" id="model-{re.escape(model)}".*?</section>', html, re.S).group(0)
        block = re.search(rf'<div class="verdicts" data-judge="{re.escape(judge)}">.*?'
                          rf'<article class="order" data-order="{order}">(.*?)</article>', section, re.S).group(1)
        assert f'<strong class="verdict">{escape(verdict or "–")}</strong>' in block
        assert text_of(block).count(raw_text.strip()[:60]) == 1
    for model, response in query(snapshot, "SELECT model, response FROM generations WHERE benchmark = 'creation' "
                                           "AND item_id = ? AND response IS NOT NULL", [item_id]):
        assert response.strip()[:80] in text_of(html)


def test_parse_failures_show_as_such(client, snapshot):
    failures = query(snapshot, "SELECT item_id, parse_problem FROM creation_pairwise_judgments "
                               "WHERE NOT parse_ok AND error IS NULL ORDER BY item_id LIMIT 1")
    assert failures, "the demo's biased judge leaves some verdicts unparsed"
    item_id, problem = failures[0]
    assert f"Parse failure: {problem}" in text_of(page(client, f"/explore/creation/items/{item_id}"))


def test_the_compare_view_lists_the_items_where_two_models_differ_most_first(client, snapshot):
    judge = "sim-fair-judge"
    html = page(client, f"/explore/compare?benchmark=creation&judge={judge}&a=sim-strong&b=sim-weak")
    items = re.findall(r'<tr class="compare-row"><td><a href="/explore/creation/items/([^"]+)"', html)
    values = dict(((model, item), value) for model, item, value in query(
        snapshot, "SELECT model, item_id, avg(CASE outcome WHEN 'MB' THEN 2 WHEN 'B' THEN 1 WHEN 'T' THEN 0 "
                  "WHEN 'W' THEN -1 WHEN 'MW' THEN -2 END) FROM creation_pairwise_judgments WHERE judge = ? "
                  "AND source = 'benchwright' GROUP BY ALL", [judge]))
    both = {i for (m, i) in values if m == "sim-strong"} & {i for (m, i) in values if m == "sim-weak"}
    differ = {i for i in both if values["sim-strong", i] != values["sim-weak", i]}
    assert set(items) == differ and differ
    gaps = [abs(values["sim-strong", i] - values["sim-weak", i]) for i in items
            if values["sim-strong", i] is not None and values["sim-weak", i] is not None]
    assert gaps == sorted(gaps, reverse=True)


def test_a_chat_turn_by_turn_with_the_instructions_each_model_followed_and_not(client, snapshot):
    [(chat_id, hashes)] = query(snapshot, "SELECT chat_id, image_hashes FROM mmmt_if_chats ORDER BY chat_id LIMIT 1")
    html = page(client, f"/explore/mmmt_if/items/{chat_id}?variant=instructions_appended&sample=1")
    assert all(f'src="/image/{sha}"' in html for sha in hashes)
    rows = query(snapshot, "SELECT turn, model, followed, not_followed FROM mmmt_if_responses WHERE chat_id = ? "
                           "AND variant = 'instructions_appended' AND sample_index = 1", [chat_id])
    assert rows and any(r[3] for r in rows)
    for turn, model, followed, not_followed in rows:
        section = re.search(rf'<section class="turn" data-turn="{turn}">.*?</section>', html, re.S).group(0)
        answer = re.search(rf'<div class="answer" data-model="{re.escape(model)}">.*?</p>', section, re.S).group(0)
        assert re.findall(r'class="tag followed"[^>]*>✓ ([^<]+)<', answer) == list(followed or [])
        assert re.findall(r'class="tag warn not-followed"[^>]*>✗ ([^<]+)<', answer) == list(not_followed or [])
    assert client.get(f"/explore/mmmt_if/items/{chat_id}?sample=99").status_code == 404


def test_people_s_choices_show_without_who_made_them(client, snapshot):
    [(item_id,)] = query(snapshot, "SELECT min(item_id) FROM urs_human_pairwise")
    choices = query(snapshot, "SELECT annotator, winner FROM urs_human_pairwise WHERE item_id = ?", [item_id])
    html = page(client, f"/explore/urs/items/{item_id}")
    shown = re.findall(r'<tr class="human-choice"><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>', html)
    assert sorted(shown) == sorted(winner for _, winner in choices)
    assert not any(annotator in text_of(html) for annotator, _ in choices if annotator)


def test_a_gap_item_shows_answers_and_scores_but_nothing_of_the_game_s_secrets(client, snapshot):
    """The explorer is open to the game's players: a GAP-VQA item must not say which pictures are tainted."""
    [(item_id, image_id, sha)] = query(snapshot, "SELECT item_id, image_id, sha256 FROM gap_vqa_items WHERE item_id IN "
                                                 "(SELECT item_id FROM gap_score_judgments) ORDER BY 1 LIMIT 1")
    html = page(client, f"/explore/gap/items/{item_id}")
    assert f'src="/image/{sha}"' in html
    for model, judge, score in query(snapshot, "SELECT model, judge, score FROM gap_score_judgments WHERE item_id = ?", [item_id]):
        section = re.search(rf'<section class="model" id="model-{re.escape(model)}".*?</section>', html, re.S).group(0)
        assert re.search(rf'data-judge="{re.escape(judge)}">\s*<h4>[^<]*score <strong>([^<]*)</strong>', section).group(1) \
            == (f"{score:.0f}" if score is not None and float(score).is_integer() else f"{score:.3f}" if score is not None else "–")
    shown = text_of(html) + html
    assert image_id not in shown and "tainted" not in text_of(html).lower()  # (a picture id's first letter is its set)
    assert image_id not in text_of(page(client, "/explore/gap/items"))


def test_redacted_text_shows_the_marker_never_the_original(client, snapshot):
    # urs-0004 of the sample carries a made-up e-mail address and phone number (sample_data/README.md).
    with open(ROOT / "sample_data" / "urs" / "questions.csv", encoding="utf-8-sig") as handle:
        question = next(row["question"] for row in csv.DictReader(handle) if "example.com" in row["question"])
    originals = [re.search(r"[\w.]+@example\.com", question).group(0), re.search(r"\+1 [\d-]+", question).group(0)]
    [(item_id,)] = query(snapshot, "SELECT item_id FROM urs_items WHERE question LIKE '%[REDACTED:email]%'")
    html = page(client, f"/explore/urs/items/{item_id}")
    assert "[REDACTED:email]" in text_of(html) and "[REDACTED:phone]" in text_of(html)
    for url in (f"/explore/urs/items/{item_id}", "/explore/urs/items", "/explore/compare?benchmark=urs"):
        shown = text_of(page(client, url))
        assert not any(original in shown for original in originals), url


def test_the_dagster_ui_links_each_leaderboard_to_its_explorer_page(client):
    import definitions

    pages = {"creation_leaderboard": "creation", "urs_leaderboard": "urs", "mmmt_if_pif_metrics": "mmmt_if",
             "gap_scores": "gap", "interop_ratings": "ratings"}
    for key, name in pages.items():
        link = definitions.defs.resolve_assets_def(key).specs_by_key[dg.AssetKey(key)].metadata["explorer"]
        assert isinstance(link, dg.UrlMetadataValue) and link.url == explorer_url(name)
        assert "Nothing to show" not in page(client, urlsplit(link.url).path)


def test_a_bar_runs_from_the_origin_to_the_figure_with_the_interval_as_its_whisker():
    from web.explorer import bar_svg

    svg = str(bar_svg(1200.0, 1100.0, 1300.0, (900.0, 1400.0), 1000.0, width=500))
    assert '<rect x="100.0" y="4" width="200.0"' in svg                       # 1000 -> 1200 on 900..1400
    assert '<line x1="200.0" y1="9.0" x2="400.0" y2="9.0"/>' in svg            # 1100 .. 1300
    below = str(bar_svg(950.0, None, None, (900.0, 1400.0), 1000.0, width=500))  # left of the origin
    assert '<rect x="50.0" y="4" width="50.0"' in below and "whisker" not in below
    # An interval a bootstrap could not give (NaN) is not drawn; a missing figure draws nothing.
    assert "nan" not in str(bar_svg(0.5, float("nan"), float("nan"), (0.0, 1.0), 0.0)).lower()
    assert "<svg" not in str(bar_svg(None, None, None, (0.0, 1.0), 0.0))
