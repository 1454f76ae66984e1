"""Draft golden questions from a collection's own chunks, for a person to review.

Writing 50 questions by hand is what keeps teams from having a golden set at all; correcting
50 drafted ones takes minutes. Drafts are extractive — no model invents anything — and come
from two patterns that yield one clear, checkable answer:

- **table cells**: row label × column header → "What is the {column} for {row}?" (ja/zh/en
  templates), the cell as expected answer, type ``table``;
- **quantities in sentences**: a number with a unit ("30日", "5天", "24 hours", "$50") is
  replaced by the matching question word (何日 / 多少天 / how many hours / how much), the
  quantity becomes the expected answer, type ``fact``.

A quantity is asked about only in a sentence that states something (`clear_statement`: a subject and a verb,
not an address, a contact line, a run of names or a row of figures).

Every draft carries ``"draft": true`` (``bunko eval run`` skips drafts until a person removes
the flag), ``relevant_sources`` (which survives re-chunking, unlike a chunk id) and a ``notes``
field quoting the chunk and sentence it came from. Absent-answer questions cannot be drafted
from the documents; they must be added by hand.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bunko.evaluate.golden import GoldenItem
from bunko.schema import Chunk
from bunko.text import lexicon
from bunko.text.languages import query_language
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh
from bunko.text.sentences import split_sentences

_NUM = r"(?<![\d×xX*/:.,])\d+(?:[,，]\d{3})*(?:[.．]\d+)?(?![\d×:])"
_JA_QUANTITY = lazy_compile(rf"({_NUM})\s*({'|'.join(map(re.escape, ja.QUANTITY_UNITS))})")
_ZH_QUANTITY = lazy_compile(rf"({_NUM})\s*({'|'.join(map(re.escape, zh.QUANTITY_UNITS))})")
_EN_QUANTITY = lazy_compile(rf"(?<![\w])({_NUM})\s?({'|'.join(map(re.escape, en.QUANTITY_UNITS))})(?![\w])")
_EN_MONEY = lazy_compile(rf"[$€£¥]\s?{_NUM}|{_NUM}\s?(?:{en.MONEY_UNITS})\b")
_MARKUP = lazy_compile(r"\*\*|__|`")
_LIST_MARK = lazy_compile(r"^\s*(?:[-*+•・]|\d+[.)、])\s+")
_SEPARATOR_ROW = lazy_compile(r"^\|?\s*:?-{2,}")


_ADDRESS = {language: lazy_compile(lexicon.for_language(language).ADDRESS_MARKERS) for language in lexicon.LANGUAGES}
"""Addresses and contact lines: their numbers are postcodes and house numbers, not facts a question can ask about."""
_EN_VERB = lazy_compile(en.PROSE_VERBS)
_JA_PREDICATE = lazy_compile(ja.PREDICATE_ENDING)
_JA_PARTICLE = lazy_compile(ja.PARTICLES)
_ZH_VERB = lazy_compile(zh.PROSE_VERBS)


def clear_statement(sentence: str, lang: str) -> bool:
    """Whether a sentence states a fact about something a question can name: a subject and a verb in prose, not an
    address, a contact line, a heading of proper names or a row of figures ("P.O. Box 94079, 1090 GB Amsterdam,
    Netherlands" drafted "Box 94079, how many GB Amsterdam, Netherlands?")."""
    if _ADDRESS[lang].search(sentence):
        return False
    digits = sum(c.isdigit() for c in sentence)
    wordish = sum(c.isalnum() for c in sentence)
    dense = 0.25 if lang == "en" else 0.5  # a Han or kana character says as much as an English word
    if not wordish or digits / wordish > dense or len(re.findall(r"\d+(?:[.,]\d+)*", sentence)) > 3:
        return False
    if lang == "en":
        words = re.findall(r"[A-Za-z][A-Za-z'-]*", sentence)
        if len(words) < 4:
            return False
        capitalised = sum(w[0].isupper() for w in words[1:])
        if capitalised / max(1, len(words) - 1) > 0.5:  # a run of names (a place, a title), not a sentence
            return False
        return bool(_EN_VERB.search(sentence))
    if lang == "ja":
        return bool(_JA_PARTICLE.search(sentence)) and bool(_JA_PREDICATE.search(sentence.strip()))
    return bool(_ZH_VERB.search(sentence))


@dataclass(frozen=True)
class Draft:
    question: str
    answer: str
    lang: str
    type: str
    chunk: Chunk
    origin: str


def _ja_question(sentence: str, match: re.Match[str]) -> str | None:
    unit = match.group(2)
    wh = "いくら" if unit in ("円", "万円") else "何パーセント" if unit in ("%", "％") else "何" + unit
    body = (sentence[: match.start()] + wh + sentence[match.end():]).rstrip("。．. ")
    if body.endswith(("ください", "こと")) or body.endswith("ことのこと"):
        body = body.removesuffix("こと")
        if body.endswith("ください"):
            return None  # a request, not a statement: no natural question
    if body.endswith(("です", "ます")):
        return body + "か？"
    if body.endswith(tuple("るうくすつぬむぶぐた")):
        return body + "のですか？"
    return body + "ですか？"


def _zh_question(sentence: str, match: re.Match[str]) -> str:
    unit = match.group(2)
    wh = "百分之多少" if unit in ("%", "％") else "多少" + unit
    return (sentence[: match.start()] + wh + sentence[match.end():]).rstrip("。．. ；;") + "？"


def _en_question(sentence: str, start: int, end: int, wh: str) -> str:
    return (sentence[:start] + wh + sentence[end:]).rstrip(". ;:") + "?"


def _is_date(sentence: str, match: re.Match[str]) -> bool:
    """Dates make poor questions ("施行日は何年…"): 2024年 is a year and 10月1日 a day, not quantities."""
    if match.group(2) == "年" and len(match.group(1)) == 4:
        return True
    return match.group(2) == "日" and sentence[: match.start()].endswith("月")


def _is_per_unit(sentence: str, match: re.Match[str]) -> bool:
    """"1日2時間", "1人あたり": a 1 that only sets the unit of another quantity is not the fact asked for."""
    rest = sentence[match.end():].lstrip()
    return match.group(1) == "1" and (rest.startswith(("あたり", "当たり")) or rest[:1].isdigit())


def _quantity(pattern: re.Pattern[str], sentence: str) -> re.Match[str] | None:
    return next((m for m in pattern.finditer(sentence) if not _is_date(sentence, m) and not _is_per_unit(sentence, m)), None)


def quantity_question(sentence: str, lang: str) -> tuple[str, str] | None:
    """(question, expected answer) from a sentence with a quantity, or None."""
    if lang == "ja" and (match := _quantity(_JA_QUANTITY, sentence)):
        question = _ja_question(sentence, match)
        return (question, match.group(0)) if question else None
    if lang == "zh" and (match := _quantity(_ZH_QUANTITY, sentence)):
        return _zh_question(sentence, match), match.group(0)
    if lang == "en" and sentence[:1].isupper():
        if money := _EN_MONEY.search(sentence):
            return _en_question(sentence, money.start(), money.end(), "how much"), money.group(0)
        if (match := _quantity(_EN_QUANTITY, sentence)) and match.start() > 0:
            unit = match.group(2)
            wh = "what percentage" if unit in ("%", "percent") else f"how many {unit}"
            return _en_question(sentence, match.start(), match.end(), wh), match.group(0)
    return None


def table_question(row: str, column: str, section: str, lang: str) -> str:
    if lang == "ja":
        return f"「{section}」で、{row}の{column}は何ですか？" if section else f"{row}の{column}は何ですか？"
    if lang == "zh":
        return f"在“{section}”中，{row}的{column}是多少？" if section else f"{row}的{column}是多少？"
    return f'In "{section}", what is the {column} for {row}?' if section else f"What is the {column} for {row}?"


def _cells(line: str) -> list[str]:
    return [_MARKUP.sub("", cell).strip() for cell in line.strip().strip("|").split("|")]


def split_blocks(text: str) -> tuple[list[list[list[str]]], list[str]]:
    """Markdown pipe tables (as rows of cells, header first) and the prose lines around them."""
    tables: list[list[list[str]]] = []
    prose: list[str] = []
    current: list[list[str]] = []
    for line in text.splitlines():
        if line.lstrip().startswith("|"):
            if not _SEPARATOR_ROW.match(line.strip()):
                current.append(_cells(line))
            continue
        if current:
            tables.append(current)
            current = []
        prose.append(line)
    if current:
        tables.append(current)
    return tables, prose


def chunk_drafts(chunk: Chunk, lang: str) -> Iterator[Draft]:
    """Drafts from one chunk written in `lang` (the document's language: a line of digits and Han
    in a Japanese document is still Japanese)."""
    section = chunk.section_path[-1] if chunk.section_path else ""
    tables, prose = split_blocks(chunk.text)
    for table in tables:
        if len(table) < 2:
            continue
        header = table[0]
        for row in table[1:]:
            for index in range(1, min(len(header), len(row))):
                value = row[index]
                if row[0] and header[index] and value and any(c.isdigit() for c in value) and len(value) <= 40:
                    yield Draft(table_question(row[0], header[index], section, lang), value, lang, "table", chunk, " | ".join(row))
    for line in prose:
        for sentence in split_sentences(_MARKUP.sub("", _LIST_MARK.sub("", line))):
            if not 12 <= len(sentence) <= 200 or not clear_statement(sentence, lang):
                continue
            found = quantity_question(sentence, lang)
            if found:
                yield Draft(found[0], found[1], lang, "fact", chunk, sentence)


def draft_questions(chunks: Sequence[Chunk], n: int = 30, seed: int = 0, prefix: str = "draft") -> list[GoldenItem]:
    """Up to `n` drafts, taken in turn from each source so every document is represented; reproducible by `seed`."""
    rng = random.Random(seed)
    texts: dict[str, list[str]] = {}
    for chunk in chunks:
        texts.setdefault(chunk.source, []).append(chunk.text)
    languages = {source: query_language("\n".join(parts)[:4000]) for source, parts in texts.items()}
    by_source: dict[str, list[Draft]] = {}
    for chunk in chunks:
        by_source.setdefault(chunk.source, []).extend(chunk_drafts(chunk, languages[chunk.source]))
    queues = []
    for source in sorted(by_source):
        drafts = by_source[source]
        rng.shuffle(drafts)
        queues.append(drafts)
    chosen: list[Draft] = []
    seen_questions: set[str] = set()
    while len(chosen) < n and any(queues):
        for queue in queues:
            while queue and len(chosen) < n:
                draft = queue.pop()
                if draft.question not in seen_questions:
                    seen_questions.add(draft.question)
                    chosen.append(draft)
                    break
    return [
        GoldenItem(
            id=f"{prefix}-{index:03d}", question=d.question, expected_answers=(d.answer,), relevant_sources=(d.chunk.source,),
            lang=d.lang, type=d.type, draft=True, notes=f"from {d.chunk.chunk_id}: {d.origin[:160]}",
        )
        for index, d in enumerate(chosen, start=1)
    ]
