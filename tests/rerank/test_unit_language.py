"""A sentence's language is its own: a page left mostly in English by its translators still holds translated sentences."""

from __future__ import annotations

import pytest

from bunko.embed.base import embed_queries
from bunko.rerank.evidence import best_unit, hit_units, score_units
from bunko.retrieve.question import read_question
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual
from bunko.text.languages import query_language
from bunko.text.units import CODE, PROSE

ENGLISH = ("The tidewatch package installs the gauge daemon, its configuration and its station table in /srv/tide/. "
           "Most of this work is offloaded to scripts in /etc/tidewatch/*.d/ directories, which plugins can extend.")
CASES = [
    ("潮位记录存放在哪个目录？", "其潮位记录保存在 /var/lib/tidewatch/records/ 文件夹。", "zh"),
    ("潮位の記録はどのディレクトリに入りますか？", "潮位の記録は /var/lib/tidewatch/records/ ディレクトリに入ります。", "ja"),
]


@pytest.mark.parametrize(("question", "translated", "lang"), CASES)
def test_a_translated_sentence_in_a_mostly_english_chunk_is_in_its_own_language(
    embedder, question: str, translated: str, lang: str
) -> None:
    text = f"{ENGLISH} {translated}\n\n```\n$ ls /var/lib/tidewatch/records\n```"
    hits = [Hit(Chunk("t.html#0", "d0", "t.html", 0, text, text, section_path=["Tide gauge"]), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    scored = score_units(read_question(question, multilingual(question)), hits, hit_units(hits, 50), vector, embedder, multilingual)
    language = {s.unit.text: s.language for s in scored if s.unit.kind == PROSE}
    assert language[translated] == lang
    assert {language[u] for u in language if u != translated} == {"en"}
    assert [s.language for s in scored if s.unit.kind == CODE] == ["en"]  # code takes its chunk's language (English here)
    assert best_unit(scored, query_language(question)).unit.text == translated  # the answer quotes it over the English code line


def test_an_english_question_prefers_the_english_sentences_of_the_same_chunk(embedder) -> None:
    question = "Where does the tidewatch package install the gauge daemon?"
    text = f"{ENGLISH} 其潮位记录保存在 /var/lib/tidewatch/records/ 文件夹。"
    hits = [Hit(Chunk("t.html#0", "d0", "t.html", 0, text, text, section_path=["Tide gauge"]), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    scored = score_units(read_question(question, multilingual(question)), hits, hit_units(hits, 50), vector, embedder, multilingual)
    assert max(scored, key=lambda s: s.score).language == "en"
