"""Builds the test Word, PowerPoint and Excel files in en, ja and zh with the libraries users' tools write with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import xlsxwriter
from docx import Document
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Pt
from pptx import Presentation
from pptx.util import Inches

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


@dataclass(frozen=True)
class Office:
    title: str
    h1: str
    p1: str
    footnote: str
    h11: str
    bullets: tuple[str, ...]
    steps: tuple[str, ...]
    table: tuple[tuple[str, ...], ...]
    header: str
    footer: str
    h2: str
    p2: str
    slide1: str
    slide1_body: tuple[str, ...]
    notes: str
    slide2: str
    sheet: str
    items: tuple[tuple[str, int, int], ...]
    total: str


OFFICE = {
    "en": Office(
        title="Expense Handbook", h1="Claims", p1="Submit every claim within thirty days.", footnote="Days are calendar days.",
        h11="Receipts", bullets=("Keep the original receipt", "Write the project code"), steps=("Scan the receipt", "Upload it", "Submit"),
        table=(("Item", "Limit"), ("Hotel", "15000"), ("Meals", "5000")), header="CONFIDENTIAL HEADER", footer="FOOTER PAGE",
        h2="Approval", p2="Managers approve claims weekly.", slide1="Quarterly Review", slide1_body=("Revenue grew", "Costs fell"),
        notes="Mention the new office.", slide2="Budget", sheet="Budget", items=(("Travel", 1200, 300), ("Hotels", 800, 200)), total="Total",
    ),
    "ja": Office(
        title="経費ハンドブック", h1="精算", p1="精算は三十日以内に申請すること。", footnote="日数は暦日で数える。",
        h11="領収書", bullets=("領収書の原本を保管する", "プロジェクトコードを記入する"), steps=("領収書をスキャンする", "アップロードする", "申請する"),
        table=(("項目", "上限"), ("宿泊", "15000"), ("食事", "5000")), header="社外秘ヘッダー", footer="フッター",
        h2="承認", p2="管理職は毎週精算を承認する。", slide1="四半期レビュー", slide1_body=("売上が伸びた", "費用が減った"),
        notes="新しい事務所に触れること。", slide2="予算", sheet="予算", items=(("旅費", 1200, 300), ("宿泊費", 800, 200)), total="合計",
    ),
    "zh": Office(
        title="报销手册", h1="报销", p1="所有报销须在三十天内提交。", footnote="天数按自然日计算。",
        h11="发票", bullets=("保留发票原件", "填写项目代码"), steps=("扫描发票", "上传", "提交"),
        table=(("项目", "上限"), ("住宿", "800"), ("餐饮", "200")), header="内部资料页眉", footer="页脚",
        h2="审批", p2="经理每周审批报销。", slide1="季度回顾", slide1_body=("收入增长", "成本下降"),
        notes="提及新办公室。", slide2="预算", sheet="预算", items=(("差旅", 1200, 300), ("住宿", 800, 200)), total="合计",
    ),
}

_FOOTNOTES_XML = (
    f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes xmlns:w="{W_NS}">'
    '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
    '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>'
    '<w:footnote w:id="1"><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:footnote></w:footnotes>'
)


def make_docx(path: Path, lang: str) -> Path:
    """Title, two heading levels, a footnote, bullet and numbered lists, a table, header/footer, a page break."""
    o = OFFICE[lang]
    doc = Document()
    doc.core_properties.title = ""
    section = doc.sections[0]
    section.header.paragraphs[0].text = o.header
    section.footer.paragraphs[0].text = o.footer
    doc.add_heading(o.title, level=0)
    doc.add_heading(o.h1, level=1)
    paragraph = doc.add_paragraph(o.p1)
    run = paragraph.add_run()
    ref = OxmlElement("w:footnoteReference")
    ref.set(qn("w:id"), "1")
    run._r.append(ref)
    part = Part(
        PackURI("/word/footnotes.xml"), "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml",
        _FOOTNOTES_XML.replace("{text}", o.footnote).encode("utf-8"), doc.part.package,
    )
    doc.part.relate_to(part, RT.FOOTNOTES)
    doc.add_heading(o.h11, level=2)
    for item in o.bullets:
        doc.add_paragraph(item, style="List Bullet")
    for item in o.steps:
        doc.add_paragraph(item, style="List Number")
    table = doc.add_table(rows=len(o.table), cols=len(o.table[0]))
    for r, row in enumerate(o.table):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    doc.add_page_break()
    doc.add_heading(o.h2, level=1)
    body = doc.add_paragraph(o.p2)
    body.runs[0].font.size = Pt(11)
    doc.save(str(path))
    return path


def make_pptx(path: Path, lang: str) -> Path:
    """Slide 1: title + bullets + notes; slide 2: title + a table + a free text box below it."""
    o = OFFICE[lang]
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = o.slide1
    body = slide.placeholders[1].text_frame
    body.text = o.slide1_body[0]
    for line in o.slide1_body[1:]:
        body.add_paragraph().text = line
    slide.notes_slide.notes_text_frame.text = o.notes
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = o.slide2
    box = slide.shapes.add_textbox(Inches(1), Inches(5.5), Inches(6), Inches(1))
    box.text_frame.text = o.p2
    rows, cols = len(o.table), len(o.table[0])
    shape = slide.shapes.add_table(rows, cols, Inches(1), Inches(2), Inches(6), Inches(2))
    for r, row in enumerate(o.table):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = value
    prs.save(str(path))
    return path


def make_xlsx(path: Path, lang: str) -> Path:
    """Sheet 1: a title cell, a merged group header, a table with a SUM formula (cached value); sheet 2: a second table."""
    o = OFFICE[lang]
    wb = xlsxwriter.Workbook(str(path))
    money = wb.add_format({"num_format": "#,##0"})
    ws = wb.add_worksheet(o.sheet)
    ws.write("A1", o.title)
    ws.merge_range("B3:C3", o.sheet)
    ws.write_row("A4", ["", "Q1", "Q2"])
    row = 5
    for name, q1, q2 in o.items:
        ws.write(f"A{row}", name)
        ws.write_number(f"B{row}", q1, money)
        ws.write_number(f"C{row}", q2, money)
        row += 1
    ws.write(f"A{row}", o.total)
    first, last = 5, row - 1
    ws.write_formula(f"B{row}", f"=SUM(B{first}:B{last})", money, sum(i[1] for i in o.items))
    ws.write_formula(f"C{row}", f"=SUM(C{first}:C{last})", money, sum(i[2] for i in o.items))
    ws.write("F4", "Note")
    ws.write("F5", o.p2)
    ws2 = wb.add_worksheet("Rates")
    ws2.write_row("A1", ["Code", "Rate"])
    ws2.write_row("A2", ["JPY", 1])
    ws2.write_row("A3", ["USD", 150.5])
    wb.close()
    return path
