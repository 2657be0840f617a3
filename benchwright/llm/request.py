"""The request an LLM call is made from, and the cache key derived from it."""

from __future__ import annotations

import base64
import hashlib
import binascii
import json
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from benchwright.images import DataURL, ImageRef

# Parameters that carry credentials or transport details: they never enter the key (nor the cache).
_NOT_IN_KEY = frozenset({"api_key", "api_base", "base_url", "extra_headers", "headers"})

# "data:[<media type>][;param]*[;base64]," -- strict enough that prose such as "data: 1,2" is not taken.
_DATA_URL = re.compile(r"^data:(?:[\w.+-]+/[\w.+-]+)?(?:;[\w.+-]+(?:=[\w.+-]+)?)*,")


@dataclass(frozen=True)
class LLMRequest:
    model: str  # litellm model string: "openai/gpt-4o", "anthropic/...", or "sim/<name>"
    messages: list[dict]  # OpenAI chat format; images in image_url parts, as data URLs or ImageRefs (`sendable`)
    params: dict = field(default_factory=dict)  # temperature, max_tokens, ... (sim models: skill, ...)
    prompt_version: str = ""
    sample_index: int = 0  # N samples of one prompt are N distinct cache keys
    api_base: str | None = None
    tag: str = ""  # free text for logs/progress (e.g. item id); not part of the key


def data_url_digest(url: str) -> str:
    """sha256 of the bytes a data: URL carries, so the key depends on the image, not on its encoding."""
    header, _, payload = url.partition(",")
    if header.endswith(";base64"):
        raw = base64.b64decode(payload)
    else:
        raw = urllib.parse.unquote_to_bytes(payload)
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _canonical(value: Any) -> Any:
    # Replace every data: URL (wherever it sits in a message) by the hash of its decoded bytes; a picture not
    # read yet (ImageRef) by the stored hash of those bytes, the same key its data URL has.
    if isinstance(value, ImageRef):
        return value.digest
    if isinstance(value, str):
        if isinstance(value, DataURL):  # hashed when it was made
            return value.digest
        if _DATA_URL.match(value):
            try:
                return data_url_digest(value)
            except (binascii.Error, ValueError):
                return value  # not decodable: the text itself is as stable a key as any
        return value
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def canonical_request(req: LLMRequest) -> dict:
    return {
        "model": req.model,
        "messages": _canonical(req.messages),
        "params": {k: _canonical(v) for k, v in req.params.items() if k not in _NOT_IN_KEY},
        "prompt_version": req.prompt_version,
        "sample_index": int(req.sample_index),
    }


def request_key(req: LLMRequest) -> str:
    """sha256 hex of the canonical request (sorted keys, compact JSON). Not api_base, not tag, no secrets."""
    # No default= fallback: an unserializable parameter must fail loudly rather than hash unstably.
    text = json.dumps(canonical_request(req), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sendable(messages: list[dict]) -> list[dict]:
    """The messages as a provider (or the simulator) takes them: every ImageRef read and encoded as its data URL.
    Called as each request is sent, so only the calls in flight hold pictures; messages without one are returned
    as they are, not copied."""
    return _resolved(messages)


def _resolved(value: Any) -> Any:
    if isinstance(value, ImageRef):
        return value.data_url()
    if isinstance(value, dict):
        copy = None
        for k, v in value.items():
            new = _resolved(v)
            if new is not v:
                copy = dict(value) if copy is None else copy
                copy[k] = new
        return value if copy is None else copy
    if isinstance(value, list):
        items = [_resolved(v) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else items
    return value
