"""Finding and masking personal data (benchwright.pii).

The corpus (POSITIVES, NEGATIVES) holds personal data in the formats people really write, each with
the kind and the library or rule that must find it, and look-alikes that must stay untouched (a
false positive blocks a pipeline or mangles an answer).
"""

import pytest

from benchwright.pii import PIIFinding, find_pii, redact, scan_texts


def spans(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in find_pii(text)]


@pytest.mark.parametrize(
    "text, kind, value",
    [
        ("Reach me at jane.doe+work@example.co.uk for details.", "email", "jane.doe+work@example.co.uk"),
        ("Contact j_smith@mail-server.org, thanks.", "email", "j_smith@mail-server.org"),
        ("Call +1 415-555-0132 after lunch.", "phone", "+1 415-555-0132"),
        ("Her desk phone is (415) 555-0132.", "phone", "(415) 555-0132"),
        ("The London office: +44 20 7946 0958.", "phone", "+44 20 7946 0958"),
        ("他的电话是 +86 138 0013 8000。", "phone", "+86 138 0013 8000"),
        ("手机号 13800138000 请回电", "phone", "13800138000"),
        ("Text +14155550132 anytime", "phone", "+14155550132"),
        ("or 415.555.0132 at home", "phone", "415.555.0132"),
        ("Paid with 4111 1111 1111 1111 yesterday.", "payment_card", "4111 1111 1111 1111"),
        ("Card: 5555-5555-5555-4444.", "payment_card", "5555-5555-5555-4444"),
        ("Card 4111111111111111 was declined.", "payment_card", "4111111111111111"),
        ("The server at 192.168.1.20 is down.", "ip_address", "192.168.1.20"),
        ("Connect to 10.0.0.1:8080 now.", "ip_address", "10.0.0.1"),
        ("IPv6 2001:db8:85a3::8a2e:370:7334 here", "ip_address", "2001:db8:85a3::8a2e:370:7334"),
        (
            "full 2001:0db8:85a3:0000:0000:8a2e:0370:7334 form",
            "ip_address",
            "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
        ),
        ("His SSN is 123-45-6789.", "national_id", "123-45-6789"),
        ("身份证号 11010519491231002X 已登记", "national_id", "11010519491231002X"),
        ("NI number AB 12 34 56 C on file", "national_id", "AB 12 34 56 C"),
        ("NI number AB123456C on file", "national_id", "AB123456C"),
        ("She lives at 221B Baker Street, London.", "street_address", "221B Baker Street"),
        ("Send it to 1600 Pennsylvania Avenue NW.", "street_address", "1600 Pennsylvania Avenue"),
        ("Office at 350 5th Avenue today", "street_address", "350 5th Avenue"),
        ("Meet at 42 Main St. tomorrow", "street_address", "42 Main St"),
    ],
)
def test_true_positives(text, kind, value):
    assert spans(text) == [(kind, value)]


@pytest.mark.parametrize(
    "text",
    [
        "In 2023 the model improved; between 1990 and 2000 sales doubled.",
        "The laptop costs $1,299.99, up 12.5% from 1,000,000 units.",
        "Upgrade to version 1.2.3 or v2.10.3; 1.2.3.4.5 is a build tag.",
        "I rate it 7/10, and Assistant B gets 8.5/10.",
        "The meeting is at 12:30 on 2024-05-17 (10:30:45 UTC, 2024-05-17T12:30:00Z).",
        "Final Verdict is: [[A>B]] and earlier [[B>>A]]",
        "pi is 3.14159 and e is 2.71828; 0.4111111111111111 is a decimal.",
        "Timestamp 1700000000000 and order #123456789 and 4155550132 plain.",
        "Use std::vector or Bad::Face; fe80::1 and ::1 are not personal.",
        "Dr. Smith met St. John in 2019. Call extension 555-0132.",
        "ISBN 978-0-306-40615-7 and 256.1.1.1 are not addresses.",
        "All 9 Supreme Court justices agreed; in 1969 Abbey Road topped the charts.",
        "Response A Visual Factuality Score: 7/10\nResponse B Visual Factuality Score: 9/10",
    ],
)
def test_ordinary_prose_is_not_flagged(text):
    assert find_pii(text) == []


def test_four_part_version_is_an_ip_unless_named_a_version():
    # Documented choice: a bare 4-part version is indistinguishable from an IPv4 address.
    assert spans("upgraded to 1.2.3.4 yesterday") == [("ip_address", "1.2.3.4")]
    assert find_pii("upgraded to 1.2.300.4 yesterday") == []
    for named in ("version 1.2.3.4 released", "Version: 4.2.0.1", "build 10.0.1.2", "release 2.4.0.1"):
        assert find_pii(named) == [], named


def test_card_requires_valid_luhn():
    assert find_pii("Card 4111 1111 1111 1112 was declined.") == []
    assert find_pii("Card 4111111111111112 was declined.") == []


NEVER_ISSUED_SSNS = ["000-12-3456", "666-12-3456", "912-34-5678", "123-00-4567", "123-45-0000", "078-05-1120",
                     "219-09-9999"]


@pytest.mark.parametrize("ssn", NEVER_ISSUED_SSNS)
def test_a_never_issued_ssn_without_a_label_is_left_to_stdnum(ssn):
    assert find_pii(f"Part {ssn} here") == []


@pytest.mark.parametrize("ssn", NEVER_ISSUED_SSNS)
def test_a_3_2_4_number_called_an_ssn_is_masked_whatever_stdnum_says(ssn):
    text = f"SSN {ssn} here"
    assert [(text[f.start:f.end], f.kind, f.detector) for f in find_pii(text)] == [(ssn, "national_id", "context.us_ssn")]
    assert redact(text)[0] == "SSN [REDACTED:national_id] here"


@pytest.mark.parametrize("text, ssn", [
    ("SSN: 219-09-9999", "219-09-9999"),
    ("my ssn is 078-05-1120.", "078-05-1120"),
    ("SSNs on file: 078-05-1120, 219-09-9999", "078-05-1120"),
    ("Social Security number 078-05-1120", "078-05-1120"),
    ("social security no. 078 05 1120", "078 05 1120"),
    ("Soc. Sec. # 219-09-9999", "219-09-9999"),
    ("SS# 219-09-9999", "219-09-9999"),
    ("ITIN 912-70-1234", "912-70-1234"),
    ("078-05-1120 (SSN) is on the form", "078-05-1120"),
    ("SSN 078051120", "078051120"),            # nine digits together, named: masked too
    ("SSN 536904399", "536904399"),            # a valid one written together, which stdnum's rule (a separator) misses
])
def test_ssn_labels(text, ssn):
    assert (ssn, "national_id") in [(text[f.start:f.end], f.kind) for f in find_pii(text)]
    assert ssn not in redact(text)[0]


@pytest.mark.parametrize("text", [
    "SSN field added 2023-05-12; order 219-09-9999 shipped",      # a date after the label; the number is far
    "SSNs came in 1936. Part 219-09-9999 ships",                    # the label is in another sentence
    "the SSN column is 9 digits: 078-05-1120",                      # a digit between label and number
    "SSN office hours 09:00-17:00",
    "SSN 219-09-99990 is too long",
    "SSN 2190-99-999 is grouped otherwise",
    "classic 219-09-9999 and mission 219-09-9999",                  # "ss" inside words is not a label
    "ISSN 1234-5679 and ISSN 219-09-9999",                           # ISSN is a serial's number, not an SSN
])
def test_ssn_look_alikes_stay(text):
    assert [(text[f.start:f.end], f.kind) for f in find_pii(text)] == []


@pytest.mark.parametrize("text, phone", [
    ("Call 415-555-0134 ext. 12 today", "415-555-0134 ext. 12"),
    ("Call (415) 555-0134 ext 12.", "(415) 555-0134 ext 12"),
    ("desk 415-555-0134 x12", "415-555-0134 x12"),
    ("Tel 415-555-0134, extension 12.", "415-555-0134, extension 12"),
    ("+1 415-555-0134 ext. 12", "+1 415-555-0134 ext. 12"),
    ("London 020 7946 0958 ext 3", "020 7946 0958 ext 3"),
])
def test_a_phone_number_is_masked_with_its_extension(text, phone):
    assert [(text[f.start:f.end], f.kind) for f in find_pii(text)] == [(phone, "phone")]
    assert redact(text)[0] == text.replace(phone, "[REDACTED:phone]")
    assert scan_texts([("row", text)])["by_kind"] == {"phone": 1}


@pytest.mark.parametrize("text", [
    "Call extension 555-0132 or ext. 12",               # an extension alone, and a short number, are no one's
    "order 0123456789 ext. 12",                         # named as something else, extension or not
    "x = 4155550134 x12",                               # an unseparated digit run stays a digit run
])
def test_extension_look_alikes_stay(text):
    assert [(text[f.start:f.end], f.kind) for f in find_pii(text)] == []


def test_chinese_id_check_digit_and_birth_date():
    assert find_pii("ID 110105194912310021 here") == []  # wrong check character
    assert find_pii("ID 110105194913310028 here") == []  # month 13


def test_uk_nino_unallocated_prefix_is_not_flagged():
    assert find_pii("ref GB123456A and QQ123456C") == []


def test_valid_card_is_not_also_reported_as_phone():
    findings = find_pii("4111 1111 1111 1111")
    assert [f.kind for f in findings] == ["payment_card"]


def test_findings_sorted_and_non_overlapping():
    text = "Mail a@b.io, call +1 415-555-0132, card 4111111111111111, at 10 Downing Street, ip 8.8.8.8."
    findings = find_pii(text)
    assert [f.kind for f in findings] == ["email", "phone", "payment_card", "street_address", "ip_address"]
    for left, right in zip(findings, findings[1:]):
        assert left.end <= right.start


def test_redact_replaces_and_is_idempotent():
    text = "Mail a@b.io or call (415) 555-0132; SSN 123-45-6789; lives at 221B Baker Street."
    redacted, findings = redact(text)
    assert redacted == (
        "Mail [REDACTED:email] or call [REDACTED:phone]; SSN [REDACTED:national_id]; "
        "lives at [REDACTED:street_address]."
    )
    assert findings[0] == PIIFinding("email", 5, 11, "regex.email")
    again, more = redact(redacted)
    assert again == redacted and more == []


def test_redact_none_and_clean_text():
    assert redact(None) == (None, [])
    assert redact("Nothing personal, score 7/10.") == ("Nothing personal, score 7/10.", [])
    assert find_pii(None) == []


def test_scan_texts_counts_and_masks():
    rows = [
        ("generations:1", "Write to bob@example.com or ring +44 20 7946 0958."),
        ("generations:2", "A clean answer, 7/10."),
        ("judgments:7", "Another bob@example.com here."),
    ]
    report = scan_texts(rows)
    assert report["total"] == 3
    assert report["by_kind"] == {"email": 2, "phone": 1}
    assert {(e["location"], e["kind"]) for e in report["examples"]} == {
        ("generations:1", "email"),
        ("generations:1", "phone"),
        ("judgments:7", "email"),
    }
    for example in report["examples"]:
        assert "bob@example.com" not in example["masked"]
        assert "7946" not in example["masked"]
        assert f"[REDACTED:{example['kind']}]" in example["masked"]


def test_scan_texts_masks_a_location_that_names_a_person():
    report = scan_texts([("gap_marks/jean@exemple.fr-1/1/0/question", "call +44 20 7946 0958")])
    assert report["by_detector"] == {"phonenumbers": 1}
    assert report["examples"][0]["location"] == "gap_marks/[REDACTED:email]-1/1/0/question"


def test_scan_texts_caps_examples():
    rows = [(f"row{i}", f"user{i}@example.com and +1 415-555-01{i:02d}") for i in range(30)]
    report = scan_texts(rows)
    assert report["total"] == 60
    assert len(report["examples"]) <= 10
    kinds = [e["kind"] for e in report["examples"]]
    assert "email" in kinds and "phone" in kinds


# --- the corpus ----------------------------------------------------------------------------

POSITIVES = [
    # phones: EU and US formats, international and national (phonenumbers)
    ("Ring me on 06 12 34 56 78 tonight", "06 12 34 56 78", "phone", "phonenumbers"),
    ("Portable : +33 6 12 34 56 78.", "+33 6 12 34 56 78", "phone", "phonenumbers"),
    ("Mon numéro est le 0612345678", "0612345678", "phone", "phonenumbers"),
    ("Office (415) 555-0132 after nine", "(415) 555-0132", "phone", "phonenumbers"),
    ("or 415.555.0132 at home", "415.555.0132", "phone", "phonenumbers"),
    ("US line +1 415-555-0132", "+1 415-555-0132", "phone", "phonenumbers"),
    ("London: 020 7946 0958", "020 7946 0958", "phone", "phonenumbers"),
    ("UK +44 20 7946 0958", "+44 20 7946 0958", "phone", "phonenumbers"),
    ("Berlin +49 30 901820", "+49 30 901820", "phone", "phonenumbers"),
    ("Handy 0176 12345678", "0176 12345678", "phone", "phonenumbers"),
    ("Madrid +34 612 345 678", "+34 612 345 678", "phone", "phonenumbers"),
    ("Roma +39 06 6982 1234", "+39 06 6982 1234", "phone", "phonenumbers"),
    ("Amsterdam +31 20 123 4567", "+31 20 123 4567", "phone", "phonenumbers"),
    ("手机 13800138000 联系", "13800138000", "phone", "phonenumbers"),
    ("Beijing +86 138 0013 8000", "+86 138 0013 8000", "phone", "phonenumbers"),
    ("Delhi +91 98765 43210", "+91 98765 43210", "phone", "phonenumbers"),
    ("appelez le 06.12.34.56.78 demain", "06.12.34.56.78", "phone", "phonenumbers"),
    ("depuis l'étranger 0033 6 12 34 56 78", "0033 6 12 34 56 78", "phone", "phonenumbers"),
    ("Tel. 0176/12345678 (mobil)", "0176/12345678", "phone", "phonenumbers"),
    ("toll free 1-800-555-0199", "1-800-555-0199", "phone", "phonenumbers"),
    ("móvil 612 34 56 78", "612 34 56 78", "phone", "phonenumbers"),
    ("Tel. No. 0612345678", "0612345678", "phone", "phonenumbers"),
    # IBANs of several countries, spaced and compact (stdnum.iban)
    ("IBAN DE89 3704 0044 0532 0130 00 please", "DE89 3704 0044 0532 0130 00", "iban", "stdnum.iban"),
    ("pay to DE89370400440532013000", "DE89370400440532013000", "iban", "stdnum.iban"),
    ("FR1420041010050500013M02606 is mine", "FR1420041010050500013M02606", "iban", "stdnum.iban"),
    ("GB29 NWBK 6016 1331 9268 19", "GB29 NWBK 6016 1331 9268 19", "iban", "stdnum.iban"),
    ("cuenta ES91 2100 0418 4502 0005 1332", "ES91 2100 0418 4502 0005 1332", "iban", "stdnum.iban"),
    ("conto IT60 X054 2811 1010 0000 0123 456", "IT60 X054 2811 1010 0000 0123 456", "iban", "stdnum.iban"),
    ("NL91ABNA0417164300", "NL91ABNA0417164300", "iban", "stdnum.iban"),
    ("CH93 0076 2011 6238 5295 7", "CH93 0076 2011 6238 5295 7", "iban", "stdnum.iban"),
    ("PL61 1090 1014 0000 0712 1981 2874", "PL61 1090 1014 0000 0712 1981 2874", "iban", "stdnum.iban"),
    ("typed small: de89 3704 0044 0532 0130 00", "de89 3704 0044 0532 0130 00", "iban", "stdnum.iban"),
    ("AT61 1904 3002 3457 3201 (Wien)", "AT61 1904 3002 3457 3201", "iban", "stdnum.iban"),
    # payment cards (Luhn)
    ("card 4111 1111 1111 1111 exp 12/29", "4111 1111 1111 1111", "payment_card", "stdnum.luhn"),
    ("5500-0000-0000-0004", "5500-0000-0000-0004", "payment_card", "stdnum.luhn"),
    ("amex 378282246310005", "378282246310005", "payment_card", "stdnum.luhn"),
    ("6011111111111117 on file", "6011111111111117", "payment_card", "stdnum.luhn"),
    ("new Mastercard 2223 0031 2200 3222", "2223 0031 2200 3222", "payment_card", "stdnum.luhn"),
    ("JCB 3530111333300000", "3530111333300000", "payment_card", "stdnum.luhn"),
    # national IDs
    ("SSN 536-90-4399", "536-90-4399", "national_id", "stdnum.us.ssn"),
    ("my SSN is 234-56-7890.", "234-56-7890", "national_id", "stdnum.us.ssn"),
    ("SSN 536 90 4399 (spaced)", "536 90 4399", "national_id", "stdnum.us.ssn"),
    ("身份证 11010519491231002X", "11010519491231002X", "national_id", "stdnum.cn.ric"),
    ("NIR 185057506808557", "185057506808557", "national_id", "stdnum.fr.nir"),
    ("DNI 12345678Z", "12345678Z", "national_id", "stdnum.es.dni"),
    ("codice fiscale RSSMRA85T10A562S", "RSSMRA85T10A562S", "national_id", "stdnum.it.codicefiscale"),
    ("NINO AB 12 34 56 C", "AB 12 34 56 C", "national_id", "regex.uk_nino"),
    # e-mails, unicode local parts included
    ("write jane.doe@example.com", "jane.doe@example.com", "email", "regex.email"),
    ("josé.müller@beispiel.de antwortet", "josé.müller@beispiel.de", "email", "regex.email"),
    ("renée+tag@mail.fr", "renée+tag@mail.fr", "email", "regex.email"),
    ("联系 用户@例子.中国", "用户@例子.中国", "email", "regex.email"),
    # IP addresses
    ("server 192.168.1.20 is down", "192.168.1.20", "ip_address", "ipaddress"),
    ("v6 2001:db8::8a2e:370:7334 here", "2001:db8::8a2e:370:7334", "ip_address", "ipaddress"),
    ("fe80::1ff:fe23:4567:890a", "fe80::1ff:fe23:4567:890a", "ip_address", "ipaddress"),
    ("open http://203.0.113.45/admin", "203.0.113.45", "ip_address", "ipaddress"),
    # street addresses
    ("lives at 221B Baker Street, London", "221B Baker Street", "street_address", "regex.street_address"),
    ("1600 Pennsylvania Avenue is white", "1600 Pennsylvania Avenue", "street_address", "regex.street_address"),
]

NEGATIVES = [
    "ISBN 978-3-16-148410-0 is on the cover",
    "ISBN 0-306-40615-2",
    "Order #123456789 shipped",
    "invoice 2024-000123 paid",
    "on 2024-05-17 at 12:30",
    "dated 17/05/2024 and 05.17.2024",
    "Python 3.11.7 and v10.15.7 and 1.2.3",
    "x = 1234567890 * 2",
    "for i in range(100000000):",
    "timestamp 1699999999123",
    "UUID 123e4567-e89b-12d3-a456-426614174000",
    "mask 0xDEADBEEF",
    "score 7/10, final [[A>B]]",
    "price $1,234,567.89",
    "coordinates 48.8566, 2.3522",
    "at 12:30:45 UTC",
    "0.5 0.25 0.125",
    "Room 1203, floor 12",
    "call extension 555",
    "the years 1999-2000-2001 were",
    "population 67 390 000 people",
    "hash 9f86d081884c7d659a2feaa0c55ad015",
    # named as what they are: an ISBN-10 and an order number that libphonenumber finds dialable in France
    "ISBN 0306406152",
    "order no. 0123456789",
    "Order #: 01 23 45 67 89",
    # a citation's year is not an area code
    "Nature 571 (2019) 123-145",
    # four-part versions named as such, and a Luhn-valid date-time stamp outside every card network
    "version 4.2.0.1 and build: 10.0.1.2",
    "stamp 20240517123046",
    "epoch 1716000000 and 2024-05-17T12:30:45.123456Z",
    # code
    "SELECT * FROM t WHERE id = 1234567890",
    "pip install numpy==1.26.4 pandas==2.2.2",
    "DOI 10.1038/s41586-021-03819-2 and arXiv:2403.04132v2",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    'app.run(host="0.0.0.0", port=8080) and curl http://127.0.0.1:8000/health',
    # a printed date and time (from the real URS questions)
    "Printed: Tuesday, May 09 2023 10:35 AM",
]


@pytest.mark.parametrize("text, found, kind, detector", POSITIVES)
def test_personal_data_is_found_by_the_right_detector(text, found, kind, detector):
    findings = find_pii(text)
    assert [(text[f.start:f.end], f.kind, f.detector) for f in findings] == [(found, kind, detector)]
    redacted, _ = redact(text)
    assert found not in redacted and f"[REDACTED:{kind}]" in redacted


@pytest.mark.parametrize("text", NEGATIVES)
def test_look_alikes_are_left_alone(text):
    assert [(text[f.start:f.end], f.kind) for f in find_pii(text)] == []


def test_the_corpus_is_large_enough_to_mean_something():
    assert len(POSITIVES) >= 40 and len({kind for _, _, kind, _ in POSITIVES}) == 7 and len(NEGATIVES) >= 30


def test_a_text_scanned_again_is_answered_from_the_last_scans_and_their_memory_stays_bounded(monkeypatch):
    from benchwright import pii

    scanned: list[str] = []
    real_scan = pii._scan
    monkeypatch.setattr(pii, "_scan", lambda text: scanned.append(text) or real_scan(text))
    monkeypatch.setattr(pii, "_RECENT", pii._RecentScans(max_chars=64 * 80))
    text = "Call +1 415-555-0132 after lunch, or mail jane@example.com."
    first = find_pii(text)
    masked, again = redact(text)  # a loader: findings reported, then the text redacted
    assert [f.kind for f in first] == ["phone", "email"] and again == first and scanned == [text]
    first.clear()  # a caller's list is its own: the remembered findings are unchanged
    assert find_pii(text) == again and scanned == [text]
    assert find_pii(masked) == [] and scanned == [text, masked]  # the stored text: scanned once, then remembered
    assert scan_texts([("row 1", masked)])["total"] == 0 and scanned == [text, masked]
    # Bounded by the characters it holds: the oldest texts go first, and a text too long to hold is not kept.
    for number in range(100):
        find_pii(f"plain text number {number:03d} " + "x" * 40)
    assert pii._RECENT.chars <= 64 * 80 and text not in pii._RECENT.findings
    long_text = "y" * 200
    find_pii(long_text)
    find_pii(long_text)
    assert scanned.count(long_text) == 2


# --- phones, searched line by line -----------------------------------------------------------

def whole_text_phones(text: str) -> list[tuple[int, int]]:
    """The phone spans found by every matcher pass over the whole text (what `_phones` did before it looked for
    national forms line by line), kept by the same rule (`_phone_kept`): the reference the line-by-line search
    must equal."""
    import phonenumbers

    from benchwright import pii

    return sorted({(match.start, match.end) for region in (None, *pii.PHONE_REGIONS)
                   for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID)
                   if pii._phone_kept(text, match.start, match.end, match, region)})


LINES_OF_NUMBERS = [
    "Ring me on 06 12 34 56 78 tonight\nor 415.555.0132 at home",
    "06 12 34\n56 78 90",  # a number cut by a line break is two short ones: neither is kept
    "total 1234567 | 7654321 | 2345678\nCall 0176 12345678\n| 12 | 34 | 56 | 78 |",
    "depuis l'étranger\n0033 6 12 34 56 78\n011 33 6 12 34 56 78",
    "(415) 555-0134 ext. 12\nx12 and 415-555-0134\next 99",
    "May 09 2023\n10:35 AM, then 020 7946 0958\n:35",
    "ISBN\n0306406152 and order 0123456789\nref: 01 23 45 67 89",
    "Portable : +33 6 12 34 56 78.\n+1 415-555-0132\n＋44 20 7946 0958",
    "手机 13800138000 联系\n电话 010 1234 5678",
    "\n\n0612345678\n\n",
    "a\r\n06.12.34.56.78\r\nb 1-800-555-0199\r\n",
    "\n".join(f"row {i}: {i * 7919:>8} {i * 104729:>10}" for i in range(40)) + "\nTel. No. 0612345678",
    "| 0612345678 | 12 34 56 78 |\n|06 12 34 56 78|x 12|!0176 12345678?",
    "电话：010 1234 5678，手机：13800138000。传真 +86 10 1234 5679！",
    '"0612345678" <0176 12345678> {415-555-0132} `020 7946 0958` a@b 0612345678_1 &0612345678^',
    "price 1234567€ or $0612345678 and 0612345678% then x0612345678",
]


def test_no_number_holds_a_line_break_and_one_is_taken_as_the_text_s_edge():
    """Why a line can be searched alone: libphonenumber's candidate pattern never takes a line break, wherever it
    stands, and its checks of the characters before and after a number treat one as nothing there."""
    from phonenumbers.phonenumbermatcher import _PATTERN, PhoneNumberMatcher

    assert not PhoneNumberMatcher._is_latin_letter("\n") and not PhoneNumberMatcher._is_invalid_punctuation_symbol("\n")
    for text in ["06 12 34\n56 78 90", "+33 6\n12 34 56 78", "(415)\n555-0132 ext\n12", "415-555-0132 x\n12",
                 "0612345678 ext.\n 12", "415-555-0132 \nxt 12", "415-555-0132,\next 12", "415-555-0132\n-12#"]:
        assert all("\n" not in found.group() for found in _PATTERN.finditer(text)), text


@pytest.mark.parametrize("text", [text for text, *_ in POSITIVES] + NEGATIVES + LINES_OF_NUMBERS)
def test_phones_searched_line_by_line_are_those_of_the_whole_text(text):
    from benchwright import pii

    assert sorted((f.start, f.end) for f in pii._phones(text)) == whole_text_phones(text)


def test_a_number_after_an_exit_code_has_the_digits_its_line_is_searched_for():
    """A line holds a kept national-form number only with 8 digits in a row; a number dialled after an exit code
    must have them too, or the line-by-line search would miss it: two or more digits of exit code in every
    region searched, and at least six of country code and number together in every region libphonenumber knows."""
    import re

    import phonenumbers
    from phonenumbers import PhoneMetadata

    from benchwright import pii

    for region in pii.PHONE_REGIONS:
        prefix = PhoneMetadata.metadata_for_region(region).international_prefix
        assert not any(re.fullmatch(prefix, digits) for digits in ["", *"0123456789"]), region
    shortest = []
    for region in phonenumbers.SUPPORTED_REGIONS:
        metadata = PhoneMetadata.metadata_for_region(region)
        lengths = [n for n in metadata.general_desc.possible_length if n > 0]
        shortest.append(len(str(metadata.country_code)) + min(lengths))
    for code in phonenumbers.COUNTRY_CODES_FOR_NON_GEO_REGIONS:
        metadata = PhoneMetadata.metadata_for_nongeo_region(code)
        lengths = [n for n in metadata.general_desc.possible_length if n > 0]
        shortest.append(len(str(code)) + min(lengths))
    assert 2 + min(shortest) >= pii._MIN_NATIONAL_DIGITS
