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

# --- Questions (text/questions.py) ---

ASKING = (
    r"^\s*(?:(?:what|how|why|where|when|who|whom|whose|which|can|could|should|would|will|does|do|did|is|are|was|were|"
    r"tell|show|explain|describe|give|find|please)\b|i(?:['’][dm])?\s)"
)
"""A query opening with an interrogative or a request word is a question, not a topic name."""

PART_JOINERS = r"\s+(?:and|both)\s+"
"""Where a question that asks about several things is cut into its parts."""

GREETING = r"hi|hello|hey|good (?:morning|afternoon|evening)|thanks?(?: you)?|thank you very much|ok(?:ay)?|bye"
"""A message that is only a greeting or thanks gets a greeting back, not a search."""

ARITHMETIC_LEAD = r"what(?:'s| is)|calculate|compute"
"""What may open a bare arithmetic question, which is calculated, not searched."""

RECALL_SUMMARY = (
    r"\b(?:summari[sz]e|recap|sum up|go over|review)\b[^?.!]{0,20}?\b(?:our|this) (?:conversation|chat|discussion|exchange)\b"
    r"|\b(?:the|our|this) (?:conversation|chat|discussion) (?:so far|until now|up to now|up to this point)\b"
    r"|\bwhat (?:have|did) we (?:talk(?:ed)? about|discuss(?:ed)?|cover(?:ed)?)\b"
)
"""A request to sum up the conversation itself, answered from the turns, not the documents."""

RECALL_ANSWERED = (
    r"\bwhat (?:did|have) you (?:just |previously |first |last )?(?:say|said|answer|answered|tell me|told me|reply|replied)\b"
    r"|\byour (?:previous|last|earlier|prior|first) (?:answer|reply|response|message)\b"
    r"|\b(?:repeat|say again)\b[^?.!]{0,15}\b(?:your answer|what you said|that answer|the answer you gave)\b"
)
"""A request to repeat bunko's earlier answer."""

RECALL_ASKED = (
    r"\bwhat (?:did|have) I (?:just |previously |first |last |already |originally )?(?:ask|asked|say|said|type|typed|write|wrote)\b"
    r"|\bmy (?:previous|last|earlier|prior|first|original) (?:question|message)\b"
    r"|\bwhat (?:was|were) my (?:questions?|messages?)\b|\bwhat questions (?:have|did) I ask\b"
)
"""A request to recall the user's own earlier questions."""

RECALL_FIRST = r"\b(?:first|original)\b"
"""A recall request about the first turn rather than the last."""

# --- Table questions (text/table_questions.py): what a question asks of a table ---
# Patterns with "{n}" are templates: the module fills in its number pattern (digits or Han numerals).

TOP_RANK = r"\btop\s*{n}|\b{n}\s+(?:largest|highest|biggest|most|best)\b"
"""The first n rows by a measure."""
BOTTOM_RANK = r"\bbottom\s*{n}|\b{n}\s+(?:smallest|lowest|least|fewest|worst)\b"
"""The last n rows by a measure."""
GROWTH = r"\b(?:increase[ds]?|grew|grown|growth|rose|gain(?:ed)?)\b"
"""A change between two columns, read as growth."""
DECLINE = r"\b(?:decrease[ds]?|declined?|fell|dropped|drop)\b"
"""A change between two columns, read as a fall."""
DIFFERENCE = r"\bdifference\b|\bhow much (?:more|higher|larger|less|lower|bigger)\b"
"""The difference of a measure between two rows."""
COUNT = r"\bhow many\b|\bnumber of\b|\bcount\b"
"""A count of rows."""
SUM = r"\btotal\b|\bsum\b|\baltogether\b|\bcombined\b"
"""A sum over rows."""
AVERAGE = r"\baverage\b|\b(?:the|a|arithmetic) mean\b|\bmean (?:of|value|size|time|price|cost)\b"
"""Averages; "what do these lines mean?" asks for a meaning."""
HIGHEST = r"\b(?:highest|largest|biggest|most|maximum|greatest|longest|max)\b"
"""The row with the highest value."""
HIGHER = r"\b(?:higher|more|larger|bigger|greater)\b"
"""A comparative that asks for the higher value."""
LOWEST = r"\b(?:lowest|smallest|least|fewest|minimum|cheapest|shortest|min)\b"
"""The row with the lowest value."""
LOWER = r"\b(?:lower|less|fewer|smaller|cheaper)\b"
"""A comparative that asks for the lower value."""
GROUPED_BY = r"\b(?:by|per|for each|each)\s+([a-z][\w ]{1,30}?)\b(?=[\s?.,]|$)"
"""An aggregate per group; the group's words are captured."""
WHICH_ROWS = r"\b(?:which|list|what are|name the|show)\b"
"""A question that asks for the rows themselves."""
CONTAINS = r"\bcontain(?:s|ing)?\b|\binclud(?:e|es|ing)\b"
"""A condition that a cell contains a quoted text."""
COMPARISONS_BEFORE_NUMBER: tuple[tuple[str, str], ...] = (
    ("more than|greater than|over|above|exceeds?|exceeding|higher than|larger than|bigger than", ">"),
    ("at least|no less than|not less than", ">="),
    ("less than|fewer than|under|below|lower than|smaller than", "<"),
    ("at most|no more than|not more than", "<="),
    ("after|since|later than", ">"),
    ("before|earlier than", "<"),
    ("equal to|exactly", "="),
)
"""The comparison a number's condition takes from the words before it; zh.COMPARISONS_BEFORE_NUMBER follows the same
order and operators."""
COMPARISONS_AFTER_NUMBER: tuple[tuple[str, str], ...] = (
    ("", ">="), ("", "<="), ("", ">"), ("", "<"),
    ("or later|or more|and above|or above", ">="),
    ("or earlier|or less|and below|or below", "<="),
)
"""The comparison a number's condition takes from the words after it; the order and operators of
ja.COMPARISONS_AFTER_NUMBER ("" where English has no words for one)."""

# --- Numbers (text/numbers.py): amounts, currencies and dates as English writes them ---

SCALE_WORDS = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
"""A scale after an amount ("3.5k", "2 million") multiplies it."""
CURRENCY_WORDS = {"yen": "JPY", "dollars": "USD", "dollar": "USD", "euro": "EUR", "euros": "EUR", "pounds": "GBP"}
"""A currency named after an amount ("1,200 yen")."""
UNITS_AFTER_NUMBER = r"(?:yen|jpy|cny|rmb|usd|dollars?|eur|euros?|gbp|pounds|percent|per cent|pct)\b"
"""The currency and percent words an amount may be followed by, as matched."""
PERCENT_WORDS = ("percent", "per cent", "pct")
"""A percent written out."""
MONTH_ABBREVIATIONS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
"""A month's name by its first three letters ("12 March 2024", "Mar. 12, 2024"), January first."""
