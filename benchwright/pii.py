"""Find and mask personal information (PII) in free text: prompts, generations, judge outputs.

The detectors are regular expressions backed by checksums or structural checks where one exists.
They favour precision: ordinary model prose — years, prices, version numbers, scores such as 7/10,
clock times, ISO dates, decimals, ``[[A>B]]`` verdicts — must not be flagged, because a false
positive either blocks a pipeline (residual-PII check) or mangles a judged answer.

Rules, by kind (earlier kinds win when two matches overlap):

- ``email``: ``local@domain.tld`` with a letters-only top-level domain of two or more characters.
- ``national_id``:
  - US SSN written ``ddd-dd-dddd`` (dashes required); area 000, 666 and 900-999, group 00 and
    serial 0000 are never issued and are not flagged.
  - Chinese resident ID: 17 digits plus a digit or X, with a real birth date (YYYYMMDD, 1900-2099)
    at positions 7-14 and a valid ISO 7064 MOD 11-2 check character.
  - UK National Insurance number: two letters, six digits, a suffix A-D, optional spaces
    (``AB 12 34 56 C``); letters D, F, I, Q, U, V never appear in the prefix, O never second, and
    the prefixes BG, GB, KN, NK, NT, TN, ZZ are not allocated. Upper case only.
- ``payment_card``: 13-19 digits, optionally separated by single spaces or dashes, first digit
  2-6 (the card networks' ranges; this keeps 13-digit millisecond timestamps out), not all the same
  digit, and a valid Luhn checksum.
- ``ip_address``:
  - IPv4: exactly four dotted octets 0-255 without leading zeros, not part of a longer dotted
    number. A four-part version string such as ``1.2.3.4`` is indistinguishable from an address
    and IS flagged when every part is <= 255; three-part versions (``1.2.3``) never are.
  - IPv6: a run of hex digits and colons that the standard library accepts as an IPv6 address
    (full or ``::``-compressed), that contains a digit and has at least three non-empty groups
    (so ``12:30``, ``12:30:45``, ``fe80::1``, ``::1`` and words like ``Bad::Face`` are not flagged).
- ``phone`` (9-15 digits in total, never directly attached to other digits):
  - international: ``+`` and a 1-3 digit country code, then groups separated by a space, dot or
    dash, e.g. ``+1 415-555-0132``, ``+44 20 7946 0958``, ``+86 138 0013 8000``, ``+14155550132``;
  - national with separators: an area group of 2-5 digits (optionally in parentheses), a 3-4
    digit group and a final 4-digit group, e.g. ``(415) 555-0132``, ``415.555.0132``,
    ``020 7946 0958``;
  - Chinese mobile written without separators: ``1[3-9]`` plus nine digits (``13800138000``).
  Unseparated national numbers other than Chinese mobiles are not flagged (too close to IDs and
  counts). Three 4-digit groups (``1999-2000-2001``) do look like a phone number and are flagged.
- ``street_address``: a house number (up to 5 digits, optional letter: ``221B``), one to four
  capitalised words or ordinals (``5th``), then a street suffix: Street, St, Avenue, Ave, Road,
  Rd, Boulevard, Blvd, Lane, Ln, Drive, Dr, Court, Ct, Way. Not flagged when the number follows
  "the", "all", "top", "these", "those", "in", "since", "until" or "by", so that "the 9 Supreme
  Court justices" and "in 1969 Abbey Road ..." stay untouched. The trailing abbreviation dot is
  left outside the match (it usually ends the sentence).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from datetime import date
from typing import Iterable, Iterator

KINDS = ("email", "national_id", "payment_card", "ip_address", "phone", "street_address")
_PRIORITY = {kind: i for i, kind in enumerate(KINDS)}

MAX_EXAMPLES = 10
_EXAMPLES_PER_KIND = 3
_EXCERPT_CONTEXT = 30


@dataclass(frozen=True)
class PIIFinding:
    kind: str
    start: int
    end: int


# --- email ---------------------------------------------------------------------------------

_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}(?![\w-])"
)

# --- national IDs --------------------------------------------------------------------------

_SSN = re.compile(r"(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])")
_CN_ID = re.compile(r"(?<![\w.-])\d{17}[\dXx](?![\w-])")
_CN_WEIGHTS = [2 ** (17 - i) % 11 for i in range(17)]
_CN_CHECK = "10X98765432"  # check character indexed by (weighted sum mod 11)
_UK_NINO = re.compile(
    r"\b(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r" ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"
)

# --- payment cards -------------------------------------------------------------------------

# Separators are single spaces or dashes between digits; the lookarounds keep the match from
# starting or ending inside a longer number (including a decimal or a separated digit group).
_CARD = re.compile(r"(?<![\w.,+-])(?<!\d[ -])(?:\d[ -]?){12,18}\d(?![\w-]|[.,]\d|[ ]\d)")

# --- IP addresses --------------------------------------------------------------------------

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = re.compile(rf"(?<![\w.])(?:{_OCTET}\.){{3}}{_OCTET}(?![\w]|\.\d)")
_IPV6_CANDIDATE = re.compile(r"(?<![\w:.])[0-9A-Fa-f:]{2,39}(?![\w:])")

# --- phones --------------------------------------------------------------------------------

# Shared guards: no word character or '+' right before, and no digit group glued on either side.
_PHONE_BEFORE = r"(?<![\w+.-])(?<!\d[ .-])"
_PHONE_AFTER = r"(?![\w]|[ .-]\d)"
_PHONE_PATTERNS = [
    re.compile(
        _PHONE_BEFORE
        + r"\+\d{1,3}(?:[ .-]?(?:\(\d{1,4}\)|\d{1,4}))?(?:[ .-]?\d{2,5}){1,5}"
        + _PHONE_AFTER
    ),
    re.compile(_PHONE_BEFORE + r"(?:\(\d{2,5}\)[ .-]?|\d{2,5}[ .-])\d{3,4}[ .-]\d{4}" + _PHONE_AFTER),
    re.compile(_PHONE_BEFORE + r"1[3-9]\d{9}" + _PHONE_AFTER),
]
_MIN_PHONE_DIGITS, _MAX_PHONE_DIGITS = 9, 15

# --- street addresses ----------------------------------------------------------------------

_STREET_SUFFIX = r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way)"
_STREET = re.compile(
    r"(?<![\w.,$/-])(\d{1,5}[A-Za-z]?)"
    r"(?: (?:[A-Z][A-Za-z'-]*|\d{1,3}(?:st|nd|rd|th))){1,4}? " + _STREET_SUFFIX + r"\b"
)
_NOT_BEFORE_HOUSE_NUMBER = {"the", "all", "top", "these", "those", "in", "since", "until", "by"}
_PREVIOUS_WORD = re.compile(r"([A-Za-z]+)\s+$")


# --- validators ----------------------------------------------------------------------------


def _digits(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit())


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_ok(raw: str) -> bool:
    digits = _digits(raw)
    return (
        13 <= len(digits) <= 19
        and digits[0] in "23456"
        and len(set(digits)) > 1
        and _luhn_ok(digits)
    )


def _cn_id_ok(raw: str) -> bool:
    try:
        date(int(raw[6:10]), int(raw[10:12]), int(raw[12:14]))
    except ValueError:
        return False
    if not 1900 <= int(raw[6:10]) <= 2099:
        return False
    total = sum(int(ch) * w for ch, w in zip(raw[:17], _CN_WEIGHTS))
    return _CN_CHECK[total % 11] == raw[17].upper()


def _ipv6_ok(raw: str) -> bool:
    if raw.count(":") < 2 or not any(ch.isdigit() for ch in raw):
        return False
    if sum(1 for group in raw.split(":") if group) < 3:
        return False
    try:
        ipaddress.IPv6Address(raw)
    except ValueError:
        return False
    return True


def _house_number_ok(text: str, start: int) -> bool:
    before = _PREVIOUS_WORD.search(text, max(0, start - 20), start)
    return not (before and before.group(1).lower() in _NOT_BEFORE_HOUSE_NUMBER)


# --- detection -----------------------------------------------------------------------------


def _candidates(text: str) -> Iterator[PIIFinding]:
    for m in _EMAIL.finditer(text):
        yield PIIFinding("email", m.start(), m.end())
    for m in _SSN.finditer(text):
        yield PIIFinding("national_id", m.start(), m.end())
    for m in _CN_ID.finditer(text):
        if _cn_id_ok(m.group()):
            yield PIIFinding("national_id", m.start(), m.end())
    for m in _UK_NINO.finditer(text):
        yield PIIFinding("national_id", m.start(), m.end())
    for m in _CARD.finditer(text):
        if _card_ok(m.group()):
            yield PIIFinding("payment_card", m.start(), m.end())
    for m in _IPV4.finditer(text):
        yield PIIFinding("ip_address", m.start(), m.end())
    for m in _IPV6_CANDIDATE.finditer(text):
        if _ipv6_ok(m.group()):
            yield PIIFinding("ip_address", m.start(), m.end())
    for pattern in _PHONE_PATTERNS:
        for m in pattern.finditer(text):
            if _MIN_PHONE_DIGITS <= len(_digits(m.group())) <= _MAX_PHONE_DIGITS:
                yield PIIFinding("phone", m.start(), m.end())
    for m in _STREET.finditer(text):
        if _house_number_ok(text, m.start()):
            yield PIIFinding("street_address", m.start(), m.end())


def find_pii(text: str | None) -> list[PIIFinding]:
    """All PII spans in ``text``, sorted by start and non-overlapping.

    Where two detectors match overlapping text, the kind listed earlier in ``KINDS`` wins (so a
    valid card or ID number is never also reported as a phone), then the earlier, longer match.
    """
    if not text:
        return []
    ranked = sorted(_candidates(text), key=lambda f: (_PRIORITY[f.kind], f.start, f.start - f.end))
    kept: list[PIIFinding] = []
    for f in ranked:
        if all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(f)
    return sorted(kept, key=lambda f: f.start)


def _placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _redact_spans(text: str, findings: list[PIIFinding]) -> tuple[str, list[tuple[int, int]]]:
    """Redacted text plus where each placeholder landed in it (same order as ``findings``)."""
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = out_len = 0
    for f in findings:
        parts.append(text[pos : f.start])
        out_len += f.start - pos
        token = _placeholder(f.kind)
        parts.append(token)
        spans.append((out_len, out_len + len(token)))
        out_len += len(token)
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts), spans


def redact(text: str | None) -> tuple[str | None, list[PIIFinding]]:
    """Replace every finding by ``[REDACTED:<kind>]``; findings refer to the original text.

    None stays None. Placeholders contain no digits, '@' or capitalised street words, so
    redacting already-redacted text finds nothing new.
    """
    if text is None:
        return None, []
    findings = find_pii(text)
    if not findings:
        return text, []
    redacted, _ = _redact_spans(text, findings)
    return redacted, findings


def scan_texts(rows: Iterable[tuple[str, str]]) -> dict:
    """Count PII over (location, text) pairs, for the residual-PII check's metadata.

    Examples are cut from the *redacted* text around each finding, so they show where the PII sits
    without revealing it (or any other PII nearby). At most 10 examples, at most 3 per kind so that
    one noisy kind does not hide the others.
    """
    by_kind: dict[str, int] = {}
    examples: list[dict] = []
    for location, text in rows:
        findings = find_pii(text)
        if not findings:
            continue
        redacted, spans = _redact_spans(text, findings)
        for f, (start, end) in zip(findings, spans):
            by_kind[f.kind] = by_kind.get(f.kind, 0) + 1
            shown = sum(1 for e in examples if e["kind"] == f.kind)
            if len(examples) < MAX_EXAMPLES and shown < _EXAMPLES_PER_KIND:
                lo, hi = max(0, start - _EXCERPT_CONTEXT), end + _EXCERPT_CONTEXT
                excerpt = ("…" if lo > 0 else "") + redacted[lo:hi] + ("…" if hi < len(redacted) else "")
                examples.append({"location": location, "kind": f.kind, "masked": excerpt})
    ordered = {kind: by_kind[kind] for kind in KINDS if kind in by_kind}
    return {"total": sum(ordered.values()), "by_kind": ordered, "examples": examples}
