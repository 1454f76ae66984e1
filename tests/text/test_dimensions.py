"""The kind of quantity a question asks for, and whether a passage states one (ja/zh/en)."""

from __future__ import annotations

import pytest

from bunko.text.answer_types import AnswerType, holds_type
from bunko.text.dimensions import Dimension, asked_dimension, states_dimension


@pytest.mark.parametrize(
    ("question", "dimension"),
    [
        ("How many minutes does the kiln need to cool down?", Dimension.DURATION),
        ("How long are visitor badges valid?", Dimension.DURATION),
        ("窯が冷えるまで何分かかりますか？", Dimension.DURATION),
        ("面包机默认预热几秒后开始工作？", Dimension.DURATION),
        ("门禁默认会把刷错卡的人锁多长时间？", Dimension.DURATION),
        ("At what time does the night ferry leave?", Dimension.TIME_OF_DAY),
        ("夜行フェリーは何時に出航しますか？", Dimension.TIME_OF_DAY),
        ("图书馆每天默认在几点钟闭馆？", Dimension.TIME_OF_DAY),
        ("How big can a single attachment on the forum be?", Dimension.SIZE),
        ("共有フォルダは最大どれくらいの容量を使いますか？", Dimension.SIZE),
        ("相册最多能占用多大空间？", Dimension.SIZE),
        ("写真フォルダに置ける1枚の画像の最大サイズはどれくらいですか？", Dimension.SIZE),
        ("What is the maximum file size on the forum?", Dimension.SIZE),
        ("论坛单个附件的大小是多少？", Dimension.SIZE),
        ("見学パスの有効期間はどれくらいですか？", Dimension.DURATION),
        ("What percentage of the budget may travel use?", Dimension.PERCENT),
        ("In which month of 2019 did the bridge first open?", Dimension.MONTH),
        ("橋が最初に開通したのは、2019年の何月ですか？", Dimension.MONTH),
        ("大桥是 2019 年几月通车的？", Dimension.MONTH),
        ("旅費の上限は予算の何％ですか？", Dimension.PERCENT),
        ("旅费默认占预算的百分之多少？", Dimension.PERCENT),
        ("Which keyboard shortcut mutes the microphone in the meeting app?", Dimension.KEY_COMBINATION),
        ("会議アプリでマイクをミュートするショートカットは？", Dimension.KEY_COMBINATION),
        ("会议软件里静音的快捷键是什么？", Dimension.KEY_COMBINATION),
    ],
)
def test_a_question_that_names_its_quantity_asks_for_that_dimension(question: str, dimension: Dimension) -> None:
    assert asked_dimension(question) is dimension


@pytest.mark.parametrize(
    "question",
    [
        "What is the default timeout?",
        "Which port does the print server use?",
        "ポート番号はいくつですか？",
        "默认端口是多少？",
        "How many books does the library have?",
        "バージョン 3.2 のプラグインは何種類ありますか？",
        "I want to switch tabs without pressing a key combination. What command does that?",
    ],
)
def test_a_question_that_names_no_quantity_asks_for_none(question: str) -> None:
    assert asked_dimension(question) is None


@pytest.mark.parametrize(
    ("text", "dimension"),
    [
        ("The badge stays valid for 30 minutes.", Dimension.DURATION),
        ("Visitor badges expire after a week.", Dimension.DURATION),
        ("Delay=8s", Dimension.DURATION),
        ("見学パスは 30 分間有効です。", Dimension.DURATION),
        ("待ち時間は五秒です。", Dimension.DURATION),
        ("默认锁定 20 分钟。", Dimension.DURATION),
        ("打印队列每周清空一次。", Dimension.DURATION),
        ("The ferry leaves at 22:40 every night.", Dimension.TIME_OF_DAY),
        ("夜行フェリーは午後 10 時 40 分に出ます。", Dimension.TIME_OF_DAY),
        ("每天晚上 9 点闭馆。", Dimension.TIME_OF_DAY),
        ("An attachment may be up to 25 MiB.", Dimension.SIZE),
        ("フォルダは 2GB まで使います。", Dimension.SIZE),
        ("最多占用 256 MB 空间。", Dimension.SIZE),
        ("Travel is limited to 15% of the budget.", Dimension.PERCENT),
        ("The bridge first opened in October 2019.", Dimension.MONTH),
        ("橋は 2019年10月に開通しました。", Dimension.MONTH),
        ("大桥于 2019 年 10 月通车。", Dimension.MONTH),
        ("予算の 15％ までです。", Dimension.PERCENT),
        ("默认为预算的百分之十五。", Dimension.PERCENT),
        ("Press Ctrl+D to mute the microphone.", Dimension.KEY_COMBINATION),
        ("The editor closes the buffer with C-x k.", Dimension.KEY_COMBINATION),
        ("マイクのミュートは Ctrl-Alt-M です。", Dimension.KEY_COMBINATION),
        ("かな入力の切り替えは 変換 キーです。", Dimension.KEY_COMBINATION),
        ("按 Alt 键再按 M 即可静音。", Dimension.KEY_COMBINATION),
    ],
)
def test_a_passage_with_a_number_of_that_unit_states_it(text: str, dimension: Dimension) -> None:
    assert states_dimension(text, dimension)


@pytest.mark.parametrize(
    ("text", "dimension"),
    [
        ("Edit /etc/kiln.conf with kilnctl(8) to change the cooling settings.", Dimension.DURATION),
        ("kilnctl(8) の設定は /etc/kiln.conf にあります。", Dimension.DURATION),
        ("软件包：kilnctl，流行度：V:42, I:57，大小：913", Dimension.DURATION),
        ("面包机菜单配置文件是 /etc/oven/menu.cfg。", Dimension.DURATION),
        ("The timetable lives in /etc/ferry/timetable.d/50night.", Dimension.TIME_OF_DAY),
        ("v4 はフォーラムの版 4 です。", Dimension.SIZE),
        ("旅费表是 A4 纸。", Dimension.PERCENT),
        ("The bridge first opened in 2019.", Dimension.MONTH),
        ("新しい橋が2019年に開通しました。", Dimension.MONTH),
        ("大桥于 2019 年通车。", Dimension.MONTH),
        ("The meeting app mutes the microphone after the idle delay; the key file is in ~/.config.", Dimension.KEY_COMBINATION),
        ("会議アプリのミュートは設定から変更できます。", Dimension.KEY_COMBINATION),
        ("会议软件的静音可以在设置里修改。", Dimension.KEY_COMBINATION),
    ],
)
def test_a_passage_without_that_unit_does_not(text: str, dimension: Dimension) -> None:
    assert not states_dimension(text, dimension)


@pytest.mark.parametrize(
    ("question", "holds", "lacks"),
    [
        ("How many minutes does the kiln need to cool?", "The kiln cools in 40 minutes.", "kilnctl(8) reads /etc/kiln.conf version 2.3."),
        ("窯は何分で冷えますか？", "窯は 40 分で冷えます。", "kilnctl 2.3 の設定ファイルは /etc/kiln.conf です。"),
        ("窑炉几分钟能冷却？", "窑炉 40 分钟内冷却。", "kilnctl 2.3 的配置文件是 /etc/kiln.conf。"),
    ],
)
def test_a_value_unit_holds_a_quantity_question_only_with_the_asked_unit(question: str, holds: str, lacks: str) -> None:
    assert holds_type(holds, AnswerType.VALUE, question=question)
    assert not holds_type(lacks, AnswerType.VALUE, question=question)
