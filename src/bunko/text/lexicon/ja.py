"""Japanese: the words and phrase patterns bunko recognises in Japanese text, and nothing else.

One lexicon per language (issue 45; bm25s's ``stopwords.py`` is the model): the file name is the rule, a
module reads a language's words from here by language key (`bunko.text.lexicon.for_language`) or by module
(``from bunko.text.lexicon import en, ja, zh``). ``en.py`` and ``zh.py`` hold the same kinds of lists under the
same names where a rule has words in more than one language.

What lives here: what bunko *recognises* in this language — question words, follow-up markers, greetings, the
phrases of a table question, units, particles. A pattern is kept as regex source (a ``str``, one alternation of
this language's words) and compiled by the module that uses it, which joins the languages' parts in the order it
always had. What bunko *says* in Japanese (the abstain message, notices, table-answer wording, masks) is at the
end, under the same names in every language, and read by the answer's language (`bunko.text.lexicon.speaking`).

Each constant's docstring says the rule it serves, never an evaluation question.
"""

from __future__ import annotations

# --- Keyword search (text/analyzers.py) ---

QUESTION_FORMS = (
    "について教えてください", "を教えてください", "教えてください", "について知りたい", "を知りたい", "知りたい", "について",
    "に関する説明はどこにありますか", "はどこにありますか", "どこにありますか", "はどうすればよいですか", "どうすればよいですか",
    "どうすればいいですか", "どうすれば", "とは何ですか", "は何ですか", "何ですか", "でしょうか", "ですか", "ますか", "ください",
    "どのように", "どうやって", "なぜ",
)
"""Asking, not content: the phrasing a keyword query drops (text/analyzers.py QUESTION_FORMS says why)."""

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

# --- Numbers (text/numbers.py): amounts, currencies and dates as Japanese writes them ---

CURRENCY_WORDS = {"円": "JPY", "ドル": "USD", "ユーロ": "EUR", "ポンド": "GBP"}
"""A currency named after an amount ("1,200円")."""
CURRENCY_AFTER_NUMBER = r"円|ドル|ユーロ|ポンド"
"""The same words, as matched after an amount."""
PERCENT_WORDS = ("パーセント",)
"""A percent written out."""

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

# --- Injection (text/injection.py): text that talks to a model instead of a reader ---

ASSISTANT_LABEL = r"(?:AI)?アシスタント"
"""An assistant's name at the start of a chat turn."""
USER_LABEL = r"ユーザー?|質問者"
"""A user's name at the start of a chat turn (「ユーザー: root」 alone asks nothing)."""
SYSTEM_LABEL = r"システム"
"""A system role's name at the start of a line."""
SYSTEM_MESSAGE = r"メッセージ"
"""What may follow the system role's name (システムメッセージ:)."""
REPLY_OPENER = r"はい、|もちろん|承知しました|かしこまりました|了解しました|答えは|正解は"
"""What an assistant's turn says (「はい、…」)."""
COPULAS = r"です|ます"
"""A whole sentence with a copula is an assistant's turn too (「深夜2時までです。」)."""
SYSTEM_ORDER = (
    r"[^\n]{0,60}?(?:答え|回答し|返答し|出力し|従っ)(?:て(?:ください|下さい)|なさい|ること|ろ)|[^\n]{0,60}?(?:回答|返答|出力)せよ"
)
"""What follows "System:" when it gives an order in Japanese."""
SAY_ONLY = r"と(?:だけ)?(?:答え|回答|返答|出力|言|書)"
"""A demand to reply with a canary word ("PWNED と答え")."""
REPLY_WORDS = r"回答|返答|応答|答え|出力|だけ|のみ"
"""Words before a canary word in a demand to reply with it (「出力は PWNED のみ」)."""
INJECTION_RULES = (
    r"(?:以前|これまで|今まで|それまで|前|上記|以上|先|既存)の(?:すべての|全ての)?(?:指示|命令|プロンプト|ルール|設定|制約)を(?:すべて|全て)?(?:無視|忘れ|破棄)",
    r"(?:指示|命令|プロンプト|ルール|制約)(?:は|を)(?:すべて|全て)(?:無視|忘れ)",
    r"システムプロンプト",
    r"(?:新しい|最新の|本当の)(?:指示|命令)\s*[:：]",
    r"あなたは今から",
    r"(?:AI|ＡＩ|言語モデル|チャットボット)\s*(?:アシスタント|エージェント|モデル)?(?:へ|宛て)(?:[:：、。,！!\s」]|$|の(?:指示|注意|メモ|メッセージ|お願い|連絡)(?![をがはにでもの]))",
    r"(?:この|本)(?:文書|文章|資料|ページ|ファイル)を(?:読んで|読む|読み込む|処理する|処理して|要約する|要約して)(?:いる)?(?:AI|ＡＩ|アシスタント|言語モデル|あなた)",
    r"あなたが(?:AI|ＡＩ|言語モデル|アシスタント|チャットボット)(?:なら|であれば|の場合)",
    r"(?:AI|ＡＩ|アシスタント|言語モデル)\s*(?:アシスタント|エージェント)?(?:は|として).{0,20}(?:必ず|常に).{0,30}(?:答え|回答|出力|返答)(?:する|して)?(?:なさい|ること|こと|てください|ください|よ)",
    r"(?:管理者|システム管理者|開発者|運営者|所有者)(?:として|の権限(?:で|により)).{0,30}(?:許可|命令|指示|認め|授権)",
    r"(?:生成AI|AI|言語モデル|LLM|チャットボット)\s*(?:アシスタント|エージェント|モデル)?(?:(?:の(?:皆さん|皆様|方)|さん)|は|へ|よ|に告ぐ)[、,:]?"
    r"\s*[^。！？!?\n]{0,30}?(?:(?:答え|回答し|返答し|出力し|従っ|述べ|言っ|書い|伝え)(?:て(?:ください|下さい)|なさい|ること(?![がはもにでを])|ろ)"
    r"|(?:回答|返答|出力)せよ|に従え)",
    r"(?:生成AI|AI|言語モデル|LLM|チャットボット)\s*(?:アシスタント|エージェント|モデル)?(?:へ|に)の(?:指示|命令)\s*[:：]",
    r"(?:すべての|全ての|あらゆる)質問に.{0,20}(?:と|で)(?:だけ)?(?:答え|回答|返答)(?!た)",
)
"""Japanese instructions to a model, direct and evasive."""

# --- Units (text/units.py) ---

ADMONITION_LABELS = ("注意", "警告", "注記", "注", "ヒント", "重要", "危険", "備考", "参考", "例", "メモ", "補足", "参照")
"""The titles manuals put over a note or a warning: alone, a unit that says nothing."""

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

# --- Entities (text/entities.py): which of Sudachi's morphemes are names ---

SUDACHI_NOUNS = frozenset({"名詞"})
"""Sudachi's part of speech of a noun: a run of them is a Japanese entity."""
SUDACHI_SKIP_SUBTYPES = frozenset({"数詞", "代名詞", "助数詞"})
"""Nouns that name nothing (numerals, pronouns, counters): not part of an entity."""

# --- Retrieval (retrieve/key_terms.py, retrieve/table_plan.py, rerank/unit_features.py) ---

SMALL_KANA = frozenset("ァィゥェォッャュョヮヵヶー")
"""Katakana that cannot start a word (small letters, the long-vowel mark): a compound's head word never starts with
one (retrieve/key_terms.py `writes_word`)."""

EXAMPLE = r"(?:例えば|たとえば|例:|例：)[^、。？?)）]*|[^、，。？?\s(（]*\s?など"
"""An example the question gives (例えば日本語, "dch などのツール"): its names illustrate, they are not what is asked."""
EXAMPLE_LIKE = r"[^、，。？?\s(（]*\s?(?:のような|みたいな)"
"""An example given by likeness (Mozc のような)."""
ADMINISTRATIVE_SUFFIXES = "都道府県市"
"""Place names are asked without the suffix a table writes them with (大阪 for 大阪府)."""
COLUMN_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("人口", "住民"),
    ("面積",),
    ("売上", "売上高", "売り上げ", "販売額"),
    ("価格", "値段", "料金", "単価"),
    ("上限", "限度額", "限度"),
    ("宿泊", "宿泊費", "ホテル"),
    ("日当", "食事"),
    ("地域", "地方", "エリア"),
    ("都道府県", "県"),
    ("都市", "市"),
    ("製品", "商品", "品目"),
    ("数量", "個数", "件数"),
    ("従業員", "従業員数", "社員", "社員数"),
    ("伸び率", "成長率"),
    ("店舗", "支店", "店"),
    ("県庁所在地", "首都"),
    ("在庫",),
    ("名前", "名称", "氏名"),
    ("国",),
    ("年", "年度"),
    ("月",),
    ("パッケージ",),
    ("サイズ", "容量", "大きさ", "大きい", "小さい", "ディスク"),
    ("速度", "スピード"),
    ("率", "割合", "比率"),
    ("密度", "人口密度"),
    ("予算",),
    ("値", "数値"),
)
"""Words that name the same table column, group by group as en.COLUMN_SYNONYMS."""
HEADING_FILLER = ("リスト", "一覧")
"""Words of a table's caption that say it is a table (…のリスト), not what it holds."""
HEADING_NUMBER_LABEL = r"表|図|第"
"""The word before a heading's number (表6.1, 第6章)."""
HEADING_NUMBER_COUNTER = r"章|節"
"""The word after a heading's number (第6章)."""
COUNT_COLUMN = r"^(.+?)(?:の数|件数|個数|数)$"
"""A column that counts something (ダウンロード数): the group holds the thing counted."""
COLUMN_NAME_STOPWORDS = ("の",)
"""Words of a column name that do not name it (従業員の数)."""
LEAD_IN = r"次のとおり|以下のとおり|下記"
"""A unit that announces what follows ("…は次のとおりです。") points at the answer without being it."""

# --- Drafting evaluation questions (evaluate/drafts.py): which sentences state a fact a question can ask about ---

QUANTITY_UNITS = ("営業日", "日間", "週間", "時間", "か月", "ヶ月", "カ月", "万円", "円", "日", "分", "年", "名", "人", "回", "件", "泊", "歳", "%", "％")
"""Units a stated fact's number comes with (5営業日), longest first where one starts another."""
ADDRESS_MARKERS = r"〒|丁目|番地|号室|住所|電話|TEL|FAX|Tel|Fax|\d{3}-\d{4}|@|https?://"
"""Addresses and contact lines: their numbers are postcodes and house numbers, not facts a question can ask about."""
PREDICATE_ENDING = r"(?:です|ます|ません|である|だ|た|ない|こと|[うくすつぬむぶぐる])[。．.]?$"
"""A sentence that ends in a predicate states something."""
PARTICLES = r"[はがをにでもと]"
"""Case and topic particles: a sentence with none is a heading or a list of names."""

# --- Tables (index/table_data.py): total rows ---

TOTAL_ROW = r"合計|総計|小計|合計値|全体|全国"
"""A row label that makes the row a total, not one more row to sum."""

# --- Document structure (parse/, chunk/qa_pairs.py): headings, captions, page numbers as documents write them ---

HEADING_STYLE = r"見出し"
"""A Word paragraph style that makes a heading (見出し 2)."""
FIGURE_AND_TABLE = "図表"
"""A caption for a figure or a table: it counts as a figure's."""
CAPTION_WORDS = r"図表?|表"
"""What a caption opens with, before its number."""
DEFAULT_PICTURE_NAMES = r"図|画像"
"""The names PowerPoint gives a picture by default (図 3): not a description."""
QUESTION_LABEL = "問"
"""A FAQ question's label (問1：, 【問】)."""
QUESTION_WORD_LABEL = r"質問\s*[:：]"
"""A FAQ question's label written out (質問：)."""

OVERVIEW = r"何について|どんな(?:内容|こと)|概要|要約|要点|まとめ(?!て)|主な(?:テーマ|話題|内容|トピック)"
"""An overview asked for: what a section or the documents are about, a summary, the main topics. Such a question is
answered by what its subject says most centrally, not by the one sentence closest to its words."""

# --- What bunko says (generate/, parse/figures.py, llm/vision.py): messages read by language key ---
ABSTAIN_MESSAGE = "資料内では確認できません。"
"""The answer when the documents do not hold one (generate/language.py); also what a model is told to reply then."""
CROSS_LANGUAGE_NOTE = "（この回答は{langs}の資料に基づいています。）"
"""Said under an answer whose evidence is in another language; {langs} are `LANGUAGE_NAMES` of the evidence."""
LANGUAGE_NAMES = {"ja": "日本語", "zh": "中国語", "en": "英語"}
"""The languages bunko answers in, named in this language (language code → name)."""
NAME_JOINER = "、"
"""Between two `LANGUAGE_NAMES` in a sentence."""
UNVERIFIED_NOTICE = "※［未確認］の付いた文は、引用した資料で裏付けられていないか、出典がありません。利用する前に資料で確認してください。"
"""Said under an answer that shows a sentence the citation check did not support (the standard policy)."""
UNVERIFIED_MARK = "［未確認］"
"""What follows a sentence the citation check did not support, wherever it is shown (generate/citation_marks.py)."""
SOURCES_HEADING = "出典"
"""Heading of the numbered source list under an answer (generate/citation_marks.py)."""
GREETING_REPLY = "こんにちは。資料について質問してください。出典を付けてお答えします。"
"""The reply to a greeting or thanks, which needs no documents (generate/language.py)."""
CALCULATED_REPLY = "{value}（計算した結果です。資料からの回答ではありません）"
"""The reply to bare arithmetic: {value}, calculated, and said not to come from the documents."""
NO_CONVERSATION = "これまでの会話はありません。資料について質問してください。"
"""The reply to a question about the conversation when there is none yet (generate/recall.py)."""
RECALLED = {
    "asked": "直前のご質問は「{text}」でした。",
    "first": "最初のご質問は「{text}」でした。",
    "all": "これまでのご質問:",
    "answered": "直前の回答は次のとおりです。",
    "no_answer": "まだ回答していません。",
    "summary": "これまでの会話:",
    "question": "質問",
    "answer": "回答",
    "note": "（会話の記録からの引用です。資料からの回答ではありません）",
}
"""The phrases of a reply about the conversation itself (generate/recall.py): what was asked first or last, the
previous answer, the turns so far; {text} is what is recalled."""
MASKS = {"email": "［メールアドレス］", "phone": "［電話番号］", "card": "［カード番号］", "id": "［個人番号］"}
"""What replaces personal data in an answer, by the kind of data found (generate/guardrails.py)."""
NOT_ADVICE = "※この回答は資料に基づく参考情報であり、法律・税務・医療などの専門的な助言ではありません。"
"""Said under a regulated answer: information from the documents, not professional advice (generate/guardrails.py)."""
NEEDS_REVIEW = "※確信度が低いため、担当者による確認が必要です。"
"""Said under a regulated answer of low confidence: a person should review it."""
SOURCE_UPDATED = "出典の更新日"
"""The label of a regulated answer's source dates."""
NAME_IN_ENGLISH = "Japanese"
"""This language, named in English for a vision model asked to describe a figure in it (llm/vision.py)."""
NAME_FOR_A_MODEL = "Japanese (日本語)"
"""This language as a chat model's rules name it for the answer (generate/prompts.py)."""
OCR_MODELS: tuple[str, ...] = ("jpn", "eng")
"""Tesseract models for the figures of a document in this language: every model costs about a second more per
figure, so a figure is read with its document's script and English, not all four (bench/results/figures.md)."""
ROW_SEPARATORS = ("：", "、")
"""How a table-row unit is punctuated for an answer in this language: (after a header, between cells)
(text/units.py `readable_row`)."""

# --- What bunko says: a computed table answer (generate/table_answer.py) ---
TABLE_OPERATIONS = {
    "sum": "{m}の合計",
    "avg": "{m}の平均",
    "max": "{m}が最も大きい行",
    "min": "{m}が最も小さい行",
    "top": "{m}の上位{n}件",
    "bottom": "{m}の下位{n}件",
    "growth": "{b}から{m}への変化が最も大きい行",
    "difference": "{m}の差（{a} − {c}）",
    "count": "該当する行の数",
    "list": "該当する行",
}
"""An aggregate in words, by operation (text/table_questions.py's names): {m} the measured column, {b} the base
column of a change, {n} a count of rows, {a} and {c} the two values of a difference."""
TABLE_DECLINE = "{b}から{m}への減少が最も大きい行"
"""A change asked for as a fall: the row whose {m} fell most from {b}."""
TABLE_LOWEST_CHANGE = "{b}から{m}への変化が最も小さい行"
"""A change asked for at its smallest."""
TABLE_LATEST = "{m}が最も新しい行"
"""A ranking by time, the latest row ({m}: the column that says when)."""
TABLE_EARLIEST = "{m}が最も古い行"
"""A ranking by time, the earliest row."""
TABLE_CANNOT_RANK = "「{t}」には「{a}」で順位を決められる列がないため、その行からは答えられません。"
"""After the abstention, when the table a ranking question names has no column to rank by ({a}: the ranking words)."""
TABLE_GROUPED = "（{g}別）"
"""After the operation: the column {g} it is grouped by."""
TABLE_IN = "（{t}）"
"""After the operation: the sheet or table {t} it read."""
TABLE_FROM = "（{t}）"
"""The table a looked-up cell was read from: several tables of a manual share their columns, so the answer says which."""
TABLE_WHERE = "、条件: {c}"
"""After the operation: the conditions {c} on the rows."""
TABLE_AND = "、"
"""Between two conditions, or two cells a lookup read."""
TABLE_CONTAINS = "{col}に「{v}」を含む"
"""A condition that column {col} holds the text {v}."""
TABLE_ROWS = "{n}行"
"""How many rows {n} a sum, average or count read."""
TABLE_LOOKUP = "{row}の{col}：{v}"
"""One cell a lookup read: column {col} of row {row} is {v}."""
TABLE_MODEL_QUERY = "{t}からモデルが書いたクエリで計算"
"""An answer computed by a query a chat model wrote over table {t}."""
COLON = "："
"""Between a label and what it labels: a table answer's operation and value, the source dates' label, a recalled
turn's Q and A."""
TABLE_END = "。"
"""What ends the sentence of a table answer."""
CURRENCY_AMOUNTS = {"JPY": "{}円", "CNY": "{}元", "USD": "{}ドル", "EUR": "{}ユーロ", "GBP": "{}ポンド"}
"""An amount {} in a currency a table column holds (ISO code → how this language writes it)."""
