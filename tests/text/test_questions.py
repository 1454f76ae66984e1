"""The sentence of a question that asks, when a scene comes before it."""

from __future__ import annotations

import pytest

from bunko.text.questions import asked_sentence


@pytest.mark.parametrize(
    ("question", "asking"),
    [
        ("Upstream released foo-1.0-RC1.tar.gz ahead of foo-1.0.tar.gz. What should I rename it to?", "What should I rename it to?"),
        ("rsyslog が /var/log/ に書き出すログが大きくなります。ログを循環させているのはどのプログラムですか?",
         "ログを循環させているのはどのプログラムですか?"),
        ("公司上网必须经过 Squid 代理。系统级的环境变量最好写在哪个文件里？", "系统级的环境变量最好写在哪个文件里？"),
        ("I use Squid. I want the proxy for every program. Please tell me the file.", "Please tell me the file."),
        ("My DNS runs on bind. What is the reverse zone called? And where is it kept?", "What is the reverse zone called? And where is it kept?"),
    ],
)
def test_the_asking_sentences_are_those_with_a_question_mark_after_a_scene(question: str, asking: str) -> None:
    assert asked_sentence(question) == asking


@pytest.mark.parametrize(
    "question",
    [
        "Which file does foo-1.0.tar.gz install into /etc/foo.conf?",
        "Debian 12.4 の /etc/apt/sources.list はどう書きますか？",
        "在 v2.0 版本中 foo.conf 放在哪里？",
        "Btrfs 怎样开启 zstd 透明压缩？挂载选项该怎么写？",
        "How do I enable zstd compression on Btrfs? Which mount option is it?",
    ],
)
def test_a_question_that_only_asks_has_no_separate_asking_sentence(question: str) -> None:
    """Dots inside versions and file names end no sentence; two questions are both the ask, with no scene before."""
    assert asked_sentence(question) is None
