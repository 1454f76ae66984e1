"""Quotable units: an admonition's title alone is never one.

Manuals put "Caution", 警告 or 注意 over a note; split into sentences, the title stands alone, and an answer to a
short question quoted it as a sentence ("Caution [1]") because its page was the right one.
"""

from __future__ import annotations

import pytest

from bunko.rerank.memo import quotable_units
from bunko.text.units import definition_terms, is_label, split_typed_units

ADMONITIONS = {
    "en": "Use a proxy for APT on a LAN.\n\nCaution\n\nProxy tools may break when the archive changes.",
    "ja": "LAN では APT にプロキシを使います。\n\n警告\n\nアーカイブが変わるとプロキシツールは動かなくなることがあります。",
    "zh": "在局域网中为 APT 使用代理。\n\n注意\n\n档案库结构变化时代理工具可能无法使用。",
}


@pytest.mark.parametrize("label", ["Caution", "NOTE:", "[!NOTE]", "See also", "警告", "注記", "注：", "提示", "注意", "小心"])
def test_an_admonition_title_is_a_label(label: str) -> None:
    assert is_label(label)


@pytest.mark.parametrize("text", ["Note the date.", "Caution is advised when upgrading.", "注意してください。", "提示信息会显示在屏幕上。", "Tip jar"])
def test_a_sentence_that_starts_with_a_label_word_is_not_one(text: str) -> None:
    assert not is_label(text)


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_an_admonition_title_alone_is_no_quotable_unit(lang: str) -> None:
    units = [unit for unit, _ in quotable_units(ADMONITIONS[lang])]
    assert len(units) == 2
    assert not any(is_label(unit) for unit in units)


@pytest.mark.parametrize("text, term, sentence", [
    # description lines indented under the term line (an HTML <dl>)
    ("CACHE_DIR\n  Where downloads are kept. If unset, the home folder is used.", "CACHE_DIR", "If unset, the home folder is used."),
    ("CACHE_DIR\n  ダウンロードを置く場所。設定されていなければホームフォルダを使う。", "CACHE_DIR", "設定されていなければホームフォルダを使う。"),
    ("CACHE_DIR\n  保存下载文件的位置。未设置时使用主目录。", "CACHE_DIR", "未设置时使用主目录。"),
    # a tagged line, "term: description" (a manual page's .TP item)
    ("-n, --lines=N: Print the first N lines. The default is 10.", "-n, --lines=N", "The default is 10."),
    ("-n, --lines=N：先頭の N 行を表示する。既定値は 10 です。", "-n, --lines=N", "既定値は 10 です。"),
    ("-n, --lines=N：显示前 N 行。默认值为 10。", "-n, --lines=N", "默认值为 10。"),
])
def test_a_later_sentence_of_a_description_describes_its_term(text: str, term: str, sentence: str) -> None:
    units = split_typed_units(text)
    terms = dict(zip([u for u, _ in units], definition_terms(text, units), strict=True))
    assert terms[sentence] == term
    assert terms[units[0][0]] == ""  # the first unit holds the term itself


def test_a_blank_line_a_table_row_or_a_long_line_above_is_no_term() -> None:
    blank = "Intro line\n\n  An indented sentence. Another one."
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n  Indented after a table."
    paragraph = ("x" * 250) + "\n  Indented under a long paragraph."
    for text in (blank, table, paragraph):
        units = split_typed_units(text)
        assert set(definition_terms(text, units)) == {""}, text
