"""Text that talks to a model instead of a reader: "ignore previous instructions", "あなたは今から…".

Retrieved documents are data. The grounded prompt fences them as such, but a
sentence that tries to instruct a model is also never useful *evidence*: no
honest answer to a question about leave days quotes "disregard the system
prompt". So the evidence scorer sinks such units (the extractive generator
never picks them) and the trace lists the hits that carried one.

The rules cover the direct forms and the evasive ones (a note addressed to
"AI assistants reading this", fake ``<source>``/``<system>`` tags, "SYSTEM: …",
chat-template tokens, demands to reply "PWNED", claims of authority) in en, ja
and zh, while leaving ordinary manual text alone ("Ignore the warning if the
disk is new", "the system prompt shows $", "Note: run apt update first").

Text that is quoted anyway (an LLM's answer, a sentence beside the injection)
passes `neutralise` on its way out: citation markers written in the document
(``[1][2]``) are written with full-width brackets so they cannot point at the wrong source, and
chat-template tokens and source tags are escaped (`escape_control`).
"""

from __future__ import annotations

import re

from bunko.text.sentences import split_sentences

_AI = r"(?:ai|a\.i\.|llm|gpt|chatgpt|chatbot|bot|language model|assistant|agent)"
_REPLY = r"(?:reply|respond|answer|say|output|print|write|return|type|state|claim)"
_PATTERNS = [
    # direct: "ignore previous instructions"
    r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,40}\b(?:previous|prior|above|earlier|all|any|the|your|these|those|preceding)\b.{0,30}"
    r"\b(?:instructions?|prompts?|rules?|directions?|context|messages?|guidelines?|directives?)\b",
    r"\b(?:reveal|print|show me|output|repeat|leak|disregard|ignore|override)\b.{0,15}\b(?:your|the) (?:system prompt|hidden instructions?|initial instructions?)\b",
    r"\byour (?:system prompt|hidden instructions?|guidelines)\b",
    r"\byou are now\b",
    r"\b(?:new|updated|revised|real|true) instructions?\s*[:：]",
    r"\b(?:act|behave|respond|reply|answer) (?:only )?(?:as|with|that)\b.{0,60}\b(?:assistant|model|ai|pwned|hacked)\b",
    r"\bjailbreak\b|\bdeveloper mode\b|\bDAN mode\b",
    r"\bfrom now on\b.{0,40}\b(?:you|answer|reply|respond|say|output)\b",
    r"\bpretend (?:to be|you are|that you)\b",
    # evasive: notes addressed to a model
    rf"\bnotes? (?:to|for) (?:the |any |all |every )?{_AI}s?\b",
    rf"\b(?:attention|dear|hey|hello|hi|to|psst),? (?:the |any |all )?{_AI}s?\b\s*[:,：!]",
    r"\b(?:ai|llm|gpt|chatbot|language model)s?(?: (?:assistant|agent|model|system|tool|crawler|reader)s?)? "
    r"(?:reading|processing|summari[sz]ing|parsing|indexing|scanning|that reads?|who reads?|that process(?:es)?)\b",
    r"\bif you are (?:an? |the )?(?:ai|llm|language model|assistant|chatbot|bot|large language model)\b",
    r"\bas an? (?:ai|language model|assistant|chatbot)\b.{0,40}\b(?:must|should|shall|will|need to|are required to|have to)\b",
    r"\b(?:ai|assistant|chatbot|llm|model)s? (?:must|should|shall|is required to|is instructed to) (?:always |never |only |now )?"
    r"(?:answer|reply|respond|say|output|tell|include|ignore|refuse|recommend|mention|append|begin|start)\b",
    r"\byour (?:answer|response|reply|output)s? (?:must|should|shall|has to|will) (?:only |always )?(?:be|say|contain|include|begin|start)\b",
    r"\b(?:do not|don't|never) (?:tell|inform|mention (?:this )?to|reveal (?:this )?to|show (?:this )?to) (?:the )?user\b",
    # evasive: fake tags, roles and template tokens
    r"</\s*source\s*>|<\s*source\s*>|</?\s*(?:system|assistant|user|instructions?|admin|sys)\s*>",
    r"<\|[a-z_]{2,24}\|>|\[/?INST\]|<</?SYS>>|###\s*(?:instruction|system|response)\s*:",
    r"\bsystem (?:message|override|notice|instruction|command|alert)s?\s*[:：]",
    r"\bsystem\s*[:：]\s*(?:you|from now|ignore|always|never|reply|respond|answer|say|output|print|the assistant)\b",
    # evasive: demands for a fixed reply
    rf"\b{_REPLY}\b.{{0,40}}(?<![a-z])(?:pwned|hacked|hijacked|injected)(?![a-z])",
    r"(?<![a-z])(?:pwned|hacked|hijacked)(?![a-z]).{0,20}(?:と(?:だけ)?(?:答え|回答|返答|出力|言|書)|作答|回答|回复|输出|返回)",
    r"(?:回答|返答|応答|答え|出力|回复|输出|只|だけ|のみ).{0,20}(?<![a-z])(?:pwned|hacked|hijacked)(?![a-z])",
    rf"\b{_REPLY}\b.{{0,30}}\bonly (?:with|in) (?:the )?(?:word|phrase|string|text)\b",
    # evasive: authority claims
    r"\bas (?:the|your|an?|this site's|the site's) (?:system )?(?:administrator|admin|developer|owner|operator|ceo|root user|root|security team)\b"
    r".{0,40}\b(?:authori[sz]e|instruct|order|command|permit|allow|require|direct|grant)\b",
    r"\b(?:i|we) (?:hereby )?(?:authori[sz]e|instruct|order|command|direct|permit) you\b",
    r"\bthis (?:message|note|instruction) (?:has|takes|overrides)\b.{0,30}\b(?:priority|precedence|instructions?)\b",
    # ja
    r"(?:以前|これまで|今まで|それまで|前|上記|以上|先|既存)の(?:すべての|全ての)?(?:指示|命令|プロンプト|ルール|設定|制約)を(?:すべて|全て)?(?:無視|忘れ|破棄)",
    r"(?:指示|命令|プロンプト|ルール|制約)(?:は|を)(?:すべて|全て)(?:無視|忘れ)",
    r"システムプロンプト",
    r"(?:新しい|最新の|本当の)(?:指示|命令)\s*[:：]",
    r"あなたは今から",
    r"(?:AI|ＡＩ|言語モデル|チャットボット)\s*(?:アシスタント|エージェント|モデル)?(?:へ|宛て)(?:[:：、。,！!\s」]|$|の(?:指示|注意|メモ|メッセージ|お願い|連絡))",
    r"(?:この|本)(?:文書|文章|資料|ページ|ファイル)を(?:読んで|読む|読み込む|処理する|処理して|要約する|要約して)(?:いる)?(?:AI|ＡＩ|アシスタント|言語モデル|あなた)",
    r"あなたが(?:AI|ＡＩ|言語モデル|アシスタント|チャットボット)(?:なら|であれば|の場合)",
    r"(?:AI|ＡＩ|アシスタント|言語モデル)\s*(?:アシスタント|エージェント)?(?:は|として).{0,20}(?:必ず|常に).{0,30}(?:答え|回答|出力|返答)(?:する|して)?(?:なさい|ること|こと|てください|ください|よ)",
    r"(?:管理者|システム管理者|開発者|運営者|所有者)(?:として|の権限(?:で|により)).{0,30}(?:許可|命令|指示|認め|授権)",
    r"(?:すべての|全ての|あらゆる)質問に.{0,20}(?:と|で)(?:だけ)?(?:答え|回答|返答)",
    # zh
    r"(?:忽略|无视|無視|忘记|忘記|忽視)(?:掉)?(?:之前|以上|上面|上述|先前|前面|此前|所有|你的|一切)?的?(?:所有|全部|一切)?(?:指令|指示|提示|规则|規則|说明|命令|设定)",
    r"系统提示|系統提示",
    r"你现在是|你現在是",
    r"作为(?:一个|一名)?(?:AI|人工智能|语言模型|智能)(?:助手|助理|模型)?[，,、]?\s*你(?:必须|应该|应当|需要|要|只能)",
    r"(?:致|给|告|写给)(?:所有)?(?:AI|人工智能|语言模型)(?:助手|助理|模型)?(?:们)?[：:，,！!]",
    r"(?:AI|人工智能)(?:助手|助理)(?:们)?(?:请注意|注意|须知)",
    r"(?:阅读|读取|处理|总结|解析)(?:本|此|这|这个|该)(?:文档|文件|页面|段落|段文字)的(?:AI|人工智能|语言模型|助手)",
    r"如果你是(?:一个)?(?:AI|人工智能|语言模型|助手|聊天机器人)",
    r"(?:作为|我是)(?:系统)?管理员.{0,20}(?:授权|命令|要求|允许|指示)你",
    r"从现在(?:开始|起).{0,20}(?:回答|回复|你|输出)",
    r"(?:新的?|更新的?)(?:指令|指示)[:：]",
    r"(?:所有|每个|任何)问题.{0,10}都.{0,10}(?:回答|回复)",
]
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE | re.DOTALL)
_ROLE = re.compile(r"(?:^|[\s>\]])(?:SYSTEM|ASSISTANT|ADMIN|DEVELOPER)(?: (?:MESSAGE|NOTE|OVERRIDE|PROMPT))?\s*[:：]")
"""Upper-case role labels ("SYSTEM: …"): case-sensitive, so a table row "System: Ubuntu 22.04" is left alone."""


def looks_like_instruction(text: str) -> bool:
    """True when the text addresses a model (prompt-injection phrasing in en, ja or zh)."""
    return bool(_INSTRUCTION.search(text) or _ROLE.search(text))


WITHHELD = "[instruction-like text withheld]"
"""What a model reads where a document addressed it: the span is gone, the fact that something was there is not."""


def withhold_instructions(text: str) -> str:
    """The text with every instruction-like sentence replaced by `WITHHELD`, line by line so tables and code keep
    their shape: a fence marks the rest as data, but a small model may still obey a sentence it can read."""
    lines = []
    for line in text.split("\n"):
        if looks_like_instruction(line):
            for sentence in split_sentences(line):
                if looks_like_instruction(sentence):
                    line = line.replace(sentence, WITHHELD)
            if looks_like_instruction(line):  # a payload the sentence split cut across two pieces
                line = WITHHELD
        lines.append(line)
    return "\n".join(lines)


_CONTROL = re.compile(
    r"<\|[^|<>\s]{1,40}\|>|\[/?INST\]|<</?SYS>>|</?\s*(?:source|system|assistant|user|instructions?|documents?|context|sys)\b[^<>]{0,80}>",
    re.IGNORECASE,
)
_BRACKETS = str.maketrans({"<": "＜", ">": "＞", "[": "［", "]": "］"})
_MARK = r"\[\d{1,3}(?:[,，、\-–]\s*\d{1,3})*\]"
_MARKS = re.compile(rf"(?<![A-Za-z0-9_)\]])(?:{_MARK})+")
_ATTACHED_MARKS = re.compile(rf"(?:{_MARK})+")
"""``[3]``, ``[1][2]``, ``[1, 2]``: marks a document wrote; not an index such as ``a[0] = 1`` in a code line
(in code-like text only marks after a space or punctuation count)."""


def escape_control(text: str) -> str:
    """Chat-template tokens (``<|im_start|>``, ``[INST]``) and source/role tags with full-width brackets: shown, never parsed."""
    return _CONTROL.sub(lambda m: m.group(0).translate(_BRACKETS), text)


def disarm_citation_marks(text: str) -> str:
    """A document's own ``[1][2]`` written with full-width brackets (``［1］［2］``): kept as text, never read as the answer's marks."""
    code = "\n" in text or "=" in text or "`" in text
    return (_MARKS if code else _ATTACHED_MARKS).sub(lambda m: m.group(0).translate(_BRACKETS), text)


def neutralise(text: str) -> str:
    """What a quoted or generated sentence passes through on its way out."""
    return escape_control(disarm_citation_marks(text))
