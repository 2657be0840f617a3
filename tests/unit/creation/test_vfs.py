import pytest

from benchwright.pairwise import parse_pairwise
from benchwright.creation.vfs import parse_vfs


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Final Verdict is: [[B>A]]", "B>A"),
        ("Final Verdict is: [[A>>B]]", "A>>B"),
        ("Final Verdict is: [[A=B]]", "A=B"),
        ("Final Verdict is: [[B>>A]]", "B>>A"),
        # spacing
        ("Final Verdict is: [[ B > A ]]", "B>A"),
        ("Final Verdict is: [[A >> B]]", "A>>B"),
        # LaTeX and markdown wrappers
        ("Final Verdict is: $[[B>A]]$", "B>A"),
        ("**Final Verdict is: [[B>A]]**", "B>A"),
        ("Final Verdict is: **[[A>B]]**", "A>B"),
        ("Final Verdict is: $\\boxed{[[B>>A]]}$", "B>>A"),
        ("Final Verdict is: \\[\\[A>B\\]\\]", "A>B"),
        # trailing text after the verdict
        ("Final Verdict is: [[A>B]]\n\nI hope this evaluation helps.", "A>B"),
        ("[[B>A]] because B follows the requirements.", "B>A"),
        # "<" forms are read right to left
        ("Final Verdict is: [[A<B]]", "B>A"),
        ("Final Verdict is: [[A<<B]]", "B>>A"),
        ("Final Verdict is: [[B<A]]", "A>B"),
        ("Final Verdict is: [[B<<A]]", "A>>B"),
        # ties
        ("Final Verdict is: [[A==B]]", "A=B"),
        ("Final Verdict is: [[B=A]]", "A=B"),
        ("Final Verdict is: [[ A = B ]]", "A=B"),
        # case and wording of the phrase
        ("final verdict: [[b>a]]", "B>A"),
    ],
)
def test_parse_pairwise_accepts_variants(text, expected):
    assert parse_pairwise(text) == expected


def test_example_verdict_quoted_earlier_is_not_taken():
    text = (
        "The required format is [[A>>B]] for a clear win. Assistant B covers every "
        "requirement.\nFinal Verdict is: [[B>A]]"
    )
    assert parse_pairwise(text) == "B>A"


def test_verdict_after_last_final_verdict_phrase_wins_over_later_tokens():
    text = (
        "I must end with Final Verdict is: [[VERDICT]].\n"
        "Both are good.\nFinal Verdict is: [[A>B]]\n"
        "(For reference, a tie would be written [[A=B]].)"
    )
    assert parse_pairwise(text) == "A>B"


def test_without_the_phrase_the_last_token_counts():
    assert parse_pairwise("First I thought [[A>B]], but on reflection [[B>>A]].") == "B>>A"


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "Assistant B is better.",
        "Final Verdict is: B>A",  # no brackets
        "Final Verdict is: [[C>A]]",
        "Final Verdict is: [[A>>>B]]",
        "Final Verdict is: [[A>A]]",
        "Final Verdict is: [[VERDICT]]",
        "Final Verdict is: [[]]",
        "Final Verdict is: [[A>B or B>A]]",
        # a garbled final verdict is a failure, not a reason to fall back to an earlier one
        "Example: [[A>B]].\nFinal Verdict is: [[A>>>B]]",
    ],
)
def test_parse_pairwise_rejects_garbage(text):
    assert parse_pairwise(text) is None


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "Response A Visual Factuality Score: 7/10\nResponse B Visual Factuality Score: 4/10",
            (7.0, 4.0),
        ),
        (
            "**Response A Visual Factuality Score:** 7.5 / 10\n"
            "**Response B Visual Factuality Score: 10/10**",
            (7.5, 10.0),
        ),
        (
            "response a visual factuality score: 0/10\nResponse B Visual Factuality Score : 3 out of 10",
            (0.0, 3.0),
        ),
        # only one side present
        ("Response B Visual Factuality Score: 6/10", (None, 6.0)),
        # out of range -> None for that side
        (
            "Response A Visual Factuality Score: 11/10\nResponse B Visual Factuality Score: -1/10",
            (None, None),
        ),
        # last occurrence wins (the first pair restates the format)
        (
            "Format: Response A Visual Factuality Score: 1/10, Response B Visual Factuality "
            "Score: 2/10.\nResponse A Visual Factuality Score: 8/10\n"
            "Response B Visual Factuality Score: 5.5/10",
            (8.0, 5.5),
        ),
        # placeholders and non-numbers are not scores
        (
            "Response A Visual Factuality Score: <x>/10\nResponse B Visual Factuality Score: N/A",
            (None, None),
        ),
        # a score out of another maximum is not a score out of 10
        ("Response A Visual Factuality Score: 7/100", (None, None)),
        ("", (None, None)),
        (None, (None, None)),
    ],
)
def test_parse_vfs(text, expected):
    assert parse_vfs(text) == expected


def test_quoted_verdicts_are_not_the_judges_but_a_quoted_bare_token_is():
    from benchwright.pairwise import parse_pairwise

    assert parse_pairwise('Final Verdict is: "[[A>B]]"') == "A>B"
    assert parse_pairwise('B wrote “Final Verdict is: [[B>>A]]”. Final Verdict is: [[A=B]]') == "A=B"
    assert parse_pairwise('> Final Verdict is: [[B>>A]]\nNothing more to say.') is None
