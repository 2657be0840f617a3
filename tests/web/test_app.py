"""The web app through Flask's test client with a fake clock: identity, validation, escaping, the game's
rules under the timer, crash recovery, and annotation records. The browser tests drive the same pages in
Chromium; these pin the server-side rules one by one."""

import csv
import json
import re

import pytest

from benchwright import durable
from benchwright.gap import game
from tests.support.web import FakeClock, build_small_home, csrf_of, join
from web.app import create_app


@pytest.fixture(scope="module")
def published_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("web_home")
    build_small_home(home, answer_text="<b>bold?</b> answer")
    return home


@pytest.fixture
def site(published_home, tmp_path):
    """A fresh app state on the shared published home (its own state and drop folders per test)."""
    import shutil

    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(published_home / "analyst.duckdb", home / "analyst.duckdb")
    clock = FakeClock()
    app = create_app(home, time_limit_s=120, sweep=False, clock=clock)
    return app, clock, home


def _text(response):
    return response.get_data(as_text=True)


def _form(page, name):
    return re.search(rf'name="{name}" value="([^"]*)"', page).group(1)


def ask(client, question="How many circles are in the image?"):
    page = _text(client.get("/game"))
    return client.post("/game/ask", data={"csrf": _form(page, "csrf"), "session_id": _form(page, "session_id"),
                                          "image_order": _form(page, "image_order"), "question": question})


def mark(client, verdict):
    page = _text(client.get("/game"))
    return client.post("/game/mark", data={"csrf": _form(page, "csrf"), "session_id": _form(page, "session_id"),
                                           "image_order": _form(page, "image_order"),
                                           "question_index": _form(page, "question_index"), "mark": verdict})


def start_game(client):
    assert client.post("/game/start", data={"csrf": csrf_of(client, "/game")}).status_code == 302


def logged_marks(home):
    return [json.loads(line) for path in sorted((home / "drops" / "gap_logs").glob("gap-*")) for line in durable.read_lines(path)]


# --- identity -------------------------------------------------------------------------------------------

def test_a_token_logs_in_only_its_own_person(site):
    app, _, _ = site
    alice, bob = app.test_client(), app.test_client()
    alice_token = join(alice, "alice")
    bob_token = join(bob, "bob")
    stranger = app.test_client()
    for name, token in (("alice", bob_token), ("bob", alice_token), ("alice", ""), ("nobody", alice_token)):
        response = stranger.post("/login", data={"csrf": csrf_of(stranger, "/login"), "name": name, "token": token})
        assert response.status_code == 401
    assert stranger.get("/game").status_code == 302            # still not logged in
    ok = stranger.post("/login", data={"csrf": csrf_of(stranger, "/login"), "name": "alice", "token": alice_token})
    assert ok.status_code == 302 and "Signed in as <strong>alice</strong>" in _text(stranger.get("/"))
    # The same name twice is refused, whatever the case.
    again = app.test_client()
    assert again.post("/join", data={"csrf": csrf_of(again, "/join"), "name": "ALICE"}).status_code == 409
    # ... and so is a name already in the data, which would merge two people's records.
    assert again.post("/join", data={"csrf": csrf_of(again, "/join"), "name": "Earlier_Annotator"}).status_code == 409


def test_logout_and_a_new_token_end_sessions_on_the_server_even_for_a_copied_cookie(site):
    app, _, _ = site
    browser = app.test_client()
    token = join(browser, "dora")
    copied = app.test_client()
    copied.set_cookie("session", browser.get_cookie("session").value)   # someone copied the cookie
    assert "Signed in as <strong>dora</strong>" in _text(copied.get("/"))
    assert browser.post("/logout", data={"csrf": csrf_of(browser, "/")}).status_code == 302
    assert copied.get("/game").status_code == 302 and "Signed in as" not in _text(copied.get("/"))

    # A new token signs out every other browser; the one that asked for it stays signed in.
    laptop, phone = app.test_client(), app.test_client()
    for client in (laptop, phone):
        assert client.post("/login", data={"csrf": csrf_of(client, "/login"), "name": "dora",
                                           "token": token}).status_code == 302
    stolen = app.test_client()
    stolen.set_cookie("session", phone.get_cookie("session").value)
    page = _text(laptop.post("/token", data={"csrf": csrf_of(laptop, "/")}))
    new_token = re.search(r'<code id="token">([^<]+)</code>', page).group(1)
    assert new_token != token and "Signed in as <strong>dora</strong>" in _text(laptop.get("/"))
    for client in (phone, stolen):
        assert "Signed in as" not in _text(client.get("/"))
    old = app.test_client()
    assert old.post("/login", data={"csrf": csrf_of(old, "/login"), "name": "dora", "token": token}).status_code == 401
    assert old.post("/login", data={"csrf": csrf_of(old, "/login"), "name": "dora",
                                    "token": new_token}).status_code == 302


def test_an_operator_new_token_ends_every_session_of_that_person_only(site, monkeypatch, capsys):
    from web.__main__ import main

    app, _, home = site
    browser, other = app.test_client(), app.test_client()
    token = join(browser, "erin")
    join(other, "frank")
    copied = app.test_client()
    copied.set_cookie("session", browser.get_cookie("session").value)
    assert "Signed in as <strong>erin</strong>" in _text(copied.get("/"))   # a copy works until then

    monkeypatch.setenv("BENCHWRIGHT_HOME", str(home))
    main(["--new-token", "erin"])
    new_token = re.search(r": (\S+)$", capsys.readouterr().out.strip()).group(1)
    for client in (browser, copied):
        assert "Signed in as" not in _text(client.get("/")) and client.get("/game").status_code == 302
    assert "Signed in as <strong>frank</strong>" in _text(other.get("/"))   # someone else's sessions stay
    fresh = app.test_client()
    assert fresh.post("/login", data={"csrf": csrf_of(fresh, "/login"), "name": "erin", "token": token}).status_code == 401
    assert fresh.post("/login", data={"csrf": csrf_of(fresh, "/login"), "name": "erin",
                                      "token": new_token}).status_code == 302
    with pytest.raises(SystemExit) as refused:
        main(["--new-token", "nobody"])
    assert refused.value.code == 2 and "no person named 'nobody'" in capsys.readouterr().err


def test_a_login_ends_after_its_maximum_age(site):
    from benchwright import people

    app, clock, _ = site
    browser = app.test_client()
    join(browser, "gail")
    clock.advance(people.LOGIN_MAX_AGE_S - 60)
    assert "Signed in as <strong>gail</strong>" in _text(browser.get("/"))
    clock.advance(120)
    assert "Signed in as" not in _text(browser.get("/")) and browser.get("/game").status_code == 302


def test_a_login_checked_against_a_token_that_changed_meanwhile_is_not_recorded(site):
    from benchwright import people
    from web.store import Store, state_path

    _, clock, home = site
    store = Store(state_path(home))
    old, new = people.new_token(), people.new_token()
    assert store.add_person("hana", people.token_digest(old))
    # A login request checked the old token; before it records the login, the token is changed.
    assert store.set_token("hana", people.token_digest(new))
    assert not store.add_login(people.token_digest("login-1"), "hana", people.token_digest(old), clock())
    assert store.login_handle(people.token_digest("login-1"), clock()) is None
    assert store.add_login(people.token_digest("login-2"), "hana", people.token_digest(new), clock())
    assert store.login_handle(people.token_digest("login-2"), clock()) == "hana"
    assert not store.set_token("nobody", people.token_digest(new))


def test_the_writer_is_the_logged_in_person_never_a_form_field(site):
    app, _, home = site
    client = app.test_client()
    join(client, "carol")
    start_game(client)
    ask(client)
    page = _text(client.get("/game"))
    client.post("/game/mark", data={"csrf": _form(page, "csrf"), "session_id": _form(page, "session_id"),
                                    "image_order": _form(page, "image_order"), "question_index": "0", "mark": "wrong",
                                    "player_id": "mallory", "annotator": "mallory"})
    assert [m["player_id"] for m in logged_marks(home)] == ["carol"]


def test_a_forged_cookie_or_a_missing_form_token_writes_nothing(site):
    app, _, home = site
    client = app.test_client()
    join(client, "dave")
    start_game(client)
    page = _text(client.get("/game"))
    no_csrf = client.post("/game/ask", data={"session_id": _form(page, "session_id"), "image_order": _form(page, "image_order"),
                                             "question": "What colour is it?"})
    assert no_csrf.status_code == 400
    forged = app.test_client()
    forged.set_cookie("session", client.get_cookie("session").value[:-4] + "AAAA")
    assert forged.get("/game").status_code == 302              # the signature fails: not logged in
    assert logged_marks(home) == []


@pytest.mark.parametrize("name", ["x", "has space", "<script>alert(1)</script>", "me@example.com", "p5551234567"])
def test_bad_names_are_refused_with_the_reason_shown(site, name):
    app, _, _ = site
    client = app.test_client()
    response = client.post("/join", data={"csrf": csrf_of(client, "/join"), "name": name})
    assert response.status_code == 400 and "<script>alert" not in _text(response)


# --- the game -------------------------------------------------------------------------------------------

def test_a_session_mixes_five_tainted_and_five_untainted_and_the_page_hides_which(site):
    app, _, home = site
    client = app.test_client()
    join(client, "erin")
    start_game(client)
    row = app.extensions["benchwright"].store.open_session("erin")
    plan = game.plan_from_json(row["plan"])
    assert sorted(p.tainted for p in plan) == [False] * 5 + [True] * 5
    page = _text(client.get("/game"))
    assert "Picture <span id=\"image-number\">1</span> of 10" in page
    for image in plan:
        assert image.image_id not in page
    assert "tainted" not in page.lower() and "planted" not in page.lower()


def test_correct_keeps_the_picture_wrong_moves_on_and_each_picture_is_published_when_over(site):
    app, _, home = site
    client = app.test_client()
    join(client, "frank")
    start_game(client)
    ask(client)
    assert 'id="model-answer"' in _text(client.get("/game"))
    mark(client, "correct")
    assert 'id="image-number">1<' in _text(client.get("/game"))
    assert list((home / "drops" / "gap_logs").glob("*.jsonl")) == []          # picture 1 still in play
    ask(client, "What colour is the circle nearest the left edge?")
    mark(client, "wrong")
    assert 'id="image-number">2<' in _text(client.get("/game"))
    published = sorted((home / "drops" / "gap_logs").glob("*.jsonl"))
    assert len(published) == 1
    records = [json.loads(x) for x in durable.read_lines(published[0])]
    assert [(r["question_index"], r["player_mark"]) for r in records] == [(0, "correct"), (1, "wrong")]


def test_when_the_time_is_up_the_next_picture_comes_and_a_late_mark_is_refused(site):
    app, clock, home = site
    client = app.test_client()
    join(client, "gina")
    start_game(client)
    ask(client)
    mark(client, "correct")
    ask(client, "Is the red circle on the left or the right?")
    stale = _text(client.get("/game"))
    clock.advance(120.5)
    assert 'id="image-number">2<' in _text(client.get("/game"))
    late = client.post("/game/mark", data={"csrf": _form(stale, "csrf"), "session_id": _form(stale, "session_id"),
                                           "image_order": "1", "question_index": "1", "mark": "wrong"})
    assert late.status_code == 302 and "Time was up" in _text(client.get("/game"))
    records = logged_marks(home)
    assert [(r["image_order"], r["question_index"], r["player_mark"]) for r in records] == [(1, 0, "correct")]
    assert all(r["seconds_taken"] <= 120 for r in records)
    assert list((home / "drops" / "gap_logs").glob("*-01.jsonl"))          # the expired picture was published


def test_every_picture_timing_out_ends_the_session_and_six_hours_reset_it(site):
    app, clock, home = site
    client = app.test_client()
    join(client, "hank")
    start_game(client)
    for order in range(1, 11):
        assert f'id="image-number">{order}<' in _text(client.get("/game"))
        clock.advance(121)
    assert "Start a session" in _text(client.get("/game"))
    start_game(client)
    ask(client)
    mark(client, "correct")
    clock.advance(6 * 3600)
    assert "Start a session" in _text(client.get("/game"))              # the reset closed it
    assert list((home / "drops" / "gap_logs").glob("*.jsonl.part")) == []


def test_questions_are_validated_masked_and_escaped(site):
    app, _, home = site
    client = app.test_client()
    join(client, "ivy")
    start_game(client)
    ask(client, "x" * 301)
    assert "too long" in _text(client.get("/game"))
    ask(client, "ok")
    assert "too short" in _text(client.get("/game"))
    ask(client, "<script>alert(1)</script> mail me at ivy.person@example.com?")
    page = _text(client.get("/game"))
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "ivy.person@example.com" not in page and "[REDACTED:email]" in page
    mark(client, "wrong")
    [record] = logged_marks(home)
    assert "example.com" not in json.dumps(record)
    response = client.get("/game")
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]


def test_a_server_crash_loses_no_accepted_mark_and_a_torn_line_is_cut(site):
    app, clock, home = site
    client = app.test_client()
    token = join(client, "jack")
    start_game(client)
    ask(client)
    mark(client, "correct")
    ask(client, "What colour is the square nearest the right edge?")
    [part] = (home / "drops" / "gap_logs").glob("*.part")
    with open(part, "ab") as handle:              # the process died half-way through a write
        handle.write(b'{"session_id": "torn')
    # A new process on the same home: state and files are what is on disk.
    again = create_app(home, time_limit_s=120, sweep=False, clock=clock).test_client()
    again.post("/login", data={"csrf": csrf_of(again, "/login"), "name": "jack", "token": token})
    page = _text(again.get("/game"))
    assert 'id="image-number">1<' in page and "What colour is the square" in page     # the pending question survived
    mark(again, "wrong")
    assert [(r["question_index"], r["player_mark"]) for r in logged_marks(home)] == [(0, "correct"), (1, "wrong")]


def test_the_points_shown_at_the_end_are_the_pipelines_rule_on_the_logged_marks(site):
    app, _, home = site
    client = app.test_client()
    join(client, "kate")
    start_game(client)
    for _ in range(10):
        ask(client)
        mark(client, "wrong")
    page = _text(client.get("/game"))
    shown = int(re.search(r'id="points">(\d+)<', page).group(1))
    marks = logged_marks(home)
    assert len(marks) == 10 and shown == game.session_points(marks)
    assert shown == 20 * sum(m["tainted"] and m["instructed_wrong"] for m in marks)


# --- annotation -----------------------------------------------------------------------------------------

def test_an_annotation_round_records_choices_sides_and_order(site):
    app, _, home = site
    client = app.test_client()
    join(client, "lena")
    client.post("/annotate/start", data={"csrf": csrf_of(client, "/annotate")})
    seen = []
    for position in range(1, 5):
        page = _text(client.get("/annotate"))
        assert f'id="position">{position}<' in page
        assert "&lt;b&gt;bold?&lt;/b&gt;" in page and "<b>bold?</b>" not in page     # answers are escaped
        left = re.search(r'id="left-answer">([^<]*)<', page).group(1)
        seen.append(left)
        client.post("/annotate/choose", data={"csrf": _form(page, "csrf"), "round_id": _form(page, "round_id"),
                                              "position": str(position), "choice": "left_much_better"})
    # A replayed (stale) post records nothing more.
    client.post("/annotate/choose", data={"csrf": _form(page, "csrf"), "round_id": _form(page, "round_id"),
                                          "position": "4", "choice": "cannot_tell"})
    assert "recorded\">4<" in _text(client.get("/annotate"))
    [path] = (home / "drops" / "human_pairwise").glob("annotation-*.csv")
    rows = list(csv.DictReader(path.open()))
    assert [int(r["item_position"]) for r in rows] == [1, 2, 3, 4] and {r["annotator"] for r in rows} == {"lena"}
    assert len({(r["benchmark"], r["item_id"]) for r in rows}) == 4
    for row, left_text in zip(rows, seen):
        assert row["left_model"] in left_text.replace("&lt;b&gt;bold?&lt;/b&gt; answer (", "")
        assert row["winner"] == ("A" if row["left_model"] == row["model_a"] else "B") and row["strength"] == "2"


def test_an_annotation_round_survives_a_crash_mid_write(site):
    app, clock, home = site
    client = app.test_client()
    token = join(client, "mona")
    client.post("/annotate/start", data={"csrf": csrf_of(client, "/annotate")})
    page = _text(client.get("/annotate"))
    client.post("/annotate/choose", data={"csrf": _form(page, "csrf"), "round_id": _form(page, "round_id"),
                                          "position": "1", "choice": "right_better"})
    [path] = (home / "drops" / "human_pairwise").glob("annotation-*.csv")
    with open(path, "ab") as handle:              # the process died half-way through the second row
        handle.write(b"urs,u1,sim-str")
    again = create_app(home, time_limit_s=120, sweep=False, clock=clock).test_client()
    again.post("/login", data={"csrf": csrf_of(again, "/login"), "name": "mona", "token": token})
    page = _text(again.get("/annotate"))
    assert 'id="position">2<' in page                # the accepted choice counts, the torn one does not
    again.post("/annotate/choose", data={"csrf": _form(page, "csrf"), "round_id": _form(page, "round_id"),
                                         "position": "2", "choice": "cannot_tell"})
    from benchwright.human_pairwise import load_pairwise_csv

    rows, problems = load_pairwise_csv(path)
    assert problems == [] and [(r["item_position"], r["winner"]) for r in rows][1] == (2, "undetermined")
    assert len(rows) == 2


# --- small things seen (issue #32, item 6) ----------------------------------------------------------------

def test_the_token_page_after_join_shows_the_new_person_signed_in(site):
    app, _, _ = site
    client = app.test_client()
    response = client.post("/join", data={"csrf": csrf_of(client, "/join"), "name": "nora"})
    page = _text(response)
    assert 'id="token"' in page and "Signed in as <strong>nora</strong>" in page
    assert ">Log in<" not in page and ">Join<" not in page


def test_the_criteria_header_takes_a_or_an_by_the_intent(site):
    from web.content import _article

    app, _, _ = site
    client = app.test_client()
    join(client, "olga")
    client.post("/annotate/start", data={"csrf": csrf_of(client, "/annotate")})
    pages = [_text(client.get("/annotate"))]
    for position in range(1, 4):  # the sample's URS items are Factual QA; walk the round until one shows
        page = pages[-1]
        client.post("/annotate/choose", data={"csrf": _form(page, "csrf"), "round_id": _form(page, "round_id"),
                                              "position": str(position), "choice": "cannot_tell"})
        pages.append(_text(client.get("/annotate")))
    assert any("<h3>For a Factual QA question</h3>" in page for page in pages)
    assert [_article(w) for w in ("Ask for Advice", "Usage through API", "Leisure", "Factual QA")] == ["an", "an", "a", "a"]


def test_every_page_names_a_favicon_that_is_served(site):
    from PIL import Image
    import io

    app, _, _ = site
    client = app.test_client()
    assert '<link rel="icon" href="/favicon.ico">' in _text(client.get("/"))
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.mimetype == "image/vnd.microsoft.icon"
    icon = Image.open(io.BytesIO(response.data))
    assert icon.format == "ICO" and icon.size == (32, 32)


def test_the_weekly_leaderboard_says_when_this_week_has_no_results_yet(site):
    app, clock, _ = site
    client = app.test_client()
    page = _text(client.get("/leaderboard"))          # the clock is in 2026-W47, the week the sample scored
    assert "2026-W47 (this week)" in page and "no-results-this-week" not in page
    clock.advance(7 * 86400)
    page = _text(client.get("/leaderboard"))
    assert 'id="no-results-this-week">No results for this week (2026-W48) yet' in page and "2026-W47" in page
