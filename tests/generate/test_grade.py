"""The grade judges the unit that would be quoted, with a fitted, calibrated confidence."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bunko.generate.confidence import (
    FEATURES,
    FITTED_MODEL,
    RETRIEVAL_CALIBRATION,
    AnswerFeatures,
    ConfidenceModel,
    expected_calibration_error,
    fit_logistic,
)
from bunko.generate.grade import grade_answer
from bunko.generate.retrieval_grade import RETRIEVAL_THRESHOLD
from bunko.generate.retrieval_grade import junction_pairs as junctions
from bunko.rerank.evidence import hit_units, score_units
from bunko.retrieve.key_terms import RARE_IDF, katakana_subject, key_terms, rare_key_terms, unlisted_words, writes_word
from bunko.retrieve.question import read_question
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual
from bunko.text.languages import query_language
from bunko.trace import Grade


@pytest.mark.parametrize(
    ("question", "keys"),
    [
        ("How do I configure gauge2csv for metric units?", ["gauge2csv"]),
        ("gauge2csv でメートル単位を設定するには？", ["gauge2csv"]),
        ("怎么配置 gauge2csv 使用公制单位？", ["gauge2csv"]),
        ("How do I make Quay start Lantern on Mirador?", ["quay", "lantern", "mirador"]),
        ("What is the default value of Gauge::Sampling::RetryInterval?", ["retryinterval"]),
        ("How many days of annual leave do employees get?", []),
        ("Which setting in tidewatch.conf makes the log rotate?", ["tidewatch.conf"]),
        ("What is the default gauge.smoothing value?", ["gauge.smoothing"]),
        ("tidewatch.conf のどの設定でログを回転させますか？", ["tidewatch.conf"]),
        ("gauge.smoothing 的默认值是多少？", ["gauge.smoothing"]),
        ("How do I open a .kbx file from the shell?", ["kbx"]),
        (".kbx ファイルをシェルから開くには？", ["kbx"]),
        ("怎么在终端里打开 .kbx 文件？", ["kbx"]),
    ],
)
def test_key_terms_are_the_named_things_of_the_question(question: str, keys: list[str]) -> None:
    assert set(keys) <= set(key_terms(question, multilingual(question)))
    assert not {"how", "many", "days", "employees", "configure"} & set(key_terms(question, multilingual(question)))


@pytest.mark.parametrize(
    ("question", "keys", "not_keys"),
    [
        ("Which boats replace a Dory/Skiff tender?", ["dory", "skiff"], ["dory/skiff"]),
        ("Dory/Skiff の補助艇を置き換える船は？", ["dory", "skiff"], ["dory/skiff"]),
        ("替换 Dory/Skiff 小艇用哪些船？", ["dory", "skiff"], ["dory/skiff"]),
        ("How do I set up NFC-based badges?", ["nfc"], ["nfc-based", "based"]),
        ("NFC-based のバッジを設定するには？", ["nfc"], ["nfc-based"]),
        ("怎么设置 Linux-based 终端的账户？", ["linux"], ["linux-based"]),
        ("Which kiln model runs QX-RT programs?", ["qx-rt"], ["qx", "rt"]),
        ("/etc/tidewatch/gauge_config のどの設定ですか？", ["etc/tidewatch/gauge_config"], ["etc", "tidewatch"]),
        ("How do I install tide-logger-ng on x86-64?", ["x86-64"], ["tide", "logger"]),
    ],
)
def test_a_written_word_names_its_alternatives_and_names_not_its_common_words(
    question: str, keys: list[str], not_keys: list[str]
) -> None:
    """"Dory/Skiff" is found where a page writes "Dory, Skiff", "NFC-based" where it writes NFC; a path or a
    hyphenated name stays whole, so a name the collection lacks still refuses the question."""
    found = key_terms(question, multilingual(question))
    assert set(keys) <= set(found)
    assert not set(not_keys) & set(found)


def test_a_dotted_names_tail_is_not_an_extension_of_its_own() -> None:
    question = "Which setting in tidewatch.conf makes the log rotate?"
    assert "conf" not in key_terms(question, multilingual(question))


def _hit(text: str, ordinal: int, distance: float | None) -> Hit:
    chunk = Chunk(f"doc{ordinal}.md#1", f"doc{ordinal}", f"doc{ordinal}.md", 1, text, text)
    return Hit(chunk=chunk, score=1.0, distance=distance)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which file holds the firing schedule?", "The firing schedule is stored in \"/etc/kiln/schedule\"."),
        ("焼成スケジュールはどのファイルに保存されますか？", "焼成スケジュールは \"/etc/kiln/schedule\" に保存されます。"),
        ("烧制计划保存在哪个文件里？", "烧制计划保存在 “/etc/kiln/schedule” 文件中。"),
    ],
)
def test_a_keyword_only_hit_is_judged_on_its_real_similarity(embedder, question: str, answer: str) -> None:
    """A hit that only keyword search found has no dense distance; the quoted unit's cosine is computed anyway,
    and the reader rates a unit holding the asked kind (a path) above one on topic without it."""
    tokens = multilingual(question)
    vector = embedder.embed([question])[0]
    model = ConfidenceModel.load()

    def graded(text: str):
        hits = [_hit(text, 1, None)]
        scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), vector, embedder, multilingual)
        return grade_answer(read_question(question, tokens), hits, scored, [], [], multilingual, None, model, 0.1), max(s.score for s in scored)

    (typed, typed_rating), (untyped, untyped_rating) = graded(answer), graded(
        answer.replace("/etc/kiln/schedule", "a safe place").replace("“", "").replace("”", ""))
    assert typed.features["similarity"] > 0.3
    assert typed.features["typed"] == 1.0 and untyped.features["typed"] == -1.0
    assert typed_rating > untyped_rating and typed.confidence > untyped.confidence and typed.sufficient


def test_a_missing_key_term_means_confidence_zero(embedder) -> None:
    question = "tidewatch の設定ファイルはどこにありますか？"
    hits = [_hit("潮位計の設定ファイルは \"~/.config/gaugectl\" にあります。", 1, 0.2)]
    tokens = multilingual(question)
    scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), embedder.embed([question])[0], embedder, multilingual)
    grade = grade_answer(read_question(question, tokens), hits, scored, ["tidewatch"], ["tidewatch"], multilingual, None, ConfidenceModel.load(), 0.5)
    assert grade.confidence == 0.0 and not grade.sufficient and grade.missing_key_terms == ["tidewatch"]


def test_logistic_fit_recovers_a_known_model_and_is_calibrated() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 2))
    truth = np.array([2.0, -1.0])
    y = (rng.random(4000) < 1 / (1 + np.exp(-(x @ truth + 0.5)))).astype(float)
    weights, bias = fit_logistic(x, y, l2=0.1)
    assert np.allclose(weights, truth, atol=0.2) and abs(bias - 0.5) < 0.2
    p = 1 / (1 + np.exp(-(x @ weights + bias)))
    ece, table = expected_calibration_error(p, y)
    assert ece < 0.03 and sum(b["count"] for b in table) == 4000


def test_expected_calibration_error_of_an_overconfident_model() -> None:
    ece, _ = expected_calibration_error([0.95] * 10, [1, 0] * 5)
    assert ece == pytest.approx(0.45)


def test_packaged_model_matches_the_feature_list_and_orders_evidence_sensibly() -> None:
    model = ConfidenceModel.load()
    assert len(model.weights) == len(model.features) and set(model.features) <= set(FEATURES)
    strong = AnswerFeatures(similarity=0.7, coverage=1.0, chunk_coverage=1.0, typed=1.0, key_terms=1.0, margin=0.3, retrieval=0.9,
                            reader=0.9, reader_margin=0.6)
    weak = AnswerFeatures(similarity=0.2, coverage=0.2, chunk_coverage=0.3, typed=-1.0, key_terms=0.0, margin=0.0, retrieval=0.1,
                          reader=0.1, reader_margin=0.0)
    assert model.probability(strong) > 0.5 > model.probability(weak)


@pytest.mark.parametrize(
    ("question", "term", "passage"),
    [
        ("Which mount option enables night cooling on Kilnfs?", "kilnfs",
         "The default settings of pingtool are read from \"/etc/pingtool/defaults.conf\"."),
        ("/srv の kilnfs のサイズ上限は既定で何％ですか？", "kilnfs", "pingtool の既定の設定は \"/etc/pingtool/defaults.conf\" から読み込まれます。"),
        ("/srv 的 kilnfs 默认最多占用多少空间？", "kilnfs", "pingtool 的默认设置从 “/etc/pingtool/defaults.conf” 读取。"),
    ],
)
def test_a_rare_key_term_missing_from_the_quoted_chunk_refuses_the_answer(embedder, question: str, term: str, passage: str) -> None:
    """The collection names the term somewhere, but the passage that would be quoted does not: it is not about it."""
    hits = [_hit(passage, 1, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | {term: 6.0}
    scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), embedder.embed([question])[0], embedder, multilingual, weights)
    keys = key_terms(question, tokens)
    grade = grade_answer(read_question(question, tokens), hits, scored, keys, [], multilingual, weights, None, 0.0, retrieved=hits)
    assert term in keys
    assert grade.reason == "key_term_not_in_evidence" and grade.confidence == 0.0


def test_a_key_term_on_every_page_is_not_required_in_the_quoted_chunk(embedder) -> None:
    question = "Which file holds the Harbourline timetable?"
    hits = [_hit("The timetable is stored in \"/etc/ferry/timetable\".", 1, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | {"harbourline": 0.2}
    scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), embedder.embed([question])[0], embedder, multilingual, weights)
    grade = grade_answer(read_question(question, tokens), hits, scored, ["harbourline"], [], multilingual, weights, None, 0.0, retrieved=hits)
    assert grade.reason is None


def test_unset_threshold_is_the_grades_own(make_kb) -> None:
    from bunko import Config

    fitted = Config()
    fitted.answer.confidence = "fitted"
    assert make_kb(config=fitted, name="fitted").answerer.min_confidence() == ConfidenceModel.load().threshold
    raw = Config()
    raw.answer.confidence = "retrieval"
    assert make_kb(config=raw, name="retrieval").answerer.min_confidence("ja") == 0.5
    assert make_kb(config=raw, name="retrieval-review").answerer.review_below("zh") == 0.7
    calibrated = Config()
    calibrated.answer.confidence = "calibrated"
    calibration = ConfidenceModel.load(packaged_name=RETRIEVAL_CALIBRATION)
    default = make_kb(config=calibrated, name="calibrated").answerer
    for language in ("en", "ja", "zh"):
        assert default.min_confidence(language) == calibration.threshold_for(language)
        assert default.review_below(language) == calibration.review_below_for(language)
    chosen = Config()
    chosen.answer.min_confidence, chosen.answer.review_below = 0.2, 0.9
    assert make_kb(config=chosen, name="chosen").answerer.min_confidence("ja") == 0.2  # a chosen threshold is every language's
    assert make_kb(config=chosen, name="chosen-review").answerer.review_below("zh") == 0.9


@pytest.mark.parametrize("language", ["en", "ja", "zh"])
def test_the_packaged_calibration_is_increasing_and_its_threshold_a_probability(language: str) -> None:
    """Increasing in the retrieval grade whatever the question's language, with a threshold chosen on held-out corpora."""
    model = ConfidenceModel.load(packaged_name=RETRIEVAL_CALIBRATION)
    assert model.features == ["retrieval"] and model.weights[0] > 0
    marks = {"japanese": float(language == "ja"), "chinese": float(language == "zh")}
    mapped = [model.probability(AnswerFeatures(retrieval=raw, **marks)) for raw in np.linspace(0.0, 1.0, 101)]
    assert all(b > a for a, b in itertools.pairwise(mapped))
    assert 0.0 < model.threshold_for(language) < 1.0


@pytest.mark.parametrize("packaged", [FITTED_MODEL, RETRIEVAL_CALIBRATION])
def test_no_packaged_confidence_is_fitted_on_a_reserved_corpus(packaged: str) -> None:
    corpora = ConfidenceModel.load(packaged_name=packaged).meta["corpora"]
    assert corpora and not any(word in name for name in corpora for word in ("faq", "gimp", "calc", "manpage"))  # type: ignore[union-attr]


CALIBRATION_QUESTIONS = [
    "How many days of annual leave do employees get?", "What is the hotel limit per night in Tokyo?",
    "What is the parking fee at the Osaka office?", "有給休暇は何日ですか？", "東京の宿泊費の上限はいくらですか？",
    "社員食堂のメニューは？", "年假有多少天？", "东京的住宿费上限是多少？", "公司的停车费是多少？",
]


def test_the_default_grade_answers_exactly_when_its_probability_reaches_its_threshold(make_kb, samples_dir) -> None:
    """The fitted confidence (the default) decides: an answer stands at or above the model's own threshold, and a
    passage answer is never certain by construction."""
    kb = make_kb()
    kb.ingest([samples_dir])
    decisions = set()
    for question in CALIBRATION_QUESTIONS:
        answer = kb.ask(question)
        assert answer.trace is not None
        grade = answer.trace.grade
        if grade.answer_type == "table":  # a computed table answer is graded by the table route
            continue
        threshold = kb.answerer.min_confidence(query_language(question))
        assert grade.sufficient == (grade.confidence >= threshold and grade.reason is None), question
        if not answer.abstained:
            assert grade.confidence >= threshold and 0.0 < answer.confidence < 1.0
        decisions.add(answer.abstained)
    assert decisions == {True, False}, "the questions should include both answered and refused ones"


@pytest.mark.parametrize(
    ("question", "language"),
    [("Which file holds the firing schedule?", "en"), ("焼成スケジュールはどのファイルにありますか？", "ja"), ("烧制计划在哪个文件里？", "zh")],
)
def test_the_question_language_unit_is_quoted_when_it_comes_close_to_the_best(question: str, language: str) -> None:
    from bunko.rerank.evidence import ScoredUnit, best_unit
    from bunko.text.units import Unit

    other = "zh" if language != "zh" else "en"
    foreign = ScoredUnit(Unit("x", 0, 0), 0.6, 0.5, 1.00, True, other)
    close = ScoredUnit(Unit("y", 1, 0), 0.6, 0.5, 0.90, True, language)
    far = ScoredUnit(Unit("z", 1, 0), 0.3, 0.1, 0.50, True, language)
    assert best_unit([foreign, close], query_language(question)) is close
    assert best_unit([foreign, far], query_language(question)) is foreign


@pytest.mark.parametrize(
    ("question", "without", "with_it"),
    [
        ("How many minutes does the kiln stay hot by default?",
         "Edit the kiln configuration \"/etc/kiln/kiln.conf\" with kilnedit; kilnctl 2.3 reads it at each firing.",
         "By default the kiln stays hot for 40 minutes; edit \"/etc/kiln/kiln.conf\" to change it."),
        ("窯はデフォルトで何分間熱いままですか？",
         "窯の設定 \"/etc/kiln/kiln.conf\" は kilnedit で編集します。kilnctl 2.3 は焼成のたびに読みます。",
         "窯はデフォルトで 40 分間熱いままです。変更は \"/etc/kiln/kiln.conf\" で行います。"),
        ("窑炉默认保温几分钟？",
         "窑炉的配置 “/etc/kiln/kiln.conf” 用 kilnedit 编辑，kilnctl 2.3 每次烧制都会读取。",
         "窑炉默认保温 40 分钟，可在 “/etc/kiln/kiln.conf” 中修改。"),
        ("Which keyboard shortcut mutes the microphone in Parley?",
         "Parley mutes the microphone after the idle delay set in \"Privacy\"; Parley 4 reads it from its profile.",
         "In Parley, press Ctrl+M to mute the microphone at once."),
        ("Parley でマイクをミュートするショートカットは？",
         "Parley はアイドル時間が過ぎるとマイクをミュートします。Parley 4 はプロファイルから設定を読みます。",
         "Parley では Ctrl+M でマイクをすぐミュートできます。"),
        ("Parley 里静音的快捷键是什么？",
         "Parley 在空闲一段时间后静音，Parley 4 从配置文件读取这个设置。",
         "在 Parley 中按 Ctrl+M 立即静音。"),
    ],
)
def test_a_quantity_question_is_refused_when_the_quoted_passage_states_no_such_quantity(
    embedder, question: str, without: str, with_it: str,
) -> None:
    """The passage is about the right thing and holds numbers, but not minutes: quoting it is the near-miss answer."""
    tokens = multilingual(question)
    vector = embedder.embed([question])[0]

    def graded(passage: str):
        hits = [_hit(passage, 1, 0.2)]
        scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), vector, embedder, multilingual)
        return grade_answer(read_question(question, tokens), hits, scored, [], [], multilingual, None, None, 0.3, retrieved=hits)

    refused, answered = graded(without), graded(with_it)
    assert refused.reason == "quantity_not_stated" and refused.confidence == 0.0 and not refused.sufficient
    assert answered.reason is None and answered.sufficient


@pytest.mark.parametrize(
    ("question", "pattern"),
    [
        ("What is the harbour code for the 10.20.x.x berths in the Quayside plan?", "10.20.x.x"),
        ("Quayside の計画で 10.20.x.x の泊地のコードは？", "10.20.x.x"),
        ("Quayside 的计划里 172.16.* 泊位的代码叫什么？", "172.16.*"),
    ],
)
def test_a_wildcard_pattern_is_not_a_key_term(question: str, pattern: str) -> None:
    """A passage writes one address of the pattern (20.10.berths.quayside), never "10.20.x.x": requiring the pattern
    refused an answerable question as ``key_term_absent``."""
    tokens = multilingual(question)
    assert "quayside" in key_terms(question, tokens)
    assert not any(pattern in term for term in key_terms(question, tokens))


@pytest.mark.parametrize(
    ("question", "keys", "examples"),
    [
        ("How can I give Lantern a fallback list of colours, e.g. Amber first, then Teal?", ["lantern"], ["amber", "teal"]),
        ("Which tools, such as Syncthing or Rclone, can mirror two folders on Quay?", ["quay"], ["syncthing", "rclone"]),
        ("ロケール (例えば de_DE.UTF-8 など) を Lantern で設定するには？", ["lantern"], ["de_de.utf-8", "de_de"]),
        ("比如 Amber 这样的配色，怎么在 kilnview 里配置？", ["kilnview"], ["amber"]),
        ("像 Amber 这样的配色，怎么在 kilnview 里配置？", ["kilnview"], ["amber"]),
        ("Amber のような配色を kilnview で設定するには？", ["kilnview"], ["amber"]),
        ("Amber などの配色を kilnview で設定するには？", ["kilnview"], ["amber"]),
        ("想让 gct 等工具自动使用我的名字和邮箱，要设置哪个环境变量？", [], ["gct"]),
        ("gct などのツールに自分の名前を使わせるには、どの環境変数を設定しますか？", [], ["gct"]),
        ("像 /scratch 这样大家共用的目录，哪个权限位能防止别人删掉我的文件？", [], ["scratch"]),
    ],
)
def test_names_in_an_example_the_question_gives_need_not_be_in_the_evidence(question: str, keys: list[str], examples: list[str]) -> None:
    tokens = multilingual(question)
    required = rare_key_terms(read_question(question, tokens).named_outside_examples, None)
    assert set(keys) <= set(required)
    assert not set(examples) & set(required)
    assert set(examples) & set(key_terms(question, tokens)), "still named things: one the collection lacks refuses the question"


@pytest.mark.parametrize(
    ("question", "passage"),
    [
        ("Which Quay command also grows the kfs3 filesystem?", "Running kfs-tune -O extents converts a kfs2 filesystem to kfs3."),
        ("Quay の論理ボリュームと kfs3 ファイルシステムを一緒に広げるコマンドは？", "kfs-tune -O extents を実行すると kfs2 は kfs3 に変換されます。"),
        ("mooringd 属于 harbour 还是 anchorage 区域？", "在 harbour 中的船只没有依赖于 anchorage 中的船只。"),
    ],
)
def test_the_rarest_key_term_must_be_in_the_quoted_chunk(embedder, question: str, passage: str) -> None:
    """A passage naming only the common things around the question (kfs3, the mooring areas) is not about its subject."""
    hits = [_hit(passage, 1, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | {"kfs3": 3.0, "harbour": 2.5, "anchorage": 3.0, "quay": 5.0, "mooringd": 6.0}
    scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), embedder.embed([question])[0], embedder, multilingual, weights)
    keys = key_terms(question, tokens)
    grade = grade_answer(read_question(question, tokens), hits, scored, keys, [], multilingual, weights, None, 0.0, retrieved=hits)
    assert set(rare_key_terms(read_question(question, tokens).named_outside_examples, weights)) & set(multilingual(passage))
    assert grade.reason == "key_term_not_in_evidence" and grade.confidence == 0.0


def _graded(embedder, question: str, passage: str, rare: dict[str, float]) -> Grade:
    hits = [_hit(passage, 1, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | rare
    scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), embedder.embed([question])[0], embedder, multilingual, weights)
    return grade_answer(read_question(question, tokens), hits, scored, key_terms(question, tokens), [], multilingual, weights, None, 0.0, retrieved=hits)


@pytest.mark.parametrize(
    ("question", "passage"),
    [
        ("My USB hub is slow and the gauge sync merges the deltas slowly. Which setting turns the delta download off?",
         "Set the configuration parameter Sync::Deltas to false to disable delta downloads of the gauge readings."),
        ("USB ハブが遅く、潮位同期の差分の統合に時間がかかります。差分の取得を止める設定は何ですか？",
         "差分の取得を無効にするには、設定パラメータ Sync::Deltas を false にします。"),
        ("我的 USB 集线器很慢，潮位同步合并差量很费时。想停用差量下载，该改哪个配置参数？",
         "可以把配置参数 Sync::Deltas 设为 false 来停用差量下载。"),
    ],
)
def test_things_named_only_in_the_scene_before_the_asking_sentence_do_not_refuse_the_answer(
    embedder, question: str, passage: str,
) -> None:
    """The rarest thing the question names (USB) is only the asker's situation; the asking sentence names no thing."""
    grade = _graded(embedder, question, passage, {"usb": 6.0})
    assert grade.reason is None and grade.confidence > 0.0


@pytest.mark.parametrize(
    ("question", "passage", "rare"),
    [
        ("Our harbour office goes through a Lighthouse gateway. Which file sets the GAUGE_HOST variable for the whole system?",
         "The GAUGE_HOST variable for the whole system is set in /etc/gauge/environment.", {"gauge_host": 8.0, "lighthouse": 9.0}),
        ("港の事務所は Lighthouse ゲートウェイ経由です。GAUGE_HOST 変数をシステム全体に設定するにはどのファイルに書けばいいですか？",
         "システム全体の GAUGE_HOST 変数は /etc/gauge/environment に書きます。", {"gauge_host": 8.0, "lighthouse": 9.0}),
        ("港口办公室都经过 Lighthouse 网关。整个系统用的 GAUGE_HOST 变量该放在哪个文件里？",
         "整个系统用的 GAUGE_HOST 变量放在 /etc/gauge/environment 中。", {"gauge_host": 8.0, "lighthouse": 9.0}),
    ],
)
def test_a_passage_naming_the_asking_sentences_subject_is_about_the_question(
    embedder, question: str, passage: str, rare: dict[str, float],
) -> None:
    """Lighthouse is rarer in the collection, but the question asks about GAUGE_HOST: the passage that names it answers."""
    grade = _graded(embedder, question, passage, rare)
    assert grade.reason is None and grade.confidence > 0.0


@pytest.mark.parametrize(
    ("question", "passage"),
    [
        ("Our harbour office goes through a Lighthouse gateway. Which GAUGE_HOST syntax does gaugectl accept?",
         "The default settings of pingtool are read from /etc/pingtool/defaults.conf."),
        ("港の事務所は Lighthouse ゲートウェイ経由です。gaugectl は GAUGE_HOST をどの書式で受け付けますか？",
         "pingtool の既定の設定は /etc/pingtool/defaults.conf から読み込まれます。"),
        ("港口办公室都经过 Lighthouse 网关。gaugectl 接受什么格式的 GAUGE_HOST？", "pingtool 的默认设置从 /etc/pingtool/defaults.conf 读取。"),
    ],
)
def test_a_passage_naming_neither_the_scene_nor_the_asking_sentences_subject_is_refused(embedder, question: str, passage: str) -> None:
    grade = _graded(embedder, question, passage, {"gauge_host": 8.0, "lighthouse": 9.0})
    assert grade.reason == "key_term_not_in_evidence" and grade.confidence == 0.0


@pytest.mark.parametrize(
    ("question", "passage"),
    [
        ("Which tool reports each Gallicism in a text?", "The checkgallicisms tool reports gallicisms in translated texts."),
        ("テキストの gallicism を調べるツールは？", "checkgallicisms は翻訳テキストの gallicisms を報告します。"),
        ("检查文本里 gallicism 的工具是什么？", "checkgallicisms 会报告翻译文本中的 gallicisms。"),
    ],
)
def test_a_key_term_written_with_an_inflection_is_still_named(embedder, question: str, passage: str) -> None:
    hits = [_hit(passage, 1, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | {"gallicism": 6.0}
    scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), embedder.embed([question])[0], embedder, multilingual, weights)
    keys = key_terms(question, tokens)
    grade = grade_answer(read_question(question, tokens), hits, scored, keys, [], multilingual, weights, None, 0.0, retrieved=hits)
    assert "gallicism" in keys and "gallicism" not in multilingual(passage)
    assert grade.reason is None


@pytest.mark.parametrize(
    ("question", "passage_about", "passage_beside"),
    [
        ("Which tool finds each Gallicism in my translated texts?", "The checkgallicisms tool reports gallicisms in translated texts.",
         "The Gallic dictionary reads \"~/.gallicrc\" when it starts."),
        ("翻訳テキストの gallicism を調べるツールは？", "checkgallicisms は翻訳テキストの gallicisms を報告します。",
         "Gallic 辞書は起動時に \"~/.gallicrc\" を読みます。"),
        ("检查翻译文本里 gallicism 的工具是什么？", "checkgallicisms 会报告翻译文本中的 gallicisms。", "Gallic 词典启动时读取 \"~/.gallicrc\"。"),
    ],
)
def test_a_unit_about_the_questions_subject_is_quoted_when_it_comes_close_to_the_best(
    embedder, question: str, passage_about: str, passage_beside: str,
) -> None:
    """The closest sentence is about the common thing beside the subject (gallic); the one naming the subject
    (gallicism) scores a little lower. Quoting the first would make the grade refuse an answerable question."""
    from bunko.rerank.evidence import best_unit

    hits = [_hit(passage_beside, 1, 0.4), _hit(passage_about, 2, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | {"gallic": 2.5, "gallicism": 6.0}
    scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), embedder.embed([question])[0], embedder, multilingual, weights)
    about = [s for s in scored if s.names_subject]
    assert about and len(about) < len(scored)
    assert best_unit(scored, query_language(question)).names_subject
    grade = grade_answer(read_question(question, tokens), hits, scored, key_terms(question, tokens), [], multilingual, weights, None, 0.0, retrieved=hits)
    assert grade.reason is None and "checkgallicisms" in grade.quoted


def test_a_unit_about_the_subject_far_below_the_best_is_not_quoted() -> None:
    from bunko.rerank.evidence import ScoredUnit, best_unit
    from bunko.text.units import Unit

    beside = ScoredUnit(Unit("Gallic reads ~/.gallicrc.", 0, 0), 0.6, 0.5, 1.00, True, "en", names_subject=False)
    far = ScoredUnit(Unit("checkgallicisms reports gallicisms.", 1, 0), 0.3, 0.1, 0.50, True, "en", names_subject=True)
    assert best_unit([beside, far], query_language("Which tool finds a Gallicism?")) is beside


@pytest.mark.parametrize(
    ("question", "without", "with_it"),
    [
        ("港湾カタログの初版はどこで公開されましたか？",
         "港の新しい時刻表が出た後、数ヶ月は改訂された時刻表を使うべきです。",
         "港湾カタログの初版は港湾協会の文書として公開されました。"),
        ("メンテナンスモードに入るコマンドは？",
         "窯を再起動するには kilnctl restart を実行します。",
         "メンテナンスモードに入るには kilnctl service を実行します。"),
    ],
)
def test_a_japanese_questions_rare_katakana_subject_must_be_in_the_quoted_chunk(
    embedder, question: str, without: str, with_it: str,
) -> None:
    """A Japanese question naming no rare Latin key term is about its rare katakana word (its loanword name): among
    passages that write it, one that does not is not about the question; a word no passage writes judges nothing
    (it may be the question's paraphrase)."""
    tokens = multilingual(question)
    rare = RARE_IDF + 1.0
    weights = {t: 1.0 for t in tokens} | {"カタ": rare, "メン": rare}
    vector = embedder.embed([question])[0]

    def flags(*passages: str) -> list[bool]:
        hits = [_hit(p, i, 0.3) for i, p in enumerate(passages)]
        return [s.names_subject for s in score_units(read_question(question, tokens), hits, hit_units(hits, 10), vector, embedder, multilingual, weights)]

    assert flags(without, with_it) == [False, True]
    assert flags(without) == [True]
    hits = [_hit(without, 0, 0.3), _hit(with_it, 1, 0.3)]
    scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), vector, embedder, multilingual, weights)
    grade = grade_answer(read_question(question, tokens), hits, scored, key_terms(question, tokens), [], multilingual, weights, None, 0.0, retrieved=hits)
    assert grade.reason is None and grade.quoted == with_it


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("港湾カタログ第2版はいつ出ましたか？", "カタログ"),
        ("メモリーの使用量を調べるには？", "メモリー"),
        ("How do I enter maintenance mode?", None),
        ("怎么进入维护模式？", None),
        ("ディスクの空きを調べるには？", None),  # its bigrams are all common here: not a subject
    ],
)
def test_the_katakana_subject_is_the_rarest_katakana_word_and_only_when_rare(question: str, subject: str | None) -> None:
    rare = {"カタ": RARE_IDF + 1.0, "メモ": RARE_IDF + 0.5}
    weights = {t: 1.0 for t in multilingual(question)} | rare
    assert katakana_subject(question, weights) == subject


def test_a_katakana_word_is_written_with_or_without_its_final_long_vowel_mark() -> None:
    assert writes_word("メモリの使用量は free で調べます。", "メモリー")
    assert writes_word("ｻｰﾊﾞｰの設定", "サーバー")
    assert not writes_word("ディスクの空き", "メモリー")


@pytest.mark.parametrize(
    ("question", "unlisted"),
    [
        ("How do I add gaugetest checks to my package?", ["gaugetest"]),
        ("How do I declare a kilnhelper-compat build dependency?", ["kilnhelper-compat"]),
        ("How do I refurbish an old tarball?", []),
        ("Which port does tidal-node listen on?", []),
        ("gaugetest のテストを追加するには？", []),
        ("怎样添加 gaugetest 测试？", []),
    ],
)
def test_lower_case_names_of_english_questions_are_the_words_no_word_list_holds(question: str, unlisted: list[str]) -> None:
    """Japanese and Chinese questions have none: their Latin words are key terms already."""
    assert unlisted_words(question, multilingual(question)) == unlisted


@pytest.mark.parametrize(
    ("text", "word", "writes"),
    [
        ("環境変数に email アドレスと名前を設定します。", "メールアドレス", True),  # the compound's head, アドレス
        ("Debian リファレンスは…", "リファレンス", True),
        ("テスト版 testing アーカイブ", "リファレンス", False),  # "ァレンス" starts small: no head to find
        ("ファレンス", "リファレンス", False),  # two letters or more must stand before a head
        ("メモリを増やす", "メモリー", True),
    ],
)
def test_a_katakana_compound_is_written_by_its_head_word(text: str, word: str, writes: bool) -> None:
    assert writes_word(text, word) is writes


def test_only_pairs_across_a_word_boundary_that_no_passage_holds_leave_the_graded_words() -> None:
    """A pair holding a function character (听说, 能在, いも) that the collection never writes straddles a word
    boundary; a pair of content characters it lacks (退職金's 職金) is a word it does not hold, and a Latin word it
    lacks a name it does not know: both stay, as reasons to doubt the evidence."""
    question = "pingtool fping 听说能在职金参数 いも オプ"
    tokens = ["pingtool", "fping", "听说", "能在", "职金", "参数", "いも", "オプ"]
    weights = {"pingtool": 3.0, "fping": 9.0, "听说": 9.0, "能在": 9.0, "职金": 9.0, "参数": 2.0, "いも": 9.0, "オプ": 2.0}
    assert junctions(question, tokens, weights, 9.0) == {"听说", "能在", "いも"}
    assert junctions(question, tokens, None, 9.0) == set() == junctions(question, tokens, weights, None)


def test_a_japanese_question_naming_a_word_the_collection_never_writes_keeps_its_junctions() -> None:
    """駐車場 (parking) is nowhere in the documents: the question is about something they lack, and the pairs around
    the word (の駐, 場を) still count against the passages that hold the rest (東京オフィス, ルール)."""
    question = "東京オフィスの駐車場を利用するためのルールを教えてください。"
    tokens = multilingual(question)
    seen = {"東京", "京オ", "オフ", "フィ", "ィス", "利用", "用す", "する", "ルー", "ール", "ださ", "さい"}
    weights = {t: (2.0 if t in seen else 9.0) for t in tokens}
    assert junctions(question, tokens, weights, 9.0) == set()
    weights |= {"駐車": 2.0}
    assert {"の駐", "場を"} <= junctions(question, tokens, weights, 9.0)


@pytest.mark.parametrize(
    ("question", "passage"),
    [
        ("我们公司的同事都说，如果只想发送五个数据包后就停止，那么我到底应该加上哪一个参数呢？", "发送五个数据包后停止，请加上参数 -c 5。"),
        ("使っているのですが、五個のパケットを送信したら停止させたいときは、いったいどの引数を付ければいいのでしょうか？",
         "五個のパケットを送信したら停止させるには、引数 -c 5 を付けます。"),
    ],
)
def test_pairs_across_word_boundaries_do_not_dilute_the_grade(embedder, question: str, passage: str) -> None:
    hits = [_hit(passage, 1, 0.5)]
    tokens = multilingual(question)
    held = set(multilingual(passage))
    weights = {t: (2.0 if t in held else 9.0) for t in tokens}
    unseen = junctions(question, tokens, weights, 9.0)
    assert unseen and all(t not in held for t in unseen)
    scored = score_units(read_question(question, tokens), hits, hit_units(hits, 10), embedder.embed([question])[0], embedder, multilingual, weights)
    keys = key_terms(question, tokens)
    diluted = grade_answer(read_question(question, tokens), hits, scored, keys, [], multilingual, weights, None, RETRIEVAL_THRESHOLD, retrieved=hits)
    graded = grade_answer(read_question(question, tokens), hits, scored, keys, [], multilingual, weights, None, RETRIEVAL_THRESHOLD, retrieved=hits, unseen=unseen)
    assert graded.confidence > diluted.confidence and graded.sufficient
