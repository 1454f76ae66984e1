"""Quotable units: an admonition's title alone is never one.

Manuals put "Caution", 警告 or 注意 over a note; split into sentences, the title stands alone, and an answer to a
short question quoted it as a sentence ("Caution [1]") because its page was the right one.
"""

from __future__ import annotations

import pytest

from bunko.rerank.memo import quotable_units
from bunko.text.units import is_label

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
