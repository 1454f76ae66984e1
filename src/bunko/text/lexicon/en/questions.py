"""English, what a question asks: question words, the phrases of a table question, the kind of answer or quantity
wanted, follow-up markers, the comparisons and totals an answer computes, and which retriever a question needs."""

from __future__ import annotations

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
SUM = r"\btotal\b|\bsum\b|\baltogether\b|\bcombined\b|\btogether\b"
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
LATEST = r"\b(?:newest|latest|most recent(?:ly)?)\b"
"""A ranking by time, the last row first: the row whose date (year, release, version) is the latest."""
EARLIEST = r"\b(?:earliest|oldest)\b"
"""A ranking by time, the first row first."""
_CAME = r"(?:released|published|introduced|appeared|added|created|written|launched|updated|came out|arrived)"
FIRST = rf"\bfirst\s+{_CAME}\b|\b{_CAME}\s+first\b"
"""An ordinal that ranks rows by time, earliest first: beside a verb of coming about ("released first", "first
appeared"), and only in a question asking for a row (`WHICH_ROWS`). "Which package should I install first", "the
first prerequisite", "Portuguese first" rank nothing."""
LAST = rf"\blast\s+{_CAME}\b|\b{_CAME}\s+last\b"
"""The ordinal for the latest, read as `FIRST` is ("last updated")."""
TIME_COLUMNS = ("date", "year", "released", "release", "release date", "version", "updated", "last updated", "published",
                "introduced")
"""Column names that hold when a row happened: the column a ranking by time reads (beside any date-typed column)."""
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


# --- Answer types (text/answer_types.py): the kind of answer a question wants, and what a text names ---

ANSWER_TYPE_QUESTIONS = {
    "which_document": r"\bwhich (?:chapter|section|document|page|part)\b",
    "package": r"\b(?:which|what) (?:[\w.-]+ ){0,2}package\b|\bpackage (?:provides|gives|contains)\b",
    "path": r"\b(?:which|what) (?:[\w.-]+ ){0,2}(?:file|files|directory|folder|path|config(?:uration)? file)\b|\bwhere (?:does|do|is|are|can)\b.*\b(?:keep|store|stored|save|saved|kept|located|live|put|written|log)\b",
    "option": r"\b(?:which|what) (?:[\w.-]+ ){0,2}(?:option|flag|switch|parameter|directive|setting|argument|variable|boot parameter)s?\b|\bwhat (?:should|must|do) i (?:pass|give|specify|set|add)\b",
    "command": r"\b(?:which|what) (?:[\w.-]+ ){0,2}(?:(?:sub)?command|tool|program|utility|invocation)s?\b|\bhow (?:do|can|should) i\b|\bhow to\b"
               r"|\bwhat (?:do|does|should|can|could|would) (?:i|we|you|it|they|one) use\b",
    "value": r"\bhow (?:many|much|long|often|large|big)\b|\b(?:which|what) (?:[\w.-]+ ){0,2}(?:value|number|port|address|size|limit|group|encoding|level|priority|name|month)\b|\bdefault\b",
    "reason": r"\bwhy\b|\bfor what reason\b",
    "definition": r"^\s*what (?:is|are|does)\b|\bwhat (?:is|are) (?:meant|called)\b|\bstands? for\b|\bmeaning of\b",
    "list": r"\b(?:list|name) (?:the|all)\b|\bwhat are the\b",
    "yes_no": r"^\s*(?:is|are|can|does|do|should|will)\b",
}
"""The questions that want each kind of answer, by answer type (the AnswerType values of text/answer_types.py)."""
NOT_ASKED = r"\bwithout (?:any )?(?:options?|flags?|arguments?|parameters?)\b"
"""A setting the question says it does not use is the situation, not what is asked."""
QUANTITY_QUESTION = (
    r"\bhow (?:many|much|long|often|soon|old|large|big|quickly)\b|\bwhen\b"
    r"|\b(?:limit|maximum|minimum|rate|number|amount|price|period|deadline|duration|fee|cost|size)s?\b"
)
"""How many, how long, how much: the answer is a number."""
CROSS_REFERENCES = r"\b(?:Section|Chapter|Table|Figure)\s+[\d.]+"
"""Numbers that are not values: a reference to a section, chapter, table or figure."""
GENERIC_BEFORE_PROGRAM = (
    r"same|following|next|previous|above|below|first|last|other|new|main|whole|entire|actual|original"
    r"|corresponding|appropriate|relevant|specific|given|single|simple|complete|basic|default|right|only|real|useful|small"
    r"|powerful|special|separate|standard|common|various|external|dedicated|interactive|graphical"
)
"""Adjectives in "the ___ command" that are not the command's name ("the following command")."""
PROGRAM_WORDS = r"(?:command|program|tool|utility|daemon|script)s?\b"
"""What an English sentence calls a program after its name ("the mount command")."""
SETTING_WORDS = r"(?:variable|setting|directive|parameter|option)s?\b"
"""What an English sentence calls a setting after its name ("the QUOTAUSER variable")."""
COMMAND_HEADER = r"\bcommands?\b"
"""A column header naming commands: its cells are command lines."""
EXCLUDED = (
    r"\b(?:not (?:just|only|simply)|other than|instead of|rather than|except(?: for)?)\s+"
    r"((?:[\w.~/-]+(?:,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+)?){1,8})"
)
"""Words a question excludes from its answer ("other than apt"); the excluded words are captured."""


# --- Dimensions (text/dimensions.py): which kind of quantity a question asks for, and whether a text states one ---
# Keyed by the Dimension values; each language's part is one alternation, searched for, never captured.

TIME_UNITS = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)"
"""The units of a duration."""
SHORTCUT_NAMES = r"shortcut|hotkey|key ?binding|key combination"
"""The names of a key combination: a question naming one asks for a value."""
NUMBER_WORDS = r"an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|sixty|half an?"
"""Numbers written out ("twelve days", "an hour"): a duration counts without a digit."""
DIMENSION_QUESTIONS = {
    "percent": r"\bwhat percent(?:age)?\b|\bhow many percent\b",
    "month": r"\b(?:which|what|in which) month\b",
    "time_of_day": r"\bwhat time\b|\bat what hour\b",
    "size": r"\bhow (?:big|large)\b|\bwhat size\b|\bhow much (?:disk |memory |ram |storage )?(?:space|memory|ram|storage)\b"
            r"|\bhow many (?:bytes|kb|mb|gb|tb)\b|\bwhat is the (?:maximum |max |largest |minimum )?(?:file )?size\b",
    "duration": rf"\bhow long\b|\bhow many {TIME_UNITS}\b|\bhow often\b",
    "key_combination": rf"\b(?:what|which)\b[^?.]{{0,40}}\b(?:{SHORTCUT_NAMES}|keystroke|keys? (?:do|to|should|must))",
}
"""An interrogative that names the dimension ("how many seconds", "what time")."""
DIMENSION_STATEMENTS = {
    "percent": r"\d\s*percent\b",
    "month": r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:[a-z]*)\.?\s+\d|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
             r"|\b(?:january|february|march|april|june|july|august|september|october|november|december)\b",
    "time_of_day": r"\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)\b|\b(?:midnight|noon)\b",
    "size": r"\d\s*(?:bytes?\b|blocks?\b)",
    "duration": r"\b(?:hourly|daily|weekly|monthly|yearly|annually)\b",
    "key_combination": r"\b(?:ctrl|control|alt|altgr|shift|super|meta|win|windows|cmd|hyper)\s*[-+]\s*\w"
                       r"|\b(?:enter|return|escape|esc|tab|space|backspace|delete|insert|home|end|page ?up|page ?down|f\d{1,2}"
                       r"|windows|super|menu|print ?screen|sysrq|caps ?lock|scroll ?lock|num ?lock|zenkaku|hankaku|henkan|muhenkan) keys?\b",
}
"""A text that states a quantity of the dimension (a duration with a number is built from TIME_UNITS by the module)."""
KEY_NAMES = r"ctrl|alt|shift|super|enter|esc|tab|space|f\d{1,2}"
"""Key names a Japanese or Chinese text writes in Latin letters before its word for key (Ctrl キー, Enter 键)."""


# --- Conversation (generate/conversation.py): is a question a follow-up, and what does it refer to ---

FOLLOW_UP_LEAD = r"^\s*(and|also|then|so|what about|how about|and what about|and how about|what if|same for|same question for)\b[,\s]*"
"""A question opening with a connective continues the previous one."""
PRONOUNS = r"\b(it|its|they|them|their|theirs|those|these|this|that|ones|one)\b"
"""A pronoun points back at the previous question's subject."""
DUMMY_IT = (
    r"\b(is|was|will|would|does|do|did|isn't|is not)\s+it\s+(possible|necessary|allowed|ok|okay|true|required|mandatory|"
    r"permitted|legal|important|safe|enough|better|worth)\b|\bit\s+(is|was|'s)\s+(possible|necessary|allowed|true|required|"
    r"mandatory|permitted|legal|important|safe|enough|better|worth)\b|\bit\s+takes?\b"
)
""""Is it possible…", "it takes…": an "it" that points at nothing."""
THAT_AFTER = frozenset({"about", "after", "before", "than", "like", "over", "under", "exceed", "exceeds", "past", "beyond",
                        "apply", "applies", "change", "changes", "approve", "approves", "mean", "means", "cover", "covers"})
"""With STOPWORDS, the words after which "that" is a conjunction or a relative, not a pronoun pointing back."""
FILLER = frozenset({"many", "much", "long", "often", "about", "there", "any", "get", "happens", "happen", "else", "more"})
"""Words a short question is made of besides its subject ("How many?", "What else?"): not content."""
QUESTION_WORDS = r"^(how|what|which|who|whom|when|where|why)$"
"""A question word alone is what was asked, not the topic carried into a follow-up."""
GENERIC_NOUNS = frozenset({"times", "time", "days", "day", "way", "ways", "thing", "things", "number", "kind", "lot"})
"""Nouns every question has: never the topic carried into a follow-up."""
SUBSTITUTE = r"\b(its|it|their|them|they)\b"
"""The pronoun a rewrite replaces with its referent."""
ELLIPSIS_ITEM = r"^(?:(?:and\s+)?(?:what|how)\s+about|and|also|same\s+for)\s+(?:the\s+|for\s+|in\s+the\s+|in\s+)?(.+?)[?.!]?\s*$"
"""An elliptical follow-up ("What about managers?"); the new item is captured."""
ADDITIVE = r"\b(too|also|as well|either)\b"
"""A question that adds to the previous one ("Its logs too?"): the previous subject stays, with the new words."""
REWRITE_LABELS = r"standalone question|rewritten question|question|rewrite|q"
"""A label a model may put before its rewritten question, removed."""


# --- Generation (generate/analysis.py, generate/citations.py, generate/guardrails.py, generate/language.py) ---

COMPARISON = r"\b(?:compare|comparison|difference|differences|differ|versus|vs\.?)\b|\bwhich (?:is|one is) (?:better|faster|larger|smaller|newer|older)\b"
"""A question that compares two things: each is retrieved for on its own."""
AGGREGATION = r"\bhow many\b|\bin total\b|\btotal\b|\bsum of\b|\baverage\b|\bnumber of\b"
"""A question that counts or sums over many passages."""
NUMERAL_DIGITS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
    "ten": "10", "eleven": "11", "twelve": "12",
}
"""Numbers written out, as digits: a sentence saying "three days" states the 3 a question or source has."""
DATE_FIELD_NAMES = ("updated", "last_updated", "updated_at", "modified", "last_modified", "revised", "date")
"""Metadata fields that give when a source was last changed, read in this order."""
ABSTENTION_PHRASES = ("documents do not contain", "sources do not contain")
"""A sentence saying the documents do not say: a model's abstention, never evidence."""


# --- Routing (retrieve/router.py): which retriever a question needs ---

RELATIONAL = (
    r"\b(?:that|this|those|these|the same|the one|both|the two|either|its|whose)\s+\w+"
    r"|\b\w+\s+(?:recommended|used|chosen|picked|selected|provided|mentioned|named|called|described) (?:by|in|for|as)\b"
)
"""Words that point from one fact to another ("the tool *that* …", "*its* configuration")."""
SECTION_NUMBER = r"\b(?:section|chapter|part|§)\s*(\d+(?:[.．]\d+)*)"
"""A section a question names by number ("section 1.2", "chapter 3"); the number is captured."""
SECTION_WORDS = r"(?:sub)?(?:sections?|chapters?|parts?)"
"""What a quoted title is called when a question names a section by it ("the “Networking” section")."""
SECTION_TITLE_REFERENCES = (
    r"\bthe\s+(?:sub)?(?:sections?|chapters?|parts?)\s+(?:on|about|called|titled|entitled|named)\b"
    r"|\b(?:sub)?(?:sections?|chapters?|parts?)\s*[\"'“「]"
)
"""A question that names a section by its title ("the section called …")."""
MAN_PAGE = r"pages?"
"""What may follow "man" before a manual-page section number ("man page 5")."""
POSSESSIVE = r"'s"
"""A possessive after a manual-page reference."""
GLOBAL = (
    r"\b(?:main|key|major|overall|common)\s+(?:topics?|themes?|subjects?|ideas?|points?)\b|\boverview\b|\bsummari[sz]e\b"
    r"|\bwhat (?:are|is) (?:these|the|this) (?:documents?|collection|manuals?|books?) about\b"
)
"""Questions about the collection as a whole ("the main topics"): no passage answers them alone."""
COLLECTION_WORDS = frozenset((
    "topic", "theme", "subject", "idea", "point", "overview", "summary", "document", "collection", "manual", "book",
    "file", "text", "content", "material",
))
"""Entity keys by which a question about the whole collection names the collection or its topics ("the main topics
of these documents"), not a topic: they choose no community."""
