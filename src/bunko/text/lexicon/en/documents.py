"""English, what a document's text holds: stop words, numbers and units as the language writes them, instructions
addressed to a model, entity words, the terms retrieval weighs, facts a question can ask about, table totals and
headers, and the headings, captions and page numbers of a document's structure."""

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
