"""Document-level evidence: a document whose words are spread over its chunks is found as a whole.

Short questions name several things a page covers in different places; no one chunk holds
them all. The document index scores each document's text as a whole, and its best chunk
joins the candidates, so the page ranks first while the hit still cites one chunk of it.

Documents asked for as documents (group_by = document) are ranked by their own evidence, not
their best chunk's: a short question's words fill one short chunk of the wrong page as easily as
they are spread over the right one, and ranking pages by their best chunk lets that chunk's
keyword coverage decide. The document's language, judged over its chunks, is what a language
preference then reads.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bunko import Bunko, Config
from bunko.config import RetrieveConfig
from bunko.retrieve.hybrid import document_ranked, ranks_documents
from bunko.text.languages import LANGUAGES, document_languages

FILLER = {
    "en": "This paragraph describes routine operations in general terms and is here to give the section some length. ",
    "ja": "この段落は日常の運用について一般的に説明しており、節にある程度の長さを持たせるためにあります。",
    "zh": "本段落以一般性的方式描述日常运维工作，用来让本节具有一定的长度。",
}
SPREAD = {
    "en": ("The signing keys rotate every quarter.", "The backup window opens at two in the morning.",
           "Audit logs are kept for seven years."),
    "ja": ("署名鍵は四半期ごとに更新します。", "バックアップ時間帯は午前二時に始まります。", "監査ログは七年間保管します。"),
    "zh": ("签名密钥每季度轮换一次。", "备份窗口在凌晨两点开始。", "审计日志保存七年。"),
}
PARTIAL = {
    "en": ("Signing keys and the backup window are listed here.", "Parking permits are renewed every year at the front desk."),
    "ja": ("署名鍵とバックアップ時間帯はここに一覧があります。", "駐車許可証は毎年受付で更新します。"),
    "zh": ("签名密钥和备份窗口列在这里。", "停车许可证每年在前台更新。"),
}
QUESTION = {
    "en": "signing keys, backup window and audit logs?",
    "ja": "署名鍵、バックアップ時間帯、監査ログは？",
    "zh": "签名密钥、备份窗口和审计日志？",
}
"""Asked as questions: a phrase naming a topic takes the topic route, whose weights are the document-ranking ones
(tests/retrieve/test_topic_route.py), and these tests vary the route's weights."""


def write_corpus(folder: Path, lang: str) -> None:
    """The spread document: each of the question's three things in its own long section. The partial one: two of them, in one short chunk."""
    folder.mkdir(parents=True, exist_ok=True)
    filler = FILLER[lang]
    sections = "".join(f"## Part {i}\n\n{fact}\n\n{filler}\n\n" for i, fact in enumerate(SPREAD[lang], start=1))
    (folder / "operations.md").write_text(f"# Operations\n\n{sections}", encoding="utf-8")
    together, other = PARTIAL[lang]
    (folder / "notes.md").write_text(f"# Notes\n\n## Schedule\n\n{together}\n\n## Site\n\n{filler * 2}\n\n{other}\n", encoding="utf-8")
    for n in range(6):  # enough documents for document frequencies to mean something
        (folder / f"facilities-{n}.md").write_text(f"# Facilities {n}\n\n## Site\n\n{other}\n\n{filler}\n", encoding="utf-8")


def documents(kb: Bunko, question: str, **overrides: object) -> list[str]:
    searcher = kb.searcher
    searcher.config = searcher.config.model_copy(update=overrides)
    return [Path(hit.chunk.source).name for hit in searcher.search(question, k=3, group_by="document").hits]


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_document_whose_words_are_spread_over_its_chunks_ranks_first(
    make_kb: Callable[..., Bunko], tmp_path: Path, lang: str
) -> None:
    write_corpus(tmp_path / "docs", lang)
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    assert sum(c.source.endswith("operations.md") for c in kb.chunks()) >= 3
    # keyword evidence only (dense weight 0), and document evidence weighed enough to decide in a corpus this small;
    # documents ranked as chunks are (by their best chunk), so that document_weight is what decides
    as_chunks = {"dense_weight": 0.0, "document_ranking": "best_chunk"}
    assert documents(kb, QUESTION[lang], document_weight=10.0, **as_chunks)[0] == "operations.md"
    assert documents(kb, QUESTION[lang], document_weight=0.0, **as_chunks)[0] == "notes.md"  # the short chunk wins alone


def test_grouping_returns_one_hit_per_document_or_section(make_kb: Callable[..., Bunko], tmp_path: Path) -> None:
    write_corpus(tmp_path / "docs", "en")
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    by_chunk = kb.search(QUESTION["en"], k=10)
    by_document = kb.search(QUESTION["en"], k=10, group_by="document")
    by_section = kb.search(QUESTION["en"], k=10, group_by="section")
    assert len({h.chunk.doc_id for h in by_chunk}) < len(by_chunk)
    assert len({h.chunk.doc_id for h in by_document}) == len(by_document) >= 2
    sections = [(h.chunk.doc_id, tuple(h.chunk.section_path)) for h in by_section]
    assert len(set(sections)) == len(sections) > 3
    operations = next(h for h in by_document if h.chunk.source.endswith("operations.md"))
    grouped = operations.chunk.meta["group_hits"]
    assert grouped[0] == operations.chunk.chunk_id and len(grouped) >= 2
    with pytest.raises(ValueError, match="unknown grouping"):
        kb.search(QUESTION["en"], group_by="page")


def test_group_by_is_a_collection_setting(make_kb: Callable[..., Bunko], tmp_path: Path) -> None:
    write_corpus(tmp_path / "docs", "zh")
    config = Config()
    config.retrieve.group_by = "document"
    kb = make_kb(config)
    assert kb.ingest(tmp_path / "docs").ok
    hits = kb.search(QUESTION["zh"], k=10)
    assert len({h.chunk.doc_id for h in hits}) == len(hits) >= 2


KEYWORD_ONLY = {"dense_weight": 0.0, "document_similarity_weight": 0.0, "document_rank_similarity_weight": 0.0,
                "document_rank_opening_weight": 0.0}
"""Cosines left out, so what the tests compare is which keyword evidence ranks the documents."""


def ranked(kb: Bunko, question: str, group_by: str, **overrides: object) -> list[tuple[str, float, float]]:
    """(file name, fused score, document evidence) of each hit."""
    searcher = kb.searcher
    searcher.config = searcher.config.model_copy(update=overrides)
    hits = searcher.search(question, k=3, group_by=group_by).hits
    return [(Path(h.chunk.source).name, h.score, h.signals.coverage.document or 0.0) for h in hits if h.signals.coverage]


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_document_is_ranked_by_its_own_keyword_evidence_not_its_best_chunks(
    make_kb: Callable[..., Bunko], tmp_path: Path, lang: str
) -> None:
    """notes.md has one short chunk holding two of the question's three things; operations.md holds all three,
    each in its own long section. By the best chunk notes.md wins; by its own BM25 (no chunk keyword share kept)
    operations.md does."""
    write_corpus(tmp_path / "docs", lang)
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    by_chunk = ranked(kb, QUESTION[lang], "document", document_ranking="best_chunk", **KEYWORD_ONLY)
    assert by_chunk[0][0] == "notes.md"
    own = ranked(
        kb, QUESTION[lang], "document", document_ranking="document", document_rank_keyword_share=0.0,
        document_rank_opening_keyword_weight=0.0, **KEYWORD_ONLY,
    )
    assert own[0][0] == "operations.md"
    weight = RetrieveConfig().document_rank_weight
    for _, score, document in own:  # no chunk or opening keyword evidence: nothing but the document's BM25, weighed by document_rank_weight
        assert score == pytest.approx(weight * document)


def test_chunk_and_section_hits_are_ranked_as_before(make_kb: Callable[..., Bunko], tmp_path: Path) -> None:
    write_corpus(tmp_path / "docs", "en")
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    for group_by in ("chunk", "section"):
        assert ranked(kb, QUESTION["en"], group_by, document_ranking="document") == ranked(
            kb, QUESTION["en"], group_by, document_ranking="best_chunk")


def test_document_weights_replace_the_chunks_keyword_weight_only_for_documents() -> None:
    config = RetrieveConfig()
    route = {"dense": 1.0, "keyword": 0.55, "document": 1.0, "document_similarity": 0.5, "language": 0.0}
    assert ranks_documents(config, "document") and not ranks_documents(config, "chunk")
    assert document_ranked(route, config, "document") == {
        **route, "keyword": 0.55 * config.document_rank_keyword_share, "document": config.document_rank_weight,
        "document_similarity": config.document_rank_similarity_weight, "document_opening": config.document_rank_opening_weight,
        "document_opening_keyword": config.document_rank_opening_keyword_weight,
        "document_sentence": config.document_rank_sentence_share}
    assert document_ranked(route, config, "chunk") == document_ranked(route, config, "section") == route
    assert document_ranked(route, config.model_copy(update={"document_ranking": "best_chunk"}), "document") == route
    preferring = config.model_copy(update={"document_language_weight": 0.1})
    assert document_ranked(route, preferring, "document")["language"] == 0.1
    assert document_ranked({**route, "language": 0.2}, preferring, "document")["language"] == 0.2  # a language asked per query


def test_a_translated_page_left_half_in_english_is_the_translation() -> None:
    """A document is judged by its share of Japanese or Chinese chunks (a tenth), not by the majority of its chunks."""
    en, ja, zh = (LANGUAGES.index(lang) for lang in ("en", "ja", "zh"))
    rows = np.array([ja, en, en, ja,  # a Japanese page, half of it left in English
                     *[en] * 10, ja,  # an English page quoting one Japanese passage in eleven chunks
                     zh, en, en, en, en,  # a Chinese page, a fifth of it Chinese
                     en, en], dtype=np.int8)  # an English page
    docs = np.array([0] * 4 + [1] * 11 + [2] * 5 + [3] * 2)
    assert [LANGUAGES[i] for i in document_languages(rows, docs, 4)] == ["ja", "en", "zh", "en"]


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_the_store_judges_a_documents_language_over_its_chunks(make_kb: Callable[..., Bunko], tmp_path: Path, lang: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    translated = {"ja": "ホスト名を変更するには設定ファイルを編集してから再起動します。", "zh": "要更改主机名，请编辑配置文件然后重新启动。"}[lang]
    english = "To change the host name, edit /etc/hostname and run hostnamectl set-hostname with the new name."
    (docs / "page.md").write_text(f"# A\n\n{translated}\n\n# B\n\n{english}\n\n# C\n\n{english} Then reboot.\n", encoding="utf-8")
    (docs / "english.md").write_text(f"# A\n\n{english}\n", encoding="utf-8")
    kb = make_kb()
    assert kb.ingest(docs).ok
    chunks = [c for c in kb.chunks() if c.searchable]
    by_chunk = kb.store.search().chunk_languages([c.chunk_id for c in chunks])
    by_document = kb.store.search().document_languages([c.chunk_id for c in chunks])
    page = [c.chunk_id for c in chunks if c.source.endswith("page.md")]
    assert {by_chunk[cid] for cid in page} == {lang, "en"}  # its chunks are judged one by one
    assert {by_document[cid] for cid in page} == {lang}  # the page as a whole is the translation
    assert {by_document[c.chunk_id] for c in chunks if c.source.endswith("english.md")} == {"en"}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_keyword_search_ranks_a_chunk_with_its_documents_bm25(make_kb: Callable[..., Bunko], tmp_path: Path, lang: str) -> None:
    """Keyword mode alone (no vectors): by its own BM25 the short chunk of notes.md, holding two of the question's three
    things, outranks every chunk of operations.md, which holds one each; its document's BM25 over the whole text, added
    to each chunk's (`keyword_document_weight`), puts operations.md first."""
    write_corpus(tmp_path / "docs", lang)
    config = Config()
    kb = make_kb(config)
    assert kb.ingest(tmp_path / "docs").ok

    def first(weight: float) -> str:
        kb.config.retrieve.keyword_document_weight = weight
        hits = kb.search(QUESTION[lang], k=5, mode="keyword")
        assert hits and all(h.signals.keyword is not None and h.signals.dense is None for h in hits)
        return Path(hits[0].chunk.source).name

    assert first(0.0) == "notes.md"
    assert first(RetrieveConfig().keyword_document_weight) == "operations.md"
