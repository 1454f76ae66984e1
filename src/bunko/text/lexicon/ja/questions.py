"""Japanese, what a question asks: question words, the phrases of a table question, the kind of answer or quantity
wanted, follow-up markers, the comparisons and totals an answer computes, and which retriever a question needs."""

from __future__ import annotations

# --- Questions (text/questions.py) ---

ASKING = r"(?:たい|か|ください|下さい|教えて|ます|です|でしょう|だろう)\s*$|何|どう|どこ|いつ|誰|なぜ|(?<!な)どの|どれ|いくら"
"""A Japanese ending that asks or wants (〜たい, 〜ですか) or an interrogative: a question, not a topic name."""

PART_JOINERS = r"及び|および"
"""Where a question that asks about several things is cut into its parts."""

GREETING = r"こんにちは|こんばんは|おはよう(?:ございます)?|ありがとう(?:ございます)?|よろしく(?:お願いします)?|さようなら"
"""A message that is only a greeting or thanks gets a greeting back, not a search."""

ARITHMETIC_LEAD = r"計算して"
"""What may open a bare arithmetic question, which is calculated, not searched."""

ARITHMETIC_TAIL = r"は|は\?"
"""What may close a bare arithmetic question."""

RECALL_SUMMARY = (
    r"(?:これまで|今まで|ここまで|さっきまで|この|私たちの|我々の)の?(?:会話|やり取り|やりとり|話|チャット|質疑)(?:の内容)?を?(?:要約|まとめ|振り返)"
    r"|(?:これまで|今まで|ここまで)(?:に|で)?(?:何を|なにを|どんなことを)(?:話|聞い|質問し)"
)
"""A request to sum up the conversation itself, answered from the turns, not the documents."""

RECALL_ANSWERED = (
    r"(?:さっき|先ほど|先程|直前|ひとつ前|一つ前|前回)の(?:回答|答え|返答|返事)"
    r"|(?:あなた|きみ|君)の(?:前の|最初の|最後の|直前の|さっきの|先ほどの)(?:回答|答え|返答)"
    r"|(?:あなた|きみ|君)は(?:さっき|先ほど|先程|前に|最初に)?(?:何と|なんと|何を)(?:言|答え|回答)"
)
"""A request to repeat bunko's earlier answer."""

RECALL_ASKED = (
    r"(?:さっき|先ほど|先程|最初に|前に|直前に|これまでに|今まで)(?:私は|わたしは)?(?:何を|なにを|何と|なんと)(?:聞|質問|尋ね|訊|言)"
    r"|(?:さっき|先ほど|先程|直前|ひとつ前|一つ前|最初|前回)の(?:質問|問い)(?:は|を|って|が)"
    r"|(?:私|わたし)の(?:前の|最初の|最後の|直前の|さっきの|先ほどの)(?:質問|問い)"
)
"""A request to recall the user's own earlier questions."""

RECALL_FIRST = r"最初"
"""A recall request about the first turn rather than the last."""


# --- Table questions (text/table_questions.py): what a question asks of a table ---
# Patterns with "{n}" are templates: the module fills in its number pattern (digits or Han numerals).

TOP_RANK = r"上位\s*{n}|トップ\s*{n}|多い順に\s*{n}|高い順に\s*{n}|大きい順に\s*{n}"
"""The first n rows by a measure."""
BOTTOM_RANK = r"下位\s*{n}|少ない順に\s*{n}|低い順に\s*{n}|小さい順に\s*{n}"
"""The last n rows by a measure."""
GROWTH = r"増加|伸び|増え|上昇"
"""A change between two columns, read as growth."""
DECLINE = r"減少|減っ|下落|低下"
"""A change between two columns, read as a fall."""
DIFFERENCE = r"の差|差は|差額"
"""The difference of a measure between two rows."""
COUNT = r"いくつ|何件|何か所|何カ所|何ヶ所|何個|何社|何つ|何品目|何(?:都道府県|地域|県|支店|製品|商品|人)|件数"
"""A count of rows."""
SUM = r"合計|合算|総額|総計|合わせ(?:て|る|た)|足(?:すと|したら|す)|総数"
"""A sum over rows."""
AVERAGE = r"平均"
"""An average (the same word in Chinese)."""
HIGHEST = r"(?:最も|一番)[^。？?]{0,10}?(?:高|多|大き|長)|最(?:大|高|多|長|长)|(?:高|多|大)い(?:のは|方)"
"""The row with the highest value (最大, 最高, 最多 are Chinese too; 最长 is its Chinese spelling)."""
LOWEST = r"(?:最も|一番)[^。？?]{0,10}?(?:低|少な|小さ|安|短)|最(?:小|低|少|短|便宜)|(?:低|少な|小さ|安)い(?:のは|方)"
"""The row with the lowest value (最小, 最低, 最少 are Chinese too; 最便宜 is Chinese)."""
LATEST = r"最新|(?:最も|一番|いちばん)新し"
"""A ranking by time, the latest row first (最新 is Chinese too)."""
EARLIEST = r"最古|(?:最も|一番|いちばん)(?:古く?|早く|初めに)"
"""A ranking by time, the earliest row first."""
_CAME = r"(?:リリース|公開|登場|発売|発表|出|作られ|書かれ|更新)"
FIRST = rf"(?:最初|一番先)に{_CAME}"
"""An ordinal that ranks rows by time, earliest first: beside a verb of coming about (最初に出た, 最初にリリース), only
in a question asking for a row. 最初に挙げられて, 最初のスライド rank nothing."""
LAST = rf"最後に{_CAME}"
"""The ordinal for the latest, read as `FIRST` is."""
TIME_COLUMNS = ("日付", "年度", "西暦", "リリース", "リリース日", "公開日", "発売日", "更新日", "バージョン", "登場")
"""Column names that hold when a row happened, as en.TIME_COLUMNS (not 年 alone: 年収, 年齢 are not when)."""
GROUPED_BY = r"([^\s、。？?]{1,8}?)(?:ごと|別)(?:の|に)?"
"""An aggregate per group (地域別, 支店ごとの); the group's words are captured."""
WHICH_ROWS = r"どの|どれ|どこ|一覧|挙げ"
"""A question that asks for the rows themselves."""
CONTAINS = r"を含む|が含まれ"
"""A condition that a cell contains a quoted text."""
COMPARISONS_AFTER_NUMBER: tuple[tuple[str, str], ...] = (
    ("以上", ">="),
    ("以下", "<="),
    ("超|を超え|を上回|より(?:多|大き|高|長)|を超过", ">"),
    ("未満|を下回|に満たない|より(?:少な|小さ|低|短)", "<"),
    ("以降", ">="),
    ("以前", "<="),
)
"""The comparison a number's condition takes from the words after it (以上 and 以下 read the same in Chinese)."""


# --- Answer types (text/answer_types.py): the kind of answer a question wants, and what a text names ---

ANSWER_TYPE_QUESTIONS = {
    "which_document": r"どの(?:章|節|文書|資料|ページ)|第?何章",
    "package": r"どの(?:\w{0,4})?パッケージ|何という(?:\w{0,4})?パッケージ|パッケージ(?:は|名は)(?:何|どれ)|パッケージ名|パッケージ(?:は|名は)?(?:ですか)?[？?]\s*$",
    "path": r"どの(?:\w{0,6})?(?:ファイル|ディレクトリ|フォルダ|パス)|何という(?:ファイル|ディレクトリ)|(?:ファイル|ディレクトリ|パス)(?:は|名は)(?:どこ|何|どれ)|(?:ファイル|ディレクトリ|パス)(?:は|名は)?[？?]\s*$|どこに(?:保存|置|記録|格納)",
    "option": r"オプション|パラメ[ーー]?タ[ーー]?|引数|設定項目|ディレクティブ|変数|何を(?:渡|指定|付け|設定)",
    "command": r"コマンド|ツール|プログラム|どう(?:書|打|入力|実行|すれば|やって)|どのように|方法|何を使(?:う|え|い|っ)",
    "value": r"いくつ|何(?:日|回|人|件|年|月|時間|分|秒|個|%|％|バイト|番)|どのくらい|どれくらい|値|ポート|アドレス|グループ|エンコーディング|文字コード|何％|(?:どの|何の?)(?:形式|フォーマット)",
    "reason": r"なぜ|どうして|理由",
    "definition": r"とは|何(?:を|の)意味|意味|何ですか",
    "list": r"どんな.*(?:が|を)ありますか|一覧",
    "yes_no": r"ありますか|できますか|でしょうか",
}
"""The questions that want each kind of answer, by answer type (the AnswerType values of text/answer_types.py)."""
NOT_ASKED = r"(?:何も)?(?:オプション|引数)(?:を|は)?(?:何も)?(?:付けず|つけず|指定せず|与えず|なし|無し)"
"""A setting the question says it does not use (オプションを付けずに) is the situation, not what is asked."""
QUANTITY_QUESTION = r"いくら|何[日回人件年時分秒週月個本枚通文字円%％度台名ヶか点]|何[\u30a0-\u30ff]|どのくらい|どれくらい|何時|いつ"
"""How many, how long, how much: the answer is a number (何 before a katakana unit too: 何キロ)."""
PROGRAM_WORDS = r"コマンド|ツール|プログラム|スクリプト"
"""What a Japanese sentence calls a program beside its Latin name ("コマンド chvt", "update-inetd スクリプト")."""
DEFINES_AS = r"は|とは"
"""The particle of a sentence that says what a name is ("logrotate は…プログラム")."""
PROGRAM_NOUNS = r"プログラム|コマンド|ツール"
"""What such a defining sentence calls the name."""
SETTING_WORDS = r"変数|ディレクティブ|パラメータ|オプション"
"""What a Japanese sentence calls a setting after its name ("QUOTAUSER 変数")."""
COMMAND_HEADER = r"コマンド"
"""A column header naming commands: its cells are command lines."""
EXCLUDED = r"([\w.~/-]+)\s*(?:ではなく|じゃなく|以外の)"
"""Words a question excludes from its answer; the excluded word is captured."""


# --- Dimensions (text/dimensions.py): which kind of quantity a question asks for, and whether a text states one ---

SHORTCUT_NAMES = r"ショートカット|キーバインド"
"""The names of a key combination: a question naming one asks for a value."""
DURATION_UNITS = r"秒|分|時間|日|週|か月|ヶ月|カ月|年"
"""The units of a duration after a number (3日, 二十日)."""
DIMENSION_QUESTIONS = {
    "percent": r"何\s*[%％]|何パーセント",
    "month": r"何月",
    "time_of_day": r"何時(?!間)",
    "size": r"何(?:バイト|KB|MB|GB|TB)|どれ(?:くらい|ぐらい)の(?:大きさ|容量|サイズ)|どのくらいの(?:大きさ|容量|サイズ)"
            r"|(?:大きさ|容量|サイズ)[はが](?:どれ|どの)(?:くらい|ぐらい)",
    "duration": r"何(?:秒|分|時間|日|週間?|か月|ヶ月|カ月|年)|どれ(?:くらい|ぐらい)の(?:時間|期間|間隔)|どのくらいの(?:時間|期間|間隔)"
                r"|(?:時間|期間|間隔)[はが](?:どれ|どの)(?:くらい|ぐらい)",
    "key_combination": rf"{SHORTCUT_NAMES}|キー(?:の)?組み合わせ|どのキー|何キー",
}
"""An interrogative that names the dimension (何分, 何月)."""
DIMENSION_STATEMENTS = {
    "percent": r"\d\s*パーセント",
    "month": r"\d{1,2}\s*月|[一二三四五六七八九十]+月",
    "time_of_day": r"\d{1,2}\s*時(?!間)|(?:午前|午後)\s*\d|真夜中|正午",
    "size": r"\d\s*(?:バイト|ブロック|セクタ)",
    "duration": r"毎(?:秒|分|時|日|週|月|年)",
    "key_combination": r"\b(?:ctrl|alt|shift|super|enter|esc|tab|space|f\d{1,2})\s*キー|(?:全角|半角|変換|無変換)(?:/\S+)?\s*キー",
}
"""A text that states a quantity of the dimension (3月 and 十二月 are Chinese too)."""


# --- Conversation (generate/conversation.py): is a question a follow-up, and what does it refer to ---

FOLLOW_UP_LEAD = r"^\s*(それでは|それなら|では|じゃあ|じゃ|なら|だったら|ちなみに|あと|また)[、,，\s]*"
"""A question opening with a connective continues the previous one."""
ANAPHORA = r"(それ|これ|あれ|その|この|あの|そこ|ここ|そちら|こちら)(?!ぞれ|他|ほか|まま|まで|から|以外|ため|後|うち|よう|通り|とおり)"
"""A demonstrative points back at the previous question's subject (not それぞれ, その他, このまま)."""
CASE_FOLLOW_UP = r"場合(は|って|だと|には|でも|も)?\s*(どう[^、。，,]*)?[？?。]?\s*$"
""""…の場合は？": a case of the previous question."""
SAME_AS = r"(も|は)同じ"
""""…も同じ？": the previous answer, asked of something else."""
BARE_TOPIC = r"^[^、。，,？?]{1,8}?(は|って|も|のほう|の方)[？?]\s*$"
""""通信費手当は？": a noun and a topic particle, the rest of the question left to the previous one."""
CONDITION_FOLLOW_UP = r"^[^、。，,？?]{0,8}?(たら|なら|だと|過ぎると|超えると)[、,]?"
"""A short condition ("超えたら？") continues the previous question."""
QUESTION_WORDS = r"何|いくら|いつ|どこ|誰|どれ|どの|どう"
"""A phrase holding a question word is what was asked, not the topic carried into a follow-up."""
TOPIC_PARTICLE = r"(?<![でにとてが])(は|って|とは)"
"""What marks the topic of a Japanese question."""
NOUN_CHAIN_GLUE = frozenset({"", "の", "と", "・"})
"""What may stand between two phrases of one topic (A の B, A と B, A・B)."""
SUBSTITUTE = r"(それ|これ|あれ)(?:の)?|(その|この|あの)(?!他|ほか|まま|まで|ため|後|うち|よう|通り|とおり)"
"""The demonstrative a rewrite replaces with its referent."""
ELLIPSIS_ITEM = r"^(.+?)(の場合|のほう|の方)?(は|って|も|だと|では|には)?\s*(どう(です|なります)?か?|いくらですか|ですか)?[？?。]?\s*$"
"""An elliptical follow-up ("ロンドンの場合は？"); the new item is captured."""
ADDITIVE = r"(?<=[^\s、。，,？?])も(?=[？?、,\s]|でき|あり|可能|いい|よい|要り|必要|使え|含め|同じ)"
"""The particle も adding to the previous question ("ログも消せますか？"): the previous subject stays, with the new words."""


# --- Generation (generate/analysis.py, generate/guardrails.py, generate/language.py) ---

COMPARISON = r"違い|比較|どちらが|どっちが|異なる"
"""A question that compares two things: each is retrieved for on its own."""
AGGREGATION = r"いくつ|何個|何件|何人|合計|平均|総数"
"""A question that counts or sums over many passages."""
DATE_FIELD_NAMES = ("更新日", "改訂日", "施行日")
"""Metadata fields that give when a source was last changed, after the English ones."""
ABSTENTION_PHRASES = ("資料内では確認できません",)
"""A sentence saying the documents do not say: a model's abstention, never evidence."""


# --- Routing (retrieve/router.py): which retriever a question needs ---

RELATIONAL = r"その|この|同じ|どちら|両方|二つ|挙げられ|紹介され|として使|が使う|を提供"
"""Words that point from one fact to another: a question that needs two facts refers back to the first."""
TITLE_PARTICLE = "の"
"""Between a quoted title and the word for section (「…」の節)."""
SECTION_WORDS = r"節|章|項|説明"
"""What a quoted title is called when a question names a section by it."""
MAN_PAGE = r"マニュアル(?:ページ)?|ページ"
"""What may follow "man" before a manual-page section number."""
POSSESSIVE = r"の"
"""A possessive after a manual-page reference."""
GLOBAL = r"(?:資料|文書|ドキュメント|文献|マニュアル|書籍|本)全体|全体(?:として|的に|像)|概要|主な(?:テーマ|話題|内容|トピック)|(?<!ひと)まとめ(?!て)|要約"
"""Questions about the collection as a whole (概要); 全体 only of the documents: "システム全体の設定ファイル" is the
system-wide file, "まとめて" is "together"."""
COLLECTION_WORDS = frozenset((
    "テーマ", "話題", "トピック", "内容", "概要", "要約", "要点", "まとめ", "全体", "資料", "文書", "ドキュメント", "文献", "マニュアル",
    "書籍", "本", "ファイル",
))
"""Entity keys by which a question about the whole collection names the collection or its topics (これらの文書の主な
テーマ), not a topic: they choose no community."""
