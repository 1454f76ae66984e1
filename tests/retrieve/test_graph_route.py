"""The graph route: a two-fact question finds the passage it never names, the router sends such questions there,
and every graph hit is a stored passage with the path that reached it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.config import RetrieveConfig
from bunko.embed.use_m3 import UseM3Embedder
from bunko.retrieve.question import read_question
from bunko.retrieve.router import route

FILLER = {
    "en": "Unrelated notes about printers, fonts and keyboard layouts fill this page. ",
    "ja": "このページにはプリンタやフォントやキーボード配列についての無関係なメモがあります。",
    "zh": "本页记录了关于打印机、字体和键盘布局的无关说明。",
}
DOCUMENTS = {
    "en": {
        "backup.md": "# Backup\n\nThe backup server keeps its disks in a software RAID array so that one failed disk loses nothing.\n",
        "storage.md": "# Storage\n\nA software RAID array is created and watched with mdadm. Its settings live in /etc/mdadm/mdadm.conf.\n",
    },
    "ja": {
        "backup.md": "# バックアップ\n\nバックアップサーバーはディスク障害に備えてソフトウェアRAIDを使います。\n",
        "storage.md": "# ストレージ\n\nソフトウェアRAIDはmdadmで作成し、設定は/etc/mdadm/mdadm.confに書きます。\n",
    },
    "zh": {
        "backup.md": "# 备份\n\n备份服务器使用软件RAID阵列，防止单块硬盘损坏造成数据丢失。\n",
        "storage.md": "# 存储\n\n软件RAID阵列用mdadm创建和监控，其配置写在/etc/mdadm/mdadm.conf中。\n",
    },
}
QUESTIONS = {
    "en": "The backup server protects its disks with a storage technique. Which file configures the tool for that technique?",
    "ja": "バックアップサーバが使うその仕組みを設定するファイルはどれですか？",
    "zh": "备份服务器使用的那个技术，其配置文件是哪个？",
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("graph")
    for lang, documents in DOCUMENTS.items():
        folder = root / "docs" / lang
        folder.mkdir(parents=True)
        for name, text in documents.items():
            (folder / name).write_text(text, encoding="utf-8")
        for i in range(6):
            (folder / f"filler-{i}.md").write_text(f"# Notes {i}\n\n" + FILLER[lang] * 3 + f" ({i})\n", encoding="utf-8")
    collection = Bunko(root / ".bunko", embedder=embedder)
    assert collection.ingest(root / "docs").ok
    yield collection
    collection.close()


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_the_router_sends_a_question_that_relates_two_facts_to_the_graph_route(kb: Bunko, lang: str) -> None:
    result = kb.search_detailed(QUESTIONS[lang], k=5)
    assert result.mode == "graph" and result.route is not None and result.route.retriever == "graph"


@pytest.mark.parametrize("question", ["How long is the hotel limit?", "宿泊費の上限はいくらですか？", "住宿上限是多少？"])
def test_a_single_fact_question_stays_on_the_collection_mode(question: str) -> None:
    assert route(read_question(question, []), RetrieveConfig()).retriever is None


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_the_graph_route_finds_the_passage_the_question_never_names(kb: Bunko, lang: str) -> None:
    hits = kb.search(QUESTIONS[lang], k=3, mode="graph", filters={"source": {"$glob": f"docs/{lang}/*"}})
    sources = [Path(h.chunk.source).name for h in hits]
    assert {"backup.md", "storage.md"} <= set(sources)
    assert all(h.chunk.source.startswith(f"docs/{lang}/") for h in hits)


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_graph_hit_is_a_stored_passage_whose_path_names_the_bridging_entity(kb: Bunko, lang: str) -> None:
    hits = kb.search(QUESTIONS[lang], k=3, mode="graph", filters={"source": {"$glob": f"docs/{lang}/*"}})
    storage = next(h for h in hits if h.chunk.source.endswith("storage.md"))
    assert kb.store.get_chunks([storage.chunk.chunk_id])[0].text == storage.chunk.text
    assert storage.signals.path is not None
    via = [key for key, _ in storage.signals.path.via]
    assert any("raid" in key for key in via)
    assert any("graph walk" in line for line in kb.explain(storage, "graph", True))
    mentions = kb.store.search().mentions([storage.chunk.chunk_id])[storage.chunk.chunk_id]
    assert any(m.key == "/etc/mdadm/mdadm.conf" and storage.chunk.text[m.start : m.end] == m.surface for m in mentions)


def test_the_graph_route_keeps_to_the_filter(kb: Bunko) -> None:
    hits = kb.search(QUESTIONS["en"], k=10, mode="graph", filters={"source": {"$glob": "docs/ja/*"}})
    assert hits and all(h.chunk.source.startswith("docs/ja/") for h in hits)


@pytest.mark.parametrize(("lang", "name"), [("en", "mdadm"), ("ja", "mdadm"), ("zh", "mdadm")])
def test_local_mode_returns_the_passages_of_the_entity_the_question_names(kb: Bunko, lang: str, name: str) -> None:
    hits = kb.search(f"{name}", k=3, mode="graph-local", filters={"source": {"$glob": f"docs/{lang}/*"}})
    assert hits and hits[0].chunk.source == f"docs/{lang}/storage.md"
    assert hits[0].signals.path is not None and hits[0].signals.path.seeds == [name]
    assert any("graph walk" in line for line in kb.explain(hits[0], "graph-local", True))


def test_local_mode_falls_back_to_hybrid_when_the_question_names_no_known_entity(kb: Bunko) -> None:
    assert kb.search("zzzz qqqq", k=3, mode="graph-local") == kb.search("zzzz qqqq", k=3, mode="hybrid")


@pytest.mark.parametrize(
    ("question", "retriever"),
    [("What are the main topics of these manuals?", "graph-global"), ("この資料の概要を教えてください", "graph-global"),
     ("这些文档的主要内容是什么？", "graph-global")],
)
def test_the_router_sends_questions_about_the_whole_collection_to_global_mode(question: str, retriever: str) -> None:
    assert route(read_question(question, []), RetrieveConfig()).retriever == retriever


@pytest.mark.parametrize(
    "question",
    ["Which file overrides the system-wide printer defaults for one user?",
     "印刷の設定を、システム全体の /etc/printq.conf ではなく自分用に変えたいです。どのファイルに書きますか？",
     "プリンタードライバーをまとめて入れるコマンドは？",
     "想只为自己修改打印机的系统总体配置，该写哪个文件？"],
)
def test_a_question_about_a_whole_system_is_not_a_question_about_the_whole_collection(question: str) -> None:
    assert route(read_question(question, []), RetrieveConfig()).retriever != "graph-global"


@pytest.mark.parametrize("question", ["資料全体のテーマは何ですか？", "这些文档的总体内容是什么？", "Give me an overview of these manuals."])
def test_the_whole_of_the_documents_still_goes_to_global_mode(question: str) -> None:
    assert route(read_question(question, []), RetrieveConfig()).retriever == "graph-global"


def test_global_mode_cites_representative_passages_of_the_collections_topics(kb: Bunko) -> None:
    communities = kb.store.search().entity_graph().communities()
    result = kb.search_detailed("What are the main topics of these manuals?", k=5)
    assert result.mode == "graph-global"
    if not communities:  # too small a collection for topics: hybrid answers
        assert result.hits
        return
    graph = kb.store.search().entity_graph()
    assert result.hits and all(h.signals.path is not None and h.signals.path.community is not None for h in result.hits)
    for hit in result.hits:  # a topic's passage mentions its entities, in the question's language
        assert hit.signals.path is not None and hit.signals.path.community is not None
        assert set(graph.entities_of(hit.chunk.chunk_id)) & set(communities[hit.signals.path.community].entities)
        assert "/en/" in hit.chunk.source
    assert "topic" in kb.explain(result.hits[0], "graph-global", False)[0]


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("The backup server keeps its disks safe and mdadm creates the arrays: which files are involved?", "en"),
        ("バックアップサーバーのディスク、およびmdadmの設定ファイルはどこですか？", "ja"),
        ("备份服务器的硬盘以及mdadm的配置文件在哪里？", "zh"),
    ],
)
def test_each_part_of_a_question_about_two_things_is_searched_on_its_own(kb: Bunko, question: str, lang: str) -> None:
    from bunko.retrieve.base import Query
    from bunko.retrieve.graph import GraphRetriever
    from bunko.retrieve.router import Route

    retriever = kb.searcher.retriever("graph")
    assert isinstance(retriever, GraphRetriever)
    where = {"source": {"$glob": f"docs/{lang}/*"}}
    parts = retriever._parts(Query(read_question(question, kb.analyzer(question)), kb.analyzer(question), None, where, Route("test")), 10)
    found = {Path(cid.split("#")[0]).name for cid, _ in parts[:2]}
    assert found == {"backup.md", "storage.md"}  # the first of each part's list, interleaved
    assert retriever._parts(Query(read_question("mdadm", ["mdadm"]), ["mdadm"], None, None, Route("test")), 10) == []
