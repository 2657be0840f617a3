"""The results explorer through Flask's test client on the demo's analyst snapshot (the session's shipped demo,
tests/conftest.py): every page and every explorer link on it loads, a filter changes the rows to the snapshot's
own, the item view holds each image and both orders of every verdict with the judge's own text, the compare views
list exactly the items where two models (or two judges) differ, most different first, stored redactions show and
the original never does, the Dagster UI's links land on explorer pages; and the analyst server
(`create_app(explorer_only=True)`) alone shows the game's records of GAP, and serves nothing of the game."""

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

LINK = re.compile(r'href="(/explore/[^"]*)"')


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


@pytest.fixture(scope="module")
def analyst(snapshot):
    """The analyst server's app (`python -m web --explorer-only`) on the same snapshot."""
    return create_app(snapshot, explorer_only=True).test_client()


def query(home, sql, params=()):
    con = duckdb.connect(str(home / "analyst.duckdb"), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def page(client, url) -> str:
    response = client.get(url.split("#")[0])  # a link's fragment is the browser's, not the server's
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
             "/explore/compare?benchmark=urs", "/explore/compare?benchmark=mmmt_if", "/explore/compare?benchmark=gap",
             "/explore/compare/judges", "/explore/compare/judges?benchmark=urs", "/explore/compare/judges?benchmark=gap"]
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
    # The compare views link back to item views: to the model's section, or to the chat's turn.
    assert any(re.fullmatch(r"/explore/creation/items/[^#]+#model-.+", u) for u in seen)
    assert any(re.fullmatch(r"/explore/mmmt_if/items/[^?#]+\?variant=standard#turn-\d+", u) for u in seen)
    # Nothing of the game's records on the game's own server.
    assert not any(u.startswith("/explore/gap/pictures") for u in seen)


def test_the_analyst_server_s_pages_and_links_load(analyst, snapshot):
    seen = set()
    for url in ["/explore/", "/explore/gap/pictures", "/explore/gap/items"]:
        html = page(analyst, url)
        seen.add(url)
        for link in {unescape(h) for h in LINK.findall(html)} - seen:
            page(analyst, link)
            seen.add(link)
    pictures = {r[0] for r in query(snapshot, "SELECT image_id FROM gap_images")}
    assert {f"/explore/gap/pictures/{p}" for p in pictures} <= seen


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
    assert client.get("/explore/compare/judges?benchmark=mmmt_if").status_code == 404   # checked by code: no judges
    assert client.get("/explore/compare?benchmark=gap&category=Astrology").status_code == 404


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
        section = re.search(rf'<section class="turn" data-turn="{turn}"[^>]*>.*?</section>', html, re.S).group(0)
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


def gap_fragments(html: str) -> list[str]:
    """What only the analyst server may show of GAP: its game-record sections and marks tables."""
    return re.findall(r'class="[^"]*\bgame-(?:record|mark|marks)\b', html)


def test_the_game_records_show_on_the_analyst_server_only(client, analyst, snapshot):
    """Planted answers and players' marks would tell the game's players which pictures are tainted: the game's server
    shows none, the analyst server shows them as stored."""
    # A tainted picture whose planted answer was caught, and a GAP-VQA item (from an untainted picture).
    [(image_id, sha)] = query(snapshot, "SELECT g.image_id, g.sha256 FROM gap_images g JOIN gap_marks m USING (image_id) "
                                        "WHERE m.instructed_wrong GROUP BY ALL ORDER BY count(*) DESC, 1 LIMIT 1")
    [(item_id, item_image, question)] = query(
        snapshot, "SELECT item_id, image_id, question FROM gap_vqa_items WHERE item_id IN (SELECT item_id FROM "
                  "gap_score_judgments) ORDER BY item_id LIMIT 1")
    # The game's server: no picture pages, and no game record on any GAP page.
    assert client.get(f"/explore/gap/pictures/{image_id}").status_code == 404
    assert client.get("/explore/gap/pictures").status_code == 404
    for url in ["/explore/gap/items", f"/explore/gap/items/{item_id}", "/explore/"]:
        html = page(client, url)
        assert gap_fragments(html) == [] and "planted" not in html.lower() and item_image not in text_of(html), url
    # The analyst server: the planted answers of the picture as stored, with its set.
    html = page(analyst, f"/explore/gap/pictures/{image_id}")
    assert f'src="/image/{sha}"' in html and '<span class="tag warn" id="image-set">tainted</span>' in html
    planted = query(snapshot, "SELECT question, true_answer, instructed_wrong, answer FROM gap_tainted_answers "
                              "WHERE image_id = ? ORDER BY question_index, model", [image_id])
    shown = re.findall(r'<tr class="planted-answer" data-planted="(yes|no)"><td>([^<]*)</td><td>([^<]*)</td>.*?'
                       r'<td class="model-answer">([^<]*)</td>', html, re.S)
    assert [(unescape(q), unescape(t), p == "yes", unescape(a)) for p, q, t, a in shown] == \
        [(q, t, bool(p), a) for q, t, p, a in planted]
    assert any(p for _, _, p, _ in planted)
    # ... and every mark on it, in play order, planted ones flagged.
    marks = query(snapshot, "SELECT question, model_answer, instructed_wrong, player_mark FROM gap_marks WHERE image_id = ? "
                            "ORDER BY session_start, session_id, question_index", [image_id])
    rows = re.findall(r'<tr class="game-mark[^"]*" data-planted="(yes|no)">.*?<td>([^<]*)</td><td class="model-answer">'
                      r'([^<]*)</td>.*?<td class="mark">([^<]*)</td>', html, re.S)
    assert [(unescape(q), unescape(a), p == "yes", m) for p, q, a, m in rows] == [(q, a, bool(p), m) for q, a, p, m in marks]
    assert sum(p for _, _, p, _ in marks) > 0
    # A GAP-VQA item on the analyst server: its picture, who asked its question, and the marks on that picture.
    html = page(analyst, f"/explore/gap/items/{item_id}")
    assert f'href="/explore/gap/pictures/{item_image}"' in html
    kept = query(snapshot, "SELECT player_id FROM gap_adversarial_questions WHERE image_id = ? AND question = ?",
                 [item_image, question])
    section = re.search(r'<section class="task game-record" id="in-the-game">.*?</section>', html, re.S).group(0)
    assert kept and all(player in text_of(section) for (player,) in kept)
    on_picture = query(snapshot, "SELECT count(*), count(*) FILTER (WHERE question = ?) FROM gap_marks WHERE image_id = ?",
                       [question, item_image])[0]
    assert (section.count('<tr class="game-mark'), section.count("this-question")) == on_picture
    assert on_picture[1] >= len(kept)


def test_the_analyst_server_serves_nothing_of_the_game_and_writes_nothing(analyst, snapshot):
    home = snapshot
    before = sorted(p.relative_to(home) for p in home.rglob("*"))
    response = analyst.get("/")
    assert response.status_code == 302 and response.headers["Location"].endswith("/explore/")
    for url in ("/game", "/join", "/login", "/annotate", "/leaderboard", "/token"):
        assert analyst.get(url).status_code == 404, url
    assert analyst.post("/join", data={"name": "someone"}).status_code == 404
    assert analyst.post("/explore/compare").status_code == 405
    html = page(analyst, "/explore/creation")
    assert "/game" not in html and "/join" not in html and 'id="analyst-mode"' in html
    assert "Set-Cookie" not in analyst.get("/explore/").headers
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == before  # no state file, no secret key, no drop
    with pytest.raises(SystemExit):
        from web.__main__ import main
        main(["--explorer-only", "--new-token", "someone"])


def compare_rows(html: str, benchmark: str) -> list[tuple]:
    """(item, model or turn, A − B as shown) per row of a compare page."""
    rows = []
    for row in re.findall(r'<tr class="compare-row">(.*?)</tr>', html, re.S):
        link = unescape(re.search(r'href="([^"]+)"', row).group(1))
        item = re.match(rf"/explore/{benchmark}/items/([^?#]+)", link).group(1)
        anchor = link.split("#")[1] if "#" in link else None
        difference = re.search(r'<td class="num difference">([^<]*)</td>', row).group(1)
        rows.append((item, anchor, difference))
    return rows


def shown_number(value) -> str:
    from web.explorer import number

    return number(value) if value is not None else "one side unscored"


def test_two_judges_side_by_side_where_they_differ_most_first(client, snapshot):
    values = {}
    for judge, model, item, value in query(
            snapshot, "SELECT judge, model, item_id, avg(CASE outcome WHEN 'MB' THEN 2 WHEN 'B' THEN 1 WHEN 'T' THEN 0 "
                      "WHEN 'W' THEN -1 WHEN 'MW' THEN -2 END) FROM creation_pairwise_judgments "
                      "WHERE source = 'benchwright' GROUP BY ALL"):
        values[judge, model, item] = value
    a, b = "sim-biased-judge", "sim-fair-judge"
    expected = {(item, f"model-{model}"): values[a, model, item] - values[b, model, item]
                if values[a, model, item] is not None and values[b, model, item] is not None else None
                for (judge, model, item) in values if judge == a and (b, model, item) in values
                and values[a, model, item] != values[b, model, item]}
    html = page(client, f"/explore/compare/judges?benchmark=creation&a={a}&b={b}")
    rows = compare_rows(html, "creation")
    assert {(i, m): d for i, m, d in rows} == {k: shown_number(v) for k, v in expected.items()} and expected
    gaps = [abs(expected[i, m]) for i, m, _ in rows if expected[i, m] is not None]
    assert gaps == sorted(gaps, reverse=True) and len(set(gaps)) > 1
    # A filter: one category, one model; the rows are the matching subset.
    [(category,)] = query(snapshot, "SELECT min(category) FROM creation_items")
    items = {i for (i,) in query(snapshot, "SELECT item_id FROM creation_items WHERE category = ?", [category])}
    narrowed = compare_rows(page(client, f"/explore/compare/judges?benchmark=creation&a={a}&b={b}&category="
                                         f"{category}&model=sim-strong"), "creation")
    assert {(i, m) for i, m, _ in narrowed} == {k for k in expected if k[0] in items and k[1] == "model-sim-strong"}
    # Judges differ on GAP scores too; each row says which candidate, and a − b.
    scores = {(j, m, i): s for j, m, i, s in query(snapshot, "SELECT judge, model, item_id, avg(score) FROM gap_score_judgments GROUP BY ALL")}
    gap = compare_rows(page(client, f"/explore/compare/judges?benchmark=gap&a={a}&b={b}"), "gap")
    assert {(i, m) for i, m, _ in gap} == {(i, f"model-{m}") for (j, m, i), s in scores.items()
                                           if j == a and (b, m, i) in scores and s != scores[b, m, i]}


def test_two_models_on_gap_items_and_on_mmmt_if_turns(client, snapshot):
    # GAP: the judge's scores of the two answers, a − b, most different first.
    judge, a, b = "sim-fair-judge", "sim-strong", "sim-weak"
    scores = {(m, i): s for m, i, s in query(snapshot, "SELECT model, item_id, avg(score) FROM gap_score_judgments "
                                                       "WHERE judge = ? GROUP BY ALL", [judge])}
    expected = {i: (scores[a, i] - scores[b, i] if scores[a, i] is not None and scores[b, i] is not None else None)
                for (m, i) in scores if m == a and (b, i) in scores and scores[a, i] != scores[b, i]}
    rows = compare_rows(page(client, f"/explore/compare?benchmark=gap&judge={judge}&a={a}&b={b}"), "gap")
    assert {i: d for i, _, d in rows} == {i: shown_number(v) for i, v in expected.items()} and expected
    assert [abs(expected[i]) for i, _, _ in rows if expected[i] is not None] == \
        sorted((abs(v) for v in expected.values() if v is not None), reverse=True)
    # MMMT-IF: per chat and turn, how often each model followed each instruction in force across the samples.
    followed = {}
    for model, chat, turn, in_force, done in query(
            snapshot, "SELECT model, chat_id, turn, instructions_in_force, followed FROM mmmt_if_responses "
                      "WHERE variant = 'standard' AND error IS NULL AND model IN (?, ?)", [a, b]):
        for instruction in in_force:
            count = followed.setdefault((model, chat, turn), {}).setdefault(instruction, [0, 0])
            count[0] += instruction in (done or [])
            count[1] += 1
    differ = {}
    for (model, chat, turn), counts in followed.items():
        other = followed.get((b, chat, turn))
        if model != a or other is None:
            continue
        shares = [(counts[i][0] / counts[i][1], other[i][0] / other[i][1]) for i in counts]
        if any(x != y for x, y in shares):
            differ[chat, f"turn-{turn}"] = (sum(abs(x - y) for x, y in shares) / len(shares),
                                            sum(x - y for x, y in shares) / len(shares))
    html = page(client, f"/explore/compare?benchmark=mmmt_if&variant=standard&a={a}&b={b}")
    rows = compare_rows(html, "mmmt_if")
    assert {(c, t): d for c, t, d in rows} == {k: shown_number(v[1]) for k, v in differ.items()} and differ
    disagreement = [differ[c, t][0] for c, t, _ in rows]
    assert disagreement == sorted(disagreement, reverse=True)
    # The turn's instructions with how many samples followed each, on both sides.
    chat, turn = rows[0][0], int(rows[0][1].split("-")[1])
    first = re.search(r'<tr class="compare-row">.*?</tr>', html, re.S).group(0)
    for instruction, (times, samples) in followed[a, chat, turn].items():
        assert f"{instruction} {times}/{samples}" in re.search(r'class="num value-a">(.*?)</td>', first, re.S).group(1)
    # A topic filter narrows to that topic's chats.
    [(topic, chats)] = query(snapshot, "SELECT topic, list(chat_id) FROM mmmt_if_chats GROUP BY topic ORDER BY topic LIMIT 1")
    narrowed = compare_rows(page(client, f"/explore/compare?benchmark=mmmt_if&variant=standard&a={a}&b={b}&topic={topic}"),
                            "mmmt_if")
    assert {(c, t) for c, t, _ in narrowed} == {k for k in differ if k[0] in chats}
