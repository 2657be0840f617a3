"""The plan's prompt tokens (benchwright/llm/backends/plan.py `prompt_tokens`): counted piece by piece and each
piece once, they must equal litellm's `token_counter` on the whole request, whatever shape its messages have."""

import base64
import io

import pytest
from PIL import Image

from benchwright.images import ImageRef, ImageSource
from benchwright.llm.backends import plan
from benchwright.llm.litellm_setup import load_litellm
from benchwright.llm.request import sendable


def _png(colour: tuple[int, int, int], size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def _requests() -> list[list[dict]]:
    import hashlib

    pictures = {hashlib.sha256(data).hexdigest(): data for data in (_png((200, 10, 10), (640, 480)),
                                                                     _png((10, 200, 10), (32, 900)))}
    source = ImageSource(lambda shas: {sha: pictures[sha] for sha in shas})
    refs = [ImageRef(sha, "image/png", source) for sha in pictures]
    inline = "data:image/png;base64," + base64.b64encode(_png((0, 0, 255), (300, 300))).decode()
    system = {"role": "system", "content": "You are a careful judge. Answer with [[A>B]] or [[B>A]]."}
    answer = "Le chat est sur la table. 猫はテーブルの上にいます。 " * 40
    history = "".join(f"User: question {turn}?\n\nAssistant: {answer[:700 + 37 * turn]}\n\n" for turn in range(6))
    return [
        [system, {"role": "user", "content": f"<answer_a>\n{answer}\n</answer_a>\n<answer_b>\nNo.\n</answer_b>"}],
        [system, {"role": "user", "content": f"<answer_a>\nNo.\n</answer_a>\n<answer_b>\n{answer}\n</answer_b>"}],
        [{"role": "user", "content": [{"type": "text", "text": "Describe both pictures."},
                                      {"type": "image_url", "image_url": {"url": refs[0]}},
                                      {"type": "image_url", "image_url": {"url": refs[1], "detail": "low"}}]},
         {"role": "assistant", "content": answer},
         {"role": "user", "content": [{"type": "text", "text": "And this one?"},
                                      {"type": "image_url", "image_url": {"url": inline}}]}],
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": refs[0]}}, "a bare text part"]},
         {"role": "assistant", "name": "writer", "content": "Sure."},
         {"role": "user", "content": ""}],
        # a text part, and a text that reads like that part's JSON
        [{"role": "user", "content": [{"type": "text", "text": "x"}]},
         {"role": "user", "content": '[{"text":"x","type":"text"}]'}],
        # texts of many chunks that begin alike (a judge's prompt holding a history that grows turn by turn)
        [system, {"role": "user", "content": f"<history>\n{history[:5000]}</history>\nNow score."}],
        [system, {"role": "user", "content": [{"type": "text", "text": f"<history>\n{history}</history>\nNow."},
                                              {"type": "image_url", "image_url": {"url": refs[1]}}]}],
        [],
    ]


@pytest.mark.parametrize("model", ["openai/gpt-4o", "openai/gpt-4o-mini", "openai/gpt-3.5-turbo",
                                   "openai/some-self-hosted-model"])
def test_piecewise_counts_equal_litellm_on_every_request_and_again_when_remembered(model):
    litellm = load_litellm()
    requests = _requests()
    expected = [int(litellm.token_counter(model=model, messages=sendable(messages))) for messages in requests]
    plan._PIECE_TOKENS.clear()
    plan._CHUNK_TOKENS.clear()
    assert [plan.prompt_tokens(model, messages) for messages in requests] == expected
    assert len(plan._PIECE_TOKENS) < sum(2 * len(m) + 3 for m in requests)  # shared pieces were counted once
    from litellm.constants import TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS as size

    texts = [part.get("text", "") if isinstance(part, dict) else part for m in requests for message in m
             for part in (message["content"] if isinstance(message["content"], list) else [message["content"]])]
    assert 0 < len(plan._CHUNK_TOKENS) < sum(-(-len(t) // size) for t in texts)  # texts that begin alike shared
    assert [plan.prompt_tokens(model, messages) for messages in reversed(requests)] == expected[::-1]
