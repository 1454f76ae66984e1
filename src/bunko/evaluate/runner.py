"""Ask one opened collection every golden question and record what came back.

Retrieval metrics are measured on ``Bunko.search`` with the largest k asked for (so recall@10 is
possible while ``ask`` uses ``[retrieve] k``); answer metrics, stage latencies and token use on
``Bunko.ask`` and the trace it returns — the same path a user's question takes, not a re-implementation of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from bunko.engine import Bunko
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.records import CitationRecord, HitRecord, PassageRecord, QuestionRecord, SentenceRecord
from bunko.schema import Answer, Chunk, Hit
from bunko.trace import Trace, TracedHit

QuestionProgress = Callable[[int, int, GoldenItem], None]


def usage_from_trace(trace: Trace) -> dict[str, float]:
    """Tokens of every model call the trace records (LLM grade and generation), and their cost when priced.

    Empty for the extractive generator without an LLM grader: no model, nothing to count. ``cost`` is
    absent, not 0, when ``[llm]`` gives no prices, so the cost metric averages only over priced runs.
    """
    usage = trace.usage
    if usage is None:
        return {}
    record = {"prompt_tokens": float(usage.prompt_tokens), "completion_tokens": float(usage.completion_tokens),
              "total_tokens": float(usage.total_tokens)}
    if usage.cost is not None:
        record["cost"] = usage.cost
    return record


def hit_record(hit: Hit) -> HitRecord:
    return chunk_record(hit.chunk, hit.score)


def chunk_record(chunk: Chunk, score: float) -> HitRecord:
    return HitRecord(
        chunk_id=chunk.chunk_id, source=chunk.source, section_path=list(chunk.section_path), pages=list(chunk.pages),
        kinds=list(chunk.kinds), score=float(score), text=chunk.text,
    )


def sentence_records(answer: Answer) -> list[SentenceRecord]:
    return [
        SentenceRecord(
            text=s.text, verdict=s.verdict, support=s.support,
            citations=[CitationRecord(c.chunk_id, c.source, c.page) for c in s.citations],
        )
        for s in answer.sentences
    ]


def known_passages(kb: Bunko, chunk_ids: Iterable[str], hits: Sequence[HitRecord]) -> dict[str, HitRecord]:
    """Each of `chunk_ids` with its text: the searched hit when the chunk is among them (what retrieval handed on), else
    the stored chunk, read in one call; a chunk neither holds is left out."""
    wanted = list(dict.fromkeys(chunk_ids))
    searched = {h.chunk_id: h for h in hits}
    missing = [chunk_id for chunk_id in wanted if chunk_id not in searched]
    known = {c.chunk_id: chunk_record(c, 0.0) for c in kb.store.get_chunks(missing)} if missing else {}
    known.update((chunk_id, searched[chunk_id]) for chunk_id in wanted if chunk_id in searched)
    return known


def cited_passages(answer: Answer, known: Mapping[str, HitRecord]) -> list[PassageRecord]:
    """Each chunk the answer cites, once, numbered as its text numbers them (order of first citation), with its text
    (`known_passages`); a chunk neither retrieval nor the store holds (none should) keeps the quotes the citations
    carry, so a judge never reads an empty passage."""
    first: dict[str, list[str]] = {}
    labels: dict[str, tuple[str, list[str], list[int]]] = {}
    for sentence in answer.sentences:
        for citation in sentence.citations:
            first.setdefault(citation.chunk_id, [])
            if citation.quote and citation.quote not in first[citation.chunk_id]:
                first[citation.chunk_id].append(citation.quote)
            pages = [citation.page] if citation.page is not None else []
            labels.setdefault(citation.chunk_id, (citation.source, list(citation.section_path), pages))
    passages = []
    for number, (chunk_id, quotes) in enumerate(first.items(), start=1):
        source, section_path, pages = labels[chunk_id]
        if chunk_id in known:
            passage = known[chunk_id]
            source, section_path, pages, text = passage.source, list(passage.section_path), list(passage.pages), passage.text
        else:
            text = "\n".join(quotes)
        passages.append(PassageRecord(number, chunk_id, source, section_path, pages, text))
    return passages


def traced_evidence(answer: Answer) -> list[TracedHit]:
    """The passages the answerer ranked as evidence: the rewrite's when the grade asked for one."""
    return (answer.trace.rewrite or answer.trace.evidence).hits if answer.trace is not None else []


def evidence_passages(answer: Answer, known: Mapping[str, HitRecord], cited: Sequence[PassageRecord]) -> list[HitRecord]:
    """The passages the answer was drawn from, in the order the answerer ranked them, then each chunk it cites that they
    do not hold (a table lookup's rows), with their text (`known_passages`, and a cited passage's own)."""
    passages = [replace(known[h.chunk_id], score=h.score) for h in traced_evidence(answer) if h.chunk_id in known]
    held = {p.chunk_id for p in passages}
    passages += [
        HitRecord(p.chunk_id, p.source, list(p.section_path), list(p.pages), text=p.text) for p in cited if p.chunk_id not in held
    ]
    return passages


def evaluate_question(kb: Bunko, item: GoldenItem, k: int) -> QuestionRecord:
    record = QuestionRecord(item_id=item.id, question=item.question)
    try:
        record.hits = [hit_record(h) for h in kb.search(item.question, k=k)]
        answer = kb.ask(item.question)
        cited_ids = [c.chunk_id for sentence in answer.sentences for c in sentence.citations]
        known = known_passages(kb, [*cited_ids, *(h.chunk_id for h in traced_evidence(answer))], record.hits)
        cited = cited_passages(answer, known)
        evidence = evidence_passages(answer, known, cited)
    except Exception as exc:  # one failing question is a result to report, not a reason to lose the run
        record.error = f"{type(exc).__name__}: {exc}"
        return record
    record.answer = answer.text
    record.abstained = answer.abstained
    record.confidence = float(answer.confidence)
    record.sentences = sentence_records(answer)
    record.trace_id = answer.trace_id
    record.cited = cited
    record.evidence = evidence
    if answer.trace is not None:
        record.timings = dict(answer.trace.timings)
        record.usage = usage_from_trace(answer.trace)
        if answer.abstained:
            record.draft = answer.trace.grade.quoted
    return record


def evaluate_collection(
    kb: Bunko, items: Sequence[GoldenItem], k: int, progress: QuestionProgress | None = None,
) -> list[QuestionRecord]:
    """One record per item, in the golden set's order (the order the paired bootstrap relies on)."""
    records = []
    for index, item in enumerate(items):
        records.append(evaluate_question(kb, item, k))
        if progress is not None:
            progress(index + 1, len(items), item)
    return records
