"""Personal data in the formats people really write, and look-alikes that are not personal data.

Each positive names the kind and the library or rule that must find it; each negative must stay
untouched (a false positive blocks a pipeline or mangles an answer).
"""

import pytest

from benchwright.pii import find_pii, redact

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
    # payment cards (Luhn)
    ("card 4111 1111 1111 1111 exp 12/29", "4111 1111 1111 1111", "payment_card", "stdnum.luhn"),
    ("5500-0000-0000-0004", "5500-0000-0000-0004", "payment_card", "stdnum.luhn"),
    ("amex 378282246310005", "378282246310005", "payment_card", "stdnum.luhn"),
    ("6011111111111117 on file", "6011111111111117", "payment_card", "stdnum.luhn"),
    # national IDs
    ("SSN 536-90-4399", "536-90-4399", "national_id", "stdnum.us.ssn"),
    ("my SSN is 234-56-7890.", "234-56-7890", "national_id", "stdnum.us.ssn"),
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
    assert len(POSITIVES) >= 40 and len({kind for _, _, kind, _ in POSITIVES}) == 7 and len(NEGATIVES) >= 20
