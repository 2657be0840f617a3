"""Find and mask personal information (PII) in free text: prompts, generations, judge outputs,
game logs, annotators' files.

Well-kept libraries do the deciding wherever one exists: ``phonenumbers`` (Google's libphonenumber
data, every region) finds and validates phone numbers, ``python-stdnum`` checks the checksums and
formats of IBANs, payment cards (Luhn), US SSNs, Chinese resident IDs, French NIRs, Spanish DNIs and
Italian fiscal codes, and the standard library's ``ipaddress`` IP addresses. Our own patterns remain
only where no library fits: e-mail addresses, UK National Insurance numbers and street addresses.
Every finding records which detector matched (``PIIFinding.detector``).
They favour precision: ordinary model prose — years, prices, version numbers, scores such as 7/10,
clock times, ISO dates, decimals, ``[[A>B]]`` verdicts — must not be flagged, because a false
positive either blocks a pipeline (residual-PII check) or mangles a judged answer.

Rules, by kind (earlier kinds win when two matches overlap):

- ``email``: ``local@domain.tld`` with a letters-only top-level domain of two or more characters;
  the local part may hold any letters (``josé.müller@…``, ``用户@…``).
- ``iban``: two letters, two check digits and 11-30 letters or digits, compact or in groups of four
  separated by single spaces, in either case; valid when ``stdnum.iban`` accepts it (country length
  and MOD 97-10).
- ``national_id``:
  - US SSN written ``ddd-dd-dddd`` or ``ddd dd dddd`` (a separator required: nine bare digits are
    anything), valid for ``stdnum.us.ssn`` (never-issued areas, groups, serials and the known
    advertising numbers are refused).
  - US SSN named as one (detector ``context.us_ssn``): a 3-2-4 number (``ddd-dd-dddd``, ``ddd dd dddd``
    or nine digits together) within 24 characters after "SSN", "SS#", "SS No.", "social security (number)",
    "soc. sec." or "ITIN", with no digit or sentence end between, or right before "(SSN)", is
    personal data whatever stdnum says: a number someone calls their SSN is theirs, or a real one
    mistyped (``SSN 078-05-1120``, ``SSN: 219-09-9999``). Without such a label stdnum decides alone.
  - Chinese resident ID: 18 characters valid for ``stdnum.cn.ric`` (birth date, check character).
  - French NIR (social security number, 15 digits, spaces allowed), valid for ``stdnum.fr.nir``.
  - Spanish DNI (8 digits and a check letter), valid for ``stdnum.es.dni``.
  - Italian codice fiscale (16 characters), valid for ``stdnum.it.codicefiscale``.
  - UK National Insurance number: two letters, six digits, a suffix A-D, optional spaces
    (``AB 12 34 56 C``); letters D, F, I, Q, U, V never appear in the prefix, O never second, and
    the prefixes BG, GB, KN, NK, NT, TN, ZZ are not allocated. Upper case only.
- ``payment_card``: 13-19 digits, optionally separated by single spaces or dashes, starting with a
  card network's issuer prefix at that network's length (``_CARD_RANGES``: Visa 4, Mastercard 51-55
  and 2221-2720, Amex 34/37 at 15 digits, ...; this keeps millisecond timestamps and 14-digit
  date-time stamps out), not all the same digit, and a valid Luhn checksum (``stdnum.luhn``).
- ``ip_address``:
  - IPv4: exactly four dotted octets 0-255 without leading zeros, not part of a longer dotted
    number, and not 0.0.0.0 or a loopback 127.x.x.x (in code and server set-ups, naming no one's
    network). A bare four-part version such as ``1.2.3.4`` is indistinguishable from an address
    and IS flagged when every part is <= 255, unless it follows "version", "release", "build" or
    "ver"; three-part versions (``1.2.3``) never are.
  - IPv6: a run of hex digits and colons that the standard library accepts as an IPv6 address
    (full or ``::``-compressed), that contains a digit and has at least three non-empty groups
    (so ``12:30``, ``12:30:45``, ``fe80::1``, ``::1`` and words like ``Bad::Face`` are not flagged).
- ``phone``: ``phonenumbers.PhoneNumberMatcher`` at leniency VALID, so a number counts only when
  libphonenumber's data for its region says it can be dialled (POSSIBLE would take any digit run
  of a plausible length; STRICT_GROUPING and EXACT_GROUPING refuse numbers grouped other than the
  region's own style, such as ``+33 612 345 678`` or ``06 1234 5678``, and personal data must be
  found however it is typed). Our own rules below then decide how a national number must be
  written:
  - international form (``+33 6 12 34 56 78``, ``+1 415-555-0132``): any region; also after one of
    ``PHONE_REGIONS``' exit codes (``0033 6 12 34 56 78``, ``011 33 6 12 34 56 78``);
  - national form, read as a number of one of ``PHONE_REGIONS`` (where our users and data come
    from: EU countries, the UK, the US and Canada, China, India, Japan, Brazil, Australia): it must
    be written like a phone number, in digit groups separated by spaces, dashes, dots, slashes or
    parentheses (``06 12 34 56 78``, ``06.12.34.56.78``, ``(415) 555-0132``, ``415.555.0132``,
    ``020 7946 0958``, ``0176/12345678``; groups of two digits or more, after a trunk prefix 0 or an
    area code in parentheses (three digits, or starting with 0), or as North American 3-3-4 (also
    after a 1: ``1-800-555-0199``), Spanish/Italian/Polish 3-3-3, Spanish 3-2-2-2 or 2-3-2-2) or as
    one unseparated number that starts with the trunk prefix 0 (``0612345678``) or is a Chinese
    mobile (``13800138000``), with at least 8 digits. Bare digit runs without a 0 (order numbers,
    timestamps), decimals, dates, the SSN's 3-2-4 grouping, a year in parentheses, digits that run
    on into a clock time (``May 09 2023 10:35``) and numbers right after ISBN, order, invoice,
    ref(erence), ticket, tracking or patent are not phones.
  A number with an extension that libphonenumber reads (``415-555-0134 ext. 12``, ``(415) 555-0134 ext 12``,
  ``x12``) is judged by the number alone and masked with its extension.
  Texts with fewer than 7 digits are not searched (no phone number is that short), which keeps the
  matcher off most text; each region's national forms are looked for only in the lines of a text that hold
  a plus sign or 8 digits in a row (at most 4 spaces, dashes, dots, slashes or brackets between two), where a
  number we keep can be.
- ``street_address``: a house number (up to 5 digits, optional letter: ``221B``), one to four
  capitalised words or ordinals (``5th``), then a street suffix: Street, St, Avenue, Ave, Road,
  Rd, Boulevard, Blvd, Lane, Ln, Drive, Dr, Court, Ct, Way. Not flagged when the number follows
  "the", "all", "top", "these", "those", "in", "since", "until" or "by", so that "the 9 Supreme
  Court justices" and "in 1969 Abbey Road ..." stay untouched. The trailing abbreviation dot is
  left outside the match (it usually ends the sentence).
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable, Iterator

import phonenumbers
from phonenumbers.phonenumberutil import _VALID_PUNCTUATION  # between digit groups
from stdnum import iban, luhn
from stdnum.cn import ric as cn_ric
from stdnum.es import dni as es_dni
from stdnum.fr import nir as fr_nir
from stdnum.it import codicefiscale as it_codicefiscale
from stdnum.us import ssn as us_ssn

KINDS = ("email", "iban", "national_id", "payment_card", "ip_address", "phone", "street_address")
_PRIORITY = {kind: i for i, kind in enumerate(KINDS)}

MAX_EXAMPLES = 10
_EXAMPLES_PER_KIND = 3
_EXCERPT_CONTEXT = 30


@dataclass(frozen=True)
class PIIFinding:
    kind: str
    start: int
    end: int
    detector: str = ""  # what decided: e.g. "phonenumbers", "stdnum.iban", "regex.email"


# --- email ---------------------------------------------------------------------------------

_EMAIL = re.compile(
    r"(?<![\w.%+-])[^\W_][\w.%+-]*@"
    # The domain may run into an id's suffix (``jean@exemple.fr-1`` as a session id), never into more name.
    r"(?:[^\W_](?:[\w-]*[^\W_])?\.)+[^\W\d_]{2,}(?!\w|-[^\W\d_])"
)

# --- national IDs --------------------------------------------------------------------------

# Dashes or single spaces, the same separator twice (``123-45-6789``, ``123 45 6789``).
_SSN = re.compile(r"(?<![\w-])\d{3}([- ])\d{2}\1\d{4}(?![\w-])")

# A 3-2-4 number named an SSN (also nine digits together), and the names: before it, with at most 24
# characters between that hold no digit and end no sentence, or "(SSN)" right after it.
_SSN_NAMED = re.compile(r"(?<![\w-])\d{3}([- ]?)\d{2}\1\d{4}(?![\w-])")
_SSN_LABEL = (r"(?:SSNs?|SS ?#|SS ?No\.?|social[ -]security(?: (?:number|no\.?|#))?"
              r"|soc\. ?sec\.?(?: (?:number|no\.?|#))?|ITIN)")
_SSN_LABEL_BEFORE = re.compile(rf"\b{_SSN_LABEL}(?!\w)[^\d.!?\n]{{0,24}}$", re.IGNORECASE)
_SSN_LABEL_AFTER = re.compile(r"\s*[(\[]\s*(?:SSN|social security(?: number)?|ITIN)\s*[)\]]", re.IGNORECASE)

_CN_ID = re.compile(r"(?<![\w.-])\d{17}[\dXx](?![\w-])")
_FR_NIR = re.compile(r"(?<![\w.-])[12] ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}(?![\w-])")
_ES_DNI = re.compile(r"(?<![\w.-])\d{8}-?[A-Z](?![\w-])")
_IT_CF = re.compile(r"(?<![\w-])[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z](?![\w-])")
_UK_NINO = re.compile(
    r"\b(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r" ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"
)
# National IDs with a library check: (pattern, stdnum validity test, detector name). stdnum's SSN
# module reads the dashed and compact forms only, so a spaced SSN is checked in its dashed form.
_CHECKED_IDS = [(_SSN, lambda raw: us_ssn.is_valid(raw.replace(" ", "-")), "stdnum.us.ssn"),
                (_CN_ID, cn_ric.is_valid, "stdnum.cn.ric"), (_FR_NIR, fr_nir.is_valid, "stdnum.fr.nir"),
                (_ES_DNI, es_dni.is_valid, "stdnum.es.dni"), (_IT_CF, it_codicefiscale.is_valid, "stdnum.it.codicefiscale")]

# --- IBAN ----------------------------------------------------------------------------------

# Either case: stdnum compares upper-cased, and people do type ``de89 3704 ...``.
_IBAN = re.compile(r"(?<![\w-])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]{4}){2,7}(?: ?[A-Za-z0-9]{1,4})?(?![\w-])")

# --- payment cards -------------------------------------------------------------------------

# Separators are single spaces or dashes between digits; the lookarounds keep the match from
# starting or ending inside a longer number (including a decimal or a separated digit group).
_CARD = re.compile(r"(?<![\w.,+-])(?<!\d[ -])(?:\d[ -]?){12,18}\d(?![\w-]|[.,]\d|[ ]\d)")
# The card networks' issuer prefixes and card lengths: (lowest prefix, highest prefix, lengths). A
# Luhn-valid run of digits outside them (a 14-digit date-time stamp such as 20240517123045, an
# account or parcel number) is not a card. Visa, Mastercard (old and 2-series), American Express,
# Diners, Discover, UnionPay, JCB, Maestro, Mir.
_ANY = range(13, 20)
_CARD_RANGES = (("4", "4", (13, 16, 19)), ("51", "55", (16,)), ("2221", "2720", (16,)), ("34", "34", (15,)),
                ("37", "37", (15,)), ("300", "305", _ANY), ("36", "36", _ANY), ("38", "39", _ANY),
                ("6011", "6011", _ANY), ("644", "649", _ANY), ("65", "65", _ANY), ("62", "62", _ANY),
                ("3528", "3589", _ANY), ("50", "50", _ANY), ("56", "58", _ANY), ("63", "63", _ANY),
                ("67", "67", _ANY), ("2200", "2204", _ANY))

# --- IP addresses --------------------------------------------------------------------------

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = re.compile(rf"(?<![\w.])(?:{_OCTET}\.){{3}}{_OCTET}(?![\w]|\.\d)")
# "version 4.2.0.1", "build: 10.0.1.2": a four-part version named as such is not an address.
_VERSION_LABEL = re.compile(r"(?:\bversion|\brelease|\bbuild|\bver)\.?:?\s*$", re.IGNORECASE)
_IPV6_CANDIDATE = re.compile(r"(?<![\w:.])[0-9A-Fa-f:]{2,39}(?![\w:])")

# --- phones --------------------------------------------------------------------------------

# Regions whose national number formats are tried (international "+" numbers need none: every region's
# data is used for them). Where our users and datasets come from; add a region here to cover it.
PHONE_REGIONS = ("US", "CA", "GB", "IE", "FR", "DE", "AT", "CH", "BE", "NL", "LU", "ES", "PT", "IT", "DK", "SE",
                 "NO", "FI", "PL", "CZ", "GR", "CN", "IN", "JP", "BR", "AU")
_ANY_DIGIT = re.compile(r"\d")
_ENOUGH_DIGITS = re.compile(r"(?:\d\D{0,3}){7}")
# An area code in parentheses is North American (3 digits) or starts with the trunk 0 (``(030)``), so a
# year in a citation, "(2019) 123-145", is not one. Groups are separated by spaces, dashes, dots or
# the German slash (``0176/12345678``).
_AREA = r"\((?:0\d+|\d{3})\)"
_NATIONAL_GROUPED = re.compile(rf"^(?:{_AREA}|\d{{2,}})(?:(?:[ \-]+|[./])(?:{_AREA}|\d{{2,}}))+$|^{_AREA}\d+(?:-\d+)?$")
# Shapes that are something else: ISO and day-month dates, and the US SSN's 3-2-4 grouping.
_NOT_A_PHONE = re.compile(r"^(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{3}-\d{2}-\d{4})$")
_MIN_NATIONAL_DIGITS = 8
# How national numbers are written: after a trunk prefix 0 or an area code in parentheses (most of
# Europe, the UK, China), the North American 3-3-4 (also after a long-distance 1: ``1-800-555-0199``),
# the 3-3-3 of Spanish, Italian and Polish mobiles, or Spain's 3-2-2-2 and 2-3-2-2.
# Other digit groupings (``67 390 000``, ``2024-000123``) are counts and reference numbers.
_NATIONAL_SHAPE = re.compile(r"^[0(]|^(?:1[ .-])?\d{3}[ .-]\d{3}[ .-]\d{4}$|^\d{3} \d{3} \d{3}$"
                             r"|^\d{3} \d{2} \d{2} \d{2}$|^\d{2} \d{3} \d{2} \d{2}$")
_NANP_WITH_ONE = re.compile(r"^1[ .-](?=\(?\d{3}\)?[ .-]?\d{3}[ .-]\d{4}$)")
_NATIONAL_PLAIN = re.compile(r"^(?:0\d{8,11}|1[3-9]\d{9})$")
# A number named as something else is not read as a national-format phone: "ISBN 0306406152",
# "order 0123456789", "ref: 01 23 45 67 89". (A +number is a phone whatever it is called.)
# Only these words count: "No." and "#" alone also stand before phones ("Tel. No. 06 12 34 56 78").
_NUMBER_LABEL = re.compile(r"\b(?:ISBN(?:-1[03])?|order|invoice|ref(?:erence)?|ticket|tracking|patent)"
                           r"\s*(?:number|no\.?)?\s*[:#]{0,2}\s*$", re.IGNORECASE)
_CLOCK_AFTER = re.compile(r":\d")
# What is left of a number with an extension once the extension is cut: its label (``ext.``, ``x``,
# ``extension``, ``#`` ...) and digits at the end. libphonenumber has the labels; we only cut.
_EXTENSION_TAIL = re.compile(r"[^\d)]*(\d+)$")
_IDD = (phonenumbers.CountryCodeSource.FROM_NUMBER_WITH_PLUS_SIGN, phonenumbers.CountryCodeSource.FROM_NUMBER_WITH_IDD)
# A line in which a region's pass can find a number to keep: one with a plus sign, or
# _MIN_NATIONAL_DIGITS digits with at most 4 of libphonenumber's punctuation characters between each two (how its
# candidates join digit groups; in any case, as its pattern matches). A number in national form is kept only with
# that many digits; one after an exit code has them too (two or more digits of exit code, then a country code and
# a number of at least six digits together: tests/unit/test_pii.py checks it against libphonenumber's data); any
# other is written with a plus.
_NATIONAL_LINE = re.compile(rf"[+\uFF0B]|(?:\d[{_VALID_PUNCTUATION}]{{0,4}}){{{_MIN_NATIONAL_DIGITS - 1}}}\d",
                            re.IGNORECASE)

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


def _card_ok(raw: str) -> bool:
    digits = _digits(raw)
    return (
        any(low <= digits[:len(low)] <= high and len(digits) in lengths for low, high, lengths in _CARD_RANGES)
        and len(set(digits)) > 1
        and luhn.is_valid(digits)
    )


def _phones(text: str) -> Iterator[PIIFinding]:
    if not _ENOUGH_DIGITS.search(text):
        return
    seen = set()
    for region, offset, part in _phone_passes(text):
        for match in phonenumbers.PhoneNumberMatcher(part, region, leniency=phonenumbers.Leniency.VALID):
            start, end = offset + match.start, offset + match.end
            if (start, end) not in seen and _phone_kept(text, start, end, match, region):
                seen.add((start, end))
                yield PIIFinding("phone", start, end, "phonenumbers")


def _phone_kept(text: str, start: int, end: int, match: phonenumbers.PhoneNumberMatch, region: str | None) -> bool:
    """Whether a number the matcher found at text[start:end] in `region`'s pass is one we mask: written with its
    country code, or in national form as people write phone numbers (`_national_ok`)."""
    raw = match.raw_string.strip()
    if _international(raw, region):
        return True
    number = _without_extension(raw, match.number.extension)
    return number is not None and _national_ok(number, text[max(0, start - 24):start], text[end:end + 2])


def _phone_passes(text: str) -> Iterator[tuple[str | None, int, str]]:
    """(region, offset, part of the text) for each matcher pass: the whole text for numbers written with their
    country code, then, per region of PHONE_REGIONS, only the lines that could hold a number we keep in that pass
    (`_NATIONAL_LINE`). No number spans lines (libphonenumber's candidates hold no line break, and its checks of
    the characters around a number take one as the text's edge), so a line alone gives the matcher's answer for
    the numbers in it; a number-heavy text (figures, code, tables) has most of its candidates in lines no region
    pass could keep, which every pass used to parse again."""
    yield None, 0, text
    lines, offset = [], 0
    for line in text.split("\n"):
        if _NATIONAL_LINE.search(line):
            lines.append((offset, line))
        offset += len(line) + 1
    for region in PHONE_REGIONS:
        for offset, line in lines:
            yield region, offset, line


def _without_extension(raw: str, extension: str | None) -> str | None:
    """The number as written, without the extension libphonenumber read at its end (the match, and so the
    mask, keeps it); None when the extension cannot be found there."""
    if not extension:
        return raw
    tail = _EXTENSION_TAIL.search(raw)
    if tail is None or phonenumbers.normalize_digits_only(tail.group(1)) != extension:
        return None
    return raw[:tail.start()].rstrip()


def _named_ssns(text: str) -> Iterator[PIIFinding]:
    """3-2-4 numbers called an SSN that stdnum refuses (the ones it accepts are found by stdnum)."""
    for m in _SSN_NAMED.finditer(text):
        if m.group(1) and us_ssn.is_valid(m.group().replace(" ", "-")):
            continue
        if _SSN_LABEL_BEFORE.search(text, max(0, m.start() - 64), m.start()) or _SSN_LABEL_AFTER.match(text, m.end()):
            yield PIIFinding("national_id", m.start(), m.end(), "context.us_ssn")


def _international(raw: str, region: str | None) -> bool:
    """Written with its country code: ``+33 ...``, or the region's exit code (``0033 ...``, ``011 33 ...``)."""
    if raw.startswith("+"):
        return True
    if region is None or not raw.startswith("0"):
        return False
    # The matcher's own result drops how the country code was written; parsing again keeps it.
    return phonenumbers.parse(raw, region, keep_raw_input=True).country_code_source in _IDD


def _national_ok(raw: str, before: str, after: str) -> bool:
    """Whether a number libphonenumber found valid in national form is written the way people write
    phone numbers (see the module docstring), and not named as something else or the start of a
    clock time ("May 09 2023 10:35": the matcher stops before ":35")."""
    grouped = _NANP_WITH_ONE.sub("", raw)
    return (len(_digits(raw)) >= _MIN_NATIONAL_DIGITS and not _NOT_A_PHONE.match(raw)
            and bool(_NATIONAL_GROUPED.match(grouped) and _NATIONAL_SHAPE.match(raw) or _NATIONAL_PLAIN.match(raw))
            and not _NUMBER_LABEL.search(before) and not _CLOCK_AFTER.match(after))


def _nobodys_ipv4(raw: str) -> bool:
    """0.0.0.0 (every interface) and 127.x.x.x (this machine) name no one's network."""
    address = ipaddress.IPv4Address(raw)
    return address.is_unspecified or address.is_loopback


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
    if "@" in text:
        for m in _EMAIL.finditer(text):
            yield PIIFinding("email", m.start(), m.end(), "regex.email")
    if not _ANY_DIGIT.search(text):  # every other kind holds a digit (an IPv6 address too: `_ipv6_ok`)
        return
    for m in _IBAN.finditer(text):
        if iban.is_valid(m.group()):
            yield PIIFinding("iban", m.start(), m.end(), "stdnum.iban")
    for pattern, is_valid, name in _CHECKED_IDS:
        for m in pattern.finditer(text):
            if is_valid(m.group()):
                yield PIIFinding("national_id", m.start(), m.end(), name)
    yield from _named_ssns(text)
    for m in _UK_NINO.finditer(text):
        yield PIIFinding("national_id", m.start(), m.end(), "regex.uk_nino")
    for m in _CARD.finditer(text):
        if _card_ok(m.group()):
            yield PIIFinding("payment_card", m.start(), m.end(), "stdnum.luhn")
    for m in _IPV4.finditer(text):
        if _VERSION_LABEL.search(text, max(0, m.start() - 12), m.start()) or _nobodys_ipv4(m.group()):
            continue
        yield PIIFinding("ip_address", m.start(), m.end(), "ipaddress")
    if text.count(":") >= 2:  # as an IPv6 address holds (`_ipv6_ok`)
        for m in _IPV6_CANDIDATE.finditer(text):
            if _ipv6_ok(m.group()):
                yield PIIFinding("ip_address", m.start(), m.end(), "ipaddress")
    yield from _phones(text)
    for m in _STREET.finditer(text):
        if _house_number_ok(text, m.start()):
            yield PIIFinding("street_address", m.start(), m.end(), "regex.street_address")


class _RecentScans:
    """The findings of the texts scanned last in this process, up to `max_chars` of text: a loader redacts a text and
    reports what it found, and its residual-PII check scans the same (clean) text again in the same run; the scan is
    ≈ 0.65 ms a text (URS's 3,692 questions and references ≈ 2.4 s each time). Only memory: nothing is written."""

    def __init__(self, max_chars: int):
        self.max_chars, self.chars = max_chars, 0
        self.findings: OrderedDict[str, tuple[PIIFinding, ...]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, text: str) -> tuple[PIIFinding, ...] | None:
        with self.lock:
            found = self.findings.get(text)
            if found is not None:
                self.findings.move_to_end(text)
            return found

    def put(self, text: str, found: tuple[PIIFinding, ...]) -> None:
        if len(text) > self.max_chars // 64:  # a rare long text would push out many others
            return
        with self.lock:
            if text in self.findings:
                return
            self.findings[text] = found
            self.chars += len(text)
            while self.chars > self.max_chars:
                self.chars -= len(self.findings.popitem(last=False)[0])


_RECENT = _RecentScans(max_chars=8_000_000)  # ≈ 3 times URS's 1,846 questions and references


def find_pii(text: str | None) -> list[PIIFinding]:
    """All PII spans in ``text``, sorted by start and non-overlapping.

    Where two detectors match overlapping text, the kind listed earlier in ``KINDS`` wins (so a
    valid card or ID number is never also reported as a phone), then the earlier, longer match.
    """
    if not text:
        return []
    found = _RECENT.get(text)
    if found is None:
        found = tuple(_scan(text))
        _RECENT.put(text, found)
    return list(found)


def _scan(text: str) -> list[PIIFinding]:
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
    by_detector: dict[str, int] = {}
    examples: list[dict] = []
    for location, text in rows:
        findings = find_pii(text)
        if not findings:
            continue
        masked, spans = _redact_spans(text, findings)
        for f, (start, end) in zip(findings, spans):
            by_kind[f.kind] = by_kind.get(f.kind, 0) + 1
            by_detector[f.detector] = by_detector.get(f.detector, 0) + 1
            shown = sum(1 for e in examples if e["kind"] == f.kind)
            if len(examples) < MAX_EXAMPLES and shown < _EXAMPLES_PER_KIND:
                lo, hi = max(0, start - _EXCERPT_CONTEXT), end + _EXCERPT_CONTEXT
                excerpt = ("…" if lo > 0 else "") + masked[lo:hi] + ("…" if hi < len(masked) else "")
                # The location may hold what it points at (a session id, a file name): masked as well.
                examples.append({"location": redact(location)[0], "kind": f.kind, "detector": f.detector,
                                 "masked": excerpt})
    ordered = {kind: by_kind[kind] for kind in KINDS if kind in by_kind}
    return {"total": sum(ordered.values()), "by_kind": ordered, "by_detector": dict(sorted(by_detector.items())),
            "examples": examples}


def pseudonym(identity: str | None) -> str | None:
    """An identity field (player, annotator, rater) with no personal data in it: unchanged when clean,
    else a stable stand-in ``person-<12 hex>`` derived from the value, so the same person keeps one
    key (their marks and choices still group) while the e-mail or phone itself is never stored."""
    if not identity or not find_pii(identity):
        return identity
    return "person-" + hashlib.sha256(identity.strip().lower().encode("utf-8")).hexdigest()[:12]


def redacted(text: str | None) -> str | None:
    """``text`` with every finding replaced by its placeholder (``redact`` without the findings)."""
    return redact(text)[0]
