"""A document is judged by its best sentence as well as by its chunks, when documents are ranked.

A chunk's cosine averages its two or three sentences, so a page whose one sentence says exactly what the
question asks, among sentences about other things, scores below a page vaguely about it. The units
(sentences, rows) embedded at ingest for the reranker give each document its best sentence's cosine,
which takes `document_rank_sentence_share` of the chunk's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bunko import Bunko, Config
from bunko.embed.base import embed_queries
from bunko.rerank.unit_vectors import FILE_NAME, chunk_unit_texts
from bunko.retrieve.hybrid import HybridRetriever
from bunko.schema import Hit

CASES = {
    "en": {
        "query": "print the lines of a file in reverse order",
        "answer": "Print the lines of a file in reverse order with tac.",
        "other": "The printer on the third floor is serviced every Tuesday. Visitors sign in at the front desk and wear a "
                 "badge. The cafeteria serves lunch from noon until two.",
        "near": "Files can be printed to the terminal, and their contents are shown line by line as they are read. Text "
                "files hold lines separated by newline characters.",
    },
    "ja": {
        "query": "ファイルの行を逆順に出力する",
        "answer": "tac はファイルの行を逆順に出力します。",
        "other": "三階のプリンターは毎週火曜日に点検されます。来訪者は受付で記帳し、バッジを着用します。食堂は正午から二時まで昼食を提供します。",
        "near": "ファイルの内容は端末に表示でき、読み込んだ順に一行ずつ出力されます。テキストファイルは改行で区切られた行からなります。",
    },
    "zh": {
        "query": "将文件的各行逆序输出",
        "answer": "tac 将文件的各行逆序输出。",
        "other": "三楼的打印机每周二检修。访客在前台登记并佩戴胸牌。食堂中午十二点到两点供应午餐。",
        "near": "文件的内容可以显示在终端上，按读取的顺序逐行输出。文本文件由换行符分隔的行组成。",
    },
}
"""notes.md buries the sentence that answers among office notes, in one chunk; files.md is about files throughout
but says nothing of reversing them."""

COSINES_ONLY = {"keyword_weight": 0.0, "document_rank_weight": 0.0, "document_rank_similarity_weight": 0.0,
                "document_rank_opening_weight": 0.0, "document_rank_opening_keyword_weight": 0.0, "max_distance": None}
"""The chunk's cosine and the document's best sentence alone, so the share decides between them (and every document
found however far it is)."""


def write_corpus(folder: Path, lang: str, answer: bool = True) -> None:
    case = CASES[lang]
    folder.mkdir(parents=True, exist_ok=True)
    buried = f" {case['answer']} " if answer else " "
    (folder / "notes.md").write_text(f"# Notes\n\n{case['other']}{buried}{case['other']}\n", encoding="utf-8")
    (folder / "files.md").write_text(f"# Files\n\n{case['near']}\n", encoding="utf-8")


def ranked(kb: Bunko, query: str, **overrides: object) -> list[Hit]:
    searcher = kb.searcher
    searcher.config = searcher.config.model_copy(update={**COSINES_ONLY, **overrides})
    return searcher.search(query, k=3, group_by="document").hits


def by_name(hits: list[Hit]) -> dict[str, Hit]:
    return {Path(hit.chunk.source).name: hit for hit in hits}


def best_unit_cosine(kb: Bunko, source_name: str, query: str) -> float:
    """The document's best unit, embedded afresh: what the stored matrix must give."""
    chunks = [c for c in kb.chunks() if c.source.endswith(source_name) and c.searchable]
    texts = [text for chunk in chunks for text in chunk_unit_texts(chunk)]
    units = kb.embedder.embed(texts)
    units = units / np.linalg.norm(units, axis=1, keepdims=True)
    return float((units @ embed_queries(kb.embedder, [query])[0].ravel()).max())


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_document_whose_one_sentence_answers_is_judged_by_that_sentence(
    make_kb: Callable[..., Bunko], tmp_path: Path, lang: str,
) -> None:
    write_corpus(tmp_path / "docs", lang)
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    query = CASES[lang]["query"]
    chunk_only = ranked(kb, query, document_rank_sentence_share=0.0)
    assert Path(chunk_only[0].chunk.source).name == "files.md"  # its chunk is nearer: the answer is one sentence of three
    assert all(hit.signals.coverage is not None and hit.signals.coverage.document_sentence is None for hit in chunk_only)
    by_sentence = ranked(kb, query, document_rank_sentence_share=1.0)
    assert Path(by_sentence[0].chunk.source).name == "notes.md"
    notes = by_name(by_sentence)["notes.md"].signals.coverage
    assert notes is not None and notes.document_sentence == pytest.approx(best_unit_cosine(kb, "notes.md", query), abs=2e-3)
    # the default share: the chunk's cosine and the best sentence's, half each
    half, before = by_name(ranked(kb, query)), by_name(chunk_only)
    for name, hit in half.items():
        coverage = hit.signals.coverage
        assert coverage is not None and coverage.document_sentence is not None
        cosine = hit.signals.dense.score if hit.signals.dense else hit.signals.similarity
        assert cosine is not None
        assert hit.score == pytest.approx(before[name].score + 0.5 * (coverage.document_sentence - cosine), abs=1e-5)
    explained = HybridRetriever(kb.store.search(), kb.config.retrieve).explain(half["notes.md"].signals)
    assert any("best sentence" in line for line in explained)


def test_without_units_embedded_at_ingest_a_document_keeps_its_chunks_cosine(make_kb: Callable[..., Bunko], tmp_path: Path) -> None:
    """Units embedded as questions come ("ask") would make the ranking depend on which were asked: not read."""
    write_corpus(tmp_path / "docs", "en")
    config = Config()
    config.rerank.unit_vectors = "ask"
    kb = make_kb(config)
    assert kb.ingest(tmp_path / "docs").ok
    assert kb.searcher.sentences is None
    query = CASES["en"]["query"]
    default, chunk_only = ranked(kb, query), ranked(kb, query, document_rank_sentence_share=0.0)
    assert [(h.chunk.chunk_id, h.score) for h in default] == [(h.chunk.chunk_id, h.score) for h in chunk_only]
    assert all(h.signals.coverage is not None and h.signals.coverage.document_sentence is None for h in default)


def test_a_document_whose_units_are_missing_has_no_best_sentence_until_they_are_built(
    make_kb: Callable[..., Bunko], tmp_path: Path,
) -> None:
    """As after a crash between indexing a document and embedding its units: the document is searched by its chunks,
    and the next ingest (which finds the file unchanged) or `bunko reindex --unit-vectors` gives it its sentences back."""
    write_corpus(tmp_path / "docs", "zh")
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    assert kb.units.documents_with_units() == (2, 2)
    with sqlite3.connect(kb.path / FILE_NAME) as db:
        db.execute("DELETE FROM document_units")
    assert kb.units.documents_with_units() == (0, 2)  # what `bunko reindex --unit-vectors` reports
    query = CASES["zh"]["query"]
    assert all(h.signals.coverage is not None and h.signals.coverage.document_sentence is None for h in ranked(kb, query))
    again = kb.ingest(tmp_path / "docs")
    assert again.ok and {job.status.value for job in again.jobs} == {"SKIPPED"}
    assert all(h.signals.coverage is not None and h.signals.coverage.document_sentence is not None for h in ranked(kb, query))
    with sqlite3.connect(kb.path / FILE_NAME) as db:
        db.execute("DELETE FROM document_units")
    assert kb.units.build() == 0  # every unit was stored: only the documents' matrices are written again
    with sqlite3.connect(kb.path / FILE_NAME) as db:
        assert db.execute("SELECT COUNT(*) FROM document_units").fetchone()[0] == len(kb.documents()) == 2


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_changed_document_is_judged_by_its_new_sentences(make_kb: Callable[..., Bunko], tmp_path: Path, lang: str) -> None:
    write_corpus(tmp_path / "docs", lang)
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    query = CASES[lang]["query"]
    before = by_name(ranked(kb, query))["notes.md"].signals.coverage
    write_corpus(tmp_path / "docs", lang, answer=False)
    assert kb.ingest(tmp_path / "docs").ok
    after = by_name(ranked(kb, query))["notes.md"].signals.coverage
    assert before is not None and after is not None and before.document_sentence and after.document_sentence
    assert after.document_sentence < before.document_sentence - 0.1
    assert after.document_sentence == pytest.approx(best_unit_cosine(kb, "notes.md", query), abs=2e-3)


def spy_on_chunks(kb: Bunko) -> list[str | None]:
    """The sources whose chunks the collection's store is asked for from now on, in order."""
    chunks_read: list[str | None] = []
    reading_chunks = kb.store.chunks

    def chunks(source: str | None = None) -> list:
        chunks_read.append(source)
        return reading_chunks(source)

    kb.store.chunks = chunks  # type: ignore[method-assign]
    return chunks_read


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_an_ingest_over_an_unchanged_folder_reads_only_the_chunks_of_documents_without_their_matrix(
    make_kb: Callable[..., Bunko], tmp_path: Path, lang: str,
) -> None:
    write_corpus(tmp_path / "docs", lang)
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    notes = next(doc for doc in kb.documents() if doc.source.endswith("notes.md"))
    version = kb.store.document_versions([notes.doc_id])[notes.doc_id]
    with sqlite3.connect(kb.path / FILE_NAME) as db:
        db.execute("DELETE FROM document_units WHERE key = ?", (kb.units.file.document_key(kb.embedder.name, notes.doc_id, version),))
    assert kb.units.documents_with_units() == (1, 2)
    chunks_read = spy_on_chunks(kb)
    again = kb.ingest(tmp_path / "docs")
    assert again.ok and {job.status.value for job in again.jobs} == {"SKIPPED"}
    assert chunks_read == [notes.source]
    assert kb.units.documents_with_units() == (2, 2)
    chunks_read.clear()
    assert kb.ingest(tmp_path / "docs").ok and chunks_read == []


def test_a_write_to_another_document_keeps_what_was_read_of_the_others(make_kb: Callable[..., Bunko], tmp_path: Path) -> None:
    """Each kept matrix carries its document's version: a new document does not make the others be read again, and a
    search reads no document's chunks to find its matrix."""
    write_corpus(tmp_path / "docs", "ja")
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    query = CASES["ja"]["query"]
    first = ranked(kb, query)
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n" + CASES["ja"]["other"] + "\n", encoding="utf-8")
    assert kb.ingest(tmp_path / "docs").ok
    chunks_read = spy_on_chunks(kb)
    matrices_read: list[bytes] = []
    reading_matrix = kb.units.file.document_units

    def matrix(key: bytes, dimension: int) -> np.ndarray | None:
        matrices_read.append(key)
        return reading_matrix(key, dimension)

    kb.units.file.document_units = matrix  # type: ignore[method-assign]
    again = by_name(ranked(kb, query))
    assert chunks_read == []
    versions = kb.store.document_versions([h.chunk.doc_id for h in first])
    kept = {kb.units.file.document_key(kb.embedder.name, doc_id, version) for doc_id, version in versions.items()}
    assert not kept & set(matrices_read)  # only other.md's, if it was among the best, was read
    for hit in first:
        coverage, now = hit.signals.coverage, again[Path(hit.chunk.source).name].signals.coverage
        assert coverage is not None and now is not None and now.document_sentence == coverage.document_sentence
