"""The registry picks parsers by content, and every format goes through a real ingest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cfbwriter import write_cfb
from officegen import make_docx, make_pptx, make_xlsx
from pdfgen import TEXTS, make_report, make_scanned
from PIL import Image

from bunko.errors import DocumentError
from bunko.parse.registry import default_registry, sniff_mime
from bunko.schema import ErrorCode, JobStatus


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("mixed")
    files = {
        "pdf": make_report(folder / "report.pdf", "en"),
        "docx": make_docx(folder / "handbook.docx", "ja"),
        "pptx": make_pptx(folder / "deck.pptx", "zh"),
        "xlsx": make_xlsx(folder / "budget.xlsx", "en"),
    }
    (folder / "page.html").write_text("<html><body><h1>T</h1><p>x</p></body></html>", encoding="utf-8")
    (folder / "mail.eml").write_text("From: a@example.com\nTo: b@example.com\nSubject: Hi\n\nHello.\n", encoding="utf-8")
    (folder / "rows.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (folder / "rows.json").write_text('[{"a": 1}]', encoding="utf-8")
    (folder / "rows.jsonl").write_text('{"a": 1}\n', encoding="utf-8")
    (folder / "notes.md").write_text("# Notes\n\nText.\n", encoding="utf-8")
    (folder / "notes.txt").write_text("Plain text.\n", encoding="utf-8")
    Image.new("L", (40, 20), 255).save(folder / "scan.png")
    (folder / "mail.msg").write_bytes(write_cfb({("__substg1.0_0037001F",): "Hi".encode("utf-16-le")}))
    files.update({p.suffix[1:]: p for p in folder.iterdir() if p.suffix[1:] not in files})
    return files


@pytest.mark.parametrize(("kind", "parser_name"), [
    ("pdf", "pdf"), ("docx", "docx"), ("pptx", "pptx"), ("xlsx", "xlsx"), ("html", "html"), ("eml", "email"), ("msg", "email"),
    ("csv", "records"), ("json", "records"), ("jsonl", "records"), ("md", "markdown"), ("txt", "text"), ("png", "image-ocr"),
])
def test_every_format_has_a_registered_parser(mixed: dict[str, Path], kind: str, parser_name: str) -> None:
    parser, _ = default_registry().parser_for(mixed[kind], mixed[kind].name)
    assert parser.name == parser_name


@pytest.mark.parametrize("kind", ["docx", "pptx", "xlsx", "pdf"])
def test_office_and_pdf_files_are_recognised_by_content_whatever_their_name(mixed: dict[str, Path], tmp_path: Path, kind: str) -> None:
    renamed = tmp_path / "download.bin"
    renamed.write_bytes(mixed[kind].read_bytes())
    assert sniff_mime(renamed) == sniff_mime(mixed[kind])
    parser, _ = default_registry().parser_for(renamed, renamed.name)
    assert parser.name == kind


def test_png_named_as_markdown_is_unsupported_not_ocred(tmp_path: Path) -> None:
    path = tmp_path / "image.md"
    Image.new("L", (10, 10)).save(path, format="PNG")
    with pytest.raises(DocumentError) as caught:
        default_registry().parser_for(path, path.name)
    assert caught.value.code == ErrorCode.UNSUPPORTED_FORMAT and "binary" in caught.value.detail


def test_password_protected_office_file_fails_as_encrypted(tmp_path: Path) -> None:
    """Office encrypts a .docx into an OLE file with an EncryptedPackage stream."""
    path = tmp_path / "secret.docx"
    path.write_bytes(write_cfb({("EncryptionInfo",): b"\x04\x00\x04\x00" + bytes(60), ("EncryptedPackage",): bytes(5000)}))
    parser, mime = default_registry().parser_for(path, path.name)
    with pytest.raises(DocumentError) as caught:
        parser.parse(path, path.name, mime)
    assert caught.value.code == ErrorCode.ENCRYPTED and "password" in caught.value.detail


def test_legacy_word_file_is_unsupported_with_its_type_named(tmp_path: Path) -> None:
    path = tmp_path / "old.doc"
    path.write_bytes(write_cfb({("WordDocument",): bytes(600)}))
    with pytest.raises(DocumentError) as caught:
        default_registry().parser_for(path, path.name)
    assert caught.value.code == ErrorCode.UNSUPPORTED_FORMAT and "application/msword" in caught.value.detail


def test_mixed_folder_ingests_with_pages_and_sections_and_a_scanned_page_recorded(make_kb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUNKO_TESSERACT", "/nonexistent/tesseract")
    docs = tmp_path / "docs"
    docs.mkdir()
    make_report(docs / "report-ja.pdf", "ja")
    make_docx(docs / "handbook-zh.docx", "zh")
    make_xlsx(docs / "budget-en.xlsx", "en")
    make_scanned(docs / "scan-en.pdf", "en")
    make_scanned(docs / "scan-only.pdf", "en", text_page_first=False)
    for extra in docs.glob("*.png"):
        extra.unlink()
    for extra in docs.glob("*-source.pdf"):
        extra.unlink()
    kb = make_kb()
    report = kb.ingest([docs])
    outcome = {Path(j.source).name: (j.status, j.error_code) for j in report.jobs}
    assert outcome == {
        "report-ja.pdf": (JobStatus.READY, None),
        "handbook-zh.docx": (JobStatus.READY, None),
        "budget-en.xlsx": (JobStatus.READY, None),
        "scan-en.pdf": (JobStatus.READY, None),
        "scan-only.pdf": (JobStatus.FAILED, "OCR_UNAVAILABLE"),
    }
    scan = next(d for d in kb.documents() if d.source.endswith("scan-en.pdf"))
    assert [(e["page"], e["code"]) for e in scan.meta["page_errors"]] == [(2, "OCR_UNAVAILABLE")]
    hit = kb.search("名古屋 11000", mode="keyword")[0]
    assert hit.chunk.source.endswith("report-ja.pdf")
    assert 3 in hit.chunk.pages and "| 名古屋 | 11000 |" in hit.chunk.text
    assert hit.chunk.section_path == [TEXTS["ja"].title, TEXTS["ja"].h2]


@pytest.mark.parametrize("kind", ["pdf", "docx", "pptx", "xlsx", "html", "eml", "msg", "csv", "json", "jsonl", "md", "txt"])
def test_every_document_names_its_parser_version_and_every_element_its_method(mixed: dict[str, Path], kind: str) -> None:
    path = mixed[kind]
    parser, mime = default_registry().parser_for(path, path.name)
    doc = parser.parse(path, path.name, mime)
    name, _, version = doc.parser.partition("/")
    assert name == parser.name and version
    assert doc.elements
    assert all(e.meta.get("method") for e in doc.elements), [e for e in doc.elements if not e.meta.get("method")][:1]


def test_opening_the_registry_imports_no_pdf_or_office_library() -> None:
    """`bunko search` builds a registry too; it must not pay for pdfplumber, python-docx and the rest."""
    script = (
        "import sys; from bunko.parse.registry import default_registry; default_registry(); "
        "print(sorted(m for m in ('pdfplumber', 'pypdfium2', 'docx', 'pptx', 'openpyxl', 'bs4') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lazy_parser_reports_the_real_parser_version(mixed: dict[str, Path]) -> None:
    parser, mime = default_registry().parser_for(mixed["docx"], "handbook.docx")
    assert parser.version.startswith("python-docx-")
    assert parser.parse(mixed["docx"], "handbook.docx", mime).parser == f"docx/{parser.version}"


@pytest.mark.parametrize(
    ("name", "data", "language"),
    [
        ("changelog.Debian", b"bunko (0.2.0) unstable; urgency=medium\n\n  * Read text files by their content.\n", "en"),
        ("README", "# プロジェクト\n\nこの文書はプロジェクトの説明書です。使い方を説明します。\n".encode(), "ja"),
        ("notes.conf", ("# 配置说明\n\n服务器地址与端口号写在这个文件里，修改后需要重新启动服务。\n" * 4).encode("gb18030"), "zh"),
        ("変更履歴.Debian", ("変更履歴：パーサーの不具合を修正しました。設定ファイルの読み込みを改善しました。\n" * 4).encode("shift_jis"), "ja"),
        ("mz-notes", b"MZ Engineering notes\n\nThe MZ team meets weekly; an executable's signature at the start is not enough.\n", "en"),
    ],
)
def test_a_text_file_of_no_known_extension_is_read_as_text_by_its_content(tmp_path: Path, name: str, data: bytes, language: str) -> None:
    from bunko.text.languages import text_language

    path = tmp_path / name
    path.write_bytes(data)
    parser, mime = default_registry().parser_for(path, name)
    assert (parser.name, mime) == ("text", "text/plain")
    doc = parser.parse(path, name, mime)
    assert text_language(" ".join(e.text for e in doc.elements)) == language


def _zip(path: Path, members: dict[str, bytes]) -> bytes:
    import zipfile

    with zipfile.ZipFile(path, "w") as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    return path.read_bytes()


@pytest.mark.parametrize(
    ("name", "make", "named", "nearest"),
    [
        ("old.doc", lambda p: write_cfb({("WordDocument",): bytes(600)}), "Word 97-2003 document", "save it as .docx"),
        ("budget.xls", lambda p: write_cfb({("Workbook",): bytes(600)}), "Excel 97-2003 workbook", "save it as .xlsx"),
        ("notes.odt", lambda p: _zip(p, {"mimetype": b"application/vnd.oasis.opendocument.text", "content.xml": b"<x/>"}),
         "OpenDocument text", "save it as .docx"),
        ("bundle.bin", lambda p: _zip(p, {"a.txt": b"hello"}), "ZIP archive", "unzip it"),
        ("changelog.Debian.gz", lambda p: __import__("gzip").compress(b"changes\n" * 50), "gzip-compressed", "decompress it"),
        ("tool", lambda p: b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + bytes(200), "Windows program", "no document text"),
        ("blob.dat", lambda p: bytes(range(256)) * 8, "binary content of no known document type", "PDF, Word/PowerPoint/Excel"),
    ],
)
def test_an_unreadable_file_names_what_it_is_and_the_nearest_format_bunko_reads(
    tmp_path: Path, name: str, make, named: str, nearest: str
) -> None:
    path = tmp_path / name
    data = make(path)
    path.write_bytes(data)
    with pytest.raises(DocumentError) as caught:
        default_registry().parser_for(path, name)
    detail = caught.value.detail
    assert caught.value.code == ErrorCode.UNSUPPORTED_FORMAT
    assert detail.startswith(f"{name}: ") and named in detail and nearest in detail
    assert "application/pdf, " not in detail and "text/tab-separated-values" not in detail  # not the list of every MIME type
