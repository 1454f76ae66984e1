"""Bytes → str for text formats: UTF-8, UTF-16 with or without a byte-order mark, legacy CJK encodings, and files
whose lines are in different encodings.

Order matters: a BOM is authoritative; then UTF-16 without a BOM of mostly-ASCII text, told by its zero bytes (nearly
every other byte, all at even or all at odd offsets; such bytes are also valid UTF-8, so this comes first); then
strict UTF-8, which almost never decodes non-UTF-8 text by accident; then UTF-16 without a BOM of CJK text with a
zero byte somewhere (a newline, an ASCII character: no legacy encoding writes one), found by the statistical detector
(charset-normalizer); then that detector restricted to the encodings users' documents actually come in, so a
Shift_JIS file is not read as cp1252 noise; then UTF-16 again for CJK text with no zero byte at all (no newline, no
ASCII), which a short legacy text would otherwise be taken for.

A file most of whose non-ASCII bytes are in lines valid as UTF-8, or with some such lines and no legacy encoding
that reads it whole (logs, notes pasted together from several sources), is read line by line (`Decoded.warning` says
how): each line as UTF-8 (one with a few bad bytes, a character cut in two, too), else in the legacy encoding
detected for the lines that are not UTF-8 taken together (a long run of them in its own, when its own detection
says otherwise), else in the one detected for the line; bytes nothing reads are replaced by U+FFFD. A file of two
legacy encodings and no UTF-8 is not split this way: it fails as ENCODING unless one encoding reads it whole. Short
lines are where detection is weakest: a line of a few CJK characters reads cleanly in several encodings, and the
language of the file's UTF-8 lines decides between the ones that do.
"""

from __future__ import annotations

import codecs
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

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
UTF16 = ("utf_16_le", "utf_16_be")


def has_bom(data: bytes) -> bool:
    return any(data.startswith(bom) for bom, _ in _BOMS)


_CONTROL = bytes([*range(0x01, 0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
"""Bytes text never holds (tab, newlines, form feed and escape aside)."""
CONTROL_SHARE = 0.01
_CONTROL_CHARS = frozenset(chr(b) for b in _CONTROL) | {"\x00"}
UTF16_SAMPLE = 1 << 16
"""Bytes looked at to tell UTF-16 without a BOM by its zero bytes."""
UTF16_ZERO_SHARE = 0.3
"""UTF-16 by its zero bytes: at least this share of the 2-byte units have a zero high byte (ASCII and Latin-1 text:
nearly all), and hardly any (a twentieth of that) a zero low byte."""
UTF8_LINE_SHARE = 0.5
"""Share of the non-ASCII bytes of a file that are in lines valid as UTF-8 from which it is a UTF-8 file with some
lines in other encodings (read line by line) rather than one legacy encoding's: legacy CJK text is valid UTF-8 only
by accident, in short lines."""
MIN_RUN_BYTES = 64
"""Non-ASCII bytes a run of consecutive non-UTF-8 lines needs for its own detected encoding to be trusted over the one
detected for all of them (short text is easily taken for another CJK encoding)."""
MAX_DETECTIONS = 200
"""Detector calls for the runs and the single lines of a mixed file, at most (each is about a millisecond)."""


@dataclass(frozen=True)
class Decoded:
    """A text file's characters, the encoding they were read in, and, for a file read line by line, how."""

    text: str
    encoding: str
    warning: str | None = None
    lines: dict[str, int] = field(default_factory=dict)
    """Lines read in each encoding, for a file whose lines are in several (empty otherwise)."""


def _reads_as(data: bytes, encoding: str, whole: bool) -> str | None:
    """`data` decoded strictly (`whole` False: a file's first bytes, a character cut at the end allowed), if it reads as
    text: no NUL and hardly any control characters."""
    try:
        text = codecs.getincrementaldecoder(encoding)().decode(data, final=whole)
    except UnicodeDecodeError:
        return None
    head = text[:UTF16_SAMPLE]
    if not text or "\x00" in text or sum(head.count(c) for c in _CONTROL_CHARS) > len(head) * CONTROL_SHARE:
        return None
    return text


def utf16_by_zeros(data: bytes, whole: bool = True) -> str | None:
    """'utf_16_le' or 'utf_16_be' for UTF-16 without a BOM of mostly ASCII or Latin-1 text, told by its zero bytes: a
    character below U+0100 is its code and a zero byte, the zero after it (LE) or before it (BE)."""
    sample = data[: min(len(data), UTF16_SAMPLE) // 2 * 2]
    units = len(sample) // 2
    if units < 2 or (whole and len(data) % 2):
        return None
    low, high = sample[0::2].count(0), sample[1::2].count(0)  # zeros at even, odd offsets
    for zeros, stray, encoding in ((high, low, "utf_16_le"), (low, high, "utf_16_be")):
        if zeros >= UTF16_ZERO_SHARE * units and stray * 20 <= zeros:
            return encoding if _reads_as(data if whole else sample, encoding, whole) is not None else None
    return None


def utf16_detected(data: bytes, whole: bool = True, zeros: bool = True) -> str | None:
    """UTF-16 without a BOM by its zero bytes, else by charset-normalizer (CJK text: few zero bytes), strictly decoded;
    never bytes that are UTF-8 (stray zero bytes and all), which CJK text in UTF-16 never is.

    `zeros`: only bytes with a zero among them (a newline or an ASCII character in UTF-16), which no legacy encoding
    writes. Without one (CJK text with no ASCII at all), bytes in UTF-16 are also the bytes of a short legacy text:
    `decode` asks for that only once the legacy encodings have failed."""
    found = utf16_by_zeros(data, whole)
    if found is not None:
        return found
    if zeros and b"\x00" not in data:
        return None
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=whole)
        return None
    except UnicodeDecodeError:
        pass
    sample = data if whole else data[: len(data) // 2 * 2]
    if not whole and len(sample) >= 2 and (0xD8 <= sample[-1] <= 0xDB or 0xD8 <= sample[-2] <= 0xDB):
        sample = sample[:-2]  # the first half of a character the head cuts in two (LE or BE): not a decoding error
    if len(sample) < 4 or len(sample) % 2:
        return None
    best = from_bytes(sample, cp_isolation=list(UTF16)).best()
    if best is None or best.encoding not in UTF16:
        return None
    return best.encoding if _reads_as(sample, best.encoding, whole) is not None else None


def looks_like_text(head: bytes) -> bool:
    """Whether a file's first bytes are text, whatever its name: a BOM; UTF-16 without one; or no NUL, hardly any control
    bytes, and UTF-8 (a character cut at the end of `head` allowed) or one of LEGACY_ENCODINGS that decodes them cleanly."""
    if has_bom(head):
        return True
    if b"\x00" in head:
        return utf16_detected(head, whole=False) is not None
    controls = len(head.translate(None, _CONTROL)) < len(head) * (1 - CONTROL_SHARE)
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        return not controls
    except UnicodeDecodeError:
        pass
    best = from_bytes(head, cp_isolation=list(LEGACY_ENCODINGS)).best() if not controls else None
    if best is not None and best.encoding is not None:
        return True
    return utf16_detected(head, whole=False, zeros=False) is not None  # CJK text in UTF-16 may hold any byte but zero


def _detect(data: bytes, prefer: tuple[str, ...] = (), rerank: bool = True) -> str | None:
    """The legacy encoding charset-normalizer finds for `data`, if it also decodes all of it strictly.

    Short text (under MIN_RUN_BYTES non-ASCII bytes: a line of a mixed file) fits several CJK encodings about as
    well, and the detector's first guess is often wrong (EUC-JP read as EUC-KR): with `rerank` its candidates are then
    ranked again, the ones that decode into characters text hardly holds (isolated Hangul letters, half-width kana,
    private-use and rare ideographs) set back, and the encodings of the language the file's UTF-8 lines are in
    (`prefer`) put forward among the ones as good."""
    matches = [m for m in from_bytes(data, cp_isolation=list(LEGACY_ENCODINGS)) if m.encoding]
    if not matches:
        return None
    if rerank and _non_ascii(data) < MIN_RUN_BYTES:
        matches.sort(key=lambda m: m.chaos + _unlikely_share(str(m)) - (PREFERENCE if m.encoding in prefer else 0.0))
    for match in matches[:1]:
        try:
            data.decode(match.encoding)
        except (UnicodeDecodeError, LookupError):
            return None
        return match.encoding
    return None


PREFERENCE = 0.03
"""What being an encoding of the file's UTF-8 lines' language is worth, in charset-normalizer's chaos (0 to 1)."""
_UNLIKELY = (
    (0x0370, 0x04FF), (0x1100, 0x11FF), (0x2500, 0x257F), (0x3130, 0x318F), (0x3400, 0x4DBF), (0xE000, 0xF8FF),
    (0xF900, 0xFAFF), (0xFF61, 0xFF9F),
)
"""Greek and Cyrillic, Hangul letters (a word is written in syllables), box drawing, CJK extension A, private use,
compatibility ideographs, half-width katakana: what a CJK line decoded in the wrong encoding is full of."""
_FAMILIES = {
    "ja": ("shift_jis", "cp932", "euc_jp", "iso2022_jp"),
    "zh": ("gb18030", "big5"),
    "ko": ("euc_kr",),
}


def _unlikely_share(text: str) -> float:
    wide = [ord(c) for c in text if ord(c) > 127]
    if not wide:
        return 0.0
    return sum(1 for o in wide if any(lo <= o <= hi for lo, hi in _UNLIKELY)) / len(wide)


def _language_encodings(text: str) -> tuple[str, ...]:
    """The legacy encodings of the language `text` (a file's UTF-8 lines) is written in: kana → Japanese, Hangul →
    Korean, Han without kana → Chinese."""
    sample = text[:100_000]
    if any("\u3040" <= c <= "\u30ff" for c in sample):
        return _FAMILIES["ja"]
    if any("\uac00" <= c <= "\ud7a3" for c in sample):
        return _FAMILIES["ko"]
    if any("\u4e00" <= c <= "\u9fff" for c in sample):
        return _FAMILIES["zh"]
    return ()


def decode(data: bytes, source: str) -> Decoded:
    """A text file's bytes as text (see the module doc for the order tried), or DocumentError(ENCODING)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            try:
                return Decoded(data.decode(name), name)
            except UnicodeDecodeError as exc:
                raise DocumentError(ErrorCode.ENCODING, f"{source}: has a {name} byte-order mark but is not valid {name} ({exc.reason} at byte {exc.start})") from None
    if b"\x00" in data[:UTF16_SAMPLE] and (utf16 := utf16_by_zeros(data)) is not None:
        return Decoded(data.decode(utf16), utf16)
    try:
        return Decoded(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError as utf8_error:
        failure = utf8_error
    if (utf16 := utf16_detected(data)) is not None:
        return Decoded(data.decode(utf16), utf16)
    lines = data.splitlines(keepends=True)
    utf8_share = _utf8_share(lines)
    if utf8_share < UTF8_LINE_SHARE and (legacy := _detect(data, rerank=False)) is not None:
        return Decoded(data.decode(legacy), legacy)
    if b"\x00" not in data and (utf16 := utf16_detected(data, zeros=False)) is not None:
        return Decoded(data.decode(utf16), utf16)
    if utf8_share > 0:
        return _by_line(lines)
    raise DocumentError(
        ErrorCode.ENCODING,
        f"{source}: not valid UTF-8 (byte {failure.start}) and no known encoding "
        f"({', '.join(LEGACY_ENCODINGS[:6])}) decodes it cleanly",
    )


def encoding_meta(decoded: Decoded) -> dict[str, Any]:
    """What a parser records of how its file was decoded: meta["encoding"], and for a file read line by line the lines
    per encoding and the warning the ingest report shows (meta["warnings"])."""
    meta: dict[str, Any] = {"encoding": decoded.encoding}
    if decoded.lines:
        meta["encoding_lines"] = dict(decoded.lines)
    if decoded.warning:
        meta["warnings"] = [decoded.warning]
    return meta


def _utf8(line: bytes) -> str | None:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _utf8_share(lines: list[bytes]) -> float:
    """Share of the non-ASCII bytes that are in lines valid as UTF-8."""
    utf8 = other = 0
    for line in lines:
        if line.isascii():
            continue
        size = len(line) - len(line.translate(None, bytes(range(128))))
        if _utf8(line) is not None:
            utf8 += size
        else:
            other += size
    return utf8 / (utf8 + other) if utf8 + other else 0.0


def _damaged_utf8(line: bytes) -> str | None:
    """A UTF-8 line with a few bad bytes (a character cut in two, one flipped byte), read with them replaced: most of
    its non-ASCII characters decode, where a legacy line decodes to hardly any."""
    text = line.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    good = sum(1 for c in text if ord(c) > 127) - bad
    return text if good >= 4 * bad else None


def _runs(indices: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for i in indices:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _non_ascii(data: bytes) -> int:
    return len(data) - len(data.translate(None, bytes(range(128))))


def _by_line(lines: list[bytes]) -> Decoded:
    """Each line as UTF-8, or in the best legacy encoding for it (see the module doc), or with U+FFFD for what none reads."""
    texts: list[str] = []
    read_as: Counter[str] = Counter()
    pending: list[int] = []
    replaced = 0
    for i, line in enumerate(lines):
        text = _utf8(line)
        if text is None and (text := _damaged_utf8(line)) is not None:
            replaced += text.count("\ufffd")
        if text is None:
            pending.append(i)
            texts.append("")
        else:
            texts.append(text)
            if not line.isascii():
                read_as["utf-8"] += 1
    prefer = _language_encodings("".join(texts))
    joint = _detect(b"".join(lines[i] for i in pending), prefer) if pending else None
    detections = 0
    left: list[int] = []
    for run in _runs(pending):
        data = b"".join(lines[i] for i in run)
        own = None
        if _non_ascii(data) >= MIN_RUN_BYTES and detections < MAX_DETECTIONS:
            detections += 1
            own = _detect(data, prefer)
        for i in run:
            for encoding in (own, joint):
                if encoding is not None and (text := _decodes(lines[i], encoding)) is not None:
                    texts[i] = text
                    read_as[encoding] += 1
                    break
            else:
                left.append(i)
    for i in left:
        encoding = None
        if detections < MAX_DETECTIONS:
            detections += 1
            encoding = _detect(lines[i], prefer)
        if encoding is not None:
            texts[i] = lines[i].decode(encoding)
            read_as[encoding] += 1
        else:
            texts[i] = lines[i].decode("utf-8", errors="replace")
            replaced += texts[i].count("\ufffd")
            read_as["utf-8"] += 1
    names = ", ".join(f"{name} ({count:,})" for name, count in read_as.most_common())
    warning = f"mixed encodings: {sum(read_as.values()):,} lines of non-ASCII text read line by line, as {names}"
    if replaced:
        warning += f"; bytes no encoding reads replaced by {replaced:,} U+FFFD"
    return Decoded("".join(texts), "mixed: " + "+".join(read_as), warning, dict(read_as))


def _decodes(line: bytes, encoding: str) -> str | None:
    try:
        return line.decode(encoding)
    except UnicodeDecodeError:
        return None
