"""English: the words and phrase patterns bunko recognises in English text, and nothing else.

One lexicon per language (issue 45; bm25s's ``stopwords.py`` is the model): the file name is the rule, a
module reads a language's words from here by language key (`bunko.text.lexicon.for_language`) or by module
(``from bunko.text.lexicon import en, ja, zh``). ``ja.py`` and ``zh.py`` hold the same kinds of lists under the
same names where a rule has words in more than one language.

What lives here: what bunko *recognises* — stop words, question words, follow-up markers, greeting words, the
phrases of a table question, units, month names. A pattern is kept as regex source (a ``str`` holding one
alternation of this language's words, with the ``\\b`` boundaries English needs) and compiled by the module
that uses it, which joins the languages' parts; where the order of alternatives decides a match, in the order
they always had (a pattern that is only searched for a yes/no, or whose alternatives start with different
characters, simply lists one language after another). What bunko *says* in English (the abstain message,
notices, table-answer wording, masks) is at the end, under the same names in every language, and read by the
answer's language (`bunko.text.lexicon.speaking`).

Each constant's docstring says the rule it serves, never an evaluation question.
"""

from __future__ import annotations

# --- Keyword search (text/analyzers.py, text/entities.py, retrieve/key_terms.py, generate/conversation.py) ---

STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with", "what", "which", "who", "whom", "how", "when", "where", "why", "do", "does", "did", "can", "could", "should", "would", "may", "i", "you", "we", "our", "your", "my"]
)
"""Lucene's English stop set plus question words: they match every English chunk and
would let an English question's grammar outrank a Japanese document's content."""

_ENTITY_STOPWORD_TEXT = (
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
)
ENTITY_STOPWORDS = frozenset(_ENTITY_STOPWORD_TEXT.split())
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

# --- Numbers (text/numbers.py): amounts, currencies and dates as English writes them ---

SCALE_WORDS = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
"""A scale after an amount ("3.5k", "2 million") multiplies it."""
SCALE_PATTERN = r"(?:(?<=\d)(?:k|K|M|mn|bn)\b|\s*(?:thousand|million|billion)\b)"
"""A scale after an amount, as matched (SCALE_WORDS gives its value)."""
CURRENCY_WORDS = {"yen": "JPY", "dollars": "USD", "dollar": "USD", "euro": "EUR", "euros": "EUR", "pounds": "GBP"}
"""A currency named after an amount ("1,200 yen")."""
UNITS_AFTER_NUMBER = r"(?:yen|jpy|cny|rmb|usd|dollars?|eur|euros?|gbp|pounds|percent|per cent|pct)\b"
"""The currency and percent words an amount may be followed by, as matched."""
PERCENT_WORDS = ("percent", "per cent", "pct")
"""A percent written out."""
MONTH_ABBREVIATIONS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
"""A month's name by its first three letters ("12 March 2024", "Mar. 12, 2024"), January first."""

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

# --- Injection (text/injection.py): text that talks to a model instead of a reader ---
# Each language's rules are searched for, never captured: a text that matches any rule is an instruction.

INJECTION_AI = r"(?:ai|a\.i\.|llm|gpt|chatgpt|chatbot|bot|language model|assistant|agent)"
"""What a note addressed to a model calls it."""
INJECTION_REPLY_VERBS = r"(?:reply|respond|answer|say|output|print|write|return|type|state|claim)"
"""What a demand for a fixed reply asks the model to do."""
ASSISTANT_LABEL = r"(?:\bai |\bthe )?(?:\bassistant|\bai|\bbot|\bchatbot|\bchatgpt|\bgpt|\bllm|\bclaude|\bgemini|\bcopilot)\b"
"""An assistant's name at the start of a chat turn ("Assistant:")."""
USER_LABEL = r"\buser\b|\bhuman\b"
"""A user's name at the start of a chat turn ("User:")."""
SYSTEM_LABEL = r"\bsys(?:tem)?(?: message| prompt)?"
"""A system role's name at the start of a line ("System:")."""
REPLY_OPENER = (
    r"(?:sure|certainly|of course|okay|absolutely)[,!. ]|i(?:'m| am| will| can| cannot| can't| have)\b|here(?: is|'s)\b"
    r"|the (?:correct )?answer\b|as an ai\b|you\b|your\b|it(?:'s| is| was)\b|that(?:'s| is)\b|this is\b|there (?:is|are)\b"
    r"|we(?:'re| are| will)\b"
    r"|[^\n]{0,80}?(?<![a-z])(?:pwned|hacked|hijacked|jailbroken)(?![a-z])"
)
"""What an assistant's turn says ("Sure, …", "I am …", a canary word): "Assistant: Jane Smith" says none."""
SYSTEM_ORDER = (
    r"(?:you|your|from now|ignore|disregard|forget|override|reveal|disclose|leak|repeat|always|never|reply|respond|answer|say|"
    r"output|print|tell|pretend|act as|obey|do not|don't|new instructions|the (?:assistant|ai|model))\b"
    r"|[^\n]{0,80}?(?<![a-z])(?:pwned|hacked|hijacked)(?![a-z])"
)
"""What follows "System:" when it gives an order: a table row "System: Ubuntu 22.04" gives none."""
CANARY_WORDS = r"pwned|hacked|hijacked"
"""The words an injection demands as the reply, in any language's text."""
ROLE_LABELS = r"SYSTEM|ASSISTANT|ADMIN|DEVELOPER"
"""Upper-case role labels ("SYSTEM: …"), matched case-sensitively."""
ROLE_LABEL_KINDS = r"MESSAGE|NOTE|OVERRIDE|PROMPT"
"""What may follow an upper-case role label ("SYSTEM OVERRIDE:")."""
ROT13_INSTRUCTION_WORDS = r"vtaber|qvfertneq|sbetrg|bireevqr|vafgehpgvbaf?|cebzcgf?|flfgrz|nffvfgnag|cerivbhf|ercyl|erfcbaq|nafjre|lbh|lbhe|cjarq"
"""rot13 of the words an English instruction is made of ("vtaber" is "ignore"): only then is a text read as rot13."""
INJECTION_RULES = (
    # direct: "ignore previous instructions"
    r"\b(?:ignore|disregard|forget|override|bypass)\b(?<!not ignore)(?<!n't ignore)(?<!not forget)(?<!n't forget).{0,40}\b(?:previous|prior|above|earlier|all|any|the|your|these|those|preceding)\b.{0,30}"
    r"\b(?:instructions?|prompts?|rules?|directions?|context|messages?|guidelines?|directives?)\b",
    r"\b(?:reveal|print|show me|output|repeat|leak|disregard|ignore|override)\b.{0,15}\b(?:your|the) (?:system prompt|hidden instructions?|initial instructions?)\b",
    r"\byour (?:system prompt|hidden instructions?|guidelines)\b",
    r"\byou are now\b",
    r"\b(?:new|updated|revised|real|true) instructions?\s*[:：]",
    r"\b(?:act|behave|respond|reply|answer) (?:only )?(?:as|with|that)\b.{0,60}\b(?:assistant|model|ai|pwned|hacked)\b",
    r"\bjailbreak\b|\bdeveloper mode\b|\bDAN mode\b",
    r"\bfrom now on\b.{0,40}\b(?:you|answer|reply|respond|say|output)\b",
    r"\bpretend (?:you are|that you)\b|\bpretend to be\b(?:(?<![a-z] pretend to be)|(?<=you pretend to be)|(?<=please pretend to be)"
    r"|(?<=now pretend to be)|(?<=must pretend to be)|(?<=should pretend to be))",
    # evasive: notes addressed to a model
    rf"\bnotes? (?:to|for) (?:the |any |all |every )?{INJECTION_AI}s?\b",
    rf"\b(?:attention|dear|hey|hello|hi|to|psst),? (?:the |any |all )?(?:large )?{INJECTION_AI}(?: {INJECTION_AI})?s?\b\s*[:,：!]",
    r"\b(?=[aglc])(?<!the )(?<!\ba )(?<!\ban )(?:ai|llm|gpt|chatgpt|chatbot|(?:large )?language model)(?: (?:assistant|agent|model))?s?\s*[,:：]\s*"
    r"(?:please |kindly )?"
    r"(?:you (?:must|should|will|are|have to)|ignore|disregard|forget|answer|reply|respond|say|tell|output|print|reveal|always|never|"
    r"do not|don't|when (?:asked|a user|the user|someone))\b",
    r"\bas an? (?:ai|llm|large language model|language model|ai (?:assistant|language model|model))\s*[,:]",
    r"\b(?:ai|llm|gpt|chatbot|language model)s?(?: (?:assistant|agent|model|system|tool|crawler|reader)s?)? "
    r"(?:reading|processing|summari[sz]ing|parsing|indexing|scanning|that reads?|who reads?|that process(?:es)?)\b",
    r"\bif you are (?:an? |the )?(?:ai|llm|language model|assistant|chatbot|bot|large language model)\b",
    r"\bas an? (?:ai(?: assistant| model)?|llm|(?:large )?language model|chatbot)\s*,?\s*(?:you|i)\b.{0,40}"
    r"\b(?:must|should|shall|will|need to|are required to|have to)\b",
    r"\b(?:ai|assistant|chatbot|llm|model)s? (?:must|should|shall|is required to|is instructed to) (?:always |never |only |now )?"
    r"(?:answer|reply|respond|say|output|tell|include|ignore|refuse|recommend|mention|append|begin|start)\b",
    r"\byour (?:answer|response|reply|output)s? (?:must|should|shall|has to|will) (?:only |always )?(?:be|say|contain|include|begin|start)\b",
    r"\b(?:do not|don't|never) (?:tell|inform|mention (?:this )?to|reveal (?:this )?to|show (?:this )?to) (?:the )?user\b",
    # evasive: fake tags, roles and template tokens
    r"</\s*source\s*>|<\s*source\s*>|</?\s*(?:system|assistant|user|instructions?|admin|sys)\s*>",
    r"<\|[a-z_]{2,24}\|>|\[/?INST\]|<</?SYS>>|###\s*(?:instruction|system|response|human|assistant|user)\s*:",
    r"<(?:start|end)_of_turn>|\[/?(?:SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS)\]",
    r"\bsystem (?:message|override|notice|instruction|command|alert)s?\s*[:：]",
    r"\b(?:reveal|disclose|leak|dump|expose)\b.{0,20}\b(?:the|your) (?:(?:system|hidden|initial|original|secret) )?prompt\b",
    r"\b(?:reveal|disclose|leak|dump|expose|print|repeat|show me)\b.{0,20}\b(?:the|your) (?:system|hidden|initial|original|secret) "
    r"(?:instructions?|rules|guidelines)\b",
    # evasive: demands for a fixed reply
    rf"\b{INJECTION_REPLY_VERBS}\b.{{0,60}}(?<![a-z])(?:pwned|hacked|hijacked|injected)(?![a-z])",
    rf"\b{INJECTION_REPLY_VERBS}\b.{{0,30}}\bonly (?:with|in) (?:the )?(?:word|phrase|string|text)\b",
    # evasive: authority claims
    r"\bas (?:the|your|an?|this site's|the site's) (?:system )?(?:administrator|admin|developer|owner|operator|ceo|root user|root|security team)\b"
    r".{0,40}\b(?:authori[sz]e|instruct|order|command|permit|allow|require|direct|grant)\b",
    r"\b(?:i|we) (?:hereby )?(?:authori[sz]e|instruct|order|command|direct|permit) you\b",
    r"\bthis (?:message|note|instruction) (?:has|takes|overrides)\b.{0,30}\b(?:priority|precedence|instructions?)\b",
)
"""English instructions to a model, direct and evasive (the role lines, which take labels from every language, are
composed in text/injection.py)."""

# --- Units (text/units.py) ---

ADMONITION_LABELS = ("note", "notes", "caution", "warning", "tip", "tips", "important", "danger", "attention", "hint", "remark",
                     "example", "see also", "todo")
"""The titles manuals put over a note or a warning (DocBook, Sphinx, GitHub's [!NOTE]): alone, a unit that says nothing."""

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

# --- Retrieval (retrieve/key_terms.py, retrieve/table_plan.py, rerank/unit_features.py) ---

EXAMPLE = r"\be\.\s?g\.[^?？!。)]*|\b(?:for example|for instance|such as)\s[^?？!.。,;)]*"
"""An example the question gives ("e.g. Portuguese first"): its names illustrate, they are not what is asked."""
COLUMN_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("population", "people", "residents", "inhabitants"),
    ("area", "land area", "km2"),
    ("sales", "revenue", "turnover", "sold"),
    ("price", "cost", "fee"),
    ("limit", "cap", "ceiling"),
    ("hotel", "lodging", "accommodation"),
    ("meal", "meals", "daily allowance", "per diem"),
    ("region", "district"),
    ("prefecture", "prefectures"),
    ("city", "cities"),
    ("product", "products", "item", "items"),
    ("quantity", "units"),
    ("employees", "staff", "headcount"),
    ("growth", "growth rate"),
    ("store", "stores", "branch", "branches", "shop"),
    ("capital",),
    ("stock", "inventory"),
    ("name",),
    ("country", "countries"),
    ("year",),
    ("month",),
    ("package", "packages"),
    ("size", "big", "bigger", "biggest", "large", "larger", "largest", "small", "smaller", "smallest", "space",
     "disk space", "bytes", "kilobytes", "kb", "megabytes", "mb"),
    ("speed",),
    ("rate", "ratio"),
    ("density",),
    ("budget",),
    ("value", "values", "number"),
)
"""Words that name the same table column; group i of ja.COLUMN_SYNONYMS and zh.COLUMN_SYNONYMS is the same column.
A column is also named by the words that ask about what it measures, and by its unit: "size" by "biggest",
"disk space", "kilobytes"."""
HEADING_FILLER = ("list", "lists", "table", "tables", "overview", "summary")
"""Words of a table's caption that say it is a table ("List of web browsers"), not what it holds."""
HEADING_NUMBER_LABEL = r"table|chapter|section|figure"
"""The word before a heading's number ("Table 6.1.", "Chapter 6."): with the number, not what the heading names."""
COUNT_COLUMN = r"^(?:number|no\.?|count|num)\s+of\s+(.+)$|^(.+?)\s+count$"
"""A column that counts something ("number of packages"): the group holds the thing counted."""
COLUMN_NAME_STOPWORDS = ("of", "the", "a", "an", "per", "in", "for", "and", "to", "no", "number")
"""Words of a column name that do not name it ("number of employees")."""
LEAD_IN = r"as follows|the following"
"""A unit that announces what follows ("as follows:") points at the answer without being it."""

# --- Drafting evaluation questions (evaluate/drafts.py): which sentences state a fact a question can ask about ---

QUANTITY_UNITS = (
    "business days", "working days", "calendar days", "days", "day", "hours", "hour", "minutes", "minute", "seconds", "weeks",
    "months", "years", "requests", "employees", "people", "times", "characters", "items", "files", "GB", "MB", "percent", "%",
)
"""Units a stated fact's number comes with ("5 business days"), longest first where one starts another."""
MONEY_UNITS = r"USD|EUR|GBP|JPY|yen|dollars|euros"
"""Currencies written after an amount."""
ADDRESS_MARKERS = (
    r"\b(?:P\.?\s?O\.?\s?Box|Box\s\d|Street|Avenue|Ave\.|Road|Rd\.|Suite|Floor|Tel\.?|Phone|Fax|Zip|Postal|Postcode)\b"
    r"|\b\d{4}\s?[A-Z]{2}\b(?!\s+(?:of|for|per|on|in|is|are|RAM|disk|storage|memory))"  # a Dutch postcode, "1090 GB"
    r"|\b[A-Z]{2}\s\d{5}\b|@|https?://|www\."
)
"""Addresses and contact lines: their numbers are postcodes and house numbers, not facts a question can ask about."""
PROSE_VERBS = (
    r"\b(?:is|are|was|were|be|been|has|have|had|can|cannot|could|must|may|might|will|would|shall|should|does|do|did|"
    r"takes?|runs?|gets?|keeps?|lasts?|needs?|allows?|requires?|uses?|holds?|stores?|costs?|expires?)\b|\b[a-z]{3,}(?:ed|es)\b"
)
"""A verb: a sentence without one is a heading or a row of figures, not a statement."""

# --- Tables (index/table_data.py): total rows and scaled headers ---

TOTAL_ROW = r"total|grand total|sum|subtotal|all"
"""A row label that makes the row a total, not one more row to sum."""
HEADER_SCALES = r"thousands?|millions?|billions?|k|m|bn"
"""A scale a column header states ("Population (thousands)"), as matched."""
HEADER_SCALE_VALUES = {"thousand": 1e3, "thousands": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6, "m": 1e6, "billion": 1e9,
                       "billions": 1e9, "bn": 1e9}
"""What each header scale multiplies the column's cells by."""

# --- Document structure (parse/, chunk/qa_pairs.py): headings, captions, page numbers as documents write them ---

HEADING_STYLE = r"heading"
"""A Word paragraph style that makes a heading ("Heading 2")."""
TABLE_CAPTION = r"table"
"""A caption that names a table, not a figure."""
PAGE_NUMBER = r"^\s*(?:[-–—]\s*)?(?:page\s+|p\.\s*)?\d+(?:\s*(?:/|of)\s*\d+)?(?:\s*[-–—])?\s*$"
"""A margin line that is only a page number ("- 3 -", "Page 3 of 10"): furniture, not text."""
NUMBERED_DIVISION = r"(chapter|part|section|article)\s+[0-9ivxlc]+\b"
"""A heading that numbers a division ("Chapter 3"); the division is captured."""
DIVISION_DEPTHS = {"part": 1, "chapter": 1, "section": 2, "article": 3}
"""How deep each numbered division sits in a document's outline."""
CAPTION_WORDS = r"figure|fig\.|table|chart|photo"
"""What a caption opens with, before its number."""
OUTLINE_NUMBER = r"(?:chapter|part|section|appendix)\s+(?:\d+|[ivxlc]+|[a-z])\b[.:]?"
"""A PDF outline entry's own number ("Chapter 3."), removed from its title."""
DIVISION_LABEL = r"(?:chapter|part|appendix)\s+(?:\d+|[ivxlc]+|[a-z])\b"
"""A line that is only a division's label ("Chapter 3"): its title is on the next line."""
DEFAULT_PICTURE_NAMES = r"picture|image|graphic"
"""The names PowerPoint gives a picture by default ("Picture 3"): not a description."""

# --- Words read inside functions (generate/conversation.py, text/answer_types.py, text/entities.py) ---

PLURAL_PRONOUNS = ("they", "them", "their", "theirs", "those", "these")
"""A follow-up's plural pronoun points back at a plural referent (generate/conversation.py)."""
EXCLUDED_LIST_GLUE = frozenset({"and", "the", "for", "any"})
"""Words inside a list of excluded alternatives that are not alternatives themselves (text/answer_types.py)."""
SINGULAR_ENDINGS = ("ss", "us", "is", "ous")
"""Endings of an English word that is singular though it ends in s (class, status, analysis, various)."""
PLURAL_ES_ENDINGS = ("sses", "xes", "ches", "shes", "zes")
"""Plural endings that drop "es", not just "s" (classes, boxes, patches)."""

OVERVIEW = (
    r"\bwhat\s+(?:is|are|was)\s+.{1,80}?\babout\s*\??\s*$|\bwhat\s+does\s+.{1,80}?\b(?:cover|discuss|describe|explain)\s*\??\s*$"
    r"|\bsummar(?:y|i[sz]e)\b|\boverview\b|\bmain\s+(?:topics?|points?|themes?|ideas?)\b|\bin\s+(?:brief|short)\b"
)
"""An overview asked for: what a section or the documents are about, a summary, the main topics. Such a question is
answered by what its subject says most centrally, not by the one sentence closest to its words."""

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
