"""A question that names a value the table is keyed by ("level 3", “p”) is answered from the row with that cell (ja/zh/en)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.embed.base import embed_queries
from bunko.rerank.evidence import hit_units, score_units
from bunko.retrieve.question import read_question
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual
from bunko.text.questions import lookup_values

LEVELS = {
    "en": ("Harbour alarms", "The harbour alarm shown on the quay panel can be configured by setting its threshold level.",
           ("alarm level value", "alarm level name", "meaning"),
           ["harbour is closed", "evacuate the quay now", "severe danger", "alarm conditions",
            "caution conditions", "calm but notable condition", "informational", "test-level signals"]),
    "ja": ("港湾アラーム", "岸壁パネルに表示される港湾アラームは閾値レベルを設定することで調整できます。",
           ("アラームレベル値", "アラームレベル名", "意味"),
           ["港は閉鎖中", "直ちに岸壁から退避", "深刻な危険", "警報状態", "注意状態", "平穏だが注目すべき状態", "情報", "テストレベルの信号"]),
    "zh": ("港口警报", "显示在码头面板上的港口警报，能够通过设置阈值等级来调整。",
           ("警报级别值", "警报级别名称", "意思"),
           ["港口已关闭", "必须立即撤离码头", "严重危险", "警报情况", "注意情况", "平静但值得注意的情况", "信息", "测试级别的信号"]),
}
NAMES = ["ALM_CLOSED", "ALM_EVACUATE", "ALM_SEVERE", "ALM_ALARM", "ALM_CAUTION", "ALM_NOTICE", "ALM_INFO", "ALM_TEST"]
QUESTIONS = {
    "en": "With 'quayctl -n3' I set the panel threshold to harbour alarm level 3. What is that level called?",
    "ja": "'quayctl -n3' でパネルの閾値を港湾アラームのレベル 3 にしました。このレベルは何という名前ですか？",
    "zh": "我用 'quayctl -n3' 把面板的阈值设成了港口警报级别 3，这个级别叫什么名字？",
}


def _levels_page(language: str) -> str:
    title, lead, header, meanings = LEVELS[language]
    rows = "\n".join(f"| {value} | {name} | {meaning} |" for value, (name, meaning) in enumerate(zip(NAMES, meanings, strict=True)))
    return f"# {title}\n\n{lead}\n\n```\n# quayctl -n3\n```\n\n| {' | '.join(header)} |\n|---|---|---|\n{rows}\n"


@pytest.fixture(scope="module")
def levels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("levels")
    for language in LEVELS:
        (folder / f"levels-{language}.md").write_text(_levels_page(language), encoding="utf-8")
    return folder


@pytest.mark.parametrize("language", ["en", "ja", "zh"])
def test_the_row_whose_cell_the_question_names_is_quoted(levels: Path, make_kb: Callable[..., Bunko], language: str) -> None:
    kb = make_kb(name="levels")
    kb.ingest([levels])
    answer = kb.ask(QUESTIONS[language])
    assert not answer.abstained, answer.trace.abstain_reason
    assert "ALM_ALARM" in answer.text, answer.text
    assert "ALM_CLOSED" not in answer.text, answer.text


TRUST = [
    ("berth status codes", "The status of each berth listed with berthctl --list is shown as a one-letter status code.", "code",
     "status description",
     ["no status assigned / not checked yet", "failed to check the berth", "partly occupied", "fully occupied", "reserved for the harbour master"],
     "In berthctl's status codes, what does “p” mean?"),
    ("berthctl の状態コード", "berthctl --list で一覧した泊地の状態は 1 文字の状態コードで示されます。", "コード", "状態の説明",
     ["状態の割り当てなし／未確認", "泊地の確認に失敗", "一部使用中", "満杯", "港長専用"],
     "berthctl の状態コードで「p」は何を意味しますか？"),
    ("berthctl 状态码", "用 berthctl --list 列出的泊位，其状态用一个字母的状态码表示。", "代码", "状态描述",
     ["没有分配状态/还没有检查", "检查泊位失败", "部分占用", "完全占用", "港务长专用"],
     "berthctl 的状态码里，“p” 代表什么意思？"),
]


@pytest.mark.parametrize(("section", "lead", "code_header", "description_header", "descriptions", "question"), TRUST)
def test_a_quoted_code_looks_up_its_row_over_units_sharing_more_words(
    embedder, section: str, lead: str, code_header: str, description_header: str, descriptions: list[str], question: str,
) -> None:
    rows = "\n".join(f"| {code} | {text} |" for code, text in zip("xcpfr", descriptions, strict=True))
    text = f"{lead}\n\n| {code_header} | {description_header} |\n|---|---|\n{rows}"
    hits = [Hit(Chunk("berths.md#0", "d0", "berths.md", 0, text, f"{section}\n{text}", section_path=[section]), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    scored = score_units(read_question(question, multilingual(question)), hits, hit_units(hits, 50), vector, embedder, multilingual)
    best = max(scored, key=lambda s: s.score)
    assert best.looked_up and descriptions[2] in best.unit.text
    assert [s.looked_up for s in scored].count(True) == 1


@pytest.mark.parametrize(
    "question",
    [
        "Why is it safe to set the share mode to 0002 on the studio server?",
        "スタジオのサーバーでは共有モードを 0002 にしても安全だとされていますが、なぜですか？",
        "为什么在工作室服务器上把共享模式设为 0002 是安全的？",
    ],
)
def test_a_question_asking_why_looks_nothing_up(embedder, question: str) -> None:
    text = "| share mode | use |\n|---|---|\n| 0022 | writable only by the owner |\n| 0002 | writable by the team |"
    hits = [Hit(Chunk("share.md#0", "d0", "share.md", 0, text, text, section_path=["share mode"]), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    scored = score_units(read_question(question, multilingual(question)), hits, hit_units(hits, 50), vector, embedder, multilingual)
    assert scored and not any(s.looked_up for s in scored)


def test_lookup_values_are_quoted_phrases_and_numbers_standing_alone() -> None:
    assert lookup_values("With 'quayctl -n3' I set harbour alarm level 3. What is it called?") == ["3"]
    assert lookup_values("berthctl の状態コードで「p」は何を意味しますか？") == ["p"]
    assert lookup_values("级别3是什么？端口 993 呢？") == ["3", "993"]
    assert lookup_values("kfs3, version 1.2.3, option -n3 and x=5") == []


SPLITS = {
    "en": ("Vessel", "Route", "Crewing", "Vessel role",
           [("ferry1", "any", "shared", "the main car ferry, crew can be shared"),
            ("ferry-tender", "any", "own", "the support tender, crew not shared"),
            ("gull", "any", "own", "the fast passenger boat, crew not shared"),
            ("gull-doc", "all", "own", "the record boat of the fleet")],
           "In the fleet crewing example, what Crewing value does the vessel ferry1 get?"),
    "ja": ("船", "航路", "Crewing", "船の役割",
           [("ferry1", "any", "shared", "主力のカーフェリー、乗組員を共有可能"),
            ("ferry-tender", "any", "own", "支援用の補助船、乗組員を共有不可"),
            ("gull", "any", "own", "高速旅客船、乗組員を共有不可"),
            ("gull-doc", "all", "own", "船団の記録用の船")],
           "船団の配乗例で、gull 船の Crewing の値は何ですか？"),
    "zh": ("船只", "航线", "配员", "船只用途",
           [("ferry1", "任何", "共享", "主力汽车渡轮，可共享船员"),
            ("ferry-tender", "任何", "自有", "支援补给船，不可共享船员"),
            ("gull", "任何", "自有", "高速客船，不可共享船员"),
            ("gull-doc", "全部", "自有", "船队的记录船")],
           "船队配员的例子中，gull 这条船的配员取值是什么？"),
}


def _rows_scored(embedder, question: str, header: tuple[str, ...], rows: list[tuple[str, ...]], section: str):
    text = f"| {' | '.join(header)} |\n|{'---|' * len(header)}\n" + "\n".join(f"| {' | '.join(row)} |" for row in rows)
    hits = [Hit(Chunk("t.md#0", "d0", "t.md", 0, text, f"{section}\n{text}", section_path=[section]), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    return score_units(read_question(question, multilingual(question)), hits, hit_units(hits, 50), vector, embedder, multilingual)


@pytest.mark.parametrize(("language", "package"), [("en", "ferry1"), ("ja", "gull"), ("zh", "gull")])
def test_the_row_named_by_the_question_is_looked_up_when_the_question_names_its_column(embedder, language: str, package: str) -> None:
    """A name is a key term: an identifier in English (ferry1; a plain lower-case "gull" is a word there), any Latin word in ja/zh."""
    *header, rows, question = SPLITS[language]
    scored = _rows_scored(embedder, question, tuple(header), rows, "crewing")
    assert [s.unit.text.split(" / ")[0].split(": ")[1] for s in scored if s.looked_up] == [package]
    assert max(scored, key=lambda s: s.score).looked_up


@pytest.mark.parametrize(
    "question",
    ["Which harbour zone is the kilnboat in?", "kilnboat はどの港区にありますか？", "kilnboat 属于哪个港区？"],
)
def test_a_row_that_only_names_the_questions_subject_is_not_looked_up(embedder, question: str) -> None:
    rows = [("kilnboat", "V:9, I:11", "126370", "x86 kiln transport vessel"), ("tugboat-x", "V:30, I:50", "100", "TUG")]
    scored = _rows_scored(embedder, question, ("vessel", "visits", "tonnage", "description"), rows, "vessels")
    assert not any(s.looked_up for s in scored)


@pytest.mark.parametrize(
    "question",
    ["Which gaugeutils command computes a CRC checksum?", "CRC チェックサムを計算する gaugeutils のコマンドは？", "gaugeutils 里计算 CRC 校验和的命令是哪个？"],
)
def test_a_name_several_rows_share_looks_no_row_up(embedder, question: str) -> None:
    rows = [("gaugeutils", "crcsum(1)", "compute and check CRC reading digest"), ("gaugeutils", "adlersum(1)", "compute and check Adler reading digest")]
    for header in (("package", "command", "description"), ("パッケージ", "コマンド", "説明"), ("软件包", "命令", "说明")):
        scored = _rows_scored(embedder, question, header, rows, "checksums")
        assert not any(s.looked_up for s in scored)
