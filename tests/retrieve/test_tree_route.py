"""The tree route: a question that names a section is answered from inside it (by title or number, in ja, zh
and en); auto-merging returns a mostly-hit section once; trees follow re-ingest and delete."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.config import Config, RetrieveConfig
from bunko.embed.use_m3 import UseM3Embedder
from bunko.retrieve.question import read_question
from bunko.retrieve.router import route
from bunko.retrieve.searcher import Searcher

# Restoring is described at length in 2.2; the policy in 2.1 mentions it once. A question that names 2.1
# must get 2.1 first even though its words match 2.2 better.
MANUALS = {
    "en": """# Backups

## 2.1 Backup policy

Keep three copies of your data on two media, one of them off site. Test a restore once a month.

## 2.2 Restoring files

To restore files, run the restore command. A restore reads the snapshot, and each restore of files checks the snapshot date.

# Network

## 3.1 Firewall rules

The firewall drops every incoming connection except SSH and the web server ports.
""",
    "ja": """# バックアップ

## 2.1 バックアップ方針

データの複製を三つ、二種類の媒体に保存し、一つは社外に置く。月に一度、ファイルの復元を試験する。

## 2.2 ファイルの復元

ファイルの復元には復元コマンドを使う。復元はスナップショットを読み、ファイルの復元のたびにスナップショットの日付を確かめる。

# ネットワーク

## 3.1 ファイアウォールの規則

ファイアウォールは SSH とウェブサーバーのポートを除き、外からの接続をすべて遮断する。
""",
    "zh": """# 备份

## 2.1 备份策略

数据保留三个副本，存放在两种介质上，其中一份放在异地。每月测试一次文件恢复。

## 2.2 恢复文件

恢复文件时使用恢复命令。恢复会读取快照，每次恢复文件都会核对快照日期。

# 网络

## 3.1 防火墙规则

防火墙拒绝除 SSH 和网站服务器端口以外的所有外部连接。
""",
}
NAMED_BY_TITLE = {
    "en": ("What does the section 'Backup policy' say about restoring files?", "2.1 Backup policy"),
    "ja": ("「バックアップ方針」の節ではファイルの復元について何と言っていますか？", "2.1 バックアップ方針"),
    "zh": ("“备份策略”一节对恢复文件有什么要求？", "2.1 备份策略"),
}
NAMED_BY_NUMBER = {
    "en": ("What does section 2.1 say about restoring files?", "2.1 Backup policy"),
    "ja": ("2.1 節はファイルの復元について何と言っていますか？", "2.1 バックアップ方針"),
    "zh": ("第 2.1 节对恢复文件有什么要求？", "2.1 备份策略"),
}
CHAPTER = {"en": "What does chapter 3 say about connections?", "ja": "第3章では接続について何と書いてありますか？",
           "zh": "第3章关于连接说了什么？"}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("tree")
    (root / "docs").mkdir()
    for lang, text in MANUALS.items():
        (root / "docs" / f"manual-{lang}.md").write_text(text, encoding="utf-8")
    collection = Bunko(root / ".bunko", embedder=embedder)
    assert collection.ingest(root / "docs").ok
    yield collection
    collection.close()


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_section_named_by_title_is_the_first_hit(kb: Bunko, lang: str) -> None:
    question, section = NAMED_BY_TITLE[lang]
    hits = kb.search(question, k=3, mode="tree")
    assert hits[0].chunk.section_path[-1] == section
    assert hits[0].chunk.source.endswith(f"manual-{lang}.md")
    assert hits[0].signals.list_signal("tree_named") is not None


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_section_named_by_number_is_the_first_hit(kb: Bunko, lang: str) -> None:
    question, section = NAMED_BY_NUMBER[lang]
    hits = kb.search(question, k=3, mode="tree")
    assert hits[0].chunk.section_path[-1] == section and hits[0].chunk.source.endswith(f"manual-{lang}.md")


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_chapter_named_by_number_takes_the_number_its_sections_imply(kb: Bunko, lang: str) -> None:
    hits = kb.search(CHAPTER[lang], k=3, mode="tree")
    tree = kb.trees.tree(hits[0].chunk.doc_id)
    assert tree is not None
    chapter = tree.node(hits[0].chunk.section_path[:1])
    assert chapter is not None and chapter.number == "3"


ABOUT_CHAPTER = {"en": "What is chapter 3 about?", "ja": "第3章は何についての章ですか？", "zh": "第3章讲的是什么？"}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_chapter_named_only_by_number_is_read_in_the_askers_language(kb: Bunko, lang: str) -> None:
    hits = kb.search(ABOUT_CHAPTER[lang], k=3, mode="tree")
    assert hits[0].chunk.source.endswith(f"manual-{lang}.md")
    assert hits[0].signals.list_signal("tree_named") is not None


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_every_tree_hit_is_a_stored_chunk_and_explained(kb: Bunko, lang: str) -> None:
    question, _ = NAMED_BY_TITLE[lang]
    for hit in kb.search(question, k=5, mode="tree"):
        assert kb.store.get_chunks([hit.chunk.chunk_id])
        assert kb.explain(hit, "tree", filtered=False)


def test_auto_merge_returns_a_mostly_hit_section_once_and_whole(make_kb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = Config()
    config.chunk.strategy = "recursive"
    config.chunk.max_chars = 60
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "manual.md").write_text(MANUALS["en"], encoding="utf-8")
    kb = make_kb(config)
    assert kb.ingest(tmp_path / "docs").ok
    question = "How do I restore files from the snapshot with the restore command?"
    fragments = [h for h in kb.search(question, k=5) if h.chunk.section_path[-1] == "2.2 Restoring files"]
    assert len(fragments) >= 2
    kb.config.retrieve.auto_merge = 0.5
    hits = kb.search(question, k=5)
    merged = [h for h in hits if h.chunk.section_path[-1] == "2.2 Restoring files"]
    assert len(merged) == 1
    assert merged[0].chunk.meta["merged_section"] == ["Backups", "2.2 Restoring files"]
    assert "run the restore command" in merged[0].chunk.text and "checks the snapshot date" in merged[0].chunk.text


def test_trees_follow_reingest_and_delete(make_kb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    docs = tmp_path / "docs"
    docs.mkdir()
    manual = docs / "manual.md"
    manual.write_text(MANUALS["en"], encoding="utf-8")
    kb = make_kb()
    assert kb.ingest(docs).ok
    source = kb.documents()[0].source
    before = kb.trees.tree_of_source(source)
    assert before is not None and [c.title for c in before.root.children] == ["Backups", "Network"]
    manual.write_text(MANUALS["en"].replace("# Network", "# Networking"), encoding="utf-8")
    assert kb.ingest(docs).ok
    after = kb.trees.tree_of_source(source)
    assert after is not None and [c.title for c in after.root.children] == ["Backups", "Networking"]
    kb.delete(source)
    assert kb.trees.tree_of_source(source) is None


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("What does section 10.2 say about backups?", True),
        ("In the chapter 'Network setup', which tool is recommended?", True),
        ("What does the section on the shell prompt say about root?", True),
        ("「sudo の設定」の節では何を勧めていますか？", True),
        ("7.5 節ではどのフォント形式が最良ですか？", True),
        ("第3章讲了什么？", True),
        ("“tmpfs”一节说文件放在哪里？", True),
        ("在“数据管理”这一章中，推荐哪个备份工具？", True),
        ("How do I restore a file from a snapshot?", False),
        ("The setup follows another section about a PKI toolkit. Which program do its scripts use?", False),
        ("ファイルを復元するにはどうすればよいですか？", False),
        ("第3个参数是什么？", False),
    ],
)
def test_the_router_sends_questions_that_name_a_section_to_the_tree_route(question: str, names: bool) -> None:
    chosen = route(read_question(question, []), RetrieveConfig())
    assert (chosen.retriever == "tree") is names


def test_a_searcher_without_trees_ignores_the_tree_route(kb: Bunko) -> None:
    searcher = Searcher(kb.store.search(), kb.embedder, kb.analyzer, kb.config.retrieve)
    result = searcher.search("What does section 2.1 say about restoring files?", k=3)
    assert result.route is not None and result.route.retriever == "tree" and result.mode == "hybrid"
