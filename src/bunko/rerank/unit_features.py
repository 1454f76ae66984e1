"""What is measured of each quotable unit (sentence, table row, list item, code line) against a question.

The features are computed once per unit and read by two scorers: the learned reader (`bunko.rerank.reader`), which
decides what an extractive answer quotes and how likely that is to hold the asked fact, and the light reranker's
fixed weights (`bunko.rerank.light`). Each is a plain number so that a model can weigh it; none is a verdict.

Question-relative features (`similarity_gap`, `coverage_gap`) say how a unit stands against the best unit for the
same question: a model fitted on one corpus meets questions of other lengths and wordings on another, and the gap
to the best candidate transfers where the raw cosine does not.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import astuple, dataclass, fields

import numpy as np

from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh

_LEAD_IN = lazy_compile(rf"[:：]\s*$|{ja.LEAD_IN}|{zh.LEAD_IN}|{en.LEAD_IN}", re.IGNORECASE)
"""A unit that announces what follows ("…は次のとおりです。", "as follows:") points at the answer without being it."""
_SPACE = lazy_compile(r"\s+")


@dataclass(frozen=True)
class UnitFeatures:
    """One unit against one question; every field a float so that `vector()` is the model's input row."""

    similarity: float
    """Cosine of the unit (with its section heading) and the question."""
    coverage: float
    """Idf-weighted share of the question's terms the unit (with its heading) holds."""
    similarity_gap: float
    """similarity minus the best similarity of any unit for this question (≤ 0)."""
    coverage_gap: float
    """coverage minus the best coverage of any unit for this question (≤ 0)."""
    hit_rank: float
    """0 for a unit of the best hit, 1 for the next…: retrieval order as a weak prior."""
    identifiers: float
    """Share of the question's identifiers (option names, paths, package names) the unit holds; 0 when it asks none."""
    quoted: float
    """Share of the question's quoted phrases the unit (with its heading) writes."""
    looked_up: float
    """1 for a table row with a cell equal to a value or name the question gives (`evidence.looked_up_rows`)."""
    states_quantity: float
    """1 when the question asks how many/much and the unit states a number."""
    quantity_missing: float
    """1 when the question asks how many/much and the unit states no number."""
    lead_in: float
    """1 when the unit announces what follows instead of saying it ("as follows:", "次のとおり")."""
    introduces: float
    """1 for a sentence followed in its passage by a list item, table row or code: it most often introduces them
    ("the password must meet these requirements."), and the answer is in what follows."""
    type_held: float
    """1 when the question asks a checkable kind (option, path, command…) and the unit holds one."""
    type_missing: float
    """1 when the question asks a checkable kind and the unit holds none."""
    code_for_command: float
    """1 for a code line when the question asks for a command or an option."""
    key_share: float
    """Idf-weighted share of the question's rare key terms that the unit's passage names."""
    names_subject: float
    """1 when the unit's passage names the question's subject (its rarest key term), or it names none."""
    same_language: float
    """1 when the unit is in the question's language."""
    is_row: float
    is_code: float
    length: float
    """log(1 + characters) / 6: long units say more, and more that is not the answer."""
    position: float
    """log(1 + the unit's place in its passage) / 3."""
    after_match: float
    """Coverage of the best-covering of the two units before this one in its passage: the sentence that matches a
    question best often restates it, and its answer stands right after."""
    new_identifiers: float
    """1 when the unit holds an identifier (a name with digits, dots, dashes or slashes: an option, a path, a
    version, a package) that the question does not write: what a which-tool or which-file question asks for."""
    novelty: float
    """Share of the unit's own terms the question does not write: an answer says something the question does not
    (the tool's name, the value), a restatement of the question says little else."""
    query_passage: float = 0.0
    """Cosine of the question embedded as a query and the unit (with its heading) as a passage by a retrieval-trained
    asymmetric model (`bunko.rerank.query_passage`); 0 unless `[answer] query_passage` is on."""
    query_passage_gap: float = 0.0
    """query_passage minus the best query_passage of any unit for this question (≤ 0)."""

    def vector(self) -> np.ndarray:
        return np.asarray(astuple(self), dtype=np.float64)


FEATURE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(UnitFeatures))


def folded(text: str) -> str:
    """Text compared as written whatever its width, case and spacing (NFKC, case-folded, no whitespace)."""
    return _SPACE.sub("", unicodedata.normalize("NFKC", text).casefold())


_LIST_ITEM = lazy_compile(r"^\s*(?:[-*•・]|\d{1,3}[.)．、])\s*")
"""A list item's marker: a bullet, or a number with a dot or parenthesis."""


def is_list_item(text: str) -> bool:
    return bool(_LIST_ITEM.match(text))


def is_lead_in(text: str) -> bool:
    return bool(_LEAD_IN.search(text))


def length_feature(text: str) -> float:
    return math.log1p(len(text)) / 6.0


def position_feature(position: int) -> float:
    return math.log1p(position) / 3.0
