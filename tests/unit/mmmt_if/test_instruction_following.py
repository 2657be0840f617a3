"""The MMMT-IF instruction checkers and the text model they share (benchwright/mmmt_if/README.md#checkers), on real-looking answers."""

import pytest

from benchwright.mmmt_if.instruction_following import (CATEGORIES, INSTRUCTIONS, NUMBER_WORDS_COUNT, OPTIONS_BY_CATEGORY,
                                               UnknownInstructionError, analyse, check, followed, pif)
from benchwright.mmmt_if.instruction_following.text import numbers

# --- the registry ---------------------------------------------------------------------------------------


def test_registry_holds_the_13_instructions_of_the_method_in_6_categories():
    assert list(INSTRUCTIONS) == [
        "length_short", "length_long", "start_S", "start_B", "end_question", "end_exclaim", "word_like",
        "word_itself", "word_per_se", "sentence_short", "sentence_long", "number_even", "number_odd",
    ]
    assert len(CATEGORIES) == 6
    assert {c: len(o) for c, o in OPTIONS_BY_CATEGORY.items()} == {
        "response_length": 2, "sentence_start": 2, "sentence_end": 2, "favourite_word": 3, "sentence_length": 2,
        "number": 2}
    for spec in INSTRUCTIONS.values():
        assert spec.text.startswith("From now on") and spec.category in CATEGORIES


def test_unknown_id_raises_a_clear_error_naming_the_known_ids():
    with pytest.raises(UnknownInstructionError) as error:
        check("Fine.", "start_X")
    assert "start_X" in str(error.value) and "start_S" in str(error.value)
    with pytest.raises(KeyError):
        pif("Fine.", ["length_short", "no_such_instruction"])


def test_pif_of_a_response_following_3_of_6_instructions_is_one_half():
    response = ("So the harbour looks calm today, with about 8 boats tied up along the quay. "
                "Seen from the lighthouse, the water itself is a deep blue.")
    ids = ["length_short", "start_S", "number_even", "end_question", "word_like", "sentence_long"]
    assert followed(response, ids) == {"length_short": True, "start_S": True, "number_even": True,
                                       "end_question": False, "word_like": False, "sentence_long": False}
    assert pif(response, ids) == 0.5


def test_pif_is_one_with_no_instruction_and_counts_repeated_ids_once():
    assert pif("Anything at all.", []) == 1.0
    assert pif("Short answer.", ["length_short", "length_short", "word_like"]) == 0.5


# --- one real-looking response per instruction, followed and not ------------------------------------

CASES = [
    ("length_short", "The boats are red, brown and yellow. Each has a black mast.", True),
    ("length_short", "One. Two. Three. Four. Five.", False),
    ("length_long", "I see three boats. The first is red. The second is brown. The third is yellow. "
                    "All three have masts.", True),
    ("length_long", "Three boats sit in the harbour. They look calm.", False),
    ("start_S", "Surely the tower guides ships. Stripes make it visible by day. So it stands out.", True),
    ("start_S", "Surely the tower guides ships. The stripes make it visible by day.", False),
    ("start_B", "Boats rest in the bay. Beyond them, the lighthouse stands tall.", True),
    ("start_B", "Boats rest in the bay. A lighthouse stands tall beyond them.", False),
    ("end_question", "Is the weather calm? Could it rain later?", True),
    ("end_question", "Is the weather calm? It could rain later.", False),
    ("end_exclaim", "What a lovely harbour! The boats look cheerful!", True),
    ("end_exclaim", "What a lovely harbour! The boats look cheerful.", False),
    ("word_like", "The stall looks like a small family shop.", True),
    ("word_like", "The stall is likely a family shop, unlike the big market.", False),
    ("word_itself", "The lighthouse itself is painted in red and white.", True),
    ("word_itself", "The lighthouse is painted in red and white.", False),
    ("word_per_se", "It is not a rule per se, more of a habit.", True),
    ("word_per_se", "It is not a rule, more of a habit.", False),
    ("sentence_short", "The bus is red. Route 7 runs every few minutes through the centre.", True),
    ("sentence_short", "The red bus in the picture carries the number seven and seems to run through the "
                       "busy centre of the town every few minutes.", False),
    ("sentence_long", "The red bus in the picture carries the number seven and seems to run through the busy "
                      "centre of the town every few minutes.", True),
    ("sentence_long", "The red bus in the picture carries the number seven and runs through the busy centre of "
                      "town. It is red.", False),
    ("number_even", "The tram comes every 12 minutes.", True),
    ("number_even", "The tram comes every 7 minutes, or every 4 at peak times.", False),
    ("number_odd", "The tram comes every 7 minutes.", True),
    ("number_odd", "The tram comes every 12 minutes, or every 5 at peak times.", False),
]


@pytest.mark.parametrize("instruction_id, response, expected", CASES)
def test_each_instruction_on_real_looking_responses(instruction_id, response, expected):
    assert check(response, instruction_id) is expected


def test_every_instruction_has_a_followed_and_a_broken_case():
    for instruction_id in INSTRUCTIONS:
        assert {expected for i, _, expected in CASES if i == instruction_id} == {True, False}, instruction_id


@pytest.mark.parametrize("response", ["", "   \n\n  ", "---", "🙂", None])
def test_an_empty_response_follows_no_instruction(response):
    assert followed(response, list(INSTRUCTIONS)) == dict.fromkeys(INSTRUCTIONS, False)


# --- the text model ----------------------------------------------------------------------------------


def sentences(text):
    return list(analyse(text).sentences)


def test_abbreviations_and_initials_do_not_end_sentences_but_etc_before_a_capital_does():
    assert sentences("Dr. Smith met Mr. Jones at St. Mary's. They talked.") == [
        "Dr. Smith met Mr. Jones at St. Mary's.", "They talked."]
    assert sentences("The U.S. Army and J. K. Rowling, e.g. famous names. See Fig. 2 for more.") == [
        "The U.S. Army and J. K. Rowling, e.g. famous names.", "See Fig. 2 for more."]
    assert sentences("We packed apples, pears, etc. Then we left.") == [
        "We packed apples, pears, etc.", "Then we left."]


def test_decimals_versions_and_urls_do_not_split_but_a_number_at_the_end_does():
    assert sentences("It costs 3.5 euros at example.com today. It rose from 2.99 in 2023. Version 1.2.3 is out.") == [
        "It costs 3.5 euros at example.com today.", "It rose from 2.99 in 2023.", "Version 1.2.3 is out."]


def test_ellipses_split_only_before_a_capital():
    assert sentences("Well... I am not sure. Wait… what is that?") == ["Well...", "I am not sure.", "Wait… what is that?"]


def test_quotes_and_brackets_stay_with_their_sentence():
    text = 'He shouted "Stop!" Then he left. (It was late.) "Really?" she asked. [Note: done.] Fine.'
    assert sentences(text) == ['He shouted "Stop!"', "Then he left.", "(It was late.)", '"Really?" she asked.',
                               "[Note: done.]", "Fine."]
    # The end mark is read inside closing quotes and brackets; the start letter after opening ones.
    assert check('"Surely!" (So bright!)', "end_exclaim") and check('"Surely!" (So bright!)', "start_S")


def test_list_items_headings_and_lines_without_punctuation_are_sentences():
    text = ("## Summary\n"
            "Here is what I see:\n"
            "- a red boat\n"
            "* a **brown** boat\n"
            "1. a yellow boat.\n"
            "2) a lighthouse\n\n"
            "Overall a calm scene\n"
            "with a soft wrap here.\n"
            "A new line starts here")
    assert sentences(text) == ["Summary", "Here is what I see:", "a red boat", "a brown boat", "a yellow boat.",
                               "a lighthouse", "Overall a calm scene with a soft wrap here.", "A new line starts here"]
    # Headings and bare list items have no end mark, so they break "every sentence ends with ...".
    assert not check("## Title\nIs it calm?", "end_question")
    assert check("- Is it calm?\n- Is it warm?", "end_question")


def test_markdown_emphasis_links_and_code_are_stripped():
    text = "**So** it _starts_ with [Some link](https://example.com).\n```python\nx = 8  # not prose\n```\nSure `thing`."
    stats = analyse(text)
    assert list(stats.sentences) == ["So it starts with Some link.", "Sure thing."]
    assert list(stats.numbers) == []  # the code block's 8 is not part of the prose
    assert check(text, "start_S")


def test_word_counting_treats_hyphens_contractions_and_numbers_as_one_word():
    stats = analyse("A well-known harbour isn't 1,000.5 km from the U.S. coast, and/or near it — maybe.")
    # A | well-known | harbour | isn't | 1,000.5 | km | from | the | U.S | coast | and | or | near | it | maybe
    assert list(stats.sentence_word_counts) == [15]
    assert analyse("**Bold** words_here count once each.").sentence_word_counts == [5]


def test_sentence_length_boundaries_are_inclusive_at_18_words():
    eighteen = " ".join(["word"] * 17) + " end."
    nineteen = " ".join(["word"] * 18) + " end."
    assert check(eighteen, "sentence_short") and check(eighteen, "sentence_long")
    assert not check(nineteen, "sentence_short") and check(nineteen, "sentence_long")


def test_number_detection_separators_decimals_signs_and_words():
    assert numbers("1,000 and 12,345.67 and 1,2,3 and -8 and 2-8 and x86 and 7th and 3.5.1 and 75% and $12") == [
        1000.0, 12345.67, 1.0, 2.0, 3.0, -8.0, 2.0, 8.0, 7.0, 3.5, 75.0, 12.0]
    assert NUMBER_WORDS_COUNT is False
    assert not check("There are seven boats and eight gulls.", "number_odd")
    assert not check("There are seven boats and eight gulls.", "number_even")
    assert check("About 8.0 metres high.", "number_even")  # an integer value, written with a decimal
    assert not check("About 7.5 metres high.", "number_odd")  # neither even nor odd
    assert not check("A drop of -9 degrees.", "number_odd")  # not bigger than 5
    assert not check("Exactly 5 boats and 4 gulls.", "number_odd")  # 5 is not bigger than 5
    assert check("Open from 2-9 pm.", "number_odd")  # a range: 9 counts


def test_list_labels_are_layout_not_numbers():
    assert not check("7. The first point.\n8. The second point.", "number_even")
    assert check("The list has 8 points.", "number_even")


def test_favourite_words_are_whole_words_case_insensitive_within_one_sentence():
    assert check("LIKE a charm.", "word_like")
    assert not check("Like-minded people met.", "word_like")
    assert check("Per se, nothing changed.", "word_per_se")
    assert not check("It was good per. Se habla español.", "word_per_se")  # across a sentence boundary
    assert check("The tower itself, I think.", "word_itself")
    assert not check("The towers themselves.", "word_itself")


def test_start_letter_is_case_insensitive_and_skips_opening_marks_but_not_digits():
    assert check('"surely so." (Still fine.) *Seen* here.', "start_S")
    assert not check("7 swans swim. So do ducks.", "start_S")
