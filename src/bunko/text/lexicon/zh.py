"""Chinese: the words and phrase patterns bunko recognises in Chinese text, and nothing else.

One lexicon per language (issue 45; bm25s's ``stopwords.py`` is the model): the file name is the rule, a
module reads a language's words from here by language key (`bunko.text.lexicon.for_language`) or by module
(``from bunko.text.lexicon import en, ja, zh``). ``en.py`` and ``ja.py`` hold the same kinds of lists under the
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
    "是什么", "什么是", "请介绍一下", "请介绍", "介绍一下", "请问", "我想了解", "想了解", "的说明在哪里", "在哪里", "哪里", "为什么",
    "怎么样", "怎么", "怎样", "如何", "哪些", "哪个", "是否", "关于", "吗", "呢",
)
"""Asking, not content: the phrasing a keyword query drops (text/analyzers.py QUESTION_FORMS says why)."""

FUNCTION_CHARACTERS = "的了是在有和与或这那个也就都而"
"""Chinese particles, conjunctions and determiners, the Han counterpart of hiragana: a bigram holding one straddles a
word boundary or is grammar far more often than it is a word, and a run of Han characters breaks into nouns at one.
The characters every use shares; each adds what its own text needs (below)."""

NOUN_RUN_BREAKS = "及将把被对从为以由于且并还又其此各该等一不要会可能所中上下里内外时"
"""With FUNCTION_CHARACTERS, where a run of Han characters breaks into entity nouns: prepositions, conjunctions,
modals and localisers (text/entities.py)."""

CITATION_FUNCTION_CHARACTERS = "為为及等這個们們吗嗎呢吧"
"""With FUNCTION_CHARACTERS, the grammar a cited sentence's overlap ignores, traditional forms included
(generate/citations.py)."""

QUESTION_FUNCTION_CHARACTERS = "们吗呢吧不还但啊么哪种些我你他她它能会要想让把被给对从到可以说听叫该怎什"
"""With FUNCTION_CHARACTERS, a question's pronouns, question words and modals: grammar, not the topic a retrieval
grade looks for (generate/retrieval_grade.py)."""
