"""Chunking strategies side by side: retrieval recall@5 and MRR on real manuals, and chunking speed.

    apt-get install debian-reference-en debian-reference-ja debian-reference-zh-cn
    python bench/bench_chunking.py [--chapters ch03 ch04 ch05 ch06 ch07 ch08 apa] [--questions 120] [--langs en ja zh-cn]

Corpus: chapters of the Debian Reference in English, Japanese and Chinese (the
HTML under /usr/share/debian-reference/), one collection per language and
strategy, ingested with the default engine (USE embedder, hybrid search).

Labelled set, built here: a sentence is drawn from a paragraph of a random
section (one per section, a sentence that occurs once in the corpus), and
turned into a query by dropping stop words, particles and half of the
remaining words at random (Chinese is cut into two-character words first).
The answer location is known: the sentence, in its section.

A hit is relevant ("evidence") when the text the reader gets — after parent
expansion — holds at least 60% of the sentence as one contiguous run
(whitespace ignored); "section" relevance only asks that the hit carries an
element of the labelled section. recall@5 and MRR (over the top 5) for both,
the mean context size of the top 5, integrity shares, and chunking speed
(chunks/s of `chunker.chunk` over the parsed documents; semantic includes its
sentence embeddings). Embeddings of identical texts are computed once across
strategies, so the run stays within minutes on 2 cores.

Writes bench/results/chunking.json and chunking.md.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import numpy as np

from bunko import Bunko, Config
from bunko.chunk.registry import CHUNKERS, get_chunker
from bunko.chunk.sizing import input_limit
from bunko.config import ChunkConfig
from bunko.embed.use_m3 import UseM3Embedder
from bunko.ingest.integrity import inspect_store
from bunko.parse.registry import ParserRegistry, default_registry
from bunko.schema import ParsedDocument
from bunko.text.sentences import split_sentences

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CORPUS = Path("/usr/share/debian-reference")
STRATEGIES = [*CHUNKERS, "auto", "heading@800", "parent_child@800"]
"""Every strategy at the default max_chars, templates ("auto"), and the former default (heading, 800 characters)."""
K = 5
EVIDENCE = 0.6
DROP = 0.5
QUESTIONS = 120

STOP_EN = frozenset(re.findall(r"\w+", """
    a an the of to in on at for by with from as is are was were be been it its this that these those and or but if then
    than so not no can could should would will may might must do does did you your we our they their there here which
    what when where who how also more most such into about over under only very
"""))
SEGMENT = re.compile(r"[A-Za-z0-9_.+/:-]+|[\u3040-\u309f]+|[\u30a0-\u30ff\u30fc]+|[\u3400-\u4dbf\u4e00-\u9fff]+")
KANA = re.compile(r"[\u3040-\u30ff]")
HAN = re.compile(r"[\u4e00-\u9fff]")
LENGTHS = {"en": (60, 260), "ja": (20, 120), "zh-cn": (16, 110)}


class CachedParsers:
    """A registry that parses each file once: every strategy's ingest gets a fresh copy of the same document."""

    def __init__(self, inner: ParserRegistry) -> None:
        self.inner = inner
        self.cache: dict[str, ParsedDocument] = {}

    def parser_for(self, path: Path, source: str) -> tuple[Any, str]:
        parser, mime = self.inner.parser_for(path, source)
        return _CachedParser(parser, self.cache), mime


class _CachedParser:
    def __init__(self, parser: Any, cache: dict[str, ParsedDocument]) -> None:
        self.parser, self.cache = parser, cache
        self.name, self.version, self.mimes = parser.name, parser.version, parser.mimes

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        key = f"{path.resolve()}\0{source}"
        if key not in self.cache:
            self.cache[key] = self.parser.parse(path, source, mime)
        return copy.deepcopy(self.cache[key])


class CachedEmbedder:
    """USE with a memory of every text it embedded: strategies that produce the same chunk pay once."""

    def __init__(self, inner: UseM3Embedder) -> None:
        self.inner = inner
        self.name, self.dimension, self.max_input_chars = inner.name, inner.dimension, inner.max_input_chars
        self.memory: dict[str, np.ndarray] = {}
        self.embedded = 0

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.memory))
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing), strict=True):
                self.memory[text] = vector
            self.embedded += len(missing)
        return np.stack([self.memory[t] for t in texts]) if texts else np.zeros((0, self.dimension), dtype=np.float32)


def squash(text: str) -> str:
    return "".join(text.split())


def script_ok(sentence: str, lang: str) -> bool:
    if lang == "ja":
        return bool(KANA.search(sentence))
    if lang == "zh-cn":
        return bool(HAN.search(sentence)) and not KANA.search(sentence)
    return sum(c.isascii() for c in sentence) >= 0.95 * len(sentence)


def make_query(sentence: str, lang: str, rng: random.Random) -> str:
    """Keywords of the sentence with half dropped: the words a user might remember, not the sentence."""
    segments = SEGMENT.findall(sentence)
    if lang == "en":
        segments = [s for s in segments if s.lower() not in STOP_EN]
    elif lang == "ja":
        segments = [s for s in segments if not (KANA.fullmatch(s[0]) and len(s) <= 2 and "\u3040" <= s[0] <= "\u309f")]
    else:
        segments = [w for s in segments for w in ([s[i : i + 2] for i in range(0, len(s), 2)] if HAN.match(s) else [s])]
    kept = [s for s in segments if rng.random() > DROP]
    if len(kept) < 3:
        kept = segments[:3]
    return " ".join(kept)


def build_questions(docs: list[ParsedDocument], lang: str, count: int, rng: random.Random) -> list[dict[str, Any]]:
    """One question per randomly chosen section, from a sentence found once in the corpus."""
    seen = Counter(squash(s) for d in docs for e in d.elements for s in split_sentences(e.text))
    low, high = LENGTHS[lang]
    candidates: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for doc in docs:
        for element in doc.elements:
            if element.kind != "paragraph" or len(element.section_path) < 2:
                continue
            for sentence in split_sentences(element.text):
                if low <= len(sentence) <= high and seen[squash(sentence)] == 1 and script_ok(sentence, lang):
                    candidates.setdefault((doc.source, tuple(element.section_path)), []).append(sentence)
    sections = sorted(candidates)
    rng.shuffle(sections)
    questions = []
    for source, path in sections[:count]:
        sentence = rng.choice(candidates[(source, path)])
        questions.append({"lang": lang, "source": source, "section": list(path), "sentence": sentence,
                          "query": make_query(sentence, lang, rng)})
    return questions


def covers(sentence: str, text: str) -> bool:
    needle, hay = squash(sentence), squash(text)
    if needle in hay:
        return True
    match = SequenceMatcher(None, needle, hay, autojunk=False).find_longest_match(0, len(needle), 0, len(hay))
    return match.size >= EVIDENCE * len(needle)


def rank_of(flags: list[bool]) -> int | None:
    return next((i + 1 for i, hit in enumerate(flags) if hit), None)


def summarize(rows: list[dict[str, Any]]) -> dict[str, float]:
    n = max(len(rows), 1)
    return {
        "n": len(rows),
        "recall@5": round(sum(r["rank"] is not None for r in rows) / n, 4),
        "mrr": round(sum(1 / r["rank"] for r in rows if r["rank"]) / n, 4),
        "section_recall@5": round(sum(r["section_rank"] is not None for r in rows) / n, 4),
        "section_mrr": round(sum(1 / r["section_rank"] for r in rows if r["section_rank"]) / n, 4),
        "context_chars@5": round(statistics.mean(r["context_chars"] for r in rows), 1) if rows else 0.0,
    }


def run_language(lang: str, chapters: list[str], questions_per_lang: int, work: Path, embedder: CachedEmbedder,
                 registry: CachedParsers, seed: int, strategies: list[str]) -> dict[str, Any]:
    docs_dir = work / lang / "docs"
    docs_dir.mkdir(parents=True)
    for chapter in chapters:
        shutil.copy(CORPUS / f"{chapter}.{lang}.html", docs_dir / f"{chapter}.{lang}.html")
    parsed = []
    for path in sorted(docs_dir.iterdir()):
        source = f"docs/{path.name}"
        parser, mime = registry.parser_for(path, source)
        doc = parser.parse(path, source, mime)
        doc.doc_id = source
        parsed.append(doc)
    chars = sum(len(e.text) for d in parsed for e in d.elements)
    questions = build_questions(parsed, lang, questions_per_lang, random.Random(f"{seed}-{lang}"))
    section_ids = {
        (d.source, tuple(path)): {e.element_id for e in d.elements if e.section_path == list(path)}
        for d in parsed for path in {tuple(q["section"]) for q in questions if q["source"] == d.source}
    }
    query_vectors = dict(zip([q["query"] for q in questions], embedder.embed([q["query"] for q in questions]), strict=True))
    print(f"[{lang}] {len(parsed)} documents, {chars} characters, {len(questions)} questions", flush=True)

    out: dict[str, Any] = {"documents": [d.source for d in parsed], "chars": chars, "questions": questions, "strategies": {}}
    for strategy in strategies:
        config = Config()
        name, _, size = strategy.partition("@")
        config.chunk.strategy = name
        if size:
            config.chunk.max_chars = int(size)
        chunker = get_chunker(name)
        chunk_seconds, made = float("inf"), 0
        for _ in range(1 if strategy == "semantic" else 3):  # best of 3; semantic's second run would hit the cache
            copies = [copy.deepcopy(d) for d in parsed]
            started = time.perf_counter()
            made = sum(len(chunker.chunk(d, config.chunk, embedder)) for d in copies)
            chunk_seconds = min(chunk_seconds, time.perf_counter() - started)

        started = time.perf_counter()
        kb = Bunko(work / lang / f".bunko-{strategy}", config=config, embedder=embedder, registry=registry)  # type: ignore[arg-type]
        report = kb.ingest(docs_dir)
        assert report.ok, [(j.source, j.error_detail) for j in report.failed]
        ingest_seconds = time.perf_counter() - started

        rows = []
        searcher = kb.searcher
        for q in questions:
            hits = searcher.search(q["query"], k=K, query_vector=query_vectors[q["query"]]).hits
            wanted = section_ids[(q["source"], tuple(q["section"]))]
            rows.append({
                "rank": rank_of([covers(q["sentence"], h.chunk.text) for h in hits]),
                "section_rank": rank_of([h.chunk.source == q["source"] and bool(wanted & set(h.chunk.element_ids)) for h in hits]),
                "context_chars": sum(len(h.chunk.text) for h in hits),
            })
        integrity = inspect_store(kb.store, input_limit(embedder))  # type: ignore[arg-type]
        searchable = [c for c in kb.chunks() if c.meta.get("searchable", True) is not False]
        kb.close()
        result = {
            **summarize(rows),
            "chunks": len(searchable),
            "mean_chunk_chars": round(statistics.mean(len(c.text) for c in searchable), 1),
            "chunks_per_s": round(made / chunk_seconds, 1) if chunk_seconds else None,
            "chars_per_s": round(chars / chunk_seconds) if chunk_seconds else None,
            "ingest_s": round(ingest_seconds, 2),
            "integrity": {k: integrity[k] for k in (
                "tables_split_share", "tables_split_without_header", "headings_crossed_share",
                "captions_separated_share", "truncated_share", "elements_missing_share",
            )},
            "ranks": [r["rank"] for r in rows],
        }
        out["strategies"][strategy] = result
        print(f"[{lang}] {strategy:13} R@5 {result['recall@5']:.3f} MRR {result['mrr']:.3f} "
              f"secR@5 {result['section_recall@5']:.3f} chunks {result['chunks']} ctx {result['context_chars@5']:.0f} "
              f"{result['chunks_per_s']} chunks/s ingest {ingest_seconds:.1f}s", flush=True)
    return out


def overall(per_lang: dict[str, Any]) -> dict[str, Any]:
    table = {}
    for strategy in next(iter(per_lang.values()))["strategies"]:
        rows = []
        for lang, result in per_lang.items():
            s = result["strategies"][strategy]
            for rank, q in zip(s["ranks"], result["questions"], strict=True):
                rows.append({"rank": rank, "lang": lang, "q": q})
        n = len(rows)
        parts = [per_lang[lang]["strategies"][strategy] for lang in per_lang]
        weights = [p["n"] for p in parts]
        table[strategy] = {
            "recall@5": round(sum(r["rank"] is not None for r in rows) / n, 4),
            "mrr": round(sum(1 / r["rank"] for r in rows if r["rank"]) / n, 4),
            "section_recall@5": round(sum(p["section_recall@5"] * w for p, w in zip(parts, weights, strict=True)) / n, 4),
            "section_mrr": round(sum(p["section_mrr"] * w for p, w in zip(parts, weights, strict=True)) / n, 4),
            "context_chars@5": round(sum(p["context_chars@5"] * w for p, w in zip(parts, weights, strict=True)) / n, 1),
            "chunks": sum(p["chunks"] for p in parts),
            "mean_chunk_chars": round(statistics.mean(p["mean_chunk_chars"] for p in parts), 1),
            "chunks_per_s": round(statistics.mean(p["chunks_per_s"] for p in parts), 1),
            "by_lang": {lang: {"recall@5": per_lang[lang]["strategies"][strategy]["recall@5"],
                               "mrr": per_lang[lang]["strategies"][strategy]["mrr"]} for lang in per_lang},
        }
    return table


def markdown(table: dict[str, Any], per_lang: dict[str, Any], meta: dict[str, Any]) -> str:
    langs = list(per_lang)
    defaults = ChunkConfig()
    sizes = ", ".join(f"{lang}: {per_lang[lang]['chars']:,} chars" for lang in langs)
    counts = ", ".join(f"{lang} {len(per_lang[lang]['questions'])}" for lang in langs)
    lines = [
        "# Chunking strategies (bench/bench_chunking.py)",
        "",
        f"Command: `{meta['command']}` — {meta['seconds']:.0f} s on this machine.",
        "",
        f"Corpus: Debian Reference chapters {', '.join(meta['chapters'])} in {', '.join(langs)} "
        f"({sizes}); "
        f"{sum(len(per_lang[lang]['questions']) for lang in langs)} generated questions "
        f"({counts}). "
        f"Default engine (USE, hybrid search); max_chars {defaults.max_chars} unless a row says name@max_chars; "
        f"parent_child parents {defaults.parent_max_chars}.",
        "",
        "Evidence: the top-5 text (after parent expansion) holds ≥60% of the source sentence. "
        "Section: a top-5 hit carries an element of the labelled section.",
        "",
        "| strategy | recall@5 | MRR | " + " | ".join(f"{lang} R@5" for lang in langs)
        + " | section R@5 | section MRR | context chars@5 | chunks | mean chars | chunks/s |",
        "|---|" + "---|" * (7 + len(langs)),
    ]
    for strategy, row in sorted(table.items(), key=lambda item: (-item[1]["recall@5"], -item[1]["mrr"])):
        lines.append(
            f"| {strategy} | {row['recall@5']:.3f} | {row['mrr']:.3f} | "
            + " | ".join(f"{row['by_lang'][lang]['recall@5']:.3f}" for lang in langs)
            + f" | {row['section_recall@5']:.3f} | {row['section_mrr']:.3f} | {row['context_chars@5']:.0f} | "
            f"{row['chunks']} | {row['mean_chunk_chars']:.0f} | {row['chunks_per_s']:.0f} |"
        )
    lines += ["", "Integrity (en / ja / zh-cn): tables split without header, chunks crossing headings.", "",
              "| strategy | " + " | ".join(f"{lang} tables split w/o header" for lang in langs)
              + " | " + " | ".join(f"{lang} headings crossed" for lang in langs) + " |",
              "|---|" + "---|" * (2 * len(langs))]
    for strategy in table:
        integrity = [per_lang[lang]["strategies"][strategy]["integrity"] for lang in langs]
        lines.append(f"| {strategy} | " + " | ".join(str(i["tables_split_without_header"]) for i in integrity) + " | "
                     + " | ".join(f"{i['headings_crossed_share'] or 0:.1%}" for i in integrity) + " |")
    examples = [q for lang in langs for q in per_lang[lang]["questions"][:2]]
    lines += ["", "Example questions:", ""] + [f"- ({q['lang']}) `{q['query']}` ← {q['sentence']}" for q in examples]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chapters", nargs="+", default=["ch03", "ch04", "ch05", "ch06", "ch07", "ch08", "apa"])
    parser.add_argument("--langs", nargs="+", default=["en", "ja", "zh-cn"])
    parser.add_argument("--questions", type=int, default=QUESTIONS, help="Questions per language.")
    parser.add_argument("--strategies", nargs="+", default=STRATEGIES, help="Names, or name@max_chars.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=str(RESULTS / "chunking"))
    args = parser.parse_args()
    if not CORPUS.exists():
        raise SystemExit(f"{CORPUS} not found: apt-get install debian-reference-en debian-reference-ja debian-reference-zh-cn")
    started = time.perf_counter()
    embedder = CachedEmbedder(UseM3Embedder(threads=1))
    registry = CachedParsers(default_registry())
    per_lang = {}
    with tempfile.TemporaryDirectory() as tmp:
        for lang in args.langs:
            per_lang[lang] = run_language(lang, args.chapters, args.questions, Path(tmp), embedder, registry, args.seed, args.strategies)
    table = overall(per_lang)
    seconds = time.perf_counter() - started
    command = "python bench/bench_chunking.py" + (
        "" if args.chapters == parser.get_default("chapters") else " --chapters " + " ".join(args.chapters)
    ) + ("" if args.questions == QUESTIONS else f" --questions {args.questions}") + (
        "" if args.langs == parser.get_default("langs") else " --langs " + " ".join(args.langs)) + (
        "" if args.strategies == STRATEGIES else " --strategies " + " ".join(args.strategies))
    meta = {"command": command, "seconds": seconds, "chapters": args.chapters, "seed": args.seed,
            "texts_embedded": embedder.embedded}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"meta": meta, "overall": table, "languages": per_lang}, ensure_ascii=False, indent=1),
                                        encoding="utf-8")
    out.with_suffix(".md").write_text(markdown(table, per_lang, meta), encoding="utf-8")
    print(markdown(table, per_lang, meta))


if __name__ == "__main__":
    main()
