"""The grade judges the unit that would be quoted, with a fitted, calibrated confidence."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bunko.generate.confidence import (
    FEATURES,
    RETRIEVAL_CALIBRATION,
    REVIEW_BELOW,
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
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual
from bunko.text.languages import query_language
from bunko.trace import Grade


@pytest.mark.parametrize(
    ("question", "keys"),
    [
        ("How do I configure fcitx5 for Japanese input?", ["fcitx5"]),
        ("fcitx5 で日本語入力を設定するには？", ["fcitx5"]),
        ("怎么配置 fcitx5 输入中文？", ["fcitx5"]),
        ("How do I make GDM start GNOME on Xorg?", ["gdm", "gnome", "xorg"]),
        ("What is the default value of APT::Periodic::AutocleanInterval?", ["autocleaninterval"]),
        ("How many days of annual leave do employees get?", []),
        ("Which setting in journald.conf makes the journal persistent?", ["journald.conf"]),
        ("What is the default vm.swappiness value?", ["vm.swappiness"]),
        ("journald.conf のどの設定でジャーナルを永続化しますか？", ["journald.conf"]),
        ("vm.swappiness 的默认值是多少？", ["vm.swappiness"]),
        ("How do I open a .odt file from the shell?", ["odt"]),
        (".odt ファイルをシェルから開くには？", ["odt"]),
        ("怎么在终端里打开 .odt 文件？", ["odt"]),
    ],
)
def test_key_terms_are_the_named_things_of_the_question(question: str, keys: list[str]) -> None:
    assert set(keys) <= set(key_terms(question, multilingual(question)))
    assert not {"how", "many", "days", "employees", "configure"} & set(key_terms(question, multilingual(question)))


@pytest.mark.parametrize(
    ("question", "keys", "not_keys"),
    [
        ("Which architectures replace a Solaris/SunOS server?", ["solaris", "sunos"], ["solaris/sunos"]),
        ("Solaris/SunOS のサーバを置き換えるアーキテクチャは？", ["solaris", "sunos"], ["solaris/sunos"]),
        ("替换 Solaris/SunOS 服务器用哪些架构？", ["solaris", "sunos"], ["solaris/sunos"]),
        ("How do I set up LDAP-based accounts?", ["ldap"], ["ldap-based", "based"]),
        ("LDAP-based のアカウントを設定するには？", ["ldap"], ["ldap-based"]),
        ("怎么设置 Debian-based 发行版的账户？", ["debian"], ["debian-based"]),
        ("Which Debian architecture runs HP-UX software?", ["hp-ux"], ["hp", "ux"]),
        ("/etc/ssh/sshd_config のどの設定ですか？", ["etc/ssh/sshd_config"], ["etc", "ssh"]),
        ("How do I install apt-cacher-ng on x86-64?", ["x86-64"], ["apt", "cacher"]),
    ],
)
def test_a_written_word_names_its_alternatives_and_names_not_its_common_words(
    question: str, keys: list[str], not_keys: list[str]
) -> None:
    """"Solaris/SunOS" is found where a page writes "Solaris, SunOS", "LDAP-based" where it writes LDAP; a path or a
    hyphenated name stays whole, so a name the collection lacks still refuses the question."""
    found = key_terms(question, multilingual(question))
    assert set(keys) <= set(found)
    assert not set(not_keys) & set(found)


def test_a_dotted_names_tail_is_not_an_extension_of_its_own() -> None:
    question = "Which setting in journald.conf makes the journal persistent?"
    assert "conf" not in key_terms(question, multilingual(question))


def _hit(text: str, ordinal: int, distance: float | None) -> Hit:
    chunk = Chunk(f"doc{ordinal}.md#1", f"doc{ordinal}", f"doc{ordinal}.md", 1, text, text)
    return Hit(chunk=chunk, score=1.0, distance=distance)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which file holds the hostname?", "The hostname is stored in \"/etc/hostname\"."),
        ("ホスト名はどのファイルに保存されますか？", "ホスト名は \"/etc/hostname\" に保存されます。"),
        ("主机名保存在哪个文件里？", "主机名保存在 “/etc/hostname” 文件中。"),
    ],
)
def test_a_keyword_only_hit_is_judged_on_its_real_similarity(embedder, question: str, answer: str) -> None:
    """A hit that only keyword search found has no dense distance; the quoted unit's cosine is computed anyway,
    and a unit holding the asked kind (a path) is more likely right than one on topic without it."""
    tokens = multilingual(question)
    vector = embedder.embed([question])[0]
    model = ConfidenceModel.load()

    def graded(text: str):
        hits = [_hit(text, 1, None)]
        scored = score_units(question, hits, hit_units(hits, 10), vector, tokens, embedder, multilingual)
        return grade_answer(question, tokens, hits, scored, [], [], multilingual, None, model, 0.1)

    typed, untyped = graded(answer), graded(answer.replace("/etc/hostname", "a file").replace("“", "").replace("”", ""))
    assert typed.features["similarity"] > 0.3
    assert typed.features["typed"] == 1.0 and untyped.features["typed"] == -1.0
    assert typed.confidence > untyped.confidence and typed.sufficient


def test_a_missing_key_term_means_confidence_zero(embedder) -> None:
    question = "fcitx5 の設定ファイルはどこにありますか？"
    hits = [_hit("入力メソッドの設定ファイルは \"~/.config/ibus\" にあります。", 1, 0.2)]
    tokens = multilingual(question)
    scored = score_units(question, hits, hit_units(hits, 10), embedder.embed([question])[0], tokens, embedder, multilingual)
    grade = grade_answer(question, tokens, hits, scored, ["fcitx5"], ["fcitx5"], multilingual, None, ConfidenceModel.load(), 0.5)
    assert grade.confidence == 0.0 and not grade.sufficient and grade.missing_key_terms == ["fcitx5"]


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
    strong = AnswerFeatures(similarity=0.7, coverage=1.0, chunk_coverage=1.0, typed=1.0, key_terms=1.0, margin=0.3, retrieval=0.9)
    weak = AnswerFeatures(similarity=0.2, coverage=0.2, chunk_coverage=0.3, typed=-1.0, key_terms=0.0, margin=0.0, retrieval=0.1)
    assert model.probability(strong) > 0.5 > model.probability(weak)


@pytest.mark.parametrize(
    ("question", "term", "passage"),
    [
        ("Which mount option enables zstd compression on Btrfs?", "btrfs",
         "The default settings of pingtool are read from \"/etc/pingtool/defaults.conf\"."),
        ("/run の tmpfs のサイズ上限は既定で何％ですか？", "tmpfs", "pingtool の既定の設定は \"/etc/pingtool/defaults.conf\" から読み込まれます。"),
        ("/run 的 tmpfs 默认最多占用多少内存？", "tmpfs", "pingtool 的默认设置从 “/etc/pingtool/defaults.conf” 读取。"),
    ],
)
def test_a_rare_key_term_missing_from_the_quoted_chunk_refuses_the_answer(embedder, question: str, term: str, passage: str) -> None:
    """The collection names the term somewhere, but the passage that would be quoted does not: it is not about it."""
    hits = [_hit(passage, 1, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | {term: 6.0}
    scored = score_units(question, hits, hit_units(hits, 10), embedder.embed([question])[0], tokens, embedder, multilingual, weights)
    keys = key_terms(question, tokens)
    grade = grade_answer(question, tokens, hits, scored, keys, [], multilingual, weights, None, 0.0, retrieved=hits)
    assert term in keys
    assert grade.reason == "key_term_not_in_evidence" and grade.confidence == 0.0


def test_a_key_term_on_every_page_is_not_required_in_the_quoted_chunk(embedder) -> None:
    question = "Which file holds the Debian hostname?"
    hits = [_hit("The hostname is stored in \"/etc/hostname\".", 1, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | {"debian": 0.2}
    scored = score_units(question, hits, hit_units(hits, 10), embedder.embed([question])[0], tokens, embedder, multilingual, weights)
    grade = grade_answer(question, tokens, hits, scored, ["debian"], [], multilingual, weights, None, 0.0, retrieved=hits)
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
    calibration = ConfidenceModel.load(packaged_name=RETRIEVAL_CALIBRATION)
    default = make_kb(name="calibrated").answerer
    for language in ("en", "ja", "zh"):
        assert default.min_confidence(language) == calibration.threshold_for(language)
        assert default.review_below(language) == calibration.review_below_for(language)
    chosen = Config()
    chosen.answer.min_confidence, chosen.answer.review_below = 0.2, 0.9
    assert make_kb(config=chosen, name="chosen").answerer.min_confidence("ja") == 0.2  # a chosen threshold is every language's
    assert make_kb(config=chosen, name="chosen-review").answerer.review_below("zh") == 0.9


@pytest.mark.parametrize("language", ["en", "ja", "zh"])
def test_the_packaged_calibration_is_increasing_and_maps_the_raw_thresholds_in_each_language(language: str) -> None:
    """Increasing, and each language's thresholds are the raw ones mapped, so that every decision of the raw grade is
    kept while the confidence becomes a probability (the map shifts by the question's language)."""
    model = ConfidenceModel.load(packaged_name=RETRIEVAL_CALIBRATION)
    assert model.features[0] == "retrieval" and model.weights[0] > 0
    assert set(model.features) <= {"retrieval", "japanese", "chinese"}
    marks = {"japanese": float(language == "ja"), "chinese": float(language == "zh")}
    at = lambda raw: model.probability(AnswerFeatures(retrieval=raw, **marks))  # noqa: E731
    mapped = [at(r) for r in np.linspace(0.0, 1.0, 101)]
    assert all(b > a for a, b in itertools.pairwise(mapped))
    assert model.threshold_for(language) == pytest.approx(at(RETRIEVAL_THRESHOLD), abs=1e-4)
    assert model.review_below_for(language) == pytest.approx(at(REVIEW_BELOW), abs=1e-4)


CALIBRATION_QUESTIONS = [
    "How many days of annual leave do employees get?", "What is the hotel limit per night in Tokyo?",
    "What is the parking fee at the Osaka office?", "有給休暇は何日ですか？", "東京の宿泊費の上限はいくらですか？",
    "社員食堂のメニューは？", "年假有多少天？", "东京的住宿费上限是多少？", "公司的停车费是多少？",
]


def test_the_calibrated_grade_answers_and_abstains_exactly_where_the_raw_grade_does(make_kb, samples_dir) -> None:
    from bunko import Config

    raw_config = Config()
    raw_config.answer.confidence = "retrieval"
    raw_kb = make_kb(config=raw_config, name="raw")
    raw_kb.ingest([samples_dir])
    calibrated_kb = make_kb(name="calibrated")
    calibrated_kb.ingest([samples_dir])
    model = ConfidenceModel.load(packaged_name=RETRIEVAL_CALIBRATION)
    decisions = set()
    for question in CALIBRATION_QUESTIONS:
        raw, calibrated = raw_kb.ask(question), calibrated_kb.ask(question)
        assert (calibrated.abstained, calibrated.text) == (raw.abstained, raw.text), question
        decisions.add(raw.abstained)
        if raw.confidence > 0 and raw.trace is not None and raw.trace.grade.answer_type != "table":
            language = query_language(question)
            marks = {"japanese": float(language == "ja"), "chinese": float(language == "zh")}
            assert calibrated.confidence == pytest.approx(model.probability(AnswerFeatures(retrieval=raw.confidence, **marks)), abs=1e-3)
            assert calibrated.confidence < raw.confidence or raw.confidence < 0.2
    assert decisions == {True, False}, "the questions should include both answered and refused ones"


@pytest.mark.parametrize(
    ("question", "language"),
    [("Which file holds the hostname?", "en"), ("ホスト名はどのファイルにありますか？", "ja"), ("主机名在哪个文件里？", "zh")],
)
def test_the_question_language_unit_is_quoted_when_it_comes_close_to_the_best(question: str, language: str) -> None:
    from bunko.rerank.evidence import ScoredUnit, best_unit
    from bunko.text.units import Unit

    other = "zh" if language != "zh" else "en"
    foreign = ScoredUnit(Unit("x", 0, 0), 0.6, 0.5, 1.00, True, other)
    close = ScoredUnit(Unit("y", 1, 0), 0.6, 0.5, 0.90, True, language)
    far = ScoredUnit(Unit("z", 1, 0), 0.3, 0.1, 0.50, True, language)
    assert best_unit([foreign, close], question) is close
    assert best_unit([foreign, far], question) is foreign


@pytest.mark.parametrize(
    ("question", "without", "with_it"),
    [
        ("How many minutes does sudo remember the password by default?",
         "Edit the sudo configuration \"/etc/sudoers\" with visudo; sudo 1.9 reads it at each call.",
         "By default sudo remembers the password for 15 minutes; edit \"/etc/sudoers\" to change it."),
        ("sudo はデフォルトで何分間パスワードを覚えていますか？",
         "sudo の設定 \"/etc/sudoers\" は visudo で編集します。sudo 1.9 は呼び出しのたびに読みます。",
         "sudo はデフォルトでパスワードを 15 分間覚えています。変更は \"/etc/sudoers\" で行います。"),
        ("sudo 默认几分钟内不用重新输入密码？",
         "sudo 的配置 “/etc/sudoers” 用 visudo 编辑，sudo 1.9 每次调用都会读取。",
         "sudo 默认 15 分钟内不用重新输入密码，可在 “/etc/sudoers” 中修改。"),
        ("Which keyboard shortcut locks the screen in GNOME?",
         "GNOME locks the screen after the idle delay set in \"Privacy\"; GNOME 45 reads it from dconf.",
         "In GNOME, press Super+L to lock the screen at once."),
        ("GNOME で画面をロックするショートカットは？",
         "GNOME はアイドル時間が過ぎると画面をロックします。GNOME 45 は dconf から設定を読みます。",
         "GNOME では Super+L で画面をすぐロックできます。"),
        ("GNOME 里锁屏的快捷键是什么？",
         "GNOME 在空闲一段时间后锁屏，GNOME 45 从 dconf 读取这个设置。",
         "在 GNOME 中按 Super+L 立即锁屏。"),
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
        scored = score_units(question, hits, hit_units(hits, 10), vector, tokens, embedder, multilingual)
        return grade_answer(question, tokens, hits, scored, [], [], multilingual, None, None, 0.3, retrieved=hits)

    refused, answered = graded(without), graded(with_it)
    assert refused.reason == "quantity_not_stated" and refused.confidence == 0.0 and not refused.sufficient
    assert answered.reason is None and answered.sufficient


@pytest.mark.parametrize(
    ("question", "pattern"),
    [
        ("What is the reverse zone for the 192.168.x.x LAN in the Falcot bind setup?", "192.168.x.x"),
        ("Falcot の bind で 192.168.x.x の逆引きゾーンの名前は？", "192.168.x.x"),
        ("Falcot 的 bind 里 10.0.* 网段的反向区域叫什么？", "10.0.*"),
    ],
)
def test_a_wildcard_pattern_is_not_a_key_term(question: str, pattern: str) -> None:
    """A passage writes one address of the pattern (168.192.in-addr.arpa), never "192.168.x.x": requiring the pattern
    refused an answerable question as ``key_term_absent``."""
    tokens = multilingual(question)
    assert "falcot" in key_terms(question, tokens)
    assert not any(pattern in term for term in key_terms(question, tokens))


@pytest.mark.parametrize(
    ("question", "keys", "examples"),
    [
        ("How can I give GNU gettext a fallback list of languages, e.g. Portuguese first, then Spanish?", ["gnu"], ["portuguese", "spanish"]),
        ("Which tools, such as Rsync or Unison, can sync two folders on Debian?", ["debian"], ["rsync", "unison"]),
        ("ロケール (例えば ja_JP.UTF-8 など) を GNOME で設定するには？", ["gnome"], ["ja_jp.utf-8", "ja_jp"]),
        ("比如 Mozc 这样的输入法，怎么在 fcitx5 里配置？", ["fcitx5"], ["mozc"]),
        ("像 Mozc 这样的输入法，怎么在 fcitx5 里配置？", ["fcitx5"], ["mozc"]),
        ("Mozc のような入力メソッドを fcitx5 で設定するには？", ["fcitx5"], ["mozc"]),
        ("Mozc などの入力メソッドを fcitx5 で設定するには？", ["fcitx5"], ["mozc"]),
        ("想让 dch 等工具自动使用我的名字和邮箱，要设置哪个环境变量？", [], ["dch"]),
        ("dch などのツールに自分の名前を使わせるには、どの環境変数を設定しますか？", [], ["dch"]),
        ("像 /tmp 这样所有人都能写的目录，靠哪个权限位只让用户删除自己的文件？", [], ["tmp"]),
    ],
)
def test_names_in_an_example_the_question_gives_need_not_be_in_the_evidence(question: str, keys: list[str], examples: list[str]) -> None:
    tokens = multilingual(question)
    required = rare_key_terms(question, tokens, None)
    assert set(keys) <= set(required)
    assert not set(examples) & set(required)
    assert set(examples) & set(key_terms(question, tokens)), "still named things: one the collection lacks refuses the question"


@pytest.mark.parametrize(
    ("question", "passage"),
    [
        ("Which LVM command also grows the ext4 filesystem?", "Running tune2fs -O extents converts an ext3 filesystem to ext4."),
        ("LVM の論理ボリュームと ext4 ファイルシステムを一緒に広げるコマンドは？", "tune2fs -O extents を実行すると ext3 は ext4 に変換されます。"),
        ("virtualbox 属于 main 还是 contrib 区域？", "在 main 中的软件包没有依赖于 contrib 中的软件包。"),
    ],
)
def test_the_rarest_key_term_must_be_in_the_quoted_chunk(embedder, question: str, passage: str) -> None:
    """A passage naming only the common things around the question (ext4, the archive areas) is not about its subject."""
    hits = [_hit(passage, 1, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | {"ext4": 3.0, "main": 2.5, "contrib": 3.0, "lvm": 5.0, "virtualbox": 6.0}
    scored = score_units(question, hits, hit_units(hits, 10), embedder.embed([question])[0], tokens, embedder, multilingual, weights)
    keys = key_terms(question, tokens)
    grade = grade_answer(question, tokens, hits, scored, keys, [], multilingual, weights, None, 0.0, retrieved=hits)
    assert set(rare_key_terms(question, tokens, weights)) & set(multilingual(passage))
    assert grade.reason == "key_term_not_in_evidence" and grade.confidence == 0.0


def _graded(embedder, question: str, passage: str, rare: dict[str, float]) -> Grade:
    hits = [_hit(passage, 1, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | rare
    scored = score_units(question, hits, hit_units(hits, 10), embedder.embed([question])[0], tokens, embedder, multilingual, weights)
    return grade_answer(question, tokens, hits, scored, key_terms(question, tokens), [], multilingual, weights, None, 0.0, retrieved=hits)


@pytest.mark.parametrize(
    ("question", "passage"),
    [
        ("My CPU is slow and apt update merges the PDiffs slowly. Which setting turns the incremental download off?",
         "Set the configuration parameter Acquire::PDiffs to false to disable incremental downloads of the package lists."),
        ("CPU が遅く、apt update の差分マージに時間がかかります。増分ダウンロードを止める設定は何ですか？",
         "増分ダウンロードを無効にするには、設定パラメータ Acquire::PDiffs を false にします。"),
        ("我的 CPU 很弱，apt update 合并增量 diff 很慢。要关掉增量下载，应该设置哪个配置参数？",
         "在这种情况下，可以使用配置参数 Acquire::PDiffs 并设置为 false 来关掉增量下载。"),
    ],
)
def test_things_named_only_in_the_scene_before_the_asking_sentence_do_not_refuse_the_answer(
    embedder, question: str, passage: str,
) -> None:
    """The rarest thing the question names (CPU) is only the asker's situation; the asking sentence names no thing."""
    grade = _graded(embedder, question, passage, {"cpu": 6.0})
    assert grade.reason is None and grade.confidence > 0.0


@pytest.mark.parametrize(
    ("question", "passage", "rare"),
    [
        ("Our office goes through a Squid proxy. Which file sets the HTTP_PROXY variable for the whole system?",
         "The HTTP_PROXY variable for the whole system is set in /etc/environment.", {"http_proxy": 8.0, "squid": 9.0}),
        ("社内は Squid プロキシ経由です。HTTP_PROXY 変数をシステム全体に設定するにはどのファイルに書けばいいですか？",
         "システム全体の HTTP_PROXY 変数は /etc/environment に書きます。", {"http_proxy": 8.0, "squid": 9.0}),
        ("公司上网必须经过 Squid 代理。系统级的 HTTP_PROXY 变量最好写在哪个文件里？",
         "系统级的 HTTP_PROXY 变量应写在 /etc/environment 中。", {"http_proxy": 8.0, "squid": 9.0}),
    ],
)
def test_a_passage_naming_the_asking_sentences_subject_is_about_the_question(
    embedder, question: str, passage: str, rare: dict[str, float],
) -> None:
    """Squid is rarer in the collection, but the question asks about HTTP_PROXY: the passage that names it answers."""
    grade = _graded(embedder, question, passage, rare)
    assert grade.reason is None and grade.confidence > 0.0


@pytest.mark.parametrize(
    ("question", "passage"),
    [
        ("Our office goes through a Squid proxy. Which HTTP_PROXY syntax does apt accept?",
         "The default settings of pingtool are read from /etc/pingtool/defaults.conf."),
        ("社内は Squid プロキシ経由です。apt は HTTP_PROXY をどの書式で受け付けますか？",
         "pingtool の既定の設定は /etc/pingtool/defaults.conf から読み込まれます。"),
        ("公司上网必须经过 Squid 代理。apt 接受什么格式的 HTTP_PROXY？", "pingtool 的默认设置从 /etc/pingtool/defaults.conf 读取。"),
    ],
)
def test_a_passage_naming_neither_the_scene_nor_the_asking_sentences_subject_is_refused(embedder, question: str, passage: str) -> None:
    grade = _graded(embedder, question, passage, {"http_proxy": 8.0, "squid": 9.0})
    assert grade.reason == "key_term_not_in_evidence" and grade.confidence == 0.0


@pytest.mark.parametrize(
    ("question", "passage"),
    [
        ("Which tool reports each Bashism in a script?", "The checkbashisms tool reports bashisms in shell scripts."),
        ("スクリプトの bashism を調べるツールは？", "checkbashisms はシェルスクリプトの bashisms を報告します。"),
        ("检查脚本里 bashism 的工具是什么？", "checkbashisms 会报告 shell 脚本中的 bashisms。"),
    ],
)
def test_a_key_term_written_with_an_inflection_is_still_named(embedder, question: str, passage: str) -> None:
    hits = [_hit(passage, 1, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | {"bashism": 6.0}
    scored = score_units(question, hits, hit_units(hits, 10), embedder.embed([question])[0], tokens, embedder, multilingual, weights)
    keys = key_terms(question, tokens)
    grade = grade_answer(question, tokens, hits, scored, keys, [], multilingual, weights, None, 0.0, retrieved=hits)
    assert "bashism" in keys and "bashism" not in multilingual(passage)
    assert grade.reason is None


@pytest.mark.parametrize(
    ("question", "passage_about", "passage_beside"),
    [
        ("Which tool finds each Bashism in my shell scripts?", "The checkbashisms tool reports bashisms in shell scripts.",
         "The Bash shell reads \"~/.bashrc\" when it starts."),
        ("シェルスクリプトの bashism を調べるツールは？", "checkbashisms はシェルスクリプトの bashisms を報告します。",
         "Bash シェルは起動時に \"~/.bashrc\" を読みます。"),
        ("检查 shell 脚本里 bashism 的工具是什么？", "checkbashisms 会报告 shell 脚本中的 bashisms。", "Bash shell 启动时读取 \"~/.bashrc\"。"),
    ],
)
def test_a_unit_about_the_questions_subject_is_quoted_when_it_comes_close_to_the_best(
    embedder, question: str, passage_about: str, passage_beside: str,
) -> None:
    """The closest sentence is about the common thing beside the subject (bash); the one naming the subject
    (bashism) scores a little lower. Quoting the first would make the grade refuse an answerable question."""
    from bunko.rerank.evidence import best_unit

    hits = [_hit(passage_beside, 1, 0.4), _hit(passage_about, 2, 0.3)]
    tokens = multilingual(question)
    weights = {t: 1.0 for t in tokens} | {"bash": 2.5, "bashism": 6.0}
    scored = score_units(question, hits, hit_units(hits, 10), embedder.embed([question])[0], tokens, embedder, multilingual, weights)
    about = [s for s in scored if s.names_subject]
    assert about and len(about) < len(scored)
    assert best_unit(scored, question).names_subject
    grade = grade_answer(question, tokens, hits, scored, key_terms(question, tokens), [], multilingual, weights, None, 0.0, retrieved=hits)
    assert grade.reason is None and "checkbashisms" in grade.quoted


def test_a_unit_about_the_subject_far_below_the_best_is_not_quoted() -> None:
    from bunko.rerank.evidence import ScoredUnit, best_unit
    from bunko.text.units import Unit

    beside = ScoredUnit(Unit("Bash reads ~/.bashrc.", 0, 0), 0.6, 0.5, 1.00, True, "en", names_subject=False)
    far = ScoredUnit(Unit("checkbashisms reports bashisms.", 1, 0), 0.3, 0.1, 0.50, True, "en", names_subject=True)
    assert best_unit([beside, far], "Which tool finds a Bashism?") is beside


@pytest.mark.parametrize(
    ("question", "without", "with_it"),
    [
        ("Debian リファレンスの初版はどこで公開されましたか？",
         "Debian の安定版リリースの後、数ヶ月はセキュリティー更新された安定版を使うべきです。",
         "Debian リファレンスの初版は DDP の文書として公開されました。"),
        ("シングルユーザーモードに入るコマンドは？",
         "システムを再起動するには reboot を実行します。",
         "シングルユーザーモードに入るには systemctl rescue を実行します。"),
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
    weights = {t: 1.0 for t in tokens} | {"リフ": rare, "シン": rare}
    vector = embedder.embed([question])[0]

    def flags(*passages: str) -> list[bool]:
        hits = [_hit(p, i, 0.3) for i, p in enumerate(passages)]
        return [s.names_subject for s in score_units(question, hits, hit_units(hits, 10), vector, tokens, embedder, multilingual, weights)]

    assert flags(without, with_it) == [False, True]
    assert flags(without) == [True]
    hits = [_hit(without, 0, 0.3), _hit(with_it, 1, 0.3)]
    scored = score_units(question, hits, hit_units(hits, 10), vector, tokens, embedder, multilingual, weights)
    grade = grade_answer(question, tokens, hits, scored, key_terms(question, tokens), [], multilingual, weights, None, 0.0, retrieved=hits)
    assert grade.reason is None and grade.quoted == with_it


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Debian リファレンス第2版はいつ出ましたか？", "リファレンス"),
        ("メモリーの使用量を調べるには？", "メモリー"),
        ("How do I enter single-user mode?", None),
        ("怎么进入单用户模式？", None),
        ("ディスクの空きを調べるには？", None),  # its bigrams are all common here: not a subject
    ],
)
def test_the_katakana_subject_is_the_rarest_katakana_word_and_only_when_rare(question: str, subject: str | None) -> None:
    rare = {"リフ": RARE_IDF + 1.0, "メモ": RARE_IDF + 0.5}
    weights = {t: 1.0 for t in multilingual(question)} | rare
    assert katakana_subject(question, weights) == subject


def test_a_katakana_word_is_written_with_or_without_its_final_long_vowel_mark() -> None:
    assert writes_word("メモリの使用量は free で調べます。", "メモリー")
    assert writes_word("ｻｰﾊﾞｰの設定", "サーバー")
    assert not writes_word("ディスクの空き", "メモリー")


@pytest.mark.parametrize(
    ("question", "unlisted"),
    [
        ("How do I add autopkgtest tests to my package?", ["autopkgtest"]),
        ("How do I declare a debhelper-compat build dependency?", ["debhelper-compat"]),
        ("How do I refurbish an old tarball?", []),
        ("Which port does munin-node listen on?", []),
        ("autopkgtest のテストを追加するには？", []),
        ("怎样添加 autopkgtest 测试？", []),
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
    scored = score_units(question, hits, hit_units(hits, 10), embedder.embed([question])[0], tokens, embedder, multilingual, weights)
    keys = key_terms(question, tokens)
    diluted = grade_answer(question, tokens, hits, scored, keys, [], multilingual, weights, None, RETRIEVAL_THRESHOLD, retrieved=hits)
    graded = grade_answer(question, tokens, hits, scored, keys, [], multilingual, weights, None, RETRIEVAL_THRESHOLD, retrieved=hits,
                          unseen=unseen)
    assert graded.confidence > diluted.confidence and graded.sufficient
