"""Builds the test PDFs with reportlab, in en, ja and zh, with positions known exactly.

Imported by tests/parse/conftest.py; every test document is generated here,
so what a test asserts is what this file drew.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen.canvas import Canvas

for _font in ("HeiseiMin-W3", "HeiseiKakuGo-W5", "STSong-Light"):
    pdfmetrics.registerFont(UnicodeCIDFont(_font))

WIDTH, HEIGHT = A4


@dataclass(frozen=True)
class Texts:
    regular: str
    bold: str
    title: str
    h1: str
    p1: str
    h11: str
    p11: str
    table_caption: str
    table: tuple[tuple[str, ...], ...]
    figure_caption: str
    h2: str
    left: str
    right: str
    long_table: tuple[tuple[str, ...], ...]
    after_table: str
    scanned: str


TEXTS = {
    "en": Texts(
        regular="Helvetica", bold="Helvetica-Bold", title="Travel Policy", h1="1. Overview",
        p1="This policy explains how employees book travel and claim their expenses after every business trip.",
        h11="1.1 Scope", p11="It applies to all staff, contractors and interns travelling on company business.",
        table_caption="Table 1: Daily allowance",
        table=(("Grade", "Domestic", "Overseas"), ("Staff", "3000", "5000"), ("Manager", "4000", "7000")),
        figure_caption="Figure 1: Approval flow", h2="2. Details",
        left="The left column describes booking: use the travel portal, choose economy fares and attach the itinerary to the request.",
        right="The right column describes claims: submit receipts within thirty days and the finance team pays them monthly.",
        long_table=(("City", "Hotel limit"), ("Tokyo", "15000"), ("Osaka", "12000"), ("Nagoya", "11000"),
                    ("Fukuoka", "10000"), ("Sapporo", "9500")),
        after_table="Cities not listed use the lowest limit.",
        scanned="Scanned receipts are accepted",
    ),
    "ja": Texts(
        regular="HeiseiMin-W3", bold="HeiseiKakuGo-W5", title="出張規程", h1="1. 概要",
        p1="この規程は、社員が出張を手配し、出張後に経費を精算する方法を定めるものである。すべての出張に適用する。",
        h11="1.1 適用範囲", p11="本規程は、会社の業務で出張するすべての社員、契約社員および実習生に適用する。",
        table_caption="表1 日当",
        table=(("等級", "国内", "海外"), ("一般", "3000", "5000"), ("管理職", "4000", "7000")),
        figure_caption="図1 承認の流れ", h2="2. 詳細",
        left="左の段は予約について述べる。旅行ポータルを使い、普通運賃を選び、行程表を申請に添付すること。",
        right="右の段は精算について述べる。領収書は三十日以内に提出し、経理部が毎月支払う。",
        long_table=(("都市", "宿泊上限"), ("東京", "15000"), ("大阪", "12000"), ("名古屋", "11000"),
                    ("福岡", "10000"), ("札幌", "9500")),
        after_table="記載のない都市は最も低い上限を用いる。",
        scanned="領収書の写しを受け付ける",
    ),
    "zh": Texts(
        regular="STSong-Light", bold="STSong-Light", title="差旅制度", h1="1. 概述",
        p1="本制度说明员工如何预订差旅，以及每次出差结束后如何报销费用。本制度适用于所有出差。",
        h11="1.1 适用范围", p11="本制度适用于因公出差的全体员工、合同工以及实习生。",
        table_caption="表1 每日补贴",
        table=(("级别", "国内", "海外"), ("员工", "300", "500"), ("经理", "400", "700")),
        figure_caption="图1 审批流程", h2="2. 详情",
        left="左栏说明预订方式：使用差旅平台，选择经济舱票价，并将行程单附在申请中。",
        right="右栏说明报销方式：三十天内提交发票，财务部每月统一支付。",
        long_table=(("城市", "住宿上限"), ("北京", "800"), ("上海", "800"), ("广州", "600"),
                    ("深圳", "600"), ("成都", "500")),
        after_table="未列出的城市按最低标准执行。",
        scanned="本公司接受扫描件",
    ),
}


def wrap(text: str, font: str, size: float, width: float) -> list[str]:
    """Break text into lines no wider than `width`: at spaces for Latin, anywhere for CJK."""
    lines: list[str] = []
    current = ""
    tokens = text.split(" ") if " " in text and not any(ord(c) > 0x3000 for c in text) else list(text)
    sep = " " if len(tokens) > 1 and tokens != list(text) else ""
    for token in tokens:
        candidate = f"{current}{sep}{token}" if current else token
        if pdfmetrics.stringWidth(candidate, font, size) > width and current:
            lines.append(current)
            current = token
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


class Pen:
    """A canvas with a cursor that moves down the page, like a typesetter."""

    def __init__(self, canvas: Canvas, texts: Texts) -> None:
        self.c = canvas
        self.t = texts
        self.y = HEIGHT - 72

    def text(self, text: str, size: float = 10, bold: bool = False, x: float = 72, width: float = WIDTH - 144, after: float = 8) -> None:
        font = self.t.bold if bold else self.t.regular
        self.c.setFont(font, size)
        for line in wrap(text, font, size, width):
            self.y -= size * 1.3
            self.c.drawString(x, self.y, line)
        self.y -= after

    def table(self, rows: tuple[tuple[str, ...], ...], x: float = 72, col: float = 120, row_h: float = 20) -> None:
        """A ruled table: every cell boxed, as office programs export them."""
        n_cols = len(rows[0])
        top = self.y
        for r, row in enumerate(rows):
            y = top - (r + 1) * row_h
            for i, cell in enumerate(row):
                self.c.rect(x + i * col, y, col, row_h)
                self.c.setFont(self.t.bold if r == 0 else self.t.regular, 10)
                self.c.drawString(x + i * col + 4, y + 6, cell)
        self.c.line(x, top, x + n_cols * col, top)
        self.y = top - len(rows) * row_h - 12


LATEX_TABLES = {
    "en": (("level", "name", "meaning"), ("0", "KERN_EMERG", "system is unusable"), ("3", "KERN_ERR", "error conditions"),
           ("7", "KERN_DEBUG", "debug-level messages")),
    "ja": (("レベル", "名前", "意味"), ("0", "KERN_EMERG", "システムが使用不能"), ("3", "KERN_ERR", "エラー状態"),
           ("7", "KERN_DEBUG", "デバッグレベルのメッセージ")),
    "zh": (("级别", "名称", "含义"), ("0", "KERN_EMERG", "系统不可用"), ("3", "KERN_ERR", "错误状态"),
           ("7", "KERN_DEBUG", "调试级别的消息")),
}


def make_latex_table(path: Path, lang: str) -> Path:
    """One page as LaTeX's ``tabular{l|l|l}`` with ``\\hline`` (and dblatex) draws it: a rule under every row, drawn cell
    by cell across the table, rules between the columns and none down its outer sides; the words of a cell are set
    with a gap and no space character. Above and below it, two framed code lines of the table's width with prose
    between them: same-width rules, no column rule."""
    t = TEXTS[lang]
    rows = LATEX_TABLES[lang]
    c = Canvas(str(path), pagesize=A4)
    pen = Pen(c, t)
    pen.text(t.p1)
    x, widths, row_h = 72.0, (90.0, 150.0, 210.0), 18.0
    edges = [x + sum(widths[:i]) for i in range(len(widths) + 1)]

    def frame(y: float, text: str) -> None:
        c.line(edges[0], y, edges[-1], y)
        c.line(edges[0], y - row_h, edges[-1], y - row_h)
        c.setFont("Courier", 10)
        c.drawString(edges[0] + 4, y - row_h + 5, text)

    frame(pen.y, "# dmesg -n3")
    pen.y -= row_h + 6
    pen.text(t.p11)
    top = pen.y
    c.setLineWidth(0.5)
    for r, row in enumerate(rows):
        y = top - r * row_h
        for i, cell in enumerate(row):
            c.line(edges[i], y, edges[i + 1], y)
            c.line(edges[i], y - row_h, edges[i + 1], y - row_h)
            if i > 0:
                c.line(edges[i], y, edges[i], y - row_h)
            font = t.bold if r == 0 else t.regular
            c.setFont(font, 10)
            cursor = edges[i] + 4
            for word in cell.split(" "):
                c.drawString(cursor, y - row_h + 5, word)
                cursor += pdfmetrics.stringWidth(word, font, 10) + 2.5
    pen.y = top - len(rows) * row_h - 12
    pen.text(t.after_table)
    frame(pen.y, "$ journalctl -k")
    c.showPage()
    c.save()
    return path


def make_running_heads(path: Path, lang: str, pages: int = 4) -> Path:
    """`pages` pages as a typesetter sets a book: its title as a running head on every page but the first, in the
    top margin; a running foot with the chapter and the page number; the body in between. The first page also names
    the chapter once in the top margin, as a one-off line would."""
    t = TEXTS[lang]
    c = Canvas(str(path), pagesize=A4)
    for number in range(1, pages + 1):
        c.setFont(t.regular, 9)
        head = HEIGHT - 64  # where LaTeX sets its running head: below the top 7 % of the page
        c.drawString(72, head, t.title if number > 1 else t.h2)
        c.drawString(72, 30, f"{t.h1} {number}")
        pen = Pen(c, t)
        pen.y = HEIGHT - 90
        if number == 1:
            pen.text(t.title, size=20, bold=True, after=12)
        pen.text(t.p1 if number % 2 else t.p11)
        c.showPage()
    c.save()
    return path


def figure_png(path: Path) -> Path:
    image = Image.new("RGB", (300, 150), (40, 120, 200))
    for x in range(40, 260):
        for y in range(60, 90):
            image.putpixel((x, y), (250, 250, 250))
    image.save(path)
    return path


def make_report(path: Path, lang: str) -> Path:
    """Four pages: headings + table + figure; a two-column page; a ruled table that runs over a page break."""
    t = TEXTS[lang]
    c = Canvas(str(path), pagesize=A4)
    c.setTitle(t.title)
    pen = Pen(c, t)
    pen.text(t.title, size=20, bold=True, after=12)
    pen.text(t.h1, size=14, bold=True)
    pen.text(t.p1)
    pen.text(t.h11, size=12, bold=True)
    pen.text(t.p11)
    pen.text(t.table_caption, after=4)
    pen.table(t.table)
    image = figure_png(path.with_suffix(".png"))
    pen.y -= 150
    c.drawImage(str(image), 72, pen.y, width=200, height=100)
    pen.text(t.figure_caption)
    c.setFont("Helvetica", 9)
    c.drawCentredString(WIDTH / 2, 30, "1")
    c.showPage()

    pen = Pen(c, t)
    pen.text(t.h2, size=14, bold=True, after=14)
    top = pen.y
    pen.text(t.left, x=72, width=210)
    pen.y = top
    pen.text(t.right, x=WIDTH / 2 + 20, width=210)
    c.setFont("Helvetica", 9)
    c.drawCentredString(WIDTH / 2, 30, "2")
    c.showPage()

    pen = Pen(c, t)
    pen.y = 200
    pen.table(t.long_table[:4])
    c.showPage()
    pen = Pen(c, t)
    pen.table((t.long_table[0], *t.long_table[4:]))
    pen.text(t.after_table)
    c.showPage()
    c.save()
    return path


def make_text_pdf(path: Path, lang: str, lines: list[str], encrypt: str | None = None) -> Path:
    t = TEXTS[lang]
    c = Canvas(str(path), pagesize=A4, encrypt=encrypt)
    pen = Pen(c, t)
    for line in lines:
        pen.text(line)
    c.showPage()
    c.save()
    return path


def make_scanned(path: Path, lang: str, text_page_first: bool = True, stamp: str | None = None) -> Path:
    """A text page followed by a page that is only a picture of text, as a scanner makes it."""
    t = TEXTS[lang]
    source = path.with_name(path.stem + "-source.pdf")
    c = Canvas(str(source), pagesize=A4)
    c.setFont(t.bold, 32)
    c.drawString(72, HEIGHT - 120, t.scanned)
    c.showPage()
    c.save()
    pdf = pdfium.PdfDocument(source)
    scan = path.with_name(path.stem + "-scan.png")
    pdf[0].render(scale=300 / 72).to_pil().convert("L").save(scan)
    pdf.close()
    c = Canvas(str(path), pagesize=A4)
    if text_page_first:
        Pen(c, t).text(t.p1)
        c.showPage()
    c.drawImage(str(scan), 0, 0, width=WIDTH, height=HEIGHT)
    if stamp:
        c.setFont("Helvetica", 8)
        c.drawString(WIDTH - 150, 20, stamp)
    c.showPage()
    c.save()
    return path


def make_long(path: Path, pages: int, lang: str = "en", table_every: int = 0) -> Path:
    """Many pages of numbered sections and paragraphs (and a ruled table every `table_every` pages)."""
    t = TEXTS[lang]
    c = Canvas(str(path), pagesize=A4)
    for number in range(1, pages + 1):
        pen = Pen(c, t)
        pen.text(f"{number}. {t.h1}", size=14, bold=True)
        for _ in range(3):
            pen.text(t.p1)
        if table_every and number % table_every == 0:
            pen.table(t.table)
        c.showPage()
    c.save()
    return path


def scan_image(pdf_path: Path) -> Path:
    """The picture make_scanned put on the scanned page."""
    return pdf_path.with_name(pdf_path.stem + "-scan.png")


def has_ink(png: Path) -> bool:
    """False when the renderer had no font for the script (no CJK font installed) and drew a blank page."""
    low, _ = Image.open(png).convert("L").getextrema()
    return low < 128


MANUALS: dict[str, dict[str, object]] = {
    "en": {
        "title": "Backup Manual", "chapter": "Chapter {n}", "note": "Note",
        "chapters": [
            ("Getting started", [
                ("1.1", "Installing the agent", "Install the backup agent with the package manager and enable its service at boot."),
                ("1.2", "Shell prompt", "The shell prompt shows the user name and host; a hash sign means the root account."),
            ]),
            ("Backups", [
                ("2.1", "Backup policy", "Keep three copies of your data on two media, one of them off site, and test restores monthly."),
                ("2.2", "Restoring files", "Restore a single file with the restore command and the snapshot date of the copy you want."),
            ]),
        ],
        "note_text": "Run the agent as an ordinary user whenever the files allow it.",
    },
    "ja": {
        "title": "バックアップ手引書", "chapter": "第{n}章", "note": "注意",
        "chapters": [
            ("はじめに", [
                ("1.1", "エージェントの導入", "パッケージ管理システムでバックアップエージェントを導入し、起動時にサービスを有効にする。"),
                ("1.2", "シェルプロンプト", "シェルプロンプトにはユーザー名とホスト名が表示され、シャープ記号は管理者アカウントを表す。"),
            ]),
            ("バックアップ", [
                ("2.1", "バックアップ方針", "データの複製を三つ、二種類の媒体に保存し、一つは社外に置き、毎月復元を試験する。"),
                ("2.2", "ファイルの復元", "一つのファイルは復元コマンドと、必要な複製のスナップショット日付で復元する。"),
            ]),
        ],
        "note_text": "ファイルが許す限り、エージェントは一般ユーザーで実行すること。",
    },
    "zh": {
        "title": "备份手册", "chapter": "第{n}章", "note": "注意",
        "chapters": [
            ("入门", [
                ("1.1", "安装代理程序", "使用软件包管理器安装备份代理程序，并在开机时启用其服务。"),
                ("1.2", "命令提示符", "命令提示符显示用户名和主机名，井号表示管理员账户。"),
            ]),
            ("备份", [
                ("2.1", "备份策略", "数据保留三个副本，存放在两种介质上，其中一份放在异地，并且每月测试恢复。"),
                ("2.2", "恢复文件", "使用恢复命令和所需副本的快照日期来恢复单个文件。"),
            ]),
        ],
        "note_text": "只要文件权限允许，就以普通用户身份运行代理程序。",
    },
}


def make_manual(path: Path, lang: str) -> Path:
    """A small manual with bookmarks: a contents page with dot leaders, then one page per chapter.

    Each chapter page prints a "Chapter N" line above the chapter title, numbered section headings
    ("1.1 Installing the agent", while the bookmark says "Installing the agent") and, in 1.1, a bold
    "Note" label that only looks like a heading."""
    t, m = TEXTS[lang], MANUALS[lang]
    chapters: list[tuple[str, list[tuple[str, str, str]]]] = m["chapters"]  # type: ignore[assignment]
    c = Canvas(str(path), pagesize=A4)
    c.setTitle(str(m["title"]))
    pen = Pen(c, t)
    pen.text(str(m["title"]), size=20, bold=True, after=12)
    page = 2
    for n, (chapter, sections) in enumerate(chapters, start=1):
        pen.text(f"{n} {chapter} " + ". " * 30 + str(page))
        for number, title, _ in sections:
            pen.text(f"{number} {title} " + ". " * 28 + str(page))
        page += 1
    c.showPage()
    for n, (chapter, sections) in enumerate(chapters, start=1):
        pen = Pen(c, t)
        c.bookmarkPage(f"ch{n}")
        c.addOutlineEntry(chapter, f"ch{n}", level=0)
        pen.text(str(m["chapter"]).format(n=n), size=16, bold=True, after=4)
        pen.text(chapter, size=20, bold=True, after=12)
        for number, title, body in sections:
            key = f"s{number}"
            c.bookmarkPage(key, fit="XYZ", top=pen.y)
            c.addOutlineEntry(title, key, level=1)
            pen.text(f"{number} {title}", size=13, bold=True)
            pen.text(body)
            if number.endswith(".1") and n == 1:
                pen.text(str(m["note"]), bold=True, after=2)
                pen.text(str(m["note_text"]))
        c.showPage()
    c.save()
    return path


@dataclass(frozen=True)
class NoteTexts:
    """A two-page chapter with two footnotes: `marked` holds the paragraph with the first mark ("{1}" where it
    goes), `runover` the paragraph with the second mark that runs from page 1 onto page 2."""

    h1: str
    marked: str
    runover: str
    after: str
    notes: tuple[str, str]
    h2: str
    closing: str


NOTE_TEXTS = {
    "en": NoteTexts(
        h1="1. The upload queue",
        marked="Every upload goes through the queue before it reaches the archive{1} and the archive software checks "
               "its signature within a few minutes.",
        runover="A rejected upload is reported to the address in the Maintainer field of the control file, together "
                "with the reason the queue gave.{2} Fix the problem, build the package again with a higher revision "
                "number and upload it once more; the old files are removed from the queue by a daily job, so there "
                "is no need to delete them by hand.",
        after="Uploads that pass the checks are installed into the archive at the next mirror push.",
        notes=("If a package is uploaded to the delayed queue, it waits there for the number of days chosen.",
               "The reasons are listed in the rejection mail, one per line."),
        h2="2. After the upload",
        closing="Watch the build logs of the other architectures during the following days.",
    ),
    "ja": NoteTexts(
        h1="1. アップロードキュー",
        marked="すべてのアップロードはアーカイブ{1}に届く前にキューを通り、数分以内にアーカイブのソフトウェアが署名を確認する。",
        runover="拒否されたアップロードは、コントロールファイルのメンテナー欄のアドレスに、キューが示した理由とともに通知される。{2}"
                "問題を直し、リビジョン番号を上げてパッケージを作り直し、もう一度アップロードすること。古いファイルは毎日の"
                "ジョブがキューから削除するので、手で消す必要はない。",
        after="検査を通ったアップロードは、次のミラー更新でアーカイブに収録される。",
        notes=("パッケージを遅延キューにアップロードした場合は、選んだ日数だけそこで待つ。",
               "理由は拒否通知のメールに一行ずつ書かれている。"),
        h2="2. アップロードの後",
        closing="その後の数日間は、ほかのアーキテクチャのビルドログを確認すること。",
    ),
    "zh": NoteTexts(
        h1="1. 上传队列",
        marked="每次上传都会先经过队列，再进入归档{1}，归档软件会在几分钟内检查它的签名。",
        runover="被拒绝的上传会通知到控制文件中维护者字段的地址，并附上队列给出的原因。{2}修正问题后，用更高的修订号重新构建"
                "软件包并再次上传；旧文件会由每天运行的任务从队列中删除，因此无需手动删除。本节其余部分说明常见的拒绝原因。",
        after="通过检查的上传会在下一次镜像同步时收录到归档中。",
        notes=("如果软件包上传到延迟队列，它会在那里等待所选的天数。", "原因逐行列在拒绝邮件中。"),
        h2="2. 上传之后",
        closing="在之后的几天里，请查看其他架构的构建日志。",
    ),
}
NOTE_STYLES = ("raised", "glued", "linked")
"""How the footnotes are set: `raised` as Word sets them (superscript marks, superscript labels, a two-inch rule);
`glued` as LaTeX without its rule (superscript marks, labels at the notes' size against the first word: "1If a…");
`linked` as dblatex does (marks at body size on the baseline, each a link to Hfootnote.N; glued labels; a rule).
`make_footnotes` also takes "unmarked": glued labels, but no rule and no mark in the body."""


def _unmarked(text: str) -> tuple[str, dict[int, str]]:
    """The text without its "{N}" marks, and each mark's label by its offset in that text."""
    plain, marks = "", {}
    for part in re.split(r"(\{\d+\})", text):
        if re.fullmatch(r"\{\d+\}", part):
            marks[len(plain)] = part[1:-1]
        else:
            plain += part
    return plain, marks


def _line_offsets(plain: str, lines: list[str]) -> list[int]:
    """Where each wrapped line starts in `plain` (wrap drops the space it breaks a Latin line at)."""
    offsets, at = [], 0
    for line in lines:
        at = plain.index(line, at)
        offsets.append(at)
        at += len(line)
    return offsets


def make_footnotes(path: Path, lang: str, style: str) -> Path:
    """Two pages of one chapter (`NOTE_TEXTS`) with footnotes 1 and 2 at the foot of page 1, set in `style`
    (`NOTE_STYLES`): the second mark's paragraph runs over the page break, and page numbers stand in the footer."""
    t, n = TEXTS[lang], NOTE_TEXTS[lang]
    font, size, width = t.regular, 10.0, WIDTH - 144
    c = Canvas(str(path), pagesize=A4)

    def paragraph(text: str, y: float, first: int = 0, last: int | None = None) -> float:
        plain, marks = _unmarked(text)
        lines = wrap(plain, font, size, width)
        offsets = _line_offsets(plain, lines)
        for line, start in list(zip(lines, offsets, strict=True))[first:last]:
            y -= size * 1.3
            obj = c.beginText(72, y)
            at = 0
            for offset, label in sorted(marks.items()):
                if start <= offset <= start + len(line):
                    obj.setFont(font, size)
                    obj.textOut(line[at : offset - start])
                    if style == "linked":  # dblatex: the mark at body size after a space, linked to its note
                        x = obj.getX() + pdfmetrics.stringWidth(" ", font, size)
                        obj.textOut(" " + label)
                        c.linkAbsolute("", f"Hfootnote.{label}", (x, y - 2, x + pdfmetrics.stringWidth(label, font, size), y + size))
                    elif style != "unmarked":
                        obj.setFont(font, 6)
                        obj.setRise(4)
                        obj.textOut(label)
                        obj.setRise(0)
                    at = offset - start
            obj.setFont(font, size)
            obj.textOut(line[at:])
            c.drawText(obj)
        return y - 8

    def heading(text: str, y: float) -> float:
        c.setFont(t.bold, 14)
        c.drawString(72, y - 18, text)
        return y - 30

    y = heading(n.h1, HEIGHT - 72)
    y = paragraph(n.marked, y)
    y = paragraph(n.runover, y, last=2)
    rule_y = 150.0
    if style in ("raised", "linked"):
        c.setLineWidth(0.4)
        c.line(72, rule_y, 72 + 144, rule_y)
    y = rule_y - 4
    for label, note in zip(("1", "2"), n.notes, strict=True):
        c.bookmarkHorizontal(f"Hfootnote.{label}", 72, y)
        for i, line in enumerate(wrap(note, font, 8, width - 10)):
            y -= 8 * 1.25
            obj = c.beginText(72 + (8 if i == 0 else 0), y)
            if i == 0 and style == "raised":
                obj.setFont(font, 5)
                obj.setRise(3)
                obj.textOut(label)
                obj.setRise(0)
            elif i == 0:
                obj.setFont(font, 8)
                obj.textOut(label)
            obj.setFont(font, 8)
            obj.textOut(line)
            c.drawText(obj)
        y -= 3
    c.setFont("Helvetica", 9)
    c.drawCentredString(WIDTH / 2, 30, "1")
    c.showPage()
    y = paragraph(n.runover, HEIGHT - 72, first=2)
    y = paragraph(n.after, y)
    y = heading(n.h2, y)
    paragraph(n.closing, y)
    c.setFont("Helvetica", 9)
    c.drawCentredString(WIDTH / 2, 30, "2")
    c.showPage()
    c.save()
    return path
