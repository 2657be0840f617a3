import base64
import io
import random

import pytest
from PIL import Image, ImageDraw

from benchwright.creation import prompts
from benchwright.colors import PALETTE
from benchwright import simulate
from benchwright.simulate import SimCompletion, complete, register
from benchwright.simulate.vision import image_colours
from benchwright.simulate.words import colour_words, content_words
from benchwright.pairwise import outcome, parse_pairwise, swap_consistency
from benchwright.creation.vfs import parse_vfs


def data_url(background, shapes, image_format="PNG", size=64, speck=None):
    """A tiny picture: one vertical bar per shape colour on a background colour."""
    image = Image.new("RGB", (size, size), PALETTE[background])
    draw = ImageDraw.Draw(image)
    for index, colour in enumerate(shapes):
        left = 4 + index * (size // 3)
        draw.rectangle([left, size // 6, left + size // 4, size - size // 6], fill=PALETTE[colour])
    if speck:
        draw.point((size - 2, size // 2), fill=PALETTE[speck])  # a one-pixel speck
    buffer = io.BytesIO()
    image.save(buffer, image_format)
    mime = "jpeg" if image_format == "JPEG" else "png"
    return f"data:image/{mime};base64," + base64.b64encode(buffer.getvalue()).decode()


TOPICS = [
    ("a lighthouse keeper", "write a short story about the scene",
     ["Introduce a main character with a clear goal", "Describe the weather over the harbour",
      "End with a surprising twist"]),
    ("a museum guide", "explain the painting to visiting students",
     ["Mention the painter's brush technique", "Relate the composition to its historical period",
      "Invite questions at the end"]),
    ("a chef", "write a recipe inspired by the photo",
     ["List ingredients with quantities", "Give numbered cooking steps",
      "Suggest a vegetarian alternative"]),
]  # fmt: skip


def synthetic_items(count=10, seed=7):
    rng = random.Random(seed)
    shape_colours = [name for name in PALETTE if name != "white"]
    items = []
    for index in range(count):
        role, instruction, requirements = TOPICS[index % len(TOPICS)]
        shapes = rng.sample(shape_colours, rng.randint(1, 3))
        items.append(
            {
                "item_id": f"item-{index}",
                "category": "Literary Writing",
                "task": "synthetic",
                "role": role,
                "background": "The picture was taken on a quiet morning.",
                "instruction": instruction,
                "requirements": requirements,
                "subjective_criteria": "1. Creativity: original, vivid\n1.1 Imagery\n2. Coherence",
                "visual_factuality_criteria": "1. The picture shows " + " and ".join(shapes) + " shapes",
                "ground_truth": None,
                "images": [data_url("white", shapes)],
                "shapes": shapes,
            }
        )
    return items


ITEMS = synthetic_items()


def write(item, skill, verbosity=1.0, model="sim/writer", sample_index=0):
    messages = prompts.candidate_messages(item, item["images"])
    return complete(model, messages, {"skill": skill, "verbosity": verbosity}, sample_index,
                    prompt_version=prompts.CANDIDATE_PROMPT_VERSION).text


def judge_both_orders(item, candidate, baseline, judge_params):
    """(order-1 verdict, order-2 verdict): candidate in position B, then in position A."""
    first = prompts.pairwise_judge_messages(item, baseline, candidate, item["images"])
    second = prompts.pairwise_judge_messages(item, candidate, baseline, item["images"])
    return (
        parse_pairwise(complete("sim/judge", first, judge_params).text),
        parse_pairwise(complete("sim/judge", second, judge_params).text),
    )


# --- determinism and robustness ------------------------------------------------------------


def test_same_arguments_same_text_and_sample_index_varies_it():
    item = ITEMS[0]
    assert write(item, 0.5) == write(item, 0.5)
    samples = {write(item, 0.5, sample_index=index) for index in range(6)}
    assert len(samples) > 1


def test_completion_reports_tokens():
    result = complete("sim/writer", prompts.candidate_messages(ITEMS[0], ITEMS[0]["images"]), {})
    assert isinstance(result, SimCompletion)
    assert result.tokens_out == len(result.text.split())
    assert result.tokens_in > len(prompts.build_query(ITEMS[0]).split())  # text plus the image


@pytest.mark.parametrize(
    "messages",
    [
        [],
        None,
        [{"role": "user", "content": ""}],
        [{"role": "user", "content": None}],
        ["not a message", 42],
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@@"}}]}],
        [{"role": "user", "content": [{"type": "image_url", "image_url": "https://example.com/x.png"}]}],
        [{"role": "user", "content": [{"type": "text", "text": "What is the capital of France?"}]}],
        prompts.pairwise_judge_messages(ITEMS[0], "", "", None),
        prompts.vfs_judge_messages({**ITEMS[0], "visual_factuality_criteria": None}, "", "", None),
        prompts.describe_messages([]),
        prompts.focus_messages(""),
    ],
)
def test_odd_input_still_returns_text(messages):
    result = complete("sim/anything", messages, {"skill": "high", "temperature": 0.2, "max_tokens": 5})
    assert isinstance(result.text, str) and result.text.strip()


# --- vision --------------------------------------------------------------------------------


@pytest.mark.parametrize("image_format", ["PNG", "JPEG"])
def test_vision_names_drawn_colours_not_background_or_specks(image_format):
    url = data_url("yellow", ["blue", "red"], image_format=image_format, speck="green")
    seen, background = image_colours(url)
    assert background == "yellow"
    assert sorted(seen) == ["blue", "red"]


def test_vision_unreadable_image_sees_nothing():
    assert image_colours("data:image/png;base64,bm90IGFuIGltYWdl") == ([], None)


# --- candidates ----------------------------------------------------------------------------


def test_skilled_candidate_covers_requirements_and_colours():
    for item in ITEMS[:5]:
        answer = write(item, 1.0)
        answer_words = set(content_words(answer))
        for requirement in item["requirements"]:
            assert set(content_words(requirement)) <= answer_words
        assert set(colour_words(answer)) == set(item["shapes"])


def test_unskilled_candidate_covers_nothing():
    for item in ITEMS[:5]:
        answer = write(item, 0.0)
        answer_words = set(content_words(answer))
        for requirement in item["requirements"]:
            assert not set(content_words(requirement)) <= answer_words
        assert not set(colour_words(answer)) & set(item["shapes"])


def test_verbosity_makes_answers_longer():
    short = sum(len(write(item, 0.5, verbosity=0.5).split()) for item in ITEMS)
    long = sum(len(write(item, 0.5, verbosity=4.0).split()) for item in ITEMS)
    assert long > 1.5 * short


def test_text_only_candidate_uses_colours_from_the_description():
    item = ITEMS[0]
    messages = prompts.candidate_messages(item, item["images"], image_descriptions="A purple kite over a brown field.")
    answer = complete("sim/text-only", messages, {"skill": 1.0}).text
    assert set(colour_words(answer)) == {"purple", "brown"}


# --- describe and focus --------------------------------------------------------------------


def test_description_counts_images_and_names_their_colours():
    urls = [data_url("white", ["red"]), data_url("black", ["green", "blue"])]
    text = complete("sim/describer", prompts.describe_messages(urls, focus="the shapes"), {"skill": 1.0}).text
    assert "There are 2 images." in text
    image_1, image_2 = text.split("Image 2:")
    assert colour_words(image_1.split("Image 1:")[1]) == ["red"]
    assert set(colour_words(image_2)) == {"green", "blue"}
    assert "the shapes" in text


def test_focus_answer_lists_things_to_observe_without_verdicts_or_scores():
    question = prompts.build_query(ITEMS[2])
    text = complete("sim/planner", prompts.focus_messages(question), {}).text
    assert "colours" in text and "recipe" in text
    assert len(text.split()) < 60
    assert parse_pairwise(text) is None


# --- judges --------------------------------------------------------------------------------


def test_unbiased_judge_prefers_skilled_candidate_in_both_orders():
    first_order_wins = second_order_wins = 0
    for item in ITEMS:
        strong, weak = write(item, 0.9, model="sim/strong"), write(item, 0.2, model="sim/weak")
        verdict_1, verdict_2 = judge_both_orders(item, strong, weak, {"position_bias": 0.0})
        first_order_wins += outcome(verdict_1, "B") in ("MB", "B")
        second_order_wins += outcome(verdict_2, "A") in ("MB", "B")
    assert first_order_wins >= 8 and second_order_wins >= 8


def _exact_consistency(judge_params):
    consistent = []
    for item in ITEMS:
        for candidate_skill, baseline_skill in ((0.9, 0.2), (0.7, 0.5)):
            candidate = write(item, candidate_skill, model="sim/candidate")
            baseline = write(item, baseline_skill, model="sim/baseline")
            exact, _relaxed = swap_consistency(*judge_both_orders(item, candidate, baseline, judge_params))
            consistent.append(exact)
    return sum(consistent) / len(consistent)


def test_position_bias_lowers_swap_consistency():
    unbiased = _exact_consistency({"position_bias": 0.0})
    biased = _exact_consistency({"position_bias": 0.8})
    assert unbiased >= 0.7
    assert biased <= unbiased - 0.3


def _share_preferring_first(judge_params):
    first = []
    for item in ITEMS:
        candidate, baseline = write(item, 0.6, model="sim/c"), write(item, 0.6, model="sim/b")
        for verdict in judge_both_orders(item, candidate, baseline, judge_params):
            if verdict != "A=B":
                first.append(verdict.startswith("A"))
    return sum(first) / len(first)


def test_position_bias_shows_as_preference_for_first_position():
    # each order shows both answers once in each position, so an unbiased judge sits at 0.5
    assert _share_preferring_first({"position_bias": 0.0}) == pytest.approx(0.5, abs=0.15)
    assert _share_preferring_first({"position_bias": 1.0}) >= 0.6


def _candidate_win_share(judge_params):
    """Share of verdicts (both orders, every item) for an answer of family alpha against one of equal skill and
    no family."""
    wins = []
    for item in ITEMS:
        messages = prompts.candidate_messages(item, item["images"])
        candidate = complete("sim/c", messages, {"skill": 0.6, "family": "alpha"},
                             prompt_version=prompts.CANDIDATE_PROMPT_VERSION).text
        baseline = write(item, 0.6, model="sim/b")
        for verdict, position in zip(judge_both_orders(item, candidate, baseline, judge_params), ("B", "A")):
            wins.append(outcome(verdict, position) in ("MB", "B"))
    return sum(wins) / len(wins)


def test_self_preference_makes_a_judge_favour_answers_of_its_family():
    neutral = _candidate_win_share({"family": "alpha"})
    assert _candidate_win_share({"family": "alpha", "self_preference": 0.7}) >= neutral + 0.3
    assert _candidate_win_share({"family": "beta", "self_preference": 0.7}) <= neutral + 0.15  # not its family


def test_fully_malformed_judges_never_parse():
    for item in ITEMS:
        candidate, baseline = write(item, 0.9), write(item, 0.3, model="sim/other")
        assert judge_both_orders(item, candidate, baseline, {"malformed_rate": 1.0}) == (None, None)
        messages = prompts.vfs_judge_messages(item, baseline, candidate, item["images"])
        assert parse_vfs(complete("sim/judge", messages, {"malformed_rate": 1.0}).text) == (None, None)


def test_vfs_judge_rewards_correct_colours():
    item = ITEMS[3]
    right = "The picture shows " + " and ".join(item["shapes"]) + " shapes."
    wrong_colour = next(name for name in PALETTE if name not in item["shapes"])
    wrong = f"The picture shows {wrong_colour} shapes."
    for image_urls in (item["images"], None):
        messages = prompts.vfs_judge_messages(item, wrong, right, image_urls)
        score_a, score_b = parse_vfs(complete("sim/vfs-judge", messages, {}).text)
        assert score_b == 10.0
        assert score_a is not None and score_a < 5.0


def test_llm_judge_without_images_still_gives_a_verdict():
    item = ITEMS[1]
    messages = prompts.pairwise_judge_messages(item, write(item, 0.2), write(item, 1.0, model="sim/x"), None)
    assert parse_pairwise(complete("sim/text-judge", messages, {}).text) in ("B>A", "B>>A")


# --- extension -----------------------------------------------------------------------------


def test_the_prompt_version_chooses_the_responder_not_the_text(monkeypatch):
    monkeypatch.setattr(simulate, "REGISTERED", {})
    register("probe-v1", lambda request: "probed")
    item = ITEMS[1]
    judge_prompt = prompts.pairwise_judge_messages(item, write(item, 0.2), write(item, 1.0, model="sim/x"), None)
    # A pairwise judge's text under another version is that version's to answer ...
    assert complete("sim/j", judge_prompt, {}, prompt_version="probe-v1").text == "probed"
    # ... and under Creation's pairwise version it is Creation's judge, whatever registered responders exist.
    assert parse_pairwise(complete("sim/j", judge_prompt, {}, prompt_version=prompts.PAIRWISE_PROMPT_VERSION).text)
    # A version no back end knows gets the shared fallback: prose, not a verdict.
    unknown = complete("sim/j", judge_prompt, {}, prompt_version="nobody-v9").text
    assert parse_pairwise(unknown) is None and unknown.endswith("I hope this serves the purpose well.")


def test_a_responder_may_decline_and_the_fallback_answers(monkeypatch):
    monkeypatch.setattr(simulate, "REGISTERED", {})
    register("shy-v1", lambda request: None)
    messages = [{"role": "user", "content": "Write two lines about rain."}]
    assert complete("sim/x", messages, {}, prompt_version="shy-v1") == complete("sim/x", messages, {},
                                                                                 prompt_version="nobody-v9")


def test_without_a_version_each_back_end_recognises_its_own_prompts():
    """A stand-in provider over HTTP sees only the messages: the answer is the one the version would give."""
    from benchwright.gap import answering, scoring
    from benchwright.mmmt_if import prompts as mmmt_if_prompts
    from benchwright.urs import prompts as urs_prompts

    item = ITEMS[0]
    cases = [
        (prompts.CANDIDATE_PROMPT_VERSION, prompts.candidate_messages(item, item["images"])),
        (prompts.PAIRWISE_PROMPT_VERSION, prompts.pairwise_judge_messages(item, write(item, 0.2), write(item, 0.9),
                                                                          item["images"])),
        (prompts.DESCRIBE_PROMPT_VERSION, prompts.describe_messages(item["images"], focus="the shapes")),
        (prompts.FOCUS_PROMPT_VERSION, prompts.focus_messages("What is in the picture?")),
        (urs_prompts.CANDIDATE_PROMPT_VERSION, urs_prompts.candidate_messages("How do I water a dry garden?")),
        (mmmt_if_prompts.AUTORATER_PROMPT_VERSION, mmmt_if_prompts.autorater_messages(
            ["Describe the picture.", "Now name its colours."], ["A calm sea."], "Blue and white.", None)),
        (scoring.SCORE_PROMPT_VERSION, [{"role": "user", "content": scoring.score_prompt(
            "How many circles?", "There are 3 circles.", "There are three circles.")}]),
        (answering.ANSWER_PROMPT_VERSION, answering.answer_messages("How many circles are in the image?",
                                                                    item["images"][0])),
    ]
    for version, messages in cases:
        recognised = complete("sim/m", messages, {"skill": 0.6}).text
        assert recognised == complete("sim/m", messages, {"skill": 0.6}, prompt_version=version).text, version
        # ... and it is the back end's own answer, not the shared fallback's.
        assert recognised != complete("sim/m", messages, {"skill": 0.6}, prompt_version="nobody-v9").text, version
