"""The second hop's bridge: the entity a passage writes beside what the question only describes (ja/zh/en)."""

from __future__ import annotations

import pytest

from bunko.index.graph import EntityGraph
from bunko.retrieve.graph import _bridges
from bunko.text.entities import entity_keys, extract_entities

CASES = {
    "en": (
        "When suspend fails, the handbook suggests trying the latest graphical server. Which package provides it?",
        "If suspend fails, try the latest Xorg graphical server first. Such reports mostly come from laptops.",
        "Suspend on laptops needs care.",
        "A graphical server draws windows.",
        "laptop",
    ),
    "ja": (
        "サスペンドに失敗したら最新のグラフィカルサーバを試すようにとあります。それを提供するパッケージは？",
        "サスペンドに失敗したら、まず最新の Xorg グラフィカルサーバを試してください。そうした報告の多くはノートパソコンからです。",
        "ノートパソコンのサスペンドには注意が必要です。",
        "グラフィカルサーバはウィンドウを描きます。",
        "ノートパソコン",
    ),
    "zh": (
        "休眠出问题时手册建议尝试最新的图形服务器。提供它的是哪个软件包？",
        "休眠失败时，先尝试最新的 Xorg 图形服务器。这类报告大多来自笔记本。",
        "笔记本的休眠需要小心。",
        "图形服务器负责绘制窗口。",
        "笔记本",
    ),
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_the_bridge_is_the_name_written_beside_what_the_question_describes(lang: str) -> None:
    """"laptop" is tied to the question's "suspend" by three other pages, so the walk leaves more mass on it than on
    Xorg, which four unrelated driver pages share; the passage writes Xorg right beside "graphical server"."""
    question, first, about_laptops, about_servers, distractor = CASES[lang]
    mentions = extract_entities(first)
    passages = [("first#0", [m.key for m in mentions]), ("servers#0", [m.key for m in extract_entities(about_servers)])]
    passages += [(f"drivers#{i}", ["xorg", f"driver{i}"]) for i in range(4)]
    passages += [(f"laptops#{i}", [*(m.key for m in extract_entities(about_laptops)), f"topic{i}"]) for i in range(3)]
    graph = EntityGraph()
    graph.replace_document("doc", "v1", passages)
    asked = graph.specificity(entity_keys(question))
    walk = graph.walk(asked, {"first#0": 1.0})

    assert _bridges(graph, walk, "first#0", asked, 2, mentions) == ["xorg", distractor]
    assert _bridges(graph, walk, "first#0", asked, 2, []) == [distractor, "xorg"]  # by the walk's mass alone
