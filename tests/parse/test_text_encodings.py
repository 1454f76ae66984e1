"""Plain text in the encodings users' files actually come in."""

from __future__ import annotations

from pathlib import Path

import pytest

from bunko.errors import DocumentError
from bunko.parse.text import TextParser

JA = "出張の宿泊費の上限は一泊一万二千円です。\n\n精算は三十日以内に行ってください。"
ZH = "年假每年十五天。\n\n病假需要医生证明，婚假三天。"
ZH_TW = "年假每年十五天。\n\n病假需要醫生證明，婚假三天。"


@pytest.mark.parametrize(
    ("text", "encoding", "bom"),
    [
        (JA, "utf-8", b""),
        (JA, "utf-16-le", b"\xff\xfe"),
        (JA, "utf-16-be", b"\xfe\xff"),
        (JA, "shift_jis", b""),
        (JA, "euc_jp", b""),
        (ZH, "gb18030", b""),
        (ZH_TW, "big5", b""),
        ("Plain English text.\n\nSecond paragraph here.", "utf-8", b"\xef\xbb\xbf"),
    ],
)
def test_encoding_is_detected_and_paragraphs_split(tmp_path: Path, text: str, encoding: str, bom: bytes) -> None:
    path = tmp_path / "doc.txt"
    path.write_bytes(bom + text.encode(encoding))
    doc = TextParser().parse(path, "doc.txt", "text/plain")
    assert [e.text for e in doc.elements] == text.split("\n\n")
    assert doc.elements[1].meta["lines"] == [3, 3]


def test_undecodable_bytes_fail_with_encoding(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"ok \xff\xfe\x80\x81 \xc3\x28 \x9d\x8f")
    with pytest.raises(DocumentError) as error:
        TextParser().parse(path, "bad.txt", "text/plain")
    assert error.value.code == "ENCODING" and "bad.txt" in error.value.detail
