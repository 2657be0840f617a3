"""litellm, loaded once and lazily, and where a model's calls go.

Its own module so that the provider limits (`providers.py`), the registry and the back ends (`backends/`) can
reach litellm without importing the runner.
"""

from __future__ import annotations

import os
from typing import Any

# Sent only to a self-hosted OpenAI-compatible server (api_base set) when no OPENAI_API_KEY exists:
# the OpenAI client refuses to start without some key.
NOAUTH_KEY = "sk-noauth"


def load_litellm() -> Any:
    # Imported lazily: it costs seconds, and without the local cost map it would fetch one at import.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True  # no "Give Feedback" banners on stdout for every error
    return litellm


def keyless_server(model: str, api_base: str | None) -> bool:
    """An `openai/` model with its own api_base: a self-hosted OpenAI-compatible server, which is sent a placeholder
    key when OPENAI_API_KEY is not set, so it needs none from the environment."""
    return bool(api_base) and model.startswith("openai/")


def endpoint_kwargs(model: str, api_base: str | None, params: dict) -> dict[str, Any]:
    """Where litellm sends a model's calls: its api_base, if any, and the placeholder key a self-hosted
    OpenAI-compatible server needs when no OPENAI_API_KEY is set."""
    kwargs: dict[str, Any] = {}
    if api_base:
        kwargs["api_base"] = api_base
        if keyless_server(model, api_base) and not os.environ.get("OPENAI_API_KEY") and "api_key" not in params:
            kwargs["api_key"] = NOAUTH_KEY
    return kwargs
