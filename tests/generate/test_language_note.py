"""The "based on English material" notice comes from the languages of the quoted units, not of the cited chunks.

A chunk of a Japanese manual is often mostly English (a config listing, a paragraph left untranslated): judged as a
whole it reads as English, and a Japanese answer quoting its one Japanese sentence said it was based on English
documents (issue 50, item 7).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.generate.language import cited_languages, quote_language
from bunko.schema import AnswerSentence, Citation

LISTING = """```
auto eth0
iface eth0 inet static
    address 192.168.0.10
    netmask 255.255.255.0
    gateway 192.168.0.1
    dns-nameservers 192.168.0.1 8.8.8.8
```
"""
UNTRANSLATED = ("The interfaces file is read at boot by ifup, which brings up every interface marked auto, in the order in "
                "which they are listed in the file, and runs the hooks that the packages installed for each interface.")

DOCS = {
    "network-ja.md": f"# ネットワークの設定\n\n固定IPアドレスは /etc/network/interfaces ファイルに書きます。\n\n{UNTRANSLATED}\n\n{LISTING}",
    "network-zh.md": f"# 网络设置\n\n静态IP地址写在 /etc/network/interfaces 文件中。\n\n{UNTRANSLATED}\n\n{LISTING}",
    "backup-ja.md": """# バックアップ

バックアップは毎晩実行され、三十日間保存されます。保存先はファイルサーバーの共有フォルダです。担当は情報システム部で、復元の依頼は申請フォームから行います。

Backups older than thirty days are deleted by the rotation job on the file server.

復元には通常二営業日かかります。急ぎの場合は電話で連絡してください。月末は依頼が多いため、さらに時間がかかることがあります。
""",
}
NOTES = ("この回答は", "此回答依据", "This answer is based on")


@pytest.fixture(scope="module")
def kb_path(folder_of: Callable[[str, Mapping[str, str]], Path], embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("language-note") / ".bunko"
    with Bunko(path, embedder=embedder) as kb:
        assert kb.ingest(folder_of("language-note-docs", DOCS)).ok
    return path


@pytest.mark.parametrize(("question", "quoted"), [
    ("固定IPアドレスはどのファイルに書きますか？", "固定IPアドレスは /etc/network/interfaces ファイルに書きます。"),
    ("静态IP地址写在哪个文件里？", "静态IP地址写在 /etc/network/interfaces 文件中。"),
    ("When are old backups deleted?", "Backups older than thirty days are deleted by the rotation job on the file server."),
])
def test_an_answer_quoting_its_own_language_has_no_notice(kb_path: Path, embedder, question: str, quoted: str) -> None:
    """Each cited chunk, judged whole, is in the other language (the ja/zh ones mostly English, the backup page
    mostly Japanese); the quoted sentence is in the question's language, so the answer says nothing about languages."""
    with Bunko(kb_path, embedder=embedder) as kb:
        answer = kb.ask(question)
    quotes = [c.quote for s in answer.sentences for c in s.citations]
    assert quoted in quotes, answer.text
    assert not any(note in answer.text for note in NOTES), answer.text
    assert not answer.notices


def _sentence(*quotes: tuple[str, str]) -> AnswerSentence:
    return AnswerSentence(text="…", citations=[
        Citation(chunk_id=chunk, source="doc.md", page=None, section_path=[], element_ids=[], quote=quote) for chunk, quote in quotes
    ])


def test_cited_languages_are_the_quotes_languages_in_order() -> None:
    sentences = [
        _sentence(("c1", "Backups older than thirty days are deleted by the rotation job.")),
        _sentence(("c2", "バックアップは毎晩実行されます。"), ("c3", "备份每晚执行，保存三十天。")),
        _sentence(("c4", "The restore takes two working days.")),
    ]
    assert cited_languages(sentences) == ["en", "ja", "zh"]


def test_a_quote_written_alike_in_every_language_takes_its_chunks_language() -> None:
    """A key combination, a code or a number says nothing of a language: its chunk decides, and with no chunk it
    counts for none (so no notice is made of it)."""
    for quote in ("Ctrl+Shift+5", "⌘+Shift+5", "E-1024", "10,614,000", "/etc/network/interfaces"):
        assert quote_language(quote) is None, quote
    sentences = [_sentence(("c1", "Ctrl+Shift+5"))]
    assert cited_languages(sentences) == []
    assert cited_languages(sentences, {"c1": "上付き文字にするには Ctrl+Shift+5 を押します。"}) == ["ja"]
    assert cited_languages(sentences, {"c1": "要设置上标，请按 Ctrl+Shift+5。"}) == ["zh"]
    assert cited_languages(sentences, {"c1": "To make the text superscript, press Ctrl+Shift+5."}) == ["en"]


def test_an_english_quote_in_a_japanese_chunk_is_english_material() -> None:
    """The untranslated paragraph of a Japanese page is English material: quoted in a Japanese answer, the notice is
    true."""
    chunk = "固定IPアドレスは /etc/network/interfaces ファイルに書きます。" * 3 + UNTRANSLATED
    assert cited_languages([_sentence(("c1", UNTRANSLATED))], {"c1": chunk}) == ["en"]


def test_a_quote_in_han_alone_takes_a_japanese_passages_language() -> None:
    """A row of names and amounts in kanji reads as Chinese by its letters; in a Japanese passage it is Japanese, in
    a Chinese one Chinese, and Han text with kana is Japanese wherever it stands."""
    row = _sentence(("c1", "地域：東京23区、一般社員：12,000円"))
    assert cited_languages([row], {"c1": "出張の宿泊費の上限は次の表のとおりです。地域：東京23区、一般社員：12,000円"}) == ["ja"]
    assert cited_languages([row], {"c1": "出差住宿费上限如下表所示。地域：東京23区、一般社員：12,000円"}) == ["zh"]
    kana = _sentence(("c2", "上限は12,000円です。"))
    assert cited_languages([kana], {"c2": "The hotel limit table is below. 上限は12,000円です。"}) == ["ja"]
    assert cited_languages([_sentence(("c3", "The limit is 12,000 yen per night."))], {"c3": "上限は一泊12,000円です。"}) == ["en"]
