"""Chinese, what a document's text holds: stop words, numbers and units as the language writes them, instructions
addressed to a model, entity words, the terms retrieval weighs, facts a question can ask about, table totals and
headers, and the headings, captions and page numbers of a document's structure."""

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
