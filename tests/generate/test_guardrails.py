"""strict and regulated policies: personal data masked in ja/zh/en, dates and notices, review flag."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from bunko import Bunko, Config
from bunko.generate.guardrails import guard_chunk, guard_tree, mask_pii, regulated_notices, source_date
from bunko.schema import Chunk


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


# -- the policy on every output path ------------------------------------------------
EMAIL_QUESTIONS = [
    ("ja", "セキュリティインシデントを発見したら報告するメールアドレス", "security@aozora.example", "［メールアドレス］"),
    ("zh", "上海办公室人力资源部的联系邮箱", "hr-sh@aozora.example", "［邮箱］"),
    ("en", "Data Protection Officer email address for questions", "dpo@aozora.example", "[email]"),
]


def _policy_kb(path: Path, embedder, policy: str) -> Bunko:
    config = Config.load(path / "bunko.toml")
    config.answer.policy = policy
    return Bunko(path, config=config, embedder=embedder)


def test_guard_chunk_masks_a_copy_in_the_chunks_language_and_standard_passes_it_through() -> None:
    chunk = Chunk("a.md#0", "d", "a.md", 0, "連絡先は hr@aozora.example です。", "人事 > 連絡先\n連絡先は hr@aozora.example です。",
                  section_path=["人事", "連絡先"], meta={"lang": "ja", "child_text": "hr@aozora.example"})
    masked = guard_chunk(chunk, "strict")
    assert masked.text == "連絡先は ［メールアドレス］ です。" and "@" not in masked.embed_text
    assert masked.meta["child_text"] == "［メールアドレス］" and masked.lang == "ja"
    assert "hr@aozora.example" in chunk.text and chunk.meta["child_text"] == "hr@aozora.example"  # stored/cached chunk untouched
    assert guard_chunk(chunk, "standard") is chunk
    assert guard_chunk(chunk, "regulated").text == masked.text
    assert guard_chunk(chunk, "strict", language="en").text == "連絡先は [email] です。"


def test_guard_tree_masks_a_copy_of_titles_and_summaries() -> None:
    from bunko.index.tree import DocumentTree, SectionNode

    section = SectionNode("联系方式", ["联系方式"], summary="请联系 hr-sh@aozora.example，电话 010-12345678。")
    tree = DocumentTree("d", "hr.md", "HR", SectionNode("", [], children=[section], summary="Mail dpo@aozora.example."))
    masked = guard_tree(tree, "strict")
    assert masked.root.children[0].summary == "请联系 ［邮箱］，电话 ［电话号码］。" and masked.root.summary == "Mail [email]."
    assert "hr-sh@aozora.example" in tree.root.children[0].summary  # the cached tree is untouched
    assert guard_tree(tree, "standard") is tree


@pytest.mark.parametrize(("language", "question", "email", "label"), EMAIL_QUESTIONS)
def test_search_hits_are_masked_under_strict_as_answers_are(
    samples_kb_path: Path, embedder, language: str, question: str, email: str, label: str
) -> None:
    with _policy_kb(samples_kb_path, embedder, "standard") as kb:
        shown = kb.search(question, k=5)
    assert any(email in h.chunk.text for h in shown), "the collection does hold the address"
    with _policy_kb(samples_kb_path, embedder, "strict") as kb:
        hits = kb.search(question, k=5)
        detailed = kb.search_detailed(question, k=5).hits
        masked = next(h for h in hits if label in h.chunk.text)
        stored = kb.chunks(masked.chunk.source)
    assert [h.chunk.chunk_id for h in hits] == [h.chunk.chunk_id for h in shown]  # masking changes what is shown, not the ranking
    for found in (hits, detailed):
        assert not any("@aozora.example" in h.chunk.text or "@aozora.example" in str(h.chunk.meta.get("child_text")) for h in found)
    assert masked.chunk.lang == language
    assert any(email in c.text for c in stored), "the stored text is never changed"


def test_a_strict_answers_trace_keeps_no_personal_data(samples_kb_path: Path, embedder) -> None:
    with _policy_kb(samples_kb_path, embedder, "strict") as kb:
        answer = kb.ask("セキュリティインシデントを発見したら、どこへ報告しますか？")
        trace = kb.trace(answer.trace_id)
    assert trace is not None and trace["sentences"]
    assert "security@aozora.example" not in json.dumps(trace, ensure_ascii=False)
    assert "security@aozora.example" not in answer.text
