"""Japanese, what bunko says in the language: the abstain message, notices, replies, masks and table-answer wording,
read by the answer's language (`bunko.text.lexicon.speaking`)."""

from __future__ import annotations

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
