"""The features the reader weighs (`bunko.rerank.unit_features`), measured on small passages in en, ja and zh, and
the reader model file: data only, refused when it does not fit the features."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bunko.embed.base import embed_queries
from bunko.rerank.evidence import ScoredUnit, hit_units, score_units
from bunko.rerank.reader import LinearScorer, ReaderModel
from bunko.rerank.unit_features import FEATURE_NAMES, UnitFeatures
from bunko.retrieve.question import read_question
from bunko.schema import Chunk, Hit, RankSignal, Signals
from bunko.text.analyzers import multilingual


def hit(text: str, n: int, section: str = "") -> Hit:
    chunk = Chunk(f"doc{n}.md#0", f"d{n}", f"doc{n}.md", 0, text, f"{section}\n{text}" if section else text,
                  section_path=[section] if section else [])
    return Hit(chunk, score=1.0 / n, signals=Signals(fusion=RankSignal(float(n), 1.0 / n)))


def measured(embedder, question: str, hits: list[Hit]) -> list[ScoredUnit]:
    tokens = multilingual(question)
    vector = embed_queries(embedder, [question])[0]
    units = hit_units(hits, 100)
    return score_units(read_question(question, tokens), hits, units, vector, embedder, multilingual, None, LinearScorer({"similarity": 1.0}))


def by_text(scored: list[ScoredUnit], fragment: str) -> UnitFeatures:
    [found] = [s.features for s in scored if fragment in s.unit.text and s.features is not None]
    return found


@pytest.mark.parametrize(
    ("question", "passage", "restating", "answering"),
    [
        ("Which tool checks a shell script for bashisms?",
         "Write shell scripts without bashisms so that they run in every shell. Run frobcheck on the script to find them.",
         "without bashisms", "frobcheck"),
        ("シェルスクリプトの移植性を確かめるツールは何ですか？",
         "シェルスクリプトの移植性を確かめることは大切です。確認には frobcheck コマンドを使います。",
         "大切です", "frobcheck"),
        ("检查脚本可移植性的工具是什么？",
         "检查脚本可移植性很重要。可以使用 frobcheck 命令进行检查。",
         "很重要", "frobcheck"),
    ],
)
def test_the_answer_after_a_restatement_is_new_and_follows_a_match(embedder, question, passage, restating, answering) -> None:
    scored = measured(embedder, question, [hit(passage, 1)])
    restatement, answer = by_text(scored, restating), by_text(scored, answering)
    assert answer.novelty > restatement.novelty
    assert answer.after_match == pytest.approx(restatement.coverage)
    assert restatement.after_match == 0.0
    assert max(s.features.similarity_gap for s in scored if s.features) == 0.0
    assert all(s.features.similarity_gap <= 0.0 and s.features.coverage_gap <= 0.0 for s in scored if s.features)


@pytest.mark.parametrize(
    ("question", "table", "row"),
    [
        ("What does level 3 mean?", "| level | meaning |\n|---|---|\n| 2 | critical |\n| 3 | error |\n| 4 | warning |", "error"),
        ("レベル 3 は何を意味しますか？", "| レベル | 意味 |\n|---|---|\n| 2 | 重大 |\n| 3 | エラー |\n| 4 | 警告 |", "エラー"),
        ("等级 3 表示什么？", "| 等级 | 含义 |\n|---|---|\n| 2 | 严重 |\n| 3 | 错误 |\n| 4 | 警告 |", "错误"),
    ],
)
def test_a_row_the_question_looks_up_by_value_is_marked_and_its_neighbours_are_not(embedder, question, table, row) -> None:
    scored = measured(embedder, question, [hit(table, 1, section="Levels")])
    rows = [s for s in scored if s.features is not None and s.features.is_row]
    looked = [s for s in rows if s.features.looked_up]
    assert [s.unit.text for s in looked] and row in looked[0].unit.text and len(looked) == 1


@pytest.mark.parametrize(
    ("question", "with_path", "without_path"),
    [
        ("Which directory holds the cache?", "Packages are cached in /var/cache/frob/archives.", "The cache grows with every download."),
        ("キャッシュのディレクトリはどこですか？", "パッケージは /var/cache/frob/archives にキャッシュされます。", "キャッシュはダウンロードのたびに増えます。"),
        ("缓存放在哪个目录？", "软件包缓存在 /var/cache/frob/archives 中。", "缓存会随每次下载而增长。"),
    ],
)
def test_a_path_question_marks_units_that_hold_a_path(embedder, question, with_path, without_path) -> None:
    scored = measured(embedder, question, [hit(f"{without_path} {with_path}", 1)])
    holding, missing = by_text(scored, "/var/cache"), by_text(scored, without_path[:6])
    assert (holding.type_held, holding.type_missing) == (1.0, 0.0)
    assert (missing.type_held, missing.type_missing) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("question", "lead", "fact"),
    [
        ("What are the office hours?", "The office hours are as follows:", "Weekdays 9:00 to 17:00."),
        ("営業時間は？", "営業時間は次のとおりです。", "平日 9 時から 17 時まで。"),
        ("办公时间是什么？", "办公时间如下：", "工作日 9 点至 17 点。"),
    ],
)
def test_a_lead_in_is_marked(embedder, question, lead, fact) -> None:
    scored = measured(embedder, question, [hit(f"{lead}\n\n{fact}", 1)])
    assert by_text(scored, lead[:5]).lead_in == 1.0
    assert by_text(scored, fact[:5]).lead_in == 0.0


def test_a_unit_in_the_question_language_is_marked_and_a_translation_is_not(embedder) -> None:
    hits = [hit("Guests connect to the network named Aozora.", 1), hit("来客は Aozora という名前のネットワークに接続します。", 2)]
    scored = measured(embedder, "来客用ネットワークの名前は？", hits)
    assert by_text(scored, "来客は").same_language == 1.0
    assert by_text(scored, "Guests").same_language == 0.0
    assert by_text(scored, "Guests").hit_rank == 0.0 and by_text(scored, "来客は").hit_rank == 1.0


def test_the_feature_vector_follows_the_declared_names() -> None:
    features = UnitFeatures(**{name: float(i) for i, name in enumerate(FEATURE_NAMES)})
    assert features.vector().tolist() == [float(i) for i in range(len(FEATURE_NAMES))]


# -- the model file ---------------------------------------------------------------------------------


def test_the_packaged_reader_loads_and_rates_in_zero_one() -> None:
    model = ReaderModel.load()
    features = UnitFeatures(**dict.fromkeys(FEATURE_NAMES, 0.5))
    assert 0.0 < model.score(features) < 1.0
    assert set(model.features) <= set(FEATURE_NAMES)


def test_a_model_file_round_trips_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    names = ("similarity", "coverage")
    model = ReaderModel(names, np.zeros(2), np.ones(2), np.array([2.0, 1.0]), -1.0, {"fitted_by": "a test"})
    path = tmp_path / "reader.json"
    path.write_text(model.to_json(), encoding="utf-8")
    loaded = ReaderModel.load(path)
    features = UnitFeatures(**dict.fromkeys(FEATURE_NAMES, 0.0) | {"similarity": 0.5, "coverage": 1.0})
    assert loaded.score(features) == pytest.approx(model.score(features)) == pytest.approx(1 / (1 + np.exp(-1.0)))
    for broken in ({**json.loads(model.to_json()), "features": ["similarity", "made_up"]},
                   {**json.loads(model.to_json()), "scale": [1.0, 0.0]},
                   {**json.loads(model.to_json()), "weights": [1.0]}):
        path.write_text(json.dumps(broken), encoding="utf-8")
        with pytest.raises(ValueError, match="reader model"):
            ReaderModel.load(path)
