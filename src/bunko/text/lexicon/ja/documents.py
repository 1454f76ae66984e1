"""Japanese, what a document's text holds: stop words, numbers and units as the language writes them, instructions
addressed to a model, entity words, the terms retrieval weighs, facts a question can ask about, table totals and
headers, and the headings, captions and page numbers of a document's structure."""

from __future__ import annotations

# --- Keyword search (text/analyzers.py) ---

QUESTION_FORMS = (
    "について教えてください", "を教えてください", "教えてください", "について知りたい", "を知りたい", "知りたい", "について",
    "に関する説明はどこにありますか", "はどこにありますか", "どこにありますか", "はどうすればよいですか", "どうすればよいですか",
    "どうすればいいですか", "どうすれば", "とは何ですか", "は何ですか", "何ですか", "でしょうか", "ですか", "ますか", "ください",
    "どのように", "どうやって", "なぜ",
)
"""Asking, not content: the phrasing a keyword query drops (text/analyzers.py QUESTION_FORMS says why)."""


# --- Numbers (text/numbers.py): amounts, currencies and dates as Japanese writes them ---

CURRENCY_WORDS = {"円": "JPY", "ドル": "USD", "ユーロ": "EUR", "ポンド": "GBP"}
"""A currency named after an amount ("1,200円")."""
CURRENCY_AFTER_NUMBER = r"円|ドル|ユーロ|ポンド"
"""The same words, as matched after an amount."""
PERCENT_WORDS = ("パーセント",)
"""A percent written out."""


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
