"""The sentence of a question that asks, when a scene comes before it."""

from __future__ import annotations

import pytest

from bunko.text.questions import asked_sentence


@pytest.mark.parametrize(
    ("question", "asking"),
    [
        ("The vendor shipped bar-2.3-beta4.zip before bar-2.3.zip. Which name should the beta get?", "Which name should the beta get?"),
        ("倉庫の温度記録が毎日増えていきます。古い記録をまとめているのはどのスクリプトですか?",
         "古い記録をまとめているのはどのスクリプトですか?"),
        ("工厂的打印机都要经过一台网关。打印机的地址最好写在哪个文件里？", "打印机的地址最好写在哪个文件里？"),
        ("I use a tunnel. I want it for every program. Please tell me the file.", "Please tell me the file."),
        ("My shop runs on a tablet. What is the receipt printer called? And where is it kept?",
         "What is the receipt printer called? And where is it kept?"),
    ],
)
def test_the_asking_sentences_are_those_with_a_question_mark_after_a_scene(question: str, asking: str) -> None:
    assert asked_sentence(question) == asking


@pytest.mark.parametrize(
    "question",
    [
        "Which file does bar-2.3.zip unpack into /opt/bar.conf?",
        "バージョン 4.2.1 の /etc/bar/bar.conf はどう書きますか？",
        "在 v3.1 版本中 bar.conf 放在哪里？",
        "相机怎样开启连拍模式？快门选项该怎么设？",
        "How do I turn on burst mode on the camera? Which shutter option is it?",
    ],
)
def test_a_question_that_only_asks_has_no_separate_asking_sentence(question: str) -> None:
    """Dots inside versions and file names end no sentence; two questions are both the ask, with no scene before."""
    assert asked_sentence(question) is None
