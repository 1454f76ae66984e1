"""Section trees are rebuilt from chunks alone: nesting, pages, numbers and summaries, in ja, zh and en."""

from __future__ import annotations

import pytest

from bunko.index.tree import build_tree
from bunko.schema import Chunk, ChunkRole, role_meta
from bunko.text.analyzers import get_analyzer
from bunko.text.languages import text_language

MANUAL = {
    "en": ("Backups", "2.1 Backup policy", "2.2 Restoring files",
           ["Keep three copies of your data on two media. One copy stays off site. Test a restore every month.",
            "The policy applies to every server. Copies are checked after each run."],
           ["Restore a single file with the restore command. Give the snapshot date of the copy you want."]),
    "ja": ("バックアップ", "2.1 バックアップ方針", "2.2 ファイルの復元",
           ["データの複製を三つ、二種類の媒体に保存する。一つは社外に置く。毎月復元を試験する。",
            "この方針はすべてのサーバーに適用する。複製は実行のたびに確認する。"],
           ["一つのファイルは復元コマンドで復元する。必要な複製のスナップショット日付を指定する。"]),
    "zh": ("备份", "2.1 备份策略", "2.2 恢复文件",
           ["数据保留三个副本，存放在两种介质上。其中一份放在异地。每月测试一次恢复。",
            "该策略适用于所有服务器。每次运行后都检查副本。"],
           ["使用恢复命令恢复单个文件。需要指定所需副本的快照日期。"]),
}


def _chunks(lang: str) -> list[Chunk]:
    chapter, first, second, first_texts, second_texts = MANUAL[lang]
    rows = [([chapter, first], text, [3 + i]) for i, text in enumerate(first_texts)] + [([chapter, second], t, [6]) for t in second_texts]
    chunks = [
        Chunk(f"m#{i}", "doc", "manual.pdf", i, text, text, pages=pages, section_path=path) for i, (path, text, pages) in enumerate(rows)
    ]
    parent = Chunk("m#p", "doc", "manual.pdf", 99, " ".join(first_texts), "", section_path=[chapter, first], meta=role_meta(ChunkRole.PARENT))
    return [*reversed(chunks), parent]  # any order, a parent among them


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_tree_nests_sections_with_their_chunks_pages_and_numbers(lang: str) -> None:
    chapter, first, second, *_ = MANUAL[lang]
    tree = build_tree("doc", "manual.pdf", "Manual", _chunks(lang), get_analyzer("multilingual"))
    (top,) = tree.root.children
    assert top.title == chapter and top.number == "2"  # implied by 2.1 and 2.2
    assert [c.title for c in top.children] == [first, second]
    assert [c.number for c in top.children] == ["2.1", "2.2"]
    assert top.children[0].chunk_ids == ["m#0", "m#1"]  # document order; the parent is context, not a member
    assert top.all_chunk_ids() == ["m#0", "m#1", "m#2"]
    assert top.pages == [3, 6] and top.children[0].pages == [3, 4]
    assert tree.section_of("m#2") is top.children[1]
    assert tree.node([chapter, second]) is top.children[1]


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_summary_is_the_sections_own_sentences_in_its_language(lang: str) -> None:
    chapter, first, _, first_texts, _ = MANUAL[lang]
    tree = build_tree("doc", "manual.pdf", "Manual", _chunks(lang), get_analyzer("multilingual"))
    node = tree.node([chapter, first])
    assert node is not None and node.summary
    own = " ".join(first_texts)
    assert all(part in own for part in node.summary.split(" ") if part)
    assert text_language(node.summary) == lang
    assert tree.to_dict()["children"][0]["children"][0]["summary"] == node.summary


def test_a_document_without_headings_is_one_root_holding_every_chunk() -> None:
    chunks = [Chunk(f"n#{i}", "d", "notes.txt", i, f"Line {i} of the notes.", f"Line {i}") for i in range(3)]
    tree = build_tree("d", "notes.txt", "Notes", chunks, get_analyzer("multilingual"))
    assert tree.root.children == [] and tree.root.chunk_ids == ["n#0", "n#1", "n#2"]
    assert list(tree.sections()) == []
