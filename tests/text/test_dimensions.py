"""The kind of quantity a question asks for, and whether a passage states one (ja/zh/en)."""

from __future__ import annotations

import pytest

from bunko.text.answer_types import AnswerType, holds_type
from bunko.text.dimensions import Dimension, asked_dimension, states_dimension


@pytest.mark.parametrize(
    ("question", "dimension"),
    [
        ("How many minutes does sudo remember my password?", Dimension.DURATION),
        ("How long are packages kept in the cache?", Dimension.DURATION),
        ("sudo を再入力なしで使える時間はデフォルトで何分ですか？", Dimension.DURATION),
        ("GRUB 启动菜单默认倒计时几秒后自动进入系统？", Dimension.DURATION),
        ("fail2ban 默认会把 IP 封禁多长时间？", Dimension.DURATION),
        ("At what time does the daily job run?", Dimension.TIME_OF_DAY),
        ("cron の日次ジョブは何時に実行されますか？", Dimension.TIME_OF_DAY),
        ("unattended-upgrades 每天默认在几点钟自动执行升级？", Dimension.TIME_OF_DAY),
        ("How big can a single file on ext4 be?", Dimension.SIZE),
        ("ログは最大どれくらいの容量を使いますか？", Dimension.SIZE),
        ("/run 最多能占用多大内存？", Dimension.SIZE),
        ("ext4 ファイルシステムで扱える1ファイルの最大サイズはどれくらいですか？", Dimension.SIZE),
        ("What is the maximum file size on ext4?", Dimension.SIZE),
        ("ext4 单个文件的大小是多少？", Dimension.SIZE),
        ("キャッシュを保持する期間はどれくらいですか？", Dimension.DURATION),
        ("What percentage of RAM may /run use?", Dimension.PERCENT),
        ("In which month of 2008 was the second edition first released?", Dimension.MONTH),
        ("第2版が最初にリリースされたのは、2008年の何月ですか？", Dimension.MONTH),
        ("第二版是 2008 年几月发布的？", Dimension.MONTH),
        ("/run のサイズ上限は物理メモリーの何％ですか？", Dimension.PERCENT),
        ("/run 默认占物理内存的百分之多少？", Dimension.PERCENT),
        ("Which keyboard shortcut locks the screen in GNOME?", Dimension.KEY_COMBINATION),
        ("GNOME で画面をロックするショートカットは？", Dimension.KEY_COMBINATION),
        ("GNOME 里锁屏的快捷键是什么？", Dimension.KEY_COMBINATION),
    ],
)
def test_a_question_that_names_its_quantity_asks_for_that_dimension(question: str, dimension: Dimension) -> None:
    assert asked_dimension(question) is dimension


@pytest.mark.parametrize(
    "question",
    [
        "What is the default timeout?",
        "Which port does LDAPS use?",
        "ポート番号はいくつですか？",
        "默认端口是多少？",
        "How many packages does Debian have?",
        "カーネル 5.6 の namespace は何種類ありますか？",
        "I want to switch consoles without pressing a key combination. What command does that?",
    ],
)
def test_a_question_that_names_no_quantity_asks_for_none(question: str) -> None:
    assert asked_dimension(question) is None


@pytest.mark.parametrize(
    ("text", "dimension"),
    [
        ("The password is remembered for 15 minutes.", Dimension.DURATION),
        ("Packages stay for a week before they are removed.", Dimension.DURATION),
        ("Timeout=5s", Dimension.DURATION),
        ("パスワードは 15 分間記憶されます。", Dimension.DURATION),
        ("タイムアウトは五秒です。", Dimension.DURATION),
        ("默认封禁 10 分钟。", Dimension.DURATION),
        ("fstrim 每周执行一次。", Dimension.DURATION),
        ("The job runs at 06:25 every day.", Dimension.TIME_OF_DAY),
        ("日次ジョブは午前 6 時 25 分に動きます。", Dimension.TIME_OF_DAY),
        ("每天凌晨 6 点执行。", Dimension.TIME_OF_DAY),
        ("A file may be up to 16 TiB.", Dimension.SIZE),
        ("ログは 4GB まで使います。", Dimension.SIZE),
        ("最多占用 512 MB 内存。", Dimension.SIZE),
        ("/run is limited to 20% of RAM.", Dimension.PERCENT),
        ("The second edition was released in March 2008.", Dimension.MONTH),
        ("第2版は 2008年3月にリリースされました。", Dimension.MONTH),
        ("第二版于 2008 年 3 月发布。", Dimension.MONTH),
        ("物理メモリーの 20％ までです。", Dimension.PERCENT),
        ("默认为物理内存的百分之二十。", Dimension.PERCENT),
        ("Press Super+L to lock the screen.", Dimension.KEY_COMBINATION),
        ("Emacs saves the buffer with C-x C-s.", Dimension.KEY_COMBINATION),
        ("画面のロックは Ctrl-Alt-L です。", Dimension.KEY_COMBINATION),
        ("入力の切り替えは 半角/全角 キーです。", Dimension.KEY_COMBINATION),
        ("按 Super 键再按 L 即可锁屏。", Dimension.KEY_COMBINATION),
    ],
)
def test_a_passage_with_a_number_of_that_unit_states_it(text: str, dimension: Dimension) -> None:
    assert states_dimension(text, dimension)


@pytest.mark.parametrize(
    ("text", "dimension"),
    [
        ("Edit /etc/sudoers with visudo(8) to change the sudo configuration.", Dimension.DURATION),
        ("sudo(8) の設定は /etc/sudoers にあります。", Dimension.DURATION),
        ("软件包：fail2ban，流行度：V:111, I:125，大小：2127", Dimension.DURATION),
        ("GRUB2 菜单配置文件是 /boot/grub/grub.cfg。", Dimension.DURATION),
        ("The configuration lives in /etc/apt/apt.conf.d/50unattended-upgrades.", Dimension.TIME_OF_DAY),
        ("ext4 はファイルシステムの版 4 です。", Dimension.SIZE),
        ("/run 是 tmpfs。", Dimension.PERCENT),
        ("The second edition was released in 2008.", Dimension.MONTH),
        ("新たな第2版が2008年にリリースされました。", Dimension.MONTH),
        ("第二版于 2008 年发布。", Dimension.MONTH),
        ("GNOME locks the screen after the idle delay; the public key is in ~/.ssh.", Dimension.KEY_COMBINATION),
        ("GNOME の画面ロックは設定から変更できます。", Dimension.KEY_COMBINATION),
        ("GNOME 的锁屏可以在设置里修改。", Dimension.KEY_COMBINATION),
    ],
)
def test_a_passage_without_that_unit_does_not(text: str, dimension: Dimension) -> None:
    assert not states_dimension(text, dimension)


@pytest.mark.parametrize(
    ("question", "holds", "lacks"),
    [
        ("How many minutes does sudo remember the password?", "sudo remembers it for 15 minutes.", "sudo(8) reads /etc/sudoers version 1.9."),
        ("sudo はパスワードを何分間覚えていますか？", "sudo はパスワードを 15 分間覚えています。", "sudo 1.9 の設定ファイルは /etc/sudoers です。"),
        ("sudo 输入密码后几分钟内不用再输？", "默认 15 分钟内不用再输入。", "sudo 1.9 的配置文件是 /etc/sudoers。"),
    ],
)
def test_a_value_unit_holds_a_quantity_question_only_with_the_asked_unit(question: str, holds: str, lacks: str) -> None:
    assert holds_type(holds, AnswerType.VALUE, question=question)
    assert not holds_type(lacks, AnswerType.VALUE, question=question)
