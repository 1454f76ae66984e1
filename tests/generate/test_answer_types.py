"""Answer-type analysis in ja/zh/en: what a question asks for, and whether a unit can hold it."""

from __future__ import annotations

import pytest

from bunko.text.answer_types import AnswerType, holds_type, question_type, short_answer
from bunko.text.units import CODE, PROSE, ROW, split_typed_units


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which option of fetchr sets the number of retries?", AnswerType.OPTION),
        ("fetchr でリトライ回数を指定するオプションは？", AnswerType.OPTION),
        ("fetchr 用哪个参数指定重试次数？", AnswerType.OPTION),
        ("Which file holds the kiln's firing schedule?", AnswerType.PATH),
        ("窯の焼成スケジュールはどのファイルに書かれていますか？", AnswerType.PATH),
        ("窑炉的烧制计划保存在哪个文件里？", AnswerType.PATH),
        ("What command switches kiln 3 to night mode?", AnswerType.COMMAND),
        ("窯3を夜間モードに切り替えるコマンドは？", AnswerType.COMMAND),
        ("把 3 号窑切换到夜间模式用什么命令？", AnswerType.COMMAND),
        ("How many days of leave do I get?", AnswerType.VALUE),
        ("有給休暇は何日ですか？", AnswerType.VALUE),
        ("年假有多少天？", AnswerType.VALUE),
        ("Which package provides tidegraph?", AnswerType.PACKAGE),
        ("tidegraph を含むパッケージは？", AnswerType.PACKAGE),
        ("tidegraph 在哪个软件包里？", AnswerType.PACKAGE),
        ("Why is a 40-minute cool-down safe for the kiln?", AnswerType.REASON),
        ("なぜ 40 分の冷却で窯は安全なのですか？", AnswerType.REASON),
        ("为什么 40 分钟冷却对窑炉是安全的？", AnswerType.REASON),
        ("Which chapter explains glaze mixing?", AnswerType.WHICH_DOCUMENT),
        ("釉薬の調合はどの章で説明されていますか？", AnswerType.WHICH_DOCUMENT),
        ("哪一章介绍釉料调配？", AnswerType.WHICH_DOCUMENT),
        ("Which gaugectl subcommand writes the calibration table?", AnswerType.COMMAND),
        ("校正表のファイルを作る gaugectl のサブコマンドは？", AnswerType.COMMAND),
        ("哪个 gaugectl 子命令生成校正表文件？", AnswerType.COMMAND),
        ("Which fetchr option downloads only?", AnswerType.OPTION),
        ("What should I use to register my boat in /etc/harbour/berths.conf without editing it?", AnswerType.COMMAND),
        ("係留先を登録するとき、ファイルを直接書き換えずに何を使うのですか？", AnswerType.COMMAND),
        ("不直接修改文件的话，船只用什么在 /etc/harbour/berths.conf 里登记泊位？", AnswerType.COMMAND),
        ("gaugectl の設定ファイルで既定の観測所を指定する変数の名前は?", AnswerType.OPTION),
        ("gaugectl 的配置文件里指定默认观测站的变量叫什么？", AnswerType.OPTION),
        ("Which gaugectl.conf variable names the default station?", AnswerType.OPTION),
    ],
)
def test_question_type_in_three_languages(question: str, kind: AnswerType) -> None:
    assert question_type(question) is kind


@pytest.mark.parametrize(
    ("text", "kind", "holds"),
    [
        ("-r count  Stop after count retries.", AnswerType.OPTION, True),
        ("fetchr downloads archives from a mirror.", AnswerType.OPTION, False),
        ("-r count  リトライ回数を指定します。", AnswerType.OPTION, True),
        ("このコマンドはミラーからアーカイブを取得します。", AnswerType.OPTION, False),
        ("窯のスケジュールは \"/etc/kiln/schedule\" に保存されます。", AnswerType.PATH, True),
        ("窑炉的计划保存在 “/etc/kiln/schedule” 中。", AnswerType.PATH, True),
        ("The schedule is set at start-up.", AnswerType.PATH, False),
        ("窑炉的计划在启动时设置。", AnswerType.PATH, False),
        ("Set Fetchr::Mirror::http::Rate-Limit to limit bandwidth.", AnswerType.OPTION, True),
        ("年假为 10 天。", AnswerType.VALUE, True),
        ("年假由部门经理批准。", AnswerType.VALUE, False),
    ],
)
def test_unit_holds_the_answer_kind(text: str, kind: AnswerType, holds: bool) -> None:
    assert holds_type(text, kind) is holds


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("Indicate the default station's name in the HOMESTATION variable of /etc/gaugectl.conf.", True),
        ("/etc/gaugectl.conf ファイルの HOMESTATION 変数に既定の観測所の名前をいれます。", True),
        ("在 /etc/gaugectl.conf 文件的 HOMESTATION 变量中填写默认观测站的名字。", True),
        ("Lower the gauge.smoothing setting to keep spikes in the plot.", True),
        ("This setting makes gaugectl apply offsets to every new station.", False),
        ("この設定ファイルは、新しい観測所に補正値を課すために使われます。", False),
        ("这个配置文件用于给新观测站自动设置补正值。", False),
    ],
)
def test_a_sentence_that_calls_a_name_a_variable_answers_an_option_question(text: str, holds: bool) -> None:
    """The setting is written as a plain name the sentence calls a variable, without a dash, ``=`` or underscore."""
    assert holds_type(text, AnswerType.OPTION, question="Which gaugectl.conf variable names the default station?") is holds


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("如果厂商提供归档的校验和列表，可以用 sumlisturl 选项来核对其完整性。", True),
        ("ベンダーがアーカイブのチェックサム一覧を提供していれば、sumlisturl オプションで照合できます。", True),
        ("Compare the vendor checksums with the Fetchr::Get::AllowUnverified option turned off.", True),
        ("If the vendor offers a checksum list of the archive, compare it; fetchr(1) describes how.", False),
        ("如果厂商提供归档的校验和列表，那么推荐核对其完整性。", False),
        ("ベンダーがアーカイブのチェックサム一覧を提供していれば、照合することが推奨されます。", False),
    ],
)
def test_a_name_the_sentence_calls_an_option_answers_an_option_question(text: str, holds: bool) -> None:
    """An option written as a plain name beside the word option (选项, オプション), without a dash or ``=``."""
    assert holds_type(text, AnswerType.OPTION, question="Which mirror file option compares the archive's checksum?") is holds


@pytest.mark.parametrize(
    "text",
    [
        "The Makefile must support the $(STAGEDIR) variable.",
        "Makefile は $(STAGEDIR) 変数をサポートしなければいけません。",
        "Makefile 必须支持 ${STAGEDIR} 变量。",
    ],
)
def test_a_make_or_shell_variable_reference_is_an_option(text: str) -> None:
    assert holds_type(text, AnswerType.OPTION, question="Which variable is put in front of every copy target?")
    assert not holds_type(text, AnswerType.OPTION, question="Is $(STAGEDIR) or ${STAGEDIR} put in front of every copy target?")


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("Kilnwatch provides a kw-idle command to list the kilns without a schedule.", True),
        ("Use the glaze command to coat the pots.", True),
        ("Run the following command to see it.", False),
        ("The first reading logged is the temperature of another kiln.", False),
        ("kilnrotate は温度記録の整理を担当しているプログラムです。", True),
        ("他の船は berth-register スクリプトを使って係留を登録します。", True),
        ("其他船只使用 berth-register 脚本来登记泊位。", True),
        ("Other boats register their mooring with the berth-register script.", True),
        ("温度記録の整理を担当しているプログラムがあります。", False),
        ("fetchr 是一个命令行工具，用于下载归档。", True),
        ("这个工具用于下载归档。", False),
    ],
)
def test_a_sentence_that_calls_a_name_a_command_answers_a_command_question(text: str, holds: bool) -> None:
    assert holds_type(text, AnswerType.COMMAND, question="Which command does it?") is holds


def test_a_code_line_can_answer_a_command_question() -> None:
    assert holds_type("# kilnctl night 3", AnswerType.COMMAND, code=True)
    assert not holds_type("Switch kilns from the command line.", AnswerType.COMMAND)


@pytest.mark.parametrize(
    ("text", "question", "expected"),
    [
        ("-s  Use steam instead of gas.", "Which option makes it use steam?", "-s"),
        ("-s  ガスの代わりに蒸気を使います。", "蒸気を使うオプションは？", "-s"),
        ("-s  使用蒸汽而不是燃气。", "用哪个参数使用蒸汽？", "-s"),
        ("The schedule is stored in \"/etc/kiln/schedule\".", "Which file holds the schedule?", "/etc/kiln/schedule"),
        ("Use -a or -b.", "Which option?", None),
    ],
)
def test_short_answer_is_isolated_only_when_unambiguous(text: str, question: str, expected: str | None) -> None:
    kind = question_type(question)
    assert short_answer(text, kind, question) == expected


LEADS = [
    "You can switch kiln 3 to night mode from the command line.",
    "コマンドラインから窯3を夜間モードに切り替えられます。",
    "也可以从命令行把 3 号窑切换到夜间模式。",
]


@pytest.mark.parametrize("lead", LEADS)
def test_code_block_becomes_units_quoted_after_their_lead_in(lead: str) -> None:
    text = f"Intro.\n\n{lead}\n\n```\n# kilnctl night 3\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    units = split_typed_units(text)
    assert (f"{lead}\n# kilnctl night 3", CODE) in units
    assert (lead, PROSE) in units
    assert ("a: 1 / b: 2", ROW) in units


def test_long_code_block_is_split_into_groups_each_with_the_lead_in() -> None:
    code = "\n".join(f"line {i}" for i in range(14))
    units = [u for u, kind in split_typed_units(f"Run these:\n\n```\n{code}\n```") if kind == CODE]
    assert len(units) == 3 and all(u.startswith("Run these:\nline") for u in units)


@pytest.mark.parametrize(
    "text",
    ["See kilnctl(8) and Section 4.2 for the details.", "詳しくは kilnctl(8) と第 4.2 節を参照。", "详见 kilnctl(8) 和第 4.2 节。"],
)
def test_manual_and_section_references_are_not_values(text: str) -> None:
    assert not holds_type(text, AnswerType.VALUE, question="How long does the kiln stay hot?")
    assert holds_type(text + " 15 min", AnswerType.VALUE, question="How long does the kiln stay hot?")
    assert not holds_type(text + " 15", AnswerType.VALUE, question="How long does the kiln stay hot?")  # a bare number is no duration
    assert holds_type(text + " 15", AnswerType.VALUE, question="What is the default value of cool_timeout?")


@pytest.mark.parametrize("lead", LEADS)
def test_shell_lines_without_a_fence_are_code_after_their_lead_in(lead: str) -> None:
    """PDF and Word keep no code fences; a paragraph of prompt lines is still a command block."""
    units = split_typed_units(f"{lead}\n\n# kilnctl night 3\n$ kilnctl status\n\nNext.")
    assert (f"{lead}\n# kilnctl night 3\n$ kilnctl status", CODE) in units


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
        ("With kilnctl, how do I glaze without firing?",
         "studio syntax: studio glaze / kilnctl syntax: kilnctl glaze-only / description: glaze without firing",
         "level: 3 / name: warm / meaning: ready for loading."),
        ("kilnctl ではどう書きますか？",
         "studio シンタックス: studio glaze / kilnctl シンタックス: kilnctl glaze-only / 説明: 焼成せずに施釉",
         "レベル: 3 / 名前: 予熱 / 意味: 窯入れの準備完了"),
        ("berthctl 要用什么命令删除所有预约？",
         "harbourd 命令: harbourd -Drm booking_id / berthctl 命令: berthctl purge ALL / 说明: 删除所有预约",
         "级别: 3 / 名称: 预热 / 含义: 可以装窑"),
        # under a column that names commands, a quoted command line needs no option ("pixdb-stats slowest")
        ("The gallery is slow: which command lists every album by the time it took to index?",
         'Operation: List of all albums by the time to index / Command snippets: "pixdb-stats slowest"',
         'Operation: List of all albums by the time to index / Note: "takes a while"'),
        ("ギャラリーが遅い。全アルバムの索引作成時間を一覧するコマンドは？",
         '操作: 索引作成にかかった時間を全てのアルバムに関してリストする / コマンド断片: "pixdb-stats slowest"',
         '操作: 索引作成にかかった時間を全てのアルバムに関してリストする / 備考: "takes a while"'),
        ("图库很慢，列出每个相册建索引时间该用哪个命令？",
         '操作: 列出所有相册的索引时间 / 命令片段: "pixdb-stats slowest"',
         '操作: 列出所有相册的索引时间 / 备注: "takes a while"'),
    ],
)
def test_a_table_cell_holding_a_command_line_answers_a_command_question(question: str, row: str, plain_row: str) -> None:
    assert holds_type(row, AnswerType.COMMAND, question=question, row=True)
    assert not holds_type(plain_row, AnswerType.COMMAND, question=question, row=True)
    assert not holds_type("kilnctl syntax: kilnctl glaze-only", AnswerType.COMMAND, question="Is kilnctl glaze-only safe?", row=True)


@pytest.mark.parametrize(
    ("question", "asking_for_the_option"),
    [
        ("If I start the tide gauge without any options, which port does gaugectl listen on?",
         "Which option makes gaugectl listen on another port?"),
        ("潮位計を何もオプションを付けずに起動したら、gaugectl はどのポートで待ち受けますか？",
         "別のポートで待ち受けさせるには、gaugectl にどのオプションを付けますか？"),
        ("启动潮位计时如果什么选项都不加，gaugectl 会监听哪个端口？",
         "要让 gaugectl 监听别的端口，该加什么选项？"),
    ],
)
def test_an_option_the_question_does_without_is_not_what_it_asks(question: str, asking_for_the_option: str) -> None:
    assert question_type(question) is AnswerType.VALUE
    assert question_type(asking_for_the_option) is AnswerType.OPTION


@pytest.mark.xfail(strict=True, reason=(
    "a question for a unit ('which temperature unit', どの単位, 哪种单位) is not read as a value question: the value "
    "words (encoding, port, level, 文字コード, 编码…) name no unit, so once 'without any options' is set aside nothing "
    "says what is asked"))
@pytest.mark.parametrize(
    "question",
    [
        "If I start the kiln without any options, which temperature unit does kilnctl assume for the schedule?",
        "窯を何もオプションを付けずに起動したら、kilnctl はスケジュールの温度をどの単位として扱っていますか？",
        "启动窑炉时如果什么选项都不加，kilnctl 会假定计划里的温度用的是哪种单位？",
    ],
)
def test_a_question_for_a_unit_the_question_does_without_options_asks_for_a_value(question: str) -> None:
    assert question_type(question) is AnswerType.VALUE


@pytest.mark.parametrize(
    ("question", "kind", "answer"),
    [
        # in English a format is a name with no surface form to check (a digit would pick "version 2.100")
        ("In what format is the English source of the Harbour Handbook written?", AnswerType.NONE,
         "The source of the English original handbook is currently written in AsciiDoc files."),
        ("港湾ハンドブックの英語の原文はどの形式で書かれていますか？", AnswerType.VALUE, "現在、英語の原文は AsciiDoc で書かれています。"),
        ("港口手册的英文原稿采用哪种格式编写？", AnswerType.VALUE, "目前，英文原稿使用 AsciiDoc 文件编写。"),
    ],
)
def test_a_question_for_a_format_does_not_ask_for_a_command(question: str, kind: AnswerType, answer: str) -> None:
    assert question_type(question) is kind
    assert holds_type(answer, kind, question=question)


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("Before 2.4.0-3 is released I build a local trial package. Which version should it carry so 2.4.0-3 replaces it?",
         "Give the trial build a version string such as 2.4.0-3~beta2 so the release replaces it cleanly."),
        ("2.4.0-3 をリリースする前の試験用パッケージにはどのバージョン番号の値を付けますか？",
         "リリース版がきれいに置き換えるように、試験ビルドには 2.4.0-3~beta2 のようなバージョン文字列を付けます。"),
        ("正式版 2.4.0-3 之前的试验包，版本号用什么值？", "为了让正式版顺利替换，试验版本使用类似 2.4.0-3~beta2 这样的版本字符串。"),
    ],
)
def test_a_version_with_a_suffix_is_a_new_value_beside_the_version_the_question_names(question: str, text: str) -> None:
    """"2.4.0-3~beta2" is read whole: read as its numbers it is only the question's own 2.4.0-3, and the sentence that
    answers looked like one restating the question."""
    assert holds_type(text, AnswerType.VALUE, question=question)
    assert not holds_type("例如 2.4.0-3。", AnswerType.VALUE, question=question)


@pytest.mark.parametrize(
    ("question", "excluded", "answer"),
    [
        ("My kiln needs a firing at a custom time, not just nightly, fortnightly or seasonally. Which file do I use?",
         "- kiln.fire.fortnightly - Installed as /etc/fire.fortnightly/kiln; run once every two weeks.",
         "- kiln.fire.d - Installed as /etc/fire.d/kiln: for any other time."),
        ("夜ごと・隔週・季節ごとではなく任意の時刻に動く焼成には、fortnightly ではなくどのファイルを使いますか？",
         "- kiln.fire.fortnightly - /etc/fire.fortnightly/kiln としてインストール: 2週間に1度実行。",
         "- kiln.fire.d - /etc/fire.d/kiln としてインストール: どの時間でも指定可能。"),
        ("我想在自定义时间安排烧制，而不是 fortnightly，应该用哪个文件？",
         "- kiln.fire.fortnightly - 安装至 /etc/fire.fortnightly/kiln；每两周运行一次。",
         "- kiln.fire.d - 安装至 /etc/fire.d/kiln：对于其他的任何时间。"),
    ],
)
def test_a_path_naming_an_alternative_the_question_rules_out_is_not_an_answer(question: str, excluded: str, answer: str) -> None:
    assert question_type(question) is AnswerType.PATH
    assert not holds_type(excluded, AnswerType.PATH, question=question)
    assert holds_type(answer, AnswerType.PATH, question=question)


@pytest.mark.xfail(strict=True, reason=(
    "an alternative the question rules out in another form ('not just mornings, evenings, weekends or holidays') is "
    "not matched to the path naming it in the singular (kiln.fire.weekend): ruled-out words are compared as written"))
def test_a_path_naming_a_ruled_out_alternative_in_another_form_is_not_an_answer() -> None:
    question = "My kiln needs a firing at a custom time, not just mornings, evenings, weekends or holidays. Which file do I use?"
    assert question_type(question) is AnswerType.PATH
    assert not holds_type("- kiln.fire.weekend - Installed as /etc/fire.weekend/kiln; run once a weekend.", AnswerType.PATH, question=question)
