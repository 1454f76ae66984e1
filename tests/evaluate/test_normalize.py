"""Fact matching survives the ways one number is written in ja/zh/en text, and only those."""

from __future__ import annotations

import pytest

from bunko.evaluate.normalize import contains, normalize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("１２，０００円", "12000円"),  # full-width digits and comma (NFKC), thousands separator
        ("1,234,567 yen", "1234567 yen"),  # every group separator
        ("API Key", "api key"),  # case
        ("ＡＰＩ", "api"),  # full-width letters
        ("30 日以内", "30日以内"),  # no space kept next to CJK
        ("「30日以内」。", "30日以内"),  # CJK punctuation
        ("1.5 hours", "1.5 hours"),  # decimal point kept
        ("E-1024", "e 1024"),  # punctuation becomes a space between words
        ("ｶﾀｶﾅ", "カタカナ"),  # half-width katakana
        ("  many\n\tspaces  ", "many spaces"),
        ("99.9%", "99.9%"),  # symbols kept
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


@pytest.mark.parametrize(
    ("answer", "expected", "found"),
    [
        ("宿泊費の上限は１２，０００円です。", "12,000円", True),
        ("宿泊費の上限は12000円です。", "12,000円", True),
        ("上限は112,000円です。", "12,000円", False),  # glued to another digit
        ("婚假为 3 天。", "3天", True),
        ("婚假为13天。", "3天", False),
        ("Tokens expire after 24 Hours.", "24 hours", True),
        ("Tokens expire after 124 hours.", "24 hours", False),
        ("The limit is 600 requests per minute.", "600 requests", True),
        ("Version 1.5 is current.", "15", False),  # a decimal is not another number
        ("出張経費は30日以内に精算する", "30日以内", True),
        ("The documents do not contain this.", "", False),  # an empty expectation never matches
    ],
)
def test_contains(answer: str, expected: str, found: bool) -> None:
    assert contains(answer, expected) is found
