"""Chinese, what a question asks: question words, the phrases of a table question, the kind of answer or quantity
wanted, follow-up markers, the comparisons and totals an answer computes, and which retriever a question needs."""

from __future__ import annotations

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
