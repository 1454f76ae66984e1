"""Mail (.eml through the standard library, .msg through `msg`): headers, body, attachments.

The mail is one document: its headers are metadata (doc.meta["email"]) and an
email_header element, the subject is the level-1 heading, the body (plain text,
or the HTML part read like a web page) follows. Each attachment is parsed by
whichever parser its content calls for and its elements are added to the same
document under section_path ["Attachment: <filename>", ...] with
meta["attachment"], so the store still writes one file in one transaction
and a citation says which attachment (and page) it came from. An attachment
that cannot be parsed is recorded in doc.meta["attachments"] with its error
code and does not fail the mail.
"""

from __future__ import annotations

import email
import email.policy
import re
import struct
import tempfile
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bunko.errors import DocumentError
from bunko.parse.base import ElementBuilder
from bunko.parse.html import HtmlWalker, content_root
from bunko.parse.limits import parse_within
from bunko.parse.msg import Attachment, Mail, read_msg
from bunko.schema import Element, ElementKind, ErrorCode, ParsedDocument
from bunko.text.lazy_regex import lazy_compile

if TYPE_CHECKING:
    from bunko.parse.registry import ParserRegistry

HEADER_FIELDS = ("from", "to", "cc", "date", "subject")
MAX_DEPTH = 3
_SAFE_NAME = lazy_compile(r"[^\w.\-]+")


def _from_eml(message: EmailMessage, depth: int = 0) -> Mail:
    headers = {name: str(message.get(name, "")).strip() for name in HEADER_FIELDS}
    mail = Mail({k: v for k, v in headers.items() if v})
    plain = message.get_body(preferencelist=("plain",))
    html = message.get_body(preferencelist=("html",))
    mail.text = plain.get_content() if plain is not None else None
    mail.html = html.get_content() if html is not None else None
    for part in message.iter_attachments():
        filename = part.get_filename() or f"attachment-{len(mail.attachments) + 1}"
        if part.get_content_type() == "message/rfc822" and depth < MAX_DEPTH:
            inner = part.get_content()
            inner_mail = _from_eml(inner, depth + 1) if isinstance(inner, EmailMessage) else Mail({})
            mail.attachments.append(Attachment(part.get_filename() or "message.eml", b"", "message/rfc822", inner_mail))
        else:
            payload = part.get_payload(decode=True)  # bytes for a leaf part, None for a multipart one
            mail.attachments.append(Attachment(filename, payload if isinstance(payload, bytes) else b"", part.get_content_type()))
    return mail


def _paragraphs(text: str) -> list[str]:
    text = text.replace("\r\n", "\n")
    return [block.strip() for block in re.split(r"\n[ \t]*\n", text) if block.strip()]


class EmailParser:
    name = "email"
    version = "1"
    mimes = ("message/rfc822", "application/vnd.ms-outlook")

    def __init__(self, registry: ParserRegistry | None = None) -> None:
        self.registry = registry

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        if mime == "application/vnd.ms-outlook":
            try:
                mail = read_msg(str(path))
            except (OSError, ValueError, TypeError, struct.error) as exc:
                raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not a readable Outlook message ({type(exc).__name__}: {exc})") from None
        else:
            message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            if not any(message.get(h) for h in ("from", "to", "subject", "date", "message-id")):
                raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: no mail headers (From, To, Subject, Date) found")
            mail = _from_eml(message)
        builder = ElementBuilder(source)
        meta: dict[str, Any] = {"email": mail.headers, "attachments": []}
        self._mail(mail, builder, meta["attachments"], source, 0)
        subject = mail.headers.get("subject") or Path(source).stem
        return ParsedDocument(
            doc_id="", source=source, title=subject, mime=mime, parser=f"{self.name}/{self.version}",
            elements=builder.elements, meta=meta,
        )

    def _mail(self, mail: Mail, builder: ElementBuilder, attachments: list[dict[str, Any]], source: str, depth: int) -> None:
        subject = mail.headers.get("subject", "")
        if subject:
            builder.heading(1, subject, meta={"method": "email-subject"})
        header_text = "\n".join(f"{name.capitalize()}: {mail.headers[name]}" for name in HEADER_FIELDS if name in mail.headers)
        if header_text:
            builder.add(ElementKind.EMAIL_HEADER, header_text, meta={"method": "email-headers", "headers": mail.headers})
        if mail.text and mail.text.strip():
            for block in _paragraphs(mail.text):
                builder.add(ElementKind.PARAGRAPH, block, meta={"method": "email-text"})
        elif mail.html:
            from bs4 import BeautifulSoup

            HtmlWalker(builder, level_offset=1, extra_meta={"method": "email-html"}).walk(content_root(BeautifulSoup(mail.html, "lxml"), source))
        for attachment in mail.attachments:
            attachments.append(self._attachment(attachment, builder, source, depth))

    def _attachment(self, attachment: Attachment, builder: ElementBuilder, source: str, depth: int) -> dict[str, Any]:
        """Parse one attachment and add its elements under "Attachment: <filename>"; report what happened."""
        name = attachment.filename
        record: dict[str, Any] = {"filename": name, "mime": attachment.mime, "size": len(attachment.data)}
        sub_source = f"{source}#{name}"
        try:
            if attachment.message is not None:
                inner = ElementBuilder(sub_source)
                nested: list[dict[str, Any]] = []
                self._mail(attachment.message, inner, nested, sub_source, depth + 1)
                doc = ParsedDocument("", sub_source, attachment.message.headers.get("subject", name), "message/rfc822", f"{self.name}/{self.version}", inner.elements)
                if nested:
                    record["attachments"] = nested
            else:
                doc = self._parse_bytes(attachment, sub_source, depth)
        except DocumentError as exc:
            record.update(error_code=exc.code.value, error_detail=exc.detail)
            return record
        except Exception as exc:  # one broken attachment must not fail the mail
            record.update(error_code=ErrorCode.PARSE_FAILED.value, error_detail=f"{sub_source}: {type(exc).__name__}: {exc}".splitlines()[0])
            return record
        record.update(parser=doc.parser, mime=doc.mime, elements=_adopt(doc.elements, name, builder))
        if doc.meta.get("page_errors"):
            record["page_errors"] = doc.meta["page_errors"]
        return record

    def _parse_bytes(self, attachment: Attachment, sub_source: str, depth: int) -> ParsedDocument:
        if self.registry is None:
            raise DocumentError(ErrorCode.UNSUPPORTED_FORMAT, f"{sub_source}: attachments need a parser registry")
        if depth >= MAX_DEPTH:
            raise DocumentError(ErrorCode.UNSUPPORTED_FORMAT, f"{sub_source}: attachments nested deeper than {MAX_DEPTH} levels are not read")
        if not attachment.data:
            raise DocumentError(ErrorCode.EMPTY, f"{sub_source}: the attachment is empty")
        safe = _SAFE_NAME.sub("_", Path(attachment.filename).name) or "attachment"
        with tempfile.TemporaryDirectory(prefix="bunko-mail-") as tmp:
            path = Path(tmp) / safe
            path.write_bytes(attachment.data)
            return parse_within(self.registry, path, sub_source)  # an attachment is held to the limits as a file is


def _adopt(elements: list[Element], filename: str, builder: ElementBuilder) -> int:
    """Re-number an attachment's elements into the mail's builder, keeping their links to each other."""
    ids: dict[str, str] = {}
    prefix = f"Attachment: {filename}"
    for element in elements:
        added = builder.add(
            element.kind, element.text, page=element.page, bbox=element.bbox,
            parent_id=ids.get(element.parent_id) if element.parent_id else None,
            meta={**element.meta, "attachment": filename},
        )
        added.section_path = [prefix, *element.section_path]
        ids[element.element_id] = added.element_id
    return len(elements)
