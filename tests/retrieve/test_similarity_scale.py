"""`[retrieve] similarity_scale`: what cosines weigh in coverage fusion, for embedders whose cosines spread less than USE's.

multilingual-e5 puts every chunk of a page corpus at a cosine of 0.7-0.9 with a query (std 0.023, USE's 0.073),
so with the weights chosen on USE its dense evidence is outvoted by keyword evidence. The scale multiplies
both cosine evidences (the chunk's and its document's) in coverage fusion, and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.retrieve.hybrid import scaled_similarity

PAGES = {
    "en": ("Signing keys rotate every quarter; the old key stays valid for a month.",
           "The backup window opens at two in the morning and closes at five.",
           "Audit logs are kept for seven years in the archive."),
    "ja": ("署名鍵は四半期ごとに更新し、古い鍵は一か月有効です。", "バックアップ時間帯は午前二時に始まり五時に終わります。",
           "監査ログはアーカイブに七年間保管します。"),
    "zh": ("签名密钥每季度轮换一次，旧密钥保留一个月有效。", "备份窗口在凌晨两点开始，五点结束。", "审计日志在档案中保存七年。"),
}
QUESTION = {"en": "when do backups run", "ja": "バックアップはいつ実行されますか", "zh": "备份什么时候运行"}


def test_the_scale_multiplies_every_cosine_weight_and_nothing_else() -> None:
    weights = {"dense": 1.0, "keyword": 0.55, "document": 1.0, "document_similarity": 0.5, "language": 0.1}
    assert scaled_similarity(weights, 3.0) == {**weights, "dense": 3.0, "document_similarity": 1.5}
    assert scaled_similarity({**weights, "document_opening": 0.25}, 2.0) == {
        **weights, "dense": 2.0, "document_similarity": 1.0, "document_opening": 0.5}
    assert scaled_similarity(weights, 1.0) == weights


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_scale_fuses_as_the_cosine_weights_multiplied_by_it(make_kb: Callable[..., Bunko], tmp_path: Path, lang: str) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for n, text in enumerate(PAGES[lang]):
        (folder / f"page-{n}.md").write_text(f"# Page {n}\n\n{text}\n", encoding="utf-8")
    kb = make_kb()
    assert kb.ingest(folder).ok
    searcher = kb.searcher
    base = searcher.config

    def ranked(**overrides: object) -> list[tuple[str, float]]:
        searcher.config = base.model_copy(update=overrides)
        return [(hit.chunk.chunk_id, round(hit.score, 6)) for hit in searcher.search(QUESTION[lang], k=5, mode="hybrid").hits]

    scaled = ranked(similarity_scale=3.0)
    assert scaled == ranked(dense_weight=3 * base.dense_weight, document_similarity_weight=3 * base.document_similarity_weight)
    assert scaled != ranked()  # the scores move: cosines weigh three times as much
