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
    "guide-en.md": """# Shell scripts

## Portability

Avoid writing a shell script with bashisms or zshisms to make it portable among all POSIX shells.
You can check it using checkbashisms(1).

## Login shells

The login shell of a user is recorded in the password database and read at each login.
""",
    "guide-ja.md": """# シェルスクリプト

## 移植性

すべての POSIX シェル間で移植可能にするために bashism や zshism を使ってシェルスクリプトを書くのは避けましょう。
checkbashisms(1) を使うと確認できます。

## ログインシェル

ユーザーのログインシェルはパスワードデータベースに記録され、ログインのたびに読まれます。
""",
    "guide-zh.md": """# shell 脚本

## 可移植性

为了让 shell 脚本在所有 POSIX shell 之间可移植，应避免编写带有 bashism 或 zshism 的 shell 脚本。
你可以使用 checkbashisms(1) 进行检查。

## 登录 shell

用户的登录 shell 记录在密码数据库中，每次登录时读取。
""",
}


@pytest.fixture(scope="module")
def guides(folder_of: Callable[[str, Mapping[str, str]], Path]) -> Path:
    return folder_of("guides", GUIDES)


@pytest.mark.parametrize(
    "question",
    [
        "Which tool can I run to make sure my shell script has no bashisms and stays portable across POSIX shells?",
        "シェルスクリプトに bashism が紛れ込んでいないか調べるには、どのツールを使えばいいですか？",
        "想检查 shell 脚本里有没有 bashism、保证在 POSIX shell 之间可移植，该用哪个工具？",
    ],
)
def test_the_tool_after_the_restating_sentence_is_the_answer(guides: Path, make_kb: Callable[..., Bunko], question: str) -> None:
    kb = make_kb(name="guides")
    kb.ingest([guides])
    answer = kb.ask(question)
    assert not answer.abstained
    assert any("checkbashisms" in s.text for s in answer.sentences), answer.text


def _scored(position: int, typed: bool, hit_index: int = 0) -> ScoredUnit:
    return ScoredUnit(Unit(f"unit {position}", hit_index, position), 0.5, 0.5, 1.0 - position / 10, typed)


def test_only_a_typed_unit_shortly_after_the_best_one_in_its_passage_follows_it() -> None:
    best = _scored(3, typed=False)
    assert answering_follower(best, [best, _scored(4, False), _scored(5, True)]) is not None
    assert answering_follower(best, [best, _scored(4, False), _scored(6, True)]) is None  # too far
    assert answering_follower(best, [best, _scored(2, True)]) is None  # before it: not an answer to what it says
    assert answering_follower(best, [best, _scored(4, True, hit_index=1)]) is None  # another passage
