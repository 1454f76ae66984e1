"""Generators of hostile files: each blows up one resource of a naive parser, sized by its arguments.

Used by tests/ingest/test_limits.py (small sizes, limits set low) and bench/bench_hostile.py (the sizes of
issue 22: a 374-byte YAML bomb, 200k nested divs, a 1 MB DOCX zip bomb, 5M spreadsheet rows, a 12,000 pt
page, a 50 MiB single line). Text is Japanese, Chinese and English, as users' documents are.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

TEXT = "東京の宿泊費の上限は一泊一万円です。差旅住宿费上限为每晚八百元。The hotel limit is 100 dollars per night. "

GOOD = {
    "good-ja.md": "# 出張規程\n\n宿泊費の上限は一泊一万円です。領収書を添えて精算してください。\n",
    "good-zh.md": "# 差旅制度\n\n住宿费上限为每晚八百元。请附上发票报销。\n",
    "good-en.md": "# Travel policy\n\nThe hotel limit is 100 dollars per night. Attach the receipt to the claim.\n",
}


def good_files(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in GOOD.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def billion_laughs(path: Path, levels: int = 9, width: int = 9) -> Path:
    """YAML front matter whose aliases expand to width**levels values (9, 9: 387 million, in under 1 KB with its body)."""
    lines = ["---", f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * width)}]")
    lines += ["title: 爆弾 炸弹 bomb", "---", "", "# 見出し", "", TEXT]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def deep_html(path: Path, depth: int) -> Path:
    """`depth` nested <div>s around one paragraph."""
    with path.open("w", encoding="utf-8") as out:
        out.write("<!doctype html><html><head><title>入れ子 嵌套 nesting</title></head><body>")
        out.write("<div>" * depth)
        out.write(f"<p>{TEXT}</p>")
        out.write("</div>" * depth)
        out.write("</body></html>")
    return path


def nested_json(path: Path, depth: int) -> Path:
    path.write_text('{"a": ' * depth + f'"{TEXT}"' + "}" * depth, encoding="utf-8")
    return path


_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>{overrides}</Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{items}</Relationships>'
)
_OFFICE_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"


def _stream_member(archive: zipfile.ZipFile, name: str, head: bytes, unit: bytes, count: int, tail: bytes) -> None:
    with archive.open(name, "w", force_zip64=True) as member:
        member.write(head)
        block = unit * max(1, (1 << 20) // len(unit))
        per_block = (1 << 20) // len(unit) or 1
        left = count
        while left >= per_block:
            member.write(block)
            left -= per_block
        member.write(unit * left)
        member.write(tail)


def docx_bomb(path: Path, unpacked_mb: float, level: int = 9) -> Path:
    """A valid Word document whose body is one paragraph repeated to `unpacked_mb` MB (deflate shrinks it ~250×;
    `level` 1 writes faster and packs less: 1 GB into 7 MB)."""
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    unit = f"<w:p><w:r><w:t>{TEXT}</w:t></w:r></w:p>".encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES.format(overrides=(
            '<Override PartName="/word/document.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>')))
        archive.writestr("_rels/.rels", _RELS.format(items=f'<Relationship Id="rId1" Type="{_OFFICE_DOC}" Target="word/document.xml"/>'))
        head = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{w}"><w:body>'.encode()
        _stream_member(archive, "word/document.xml", head, unit, int(unpacked_mb * (1 << 20)) // len(unit), b"</w:body></w:document>")
    return path


def docx_paragraphs(path: Path, unpacked_mb: float, text: str = TEXT * 7, level: int = 6) -> Path:
    """A valid Word document whose body is numbered paragraphs of `text` (1 KB of XML each by default) to `unpacked_mb`
    MB: 250 MB is about 250,000 paragraphs (130 million characters) in a 2 MB file, within `max_unpacked_mb`, past
    `max_elements` and `max_chars`, and a tree python-docx builds in about 1 GB (issue 48)."""
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES.format(overrides=(
            '<Override PartName="/word/document.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>')))
        archive.writestr("_rels/.rels", _RELS.format(items=f'<Relationship Id="rId1" Type="{_OFFICE_DOC}" Target="word/document.xml"/>'))
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            member.write(f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{w}"><w:body>'.encode())
            size, number, block = 0, 0, []
            while size < unpacked_mb * (1 << 20):
                number += 1
                unit = f"<w:p><w:r><w:t>{number} {text}</w:t></w:r></w:p>".encode()
                block.append(unit)
                size += len(unit)
                if len(block) == 1000:
                    member.write(b"".join(block))
                    block = []
            member.write(b"".join(block) + b"</w:body></w:document>")
    return path


def xlsx_rows(path: Path, rows: int, columns: int = 2, compact: bool = False) -> Path:
    """A workbook with one sheet of `rows` rows of an inline string and numbers (no shared strings, as streaming writers
    write them). `compact`: every row the same and without its optional `r` attributes, so millions of rows pack
    into a small file (5M rows of 2 cells: about 0.4 MB, 205 MB unpacked) that only the row count stops."""
    s = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    r = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES.format(overrides=(
            '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>')))
        archive.writestr("_rels/.rels", _RELS.format(items=f'<Relationship Id="rId1" Type="{_OFFICE_DOC}" Target="xl/workbook.xml"/>'))
        archive.writestr("xl/workbook.xml", (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="{s}" xmlns:r="{r}">'
            '<sheets><sheet name="宿泊費" sheetId="1" r:id="rId1"/></sheets></workbook>'))
        archive.writestr("xl/_rels/workbook.xml.rels", _RELS.format(items=(
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" '
            'Target="worksheets/sheet1.xml"/>')))
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as member:
            member.write(f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="{s}"><sheetData>'.encode())
            if compact:
                unit = ("<row>" + "<c><v>1</v></c>" * columns + "</row>").encode()
                for _ in range(rows // 10_000):
                    member.write(unit * 10_000)
                member.write(unit * (rows % 10_000))
            else:
                buffer = io.StringIO()
                for row in range(1, rows + 1):
                    city = ("東京", "上海", "London")[row % 3]
                    numbers = "".join(f"<c><v>{row * column}</v></c>" for column in range(1, columns))
                    buffer.write(f'<row r="{row}"><c t="inlineStr"><is><t>{city}</t></is></c>{numbers}</row>')
                    if row % 10_000 == 0:
                        member.write(buffer.getvalue().encode())
                        buffer = io.StringIO()
                member.write(buffer.getvalue().encode())
            member.write(b"</sheetData></worksheet>")
    return path


def csv_rows(path: Path, rows: int) -> Path:
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write("city,都市,城市,limit\n")
        for row in range(rows):
            out.write(f"Tokyo,東京,东京,{row}\n")
    return path


def huge_page_pdf(path: Path, side_pt: float = 12_000.0) -> Path:
    """One square page of `side_pt` points that is only a picture (a scan): OCR would render all of it."""
    from PIL import Image, ImageDraw
    from reportlab.pdfgen.canvas import Canvas

    picture = path.with_suffix(".png")
    image = Image.new("L", (400, 400), 255)
    ImageDraw.Draw(image).text((20, 180), "hotel limit 100", fill=0)
    image.save(picture)
    canvas = Canvas(str(path), pagesize=(side_pt, side_pt))
    canvas.drawImage(str(picture), 0, 0, width=side_pt, height=side_pt)
    canvas.showPage()
    canvas.save()
    picture.unlink()
    return path


def many_pages_pdf(path: Path, pages: int) -> Path:
    """`pages` small pages, one short line each."""
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=(200, 100))
    for page in range(1, pages + 1):
        canvas.drawString(10, 50, f"page {page}: hotel limit")
        canvas.showPage()
    canvas.save()
    return path


def single_line_text(path: Path, megabytes: float) -> Path:
    """One line, no line break, of `megabytes` MiB of ja/zh/en sentences."""
    unit = TEXT.encode()
    count = int(megabytes * (1 << 20)) // len(unit)
    with path.open("wb") as out:
        block = unit * 1000
        for _ in range(count // 1000):
            out.write(block)
        out.write(unit * (count % 1000))
    return path


def truncated(source: Path, path: Path, keep: float = 0.5) -> Path:
    """The first `keep` share of a file's bytes: a download or copy cut short."""
    data = source.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path
