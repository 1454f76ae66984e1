"""Text that talks to a model instead of a reader: "ignore previous instructions", "あなたは今から…".

Retrieved documents are data. The grounded prompt fences them as such, but a
sentence that tries to instruct a model is also never useful *evidence*: no
honest answer to a question about leave days quotes "disregard the system
prompt". So the evidence scorer sinks such units (the extractive generator
never picks them) and the trace lists the hits that carried one.
"""

from __future__ import annotations

import re

_PATTERNS = [
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:previous|prior|above|earlier|all|any|the|your)\b.{0,30}"
    r"\b(?:instructions?|prompts?|rules?|directions?|context|messages?)\b",
    r"\bsystem prompt\b",
    r"\byou are now\b",
    r"\b(?:new|updated) instructions?\s*[:：]",
    r"\b(?:act|behave|respond|reply|answer) (?:only )?(?:as|with|that)\b.{0,60}\b(?:assistant|model|ai|pwned|hacked)\b",
    r"\bjailbreak\b",
    r"(?:以前|これまで|前|上記|先)の(?:指示|命令|プロンプト|ルール)を(?:すべて|全て)?(?:無視|忘れ)",
    r"システムプロンプト",
    r"あなたは今から",
    r"(?:忽略|无视|無視|忘记|忘記)(?:之前|以上|上面|先前|前面|所有)?的?(?:所有)?(?:指令|指示|提示|规则|規則|说明)",
    r"系统提示",
    r"你现在是",
]
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE | re.DOTALL)


def looks_like_instruction(text: str) -> bool:
    """True when the text addresses a model (prompt-injection phrasing in en, ja or zh)."""
    return bool(_INSTRUCTION.search(text))
