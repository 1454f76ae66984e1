"""Answer-type analysis in ja/zh/en: what a question asks for, and whether a unit can hold it."""

from __future__ import annotations

import pytest

from bunko.text.answer_types import AnswerType, holds_type, question_type, short_answer
from bunko.text.units import CODE, PROSE, ROW, split_typed_units


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which option of ping sets the number of packets?", AnswerType.OPTION),
        ("ping でパケット数を指定するオプションは？", AnswerType.OPTION),
        ("ping 用哪个参数指定发送的包数？", AnswerType.OPTION),
        ("Which file holds the system hostname?", AnswerType.PATH),
        ("ホスト名はどのファイルに書かれていますか？", AnswerType.PATH),
        ("主机名保存在哪个文件里？", AnswerType.PATH),
        ("What command switches to virtual console 3?", AnswerType.COMMAND),
        ("仮想コンソール3に切り替えるコマンドは？", AnswerType.COMMAND),
        ("切换到虚拟控制台 3 用什么命令？", AnswerType.COMMAND),
        ("How many days of leave do I get?", AnswerType.VALUE),
        ("有給休暇は何日ですか？", AnswerType.VALUE),
        ("年假有多少天？", AnswerType.VALUE),
        ("Which package provides pdftotext?", AnswerType.PACKAGE),
        ("pdftotext を含むパッケージは？", AnswerType.PACKAGE),
        ("pdftotext 在哪个软件包里？", AnswerType.PACKAGE),
        ("Why is umask 002 safe on Debian?", AnswerType.REASON),
        ("なぜ umask 002 で安全なのですか？", AnswerType.REASON),
        ("为什么 umask 002 是安全的？", AnswerType.REASON),
        ("Which chapter explains package management?", AnswerType.WHICH_DOCUMENT),
        ("パッケージ管理はどの章で説明されていますか？", AnswerType.WHICH_DOCUMENT),
        ("哪一章介绍软件包管理？", AnswerType.WHICH_DOCUMENT),
        ("Which easy-rsa subcommand writes the Diffie-Hellman parameters?", AnswerType.COMMAND),
        ("Diffie-Hellman の鍵ファイルを作る easy-rsa のサブコマンドは？", AnswerType.COMMAND),
        ("哪个 easy-rsa 子命令生成 Diffie-Hellman 文件？", AnswerType.COMMAND),
        ("Which apt-get option downloads only?", AnswerType.OPTION),
        ("What should I use to register my server in /etc/inetd.conf without editing it?", AnswerType.COMMAND),
        ("inetd のサーバを登録するとき、ファイルを直接書き換えずに何を使うのですか？", AnswerType.COMMAND),
        ("不直接修改文件的话，软件包用什么在 /etc/inetd.conf 里注册服务？", AnswerType.COMMAND),
        ("adduser の設定ファイルでテンプレートユーザを指定する変数の名前は?", AnswerType.OPTION),
        ("adduser 的配置文件里指定模板用户的变量叫什么？", AnswerType.OPTION),
        ("Which adduser.conf variable names the template user?", AnswerType.OPTION),
    ],
)
def test_question_type_in_three_languages(question: str, kind: AnswerType) -> None:
    assert question_type(question) is kind


@pytest.mark.parametrize(
    ("text", "kind", "holds"),
    [
        ("-c count  Stop after sending count packets.", AnswerType.OPTION, True),
        ("ping sends ICMP echo requests to a host.", AnswerType.OPTION, False),
        ("-c count  送信するパケット数を指定します。", AnswerType.OPTION, True),
        ("このコマンドはホストに ICMP を送ります。", AnswerType.OPTION, False),
        ("ホスト名は \"/etc/hostname\" に保存されます。", AnswerType.PATH, True),
        ("主机名保存在 “/etc/hostname” 中。", AnswerType.PATH, True),
        ("The hostname is set at boot.", AnswerType.PATH, False),
        ("主机名在启动时设置。", AnswerType.PATH, False),
        ("Set APT::Acquire::http::Dl-Limit to limit bandwidth.", AnswerType.OPTION, True),
        ("年假为 10 天。", AnswerType.VALUE, True),
        ("年假由部门经理批准。", AnswerType.VALUE, False),
    ],
)
def test_unit_holds_the_answer_kind(text: str, kind: AnswerType, holds: bool) -> None:
    assert holds_type(text, kind) is holds


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("Indicate the template user's name in the QUOTAUSER variable of /etc/adduser.conf.", True),
        ("/etc/adduser.conf ファイルの QUOTAUSER 変数にテンプレートユーザの名前をいれます。", True),
        ("在 /etc/adduser.conf 文件的 QUOTAUSER 变量中填写模板用户的名字。", True),
        ("Lower the vm.swappiness setting to keep pages in memory.", True),
        ("This setting makes adduser apply quotas to every new user.", False),
        ("この設定ファイルは、新しいユーザにクォータを課すために使われます。", False),
        ("这个配置文件用于给新用户自动设置配额。", False),
    ],
)
def test_a_sentence_that_calls_a_name_a_variable_answers_an_option_question(text: str, holds: bool) -> None:
    """The setting is written as a plain name the sentence calls a variable, without a dash, ``=`` or underscore."""
    assert holds_type(text, AnswerType.OPTION, question="Which adduser.conf variable names the template user?") is holds


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("如果上游提供 tarball 的加密签章，可以用 pgpsigurlmangle 选项来校验其真实性。", True),
        ("上流が tarball の暗号署名を提供していれば、pgpsigurlmangle オプションで検証できます。", True),
        ("Verify the upstream signature with the APT::Get::AllowUnauthenticated option turned off.", True),
        ("If the upstream offers a signature of the tarball, verify it; uscan(1) describes how.", False),
        ("如果上游提供 tarball 的加密签章，那么推荐校验其真实性。", False),
        ("上流が tarball の暗号署名を提供していれば、検証することが推奨されます。", False),
    ],
)
def test_a_name_the_sentence_calls_an_option_answers_an_option_question(text: str, holds: bool) -> None:
    """An option written as a plain name beside the word option (选项, オプション), without a dash or ``=``."""
    assert holds_type(text, AnswerType.OPTION, question="Which watch file option verifies the tarball's signature?") is holds


@pytest.mark.parametrize(
    "text",
    [
        "The Makefile must support the $(DESTDIR) variable.",
        "Makefile は $(DESTDIR) 変数をサポートしなければいけません。",
        "Makefile 必须支持 ${DESTDIR} 变量。",
    ],
)
def test_a_make_or_shell_variable_reference_is_an_option(text: str) -> None:
    assert holds_type(text, AnswerType.OPTION, question="Which variable is prepended to every install path?")
    assert not holds_type(text, AnswerType.OPTION, question="Is $(DESTDIR) or ${DESTDIR} prepended to every install path?")


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("AppArmor provides an aa-unconfined command to list the programs without a profile.", True),
        ("Use the mount command to attach the file system.", True),
        ("Run the following command to see it.", False),
        ("The first event detected is the execution of another program.", False),
        ("logrotate はログファイルの循環を担当しているプログラムです。", True),
        ("他のパッケージは update-inetd スクリプトを使ってサーバを登録します。", True),
        ("其他软件包使用 update-inetd 脚本来注册服务。", True),
        ("Other packages register their server with the update-inetd script.", True),
        ("ログファイルの循環を担当しているプログラムがあります。", False),
        ("apt-get 是一个命令行工具，用于安装软件包。", True),
        ("这个工具用于安装软件包。", False),
    ],
)
def test_a_sentence_that_calls_a_name_a_command_answers_a_command_question(text: str, holds: bool) -> None:
    assert holds_type(text, AnswerType.COMMAND, question="Which command does it?") is holds


def test_a_code_line_can_answer_a_command_question() -> None:
    assert holds_type("# chvt 3", AnswerType.COMMAND, code=True)
    assert not holds_type("Switch consoles from the command line.", AnswerType.COMMAND)


@pytest.mark.parametrize(
    ("text", "question", "expected"),
    [
        ("-t  Use TCP instead of UDP.", "Which option makes it use TCP?", "-t"),
        ("-t  UDP の代わりに TCP を使います。", "TCP を使うオプションは？", "-t"),
        ("-t  使用 TCP 而不是 UDP。", "用哪个参数使用 TCP？", "-t"),
        ("The hostname is stored in \"/etc/hostname\".", "Which file holds the hostname?", "/etc/hostname"),
        ("Use -a or -b.", "Which option?", None),
    ],
)
def test_short_answer_is_isolated_only_when_unambiguous(text: str, question: str, expected: str | None) -> None:
    kind = question_type(question)
    assert short_answer(text, kind, question) == expected


@pytest.mark.parametrize(
    "lead",
    ["You can change to console 3 from the command line.", "コマンドラインからコンソール3に切り替えられます。", "也可以从命令行切换到控制台 3。"],
)
def test_code_block_becomes_units_quoted_after_their_lead_in(lead: str) -> None:
    text = f"Intro.\n\n{lead}\n\n```\n# chvt 3\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    units = split_typed_units(text)
    assert (f"{lead}\n# chvt 3", CODE) in units
    assert (lead, PROSE) in units
    assert ("a: 1 / b: 2", ROW) in units


def test_long_code_block_is_split_into_groups_each_with_the_lead_in() -> None:
    code = "\n".join(f"line {i}" for i in range(14))
    units = [u for u, kind in split_typed_units(f"Run these:\n\n```\n{code}\n```") if kind == CODE]
    assert len(units) == 3 and all(u.startswith("Run these:\nline") for u in units)


@pytest.mark.parametrize(
    "text",
    ["See sudo(8) and Section 4.2 for the details.", "詳しくは sudo(8) と第 4.2 節を参照。", "详见 sudo(8) 和第 4.2 节。"],
)
def test_manual_and_section_references_are_not_values(text: str) -> None:
    assert not holds_type(text, AnswerType.VALUE, question="How long does sudo remember the password?")
    assert holds_type(text + " 15 min", AnswerType.VALUE, question="How long does sudo remember the password?")
    assert not holds_type(text + " 15", AnswerType.VALUE, question="How long does sudo remember the password?")  # a bare number is no duration
    assert holds_type(text + " 15", AnswerType.VALUE, question="What is the default value of timestamp_timeout?")


@pytest.mark.parametrize(
    "lead",
    ["You can change to console 3 from the command line.", "コマンドラインからコンソール3に切り替えられます。", "也可以从命令行切换到控制台 3。"],
)
def test_shell_lines_without_a_fence_are_code_after_their_lead_in(lead: str) -> None:
    """PDF and Word keep no code fences; a paragraph of prompt lines is still a command block."""
    units = split_typed_units(f"{lead}\n\n# chvt 3\n$ who\n\nNext.")
    assert (f"{lead}\n# chvt 3\n$ who", CODE) in units


@pytest.mark.parametrize(
    ("question", "named_only", "with_number"),
    [
        ("How many requests per minute may one API key make?", "The API is described in the REST API Quickstart.",
         "Each API key may make up to 600 requests per minute."),
        ("API キーごとに1分あたり何リクエストまで使えますか？", "詳細は REST API Quickstart を参照してください。",
         "API キーごとに1分あたり600リクエストまでです。"),
        ("每个 API 密钥每分钟最多多少次请求？", "详细说明请参阅英文文档《API Quickstart》。", "每个 API 密钥每分钟最多 600 次请求。"),
    ],
)
def test_a_quantity_question_needs_a_number_not_a_name(question: str, named_only: str, with_number: str) -> None:
    assert not holds_type(named_only, AnswerType.VALUE, question=question)
    assert holds_type(with_number, AnswerType.VALUE, question=question)


@pytest.mark.parametrize(
    ("question", "row", "plain_row"),
    [
        ("With aptitude, how do I upgrade without removing packages?",
         "apt syntax: apt upgrade / aptitude syntax: aptitude safe-upgrade / description: upgrade without removing",
         "level: 3 / name: error / meaning: normal but significant condition."),
        ("aptitude ではどう書きますか？",
         "apt シンタックス: apt upgrade / aptitude シンタックス: aptitude safe-upgrade / 説明: 削除せずに更新",
         "レベル: 3 / 名前: エラー / 意味: 通常だが重要な状態"),
        ("postfix 要用什么命令删除所有邮件？",
         "exim 命令: exim4 -Mrm queue_id / postfix 命令: postsuper -d ALL / 说明: 删除所有邮件",
         "级别: 3 / 名称: 错误 / 含义: 普通但重要的情况"),
        # under a column that names commands, a quoted command line needs no option ("systemd-analyze blame")
        ("Boot is slow: which command lists every unit by the time it took to initialize?",
         'Operation: List of all units by the time to initialize / Command snippets: "systemd-analyze blame"',
         'Operation: List of all units by the time to initialize / Note: "takes a while"'),
        ("起動が遅い。全 unit の初期化時間を一覧するコマンドは？",
         '操作: 初期化にかかった時間を全ての unit に関してリストする / コマンド断片: "systemd-analyze blame"',
         '操作: 初期化にかかった時間を全ての unit に関してリストする / 備考: "takes a while"'),
        ("开机很慢，列出每个单元初始化时间该用哪个命令？",
         '操作: 列出所有单元的初始化时间 / 命令片段: "systemd-analyze blame"',
         '操作: 列出所有单元的初始化时间 / 备注: "takes a while"'),
    ],
)
def test_a_table_cell_holding_a_command_line_answers_a_command_question(question: str, row: str, plain_row: str) -> None:
    assert holds_type(row, AnswerType.COMMAND, question=question, row=True)
    assert not holds_type(plain_row, AnswerType.COMMAND, question=question, row=True)
    assert not holds_type("aptitude syntax: aptitude safe-upgrade", AnswerType.COMMAND, question="Is aptitude safe-upgrade safe?", row=True)


@pytest.mark.parametrize(
    ("question", "asking_for_the_option"),
    [
        ("If I mount a vfat stick without any options, which encoding does mount assume for file names?",
         "Which option makes mount read vfat file names as UTF-8?"),
        ("vfat を何もオプションを付けずにマウントしたら、mount はファイル名をどの文字コードとして扱っていますか？",
         "vfat のファイル名を UTF-8 として扱わせるには、mount にどのオプションを付けますか？"),
        ("挂载 vfat 分区时如果什么选项都不加，mount 会假定文件名用的是哪种编码？",
         "挂载 vfat 分区时要让文件名按 UTF-8 处理，mount 该加什么选项？"),
    ],
)
def test_an_option_the_question_does_without_is_not_what_it_asks(question: str, asking_for_the_option: str) -> None:
    assert question_type(question) is AnswerType.VALUE
    assert question_type(asking_for_the_option) is AnswerType.OPTION


@pytest.mark.parametrize(
    ("question", "kind", "answer"),
    [
        # in English a format is a name with no surface form to check (a digit would pick "version 2.100")
        ("In what format is the English source of the Debian Reference written?", AnswerType.NONE,
         "The source of the English original document is currently written in DocBook XML files."),
        ("Debian リファレンスの英語の原文はどの形式で書かれていますか？", AnswerType.VALUE, "現在、英語の原文は DocBook XML で書かれています。"),
        ("Debian 参考手册的英文原始文档是用什么格式写的？", AnswerType.VALUE, "目前，英文原始文档使用 DocBook XML 文件写作。"),
    ],
)
def test_a_question_for_a_format_does_not_ask_for_a_command(question: str, kind: AnswerType, answer: str) -> None:
    assert question_type(question) is kind
    assert holds_type(answer, kind, question=question)


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("Before 1.0.1-1 is uploaded I build a local test package. Which version should it carry so 1.0.1-1 upgrades it?",
         "A changelog entry with a version string such as 1.0.1-1~rc1 helps a smooth upgrade."),
        ("1.0.1-1 をアップロードする前の試験用パッケージにはどのバージョン番号の値を付けますか？",
         "スムーズなアップグレードのために 1.0.1-1~rc1 のようなバージョン文字列の changelog エントリーを作ります。"),
        ("正式版 1.0.1-1 之前的试验包，版本号用什么值？", "为了平滑升级，创建一个包含类似 1.0.1-1~rc1 这样的版本字符串的 changelog 条目。"),
    ],
)
def test_a_version_with_a_suffix_is_a_new_value_beside_the_version_the_question_names(question: str, text: str) -> None:
    """"1.0.1-1~rc1" is read whole: read as its numbers it is only the question's own 1.0.1-1, and the sentence that
    answers looked like one restating the question."""
    assert holds_type(text, AnswerType.VALUE, question=question)
    assert not holds_type("例如 1.0.1-1。", AnswerType.VALUE, question=question)


@pytest.mark.parametrize(
    ("question", "excluded", "answer"),
    [
        ("My package needs a cron job at a custom time, not just hourly, daily, weekly or monthly. Which file do I use?",
         "- package.cron.weekly - Installed as /etc/cron.weekly/package; run once a week.",
         "- package.cron.d - Installed as /etc/cron.d/package: for any other time."),
        ("毎時・毎日・毎週・毎月ではなく任意の時刻に動く cron ジョブには、weekly ではなくどのファイルを使いますか？",
         "- package.cron.weekly - /etc/cron.weekly/package としてインストール: 1週間に1度実行。",
         "- package.cron.d - /etc/cron.d/package としてインストール: どの時間でも指定可能。"),
        ("我想在自定义时间运行 cron 任务，而不是 weekly，应该用哪个文件？",
         "- package.cron.weekly - 安装至 /etc/cron.weekly/package；每周运行一次。",
         "- package.cron.d - 安装至 /etc/cron.d/package：对于其他的任何时间。"),
    ],
)
def test_a_path_naming_an_alternative_the_question_rules_out_is_not_an_answer(question: str, excluded: str, answer: str) -> None:
    assert question_type(question) is AnswerType.PATH
    assert not holds_type(excluded, AnswerType.PATH, question=question)
    assert holds_type(answer, AnswerType.PATH, question=question)
