"""One sentence pipeline for every generator: check, filter, mask and render sentences one at a time.

Whatever wrote the answer (the extractive reader, a chat model, a table's computed sentence), its sentences pass
here: each sentence's ``[n]`` markers are checked against the chunks they name, the policy applied, and the kept
sentences rendered with citation numbers in order of first use. Streaming feeds the same pipeline sentence by
sentence, so what a user watches appear is exactly the final ``Answer.text``.

What each policy does with a sentence the check did not support (``unsupported``: its cited chunks do not back it;
``uncited``: it names no valid source):

- standard: a model's sentence is shown followed by the unverified mark (［未確認］, ［未核实］, [unverified]:
  `citation_marks.render_sentence`), and the answer ends with a notice saying what the mark means; the extractive
  reader's sentences are quotes of the chunks they cite and are never marked (a short quote, an option name, can
  miss the check's thresholds while being the document's own words);
- strict and regulated: dropped (``Generation.removed``), personal data masked.

A sentence a model writes twice (the same words after NFKC, case and spacing are folded) is dropped the second time,
under every policy (verdict ``repeated`` in the trace). How much of what the model wrote the check supported sets
the confidence of its answer (`checked_confidence`).
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bunko.generate.citation_marks import UNVERIFIED, CitationNumbers, render_sentence, separator
from bunko.generate.citations import SUPPORTED, UNCITED, UNSUPPORTED, CheckedSentence, CitationChecker, parse_sentences
from bunko.generate.extractive import citation_for
from bunko.generate.guardrails import STANDARD, mask_pii, masks_personal_data
from bunko.generate.language import is_abstention
from bunko.schema import AnswerSentence, Hit
from bunko.text.injection import escape_control, neutralise
from bunko.text.lazy_regex import lazy_compile

REPEATED = "repeated"
"""The verdict the trace gives a sentence the model had already written."""
CHECKED = (SUPPORTED, UNSUPPORTED, UNCITED)
STOPPED_ENOUGH = "enough_sentences"
"""Why a model's stream was closed early: the answer holds the `max_sentences` it asked for."""
STOPPED_REPEATING = "repeating"
"""Why a model's stream was closed early: it is writing sentences it had already written."""
LOOPING_REPEATS = 2
"""Sentences written again before the model is taken to be looping: one can be a restatement, a second is the loop a
greedy small model runs until its token limit."""


def supported_count(pipeline: SentencePipeline) -> int:
    return sum(1 for v in pipeline.verdicts if v.get("verdict") == SUPPORTED)


_PARTIAL_MARKER = lazy_compile(r"\s*[\[［【][\d\s,，、]*$")
"""A citation mark still being written at the end of a stream: it belongs to the sentence before it."""
_LIST_MARKER = lazy_compile(r"^\s*(?:[-*•・①-⑳]+\s*|\(?\d{1,3}[.)]\s+|\d{1,3}、)")


def sentence_key(text: str) -> str:
    """What makes two sentences the same: their words, whatever the width, case, spacing, closing punctuation and
    list marker ("1. X" and "2. X" are one sentence written twice)."""
    folded = unicodedata.normalize("NFKC", _LIST_MARKER.sub("", text)).casefold()
    return re.sub(r"[\s.。!！?？]+", " ", folded).strip()


@dataclass(frozen=True)
class CheckedConfidence:
    """A model's answer's confidence: the grade's, times the share of its sentences the citation check supported."""

    grade: float
    """The grade's confidence for the evidence (the same number, fitted or not, the extractive answer reports)."""
    supported: int
    checked: int
    """The model's sentences the check judged (supported, unsupported or uncited; not its abstentions or repeats)."""

    @property
    def share(self) -> float:
        return self.supported / self.checked if self.checked else 0.0

    @property
    def confidence(self) -> float:
        return round(self.grade * self.share, 4)

    def to_dict(self) -> dict[str, float]:
        return {"grade": self.grade, "supported": self.supported, "checked": self.checked, "confidence": self.confidence}


def checked_confidence(grade: float, pipeline: SentencePipeline) -> CheckedConfidence:
    """How sure bunko is of an answer a chat model wrote.

    The grade decides whether the evidence is enough to answer from, for every generator, before anything is
    written; its confidence is the probability that the answer drawn from that evidence is right. A model can still
    write what the evidence does not say. So the model's answer keeps the grade's confidence only in the share of its
    sentences the citation check supported: 0.8 × 2 of 2 supported = 0.8, 0.8 × 1 of 3 = 0.27, and with no
    supported sentence 0, which abstains (`steps.check`). Sentences strict dropped count as written: the answer lost
    them. The model's own "the documents do not say" and its repeats are not counted.
    """
    checked = [v for v in pipeline.verdicts if v.get("verdict") in CHECKED]
    supported = sum(1 for v in checked if v.get("verdict") == SUPPORTED)
    return CheckedConfidence(grade, supported, len(checked))


class SentencePipeline:
    """Checks, filters, masks and renders sentences one at a time, so streaming and `ask` agree."""

    def __init__(self, checker: CitationChecker, hits: list[Hit], language: str, policy: str, max_sentences: int) -> None:
        """`checker` judges a model's sentences against `hits`; `policy` and `max_sentences` are `[answer]`'s."""
        self.checker = checker
        self.hits = hits
        self.language = language
        self.policy = policy
        self.max_sentences = max_sentences
        self.kept: list[AnswerSentence] = []
        self.numbers = CitationNumbers()
        self.text = ""
        self.raw = ""
        self.verdicts: list[dict[str, Any]] = []
        self.removed: list[str] = []
        self.masked: dict[str, int] = {}
        self.model_abstained = False
        self.check_seconds = 0.0
        self.seen: set[str] = set()
        self.marked = 0
        """Sentences shown with the unverified mark (a model's, under the standard policy)."""
        self.stopped: str | None = None
        """Why the model's stream was closed before it ended (`STOPPED_ENOUGH`, `STOPPED_REPEATING`), else None."""

    def feed_checked(self, checked: list[CheckedSentence], stream: bool) -> Iterator[str]:
        for item in checked:
            piece = self._accept(item, written=False)
            if piece and stream:
                yield piece

    def feed_computed(self, sentences: list[AnswerSentence], stream: bool) -> Iterator[str]:
        """Sentences computed from a table: rendered with their citations, personal data masked as the policy says."""
        for sentence in sentences:
            self.verdicts.append({"text": sentence.text, "sources": [c.chunk_id for c in sentence.citations], "verdict": SUPPORTED})
            if masks_personal_data(self.policy):
                sentence.text, found = mask_pii(sentence.text, self.language)
                for kind, count in found.items():
                    self.masked[kind] = self.masked.get(kind, 0) + count
            previous = self.kept[-1] if self.kept else None
            piece = separator(previous, sentence, self.language) + render_sentence(sentence, self.numbers, self.language)
            self.kept.append(sentence)
            self.text += piece
            if stream:
                yield piece

    def feed_text(self, deltas: Iterator[str], stream: bool) -> Iterator[str]:
        """Sentences are final once the next one has begun (a trailing "[1]" still belongs to its sentence).

        The model is stopped (its stream closed) once what it has written is all the answer will use: the sentences
        asked for are kept, or it is writing sentences again (`LOOPING_REPEATS`). Every sentence already received is still judged; the one being written when it stopped is not
        an answer sentence and is left in `raw` only."""
        done = 0
        for delta in deltas:
            self.raw += delta
            parsed = parse_sentences(_PARTIAL_MARKER.sub("", self.raw))  # "… minute. [1" has not begun a sentence
            while done < len(parsed) - 1:
                yield from self._one(parsed[done], stream)
                done += 1
            self.stopped = self._stop_reason()
            if self.stopped:
                close = getattr(deltas, "close", None)
                if close is not None:
                    close()
                return
        for pair in parse_sentences(self.raw)[done:]:
            yield from self._one(pair, stream)

    def _stop_reason(self) -> str | None:
        if len(self.kept) >= self.max_sentences:
            return STOPPED_ENOUGH
        if sum(v.get("verdict") == REPEATED for v in self.verdicts) >= LOOPING_REPEATS:
            return STOPPED_REPEATING
        return None

    def _one(self, pair: tuple[str, list[int]], stream: bool) -> Iterator[str]:
        text, _ = pair
        if is_abstention(text):
            self.model_abstained = True
            self.verdicts.append({"text": text, "verdict": "abstention"})
            return
        key = sentence_key(text)
        if key in self.seen:
            self.verdicts.append({"text": text, "verdict": REPEATED})
            return
        self.seen.add(key)
        timer = time.perf_counter()
        [item] = self.checker.check_sentences([pair], self.hits)
        attributed = False
        if not item.source_ids and (found := self.checker.attribute(item.text, self.hits)) is not None:
            item, attributed = found, True
        self.check_seconds += time.perf_counter() - timer
        piece = self._accept(item, attributed=attributed)
        if piece and stream:
            yield piece

    def _accept(self, item: CheckedSentence, written: bool = True, attributed: bool = False) -> str:
        """Record the verdict; under strict/regulated drop what is not supported and mask personal data (standard shows
        it, and its rendering carries the unverified mark). `attributed`: the model cited nothing and the check found
        the source that backs the sentence (`CitationChecker.attribute`)."""
        verdict = item.verdict if item.source_ids else UNCITED
        self.verdicts.append({
            "text": item.text, "sources": item.source_ids, "invalid_sources": item.invalid_ids, "lexical": item.lexical,
            "semantic": item.semantic, "numbers_ok": item.numbers_ok, "verdict": verdict,
            **({"attributed": True} if attributed else {}),
        })
        guarded = self.policy != STANDARD
        if guarded and verdict != SUPPORTED:
            self.removed.append(item.text)
            return ""
        if len(self.kept) >= max(self.max_sentences * 2, self.max_sentences + 2):
            return ""  # a runaway model; the prompt asked for max_sentences
        text = neutralise(item.text)
        citations = [
            citation_for(self.hits[i - 1], escape_control(item.quotes.get(i, self.hits[i - 1].chunk.text))) for i in item.source_ids
        ]
        if masks_personal_data(self.policy):
            text, found = mask_pii(text, self.language)
            for citation in citations:
                citation.quote, quote_found = mask_pii(citation.quote, self.language)
                found.update(quote_found)
            for kind, count in found.items():
                self.masked[kind] = self.masked.get(kind, 0) + count
        sentence = AnswerSentence(text=text, citations=citations, support=item.support, verdict=verdict)
        previous = self.kept[-1] if self.kept else None
        marked = written and verdict in UNVERIFIED
        self.marked += marked
        piece = separator(previous, sentence, self.language) + render_sentence(sentence, self.numbers, self.language, marked)
        self.kept.append(sentence)
        self.text += piece
        return piece
