"""Plain text in the encodings users' files actually come in."""

from __future__ import annotations

import codecs
from collections.abc import Callable
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.errors import DocumentError
from bunko.parse.registry import default_registry
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


# -- UTF-16 without a byte-order mark ------------------------------------------------------------------------------

EN = "The parking permit is renewed every April.\n\nVisitors sign in at the front desk."
NO_BOM = [(EN, "utf_16_le"), (EN, "utf_16_be"), (JA, "utf_16_le"), (JA, "utf_16_be"), (ZH, "utf_16_le"), (ZH, "utf_16_be")]


@pytest.mark.parametrize(("text", "encoding"), NO_BOM, ids=[f"{t[:2]}-{e}" for t, e in NO_BOM])
def test_utf16_without_a_byte_order_mark_is_read(tmp_path: Path, text: str, encoding: str) -> None:
    """Mostly-ASCII text by its zero bytes (every other byte, all on one side); CJK text by the detector."""
    data = text.encode(encoding)
    assert not data.startswith((b"\xff\xfe", b"\xfe\xff"))
    for name in ("doc.txt", "notes"):  # named as text, and of no extension: sniffed as text, not as binary
        path = tmp_path / name
        path.write_bytes(data)
        parser, mime = default_registry().parser_for(path, name)
        assert mime == "text/plain"
        doc = parser.parse(path, name, mime)
        assert [e.text for e in doc.elements] == text.split("\n\n")
        assert doc.meta["encoding"] == encoding and "warnings" not in doc.meta


@pytest.mark.parametrize("encoding", ["utf_16_le", "utf_16_be"])
def test_utf16_cjk_whose_first_bytes_end_inside_a_character_is_sniffed_as_text(tmp_path: Path, encoding: str) -> None:
    """The registry looks at 8,192 bytes; here they end between the two halves of 𠮷 (a character past U+FFFF)."""
    line = "吉野家の牛丼は並盛り四百円です。\n"
    head = (line * 300)[:4095]
    text = head + "𠮷野家の看板。\n" + line * 10
    path = tmp_path / "menu.txt"
    path.write_bytes(text.encode(encoding))
    assert text.encode(encoding)[8190:8194] == "𠮷".encode(encoding)
    parser, mime = default_registry().parser_for(path, "menu.txt")
    assert mime == "text/plain"
    doc = parser.parse(path, "menu.txt", mime)
    assert doc.meta["encoding"] == encoding and "𠮷野家の看板。" in doc.elements[0].text


def test_utf16_without_a_byte_order_mark_in_html_and_markdown(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_bytes("<html><body><main><h1>受付</h1><p>Visitors sign in at the front desk.</p></main></body></html>".encode("utf_16_le"))
    notes = tmp_path / "notes.md"
    notes.write_bytes("# 停车\n\nThe parking permit is renewed every April.\n".encode("utf_16_be"))
    registry = default_registry()
    for path, heading, body in ((page, "受付", "Visitors sign in at the front desk."), (notes, "停车", "The parking permit is renewed every April.")):
        parser, mime = registry.parser_for(path, path.name)
        doc = parser.parse(path, path.name, mime)
        assert [e.text for e in doc.elements] == [heading, body]


@pytest.mark.parametrize(("text", "encoding"), [("休暇は年間二十日です。", "shift_jis"), ("住宿费上限为每晚八百元。", "gbk"), ("請假三天", "big5")])
def test_a_short_legacy_text_is_not_taken_for_utf16(tmp_path: Path, text: str, encoding: str) -> None:
    """Its bytes, of even length and no zero, are CJK in UTF-16 (big-endian) as well: the legacy encodings come first."""
    path = tmp_path / "short.txt"
    path.write_bytes(text.encode(encoding))
    assert len(path.read_bytes()) % 2 == 0 and text.encode(encoding).decode("utf_16_be")
    doc = TextParser().parse(path, "short.txt", "text/plain")
    assert doc.elements[0].text == text and not doc.meta["encoding"].startswith("utf_16")


def test_utf8_with_stray_zero_bytes_stays_utf8(tmp_path: Path) -> None:
    text = "2024-06-03 受付を開始しました。\x00\nThe front desk opens at nine.\x00\n"
    path = tmp_path / "stray.log"
    path.write_bytes(b"x" * 9000 + text.encode())  # the zero bytes past the first 8,192, where sniffing looks
    doc = TextParser().parse(path, "stray.log", "text/plain")
    assert doc.meta["encoding"] == "utf-8" and doc.elements[0].text.endswith(text.rstrip())


def test_binary_with_zero_bytes_is_not_taken_for_utf16(tmp_path: Path) -> None:
    path = tmp_path / "table.bin"
    path.write_bytes(b"".join(n.to_bytes(2, "little") for n in range(256)) * 32)  # 16-bit numbers: "UTF-16" of controls
    with pytest.raises(DocumentError) as error:
        default_registry().parser_for(path, "table.bin")
    assert error.value.code == "UNSUPPORTED_FORMAT"


# -- a file of several encodings, read line by line ----------------------------------------------------------------

LOG_JA = ["2024-06-03 09:00 受付を開始しました。", "2024-06-03 09:05 来客の登録が完了しました。", "2024-06-03 09:10 鍵の貸出を記録しました。"]
LOG_ZH = ["2024-06-03 09:00 系统开始受理请求。", "2024-06-03 09:05 访客登记已完成。", "2024-06-03 09:10 钥匙借出已记录。"]
LOG_TW = ["2024-06-03 09:00 系統開始受理請求。", "2024-06-03 09:05 訪客登記已完成。", "2024-06-03 09:10 鑰匙借出已記錄。"]
MIXED = [
    # UTF-8 lines, lines in another encoding, the encoding, a word only the other lines hold
    (LOG_JA, ["2024-06-03 10:00 会議室の予約は総務部が受け付けます。", "2024-06-03 10:30 総務部の窓口は正午に閉まります。"], "shift_jis", "総務部"),
    (LOG_JA, ["2024-06-03 11:00 備品の発注は毎月二十日に締め切ります。"], "euc_jp", "備品の発注"),
    (LOG_ZH, ["2024-06-03 12:00 报销单需要部门经理签字后提交。", "2024-06-03 12:30 部门经理每周五审批报销单。"], "gbk", "部门经理"),
    (LOG_ZH, ["2024-06-03 13:00 出差补贴按实际天数计算发放。"], "gb18030", "出差补贴"),
    (LOG_TW, ["2024-06-03 14:00 請假申請需附上醫生證明文件。"], "big5", "醫生證明"),
]


def _mixed(utf8: list[str], other: list[str], encoding: str, separator: str = " ") -> tuple[bytes, str]:
    """A log of UTF-8 lines with the `other` ones, in `encoding`, in between: bytes and the text they hold. `separator`
    between a line's date, time and message (a comma: CSV rows)."""
    lines = [utf8[0], *other, *utf8[1:]]
    data = b"".join((line.replace(" ", separator, 2) + "\n").encode(encoding if line in other else "utf-8") for line in lines)
    return data, "".join(line.replace(" ", separator, 2) + "\n" for line in lines)


@pytest.mark.parametrize(("utf8", "other", "encoding", "word"), MIXED, ids=[m[2] for m in MIXED])
def test_a_utf8_file_with_lines_in_a_legacy_encoding_is_read_line_by_line(
    tmp_path: Path, utf8: list[str], other: list[str], encoding: str, word: str,
) -> None:
    data, text = _mixed(utf8, other, encoding)
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    path = tmp_path / "app.log"
    path.write_bytes(data)
    doc = TextParser().parse(path, "app.log", "text/plain")
    assert "\n".join(e.text for e in doc.elements) == text.strip()
    read_as = doc.meta["encoding_lines"]
    assert read_as["utf-8"] == len(utf8) and sum(read_as.values()) == len(utf8) + len(other)
    (legacy,) = set(read_as) - {"utf-8"}
    assert codecs.lookup(legacy).name in {codecs.lookup(encoding).name, *EQUIVALENT.get(encoding, ())}
    assert doc.meta["warnings"] == [
        f"mixed encodings: {len(utf8) + len(other)} lines of non-ASCII text read line by line, as utf-8 ({len(utf8)}), {legacy} ({len(other)})"
    ]


EQUIVALENT = {"shift_jis": ("cp932",), "gbk": ("gb18030",), "gb18030": ("gbk",)}
"""A superset the detector names for the encoding a line was written in (the same bytes, the same characters)."""


def test_a_utf8_line_cut_in_the_middle_of_a_character_keeps_the_rest(tmp_path: Path) -> None:
    cut = "2024-06-03 15:00 この行は途中で切れています".encode()[:-1]
    path = tmp_path / "cut.log"
    path.write_bytes("\n".join(LOG_JA).encode() + b"\n" + cut + b"\n")
    doc = TextParser().parse(path, "cut.log", "text/plain")
    assert doc.elements[0].text.endswith("この行は途中で切れていま\ufffd")
    assert doc.meta["encoding_lines"] == {"utf-8": 4}
    assert doc.meta["warnings"][0].endswith("; bytes no encoding reads replaced by 1 U+FFFD")


def test_a_legacy_file_is_still_read_whole_in_its_encoding(tmp_path: Path) -> None:
    """One encoding that reads the whole file wins over reading it line by line: no warning."""
    path = tmp_path / "sjis.txt"
    path.write_bytes("\n".join(LOG_JA).encode("shift_jis"))
    doc = TextParser().parse(path, "sjis.txt", "text/plain")
    assert doc.elements[0].text == "\n".join(LOG_JA)
    assert doc.meta["encoding"] == "cp932" and "warnings" not in doc.meta


def test_files_in_the_encodings_people_have_are_ingested_and_found(make_kb: Callable[..., Bunko], tmp_path: Path) -> None:
    """Through `Bunko.ingest`: UTF-16 without a BOM (en, ja, zh), and UTF-8 files (text, Markdown, CSV) with lines in
    Shift_JIS, EUC-JP, GBK, GB18030 and Big5; each found by a word of what was not UTF-8, each mixed one with its warning."""
    folder = tmp_path / "docs"
    folder.mkdir()
    files: dict[str, tuple[bytes, str]] = {
        "permit-en.txt": ("The parking permit is renewed every April.\n".encode("utf_16_le"), "parking permit"),
        "desk-en.txt": ("Visitors sign in at the front desk.\n".encode("utf_16_be"), "front desk"),
        "card-ja.txt": ("社員証の再発行には三日かかります。\n".encode("utf_16_le"), "社員証の再発行"),
        "canteen-zh.txt": ("员工餐厅周末不营业。\n".encode("utf_16_be"), "员工餐厅"),
    }
    for n, (utf8, other, encoding, word) in enumerate(MIXED):
        name = (f"log-{encoding}.log", f"notes-{encoding}.md", f"rows-{encoding}.csv")[n % 3]
        if name.endswith(".csv"):
            data = b"date,time,message\n" + _mixed(utf8, other, encoding, ",")[0]
        elif name.endswith(".md"):
            data = "# 記録 记录\n\n".encode() + _mixed(utf8, other, encoding)[0]
        else:
            data = _mixed(utf8, other, encoding)[0]
        files[name] = (data, word)
    for name, (data, _) in files.items():
        (folder / name).write_bytes(data)
    kb = make_kb()
    report = kb.ingest(folder)
    assert report.ok, [(j.source, j.error_detail) for j in report.failed]
    warnings = dict(report.warnings)
    for name, (_, word) in files.items():
        source = f"docs/{name}"
        assert any(h.chunk.source == source for h in kb.search(word, mode="keyword", k=5)), f"{word} not found in {name}"
        if name.startswith(("log-", "notes-", "rows-")):
            assert warnings[source].startswith("mixed encodings: ") and "utf-8 (" in warnings[source]
        else:
            assert source not in warnings
    stored = {d.source: d for d in kb.documents()}
    assert stored["docs/log-shift_jis.log"].meta["warnings"] == [warnings["docs/log-shift_jis.log"]]
    assert stored["docs/rows-gbk.csv"].meta["field_names"] == ["date", "time", "message"]
    records = [c.text for c in kb.chunks("docs/rows-gbk.csv")]
    assert any("message: 报销单需要部门经理签字后提交。" in text for text in records)
