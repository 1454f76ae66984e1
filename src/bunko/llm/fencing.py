"""Document text inside a prompt, fenced as data: what every prompt that quotes documents to a model does.

Retrieved text sits inside ``<source>`` tags. Text that could close the fence or fake a
chat-template turn is defused, so "ignore previous instructions" inside a document stays a
quotation, for the answer prompt (generate/prompts.py) and the LLM reranker's alike.
Sentences that address a model (`bunko.text.injection.looks_like_instruction`) are withheld
altogether: a fence declares them data, but a small model may still obey what it reads.
"""

from __future__ import annotations

import re

from bunko.text.injection import withhold_instructions
from bunko.text.lazy_regex import lazy_compile

_FENCE_BREAK = lazy_compile(r"<\s*(/?)\s*(source|system|user|assistant|instructions?)\b", re.IGNORECASE)
_TEMPLATE_TOKEN = lazy_compile(r"<\|[^|>]{0,40}\|>|<(?:start|end)_of_turn>|\[/?INST\]|<</?SYS>>", re.IGNORECASE)


def defuse(text: str) -> str:
    """Document text that cannot end its fence or open a chat turn (``<`` becomes ``‹``)."""
    text = _TEMPLATE_TOKEN.sub(lambda m: m.group().replace("<", "‹").replace(">", "›").replace("[", "(").replace("]", ")"), text)
    return _FENCE_BREAK.sub(lambda m: "‹" + m.group()[1:], text)


def _attribute(value: str) -> str:
    return defuse(value).replace('"', "'").replace("\n", " ")


def fence(source_id: int, location: str, text: str) -> str:
    """One source block; ``location`` is "source > section > p.N"."""
    where = f' from="{_attribute(location)}"' if location else ""
    return f'<source id="{source_id}"{where}>\n{defuse(withhold_instructions(text.strip()))}\n</source>'
