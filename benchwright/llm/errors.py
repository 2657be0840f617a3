"""What a failed call says: whether to ask again within the run, how long the provider asked us to wait, and
the text the journal keeps. Shared by the runner (its retry rule) and the back ends (their errors)."""

from __future__ import annotations

import asyncio
import email.utils
import os
import time


class Malformed(Exception):
    """The provider answered 200 but the body is not a usable completion."""


class NoContent(Exception):
    """The provider answered 200 with no text (a refusal, a content filter, only tool calls).

    Not an empty answer: the call is journalled as an error, never cached as a success, and the next
    run asks again. Not retried within the run, since the same request usually meets the same filter.
    """


class BatchLineError(Exception):
    """A request of a provider batch came back without an answer (an error line, or the batch ended first)."""


class FailedInHelper(Exception):
    """An attempt that failed in the call helper process (call_helper.py), as that process judged it: its
    description, HTTP status, the wait the provider asked for and whether to ask again. The provider's own exception
    does not cross processes (it holds its HTTP response); these are what the runner reads of it."""

    def __init__(self, description: str, status_code: int | None, retry_after: float | None, retryable: bool):
        super().__init__(description)
        self.description, self.status_code = description, status_code
        self.retry_after, self.retryable = retry_after, retryable

    def __reduce__(self):
        return type(self), (self.description, self.status_code, self.retry_after, self.retryable)


def scrub(text: str) -> str:
    """Error text goes to the journal: strip anything that looks like a credential from the environment."""
    for name, value in os.environ.items():
        upper = name.upper()
        if len(value) >= 8 and ("KEY" in upper or "TOKEN" in upper or "SECRET" in upper) and value in text:
            text = text.replace(value, "***")
    return text


def describe(err: BaseException) -> str:
    if isinstance(err, FailedInHelper):
        return err.description
    text = f"{type(err).__name__}: {err}".strip()
    return scrub(text)[:2000]


def retry_after_s(err: BaseException) -> float | None:
    """Seconds a provider asked us to wait, from the error's response headers, if any.

    litellm keeps the provider's headers on ``err.litellm_response_headers`` (its own
    ``err.response`` is rebuilt and may carry none); ``err.response.headers`` and ``err.headers``
    are read as fallbacks.
    """
    if isinstance(err, FailedInHelper):
        return err.retry_after
    candidates = (
        getattr(err, "litellm_response_headers", None),
        getattr(getattr(err, "response", None), "headers", None),
        getattr(err, "headers", None),
    )
    for headers in candidates:
        if not headers:
            continue
        try:
            lower = {str(k).lower(): str(v) for k, v in headers.items()}
        except AttributeError:
            continue
        if "retry-after-ms" in lower:
            try:
                return max(0.0, float(lower["retry-after-ms"]) / 1000)
            except ValueError:
                pass
        value = lower.get("retry-after")
        if value:
            try:
                return max(0.0, float(value))
            except ValueError:
                try:  # the HTTP-date form
                    when = email.utils.parsedate_to_datetime(value)
                    return max(0.0, when.timestamp() - time.time())
                except (TypeError, ValueError):
                    pass
    return None


def is_retryable(err: BaseException) -> bool:
    if isinstance(err, FailedInHelper):
        return err.retryable
    if isinstance(err, (asyncio.TimeoutError, TimeoutError, Malformed, ConnectionError)):
        return True
    status = getattr(err, "status_code", None)
    if isinstance(status, int):
        # 408 timeout, 409/425 transient conflicts, 429 rate limit, 5xx (litellm maps connection
        # errors and unparseable bodies to 500). 400/401/403/404/422 will not get better by waiting.
        return status in (408, 409, 425, 429) or status >= 500
    try:
        import httpx

        return isinstance(err, httpx.TransportError)
    except ImportError:  # pragma: no cover - httpx ships with litellm
        return False
