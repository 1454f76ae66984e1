"""A question about the whole collection ("what are these documents mainly about?") is answered with its topics'
central sentences, cited, in the question's language, and never a table row or a code line; its confidence is what
those topics cover, so it falls when the collection holds more that they do not speak for."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from bunko import Bunko
from bunko.text.languages import text_language
from bunko.text.sentences import ends_sentence

QUESTIONS = {
    "en": "Give me the main themes of this collection.",
    "ja": "この資料全体の主な内容をまとめてください。",
    "zh": "请概括这些资料的主要主题。",
}
UNRELATED = {
    "en": [  # no word a policy also uses ("leaves" reads as the entity "leave", a kind of absence)
        "# Tomatoes\n\nTomato seedlings are planted outdoors after the last frost. Each tomato plant needs a stake and "
        "full sun. Water the tomato beds at dawn so that the foliage dries before dusk.\n",
        "# Compost\n\nA compost heap turns garden waste into soil. The heap needs air, so turn the compost often. "
        "Kitchen peelings and dry foliage are mixed in equal parts.\n",
        "# Roses\n\nRoses are pruned in late winter, just above an outward bud. Feed roses with compost in spring and "
        "water the roots, not the foliage.\n",
    ],
    "ja": [
        "# トマト\n\nトマトの苗は遅霜の心配がなくなってから畑に植えます。トマトには支柱を立て、日当たりのよい場所で育てます。"
        "葉が夜までに乾くように、水やりは朝に行います。\n",
        "# 堆肥\n\n堆肥は庭の落ち葉や野菜くずから土を作る方法です。堆肥の山には空気が必要なので、二週間ごとに切り返します。\n",
        "# バラ\n\nバラの剪定は冬の終わりに、外向きの芽のすぐ上で行います。春には堆肥を与え、葉ではなく根元に水をやります。\n",
    ],
    "zh": [
        "# 番茄\n\n番茄苗要在最后一次霜冻之后移栽到室外。每株番茄都需要支架和充足的阳光。浇水应在早上进行，让叶子在夜间之前晾干。\n",
        "# 堆肥\n\n堆肥可以把落叶和菜皮变成土壤。堆肥堆需要空气，所以每两周翻动一次堆肥。厨房菜皮和干树叶按相同比例混合。\n",
        "# 玫瑰\n\n玫瑰在冬末修剪，剪口位于向外的芽上方。春天给玫瑰施堆肥，浇水时浇根部而不是叶子。\n",
    ],
}


def topics_cited(answer: Any) -> set[int]:
    """The topics (communities) of the passages the answer's sentences cite, as its trace recorded them."""
    assert answer.trace is not None
    community = {h.chunk_id: h.signals.get("path", {}).get("community") for h in answer.trace.evidence.hits}
    return {community[c.chunk_id] for s in answer.sentences for c in s.citations if community.get(c.chunk_id) is not None}


@pytest.mark.parametrize("language", ["en", "ja", "zh"])
def test_the_collections_topics_are_summarised_by_cited_prose_sentences(samples_kb_path: Path, embedder: Any, language: str) -> None:
    with Bunko(samples_kb_path, embedder=embedder) as kb:
        answer = kb.ask(QUESTIONS[language])
    assert answer.trace is not None and answer.trace.evidence.route["retriever"] == "graph-global"
    assert not answer.abstained, (answer.text, answer.confidence)
    assert len(answer.sentences) >= 2
    assert len(topics_cited(answer)) >= 2, answer.sentences
    for sentence in answer.sentences:
        assert sentence.citations, sentence.text
        assert ends_sentence(sentence.text) and "|" not in sentence.text and "```" not in sentence.text, sentence.text
        assert text_language(sentence.text) == language, sentence.text
    assert 0.0 < answer.confidence < 1.0


@pytest.mark.parametrize("language", ["en", "ja", "zh"])
def test_the_confidence_falls_when_the_topics_cover_less_of_the_collection(
    samples_kb_path: Path, embedder: Any, tmp_path: Path, language: str,
) -> None:
    with Bunko(samples_kb_path, embedder=embedder) as kb:
        before = kb.ask(QUESTIONS[language])
    shutil.copytree(samples_kb_path, tmp_path / ".bunko")
    garden = tmp_path / "garden"
    garden.mkdir()
    for i, text in enumerate(UNRELATED[language]):
        (garden / f"garden-{i}-{language}.md").write_text(text, encoding="utf-8")
    with Bunko(tmp_path / ".bunko", embedder=embedder) as kb:
        assert kb.ingest(garden).ok
        after = kb.ask(QUESTIONS[language])
    assert not before.abstained
    covered = [a.trace.grade.features["collection_covered"] for a in (before, after) if a.trace is not None]
    assert covered[1] < covered[0], covered
    assert after.confidence < before.confidence, (before.confidence, after.confidence)
