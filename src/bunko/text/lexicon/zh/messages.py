"""Chinese, what bunko says in the language: the abstain message, notices, replies, masks and table-answer wording,
read by the answer's language (`bunko.text.lexicon.speaking`)."""

from __future__ import annotations

# --- What bunko says (generate/, parse/figures.py, llm/vision.py): messages read by language key ---
ABSTAIN_MESSAGE = "资料中未找到相关内容。"
"""The answer when the documents do not hold one (generate/language.py); also what a model is told to reply then."""
CROSS_LANGUAGE_NOTE = "（此回答依据{langs}资料。）"
"""Said under an answer whose evidence is in another language; {langs} are `LANGUAGE_NAMES` of the evidence."""
LANGUAGE_NAMES = {"ja": "日语", "zh": "中文", "en": "英文"}
"""The languages bunko answers in, named in this language (language code → name)."""
NAME_JOINER = "、"
"""Between two `LANGUAGE_NAMES` in a sentence."""
UNVERIFIED_NOTICE = "※标有［未核实］的句子未得到所引资料的支持，或没有注明出处。使用前请对照资料核实。"
"""Said under an answer that shows a sentence the citation check did not support (the standard policy)."""
UNVERIFIED_MARK = "［未核实］"
"""What follows a sentence the citation check did not support, wherever it is shown (generate/citation_marks.py)."""
SOURCES_HEADING = "来源"
"""Heading of the numbered source list under an answer (generate/citation_marks.py)."""
GREETING_REPLY = "您好。请就资料提问，我会附上出处作答。"
"""The reply to a greeting or thanks, which needs no documents (generate/language.py)."""
CALCULATED_REPLY = "{value}（计算结果，并非来自资料）"
"""The reply to bare arithmetic: {value}, calculated, and said not to come from the documents."""
NO_CONVERSATION = "目前还没有之前的对话。请就资料提问。"
"""The reply to a question about the conversation when there is none yet (generate/recall.py)."""
RECALLED = {
    "asked": "您上一个问题是：“{text}”。",
    "first": "您的第一个问题是：“{text}”。",
    "all": "您之前的问题：",
    "answered": "上一个回答如下：",
    "no_answer": "还没有回答过。",
    "summary": "到目前为止的对话：",
    "question": "问",
    "answer": "答",
    "note": "（引自对话记录，并非来自资料）",
}
"""The phrases of a reply about the conversation itself (generate/recall.py): what was asked first or last, the
previous answer, the turns so far; {text} is what is recalled."""
MASKS = {"email": "［邮箱］", "phone": "［电话号码］", "card": "［卡号］", "id": "［证件号码］"}
"""What replaces personal data in an answer, by the kind of data found (generate/guardrails.py)."""
NOT_ADVICE = "※本回答是基于资料的参考信息，不构成法律、税务、医疗等专业建议。"
"""Said under a regulated answer: information from the documents, not professional advice (generate/guardrails.py)."""
NEEDS_REVIEW = "※置信度较低，需要人工审核。"
"""Said under a regulated answer of low confidence: a person should review it."""
SOURCE_UPDATED = "来源更新日期"
"""The label of a regulated answer's source dates."""
NAME_IN_ENGLISH = "Simplified Chinese"
"""This language, named in English for a vision model asked to describe a figure in it (llm/vision.py)."""
NAME_FOR_A_MODEL = "Simplified Chinese (简体中文)"
"""This language as a chat model's rules name it for the answer (generate/prompts.py)."""
OCR_MODELS: tuple[str, ...] = ("chi_sim", "chi_tra", "eng")
"""Tesseract models for the figures of a document in this language: every model costs about a second more per
figure, so a figure is read with its document's script and English, not all four (bench/results/figures.md)."""
ROW_SEPARATORS = ("：", "，")
"""How a table-row unit is punctuated for an answer in this language: (after a header, between cells)
(text/units.py `readable_row`)."""


# --- What bunko says: a computed table answer (generate/table_answer.py) ---
TABLE_OPERATIONS = {
    "sum": "{m}的总和",
    "avg": "{m}的平均值",
    "max": "{m}最大的行",
    "min": "{m}最小的行",
    "top": "{m}前{n}名",
    "bottom": "{m}后{n}名",
    "growth": "从{b}到{m}变化最大的行",
    "difference": "{m}之差（{a} − {c}）",
    "count": "符合条件的行数",
    "list": "符合条件的行",
}
"""An aggregate in words, by operation (text/table_questions.py's names): {m} the measured column, {b} the base
column of a change, {n} a count of rows, {a} and {c} the two values of a difference."""
TABLE_DECLINE = "从{b}到{m}下降最多的行"
"""A change asked for as a fall: the row whose {m} fell most from {b}."""
TABLE_LOWEST_CHANGE = "从{b}到{m}变化最小的行"
"""A change asked for at its smallest."""
TABLE_LATEST = "{m}最新的行"
"""A ranking by time, the latest row ({m}: the column that says when)."""
TABLE_EARLIEST = "{m}最早的行"
"""A ranking by time, the earliest row."""
TABLE_CANNOT_RANK = "“{t}”中没有可按“{a}”排序的列，无法用其中的行回答。"
"""After the abstention, when the table a ranking question names has no column to rank by ({a}: the ranking words)."""
TABLE_GROUPED = "（按{g}）"
"""After the operation: the column {g} it is grouped by."""
TABLE_IN = "（{t}）"
"""After the operation: the sheet or table {t} it read."""
TABLE_FROM = "（{t}）"
"""The table a looked-up cell was read from: several tables of a manual share their columns, so the answer says which."""
TABLE_WHERE = "，条件：{c}"
"""After the operation: the conditions {c} on the rows."""
TABLE_AND = "，"
"""Between two conditions, or two cells a lookup read."""
TABLE_CONTAINS = "{col}包含“{v}”"
"""A condition that column {col} holds the text {v}."""
TABLE_ROWS = "共{n}行"
"""How many rows {n} a sum, average or count read."""
TABLE_LOOKUP = "{row}的{col}：{v}"
"""One cell a lookup read: column {col} of row {row} is {v}."""
TABLE_MODEL_QUERY = "由模型编写的查询从{t}计算"
"""An answer computed by a query a chat model wrote over table {t}."""
COLON = "："
"""Between a label and what it labels: a table answer's operation and value, the source dates' label, a recalled
turn's Q and A."""
TABLE_END = "。"
"""What ends the sentence of a table answer."""
CURRENCY_AMOUNTS = {"JPY": "{}日元", "CNY": "{}元", "USD": "{}美元", "EUR": "{}欧元", "GBP": "{}英镑"}
"""An amount {} in a currency a table column holds (ISO code → how this language writes it)."""
