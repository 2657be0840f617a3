"""The results explorer: leaderboards with their intervals drawn, one item with every answer and verdict, and two
models compared item by item. Read-only over the analyst snapshot (no form, no write, no login needed); its
queries are the files of `sql/web/explorer/`. Every page is a GET whose query string holds its filters, so a URL
names what it shows.

The game's side of GAP (picture ids and sets, planted answers, players' marks) is shown only by the analyst server
(`python -m web --explorer-only`, `web.site.explorer_only`): on the game's server, where the players are, it would
tell them which pictures are tainted.

Text on these pages is the warehouse's as stored: items, answers and judges' texts were redacted of personal data
before they were written (benchwright.pii at load and after each call), and nothing here reads anything else.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import defaultdict

from flask import Blueprint, abort, render_template, request, url_for
from markupsafe import Markup, escape

from web.site import current_site, explorer_only

bp = Blueprint("explorer", __name__, url_prefix="/explore")

SIMULATED_CHOICES = ("all", "real", "simulated")


@dataclasses.dataclass(frozen=True)
class Board:
    """One leaderboard page: its query, the column drawn (and its interval, when it has one), the filters."""
    key: str
    title: str
    sql: str
    value: str
    value_label: str
    origin: float                       # where a bar starts: 0, or the anchor of a rating scale
    filters: tuple[str, ...]            # columns to choose a value of; the first choice unless `defaults` says
    columns: tuple[tuple[str, str], ...]
    lower: str | None = None
    upper: str | None = None
    defaults: tuple[tuple[str, str], ...] = ()
    items: str | None = None            # the benchmark whose item list and compare view it links to
    note: str = ""


BOARDS = {b.key: b for b in (
    Board("creation", "Creation", "creation_leaderboard.sql", "reward", "Reward", 0.0, ("judge", "category"),
          (("win_rate", "Win rate"), ("vfs", "VFS"), ("n", "n"), ("fail", "Parse failures"), ("missing", "Missing")),
          defaults=(("category", "all"),), items="creation",
          note="Reward (-100..100) against the baseline answer, both orders of every pair; no interval is computed "
               "for it (see Ratings for intervals on the same judgments)."),
    Board("urs", "URS", "urs_leaderboard.sql", "final_score", "Final score", 0.0, ("judge", "intent", "language"),
          (("n", "n"), ("parse_failures", "Parse failures")), defaults=(("intent", "all"), ("language", "all")),
          items="urs", note="Mean final score (1-10) of the parsed judgments; no interval is computed for it."),
    Board("mmmt_if", "MMMT-IF", "mmmt_if_leaderboard.sql", "pif", "PIF", 0.0, ("variant",),
          (("pif_n_n", "PIF-N-N"), ("n_samples", "Samples"), ("contexts", "Contexts"), ("failed", "Failed")),
          lower="pif_lower", upper="pif_upper", defaults=(("variant", "standard"),), items="mmmt_if",
          note="Programmatic instruction following (share of instructions followed), with its interval."),
    Board("gap", "GAP-VQA", "gap_leaderboard.sql", "gpt_score", "GPT score", 0.0, ("judge",),
          (("n", "n"), ("parse_failures", "Parse failures"), ("missing", "Missing")), items="gap",
          note="The judge's GPT score of the answers to people's game questions; no interval is computed for it."),
    Board("ratings", "Ratings (Bradley-Terry)", "ratings_leaderboard.sql", "rating", "Rating", 1000.0,
          ("source", "judge", "control"),
          (("rank", "Rank"), ("win_rate", "Win rate"), ("judgments", "Judgments")), lower="rating_lower",
          upper="rating_upper", defaults=(("source", "benchwright"), ("control", "none")), items="creation",
          note="Elo-scale ratings from Creation's pairwise judgments (the baseline anchored at 1000), with bootstrap "
               "intervals over prompts; control: none, or answer style, length or markdown fitted as covariates."),
)}
ITEM_LISTS = {"creation": "creation_items.sql", "urs": "urs_items.sql", "mmmt_if": "mmmt_if_items.sql",
              "gap": "gap_items.sql"}
ORDERS = {1: "Order 1: baseline is A", 2: "Order 2: candidate is A"}


def _choose(name: str, choices: list[str], default: str | None) -> str | None:
    """The query string's value for `name`, which must be one of `choices` (a bad URL is an error, not a guess)."""
    wanted = request.args.get(name)
    if wanted is None:
        return default if default in choices else (choices[0] if choices else None)
    if wanted not in choices:
        abort(404, f"no {name} {wanted!r} here; the choices are: {', '.join(choices) or 'none'}")
    return wanted


def _finite(value) -> float | None:
    """A figure to draw, or None (no value, or NaN: an interval a bootstrap could not give)."""
    return None if value is None or not math.isfinite(value) else float(value)


def _span(rows: list[dict], board: Board) -> tuple[float, float]:
    values = [board.origin]
    for row in rows:
        values += [_finite(row[c]) for c in (board.value, board.lower, board.upper) if c and _finite(row.get(c)) is not None]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.05 or 1.0
    return lo - pad, hi + pad


def bar_svg(value, lower, upper, span: tuple[float, float], origin: float, width: int = 260, height: int = 18) -> Markup:
    """A horizontal bar from `origin` to `value` with the interval [lower, upper] as a whisker: inline SVG, drawn
    with presentation attributes only (the site's Content-Security-Policy forbids inline styles)."""
    value, lower, upper = _finite(value), _finite(lower), _finite(upper)
    if value is None:
        return Markup('<span class="small">no value</span>')
    lo, hi = span

    def x(v: float) -> float:
        return round((v - lo) / (hi - lo) * width, 1)

    left, right = sorted((x(origin), x(value)))
    title = number(value) + (f" [{number(lower)}, {number(upper)}]" if lower is not None and upper is not None else "")
    parts = [f'<svg class="bar" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{escape(title)}"><title>{escape(title)}</title>',
             f'<rect x="{left}" y="4" width="{max(right - left, 1)}" height="{height - 8}" fill="#7fa7d6"/>',
             f'<line x1="{x(origin)}" y1="0" x2="{x(origin)}" y2="{height}" stroke="#888" stroke-width="1"/>']
    if lower is not None and upper is not None:
        mid = height / 2
        parts.append(f'<g class="whisker" stroke="#1d1d1f" stroke-width="1.5">'
                     f'<line x1="{x(lower)}" y1="{mid}" x2="{x(upper)}" y2="{mid}"/>'
                     f'<line x1="{x(lower)}" y1="3" x2="{x(lower)}" y2="{height - 3}"/>'
                     f'<line x1="{x(upper)}" y1="3" x2="{x(upper)}" y2="{height - 3}"/></g>')
    parts.append(f'<circle cx="{x(value)}" cy="{height / 2}" r="3" fill="#1e3a5f"/></svg>')
    return Markup("".join(parts))


@bp.get("/")
def index():
    return render_template("explorer/index.html", boards=BOARDS.values(), item_lists=ITEM_LISTS)


@bp.get("/<board_key>")
def leaderboard(board_key: str):
    board = BOARDS.get(board_key) or abort(404)
    rows = current_site().snapshot.rows(f"explorer/{board.sql}")
    defaults = dict(board.defaults)
    chosen, filters = {}, []
    for name in board.filters:
        # Each filter's choices are those left by the filters before it (a judge's categories, a source's judges).
        choices = sorted({str(r[name]) for r in rows if r[name] is not None}, key=lambda v: (v != defaults.get(name), v))
        chosen[name] = _choose(name, choices, defaults.get(name))
        # Choosing a value here drops the choices after it from the link: they may not exist under the new one.
        later = board.filters[board.filters.index(name) + 1:]
        filters.append((name, choices, chosen[name], later))
        rows = [r for r in rows if str(r[name]) == chosen[name]]
    simulated = _choose("simulated", list(SIMULATED_CHOICES), "all")
    if simulated != "all":
        rows = [r for r in rows if bool(r["simulated"]) == (simulated == "simulated")]
    # A column the snapshot lacks (one published before the view gained or renamed it) is left out, not blank.
    columns = [c for c in board.columns if not rows or c[0] in rows[0]]
    span = _span(rows, board)
    for row in rows:
        row["bar"] = bar_svg(row[board.value], row.get(board.lower), row.get(board.upper), span, board.origin)
    return render_template("explorer/leaderboard.html", board=board, rows=rows, filters=filters, simulated=simulated,
                           simulated_choices=SIMULATED_CHOICES, chosen=chosen, boards=BOARDS.values(),
                           compares=MODEL_COMPARES, judge_compares=JUDGE_COMPARES, columns=columns)


@bp.get("/<benchmark>/items")
def items(benchmark: str):
    sql = ITEM_LISTS.get(benchmark) or abort(404)
    rows = current_site().snapshot.rows(f"explorer/{sql}")
    return render_template("explorer/items.html", benchmark=benchmark, rows=rows)


@bp.get("/<benchmark>/items/<path:item_id>")
def item(benchmark: str, item_id: str):
    if benchmark == "creation":
        return _creation_item(item_id)
    if benchmark == "urs":
        return _urs_item(item_id)
    if benchmark == "mmmt_if":
        return _mmmt_if_chat(item_id)
    if benchmark == "gap":
        return _gap_item(item_id)
    abort(404)


def _answers_by_model(answers: list[dict]) -> dict[str, list[dict]]:
    by_model = defaultdict(list)
    for answer in answers:
        by_model[answer["model"]].append(answer)
    return dict(by_model)


def _creation_item(item_id: str):
    [found], references, answers, judgments, vfs, human = _item_rows(item_id, [
        ("creation_item.sql", [item_id]), ("creation_references.sql", [item_id]), ("answers.sql", ["creation", item_id]),
        ("creation_judgments.sql", [item_id]), ("creation_vfs.sql", [item_id]), ("creation_human.sql", [item_id])])
    # Per model: each judge's two orders side by side.
    verdicts = defaultdict(lambda: defaultdict(dict))
    for j in judgments:
        verdicts[j["model"]][(j["judge"], j["source"])][j["judge_order"]] = j
    scores = defaultdict(list)
    for v in vfs:
        scores[v["model"]].append(v)
    models = sorted(set(_answers_by_model(answers)) | set(verdicts))
    return render_template("explorer/creation_item.html", item=found, references=references,
                           answers=_answers_by_model(answers), verdicts=verdicts, vfs=scores, human=human,
                           models=models, orders=ORDERS)


def _urs_item(item_id: str):
    [found], answers, judgments, human = _item_rows(item_id, [
        ("urs_item.sql", [item_id]), ("answers.sql", ["urs", item_id]), ("urs_judgments.sql", [item_id]),
        ("urs_human.sql", [item_id])])
    by_model = defaultdict(list)
    for j in judgments:
        j["criteria"] = json.loads(j["criterion_scores"]) if j["criterion_scores"] else {}
        by_model[j["model"]].append(j)
    models = sorted(set(_answers_by_model(answers)) | set(by_model))
    return render_template("explorer/urs_item.html", item=found, answers=_answers_by_model(answers),
                           judgments=by_model, human=human, models=models)


def _mmmt_if_chat(chat_id: str):
    """A chat turn by turn: what the user said (with the instruction inserted at that turn), then each model's
    answer with the instructions in force it followed and did not; one variant and one sample at a time."""
    [found], turns, choices = _item_rows(chat_id, [("mmmt_if_chat.sql", [chat_id]), ("mmmt_if_turns.sql", [chat_id]),
                                                    ("mmmt_if_chat_choices.sql", [chat_id])])
    variants = list(dict.fromkeys(c["variant"] for c in choices))
    variant = _choose("variant", variants, "standard")
    samples = [str(c["sample_index"]) for c in choices if c["variant"] == variant]
    sample = _choose("sample", samples, "0")
    responses = current_site().snapshot.rows("explorer/mmmt_if_chat_responses.sql", [chat_id, variant, int(sample)]) \
        if sample is not None else []
    by_turn = defaultdict(list)
    for r in responses:
        by_turn[r["turn"]].append(r)
    return render_template("explorer/mmmt_if_item.html", item=found, turns=turns, by_turn=by_turn,
                           filters=[("variant", variants, variant), ("sample", samples, sample)])


def _gap_item(item_id: str):
    """A GAP-VQA item: the picture, the question and its answer, each model's answer and each judge's score. The
    game's side (the picture's id and set, who asked and how reliable they were, every mark on the picture) only on
    the analyst server: the game's server is open to the players."""
    queries = [("gap_item.sql", [item_id]), ("gap_judgments.sql", [item_id])]
    if explorer_only():
        queries.append(("gap_item_game.sql", [item_id]))
    [found], judgments, *game = _item_rows(item_id, queries)
    by_model = defaultdict(list)
    for j in judgments:
        by_model[j["model"]].append(j)
    origin = marks = None
    if game:
        [origin_rows] = game
        origin = {"image_id": origin_rows[0]["image_id"], "image_set": origin_rows[0]["image_set"],
                  "kept": [r for r in origin_rows if r["player_id"] is not None]}
        marks = current_site().snapshot.rows("explorer/gap_picture_marks.sql", [origin["image_id"]])
    return render_template("explorer/gap_item.html", item=found, judgments=dict(by_model), origin=origin, marks=marks)


@bp.get("/gap/pictures")
def gap_pictures():
    """Analyst server only: the game's pictures, tainted and untainted, with their marks and planted answers."""
    if not explorer_only():
        abort(404)
    return render_template("explorer/gap_pictures.html", rows=current_site().snapshot.rows("explorer/gap_pictures.sql"))


@bp.get("/gap/pictures/<image_id>")
def gap_picture(image_id: str):
    """Analyst server only: one game picture with every mark on it and, on a tainted one, the planted answers."""
    if not explorer_only():
        abort(404)
    [found], marks, planted = _item_rows(image_id, [("gap_picture.sql", [image_id]), ("gap_picture_marks.sql", [image_id]),
                                                    ("gap_picture_planted.sql", [image_id])])
    return render_template("explorer/gap_picture.html", picture=found, marks=marks, planted=planted,
                           truth=json.loads(found["truth"]) if found["truth"] else [])


def _item_rows(item_id: str, queries: list) -> list[list[dict]]:
    found = current_site().snapshot.queries([(f"explorer/{sql}", params) for sql, params in queries])
    if not found[0]:
        abort(404, f"no item {item_id!r} in the snapshot")
    return found


@dataclasses.dataclass(frozen=True)
class Comparison:
    """One compare page's query (parameters: the shared choice, side a, side b, rows, then `filters` in order) and
    what its per-item figure is."""
    sql: str
    filters: tuple[str, ...]            # item filters ('all' or one value each), in the query's parameter order
    value: str
    shared: str = "judge"               # two models share a judge (MMMT-IF: a variant); two judges share a model


MODEL_COMPARES = {
    "creation": Comparison("creation_compare.sql", ("category",),
                           "Per item, the mean of each model's verdicts against the baseline in both orders (MB +2, B +1, "
                           "T 0, W −1, MW −2; parse failures left out)."),
    "urs": Comparison("urs_compare.sql", ("intent", "language"), "Per item, each model's mean final score (1–10)."),
    "mmmt_if": Comparison("mmmt_if_compare.sql", ("topic",),
                          "Per chat and turn, each instruction in force with the samples in which the model followed it "
                          "(the checkers' verdicts), and the mean share (the turn's PIF); most different first by the "
                          "mean difference of the shares.", shared="variant"),
    "gap": Comparison("gap_compare.sql", ("category",), "Per item, the judge's 0–1 score of each model's answer."),
}
JUDGE_COMPARES = {
    "creation": Comparison("creation_judge_compare.sql", ("category",),
                           "Per item and candidate, the mean of each judge's verdicts against the baseline in both orders "
                           "(MB +2 .. MW −2; parse failures left out).", shared="model"),
    "urs": Comparison("urs_judge_compare.sql", ("intent", "language"),
                      "Per item and candidate, each judge's mean final score (1–10).", shared="model"),
    "gap": Comparison("gap_judge_compare.sql", ("category",),
                      "Per item and candidate, each judge's 0–1 score of the answer.", shared="model"),
}
COMPARE_ROWS = 300   # rows a compare page shows at most (the most different); it says how many differ in all


@bp.get("/compare")
def compare():
    return _compare("models", MODEL_COMPARES)


@bp.get("/compare/judges")
def compare_judges():
    return _compare("judges", JUDGE_COMPARES)


def _compare(kind: str, comparisons: dict[str, Comparison]):
    """Two models (or two judges) side by side on the items where they differ, most different first."""
    benchmark = _choose("benchmark", list(comparisons), "creation")
    spec = comparisons[benchmark]
    pairs, values = current_site().snapshot.queries([("explorer/judges_models.sql", None),
                                                    ("explorer/compare_choices.sql", None)])
    pairs = [p for p in pairs if p["benchmark"] == benchmark]
    values = [v for v in values if v["benchmark"] == benchmark]
    if kind == "judges":
        shared_choices = ["all", *sorted({p["model"] for p in pairs})]
        shared = _choose(spec.shared, shared_choices, "all")
        sides = sorted({p["judge"] for p in pairs if shared == "all" or p["model"] == shared})
    elif spec.shared == "judge":
        shared_choices = sorted({p["judge"] for p in pairs})
        shared = _choose(spec.shared, shared_choices, None)
        sides = sorted({p["model"] for p in pairs if p["judge"] == shared})
    else:  # MMMT-IF: checked by code, no judge; the variant is what both sides share
        shared_choices = [v["value"] for v in values if v["filter"] == spec.shared]
        shared = _choose(spec.shared, shared_choices, "standard")
        sides = sorted({p["model"] for p in pairs})
    a = _choose("a", sides, None)
    b = _choose("b", sides, next((s for s in sides if s != a), None))
    filters = []
    for name in spec.filters:
        choices = ["all", *(v["value"] for v in values if v["filter"] == name)]
        filters.append((name, choices, _choose(name, choices, "all")))
    rows = []
    if a and b and shared:
        params = [None if shared == "all" else shared, a, b, COMPARE_ROWS,
                  *(None if chosen == "all" else chosen for _, _, chosen in filters)]
        rows = current_site().snapshot.rows(f"explorer/{spec.sql}", params)
    return render_template("explorer/compare.html", kind=kind, spec=spec, benchmark=benchmark,
                           benchmarks=list(comparisons), shared_choices=shared_choices, shared=shared, sides=sides,
                           a=a, b=b, filters=filters, rows=rows, total=rows[0]["total"] if rows else 0)


def number(value) -> str:
    """A figure as people read it: whole ratings, two decimals for scores, three for shares."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, int) or float(value).is_integer():
        return f"{value:.0f}"
    size = abs(value)
    return f"{value:.0f}" if size >= 100 else f"{value:.2f}" if size >= 1 else f"{value:.3f}"


def page_url(endpoint: str, **values) -> str:
    """url_for with the current query string's filters kept, changed by `values` (for the filter links)."""
    args = {**request.args.to_dict(), **request.view_args, **values}
    return url_for(endpoint, **{k: v for k, v in args.items() if v is not None})


bp.add_app_template_global(page_url, "explorer_page_url")
bp.add_app_template_filter(number, "number")
