"""MMMT-IF library (benchwright/mmmt_if/README.md): chat set, prompts, autorater parsing, metrics, loaders, simulator, plots."""

import io
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from scipy import stats

from benchwright.report import data_url_markdown
from benchwright.mmmt_if import alignment, autorater, chat_set, comparisons, pif, preferences, prompts
from benchwright.mmmt_if import plots as mmmt_if_plots
from benchwright.mmmt_if import steps as mmmt_if_steps
from benchwright.colors import PALETTE
from benchwright.mmmt_if.loader import (load_chats, load_chats_jsonl, load_human_csv, load_mmdu_json,
                                          load_release_csv, prepare_chats)
from benchwright.mmmt_if.instruction_following import CATEGORIES, INSTRUCTIONS, OPTIONS_BY_CATEGORY, followed
from benchwright.simulate import complete
from benchwright.mmmt_if.simulated import compose, follow_probability, instructions_in

ROOT = Path(__file__).resolve().parents[3]
RELEASE_CSV = (ROOT / ".." / "shared" / "data" / "external" / "mmmt-if"
               / "MMMT-IF_public_release_data.SAMPLE_first_40_rows.csv")
needs_release = pytest.mark.skipif(not RELEASE_CSV.exists(), reason=f"MMMT-IF release sample not found at {RELEASE_CSV}")


def png_bytes(colour="red", size=(40, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, PALETTE[colour]).save(buffer, "PNG")
    return buffer.getvalue()


# --- insertion process ---------------------------------------------------------------------------


def test_insertion_is_seeded_reproducible_and_one_instruction_per_category():
    first = chat_set.insert_instructions("harbour", 20, seed=3)
    assert first == chat_set.insert_instructions("harbour", 20, seed=3)
    assert first != chat_set.insert_instructions("harbour", 20, seed=4)
    assert first[0] is not None  # probability 1 − 0/6 = 1 before the first question
    for seed in range(50):
        given = [i for i in chat_set.insert_instructions("harbour", 20, seed) if i]
        assert 1 <= len(given) <= 6 and len({INSTRUCTIONS[i].category for i in given}) == len(given)


def test_insertion_follows_the_probability_rule_over_many_chats():
    chats = [chat_set.insert_instructions(f"chat-{n}", 20, seed=0) for n in range(2000)]
    # With k instructions given, the next turn adds one with probability 1 − k/6.
    added, seen = Counter(), Counter()
    for chat in chats:
        given = 0
        for instruction in chat:
            if given < 6:
                seen[given] += 1
                added[given] += instruction is not None
            given += instruction is not None
    for k in range(6):
        assert added[k] / seen[k] == pytest.approx(1 - k / 6, abs=0.03), k
    # Under this rule the sixth instruction comes late: P(all 6 by turn 10) = 0.272, by turn 20 = 0.848
    # (exact values of the Markov chain; see the module docstring).
    assert np.mean([sum(i is not None for i in chat[:10]) == 6 for chat in chats]) == pytest.approx(0.272, abs=0.03)
    assert np.mean([sum(i is not None for i in chat) == 6 for chat in chats]) == pytest.approx(0.848, abs=0.03)
    # Options are used about uniformly within a category.
    options = Counter(i for chat in chats for i in chat if i)
    for category, ids in OPTIONS_BY_CATEGORY.items():
        shares = np.array([options[i] for i in ids]) / sum(options[i] for i in ids)
        assert np.all(np.abs(shares - 1 / len(ids)) < 0.05), category


def test_turn_rows_carry_the_instructions_in_force_cumulatively():
    chat = chat_set.Chat("c1", [f"Question {n}?" for n in range(1, 13)], ["h1", "h2"])
    rows = chat_set.turn_rows(chat, seed=1)
    inserted = chat_set.insert_instructions("c1", 12, seed=1)
    for number, row in enumerate(rows, start=1):
        assert row["turn_id"] == f"c1#t{number:02d}"
        assert row["instructions_in_force"] == [i for i in inserted[:number] if i]
        if row["inserted_instruction"]:
            assert row["user_text"] == f"Instruction: {INSTRUCTIONS[row['inserted_instruction']].text}\nQuestion {number}?"
        else:
            assert row["user_text"] == f"Question {number}?"
    given = chat_set.instruction_rows(rows)
    assert len(given) == sum(len(r["instructions_in_force"]) for r in rows)
    assert all(g["given_at_turn"] <= g["turn"] for g in given)


# --- loading and filtering -----------------------------------------------------------------------


def write_jsonl(folder: Path, chats: list[dict]) -> Path:
    path = folder / "chats.jsonl"
    path.write_text("\n".join(json.dumps(c) if isinstance(c, dict) else c for c in chats) + "\n")
    return path


def test_filtering_drops_bad_chats_with_located_reasons_and_truncates_long_ones(tmp_path):
    (tmp_path / "images").mkdir()
    for colour in ("red", "blue", "green", "yellow", "purple", "orange"):
        (tmp_path / "images" / f"{colour}.png").write_bytes(png_bytes(colour))
    (tmp_path / "images" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 30)
    two = ["images/red.png", "images/blue.png"]
    path = write_jsonl(tmp_path, [
        {"chat_id": "good", "images": two, "turns": ["A?", "B?"]},
        {"chat_id": "long", "images": two, "turns": [f"Q{n}?" for n in range(25)]},
        {"chat_id": "six-images", "images": [f"images/{c}.png" for c in ("red", "blue", "green", "yellow", "purple",
                                                                          "orange")], "turns": ["A?"]},
        {"chat_id": "skipped", "images": two, "turns": ["A?", None, "C?"]},
        {"chat_id": "corrupt", "images": ["images/red.png", "images/broken.png"], "turns": ["A?"]},
        {"chat_id": "escape", "images": ["../outside.png"], "turns": ["A?"]},
        "{not json",
        {"chat_id": "good", "images": two, "turns": ["again?"]},
    ])
    candidates, problems = load_chats_jsonl(path)
    assert [p.location for p in problems] == ["chats.jsonl:7"]
    prepared = prepare_chats(candidates, "chats.jsonl")
    assert [c.chat_id for c in prepared.chats] == ["good", "long"]
    assert len(prepared.chats[1].questions) == 20 and prepared.truncated == ["long"]
    reasons = {p.location.split("chat ")[-1].rstrip(")"): p.reason for p in prepared.problems}
    assert "6 images" in reasons["six-images"]
    assert "skipped turn(s) [2]" in reasons["skipped"]
    assert "corrupt image 'images/broken.png'" in reasons["corrupt"]
    assert "missing or outside" in reasons["escape"]
    assert "duplicate chat_id" in reasons["good"]
    assert len(prepared.images) == 2  # red and blue, normalized and shared by both chats


def test_mmdu_layout_loads_strips_image_tags_and_finds_skipped_turns(tmp_path):
    (tmp_path / "a.png").write_bytes(png_bytes("red"))
    (tmp_path / "b.png").write_bytes(png_bytes("blue"))
    data = {
        "101": {"id": "101", "image": ["a.png", "b.png"], "conversations": [
            {"from": "user", "value": "<ImageHere><ImageHere>What do both show?"},
            {"from": "assistant", "value": "Shapes."},
            {"from": "user", "value": "Which is larger?"},
            {"from": "assistant", "value": "The first."}]},
        "102": {"id": "102", "image": ["a.png"], "conversations": [
            {"from": "human", "value": "First?"}, {"from": "human", "value": "Second, with no answer between?"},
            {"from": "gpt", "value": "Yes."}]},
        "103": {"id": "103", "image": ["a.png"], "conversations": [{"from": "narrator", "value": "?"}]},
    }
    path = tmp_path / "mmdu.json"
    path.write_text(json.dumps(data))
    candidates, problems = load_chats(path)
    assert [p.location for p in problems] == ["mmdu.json: chat 103"] and "speaker" in problems[0].reason
    by_id = {c.chat_id: c for c in candidates}
    assert by_id["101"].questions == ["What do both show?", "Which is larger?"]
    assert by_id["102"].questions == ["First?", None, "Second, with no answer between?"]
    prepared = prepare_chats(candidates)
    assert [c.chat_id for c in prepared.chats] == ["101"] and len(prepared.chats[0].image_hashes) == 2
    # The list form of the layout is read the same way.
    path.write_text(json.dumps(list(data.values())[:1]))
    assert [c.questions for c in load_mmdu_json(path)[0]] == [["What do both show?", "Which is larger?"]]


def test_the_shipped_sample_has_six_or_more_clean_chats_with_two_to_five_images():
    candidates, problems = load_chats(ROOT / "sample_data" / "mmmt_if" / "chats.jsonl")
    prepared = prepare_chats(candidates)
    assert not problems and not prepared.problems and len(prepared.chats) >= 6
    assert all(2 <= len(c.image_hashes) <= 5 and 1 <= len(c.questions) <= 20 for c in prepared.chats)


def test_the_sample_generator_reproduces_the_committed_files(tmp_path):
    import subprocess
    import sys

    sample = ROOT / "sample_data" / "mmmt_if"
    subprocess.run([sys.executable, str(sample / "make_sample.py"), "--out", str(tmp_path)], check=True)
    assert (tmp_path / "chats.jsonl").read_bytes() == (sample / "chats.jsonl").read_bytes()
    for image in (sample / "images").glob("*.png"):
        assert (tmp_path / "images" / image.name).read_bytes() == image.read_bytes(), image.name


# --- prompts -------------------------------------------------------------------------------------


def test_turn_messages_put_images_first_and_the_models_own_answers_in_history():
    texts = ["Q1?", "Instruction: From now on, write at least 5 sentences in every answer.\nQ2?", "Q3?"]
    messages = prompts.turn_messages(texts, ["A1", "A2"], ["data:image/png;base64,AAA", "data:image/png;base64,BBB"],
                                     vision=True)
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    first = messages[0]["content"]
    assert first[0]["text"].startswith("The 2 images below") and [p["type"] for p in first] == [
        "text", "image_url", "image_url", "text"]
    assert all(p["type"] == "text" for m in messages[1:] if m["role"] == "user" for p in m["content"])
    assert messages[1]["content"] == "A1" and messages[3]["content"] == "A2"
    appended = prompts.turn_messages(texts, ["A1", "A2"], [], vision=True, appended_instructions=["length_long"])
    assert appended[:-1] == prompts.turn_messages(texts, ["A1", "A2"], [], vision=True)[:-1]
    assert prompts.REMINDER_LEAD in appended[-1]["content"][-1]["text"]
    assert INSTRUCTIONS["length_long"].text in appended[-1]["content"][-1]["text"]


def test_a_failed_turn_leaves_no_answer_and_its_question_joins_the_next_user_turn():
    messages = prompts.turn_messages(["Q1?", "Q2?", "Q3?"], [None, "A2"], ["data:image/png;base64,AAA"], vision=False)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [p["text"] for p in messages[0]["content"]][1:] == ["Q1?", "Q2?"]
    assert "cannot be shown" in messages[0]["content"][0]["text"]
    assert all(p["type"] == "text" for p in messages[0]["content"])  # text-only model: no image parts
    with pytest.raises(ValueError):
        prompts.turn_messages(["Q1?", "Q2?"], [], [], vision=True)


def test_history_keeps_the_lowest_successful_sample():
    assert prompts.history_answer([(1, "second", None), (0, None, "timeout"), (2, "third", None)]) == "second"
    assert prompts.history_answer([(0, None, "timeout")]) is None


# --- autorater parsing -----------------------------------------------------------------------------

SCORES = dict(zip(prompts.AUTORATER_KEYS, (7, 6, 8, 9, 7, 5, 3, 6)))


@pytest.mark.parametrize("text", [
    "{" + ", ".join(f"'{k}': {v}" for k, v in SCORES.items()) + "}",
    "{" + ", ".join(f'"{k}": {v}' for k, v in SCORES.items()) + "}",
    "Here you go:\n{\n" + "".join(f"  '{k}': {v},\n" for k, v in SCORES.items()) + "}\nThanks.",
    "```json\n{" + ", ".join(f'"{k.lower().replace(" ", "_")}": "{v}"' for k, v in SCORES.items()) + "}\n```",
    "{" + ", ".join(f"{k}: {v}/10" for k, v in SCORES.items()) + "}",
    "Draft: {'Creativity': 1}\nFinal: {" + ", ".join(f"'{k}': {v}" for k, v in SCORES.items()) + "}",
])
def test_autorater_dicts_parse_in_their_usual_forms(text):
    parsed = autorater.parse_autorater(text)
    assert parsed.ok and parsed.scores == {k: float(v) for k, v in SCORES.items()}


def test_autorater_failures_are_reported_with_their_reason_never_as_low_scores():
    missing = dict(SCORES)
    del missing["Richness"]
    parsed = autorater.parse_autorater("{" + ", ".join(f"'{k}': {v}" for k, v in missing.items()) + "}")
    assert not parsed.ok and parsed.scores is None and parsed.missing == ("Richness",)
    assert "missing Richness" in parsed.problem
    out_of_range = "{" + ", ".join(f"'{k}': {11 if k == 'Overall Quality' else v}" for k, v in SCORES.items()) + "}"
    parsed = autorater.parse_autorater(out_of_range)
    assert not parsed.ok and "Overall Quality = 11" in parsed.problem
    for text in ("I liked it, overall a seven.", "", None):
        assert not autorater.parse_autorater(text).ok


# --- preferences and the published release table ---------------------------------------------------


def test_preference_score_weighs_pif_twenty_times_a_criterion():
    assert preferences.preference_score(SCORES, 1.0) == pytest.approx((51 + 20) / 28)
    columns = dict(zip(prompts.SCORE_COLUMNS, SCORES.values()))
    assert preferences.preference_score(columns, 0.5) == pytest.approx((51 + 10) / 28)
    assert [preferences.pairwise_outcome(a, b) for a, b in ((3, 2), (2, 2), (2, 3))] == ["win", "tie", "loss"]
    with pytest.raises(ValueError):
        preferences.preference_score({"Creativity": 5}, 1.0)


@needs_release
def test_release_csv_layout_reads_with_every_instruction_mapped_to_our_ids():
    data = load_release_csv(RELEASE_CSV)
    assert data.problems == [] and data.models == ["Gemini", "GPT-4o", "Sonnet"]
    assert data.weights == [1.0] * 8 + [prompts.PIF_WEIGHT]
    turns = data.turns
    assert len(turns) == 40 and turns["chat_id"].nunique() == 3
    assert (turns["instructions_in_force"].map(len) == turns["instruction_count"]).all()
    for _, chat in turns.groupby("chat_id"):
        previous: list[str] = []
        for row in chat.sort_values("turn").itertuples():
            # Instructions are global and cumulative, one per category, at most 6.
            assert row.instructions_in_force[:len(previous)] == previous
            assert len({INSTRUCTIONS[i].category for i in row.instructions_in_force}) == len(row.instructions_in_force) <= 6
            if isinstance(row.inserted_instruction, str):
                assert row.prompt.startswith("Instruction:")
            previous = row.instructions_in_force
    # PIF is "followed / given": every published PIF is a multiple of 1 / instruction count.
    merged = data.scores.merge(turns[["chat_id", "turn", "instruction_count"]], on=["chat_id", "turn"])
    product = merged["pif"] * merged["instruction_count"]
    assert np.allclose(product, product.round()) and merged["pif"].between(0, 1).all()


@needs_release
def test_our_preference_rule_reproduces_every_published_pairwise_preference():
    data = load_release_csv(RELEASE_CSV)
    score = {(r["chat_id"], r["turn"], r["model"]): preferences.preference_score(r, r["pif"])
             for r in data.scores.to_dict("records")}
    value = {"win": 1.0, "tie": 0.5, "loss": 0.0}
    ours = [value[preferences.pairwise_outcome(score[(p.chat_id, p.turn, p.model_a)], score[(p.chat_id, p.turn, p.model_b)])]
            for p in data.preferences.itertuples()]
    assert len(ours) == 120 and ours == data.preferences["preference"].tolist()


@needs_release
def test_our_metrics_run_on_the_release_layout():
    data = load_release_csv(RELEASE_CSV)
    responses = data.scores.merge(data.turns[["chat_id", "turn", "instruction_count"]], on=["chat_id", "turn"])
    responses = responses.rename(columns={"instruction_count": "n_instructions"}).assign(variant="standard", sample_index=0)
    contexts = pif.contexts(responses)
    summary = pif.summary(contexts).set_index("model")
    for model in data.models:
        assert summary.loc[model, "pif"] == pytest.approx(data.scores.loc[data.scores["model"] == model, "pif"].mean())
    assert pif.pif_by_turn(contexts)["n"].max() == 3
    wilcoxon = comparisons.wilcoxon_pairs(contexts)
    assert len(wilcoxon) == 3 and wilcoxon["p_a_greater"].between(0, 1).all()


# --- metrics -------------------------------------------------------------------------------------


def responses_frame(pifs: dict[tuple[str, str, int], list[float | None]], variant="standard", n_instructions=2):
    rows = []
    for (model, chat_id, turn), values in pifs.items():
        for index, value in enumerate(values):
            rows.append({"model": model, "variant": variant, "chat_id": chat_id, "turn": turn,
                         "turn_id": chat_set.turn_id(chat_id, turn), "sample_index": index,
                         "n_instructions": n_instructions, "pif": value})
    return pd.DataFrame(rows)


def test_bounds_are_the_conservative_bernoulli_approximation():
    lo, hi = pif.bounds(0.8, 25)
    assert (lo, hi) == pytest.approx((0.8 - 1.96 * 0.08, 0.8 + 1.96 * 0.08))
    assert pif.bounds(1.0, 10) == (1.0, 1.0) and pif.bounds(0.05, 2)[0] == 0.0
    assert all(np.isnan(pif.bounds(0.5, 0)))


def test_contexts_pif_n_k_and_iqr_by_hand():
    responses = responses_frame({
        ("m", "c", 1): [1.0, 1.0, 1.0, 0.5],
        ("m", "c", 2): [1.0, 0.5, 0.5, 0.0],
        ("m", "c", 3): [1.0, None, 1.0, 1.0],  # one failed call: left out, never a zero
    })
    contexts = pif.contexts(responses).set_index("turn")
    assert contexts.loc[1, "pif"] == 0.875 and contexts.loc[3, "pif"] == 1.0
    assert contexts.loc[3, "samples"] == 3 and contexts.loc[3, "failed"] == 1
    assert contexts.loc[1, "iqr"] == pytest.approx(np.percentile([1, 1, 1, 0.5], 75) - np.percentile([1, 1, 1, 0.5], 25))
    n_k = pif.pif_n_k(contexts.reset_index())
    # Only turns 1 and 2 have all 4 samples: turn 1 has 3 perfect samples, turn 2 has 1.
    assert n_k["pif_n_k"].tolist() == [1.0, 0.5, 0.5, 0.0] and set(n_k["contexts"]) == {2}
    assert pif.n_k_violations(n_k) == []
    assert pif.n_k_violations(n_k.assign(pif_n_k=[0.2, 0.5, 0.5, 0.0])) == ["m/standard: [0.2, 0.5, 0.5, 0.0]"]
    summary = pif.summary(contexts.reset_index()).iloc[0]
    assert summary["pif"] == pytest.approx((0.875 + 0.5 + 1.0) / 3) and summary["failed"] == 1
    assert summary["pif_n_n"] == 0.0 and summary["n_samples"] == 4 and summary["complete_contexts"] == 2


def test_pif_by_turn_count_and_instruction_group_the_right_contexts():
    responses = pd.concat([
        responses_frame({("m", "a", 1): [1.0], ("m", "b", 1): [0.0], ("m", "a", 2): [0.5]}, n_instructions=1),
        responses_frame({("m", "c", 1): [1.0]}, n_instructions=3),
    ])
    contexts = pif.contexts(responses)
    by_turn = pif.pif_by_turn(contexts).set_index("turn")
    assert by_turn.loc[1, "n"] == 3 and by_turn.loc[1, "pif"] == pytest.approx(2 / 3)
    lo, hi = pif.bounds(2 / 3, 3)
    assert (by_turn.loc[1, "pif_lower"], by_turn.loc[1, "pif_upper"]) == pytest.approx((lo, hi))
    by_count = pif.pif_by_instruction_count(contexts).set_index("n_instructions")
    assert by_count.loc[1, "n"] == 3 and by_count.loc[3, "pif"] == 1.0
    results = pd.DataFrame([
        {"model": "m", "variant": "standard", "chat_id": "a", "turn": 1, "sample_index": s, "instruction_id": "word_like",
         "category": "favourite_word", "followed": f} for s, f in enumerate([True, False])
    ] + [{"model": "m", "variant": "standard", "chat_id": "b", "turn": 1, "sample_index": 0, "instruction_id": "word_like",
          "category": "favourite_word", "followed": True}])
    per_instruction = pif.pif_by_instruction(results).iloc[0]
    assert per_instruction["n"] == 2 and per_instruction["pif"] == pytest.approx(0.75)


def test_ecdf_dominance_and_wilcoxon_between_two_models():
    strong = {("strong", f"c{i}", t): [1.0, 1.0, 0.5] for i in range(8) for t in (1, 2)}
    weak = {("weak", f"c{i}", t): [0.5, 0.0, 0.5] for i in range(8) for t in (1, 2)}
    mixed = {("mixed", f"c{i}", t): [1.0, 0.0, 0.0] for i in range(8) for t in (1, 2)}
    responses = responses_frame({**strong, **weak, **mixed})
    ecdf = comparisons.ecdf(responses)
    weak_turn_1 = ecdf[(ecdf["model"] == "weak") & (ecdf["turn"] == 1)]
    assert weak_turn_1["pif_value"].tolist() == [0.0, 0.5] and weak_turn_1["cdf"].tolist() == pytest.approx([1 / 3, 1.0])
    dominance = comparisons.dominance(responses).set_index(["model_a", "model_b"])
    assert dominance.loc[("strong", "weak"), "verdict"] == "strong dominates"
    assert dominance.loc[("strong", "weak"), "turns_a_dominates"] == 2
    assert dominance.loc[("mixed", "weak"), "verdict"] == "no dominance"  # the CDFs cross
    wilcoxon = comparisons.wilcoxon_pairs(pif.contexts(responses)).set_index(["model_a", "model_b"])
    row = wilcoxon.loc[("strong", "weak")]
    x, y = [5 / 6] * 16, [1 / 3] * 16
    assert row["p_a_greater"] == pytest.approx(stats.wilcoxon(x, y, alternative="greater").pvalue)
    assert row["p_a_greater"] < 0.01 < 0.99 < row["p_b_greater"]
    assert comparisons.wilcoxon_one_sided([0.5, 0.5], [0.5, 0.5])[2] == 0  # no difference: no test


def test_appended_uplift_compares_the_two_variants_per_model():
    standard = responses_frame({("m", f"c{i}", 1): [0.5, 0.5] for i in range(6)})
    appended = responses_frame({("m", f"c{i}", 1): [1.0, 1.0] for i in range(6)}, variant=prompts.APPENDED)
    contexts = pif.contexts(pd.concat([standard, appended]))
    uplift = comparisons.appended_uplift(contexts, pif.summary(contexts)).iloc[0]
    assert uplift["uplift"] == 0.5 and uplift["uplift_n_n"] == 1.0 and uplift["pairs"] == 6
    assert uplift["p_appended_greater"] < 0.05


def test_pairwise_outcomes_win_tie_loss_and_battles():
    prefs = pd.DataFrame([
        {"judge": "j", "variant": "standard", "chat_id": "c", "turn": 1, "model": "a", "preference": 3.0},
        {"judge": "j", "variant": "standard", "chat_id": "c", "turn": 1, "model": "b", "preference": 2.0},
        {"judge": "j", "variant": "standard", "chat_id": "c", "turn": 2, "model": "a", "preference": 2.0},
        {"judge": "j", "variant": "standard", "chat_id": "c", "turn": 2, "model": "b", "preference": 2.0},
        {"judge": "j", "variant": "standard", "chat_id": "c", "turn": 3, "model": "a", "preference": np.nan},
        {"judge": "j", "variant": "standard", "chat_id": "c", "turn": 3, "model": "b", "preference": 2.0},
    ])
    outcomes = preferences.pairwise_outcomes(prefs)
    assert outcomes["outcome"].tolist()[:2] == ["win", "tie"] and pd.isna(outcomes["outcome"].iloc[2])
    table = preferences.win_tie_loss(outcomes).iloc[0]
    assert (table["wins"], table["ties"], table["losses"], table["unjudged"], table["win_rate"]) == (1, 1, 0, 1, 0.75)
    assert preferences.battles(outcomes)["verdict"].tolist() == ["A>B", "A=B"]


def test_preference_scores_leave_failed_and_unparsed_judgments_out():
    judgments = pd.DataFrame([
        {"judge": "j", "model": "m", "variant": "standard", "chat_id": "c", "turn": t, "sample_index": 0,
         "parse_ok": ok, "error": err, **dict(zip(prompts.SCORE_COLUMNS, [8] * 8 if ok else [np.nan] * 8))}
        for t, ok, err in ((1, True, None), (2, False, None), (3, False, "timeout"))
    ])
    responses = responses_frame({("m", "c", t): [0.5] for t in (1, 2, 3)})
    scores = preferences.preference_scores(judgments, responses)
    assert scores["preference"].iloc[0] == pytest.approx((64 + 10) / 28)
    assert scores["preference"].iloc[1:].isna().all()


def test_self_preference_compares_a_judge_with_the_other_judges():
    rows = []
    for judge, own_bonus in (("judge-x", 2), ("judge-y", 0)):
        for model in ("model-x", "model-y"):
            score = 5 + (own_bonus if model == "model-x" else 0)
            rows.append({"judge": judge, "model": model, **dict.fromkeys(prompts.SCORE_COLUMNS, score)})
    families = {"judge-x": "acme", "model-x": "acme", "judge-y": "other", "model-y": "third"}
    table = preferences.self_preference(pd.DataFrame(rows), families).set_index(["judge", "model"])
    assert table.loc[("judge-x", "model-x"), "same_family"]
    assert table.loc[("judge-x", "model-x"), "difference"] == 2.0
    assert table.loc[("judge-y", "model-x"), "difference"] == -2.0 and not table.loc[("judge-y", "model-x"), "same_family"]


# --- human ratings -------------------------------------------------------------------------------


def test_human_csv_layouts_and_located_bad_rows(tmp_path):
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("model,chat_id,turn,rating,variant\nm1,c,1,7,standard\nm1,c,2,11,\nm1,c,x,5,\n"
                       "m1,c,3,4,instructions_appended\n")
    kind, rows, problems = load_human_csv(ratings)
    assert kind == "ratings" and [r["rating"] for r in rows] == [7.0, 4.0]
    assert [r["variant"] for r in rows] == ["standard", "instructions_appended"]
    assert [p.location for p in problems] == ["ratings.csv:3", "ratings.csv:4"] and "outside 1-10" in problems[0].reason
    prefs = tmp_path / "prefs.csv"
    prefs.write_text("chat_id,turn,model_a,model_b,preferred\nc,1,m1,m2,A\nc,2,m1,m2,maybe\n")
    kind, rows, problems = load_human_csv(prefs)
    assert kind == "preferences" and [r["preferred"] for r in rows] == ["a"] and len(problems) == 1
    (tmp_path / "other.csv").write_text("x,y\n1,2\n")
    with pytest.raises(ValueError, match="neither the ratings layout"):
        load_human_csv(tmp_path / "other.csv")


def test_human_csv_cells_beyond_the_header_an_open_quote_and_a_column_twice_are_not_silent(tmp_path):
    ratings = tmp_path / "ratings.csv"
    # Line 3 has a cell beyond the header (a DictReader would drop it), line 4 a short row (it would read the
    # rating as empty), line 6 opens a quote that never closes (it would swallow line 7).
    ratings.write_text("model,chat_id,turn,rating\nm1,c,1,7\nm1,c,2,5,9\nm1,c,3\n\nm1,c,4,\"6\nm1,c,5,6\n")
    kind, rows, problems = load_human_csv(ratings)
    assert kind == "ratings" and [r["turn"] for r in rows] == [1]
    assert [(p.location, p.reason) for p in problems] == [
        ("ratings.csv:3", "has 5 fields, header has 4"), ("ratings.csv:4", "has 3 fields, header has 4 (a torn line?)"),
        ("ratings.csv:6", "a quoted cell is never closed: the rest of the file (lines 6-7) is not read")]
    twice = tmp_path / "twice.csv"
    twice.write_text("model,chat_id,turn,rating,rating\nm1,c,1,7,3\n")
    with pytest.raises(ValueError, match="twice.csv: column 'rating' appears twice"):
        load_human_csv(twice)
    bad_bytes = tmp_path / "bytes.csv"  # one record with a byte that is not UTF-8: that record only
    bad_bytes.write_bytes(b"model,chat_id,turn,rating\nm1,c,1,7\nm1,c\xff,2,5\nm1,c,3,6\n")
    kind, rows, problems = load_human_csv(bad_bytes)
    assert [r["turn"] for r in rows] == [1, 3]
    assert [(p.location, p.reason) for p in problems] == [("bytes.csv:3", "bytes that are not UTF-8")]


def test_a_release_table_pandas_would_read_wrong_raises_or_refuses_the_record_located(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty.csv, line 1: the file is empty"):
        load_release_csv(empty)
    twice = tmp_path / "twice.csv"  # pandas would call the second one `prompt.1` and read on
    twice.write_text("conversation id,turn count (x),prompt,all instructions,instruction count,prompt\n1,1,a,,0,b\n")
    with pytest.raises(ValueError, match="twice.csv, line 1: column 'prompt' appears twice"):
        load_release_csv(twice)
    short = tmp_path / "short.csv"  # pandas would fill the short row with missing values
    short.write_text("conversation id,turn count (x),prompt,all instructions,instruction count\n1,1,a,,0\n1,2,b\n"
                     "1,3,c,,x\n1,4,d,,0\n")
    data = load_release_csv(short)  # the short record and the bad count are refused, the others read
    assert [(p.location, p.reason) for p in data.problems] == [
        ("short.csv:3", "has 3 fields, header has 5 (a torn line?)"),
        ("short.csv:4", "invalid literal for int() with base 10: 'x'")]
    assert data.turns["turn"].tolist() == [1, 4]


def test_human_ratings_count_once_across_copies_and_an_unfinished_line_waits(tmp_path):
    from benchwright.mmmt_if.loader import human_once_each

    body = "model,chat_id,turn,rating,rater\nm1,c,1,7,ann\nm1,c,2,5,ann\n"
    (tmp_path / "a.csv").write_text(body)
    (tmp_path / "b-crlf.csv").write_bytes(body.replace("\n", "\r\n").encode())
    (tmp_path / "c-growing.csv").write_text("model,chat_id,turn,rating,rater\nm1,c,3,6,ann\nm1,c,4,")
    rows, problems = [], []
    for path in sorted(tmp_path.glob("*.csv")):
        _, file_rows, file_problems = load_human_csv(path)
        rows += file_rows
        problems += file_problems
    assert [p.location for p in problems] == ["c-growing.csv:3"] and "incomplete last line" in problems[0].reason
    ratings, repeated = human_once_each("ratings", rows)
    assert ratings["turn"].tolist() == [1, 2, 3]
    assert [(p.location, p.reason) for p in repeated] == [("b-crlf.csv:2", "duplicate of a.csv:2"),
                                                          ("b-crlf.csv:3", "duplicate of a.csv:3")]


def test_human_alignment_is_pearson_on_matched_responses():
    rng = np.random.default_rng(1)
    pifs = rng.uniform(0, 1, 30)
    responses = pd.DataFrame({"model": ["m1"] * 15 + ["m2"] * 15, "variant": "standard", "chat_id": "c",
                              "turn": list(range(1, 16)) * 2, "sample_index": 0, "pif": pifs})
    human = responses.drop(columns="pif").assign(rating=np.clip(1 + 9 * pifs + rng.normal(0, 1, 30), 1, 10))
    human = pd.concat([human, human.head(1).assign(chat_id="unknown")])  # unmatched: left out
    prefs = pd.DataFrame({"chat_id": "c", "turn": [1, 2], "variant": "standard", "sample_index": 0,
                          "model_a": "m1", "model_b": "m2", "preferred": ["a", "b"]})
    table = alignment.human_alignment(human, prefs, responses).set_index(["measure", "scope"])
    overall = table.loc[("pearson_pif_human_rating", "overall")]
    assert overall["n"] == 30 and overall["value"] == pytest.approx(stats.pearsonr(pifs, human["rating"][:30]).statistic)
    assert overall["value"] > 0.8 and ("pearson_pif_human_rating", "model:m2") in table.index
    expected = np.mean([(pifs[0] > pifs[15]), (pifs[16] > pifs[1])])
    assert table.loc[("human_preference_agrees_with_pif", "overall"), "value"] == pytest.approx(expected)


# --- steps ---------------------------------------------------------------------------------------


def test_score_rows_score_answers_and_leave_failed_calls_unscored():
    turns = pd.DataFrame([{"turn_id": "c#t01", "chat_id": "c", "turn": 1, "instructions_in_force": ["word_like", "start_S"]},
                          {"turn_id": "c#t02", "chat_id": "c", "turn": 2, "instructions_in_force": []}])
    generations = pd.DataFrame([
        {"model": "m", "item_id": "c#t01", "variant": "standard", "sample_index": 0, "response": "So I like it.", "error": None},
        {"model": "m", "item_id": "c#t01", "variant": "standard", "sample_index": 1, "response": "I like it.", "error": None},
        {"model": "m", "item_id": "c#t01", "variant": "standard", "sample_index": 2, "response": None, "error": "timeout"},
        {"model": "m", "item_id": "c#t02", "variant": "standard", "sample_index": 0, "response": "Anything.", "error": None},
    ])
    scores, results = mmmt_if_steps.score_rows(generations, turns)
    assert scores["pif"].tolist()[:2] == [1.0, 0.5] and np.isnan(scores["pif"].iloc[2]) and scores["pif"].iloc[3] == 1.0
    assert scores["error"].iloc[2] == "timeout" and len(results) == 4  # no rows for the failed call


# --- simulator -------------------------------------------------------------------------------------


def test_simulated_answers_follow_exactly_the_decided_instructions():
    for seed in range(400):
        rng = random.Random(seed)
        categories = rng.sample(CATEGORIES, rng.randint(0, 6))
        decisions = {rng.choice(OPTIONS_BY_CATEGORY[c]): rng.random() < 0.5 for c in categories}
        text = compose(random.Random(seed + 1), decisions, ["harbour", "boats"])
        assert followed(text, decisions) == decisions, (decisions, text)


def test_follow_probability_falls_with_more_instructions_and_rises_when_appended():
    assert follow_probability(0.8, 1, False) == pytest.approx(0.8)
    assert follow_probability(0.8, 6, False) < follow_probability(0.8, 2, False)
    assert follow_probability(0.8, 6, True) > follow_probability(0.8, 6, False)


def simulate_chat(params: dict, n_turns=8, appended=False) -> list[float]:
    """PIFs of a simulated model over one chat, turn by turn with its own history."""
    chat = chat_set.Chat("sim-chat", [f"What colour is object {n} in Image 1?" for n in range(n_turns)], ["h"])
    rows = chat_set.turn_rows(chat, seed=2)
    answers, pifs = [], []
    for index, row in enumerate(rows):
        in_force = row["instructions_in_force"]
        messages = prompts.turn_messages([r["user_text"] for r in rows[:index + 1]], answers, ["data:image/png;base64,AA"],
                                         vision=True, appended_instructions=in_force if appended else None)
        text = complete("sim/x", messages, params, 0).text
        answers.append(text)
        pifs.append(sum(followed(text, in_force).values()) / len(in_force) if in_force else 1.0)
    return pifs


def test_simulated_skill_orders_pif_and_appending_helps():
    strong = np.mean([p for s in range(6) for p in simulate_chat({"skill": 0.95, "run": s})])
    weak = np.mean([p for s in range(6) for p in simulate_chat({"skill": 0.2, "run": s})])
    weak_appended = np.mean([p for s in range(6) for p in simulate_chat({"skill": 0.2, "run": s}, appended=True)])
    assert strong > weak + 0.3 and weak_appended > weak + 0.15
    # if_skill overrides skill.
    assert np.mean(simulate_chat({"skill": 0.2, "if_skill": 1.0})) == 1.0


def test_simulated_autorater_emits_parsable_dicts_that_track_pif_and_can_be_malformed():
    texts = ["Q1?", f"Instruction: {INSTRUCTIONS['start_S'].text}\nQ2?"]
    good = "So it is. Surely so."
    bad = "It is. Not so."
    messages = {r: prompts.autorater_messages(texts, ["A1"], r, None) for r in (good, bad)}
    parsed = {r: autorater.parse_autorater(complete("sim/judge", m, {"malformed_rate": 0.0}, 0).text)
              for r, m in messages.items()}
    assert all(p.ok for p in parsed.values())
    assert parsed[good].scores["Instruction Following"] > parsed[bad].scores["Instruction Following"] + 4
    broken = [autorater.parse_autorater(complete("sim/judge", messages[good], {"malformed_rate": 1.0, "n": n}, 0).text)
              for n in range(10)]
    assert not any(p.ok for p in broken)
    assert instructions_in(texts[1]) == ["start_S"]


# --- plots ---------------------------------------------------------------------------------------


def test_charts_are_pngs_with_one_panel_per_variant():
    responses = pd.concat([responses_frame({(m, f"c{i}", t): [v, v] for i in range(3) for t in (1, 2, 3)}, variant=var)
                           for m, v in (("a", 1.0), ("b", 0.5)) for var in prompts.VARIANTS])
    contexts = pif.contexts(responses)
    line = Image.open(io.BytesIO(mmmt_if_plots.pif_by_turn_chart(pif.pif_by_turn(contexts))))
    assert line.format == "PNG" and line.width == 2 * mmmt_if_plots.PANEL_W
    grid = Image.open(io.BytesIO(mmmt_if_plots.ecdf_chart(comparisons.ecdf(responses))))
    assert grid.width == 3 * mmmt_if_plots.PANEL_W and grid.height > 2 * mmmt_if_plots.PANEL_H
    assert mmmt_if_plots.spread_turns(range(1, 13)) == [1, 5, 8, 12]
    assert data_url_markdown(b"png", "x").startswith("![x](data:image/png;base64,")



@pytest.mark.parametrize("pairs, levels, samples", [(7, 3, 3), (10, 9, 2), (13, 4, 1), (14, 4, 2), (30, 1000, 3),
                                                    (60, 4, 2)])
def test_wilcoxon_gives_scipys_p_values_for_the_method_scipy_chooses(pairs, levels, samples):
    """Small samples with ties or zeros go through every sign flip (scipy's slow permutation test, counted here at
    once), tie-free ones through the exact distribution, large ones through the normal approximation: each p-value
    equals scipy's method="auto" result, and the method is named. (13 pairs, the last with every flip, costs scipy
    about a second: one sample.)"""
    rng = np.random.default_rng(pairs * 7 + levels)
    for _ in range(samples):
        x, y = rng.integers(0, levels, pairs) / levels, rng.integers(0, levels, pairs) / levels
        greater, less, nonzero, method = comparisons.wilcoxon_one_sided(x, y)
        diff = x - y
        expected_method = ("asymptotic" if pairs > 50 else
                           "exact" if np.all(diff != 0) and len(np.unique(np.abs(diff))) == pairs else
                           "all sign flips" if pairs <= 13 else "asymptotic")
        assert method == expected_method and nonzero == int(np.sum(diff != 0))
        assert greater == pytest.approx(stats.wilcoxon(x, y, alternative="greater").pvalue, rel=1e-12, abs=1e-15)
        assert less == pytest.approx(stats.wilcoxon(x, y, alternative="less").pvalue, rel=1e-12, abs=1e-15)
