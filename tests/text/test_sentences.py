"""Sentence boundaries in en/ja/zh: what answers quote and chunkers cut at."""

from __future__ import annotations

import pytest

from bunko.text.sentences import split_sentences

STEPS = {
    "en": ("Here is a typical use of screen.", "1. You log in to a remote machine.", "2. You start screen as \"screen -r\"."),
    "ja": ("screen の典型的な使い方を示します。", "1. リモートマシンにログインします。", "2. \"screen -r\" として screen を起動します。"),
    "zh": ("下面是 screen 的典型用法。", "1. 登录到远程主机。", "2. 以 \"screen -r\" 启动 screen。"),
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_numbered_step_is_one_sentence_with_its_number(lang: str) -> None:
    lead, first, second = STEPS[lang]
    assert split_sentences(f"{lead}\n\n{first}\n{second}") == [lead, first, second]


@pytest.mark.parametrize(("text", "sentences"), [
    ("It needs version 2. Later versions differ.", ["It needs version 2.", "Later versions differ."]),
    ("バージョン 2. 以降は異なります。", ["バージョン 2.", "以降は異なります。"]),
    ("需要第 2. 之后的版本不同。", ["需要第 2.", "之后的版本不同。"]),
])
def test_a_number_inside_a_line_still_ends_its_sentence(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(("text", "sentences"), [
    ("I highly recommend reading the Debian Developer's Reference, 5.8.\n\"Handling bugs\". Then relax.",
     ["I highly recommend reading the Debian Developer's Reference, 5.8.\n\"Handling bugs\".", "Then relax."]),
    ("詳しくは Debian 開発者リファレンス 5.8. 「バグの取り扱い」を読んでください。それから休みましょう。",
     ["詳しくは Debian 開発者リファレンス 5.8. 「バグの取り扱い」を読んでください。", "それから休みましょう。"]),
    ("请阅读 Debian 开发者参考 5.8. “处理缺陷”。然后放松。", ["请阅读 Debian 开发者参考 5.8. “处理缺陷”。", "然后放松。"]),
    ("It shipped in 2019. \"Hello\" was its first word.", ["It shipped in 2019.", "\"Hello\" was its first word."]),
])
def test_a_section_number_before_its_quoted_title_ends_no_sentence(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences
