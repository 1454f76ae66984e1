"""What a question is made of, by rule, in ja/zh/en: its parts, and whether it asks something of the documents at all.

One rule per fact, shared: the graph route searches each part of a two-part question
(`retrieve/graph.py`), the answerer's decomposition answers from each part's evidence
(`generate/analysis.py`).
"""

from __future__ import annotations

import ast
import operator
import re

_PARTS = re.compile(r"(?<=[.?!。？！])\s*|\s+(?:and|both)\s+|、|及び|および|以及|和|与|并且")
_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks?(?: you)?|thank you very much|ok(?:ay)?|bye"
    r"|こんにちは|こんばんは|おはよう(?:ございます)?|ありがとう(?:ございます)?|よろしく(?:お願いします)?|さようなら"
    r"|你好|您好|谢谢|多谢|再见|早上好|晚上好)\s*[!！.。?？~〜]*\s*$",
    re.IGNORECASE,
)
_ARITHMETIC = re.compile(
    r"^\s*(?:what(?:'s| is)|calculate|compute|計算して|计算)?\s*([\d\s.+\-*/×÷()（）]+?)\s*(?:=|＝|は|は\?|等于多少|等于几|是多少)?\s*[?？]?\s*$",
    re.IGNORECASE,
)
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def question_parts(question: str) -> list[str]:
    """The pieces of a question that asks about several things ("the CUPS port and the syslog port", 甲、乙, A和B)."""
    return [p.strip() for p in _PARTS.split(question) if p and p.strip()]


def is_greeting(question: str) -> bool:
    """Hello, thanks, bye: nothing to look up."""
    return bool(_GREETING.match(question))


def arithmetic(question: str) -> float | None:
    """The value of a question that is only arithmetic ("what is 12 * 7?", "3+4は？", "15除以3" not included), else None."""
    match = _ARITHMETIC.match(question)
    if not match or not re.search(r"\d\s*[+\-*/×÷]\s*[\d(（]", match.group(1)):
        return None
    expression = match.group(1).replace("×", "*").replace("÷", "/").replace("（", "(").replace("）", ")")
    try:
        return _evaluate(ast.parse(expression.strip(), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return float(_OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right)))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    raise ValueError("not arithmetic")
