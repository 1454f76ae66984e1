"""When the sentence closest to the question only restates it, the answer is the typed unit right after it (ja/zh/en)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.generate.extractive import answering_follower
from bunko.rerank.evidence import ScoredUnit
from bunko.text.units import Unit

GUIDES = {
    "guide-en.md": """# Recipes

## Measurements

Avoid writing a recipe with cup measures or spoon measures to make it usable in all metric kitchens.
You can check it using measurelint(1).

## Serving sizes

The serving size of a recipe is recorded in the recipe header and read at each print.
""",
    "guide-ja.md": """# レシピ

## 計量

すべてのメートル法の台所で使えるようにするために、カップ計量やスプーン計量を使ってレシピを書くのは避けましょう。
measurelint(1) を使うと確認できます。

## 分量

レシピの分量はレシピの見出しに記録され、印刷のたびに読まれます。
""",
    "guide-zh.md": """# 食谱

## 计量

为了让食谱在所有公制厨房之间通用，应避免编写带有杯量或勺量的食谱。
你可以使用 measurelint(1) 进行检查。

## 份量

食谱的份量记录在食谱标题中，每次打印时读取。
""",
}


@pytest.fixture(scope="module")
def guides(folder_of: Callable[[str, Mapping[str, str]], Path]) -> Path:
    return folder_of("guides", GUIDES)


@pytest.mark.parametrize(
    "question",
    [
        "Which tool can I run to make sure my recipe has no cup measures and stays usable in metric kitchens?",
        "レシピにカップ計量が紛れ込んでいないか調べるには、どのツールを使えばいいですか？",
        "想检查食谱里有没有杯量、保证在公制厨房之间通用，该用哪个工具？",
    ],
)
def test_the_tool_after_the_restating_sentence_is_the_answer(guides: Path, make_kb: Callable[..., Bunko], question: str) -> None:
    kb = make_kb(name="guides")
    kb.ingest([guides])
    answer = kb.ask(question)
    assert not answer.abstained
    assert any("measurelint" in s.text for s in answer.sentences), answer.text


def _scored(position: int, typed: bool, hit_index: int = 0) -> ScoredUnit:
    return ScoredUnit(Unit(f"unit {position}", hit_index, position), 0.5, 0.5, 1.0 - position / 10, typed)


def test_only_a_typed_unit_shortly_after_the_best_one_in_its_passage_follows_it() -> None:
    best = _scored(3, typed=False)
    assert answering_follower(best, [best, _scored(4, False), _scored(5, True)]) is not None
    assert answering_follower(best, [best, _scored(4, False), _scored(6, True)]) is None  # too far
    assert answering_follower(best, [best, _scored(2, True)]) is None  # before it: not an answer to what it says
    assert answering_follower(best, [best, _scored(4, True, hit_index=1)]) is None  # another passage
