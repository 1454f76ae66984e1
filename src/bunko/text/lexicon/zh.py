"""Chinese: the words and phrase patterns bunko recognises in Chinese text, and nothing else.

One lexicon per language (issue 45; bm25s's ``stopwords.py`` is the model): the file name is the rule, a
module reads a language's words from here by language key (`bunko.text.lexicon.for_language`) or by module
(``from bunko.text.lexicon import en, ja, zh``). ``en.py`` and ``ja.py`` hold the same kinds of lists under the
same names where a rule has words in more than one language.

What lives here: what bunko *recognises* in this language — question words, follow-up markers, greetings, the
phrases of a table question, units, particles. A pattern is kept as regex source (a ``str``, one alternation of
this language's words) and compiled by the module that uses it, which joins the languages' parts in the order it
always had. What bunko *says* in Chinese (the abstain message, notices, table-answer wording, masks) is at the
end, under the same names in every language, and read by the answer's language (`bunko.text.lexicon.speaking`).

Han characters that Japanese writes alike in the same role — numerals (一…十, 百, 千, 万), 第…章 division
numbering, 年月日 dates — are kept once, here, with the Japanese-only forms (編, 節, 項, 億) inside the same
character classes or tables; each such constant's docstring says so.

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

# --- Questions (text/questions.py) ---

ASKING = (
    r"[我你吗呢谁哪]|几(?=[点天个年种次分秒岁号月日周位台条项])|请(?:问|你|帮|告诉|说明|解释)|什么|怎么|怎样|如何|为什么"
    r"|多少|多久|多长|是否|能否|可否"
)
"""A Chinese question word, pronoun or question particle (我想了解…, …吗, 几点, 请问): a question, not a topic name;
not the same characters inside a topic's word (申请流程, 几乎)."""

PART_JOINERS = r"以及|和|与|并且"
"""Where a question that asks about several things is cut into its parts."""

GREETING = r"你好|您好|谢谢|多谢|再见|早上好|晚上好"
"""A message that is only a greeting or thanks gets a greeting back, not a search."""

ARITHMETIC_LEAD = r"计算"
"""What may open a bare arithmetic question, which is calculated, not searched."""

ARITHMETIC_TAIL = r"等于多少|等于几|是多少"
"""What may close a bare arithmetic question."""

RECALL_SUMMARY = (
    r"(?:总结|概括|回顾|归纳|梳理)(?:一下)?(?:我们|咱们|刚才|到目前为止|目前为止|这次|本次)(?:的|之间的)?(?:对话|聊天|谈话|交流|问答)"
    r"|(?:我们|咱们)(?:刚才|之前|到目前为止|目前为止)?(?:聊|谈|说|讨论)了?(?:些)?(?:什么|哪些|啥)"
)
"""A request to sum up the conversation itself, answered from the turns, not the documents."""

RECALL_ANSWERED = (
    r"你(?:刚才|刚刚|之前|上一次|上次|前面|最后)(?:说|回答|答|讲)了?(?:什么|啥|些什么)"
    r"|(?:你)?(?:上一个|上个|前一个|刚才的|刚刚的|上一条|上一次的)(?:回答|答案|回复)"
    r"|重复(?:一下|一遍)?你(?:刚才|刚刚|之前)?的(?:回答|答案)"
)
"""A request to repeat bunko's earlier answer."""

RECALL_ASKED = (
    r"我(?:刚才|刚刚|之前|前面|一开始|最开始|最初|上次)?(?:问|说)了(?:什么|啥|些什么|哪些)"
    r"|我(?:刚才|刚刚|之前|前面|一开始|最开始|最初|上次)问的(?:是|问题是)?(?:什么|啥)"
    r"|(?:我的)?(?:上一个|上个|前一个|刚才的|刚刚的|第一个|最初的)问题是(?:什么|啥)|我问过(?:哪些|什么)"
)
"""A request to recall the user's own earlier questions."""

RECALL_FIRST = r"一開始|一开始|最开始|第一个"
"""A recall request about the first turn rather than the last."""

# --- Table questions (text/table_questions.py): what a question asks of a table ---
# Patterns with "{n}" are templates: the module fills in its number pattern (digits or Han numerals).

DIGIT_VALUES = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
"""Han numerals a rank is written with (上位三, 前五名); Japanese writes the same characters but 两."""
TOP_RANK = r"前\s*{n}\s*[名个位家项]?|排名前\s*{n}|最(?:大|高|多)的\s*{n}\s*[名个位家项款种]"
"""The first n rows by a measure."""
BOTTOM_RANK = r"倒数\s*{n}|后\s*{n}\s*[名个位家项]|最(?:小|低|少)的\s*{n}\s*[名个位家项款种]"
"""The last n rows by a measure."""
GROWTH = r"增长|增加|增幅|涨幅|上涨|提高"
"""A change between two columns, read as growth."""
DECLINE = r"减少|下降|下跌|降幅"
"""A change between two columns, read as a fall."""
DIFFERENCE = r"相差|差距|差额|差多少|多多少|高多少|少多少"
"""The difference of a measure between two rows."""
COUNT = r"(?:多少|几)(?:个|家|种|项|位|座|名|款|条|所|省|地区|城市|台|部|件|张|份|本|只|套|篇|行|块|辆|间|门|类|组|笔)"
"""A count of rows: 多少 or 几 before a measure word (个, 台, 件, 本, 条 …: the classifiers that count things, not
amounts such as 多少钱 or durations such as 几天)."""
SUM = r"总计|总和|合计|总共|一共|总额|加起来|总数"
"""A sum over rows."""
HIGHER = r"更(?:多|高|大|长)"
"""A comparative that asks for the higher value."""
LOWER = r"更(?:少|低|小|便宜)"
"""A comparative that asks for the lower value."""
_CAME = r"(?:发布|推出|更新|出现|发行|问世|开发)"
LATEST = rf"最新|(?:最晚|最近){_CAME}"
"""A ranking by time, the latest row first; 最晚 and 最近 only beside a verb of coming about (最晚可以顺延到 asks for a
deadline)."""
EARLIEST = r"最早|最旧|最老|最古老"
"""A ranking by time, the earliest row first."""
FIRST = rf"(?:最先|最初|第一个){_CAME}"
"""An ordinal that ranks rows by time, earliest first: beside a verb of coming about (最先发布), only in a question
asking for a row."""
LAST = rf"最后{_CAME}"
"""The ordinal for the latest, read as `FIRST` is."""
TIME_COLUMNS = ("日期", "年份", "发布", "发布日期", "发行", "更新", "更新日期", "版本")
"""Column names that hold when a row happened, as en.TIME_COLUMNS (not 年 alone: 年収, 年齢 are not when)."""
GROUPED_BY = r"按\s*([^\s，。？?]{1,8}?)(?:统计|汇总|分组|计算|的)|每个\s*([^\s，。？?]{1,6})|各\s*([^\s，。？?]{1,6}?)的"
"""An aggregate per group (按地区统计, 每个部门); the group's words are captured."""
WHICH_ROWS = r"哪些|哪个|哪几|列出|有哪"
"""A question that asks for the rows themselves."""
CONTAINS = r"包含|含有"
"""A condition that a cell contains a quoted text."""
COMPARISONS_BEFORE_NUMBER: tuple[tuple[str, str], ...] = (
    ("超过|大于|高于|多于|超出", ">"),
    ("不少于|不低于|至少", ">="),
    ("低于|小于|少于|不到|不足", "<"),
    ("不超过|不高于|至多|最多", "<="),
    ("以后的|之后的", ">"),
    ("之前的|以前的", "<"),
    ("等于", "="),
)
"""The comparison a number's condition takes from the words before it; the order and operators of
en.COMPARISONS_BEFORE_NUMBER."""
COMPARISONS_AFTER_NUMBER: tuple[tuple[str, str], ...] = (
    ("", ">="), ("", "<="), ("以上的", ">"), ("", "<"),
    ("以后|之后", ">="),
    ("之前", "<="),
)
"""The comparison a number's condition takes from the words after it; the order and operators of
ja.COMPARISONS_AFTER_NUMBER ("" where Chinese adds no words to the Japanese ones)."""

# --- Numbers (text/numbers.py): amounts, currencies and dates as Chinese writes them ---

HAN_LARGE_UNITS = {"万": 1e4, "萬": 1e4, "億": 1e8, "亿": 1e8, "兆": 1e12}
"""Han number units that close a section of an amount ("1億2千万"); Japanese writes the same characters."""
HAN_SMALL_UNITS = {"千": 1e3, "百": 1e2}
"""Han number units within a section ("2千万")."""
CURRENCY_WORDS = {"元": "CNY", "人民币": "CNY", "人民幣": "CNY", "块": "CNY", "美元": "USD", "欧元": "EUR", "英镑": "GBP"}
"""A currency named after an amount ("1,200元")."""
CURRENCY_BEFORE_NUMBER = {"人民币": "CNY", "人民幣": "CNY"}
"""A currency named before an amount ("人民币1,200")."""
CURRENCY_BEFORE_NUMBER_PATTERN = r"人民币|人民幣"
"""The same words, as matched before an amount."""
CURRENCY_AFTER_NUMBER = r"元|人民币|人民幣|美元|欧元|英镑|块"
"""The currency words, as matched after an amount."""
YEAR_MONTH_DAY = r"年\s*(?P<m1>\d{1,2})\s*月\s*(?:(?P<d1>\d{1,2})\s*[日号號])?"
"""A date after its year, 年 月 日 (号 and 號 in Chinese); Japanese writes it the same way."""

# --- Answer types (text/answer_types.py): the kind of answer a question wants, and what a text names ---

ANSWER_TYPE_QUESTIONS = {
    "which_document": r"哪(?:一|个)?(?:章|节|部分|文档|页)",
    "package": r"哪个(?:\w{0,4})?(?:软件)?包|什么(?:软件)?包|软件包(?:是|叫)什么|包名",
    "path": r"哪个(?:\w{0,4})?(?:文件|目录|路径)|什么(?:文件|目录|路径)|在哪(?:个|里)?(?:文件|目录)|(?:存放|保存|记录)在哪",
    "option": r"选项|参数|加什么|指定什么|设置什么|变量",
    "command": r"命令|工具|程序|怎么|怎样|如何|用什么(?!格式|编码|字符集|语言|协议|算法|文件系统)|什么办法",
    "value": r"多少|几|多长|多久|多大|哪(?:个|种)(?:端口|组|值|编码|格式)|什么(?:端口|组|值|编码|格式)|端口|默认",
    "reason": r"为什么|为何|原因",
    "definition": r"代表什么|是什么意思|什么意思|是什么|指的是",
    "list": r"有哪些|列出",
    "yes_no": r"是否|能不能|可以吗|吗[？?]?\s*$",
}
"""The questions that want each kind of answer, by answer type (the AnswerType values of text/answer_types.py)."""
NOT_ASKED = r"(?:什么|任何)?(?:选项|参数)都不(?:加|带|给)|不(?:加|带|给|指定)(?:任何)?(?:选项|参数)"
"""A setting the question says it does not use (什么选项都不加) is the situation, not what is asked."""
QUANTITY_QUESTION = r"多少|几|多长|多久|多大|何时|什么时候"
"""How many, how long, how much: the answer is a number."""
PROGRAM_WORDS = r"程序|命令|工具|脚本"
"""What a Chinese sentence calls a program beside its Latin name ("xeyes 程序")."""
DEFINES_AS = r"是|就是"
"""The verb of a sentence that says what a name is ("apt-get 是一个命令行工具")."""
PROGRAM_NOUNS = r"程序|命令|工具"
"""What such a defining sentence calls the name."""
SETTING_WORDS = r"变量|指令|选项|選項|参数"
"""What a Chinese sentence calls a setting after its name ("LANG 变量", "pgpsigurlmangle 选项")."""
COMMAND_HEADER = r"命令"
"""A column header naming commands: its cells are command lines."""
EXCLUDED = r"(?:而不是|而非|除了)\s*([\w.~/-]+)"
"""Words a question excludes from its answer; the excluded word is captured."""
CHAPTER_REFERENCES = r"第\s*[\d.]+\s*[章节節条]|[\d.]+\s*[章节節]"
"""Numbers that are not values: a chapter or section reference (第 3 章; Japanese writes 節 and 条 alike)."""
FIGURE_REFERENCES = r"[表図图]\s*[\d.]+"
"""Numbers that are not values: a table or figure reference (表 3.7; 図 is the Japanese figure)."""

# --- Dimensions (text/dimensions.py): which kind of quantity a question asks for, and whether a text states one ---

SHORTCUT_NAMES = r"快捷键|组合键|热键"
"""The names of a key combination: a question naming one asks for a value."""
HAN_COUNT_NUMERALS = "一二三四五六七八九十百千两半"
"""Han numerals a duration may be counted in (三天, 两个小时, 半年); Japanese writes them too (but 两)."""
DURATION_UNITS = r"分钟|小时|小時|天|周|星期|个月|個月"
"""The units of a duration after a number (三天), besides those Japanese shares (秒, 分, 日, 年)."""
DIMENSION_QUESTIONS = {
    "percent": r"百分之(?:多少|几)|多少\s*[%％]",
    "month": r"几月|哪个月",
    "time_of_day": r"几点",
    "size": r"多大|多少(?:字节|空间|内存|容量|磁盘)|(?:容量|大小)(?:是|有)?多少",
    "duration": r"几(?:秒|分钟|分|个?小时|天|周|个?星期|个?月|年)|多少(?:秒|分钟|个?小时|天|周|个?月|年)|多长时间|多久",
    "key_combination": rf"{SHORTCUT_NAMES}|哪个键|哪些键|什么键",
}
"""An interrogative that names the dimension (几秒, 几点)."""
DIMENSION_STATEMENTS = {
    "percent": r"百分之",
    "month": "",
    "time_of_day": r"\d{1,2}\s*(?:点|點)|(?:上午|下午|凌晨|早上|晚上)\s*\d|[一二三四五六七八九十]+点|午夜|中午",
    "size": r"\d\s*(?:字节|位元組|扇区)",
    "duration": r"每(?:秒|分钟|小时|天|日|周|星期|月|年)",
    "key_combination": r"\b(?:ctrl|alt|shift|super|enter|esc|tab|space|f\d{1,2})\s*(?:键|鍵)",
}
"""A text that states a quantity of the dimension ("" where Chinese writes it as Japanese does: 3月)."""

# --- Injection (text/injection.py): text that talks to a model instead of a reader ---

ASSISTANT_LABEL = r"(?:AI|人工智能|智能)?(?:助手|助理)"
"""An assistant's name at the start of a chat turn."""
USER_LABEL = r"用户|使用者|提问者"
"""A user's name at the start of a chat turn."""
SYSTEM_LABEL = r"系统|系統"
"""A system role's name at the start of a line (「系统：请输入密码」 gives no order)."""
SYSTEM_MESSAGE = r"消息"
"""What may follow the system role's name (系统消息:)."""
REPLY_OPENER = r"好的|当然|是的|没问题|我(?:是|会|将|已经|不能|无法)|答案是|正确答案|回答是"
"""What an assistant's turn says (好的…)."""
COPULAS = r"是|为"
"""A whole sentence with a copula is an assistant's turn too (押金是0元。)."""
SYSTEM_ORDER = r"忽略|无视|無視|你(?:必须|现在|是一|只能|应该)|从现在|必须回答|只(?:回答|回复|输出)|请?(?:回答|回复)(?:说|道|[:：“\"「])"
"""What follows "System:" when it gives an order in Chinese."""
SAY_ONLY = r"作答|回答|回复|输出|返回"
"""A demand to reply with a canary word ("PWNED 回复")."""
REPLY_WORDS = r"回复|输出|只"
"""Words before a canary word in a demand to reply with it (只回复 PWNED)."""
INJECTION_RULES = (
    r"(?:忽略|无视|無視|忘记|忘記|忽視)(?:掉)?(?:之前|以上|上面|上述|先前|前面|此前|所有|你的|一切)?的?(?:所有|全部|一切)?(?:指令|指示|提示|规则|規則|说明|命令|设定)",
    r"系统提示|系統提示",
    r"你现在是|你現在是",
    r"作为(?:一个|一名)?(?:AI|人工智能|语言模型|智能)(?:助手|助理|模型)?[，,、]?\s*你(?:必须|应该|应当|需要|要|只能)",
    r"(?:致|给|告|写给|注意|提醒)\s*(?:所有|各位|每个)?\s*(?:AI|人工智能|大?语言模型|大模型)\s*(?:助手|助理|模型)?(?:们)?\s*[：:，,！!]",
    r"(?:AI|人工智能|大?语言模型|大模型)(?:助手|助理|模型)?(?:们)?(?:请注意|注意|须知)(?!事项|力|到)",
    r"(?:AI|人工智能|大?语言模型|大模型)\s*(?:助手|助理|模型)?(?:们)?\s*[,，:：]?\s*(?:请|必须|务必|一律)\s*"
    r"(?:始终|总是|一律|只|直接|都)?\s*(?:回答|回复|答复|输出|告诉|声称|说(?!明)|表示|忽略|无视|作答)",
    r"模型(?:们)?\s*[,，:：]?\s*(?:请|务必)\s*(?:注意|回答|回复|输出|忽略|无视)",
    r"(?:阅读|读取|处理|总结|解析)(?:本|此|这|这个|该)(?:文档|文件|页面|段落|段文字)的(?:AI|人工智能|语言模型|助手)",
    r"如果你是(?:一个)?(?:AI|人工智能|语言模型|助手|聊天机器人)",
    r"(?:作为|我是)(?:系统)?管理员.{0,20}(?:授权|命令|要求|允许|指示)你",
    r"从现在(?:开始|起).{0,20}(?:回答|回复|你|输出)",
    r"(?:新的?|更新的?)(?:指令|指示)[:：]",
    r"(?:所有|每个|任何)问题.{0,10}都.{0,10}(?:回答|回复)",
)
"""Chinese instructions to a model, direct and evasive."""

# --- Units (text/units.py) ---

ADMONITION_LABELS = ("注释", "提示", "危险", "小心", "技巧", "说明", "备注", "参见", "示例", "注解", "提醒")
"""The titles manuals put over a note or a warning: alone, a unit that says nothing (注意, 警告, 重要 as in Japanese)."""

# --- Conversation (generate/conversation.py): is a question a follow-up, and what does it refer to ---

MODAL_AFTER_GAI = "怎如找选去做用向给不是在问联交提申填要能可"
"""该 before these is "should" (该怎么办, 该找谁), not "the said" (该文件)."""
ANAPHORA = rf"它们|它|(?<!应)该(?=[^{MODAL_AFTER_GAI}])|这个|那个|这些|那些|这项|那项|上述|前面说的|刚才"
"""A pronoun or demonstrative points back at the previous question's subject."""
FOLLOW_UP_LEAD = r"^\s*(那么|那|还有|另外|然后|过了|超过了?|达不到|不满足|之后|事后|此后|随后|到期后?|逾期|没有的话|不然|否则)[，,、\s]*"
"""A question opening with a connective or a condition continues the previous one."""
FOLLOW_UP_TAIL = r"呢\s*[？?。]?\s*$"
""""…呢？": the previous question, asked of something else."""
NO_SUBJECT = r"^\s*(需要|要|可以|能否|可否|能|得|应该|必须|只|会|是不是|有没有)"
"""A short Chinese question that opens with a modal or an adverb ("需要提前几天？", "只发邮件可以吗？") has left its subject out."""
QUESTION_WORDS = r"多少|几|什么|哪|谁|怎|吗|呢|是否|如何"
"""A phrase holding a question word is what was asked, not the topic carried into a follow-up."""
PHRASE_BREAKS = (
    r"几[个天家台次位名年月周项种条]?|什么时候|什么|多少|多长时间|多久|哪些|哪个|哪里|怎么样|怎么办|怎么|如何|是否|可以|需要|应该|最多|最少|超过|之后|之前|以内|以上|以下"
    r"|每个|每年|每月|每天|一个|的话|[的了是在和与或及把被对从为以由于而并也都就还又这那其此各该等个一不有要会能到吗呢几谁哪每]"
    r"|是什么意思|什么意思|意思"
)
"""Where a Chinese question breaks into the phrases of its topic: question words, modals and function characters."""
GENERIC_NOUNS = frozenset({"员工", "公司", "用户", "客户", "我们", "大家", "我", "你", "您", "时候", "时间"})
"""Nouns every question has: never the topic carried into a follow-up."""
SUBSTITUTE = rf"(它们的|它的|它们|它)|(这个|那个|这些|那些|这项|那项|(?<!应)该(?=[^{MODAL_AFTER_GAI}]))"
"""The pronoun a rewrite replaces with its referent."""
ELLIPSIS_ITEM = r"^(.+?)(的话)?呢\s*[？?。]?\s*$"
"""An elliptical follow-up ("那年假呢？"); the new item is captured."""
ADDITIVE = r"也|还(?=能|可以|要|需要|有|会|得)|同样|一样"
"""A question that adds to the previous one ("日志也能删除吗？"): the previous subject stays, with the new words."""

# --- Generation (generate/analysis.py, generate/citations.py, generate/guardrails.py, generate/language.py) ---

COMPARISON = r"区别|比较|相比|哪个更|哪一个更|差异|不同之处"
"""A question that compares two things: each is retrieved for on its own."""
AGGREGATION = r"多少个|几个|总共|合计|平均|总数"
"""A question that counts or sums over many passages."""
NUMERAL_DIGITS = {"一": "1", "二": "2", "两": "2", "兩": "2", "三": "3", "四": "4", "五": "5", "六": "6", "七": "7", "八": "8", "九": "9", "十": "10"}
"""Han numerals, as digits (Japanese writes the same but 两 and 兩): "三天" states the 3 a question or source has."""
DATE_FIELD_NAMES = ("更新日期", "修订日期")
"""Metadata fields that give when a source was last changed, after the English and Japanese ones."""
ABSTENTION_PHRASES = ("资料中未找到",)
"""A sentence saying the documents do not say: a model's abstention, never evidence."""

# --- Routing (retrieve/router.py): which retriever a question needs ---

RELATIONAL = r"该|这一|这种|这个|那个|此人|其中|二者|两者|哪个更|所属|同一|提供"
"""Words that point from one fact to another: a question that needs two facts refers back to the first."""
SECTION_NUMBER = r"第\s*(\d+(?:[.．]\d+)*)\s*[章节節]|(\d+(?:[.．]\d+)+)\s*(?:節|节|項|项)"
"""A section a question names by number (第 1.2 节, 第3章; Japanese writes 節 and 項 alike); the number is captured."""
TITLE_PARTICLE = "这"
"""Between a quoted title and the word for section (“…”这一节)."""
SECTION_WORDS = r"项|一?节|一章|部分"
"""What a quoted title is called when a question names a section by it."""
MAN_PAGE = r"手册页?"
"""What may follow "man" before a manual-page section number (man 手册页第 5 节)."""
POSSESSIVE = r"的"
"""A possessive after a manual-page reference."""
GLOBAL = r"主要(?:内容|主题|话题)|概述|总结|概括|(?:文档|资料|手册|书|文件)(?:的)?(?:总体|整体)|总体(?:上|来说|内容|概况)"
"""Questions about the collection as a whole (主要内容); 总体 only of the documents."""
COLLECTION_WORDS = frozenset((
    "主题", "话题", "内容", "概述", "总结", "概括", "摘要", "大意", "总体", "整体", "文档", "资料", "手册", "书", "文件", "文献",
))
"""Entity keys by which a question about the whole collection names the collection or its topics (这些文档的主要内容),
not a topic: they choose no community."""

# --- Retrieval (retrieve/key_terms.py, retrieve/table_plan.py, rerank/unit_features.py) ---

EXAMPLE = r"(?:比如|例如|譬如)[^，。？?)）]*|[^、，。？?\s(（]*\s?等(?=[，。？?\s)）]|(?:工具|命令|程序|软件|文件|选项))"
"""An example the question gives (比如中文, "dch 等工具"): its names illustrate, they are not what is asked."""
EXAMPLE_LIKE = r"像[^，。？?)）]{1,40}?(?:这样|那样|一样)"
"""An example given by likeness (像 /tmp 这样)."""
ADMINISTRATIVE_SUFFIXES = "省区州"
"""Place names are asked without the suffix a table writes them with (广东 for 广东省)."""
COLUMN_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("人口",),
    ("面积",),
    ("销售额", "销售", "营收", "销量", "营业额"),
    ("价格", "单价", "费用", "价钱"),
    ("上限", "限额"),
    ("住宿", "酒店", "住宿费"),
    ("餐费", "餐补", "伙食"),
    ("地区", "区域"),
    ("都道府县", "县", "省"),
    ("城市", "市"),
    ("产品", "商品", "商品名"),
    ("数量",),
    ("员工", "员工数", "职工"),
    ("增长率", "增速"),
    ("门店", "分店"),
    ("首都", "省会", "首府"),
    ("库存",),
    ("名称", "姓名"),
    ("国", "国家"),
    ("年", "年份", "年度"),
    ("月", "月份"),
    ("软件包", "包"),
    ("大小", "容量", "最大", "最小", "多大", "空间", "占用"),
    ("速度",),
    ("率", "比率", "比例"),
    ("密度", "人口密度"),
    ("预算",),
    ("值", "数值"),
)
"""Words that name the same table column, group by group as en.COLUMN_SYNONYMS."""
HEADING_FILLER = ("列表", "一览", "清单")
"""Words of a table's caption that say it is a table (…列表), not what it holds."""
HEADING_NUMBER_LABEL = r"表|图|第"
"""The word before a heading's number (表 6.1, 第 6 章)."""
HEADING_NUMBER_COUNTER = r"章|节"
"""The word after a heading's number (第 6 章)."""
COUNT_COLUMN = r"^(.+?)(?:数量|数目|数)$"
"""A column that counts something (镜像数量): the group holds the thing counted."""
COLUMN_NAME_STOPWORDS = ("的",)
"""Words of a column name that do not name it (员工的数量)."""
LEAD_IN = r"如下|以下(?:几|各)"
"""A unit that announces what follows ("如下：") points at the answer without being it."""

# --- Drafting evaluation questions (evaluate/drafts.py): which sentences state a fact a question can ask about ---

QUANTITY_UNITS = ("个工作日", "工作日", "个小时", "小时", "分钟", "个月", "万元", "元", "天", "年", "人", "次", "周", "岁", "%", "％")
"""Units a stated fact's number comes with (5个工作日), longest first where one starts another."""
ADDRESS_MARKERS = r"邮编|邮政编码|地址|电话|传真|号楼|室\b|TEL|FAX|Tel|Fax|@|https?://|\d+号(?!文)"
"""Addresses and contact lines: their numbers are postcodes and house numbers, not facts a question can ask about."""
PROSE_VERBS = r"[是有为需要可应会能将由被在给按于每共约]|提供|包括|保留|支持|超过|不得|最多|最少|至少|不少于"
"""A verb or modal: a sentence without one is a heading or a row of figures, not a statement."""

# --- Tables (index/table_data.py): total rows and scaled headers ---

TOTAL_ROW = r"计|合计|总计|小计|總計"
"""A row label that makes the row a total, not one more row to sum."""
HEADER_SCALES = r"百万|千万|万|萬|千|億|亿|百"
"""A scale a column header states (人口（千人）, 万円), longest first; Japanese writes the same characters."""
HEADER_SCALE_VALUES = {"百万": 1e6, "千万": 1e7, "万": 1e4, "萬": 1e4, "千": 1e3, "億": 1e8, "亿": 1e8, "百": 1e2}
"""What each header scale multiplies the column's cells by."""

# --- Document structure (parse/, chunk/qa_pairs.py): headings, captions, page numbers as documents write them ---
# Han numbering (第3章, 一、) is written alike in Japanese: its patterns are kept once, here, with the Japanese forms
# (編, 節, 項) in their character classes.

HAN_DIGITS = "一二三四五六七八九十"
"""Han numerals up to ten, as a heading or a list numbers with them."""
HAN_NUMERALS = HAN_DIGITS + "百千"
"""Han numerals a division number is written with (第十二章, 第一百条)."""
HEADING_STYLE = r"标题|標題"
"""A Word paragraph style that makes a heading (标题 2)."""
TABLE_CAPTION = r"表"
"""A caption that names a table, not a figure (Japanese too)."""
PAGE_NUMBER = r"^\s*第\s*\d+\s*[页頁]\s*$"
"""A margin line that is only a page number (第 3 页): furniture, not text."""
NUMBERED_DIVISION = rf"第\s*[0-9０-９{HAN_NUMERALS}]+\s*([章部編节節条條款項项])"
"""A heading that numbers a division (第3章, 第2節, 第5条); the division is captured."""
DIVISION_DEPTHS = {"部": 1, "編": 1, "章": 1, "节": 2, "節": 2, "条": 3, "條": 3, "款": 4, "項": 4, "项": 4}
"""How deep each numbered division sits in a document's outline."""
ENUMERATION = rf"^\s*([{HAN_DIGITS}]+)[、.．]\S|^\s*[（(]([{HAN_DIGITS}]+)[）)]\S"
"""A Chinese-numbered list item or heading (一、, （二）); the numeral is captured."""
CAPTION_WORDS = r"图|圖|圖表"
"""What a caption opens with, before its number."""
OUTLINE_DIVISION = rf"第\s*[0-9０-９{HAN_NUMERALS}]+\s*[章部編节節条條款]"
"""A PDF outline entry's own number (第3章), removed from its title."""
OUTLINE_ENUMERATION = rf"[{HAN_DIGITS}]+[、.．]"
"""A PDF outline entry's Han list number (一、), removed from its title."""
DIVISION_LABEL = rf"第\s*[0-9０-９{HAN_NUMERALS}]+\s*[章部編]"
"""A line that is only a division's label (第3章): its title is on the next line."""
DEFAULT_PICTURE_NAMES = r"图片|圖片"
"""The names PowerPoint gives a picture by default (图片 3): not a description."""
QUESTION_LABEL = "问"
"""A FAQ question's label (问1：, 【问】)."""
QUESTION_WORD_LABEL = r"质问"
"""A FAQ question's label written out."""

OVERVIEW = r"讲(?:了|的是)?什么|介绍了?什么|关于什么|主要(?:内容|讲|介绍|主题|话题)|概述|概括|总结|摘要|大意"
"""An overview asked for: what a section or the documents are about, a summary, the main topics. Such a question is
answered by what its subject says most centrally, not by the one sentence closest to its words."""

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
