"""What a simulated model sees: the request, read once into plain pieces."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field

DEFAULT_SETTINGS = {
    "skill": 0.7,  # candidates: share of requirements addressed and colours seen right
    "verbosity": 1.0,  # candidates: multiplier on the number of filler sentences
    "position_bias": 0.0,  # judges: chance of nudging a verdict one step toward position A
    "malformed_rate": 0.0,  # judges: chance of an output with no parsable verdict/score
    "leniency": 0.0,  # URS's judge: added to every score (benchwright/urs/simulated.py)
    "self_preference": 0.0,  # judges: added for an answer of the judge's own family (house_style.py)
}
# The values each setting takes (low, high; None: no bound). The registry refuses an entry whose setting is
# anything else (`setting_problem`), so a registered value is used as written; `setting` still clamps what a
# request built elsewhere carries.
SETTING_RANGES = {"skill": (0.0, 1.0), "verbosity": (0.0, None), "position_bias": (0.0, 1.0),
                  "malformed_rate": (0.0, 1.0), "leniency": (-5.0, 5.0), "self_preference": (-10.0, 10.0)}


def setting_problem(params: dict) -> tuple[str, str] | None:
    """(setting, what is wrong) for the first behaviour setting in a simulated model's `params` that is not a
    number in its range (the simulator would otherwise use its default, or the nearest bound, without a word);
    None when every one is."""
    for name, (low, high) in SETTING_RANGES.items():
        if name not in params:
            continue
        value = params[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            return name, f"must be a number, not {value!r}"
        if value < low or (high is not None and value > high):
            bound = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
            return name, f"must be {bound}, not {value!r}"
    return None


def _message_parts(message) -> tuple[list[str], list[str]]:
    """Texts and image URLs of one chat message (string content or OpenAI content parts)."""
    if not isinstance(message, dict):
        return [], []
    content = message.get("content")
    if isinstance(content, str):
        return [content], []
    texts, urls = [], []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif part.get("type") == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            if isinstance(url, str):
                urls.append(url)
    return texts, urls


def request_seed(model: str, messages, params, sample_index: int) -> int:
    """A stable seed from everything that defines the request (so the output is reproducible)."""
    canonical = json.dumps(
        {"model": model, "messages": messages, "params": params, "sample_index": sample_index},
        sort_keys=True,
        default=str,
    )
    return int.from_bytes(hashlib.sha256(canonical.encode("utf-8")).digest()[:8], "big")


@dataclass
class SimRequest:
    model: str
    messages: list
    params: dict
    rng: random.Random
    all_text: str = ""  # every text part of every message, joined
    last_user_text: str = ""  # text of the last user message
    image_urls: list[str] = field(default_factory=list)  # images of all messages, in order

    @classmethod
    def build(cls, model: str, messages, params, sample_index: int) -> SimRequest:
        messages = messages if isinstance(messages, list) else []
        params = params if isinstance(params, dict) else {}
        rng = random.Random(request_seed(model, messages, params, sample_index))
        request = cls(model=model, messages=messages, params=params, rng=rng)
        all_texts = []
        for message in messages:
            texts, urls = _message_parts(message)
            all_texts.extend(texts)
            request.image_urls.extend(urls)
            if isinstance(message, dict) and message.get("role") == "user":
                request.last_user_text = "\n".join(texts)
        request.all_text = "\n".join(all_texts)
        return request

    def setting(self, name: str) -> float:
        """A behaviour setting from params (default if missing or not a number), clamped."""
        default = DEFAULT_SETTINGS[name]
        try:
            value = float(self.params.get(name, default))
        except (TypeError, ValueError):
            value = default
        if value != value:  # NaN
            value = default
        low, high = SETTING_RANGES[name]
        return max(low, value) if high is None else min(high, max(low, value))
