"""Japanese: the words and phrase patterns bunko recognises in Japanese text, and nothing else.

One lexicon per language (issue 45; bm25s's ``stopwords.py`` is the model): the package name is the rule, a
module reads a language's words from here by language key (`bunko.text.lexicon.for_language`) or by module
(``from bunko.text.lexicon import en, ja, zh``). ``en`` and ``zh`` hold the same kinds of lists under the
same names where a rule has words in more than one language, in parts of the same names: ``questions.py``
(what a question asks), ``documents.py`` (what a document's text holds) and ``messages.py`` (what bunko says).
The parts are one namespace here, so a reader never names a part (``ja.GREETING``).

What lives here: what bunko *recognises* in this language — question words, follow-up markers, greetings, the
phrases of a table question, units, particles. A pattern is kept as regex source (a ``str``, one alternation of
this language's words) and compiled by the module that uses it, which joins the languages' parts in the order it
always had. What bunko *says* in Japanese (the abstain message, notices, table-answer wording, masks) is in
``messages.py``, under the same names in every language, and read by the answer's language (`bunko.text.lexicon.speaking`).

Each constant's docstring says the rule it serves, never an evaluation question.
"""

from __future__ import annotations

from bunko.text.lexicon.ja.documents import *  # noqa: F403
from bunko.text.lexicon.ja.messages import *  # noqa: F403
from bunko.text.lexicon.ja.questions import *  # noqa: F403
