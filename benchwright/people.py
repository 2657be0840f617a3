"""Who is playing or annotating: a chosen handle and a per-person secret token.

The handle is what the logs and the leaderboard show, so it must not be personal data: letters,
digits and `_ . -` only (no spaces, no `@`), nothing our PII detector flags and no run of 7+ digits.
The token is shown to its owner once; only its sha256 is stored, and it never reaches a log.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import unicodedata

from benchwright.pii import find_pii

HANDLE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{1,31}")
TOKEN_BYTES = 24
# A signed-in browser is signed out after this long at the latest (then the token is asked again), so a
# forgotten or copied cookie does not work for ever; logout and a new token end it at once.
LOGIN_MAX_AGE_S = 30 * 24 * 3600


def validate_handle(handle: object) -> str:
    """The handle, or ValueError saying what is wrong with it."""
    if not isinstance(handle, str) or not HANDLE.fullmatch(handle.strip()):
        raise ValueError("a name is 2 to 32 characters: a letter first, then letters, digits, '_', '.' or '-'")
    handle = handle.strip()
    # The detector reads prose, so look at the handle with its separators as spaces; a long run of
    # digits is refused outright (a phone number written without separators).
    if find_pii(re.sub(r"[._-]", " ", handle)) or re.search(r"\d{7,}", handle):
        raise ValueError("that name looks like personal data; choose a nickname")
    return handle


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: object, digest: str) -> bool:
    """Constant-time comparison, so response times do not leak how much of a token was right."""
    if not isinstance(token, str) or len(token) > 200:
        return False
    return hmac.compare_digest(token_digest(token.strip()), digest)


def clean_text(text: object, *, what: str, max_chars: int, min_chars: int = 1) -> str:
    """Free text a person typed: trimmed, one line, printable, within the length limits; else ValueError."""
    if not isinstance(text, str):
        raise ValueError(f"{what} is missing")
    text = " ".join(text.split())     # newlines and runs of spaces become one space
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in text):
        raise ValueError(f"{what} contains control or unassigned characters")
    if len(text) < min_chars:
        raise ValueError(f"{what} is too short (at least {min_chars} characters)")
    if len(text) > max_chars:
        raise ValueError(f"{what} is too long (at most {max_chars} characters)")
    return text
