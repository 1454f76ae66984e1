"""English: the words and phrase patterns bunko recognises in English text, and nothing else.

One lexicon per language (issue 45; bm25s's ``stopwords.py`` is the model): the file name is the rule, a
module reads a language's words from here by language key (`bunko.text.lexicon.for_language`) or by module
(``from bunko.text.lexicon import en, ja, zh``). ``ja.py`` and ``zh.py`` hold the same kinds of lists under the
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

# --- Keyword search (text/analyzers.py, text/entities.py, retrieve/key_terms.py, generate/conversation.py) ---

STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with", "what", "which", "who", "whom", "how", "when", "where", "why", "do", "does", "did", "can", "could", "should", "would", "may", "i", "you", "we", "our", "your", "my"]
)
"""Lucene's English stop set plus question words: they match every English chunk and
would let an English question's grammar outrank a Japanese document's content."""

ENTITY_STOPWORDS = frozenset((
    "about above after again all also always am any anything around available back because been before being below "
    "between both call called cannot case change changes com contain contains course default different does doing done "
    "down during each easy either else enough even every example few following found from further get gets given goes "
    "good great had has have having here however itself just keep know known last least less like likely long look made "
    "main make makes making many means more most much must need needed needs new next none now number often old once one "
    "only other others otherwise out over own part particular per place possible present probably provide provided "
    "provides put quite rather really required same see seen set several shall should show shown simple simply since "
    "so some something sometimes still take taken than them themselves thing things those though three through thus "
    "too two under until up upon use used useful uses using usually very want way ways well were what whatever whether "
    "while within without work works yet first second also etc i.e e.g its it's let lets able allow allows say says said play plays "
    "suggest suggests recommend recommends mention mentions describe describes explain explains tell tells give gives "
    "behind instead whose which once twice therefore against everything everyone anyone nothing including interesting "
    "later except whole coming corresponding similar matter far recent principle advantage content important "
    "official practice fact order support point approach reliable initial step hand time seem seems seemed "
    "already although among another anyway became become becomes besides beyond certain clearly easily especially "
    "eventually exactly fairly finally frequently generally hence immediately indeed instance instead largely "
    "mainly merely meanwhile moreover mostly namely nearly necessarily nevertheless normally obviously perhaps "
    "possibly previously primarily quickly rarely readily recently regardless relatively respectively simply "
    "slightly specifically strongly sufficiently typically ultimately unless whereas wherever whenever "
    "various specific general particular common usual typical real true false right wrong large small big little "
    "high low full empty better worse best worst easier harder higher lower larger smaller newer older "
    "following previous next last latter former above below"
).split())
"""With STOPWORDS, the words that never make an entity alone or start or end one: grammar, and the verbs and adverbs
of any manual (text/entities.py)."""
