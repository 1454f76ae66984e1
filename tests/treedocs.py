"""Documents whose section trees are known exactly, for the `bunko tree` and tree API tests.

Three Markdown manuals (ja, zh, en) with numbered chapters, sections and one third-level
section, and a four-page Japanese PDF whose outline (bookmarks) gives the headings, so
sections have page ranges. Every section holds one short paragraph, hence one chunk.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen.canvas import Canvas

MANUAL_JA = """# 第1章 概要

本書はサーバー管理の手順をまとめたものです。対象は社内の運用担当者です。

## 1.1 範囲

本書の範囲は社内のLinuxサーバーです。クラウド上の仮想マシンは対象外です。

## 1.2 用語

ノードとはネットワークに接続された一台の計算機を指します。クラスタは複数のノードの集まりです。

# 第2章 バックアップ

バックアップは毎晩午前二時に自動で実行されます。

## 2.1 取得手順

rsync コマンドで /srv/data をバックアップサーバーへ複製します。複製が終わるとログに記録されます。

## 2.2 復元手順

復元するときは最新のスナップショットを選び、restore スクリプトを実行します。復元後はサービスを再起動してください。

### 2.2.1 注意事項

復元の前にスナップショットの日付を必ず確認してください。
"""

GUIDE_ZH = """# 第1章 总则

本制度适用于公司全体员工。人事部门负责解释本制度。

## 1.1 适用范围

本制度适用于正式员工和试用期员工。实习生不适用本制度。

## 1.2 术语

年假是指员工每年享有的带薪休假。病假是指因病需要休息的假期。

# 第2章 请假流程

员工请假需要提前在系统中提交申请。

## 2.1 申请

员工应当至少提前三天提交年假申请。申请需要直属上级批准。

## 2.2 审批

直属上级应当在两个工作日内完成审批。审批结果会通过邮件通知员工。

### 2.2.1 加急审批

紧急情况下可以由部门经理直接批准请假。
"""

HANDBOOK_EN = """# 1 Overview

This handbook describes how the team runs its servers. It is written for the operations staff.

## 1.1 Scope

The handbook covers the Linux servers in the office. Virtual machines in the cloud are out of scope.

## 1.2 Terms

A node is one computer connected to the network. A cluster is a group of nodes working together.

# 2 Backups

Backups run automatically every night at two in the morning.

## 2.1 Taking a backup

The rsync command copies /srv/data to the backup server. The copy is recorded in the log when it finishes.

## 2.2 Restoring

To restore, pick the latest snapshot and run the restore script. Restart the services after a restore.

### 2.2.1 Checking a restore

Always check the date of the snapshot before restoring it.
"""

MARKDOWN = {"manual-ja.md": MANUAL_JA, "guide-zh.md": GUIDE_ZH, "handbook-en.md": HANDBOOK_EN}
LANGUAGE = {"manual-ja.md": "ja", "guide-zh.md": "zh", "handbook-en.md": "en", "runbook-ja.pdf": "ja"}

OUTLINE = {
    "manual-ja.md": [
        ("1", "第1章 概要", [("1.1", "1.1 範囲", []), ("1.2", "1.2 用語", [])]),
        ("2", "第2章 バックアップ", [("2.1", "2.1 取得手順", []), ("2.2", "2.2 復元手順", [("2.2.1", "2.2.1 注意事項", [])])]),
    ],
    "guide-zh.md": [
        ("1", "第1章 总则", [("1.1", "1.1 适用范围", []), ("1.2", "1.2 术语", [])]),
        ("2", "第2章 请假流程", [("2.1", "2.1 申请", []), ("2.2", "2.2 审批", [("2.2.1", "2.2.1 加急审批", [])])]),
    ],
    "handbook-en.md": [
        ("1", "1 Overview", [("1.1", "1.1 Scope", []), ("1.2", "1.2 Terms", [])]),
        ("2", "2 Backups", [("2.1", "2.1 Taking a backup", []), ("2.2", "2.2 Restoring", [("2.2.1", "2.2.1 Checking a restore", [])])]),
    ],
}
"""(number, title, children) of each Markdown document's sections, in document order."""

LEAF_SUMMARIES = {
    "manual-ja.md": {
        "1.1 範囲": "本書の範囲は社内のLinuxサーバーです。 クラウド上の仮想マシンは対象外です。",
        "2.2.1 注意事項": "復元の前にスナップショットの日付を必ず確認してください。",
    },
    "guide-zh.md": {
        "1.2 术语": "年假是指员工每年享有的带薪休假。 病假是指因病需要休息的假期。",
        "2.2.1 加急审批": "紧急情况下可以由部门经理直接批准请假。",
    },
    "handbook-en.md": {
        "2.1 Taking a backup": "The rsync command copies /srv/data to the backup server. The copy is recorded in the log when it finishes.",
        "2.2.1 Checking a restore": "Always check the date of the snapshot before restoring it.",
    },
}
"""Sections without subsections whose summary is their whole paragraph (two sentences at most)."""

PDF_NAME = "runbook-ja.pdf"
PDF_TITLE = "サーバー運用手引き"
PDF_PAGES = [
    [("第1章 概要", 0), "本書はサーバー管理の手順をまとめたものです。対象は社内の運用担当者です。",
     ("1.1 範囲", 1), "本書の範囲は社内のLinuxサーバーです。クラウド上の仮想マシンは対象外です。"],
    [("1.2 用語", 1), "ノードとはネットワークに接続された一台の計算機を指します。クラスタは複数のノードの集まりです。"],
    [("第2章 バックアップ", 0), "バックアップは毎晩午前二時に自動で実行されます。",
     ("2.1 取得手順", 1), "rsync コマンドで /srv/data をバックアップサーバーへ複製します。複製が終わるとログに記録されます。"],
    [("2.2 復元手順", 1), "復元するときは最新のスナップショットを選び、restore スクリプトを実行します。復元後はサービスを再起動してください。"],
]
PDF_SECTION_PAGES = {
    "第1章 概要": [1, 2], "1.1 範囲": [1, 1], "1.2 用語": [2, 2],
    "第2章 バックアップ": [3, 4], "2.1 取得手順": [3, 3], "2.2 復元手順": [4, 4],
}


def make_pdf(path: Path) -> Path:
    """The runbook: each heading drawn in a larger bold font and entered in the outline at its level."""
    for font in ("HeiseiMin-W3", "HeiseiKakuGo-W5"):
        pdfmetrics.registerFont(UnicodeCIDFont(font))
    height = A4[1]
    canvas = Canvas(str(path), pagesize=A4)
    canvas.setTitle(PDF_TITLE)
    headings = 0
    for page in PDF_PAGES:
        y = height - 72
        for item in page:
            if isinstance(item, tuple):
                title, level = item
                headings += 1
                canvas.bookmarkPage(f"h{headings}", fit="XYZ", top=y)
                canvas.addOutlineEntry(title, f"h{headings}", level=level)
                canvas.setFont("HeiseiKakuGo-W5", 16 if level == 0 else 13)
                y -= 24
                canvas.drawString(72, y, title)
            else:
                canvas.setFont("HeiseiMin-W3", 10)
                y -= 14
                canvas.drawString(72, y, item)
            y -= 10
        canvas.showPage()
    canvas.save()
    return path


def write_docs(folder: Path, pdf: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in MARKDOWN.items():
        (folder / name).write_text(text, encoding="utf-8")
    if pdf:
        make_pdf(folder / PDF_NAME)
    return folder
