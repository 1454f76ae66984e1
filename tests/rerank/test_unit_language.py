"""A sentence's language is its own: a page left mostly in English by its translators still holds translated sentences."""

from __future__ import annotations

import pytest

from bunko.embed.base import embed_queries
from bunko.rerank.evidence import hit_units, score_units
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual
from bunko.text.units import CODE, PROSE

ENGLISH = ("The kernel package installs the kernel image, its configuration and its symbol table in /boot/. "
           "Most of this work is offloaded to scripts in /etc/kernel/*.d/ directories, which packages can extend.")
CASES = [
    ("内核模块装在哪个目录？", "其模块安装在 /lib/modules/version/ 文件夹。", "zh"),
    ("カーネルモジュールはどのディレクトリに入りますか？", "モジュールは /lib/modules/version/ ディレクトリに入ります。", "ja"),
]


@pytest.mark.parametrize(("question", "translated", "lang"), CASES)
def test_a_translated_sentence_in_a_mostly_english_chunk_is_in_its_own_language(
    embedder, question: str, translated: str, lang: str
) -> None:
    text = f"{ENGLISH} {translated}\n\n```\n$ ls /lib/modules\n```"
    hits = [Hit(Chunk("k.html#0", "d0", "k.html", 0, text, text, section_path=["Kernel"]), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    scored = score_units(question, hits, hit_units(hits, 50), vector, multilingual(question), embedder, multilingual)
    language = {s.unit.text: s.language for s in scored if s.unit.kind == PROSE}
    assert language[translated] == lang
    assert {language[u] for u in language if u != translated} == {"en"}
    assert [s.language for s in scored if s.unit.kind == CODE] == ["en"]  # code takes its chunk's language (English here)
    assert max(scored, key=lambda s: s.score).unit.text == translated


def test_an_english_question_prefers_the_english_sentences_of_the_same_chunk(embedder) -> None:
    question = "Where does the kernel package install the kernel image?"
    text = f"{ENGLISH} 其模块安装在 /lib/modules/version/ 文件夹。"
    hits = [Hit(Chunk("k.html#0", "d0", "k.html", 0, text, text, section_path=["Kernel"]), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    scored = score_units(question, hits, hit_units(hits, 50), vector, multilingual(question), embedder, multilingual)
    assert max(scored, key=lambda s: s.score).language == "en"
