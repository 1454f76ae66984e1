"""Mail: .eml built with the standard library, .msg written as a compound file; attachments parsed recursively."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest
from cfbwriter import msg_streams, write_cfb
from officegen import OFFICE, make_docx
from pdfgen import TEXTS, make_text_pdf

from bunko.errors import DocumentError
from bunko.parse.registry import default_registry
from bunko.schema import ErrorCode, ParsedDocument

MAIL = {
    "en": ("Travel approval", "Alice Smith <alice@example.com>", "Bob <bob@example.com>", "Please approve the trip.", "See the attached policy."),
    "ja": ("出張の承認", "山田 太郎 <yamada@example.jp>", "佐藤 <sato@example.jp>", "出張の承認をお願いします。", "添付の規程をご確認ください。"),
    "zh": ("出差审批", "王伟 <wang@example.cn>", "李娜 <li@example.cn>", "请审批本次出差。", "请查看附件中的制度。"),
}


def parse(path: Path) -> ParsedDocument:
    registry = default_registry()
    parser, mime = registry.parser_for(path, path.name)
    return parser.parse(path, path.name, mime)


def make_eml(path: Path, lang: str, tmp: Path, html: bool = False) -> Path:
    subject, sender, to, first, second = MAIL[lang]
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    message["Date"] = "Mon, 02 Mar 2026 09:30:00 +0900"
    if html:
        message.set_content(f"<html><body><nav>Inbox | Sent</nav><h1>{subject}</h1><p>{first}</p><p>{second}</p></body></html>", subtype="html")
    else:
        message.set_content(f"{first}\n\n{second}\n")
    pdf = make_text_pdf(tmp / f"policy-{lang}.pdf", lang, [TEXTS[lang].p1])
    message.add_attachment(pdf.read_bytes(), maintype="application", subtype="pdf", filename=f"policy-{lang}.pdf")
    docx = make_docx(tmp / f"handbook-{lang}.docx", lang)
    message.add_attachment(docx.read_bytes(), maintype="application", subtype="octet-stream", filename=f"handbook-{lang}.docx")
    message.add_attachment(b"\x7fELF\x02\x01\x01" + bytes(64), maintype="application", subtype="octet-stream", filename="tool.bin")
    path.write_bytes(bytes(message))
    return path


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_eml_headers_are_metadata_and_body_paragraphs_follow_the_subject(tmp_path: Path, lang: str) -> None:
    subject, sender, to, first, second = MAIL[lang]
    doc = parse(make_eml(tmp_path / f"mail-{lang}.eml", lang, tmp_path))
    assert doc.meta["email"] == {"from": sender, "to": to, "date": "Mon, 02 Mar 2026 09:30:00 +0900", "subject": subject}
    body = [(e.kind, e.text, e.section_path) for e in doc.elements if "attachment" not in e.meta]
    assert body == [
        ("heading", subject, [subject]),
        ("email_header", f"From: {sender}\nTo: {to}\nDate: Mon, 02 Mar 2026 09:30:00 +0900\nSubject: {subject}", [subject]),
        ("paragraph", first, [subject]),
        ("paragraph", second, [subject]),
    ]
    assert doc.title == subject and doc.parser == "email/1"


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_eml_attachments_are_parsed_as_their_own_documents_under_their_filename(tmp_path: Path, lang: str) -> None:
    doc = parse(make_eml(tmp_path / f"att-{lang}.eml", lang, tmp_path))
    pdf_part = [e for e in doc.elements if e.meta.get("attachment") == f"policy-{lang}.pdf"]
    assert [(e.text, e.page, e.section_path, e.meta["method"]) for e in pdf_part] == [
        (TEXTS[lang].p1, 1, [f"Attachment: policy-{lang}.pdf"], "text-layer"),
    ]
    docx_part = [e for e in doc.elements if e.meta.get("attachment") == f"handbook-{lang}.docx"]
    o = OFFICE[lang]
    assert docx_part[1].section_path == [f"Attachment: handbook-{lang}.docx", o.title, o.h1]
    footnote = next(e for e in docx_part if e.kind == "footnote")
    assert footnote.parent_id == next(e for e in docx_part if e.text == o.p1).element_id, "links inside an attachment survive re-numbering"
    assert len({e.element_id for e in doc.elements}) == len(doc.elements)
    records = {a["filename"]: a for a in doc.meta["attachments"]}
    assert records[f"policy-{lang}.pdf"]["elements"] == 1 and records[f"policy-{lang}.pdf"]["parser"].startswith("pdf/")
    assert records[f"handbook-{lang}.docx"]["elements"] == len(docx_part)
    assert records["tool.bin"]["error_code"] == "UNSUPPORTED_FORMAT"


def test_html_only_mail_body_is_read_without_its_navigation(tmp_path: Path) -> None:
    doc = parse(make_eml(tmp_path / "html.eml", "ja", tmp_path, html=True))
    subject, _, _, first, second = MAIL["ja"]
    body = [(e.kind, e.text) for e in doc.elements if "attachment" not in e.meta and e.kind != "email_header"]
    assert body == [("heading", subject), ("heading", subject), ("paragraph", first), ("paragraph", second)]
    assert doc.elements[2].meta["method"] == "email-html"


def test_nested_mail_attachment_is_read_recursively(tmp_path: Path) -> None:
    inner = EmailMessage()
    inner["From"], inner["To"], inner["Subject"] = "a@example.com", "b@example.com", "Original request"
    inner.set_content("The original request text.")
    outer = EmailMessage()
    outer["From"], outer["To"], outer["Subject"] = "c@example.com", "d@example.com", "Fwd: Original request"
    outer.set_content("Forwarding.")
    outer.add_attachment(inner, filename="request.eml")
    path = tmp_path / "fwd.eml"
    path.write_bytes(bytes(outer))
    doc = parse(path)
    nested = [(e.kind, e.text, e.section_path) for e in doc.elements if e.meta.get("attachment") == "request.eml"]
    assert nested[0] == ("heading", "Original request", ["Attachment: request.eml", "Original request"])
    assert nested[-1] == ("paragraph", "The original request text.", ["Attachment: request.eml", "Original request"])


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_msg_headers_body_and_attachment(tmp_path: Path, lang: str) -> None:
    subject, sender, to, first, second = MAIL[lang]
    name, address = sender.rsplit(" <", 1)
    pdf = make_text_pdf(tmp_path / "memo.pdf", lang, [TEXTS[lang].p1]).read_bytes()
    filetime = (1_772_411_400 + 11_644_473_600) * 10_000_000  # 2026-03-02 00:30:00 UTC
    streams = msg_streams(subject, name, address.rstrip(">"), to, f"{first}\r\n\r\n{second}", None, [("memo.pdf", pdf)], filetime)
    path = tmp_path / f"mail-{lang}.msg"
    path.write_bytes(write_cfb(streams))
    doc = parse(path)
    assert doc.mime == "application/vnd.ms-outlook"
    assert doc.meta["email"] == {"from": sender, "to": to, "date": "Mon, 02 Mar 2026 00:30:00 +0000", "subject": subject}
    assert [(e.kind, e.text) for e in doc.elements if e.kind == "paragraph"] == [
        ("paragraph", first), ("paragraph", second), ("paragraph", TEXTS[lang].p1),
    ]
    assert doc.elements[-1].section_path == ["Attachment: memo.pdf"] and doc.elements[-1].page == 1


def test_msg_found_by_content_without_its_extension(tmp_path: Path) -> None:
    streams = msg_streams("Hello", "A", "a@example.com", "B", "Body text.", "<p>Body text.</p>", [], 0)
    path = tmp_path / "message-without-extension"
    path.write_bytes(write_cfb(streams))
    doc = parse(path)
    assert doc.meta["email"]["subject"] == "Hello"
    assert [e.text for e in doc.elements if e.kind == "paragraph"] == ["Body text."]


def test_mail_without_headers_fails_as_parse_failed(tmp_path: Path) -> None:
    path = tmp_path / "not-mail.eml"
    path.write_text("just some words\nwithout headers\n", encoding="utf-8")
    with pytest.raises(DocumentError) as caught:
        parse(path)
    assert caught.value.code == ErrorCode.PARSE_FAILED


def test_corrupt_msg_fails_as_parse_failed(tmp_path: Path) -> None:
    path = tmp_path / "broken.msg"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100)
    with pytest.raises(DocumentError) as caught:
        parse(path)
    assert caught.value.code == ErrorCode.PARSE_FAILED
