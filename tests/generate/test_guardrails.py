"""strict and regulated policies: personal data masked in ja/zh/en, dates and notices, review flag."""

from __future__ import annotations

from datetime import date

import pytest

from bunko.generate.guardrails import mask_pii, regulated_notices, source_date


@pytest.mark.parametrize(
    ("language", "text", "masked", "kinds"),
    [
        ("ja", "担当は tanaka.h@aozora.example.co.jp、電話03-1234-5678まで。", "担当は ［メールアドレス］、電話［電話番号］まで。", {"email", "phone"}),
        ("ja", "携帯090-1234-5678、個人番号は1234 5678 9012です。", "携帯［電話番号］、個人番号は［個人番号］です。", {"phone", "id"}),
        ("ja", "代表番号は03(1234)5678、携帯は09012345678。", "代表番号は［電話番号］、携帯は［電話番号］。", {"phone"}),
        ("zh", "请联系 138 0013 8000 或 010-12345678，邮箱 li.wei@aozora.example。", "请联系 ［电话号码］ 或 ［电话号码］，邮箱 ［邮箱］。", {"phone", "email"}),
        ("zh", "身份证号11010519491231002X，手机13800138000。", "身份证号［证件号码］，手机［电话号码］。", {"id", "phone"}),
        ("en", "Call +1 (555) 123-4567 or +81 3-1234-5678.", "Call [phone] or [phone].", {"phone"}),
        ("en", "Card 4111 1111 1111 1111 and 4111111111111111 on file.", "Card [card number] and [card number] on file.", {"card"}),
        ("en", "My Number 123456789012 was given.", "My Number [ID number] was given.", {"id"}),
    ],
)
def test_personal_data_is_masked(language: str, text: str, masked: str, kinds: set[str]) -> None:
    result, found = mask_pii(text, language)
    assert result == masked
    assert set(found) == kinds


@pytest.mark.parametrize(
    "text",
    [
        "施行日：2024年4月1日（第3版）、上限は12,000円。",
        "Released 2024-04-01 as v2.3.1 at 11:00; 600 requests per minute; 99.9% uptime; E-1024.",
        "单笔采购金额超过50,000元时需要至少三家报价，P1 工单30分钟内响应。",
        "Document ADM-FIN-003, invoice 2024-000123, port 443.",
    ],
)
def test_ordinary_numbers_are_left_alone(text: str) -> None:
    assert mask_pii(text, "en") == (text, {})


def test_source_date_prefers_front_matter_then_ingest_day() -> None:
    assert source_date({"updated": date(2025, 3, 1)}, 0.0) == "2025-03-01"
    assert source_date({"施行日": "2024年4月1日"}, 0.0) == "2024年4月1日"
    assert source_date({}, 1_700_000_000.0) == "2023-11-14"
    assert source_date(None, None) is None


@pytest.mark.parametrize(("language", "word"), [("ja", "専門的な助言ではありません"), ("zh", "不构成"), ("en", "not professional")])
def test_regulated_notices_follow_the_question_language(language: str, word: str) -> None:
    lines = regulated_notices(language, {"policy.md": "2025-03-01"}, needs_review=True)
    assert "policy.md (2025-03-01)" in lines[0]
    assert word in lines[1]
    assert len(lines) == 3
    assert len(regulated_notices(language, {}, needs_review=False)) == 1
