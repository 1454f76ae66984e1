"""Translations of one page compete with it: the one in the question's language is preferred, single-language evidence is not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bunko import Bunko
from bunko.index.translations import TRANSLATION_SIMILARITY, document_centroids, translation_pairs

HOSTNAME = {
    "en": "# Host name\n\nTo change the host name of the machine, edit the file /etc/hostname and then run hostnamectl "
          "set-hostname with the new name. The change takes effect without a reboot.\n",
    "ja": "# ホスト名\n\nマシンのホスト名を変更するには、ファイル /etc/hostname を編集してから新しい名前で hostnamectl "
          "set-hostname を実行します。変更は再起動なしで有効になります。\n",
    "zh": "# 主机名\n\n要更改机器的主机名，请编辑文件 /etc/hostname，然后用新名称运行 hostnamectl set-hostname。"
          "更改无需重新启动即可生效。\n",
}
SLA_ZH = ("# 客户支持服务水平协议\n\nP2 级别工单的首次响应时间为 2 小时，解决时间为 3 个工作日。"
          "P1 级别工单的首次响应时间为 30 分钟。\n")


def _unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_document_centroids_are_the_unit_mean_of_each_documents_rows() -> None:
    vectors = np.stack([_unit(1, 0, 0), _unit(0, 1, 0), _unit(0, 0, 1)])
    centroids = document_centroids(vectors, np.asarray([0, 2, 2, 3]))  # rows 0-1, no rows, row 2
    np.testing.assert_allclose(centroids[0], _unit(1, 1, 0), rtol=1e-6)
    assert not centroids[1].any()
    np.testing.assert_allclose(centroids[2], _unit(0, 0, 1), rtol=1e-6)


def test_a_translation_is_the_mutually_closest_document_of_its_language_above_the_threshold() -> None:
    en, ja, zh = 0, 1, 2
    languages = np.asarray([en, ja, zh, zh, ja])
    centroids = np.stack([_unit(1, 0.05, 0), _unit(1, 0.1, 0), _unit(1, 0, 0.1),  # one page in three languages
                          _unit(0, 1, 0),                                          # a page in Chinese only
                          _unit(1, 0.3, 0)])                                       # a Japanese page near the first
    assert centroids[4] @ centroids[0] >= TRANSLATION_SIMILARITY
    documents = np.arange(5)
    assert translation_pairs(centroids, documents, languages, en) == [(1, 0), (2, 0)]  # not 4: 1 is closer to 0
    assert translation_pairs(centroids, documents, languages, zh) == [(0, 2), (1, 2)]
    assert translation_pairs(centroids, documents, languages, ja) == [(0, 1), (2, 1)]
    assert translation_pairs(centroids, np.asarray([0, 3]), languages, en) == []  # unrelated: below the threshold
    assert translation_pairs(centroids, np.asarray([1, 4]), languages, en) == []  # nothing in the question's language


def _hostname_pages_and_a_chinese_sla(make_kb: Callable[..., Bunko], tmp_path: Path) -> Bunko:
    """One page in three languages and a page in Chinese only, ingested."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for language, text in HOSTNAME.items():
        (docs / f"hostname-{language}.md").write_text(text, encoding="utf-8")
    (docs / "sla-zh.md").write_text(SLA_ZH, encoding="utf-8")
    kb = make_kb()
    assert kb.ingest(docs).ok
    return kb


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_the_store_tells_which_candidates_translate_a_page_in_the_questions_language(
    make_kb: Callable[..., Bunko], tmp_path: Path, lang: str
) -> None:
    kb = _hostname_pages_and_a_chinese_sla(make_kb, tmp_path)
    chunks = {h.chunk.chunk_id: Path(h.chunk.source).stem for h in kb.searcher.search("hostnamectl 2", mode="keyword", k=20).hits}
    assert set(chunks.values()) == {"hostname-en", "hostname-ja", "hostname-zh", "sla-zh"}
    tokens = kb.searcher.analyzer("hostnamectl /etc/hostname")
    translated = {chunks[cid] for cid in kb.store.search().translated_chunks(list(chunks), lang, tokens)}
    assert translated == {f"hostname-{other}" for other in HOSTNAME if other != lang}  # never the page only in Chinese
    # a translation that names something of the question its counterpart does not is evidence of its own
    newer = {chunks[cid] for cid in kb.store.search().translated_chunks(list(chunks), lang, [*tokens, "reboot"])}
    assert newer == translated - {"hostname-en"}  # only the English page writes "reboot"


QUESTIONS = {"en": "How do I change the host name?", "ja": "ホスト名を変更する方法は？", "zh": "如何更改主机名？"}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_the_page_in_the_questions_language_ranks_above_its_translations(
    make_kb: Callable[..., Bunko], tmp_path: Path, lang: str
) -> None:
    kb = _hostname_pages_and_a_chinese_sla(make_kb, tmp_path)
    for group_by in ("chunk", "document"):
        hits = kb.searcher.search(QUESTIONS[lang], k=4, group_by=group_by).hits
        assert Path(hits[0].chunk.source).stem == f"hostname-{lang}", group_by
    # evidence in one language only is not demoted: an English question about the Chinese SLA still finds it first
    hits = kb.searcher.search("first response time of a P2 ticket", k=4).hits
    assert Path(hits[0].chunk.source).stem == "sla-zh"
    penalty = kb.searcher.config.translation_weight
    assert penalty > 0
    plain = {h.chunk.chunk_id: h.score for h in kb.searcher.search(QUESTIONS[lang], k=8, language="any").hits}
    preferred = {h.chunk.chunk_id: h.score for h in kb.searcher.search(QUESTIONS[lang], k=8).hits}
    demoted = {Path(h.chunk.source).stem for h in kb.searcher.search(QUESTIONS[lang], k=8).hits
               if plain[h.chunk.chunk_id] - preferred[h.chunk.chunk_id] == pytest.approx(penalty)}
    assert demoted == {f"hostname-{other}" for other in HOSTNAME if other != lang}
    flagged = {Path(h.chunk.source).stem for h in kb.searcher.search(QUESTIONS[lang], k=8).hits if h.signals.translation == 1.0}
    assert flagged == demoted  # the trace and --explain say why they rank lower
