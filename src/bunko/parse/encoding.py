"""Bytes → str for text formats, detecting legacy CJK encodings.

Order matters: a BOM is authoritative; strict UTF-8 is tried next because it
almost never decodes non-UTF-8 text by accident; only then is the statistical
detector (charset-normalizer) asked, restricted to the encodings users'
documents actually come in, so a Shift_JIS file is not read as cp1252 noise.
"""

from __future__ import annotations

import codecs

from charset_normalizer import from_bytes

from bunko.errors import DocumentError
from bunko.schema import ErrorCode

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
LEGACY_ENCODINGS = ("shift_jis", "cp932", "euc_jp", "iso2022_jp", "gb18030", "big5", "euc_kr", "cp1252")


def has_bom(data: bytes) -> bool:
    return any(data.startswith(bom) for bom, _ in _BOMS)


_CONTROL = bytes([*range(0x01, 0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
"""Bytes text never holds (tab, newlines, form feed and escape aside)."""
CONTROL_SHARE = 0.01


def looks_like_text(head: bytes) -> bool:
    """Whether a file's first bytes are text, whatever its name: a BOM; or no NUL, hardly any control bytes, and UTF-8
    (a character cut at the end of `head` allowed) or one of LEGACY_ENCODINGS that decodes them cleanly."""
    if has_bom(head):
        return True
    if b"\x00" in head or len(head.translate(None, _CONTROL)) < len(head) * (1 - CONTROL_SHARE):
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        return True
    except UnicodeDecodeError:
        best = from_bytes(head, cp_isolation=list(LEGACY_ENCODINGS)).best()
        return best is not None and best.encoding is not None


def decode_text(data: bytes, source: str) -> tuple[str, str]:
    """Return (text, encoding name) or raise DocumentError(ENCODING)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(name), name
            except UnicodeDecodeError as exc:
                raise DocumentError(ErrorCode.ENCODING, f"{source}: has a {name} byte-order mark but is not valid {name} ({exc.reason} at byte {exc.start})") from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as utf8_error:
        best = from_bytes(data, cp_isolation=list(LEGACY_ENCODINGS)).best()
        if best is None or best.encoding is None:
            raise DocumentError(
                ErrorCode.ENCODING,
                f"{source}: not valid UTF-8 (byte {utf8_error.start}) and no known encoding "
                f"({', '.join(LEGACY_ENCODINGS[:6])}) decodes it cleanly",
            ) from None
        return str(best), best.encoding
