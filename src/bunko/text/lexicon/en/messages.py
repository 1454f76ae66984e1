"""English, what bunko says in the language: the abstain message, notices, replies, masks and table-answer wording,
read by the answer's language (`bunko.text.lexicon.speaking`)."""

from __future__ import annotations

# --- What bunko says (generate/, parse/figures.py, llm/vision.py): messages read by language key ---
ABSTAIN_MESSAGE = "The documents do not contain this."
"""The answer when the documents do not hold one (generate/language.py); also what a model is told to reply then."""
CROSS_LANGUAGE_NOTE = "(This answer is based on {langs} documents.)"
"""Said under an answer whose evidence is in another language; {langs} are `LANGUAGE_NAMES` of the evidence."""
LANGUAGE_NAMES = {"ja": "Japanese", "zh": "Chinese", "en": "English"}
"""The languages bunko answers in, named in this language (language code → name)."""
NAME_JOINER = " and "
"""Between two `LANGUAGE_NAMES` in a sentence."""
UNVERIFIED_NOTICE = (
    "Sentences marked [unverified] are not supported by the sources they cite, or cite none: check them in the "
    "documents before relying on them."
)
"""Said under an answer that shows a sentence the citation check did not support (the standard policy)."""
UNVERIFIED_MARK = "[unverified]"
"""What follows a sentence the citation check did not support, wherever it is shown (generate/citation_marks.py)."""
SOURCES_HEADING = "Sources"
"""Heading of the numbered source list under an answer (generate/citation_marks.py)."""
GREETING_REPLY = "Hello. Ask a question about your documents and I will answer it with citations."
"""The reply to a greeting or thanks, which needs no documents (generate/language.py)."""
CALCULATED_REPLY = "{value} (calculated; not from the documents)."
"""The reply to bare arithmetic: {value}, calculated, and said not to come from the documents."""
NO_CONVERSATION = "There is no earlier conversation yet. Ask a question about your documents."
"""The reply to a question about the conversation when there is none yet (generate/recall.py)."""
RECALLED = {
    "asked": "Your previous question was: “{text}”",
    "first": "Your first question was: “{text}”",
    "all": "Your questions so far:",
    "answered": "My previous answer was:",
    "no_answer": "I have not answered anything yet.",
    "summary": "The conversation so far:",
    "question": "Q",
    "answer": "A",
    "note": "(Quoted from this conversation, not from the documents.)",
}
"""The phrases of a reply about the conversation itself (generate/recall.py): what was asked first or last, the
previous answer, the turns so far; {text} is what is recalled."""
MASKS = {"email": "[email]", "phone": "[phone]", "card": "[card number]", "id": "[ID number]"}
"""What replaces personal data in an answer, by the kind of data found (generate/guardrails.py)."""
NOT_ADVICE = "Note: this answer is information from the documents, not professional (legal, tax, medical) advice."
"""Said under a regulated answer: information from the documents, not professional advice (generate/guardrails.py)."""
NEEDS_REVIEW = "Confidence is low: a person should review this answer before it is used."
"""Said under a regulated answer of low confidence: a person should review it."""
SOURCE_UPDATED = "Source last updated"
"""The label of a regulated answer's source dates."""
NAME_IN_ENGLISH = "English"
"""This language, named in English for a vision model asked to describe a figure in it (llm/vision.py)."""
NAME_FOR_A_MODEL = "English"
"""This language as a chat model's rules name it for the answer (generate/prompts.py)."""
OCR_MODELS: tuple[str, ...] = ("eng",)
"""Tesseract models for the figures of a document in this language: every model costs about a second more per
figure, so a figure is read with its document's script and English, not all four (bench/results/figures.md)."""
ROW_SEPARATORS = (": ", "; ")
"""How a table-row unit is punctuated for an answer in this language: (after a header, between cells)
(text/units.py `readable_row`)."""


# --- What bunko says: a computed table answer (generate/table_answer.py) ---
TABLE_OPERATIONS = {
    "sum": "Sum of {m}",
    "avg": "Average of {m}",
    "max": "Highest {m}",
    "min": "Lowest {m}",
    "top": "Top {n} by {m}",
    "bottom": "Bottom {n} by {m}",
    "growth": "Largest change from {b} to {m}",
    "difference": "Difference in {m} ({a} minus {c})",
    "count": "Number of rows",
    "list": "Rows",
}
"""An aggregate in words, by operation (text/table_questions.py's names): {m} the measured column, {b} the base
column of a change, {n} a count of rows, {a} and {c} the two values of a difference."""
TABLE_DECLINE = "Largest fall from {b} to {m}"
"""A change asked for as a fall: the row whose {m} fell most from {b}."""
TABLE_LOWEST_CHANGE = "Smallest change from {b} to {m}"
"""A change asked for at its smallest."""
TABLE_LATEST = "Latest {m}"
"""A ranking by time, the latest row ({m}: the column that says when)."""
TABLE_EARLIEST = "Earliest {m}"
"""A ranking by time, the earliest row."""
TABLE_CANNOT_RANK = "{t} has no column for what \"{a}\" ranks by, so its rows cannot answer this."
"""After the abstention, when the table a ranking question names has no column to rank by ({a}: the ranking words)."""
TABLE_GROUPED = " by {g}"
"""After the operation: the column {g} it is grouped by."""
TABLE_IN = " in {t}"
"""After the operation: the sheet or table {t} it read."""
TABLE_FROM = " ({t})"
"""The table a looked-up cell was read from: several tables of a manual share their columns, so the answer says which."""
TABLE_WHERE = ", where {c}"
"""After the operation: the conditions {c} on the rows."""
TABLE_AND = " and "
"""Between two conditions, or two cells a lookup read."""
TABLE_CONTAINS = "{col} contains “{v}”"
"""A condition that column {col} holds the text {v}."""
TABLE_ROWS = "{n} rows"
"""How many rows {n} a sum, average or count read."""
TABLE_LOOKUP = "{col} for {row}: {v}"
"""One cell a lookup read: column {col} of row {row} is {v}."""
TABLE_MODEL_QUERY = "Computed from {t} by a query the model wrote"
"""An answer computed by a query a chat model wrote over table {t}."""
COLON = ": "
"""Between a label and what it labels: a table answer's operation and value, the source dates' label, a recalled
turn's Q and A."""
TABLE_END = "."
"""What ends the sentence of a table answer."""
CURRENCY_AMOUNTS = {"JPY": "{} yen", "CNY": "{} yuan", "USD": "${}", "EUR": "€{}", "GBP": "£{}"}
"""An amount {} in a currency a table column holds (ISO code → how this language writes it)."""
