"""A question that names a value the table is keyed by ("level 3", “m”) is answered from the row with that cell (ja/zh/en)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.embed.base import embed_queries
from bunko.rerank.evidence import hit_units, score_units
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual
from bunko.text.questions import lookup_values

LEVELS = {
    "en": ("Kernel messages", "The kernel error message displayed to the console can be configured by setting its threshold level.",
           ("error level value", "error level name", "meaning"),
           ["system is unusable", "action must be taken immediately", "critical conditions", "error conditions",
            "warning conditions", "normal but significant condition", "informational", "debug-level messages"]),
    "ja": ("カーネルメッセージ", "コンソールに表示されるカーネルのエラーメッセージは閾値レベルを設定することで調整できます。",
           ("エラーレベル値", "エラーレベル名", "意味"),
           ["システムが使用不可", "直ちに対処が必要", "致命的な状態", "エラー状態", "警告状態", "正常だが重要な状態", "情報", "デバッグレベルのメッセージ"]),
    "zh": ("内核消息", "显示在控制台上的内核错误消息，能够通过设置阈值等级来调整。",
           ("错误级别值", "错误级别名称", "意思"),
           ["系统不可用", "必须立即采取行动", "危险情况", "错误情况", "警告情况", "普通但重要的情况", "信息", "调试级别的信息"]),
}
NAMES = ["KERN_EMERG", "KERN_ALERT", "KERN_CRIT", "KERN_ERR", "KERN_WARNING", "KERN_NOTICE", "KERN_INFO", "KERN_DEBUG"]
QUESTIONS = {
    "en": "With 'dmesg -n3' I set the console threshold to kernel error level 3. What is that level called?",
    "ja": "'dmesg -n3' でコンソールの閾値をカーネルのエラーレベル 3 にしました。このレベルは何という名前ですか？",
    "zh": "我用 'dmesg -n3' 把控制台的阈值设成了内核错误级别 3，这个级别叫什么名字？",
}


def _levels_page(language: str) -> str:
    title, lead, header, meanings = LEVELS[language]
    rows = "\n".join(f"| {value} | {name} | {meaning} |" for value, (name, meaning) in enumerate(zip(NAMES, meanings, strict=True)))
    return f"# {title}\n\n{lead}\n\n```\n# dmesg -n3\n```\n\n| {' | '.join(header)} |\n|---|---|---|\n{rows}\n"


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
    assert "KERN_ERR" in answer.text, answer.text
    assert "KERN_EMERG" not in answer.text, answer.text


TRUST = [
    ("gpg trust codes", "The trust of each key brought in with gpg --import is shown as a one-letter trust code.", "code", "trust description",
     ["no trust assigned / not calculated yet", "failed to calculate trust", "marginal trust", "full trust", "ultimate trust"],
     "In gpg's trust codes, what does “m” mean?"),
    ("gpg の信用コード", "gpg --import で取り込んだ鍵の信用は 1 文字の信用コードで示されます。", "コード", "信用の説明",
     ["信用の割り当てなし／未計算", "信用の計算に失敗", "最低限の信用", "完全な信用", "究極の信用"],
     "gpg の信用コードで「m」は何を意味しますか？"),
    ("gpg 信任码", "用 gpg --import 导入的密钥，其信任用一个字母的信任码表示。", "代码", "信任描述",
     ["没有分配信任/还没有计算", "计算信任失败", "最低限度的信任", "完全信任", "绝对信任"],
     "gpg 的信任码里，“m” 代表什么意思？"),
]


@pytest.mark.parametrize(("section", "lead", "code_header", "description_header", "descriptions", "question"), TRUST)
def test_a_quoted_code_looks_up_its_row_over_units_sharing_more_words(
    embedder, section: str, lead: str, code_header: str, description_header: str, descriptions: list[str], question: str,
) -> None:
    rows = "\n".join(f"| {code} | {text} |" for code, text in zip("qnmfu", descriptions, strict=True))
    text = f"{lead}\n\n| {code_header} | {description_header} |\n|---|---|\n{rows}"
    hits = [Hit(Chunk("gpg.md#0", "d0", "gpg.md", 0, text, f"{section}\n{text}", section_path=[section]), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    scored = score_units(question, hits, hit_units(hits, 50), vector, multilingual(question), embedder, multilingual)
    best = max(scored, key=lambda s: s.score)
    assert best.looked_up and descriptions[2] in best.unit.text
    assert [s.looked_up for s in scored].count(True) == 1


@pytest.mark.parametrize(
    "question",
    [
        "Why is it safe to set umask to 0002 on Debian?",
        "Debian では umask を 0002 にしても安全だとされていますが、なぜですか？",
        "为什么在 Debian 上把 umask 设为 0002 是安全的？",
    ],
)
def test_a_question_asking_why_looks_nothing_up(embedder, question: str) -> None:
    text = "| umask | use |\n|---|---|\n| 0022 | writable only by the user |\n| 0002 | writable by the group |"
    hits = [Hit(Chunk("umask.md#0", "d0", "umask.md", 0, text, text, section_path=["umask"]), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    scored = score_units(question, hits, hit_units(hits, 50), vector, multilingual(question), embedder, multilingual)
    assert scored and not any(s.looked_up for s in scored)


def test_lookup_values_are_quoted_phrases_and_numbers_standing_alone() -> None:
    assert lookup_values("With 'dmesg -n3' I set kernel error level 3. What is it called?") == ["3"]
    assert lookup_values("gpg の信用コードで「m」は何を意味しますか？") == ["m"]
    assert lookup_values("级别3是什么？端口 993 呢？") == ["3", "993"]
    assert lookup_values("ext4, version 1.2.3, option -n3 and x=5") == []


SPLITS = {
    "en": ("Package", "Architecture", "Multi-Arch", "Package content",
           [("libfoo1", "any", "same", "the shared library, co-installable"),
            ("libfoo-tools", "any", "foreign", "the run-time support programs, not co-installable"),
            ("bar", "any", "foreign", "the compiled program files, not co-installable"),
            ("bar-doc", "all", "foreign", "the documentation files for the program")],
           "In the multiarch split example, what Multi-Arch value does the package libfoo1 get?"),
    "ja": ("パッケージ", "アーキテクチャー", "Multi-Arch", "パッケージの内容",
           [("libfoo1", "any", "same", "共有ライブラリー、共存可能"),
            ("libfoo-tools", "any", "foreign", "実行時サポートプログラム、共存不可"),
            ("bar", "any", "foreign", "コンパイルされたプログラムファイル、共存不可"),
            ("bar-doc", "all", "foreign", "プログラムの文書ファイル")],
           "マルチアーチの分割例で、bar パッケージの Multi-Arch の値は何ですか？"),
    "zh": ("软件包", "体系结构", "多体系结构", "软件包内容",
           [("libfoo1", "任何", "相同", "共享库，可共同安装"),
            ("libfoo-tools", "任何", "外来", "运行时支持程序，不可共同安装"),
            ("bar", "任何", "外来", "编译好的程序文件，不可共同安装"),
            ("bar-doc", "全部", "外来", "程序的配套文档文件")],
           "多体系结构拆分的例子中，bar 这个包的多体系结构取值是什么？"),
}


def _rows_scored(embedder, question: str, header: tuple[str, ...], rows: list[tuple[str, ...]], section: str):
    text = f"| {' | '.join(header)} |\n|{'---|' * len(header)}\n" + "\n".join(f"| {' | '.join(row)} |" for row in rows)
    hits = [Hit(Chunk("t.md#0", "d0", "t.md", 0, text, f"{section}\n{text}", section_path=[section]), 1.0)]
    vector = embed_queries(embedder, [question])[0]
    return score_units(question, hits, hit_units(hits, 50), vector, multilingual(question), embedder, multilingual)


@pytest.mark.parametrize(("language", "package"), [("en", "libfoo1"), ("ja", "bar"), ("zh", "bar")])
def test_the_row_named_by_the_question_is_looked_up_when_the_question_names_its_column(embedder, language: str, package: str) -> None:
    """A name is a key term: an identifier in English (libfoo1; a plain lower-case "bar" is a word there), any Latin word in ja/zh."""
    *header, rows, question = SPLITS[language]
    scored = _rows_scored(embedder, question, tuple(header), rows, "multiarch")
    assert [s.unit.text.split(" / ")[0].split(": ")[1] for s in scored if s.looked_up] == [package]
    assert max(scored, key=lambda s: s.score).looked_up


@pytest.mark.parametrize(
    "question",
    ["Which archive area is virtualbox in?", "virtualbox はどのアーカイブエリアにありますか？", "virtualbox 属于哪个档案区？"],
)
def test_a_row_that_only_names_the_questions_subject_is_not_looked_up(embedder, question: str) -> None:
    rows = [("virtualbox", "V:9, I:11", "126370", "x86 virtualization solution"), ("qemu-system", "V:30, I:50", "100", "QEMU")]
    scored = _rows_scored(embedder, question, ("package", "popcon", "size", "description"), rows, "virtualization")
    assert not any(s.looked_up for s in scored)


@pytest.mark.parametrize(
    "question",
    ["Which coreutils command computes an MD5 checksum?", "MD5 チェックサムを計算する coreutils のコマンドは？", "coreutils 里计算 MD5 校验和的命令是哪个？"],
)
def test_a_name_several_rows_share_looks_no_row_up(embedder, question: str) -> None:
    rows = [("coreutils", "md5sum(1)", "compute and check MD5 message digest"), ("coreutils", "sha1sum(1)", "compute and check SHA1 message digest")]
    for header in (("package", "command", "description"), ("パッケージ", "コマンド", "説明"), ("软件包", "命令", "说明")):
        scored = _rows_scored(embedder, question, header, rows, "checksums")
        assert not any(s.looked_up for s in scored)
