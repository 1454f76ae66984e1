"""One set of script ranges: what joins without a space, what is cut into bigrams, what decides ja/zh."""

from __future__ import annotations

import pytest

from bunko.llm.base import estimate_tokens
from bunko.parse.cjk import join_words, normalize
from bunko.parse.html import _source_whitespace
from bunko.text.analyzers import multilingual
from bunko.text.languages import query_language, text_language
from bunko.text.scripts import count_cjk, has_ja_zh, is_unspaced


@pytest.mark.parametrize("char", ["あ", "ア", "ｱ", "日", "中", "㐀", "豈", "𠀋", "。", "「", "，", "Ａ", "\u3000"])
def test_japanese_and_chinese_letters_and_their_punctuation_take_no_spaces(char: str) -> None:
    assert is_unspaced(char)


@pytest.mark.parametrize("char", ["a", "Z", "1", " ", "", "é", "한"])
def test_latin_and_hangul_are_written_with_spaces(char: str) -> None:
    assert not is_unspaced(char)


def test_joined_words_keep_spaces_only_between_spaced_scripts() -> None:
    assert join_words(["設定", "ファイル", "を", "開く"]) == "設定ファイルを開く"
    assert join_words(["编辑", "配置", "文件"]) == "编辑配置文件"
    assert join_words(["edit", "the", "file"]) == "edit the file"
    assert join_words(["apt", "を", "使う"]) == "aptを使う"
    assert join_words(["설정", "파일을", "엽니다"]) == "설정 파일을 엽니다"


def test_html_source_line_breaks_vanish_only_between_unspaced_characters() -> None:
    assert _source_whitespace("設定の\n  ファイル") == "設定のファイル"
    assert _source_whitespace("配置\n文件") == "配置文件"
    assert _source_whitespace("the\nfile") == "the file"
    assert _source_whitespace("설정\n파일") == "설정 파일"


def test_hangul_is_cut_into_bigrams_like_han_and_kana() -> None:
    assert multilingual("設定ファイル") == ["設定", "定フ", "ファ", "ァイ", "イル"]
    assert multilingual("配置文件") == ["配置", "置文", "文件"]
    assert multilingual("설정파일") == ["설정", "정파", "파일"]
    assert multilingual("config file") == ["config", "file"]


def test_every_cjk_character_counts_as_one_token() -> None:
    assert count_cjk("宿泊費") == 3
    assert count_cjk("住宿费") == 3
    assert count_cjk("한국어") == 3
    assert count_cjk("hotel") == 0
    assert estimate_tokens("ＡＢＣ") == 3


def test_only_kana_and_han_make_a_text_japanese_or_chinese() -> None:
    assert has_ja_zh("apt の使い方")
    assert has_ja_zh("使用 apt")
    assert not has_ja_zh("apt 사용법")
    assert not has_ja_zh("how to use apt")


def test_pdf_font_look_alikes_fold_but_full_width_punctuation_stays() -> None:
    assert normalize("⽇本の設定ﬁle") == "日本の設定file"
    assert normalize("配置，文件：") == "配置，文件："


@pytest.mark.parametrize(
    ("question", "language"),
    [("ホテルの上限は？", "ja"), ("住宿费上限是多少？", "zh"), ("What is the hotel limit?", "en"), ("호텔 한도는?", "en")],
)
def test_a_question_is_japanese_with_one_kana_and_chinese_with_han_alone(question: str, language: str) -> None:
    assert query_language(question) == language


@pytest.mark.parametrize(
    ("passage", "language"),
    [
        ("設定ファイル /etc/apt/sources.list を編集して apt update を実行します。", "ja"),
        ("编辑 /etc/apt/sources.list 文件，然后运行 apt update。", "zh"),
        ("Edit /etc/apt/sources.list, then run apt update; the Japanese manual calls it 設定.", "en"),
    ],
)
def test_a_passage_stays_english_when_it_quotes_one_cjk_word(passage: str, language: str) -> None:
    assert text_language(passage) == language


@pytest.mark.parametrize(
    ("question", "language"),
    [("sudo 設定", "ja"), ("駐車場料金", "ja"), ("退職金計算", "ja"), ("有給休暇日数", "ja"),
     ("sudo 设置", "zh"), ("驻车场收费", "zh"), ("软件包状态", "zh"), ("内核模块目录", "zh"), ("sudo settings", "en")],
)
def test_a_question_in_kanji_alone_is_japanese_when_it_writes_a_japanese_form(question: str, language: str) -> None:
    """設, 駐, 職, 給 are outside simplified Chinese's character set: Chinese writes 设, 驻, 职, 给."""
    assert query_language(question) == language
