"""Writes the fuzz seed corpus (tests/fuzz/seeds/): one small valid file per parser and language, a few KB each.

Run once from the repository root (`.venv/bin/python tests/fuzz/make_seeds.py`); the files are committed, so the fuzz
tests read the same bytes on every machine. Office files and PDFs come from the parser tests' own generators.
"""

from __future__ import annotations

import io
import sys
from email.message import EmailMessage
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "parse"))

from cfbwriter import msg_streams, write_cfb  # noqa: E402
from officegen import make_docx, make_pptx, make_xlsx  # noqa: E402
from pdfgen import make_text_pdf  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

SEEDS = HERE / "seeds"
LANGS = ("en", "ja", "zh")
TEXT = {
    "en": ("Travel expenses", "The hotel limit is 12,000 yen per night. Receipts are required within 30 days."),
    "ja": ("出張旅費規程", "宿泊費の上限は一泊一万二千円とする。領収書は三十日以内に提出すること。"),
    "zh": ("差旅费规定", "住宿费上限为每晚一万二千日元。收据须在三十天内提交。"),
}


def write_text_seeds(lang: str) -> None:
    title, body = TEXT[lang]
    (SEEDS / f"front-{lang}.md").write_text(
        f"---\ntitle: {title}\ntags: [policy, {lang}]\ndefaults: &d {{a: 1, b: [x, y]}}\nmore: *d\ndate: 2024-04-01\n---\n\n"
        f"# {title}\n\n{body}\n\n## 表 / Table\n\n| a | b |\n|---|---|\n| 1 | {body[:10]} |\n\n- {body[:12]}\n- item\n\n"
        f"```python\nprint('{lang}')\n```\n\n> {body[-12:]}\n", encoding="utf-8")
    (SEEDS / f"plain-{lang}.txt").write_text(f"{title}\n\n{body}\n\n1. {body[:20]}\n2. {body[20:]}\n", encoding="utf-8")
    (SEEDS / f"page-{lang}.html").write_text(
        f"<!doctype html><html lang={lang}><head><meta charset=utf-8><title>{title}</title></head><body><nav>menu</nav>"
        f"<main><h1>{title}</h1><p>{body}</p><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>{body[:8]}</td></tr>"
        f"</table><ul><li>{body[:6]}</li><li><b>x</b></li></ul><pre>code</pre></main><footer>f</footer></body></html>\n",
        encoding="utf-8")
    (SEEDS / f"rows-{lang}.csv").write_text(f"id,name,note\n1,{title},\"{body}\"\n2,b,\"x, y\"\n3,c,\n", encoding="utf-8")
    (SEEDS / f"rows-{lang}.tsv").write_text(f"id\tname\tnote\n1\t{title}\t{body}\n2\tb\tx\n", encoding="utf-8")
    (SEEDS / f"doc-{lang}.json").write_text(
        f'{{"title": "{title}", "items": [{{"id": 1, "text": "{body}"}}, {{"id": 2, "n": 1.5e3, "ok": true, "z": null}}]}}\n',
        encoding="utf-8")
    (SEEDS / f"lines-{lang}.jsonl").write_text(
        f'{{"id": 1, "text": "{title}"}}\n{{"id": 2, "text": "{body}"}}\n{{"id": 3, "tags": ["a", "b"]}}\n', encoding="utf-8")
    mail = EmailMessage()
    mail["From"] = "Sato <sato@example.com>"
    mail["To"] = "li@example.com"
    mail["Subject"] = title
    mail["Date"] = "Mon, 01 Apr 2024 09:00:00 +0900"
    mail.set_content(body)
    mail.add_alternative(f"<p>{body}</p>", subtype="html")
    mail.add_attachment(f"{title}\n{body}\n".encode(), maintype="text", subtype="plain", filename="note.txt")
    (SEEDS / f"mail-{lang}.eml").write_bytes(bytes(mail))


def write_binary_seeds(lang: str) -> None:
    title, body = TEXT[lang]
    make_docx(SEEDS / f"doc-{lang}.docx", lang)
    make_pptx(SEEDS / f"deck-{lang}.pptx", lang)
    make_xlsx(SEEDS / f"book-{lang}.xlsx", lang)
    make_text_pdf(SEEDS / f"text-{lang}.pdf", lang, [title, body, body[:20]])
    streams = msg_streams(title, "Sato", "sato@example.com", "li@example.com", body, f"<p>{body}</p>",
                          [("note.txt", body.encode())], 133_565_000_000_000_000)
    (SEEDS / f"mail-{lang}.msg").write_bytes(write_cfb(streams))


def write_images() -> None:
    image = Image.new("L", (160, 48), 255)
    ImageDraw.Draw(image).text((4, 16), "Hotel 12000", fill=0)
    for fmt, ext in (("PNG", "png"), ("JPEG", "jpg"), ("GIF", "gif"), ("TIFF", "tif")):
        out = io.BytesIO()
        image.save(out, format=fmt)
        (SEEDS / f"scan.{ext}").write_bytes(out.getvalue())


if __name__ == "__main__":
    SEEDS.mkdir(exist_ok=True)
    for lang in LANGS:
        write_text_seeds(lang)
        write_binary_seeds(lang)
    write_images()
    for path in sorted(SEEDS.iterdir()):
        print(f"{path.stat().st_size:>7} {path.name}")
