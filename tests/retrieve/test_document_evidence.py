"""Document-level evidence: a document whose words are spread over its chunks is found as a whole.

Short questions name several things a page covers in different places; no one chunk holds
them all. The document index scores each document's text as a whole, and its best chunk
joins the candidates, so the page ranks first while the hit still cites one chunk of it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bunko import Bunko, Config

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
    "en": "signing keys, backup window and audit logs",
    "ja": "署名鍵、バックアップ時間帯、監査ログ",
    "zh": "签名密钥、备份窗口和审计日志",
}


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
    # keyword evidence only (dense weight 0), and document evidence weighed enough to decide in a corpus this small
    assert documents(kb, QUESTION[lang], dense_weight=0.0, document_weight=10.0)[0] == "operations.md"
    assert documents(kb, QUESTION[lang], dense_weight=0.0, document_weight=0.0)[0] == "notes.md"  # the short chunk wins alone


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
