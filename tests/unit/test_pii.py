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


def test_four_part_version_is_flagged_as_ip_only_when_octets_fit():
    # Documented choice: a 4-part version is indistinguishable from an IPv4 address.
    assert spans("version 1.2.3.4 released") == [("ip_address", "1.2.3.4")]
    assert find_pii("version 1.2.300.4 released") == []


def test_card_requires_valid_luhn():
    assert find_pii("Card 4111 1111 1111 1112 was declined.") == []
    assert find_pii("Card 4111111111111112 was declined.") == []


@pytest.mark.parametrize("ssn", ["000-12-3456", "666-12-3456", "912-34-5678", "123-00-4567", "123-45-0000"])
def test_ssn_never_issued_numbers_are_not_flagged(ssn):
    assert find_pii(f"SSN {ssn} here") == []


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


def test_scan_texts_caps_examples():
    rows = [(f"row{i}", f"user{i}@example.com and +1 415-555-01{i:02d}") for i in range(30)]
    report = scan_texts(rows)
    assert report["total"] == 60
    assert len(report["examples"]) <= 10
    kinds = [e["kind"] for e in report["examples"]]
    assert "email" in kinds and "phone" in kinds
