"""Sentence boundaries in en/ja/zh: what answers quote and chunkers cut at."""

from __future__ import annotations

import pytest

from bunko.text.sentences import ends_sentence, split_sentences

STEPS = {
    "en": ("Here is a typical use of the kiln.", "1. You load the shelves.", "2. You start it as \"kilnctl -r\"."),
    "ja": ("窯の典型的な使い方を示します。", "1. 棚に器を並べます。", "2. \"kilnctl -r\" として窯を起動します。"),
    "zh": ("下面是窑炉的典型用法。", "1. 把器物摆上架子。", "2. 以 \"kilnctl -r\" 启动窑炉。"),
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
    ("I highly recommend reading the Harbour Pilot's Handbook, 3.4.\n\"Mooring in fog\". Then relax.",
     ["I highly recommend reading the Harbour Pilot's Handbook, 3.4.\n\"Mooring in fog\".", "Then relax."]),
    ("詳しくは 水先案内の手引き 3.4. 「霧の中の係留」を読んでください。それから休みましょう。",
     ["詳しくは 水先案内の手引き 3.4. 「霧の中の係留」を読んでください。", "それから休みましょう。"]),
    ("请阅读 港口引航手册 3.4. “雾中系泊”。然后放松。", ["请阅读 港口引航手册 3.4. “雾中系泊”。", "然后放松。"]),
    ("It shipped in 2019. \"Hello\" was its first word.", ["It shipped in 2019.", "\"Hello\" was its first word."]),
])
def test_a_section_number_before_its_quoted_title_ends_no_sentence(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(("text", "ends"), [
    ("The backup runs every night.", True), ("Is the backup encrypted?", True), ('He said "stop."', True),
    ("バックアップは毎晩実行されます。", True), ("画面に「停止しました。」", True), ("设置完成后重启服务。", True), ("（见下表）。", True),
    ("Backup settings", False), ("→ https://example.org/contribute/", False), ("Run the following:", False),
    ("バックアップの設定", False), ("配置文件 /etc/apt/sources.list", False), ("如下所示：", False),
])
def test_a_sentence_ends_with_a_stop_and_a_caption_does_not(text: str, ends: bool) -> None:
    assert ends_sentence(text) is ends
