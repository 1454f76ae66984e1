"""A question asking what a section is about gets the section's central sentences, cited, never a table row or a
code line; a fact question inside the same section is still answered by the fact."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.text.questions import asks_for_overview

MANUALS = {
    "en": """# 1 Introduction

This guide explains how the clinic schedules its nurses. It is meant for ward managers.

# 2 Night shifts

Night shifts keep every ward staffed between eight in the evening and eight in the morning. Each night shift has one
charge nurse who is responsible for the ward until the morning handover.

## 2.1 Rotation

Nurses rotate onto night shifts for one week at a time. A nurse works at most two night weeks in any month.

| Ward | Night nurses |
|---|---|
| A | 3 |
| B | 2 |

## 2.2 Handover

At the morning handover the charge nurse reports every patient whose condition changed during the night.

```
handover --ward A --report night.txt
```

# 3 Holidays

Holiday requests are made through the scheduling office four weeks in advance.
""",
    "ja": """# 第1章 はじめに

この手引きは病院の看護師の勤務表の作り方を説明します。病棟の管理者向けです。

# 第2章 夜勤

夜勤は午後八時から翌朝八時まですべての病棟に人員を配置するための勤務です。各夜勤には責任者となる看護師が一人おり、朝の引き継ぎまで病棟を担当します。

## 2.1 交代

看護師は一週間単位で夜勤に入ります。一か月に夜勤を担当するのは最大二週間までです。

| 病棟 | 夜勤の人数 |
|---|---|
| A | 3 |
| B | 2 |

## 2.2 引き継ぎ

朝の引き継ぎでは、責任者の看護師が夜間に容体が変わった患者をすべて報告します。

```
handover --ward A --report night.txt
```

# 第3章 休暇

休暇の申請は四週間前までに勤務管理室へ提出します。
""",
    "zh": """# 第1章 简介

本指南说明医院如何为护士排班。本指南面向病区管理人员。

# 第2章 夜班

夜班负责从晚上八点到第二天早上八点为每个病区安排人员。每个夜班有一名责任护士，负责病区直到早上交接班。

## 2.1 轮换

护士以一周为单位轮换上夜班。每名护士每月最多上两周夜班。

| 病区 | 夜班人数 |
|---|---|
| A | 3 |
| B | 2 |

## 2.2 交接班

早上交接班时，责任护士报告夜间病情发生变化的所有病人。

```
handover --ward A --report night.txt
```

# 第3章 休假

休假申请须提前四周提交给排班办公室。
""",
}
OVERVIEW_QUESTIONS = {"en": "What is chapter 2 about?", "ja": "第2章の概要を教えてください。", "zh": "第2章讲了什么？"}
FACT_QUESTIONS = {
    "en": ("In chapter 2, who is responsible for the ward until the morning handover?", "charge nurse"),
    "ja": ("第2章で、朝の引き継ぎまで病棟を担当するのは誰ですか？", "責任者となる看護師"),
    "zh": ("第2章中，谁负责病区直到早上交接班？", "责任护士"),
}


def _manual_kb(tmp_path: Path, make_kb: Callable[..., Bunko], language: str) -> Bunko:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / f"nursing-{language}.md").write_text(MANUALS[language], encoding="utf-8")
    kb = make_kb()
    kb.ingest([str(tmp_path / "docs")])
    return kb


@pytest.mark.parametrize("language", ["en", "ja", "zh"])
def test_a_section_overview_is_its_central_sentences_cited(tmp_path: Path, make_kb: Callable[..., Bunko], language: str) -> None:
    kb = _manual_kb(tmp_path, make_kb, language)
    answer = kb.ask(OVERVIEW_QUESTIONS[language])
    assert not answer.abstained, (answer.text, answer.confidence)
    assert len(answer.sentences) >= 2 and answer.confidence < 1.0
    for sentence in answer.sentences:
        assert sentence.citations, sentence.text
        assert all(c.section_path and ("2" in c.section_path[0]) for c in sentence.citations), sentence.citations
        assert "|" not in sentence.text and "handover --ward" not in sentence.text  # no table row, no code line


@pytest.mark.parametrize("language", ["en", "ja", "zh"])
def test_a_fact_asked_inside_a_named_section_is_still_answered_by_the_fact(tmp_path: Path, make_kb: Callable[..., Bunko], language: str) -> None:
    kb = _manual_kb(tmp_path, make_kb, language)
    question, fact = FACT_QUESTIONS[language]
    answer = kb.ask(question)
    assert not answer.abstained and fact in answer.text


@pytest.mark.parametrize(("question", "overview"), [
    ("What is section 3 about?", True), ("Give me an overview of the backup chapter.", True), ("Summarise chapter 4.", True),
    ("第3章は何について書かれていますか？", True), ("この節の要点をまとめてください", True),
    ("第三章主要讲什么？", True), ("请概括一下这一节。", True),
    ("What is the port number?", False), ("How do I talk about it with my manager?", False),
    ("設定ファイルはどこにありますか？", False), ("まとめて削除するには？", False),
    ("配置文件在哪里？", False), ("如何关闭自动更新？", False),
])
def test_an_overview_is_told_from_a_fact_question(question: str, overview: bool) -> None:
    assert asks_for_overview(question) is overview
