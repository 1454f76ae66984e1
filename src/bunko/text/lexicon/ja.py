"""Japanese: the words and phrase patterns bunko recognises in Japanese text, and nothing else.

One lexicon per language (issue 45; bm25s's ``stopwords.py`` is the model): the file name is the rule, a
module reads a language's words from here by language key (`bunko.text.lexicon.for_language`) or by module
(``from bunko.text.lexicon import en, ja, zh``). ``en.py`` and ``zh.py`` hold the same kinds of lists under the
same names where a rule has words in more than one language.

What lives here: what bunko *recognises* — stop words, question words, follow-up markers, greeting words, the
phrases of a table question, units, month names. A pattern is kept as regex source (a ``str`` holding one
alternation of this language's words, with the ``\\b`` boundaries English needs) and compiled by the module
that uses it, which joins the languages' parts in the order it always had, so each compiled pattern is the
one it was before the move. What bunko *says* (abstain messages, notices, table-answer labels) stays in the
module that says it, in a table keyed by language code: a message is not a word list.

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
