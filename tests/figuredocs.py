"""Documents with pictures for the figure tests: a PDF (reportlab), a Word file and a slide deck, each holding one
picture with words drawn in it (for OCR) and a caption beside it, in en, ja and zh; and an icon that must be left out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image, ImageDraw
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen.canvas import Canvas

for _font in ("HeiseiMin-W3", "HeiseiKakuGo-W5", "STSong-Light"):
    pdfmetrics.registerFont(UnicodeCIDFont(_font))

WIDTH, HEIGHT = A4


@dataclass(frozen=True)
class Fonts:
    regular: str
    bold: str
    title: str
    p1: str


TEXTS = {
    "en": Fonts("Helvetica", "Helvetica-Bold", "Storage report", "Backups run every night and are kept for thirty days."),
    "ja": Fonts("HeiseiMin-W3", "HeiseiKakuGo-W5", "ストレージ報告", "バックアップは毎晩実行され、三十日間保存される。"),
    "zh": Fonts("STSong-Light", "STSong-Light", "存储报告", "备份每晚运行，并保留三十天。"),
}


@dataclass(frozen=True)
class FigureTexts:
    caption: str
    drawn: str
    """The words drawn inside the picture: found only by OCR."""
    body: str
    caption_question: str
    ocr_question: str


FIGURE_TEXTS = {
    "en": FigureTexts("Figure 2: Quarterly revenue by region", "NIGHTLY BACKUP", "The report below compares the regions.",
                      "Which figure shows quarterly revenue by region?", "nightly backup"),
    "ja": FigureTexts("図2 地域別の四半期売上", "夜間バックアップ", "以下の報告では地域を比較する。",
                      "地域別の四半期売上の図はどれですか", "夜間バックアップ"),
    "zh": FigureTexts("图2 各地区季度销售额", "夜间备份计划", "下面的报告比较各个地区。",
                      "各地区季度销售额的图是哪一个", "夜间备份计划"),
}


def text_picture(lang: str, text: str, size: tuple[int, int] = (640, 240)) -> Image.Image:
    """A picture holding `text` in large type (drawn by reportlab's CID fonts, so CJK needs no system font)."""
    import tempfile

    pdf_path = Path(tempfile.mkdtemp(prefix="bunko-fig-")) / f"text-{lang}.pdf"
    c = Canvas(str(pdf_path), pagesize=(size[0] * 0.75, size[1] * 0.75))
    c.setFillColorRGB(0.93, 0.96, 1.0)
    c.rect(0, 0, size[0] * 0.75, size[1] * 0.75, fill=1, stroke=0)
    c.setFillColorRGB(0.05, 0.05, 0.2)
    c.setFont(TEXTS[lang].bold, 34)
    c.drawString(24, size[1] * 0.75 / 2 - 12, text)
    c.showPage()
    c.save()
    pdf = pdfium.PdfDocument(pdf_path)
    try:
        image = pdf[0].render(scale=1 / 0.75).to_pil().convert("RGB")
    finally:
        pdf.close()
        pdf_path.unlink(missing_ok=True)
    return image


def icon() -> Image.Image:
    image = Image.new("RGB", (16, 16), "white")
    ImageDraw.Draw(image).ellipse((2, 2, 14, 14), fill="red")
    return image


def save(image: Image.Image, path: Path) -> Path:
    image.save(path)
    return path


def figure_pdf(path: Path, lang: str) -> Path:
    """Page 1: a paragraph, an icon, the picture and its caption under it; page 2: a paragraph."""
    t, f = TEXTS[lang], FIGURE_TEXTS[lang]
    picture = save(text_picture(lang, f.drawn), path.with_suffix(".png"))
    bullet = save(icon(), path.with_name(path.stem + "-icon.png"))
    c = Canvas(str(path), pagesize=A4)
    c.setFont(t.regular, 11)
    c.drawString(72, HEIGHT - 90, f.body)
    c.drawImage(str(bullet), 72, HEIGHT - 130, width=10, height=10)
    c.drawImage(str(picture), 72, HEIGHT - 400, width=320, height=120)  # top-left at (72, 280) in page points
    c.setFont(t.regular, 10)
    c.drawString(72, HEIGHT - 420, f.caption)
    c.showPage()
    c.setFont(t.regular, 11)
    c.drawString(72, HEIGHT - 90, t.p1)
    c.showPage()
    c.save()
    return path


PDF_FIGURE_BOX = (72.0, 280.0, 392.0, 400.0)


def figure_docx(path: Path, lang: str) -> Path:
    from docx import Document
    from docx.shared import Inches

    f = FIGURE_TEXTS[lang]
    picture = save(text_picture(lang, f.drawn), path.with_suffix(".png"))
    bullet = save(icon(), path.with_name(path.stem + "-icon.png"))
    document = Document()
    document.add_heading(TEXTS[lang].title, level=1)
    document.add_paragraph(f.body)
    document.add_paragraph().add_run().add_picture(str(bullet), width=Inches(0.2))
    document.add_paragraph().add_run().add_picture(str(picture), width=Inches(4))
    document.add_paragraph(f.caption, style="Caption")
    document.save(str(path))
    return path


def figure_pptx(path: Path, lang: str, alt: str = "") -> Path:
    from pptx import Presentation
    from pptx.util import Pt

    f = FIGURE_TEXTS[lang]
    picture = save(text_picture(lang, f.drawn), path.with_suffix(".png"))
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    slide.shapes.title.text = TEXTS[lang].title
    shape = slide.shapes.add_picture(str(picture), Pt(72), Pt(150), width=Pt(320), height=Pt(120))
    if alt:
        shape._element.nvPicPr.cNvPr.set("descr", alt)
    box = slide.shapes.add_textbox(Pt(72), Pt(280), Pt(400), Pt(30))
    box.text_frame.text = f.caption
    deck.save(str(path))
    return path
