"""Entities without an LLM: one thing is one key whatever the spelling, and every mention keeps its span."""

from __future__ import annotations

import pytest

from bunko.text.entities import entity_key, entity_keys, extract_entities


@pytest.mark.parametrize(
    ("spellings", "key"),
    [
        (["Packages", "packages", "package", "ＰＡＣＫＡＧＥ"], "package"),
        (["Logical Volume", "logical volumes", "logical-volume"], "logical volume"),
        (["サーバー", "サーバ", "ｻｰﾊﾞｰ"], "サーバ"),
        (["ユーザー", "ユーザ"], "ユーザ"),
        (["配置文件", "配置文件"], "配置文件"),
    ],
)
def test_spellings_of_one_thing_merge_into_one_key(spellings: list[str], key: str) -> None:
    assert {entity_key(s) for s in spellings} == {key}


def test_identifiers_keep_their_punctuation_and_fold_case_and_width() -> None:
    assert entity_key("apt-get", identifier=True) == "apt-get"
    assert entity_key("/etc/FSTAB", identifier=True) == "/etc/fstab"
    assert entity_key("ＡＰＴ－ＧＥＴ", identifier=True) == "apt-get"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Install the Apache HTTP Server with apt-get; its configuration is /etc/apache2/apache2.conf.",
         {"apache http server", "apt-get", "/etc/apache2/apache2.conf", "configuration"}),
        ("パッケージ管理システムのAPTは/etc/apt/sources.listを読みます。サーバーの設定ファイルです。",
         {"パッケージ管理システム", "apt", "/etc/apt/sources.list", "サーバ", "設定ファイル"}),
        ("备份工具rsnapshot的配置文件是/etc/rsnapshot.conf。", {"rsnapshot", "配置文件", "/etc/rsnapshot.conf"}),
    ],
)
def test_commands_paths_and_noun_phrases_are_entities_in_each_language(text: str, expected: set[str]) -> None:
    assert expected <= set(entity_keys(text))


@pytest.mark.parametrize(
    "text",
    ["Run mdadm to build the RAID volumes.", "バックアップサーバはソフトウェアRAIDを使います。", "备份服务器使用软件RAID保护数据。"],
)
def test_every_mention_points_at_its_own_surface_in_the_text(text: str) -> None:
    mentions = extract_entities(text)
    assert mentions
    for m in mentions:
        assert text[m.start : m.end] == m.surface
        assert entity_key(m.surface, identifier=m.key == entity_key(m.surface, identifier=True)) == m.key


def test_grammar_words_are_never_entities() -> None:
    keys = set(entity_keys("What is the way to do this, and which of these should we use?"))
    assert not keys & {"what", "the", "way", "this", "which", "these", "should", "use"}


def test_a_path_inside_chinese_text_ends_where_the_han_letters_begin() -> None:
    keys = entity_keys("软件包管理系统读取/etc/apt/sources.list文件")
    assert "/etc/apt/sources.list" in keys and not any(k.startswith("/etc/apt/sources.list文") for k in keys)


def test_without_dictionaries_japanese_falls_back_to_kanji_katakana_runs_and_chinese_to_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    from bunko.text import entities

    monkeypatch.setattr(entities, "_sudachi", lambda: None)
    monkeypatch.setattr(entities, "_jieba_posseg", lambda: None)
    assert {"パッケージ管理システム", "設定ファイル", "サーバ"} <= set(entity_keys("パッケージ管理システムの設定ファイルはサーバーにあります。"))
    chinese = set(entity_keys("备份工具的配置文件在服务器上。软件包管理系统读取它"))
    assert {"备份工具", "配置文件", "服务器"} <= chinese
    assert {"软件", "件包", "管理", "系统"} <= chinese  # a long piece: overlapping bigrams
    for text in ("設定ファイルはサーバーにあります。", "软件包管理系统读取配置文件"):
        assert all(text[m.start : m.end] == m.surface for m in extract_entities(text))
