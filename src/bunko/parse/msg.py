"""Outlook .msg files read directly with olefile (BSD), as a plain `Mail` the mail parser also gets from .eml.

A .msg is an OLE compound file whose MAPI properties are streams named
``__substg1.0_<PROPID><TYPE>``. Only the handful a reader needs are read:
subject, sender, recipients, date, plain and HTML body, and attachments
(files and embedded messages). extract-msg would do this too but is GPL, which
the default install avoids.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import struct
from dataclasses import dataclass, field
from email.parser import HeaderParser

import olefile

_UNICODE, _STRING8, _BINARY, _OBJECT, _SYSTIME = 0x001F, 0x001E, 0x0102, 0x000D, 0x0040
PR_SUBJECT, PR_SENDER_NAME, PR_SENDER_EMAIL, PR_SMTP_SENDER = 0x0037, 0x0C1A, 0x0C1F, 0x5D01
PR_DISPLAY_TO, PR_DISPLAY_CC, PR_BODY, PR_HTML, PR_HEADERS = 0x0E04, 0x0E03, 0x1000, 0x1013, 0x007D
PR_CLIENT_SUBMIT_TIME, PR_DELIVERY_TIME, PR_CODEPAGE = 0x0039, 0x0E06, 0x3FFD
PR_ATTACH_DATA, PR_ATTACH_LONG_NAME, PR_ATTACH_NAME, PR_ATTACH_MIME = 0x3701, 0x3707, 0x3704, 0x370E


@dataclass
class Attachment:
    filename: str
    data: bytes
    mime: str = ""
    message: Mail | None = None


@dataclass
class Mail:
    headers: dict[str, str]
    text: str | None = None
    html: str | None = None
    attachments: list[Attachment] = field(default_factory=list)


class _Storage:
    """Reads MAPI properties from one storage (the message, an attachment, or an embedded message)."""

    def __init__(self, ole: olefile.OleFileIO, prefix: list[str], header_size: int) -> None:
        self.ole = ole
        self.prefix = prefix
        self.header_size = header_size

    def _stream(self, prop: int, kind: int) -> bytes | None:
        path = [*self.prefix, f"__substg1.0_{prop:04X}{kind:04X}"]
        return self.ole.openstream(path).read() if self.ole.exists(path) else None

    def string(self, prop: int) -> str | None:
        raw = self._stream(prop, _UNICODE)
        if raw is not None:
            return raw.decode("utf-16-le", "replace").rstrip("\x00")
        raw = self._stream(prop, _STRING8)
        if raw is not None:
            return raw.decode(self.codepage(), "replace").rstrip("\x00")
        return None

    def binary(self, prop: int) -> bytes | None:
        return self._stream(prop, _BINARY)

    def codepage(self) -> str:
        value = self.fixed(PR_CODEPAGE)
        return f"cp{value & 0xFFFF}" if value else "cp1252"

    def fixed(self, prop: int) -> int | None:
        """A fixed-size property (dates, integers) from the __properties_version1.0 stream."""
        path = [*self.prefix, "__properties_version1.0"]
        if not self.ole.exists(path):
            return None
        data = self.ole.openstream(path).read()
        for offset in range(self.header_size, len(data) - 15, 16):
            tag, _flags, value = struct.unpack_from("<IIQ", data, offset)
            if tag >> 16 == prop:
                return value
        return None

    def time(self, prop: int) -> dt.datetime | None:
        value = self.fixed(prop)
        if not value:
            return None
        return dt.datetime(1601, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=value // 10)

    def children(self, prefix: str) -> list[str]:
        depth = len(self.prefix)
        names = {entry[depth] for entry in self.ole.listdir(streams=True, storages=True) if len(entry) > depth and entry[:depth] == self.prefix}
        return sorted(n for n in names if n.startswith(prefix))


def _mail(storage: _Storage, depth: int) -> Mail:
    raw_headers = storage.string(PR_HEADERS)
    parsed = HeaderParser().parsestr(raw_headers) if raw_headers else None
    sender_name = storage.string(PR_SENDER_NAME)
    sender_mail = storage.string(PR_SMTP_SENDER) or storage.string(PR_SENDER_EMAIL)
    # Not email.utils.formataddr: it would RFC 2047-encode a Japanese display name.
    sender = (f"{sender_name} <{sender_mail}>" if sender_name else sender_mail) if sender_mail and "@" in sender_mail else sender_name
    when = storage.time(PR_CLIENT_SUBMIT_TIME) or storage.time(PR_DELIVERY_TIME)

    def transport(name: str) -> str:
        """The transport header, the fallback when the MAPI property is absent."""
        return parsed.get(name, "") if parsed else ""

    headers = {
        "from": sender or transport("From"),
        "to": storage.string(PR_DISPLAY_TO) or transport("To"),
        "cc": storage.string(PR_DISPLAY_CC) or transport("Cc"),
        "date": email.utils.format_datetime(when) if when else transport("Date"),
        "subject": storage.string(PR_SUBJECT) or transport("Subject"),
    }
    html_raw = storage.binary(PR_HTML)
    html = html_raw.decode("utf-8", "replace") if html_raw is not None else storage.string(PR_HTML)
    mail = Mail({k: v for k, v in headers.items() if v}, text=storage.string(PR_BODY), html=html)
    for name in storage.children("__attach_version1.0_#"):
        attach = _Storage(storage.ole, [*storage.prefix, name], 8)
        filename = attach.string(PR_ATTACH_LONG_NAME) or attach.string(PR_ATTACH_NAME) or name
        embedded = [*attach.prefix, f"__substg1.0_{PR_ATTACH_DATA:04X}{_OBJECT:04X}"]
        if storage.ole.exists(embedded) and depth < 3:
            inner = _mail(_Storage(storage.ole, embedded, 24), depth + 1)
            mail.attachments.append(Attachment(filename, b"", "message/rfc822", inner))
        else:
            mail.attachments.append(Attachment(filename, attach.binary(PR_ATTACH_DATA) or b"", attach.string(PR_ATTACH_MIME) or ""))
    return mail


def read_msg(path: str) -> Mail:
    """Raises OSError / olefile errors on a file that is not a readable compound file."""
    with olefile.OleFileIO(path) as ole:
        return _mail(_Storage(ole, [], 32), 0)
