"""Keyword search on the user's path against plain BM25 (issue 47): ranking and latency in one run, one machine.

    python bench/bench_keyword.py [--corpus handbook reference python questions] [--limit N] [--repeat R] [--no-hybrid]

Issue 47 measured bunko's keyword search (`Bunko.search(mode="keyword")`, 50 hits with their
chunk texts) at 25x to 99x the latency of bm25s and below bm25s over plain character bigrams in
nDCG@10. This bench puts the three side by side on page corpora (bench/page_corpora.py), each
query timed the way a caller meets it:

- **bunko-keyword**: `Bunko.search(question, k=50, mode="keyword")` on the collection bench_pages.py
  builds (default config), hits reduced to distinct pages in order; the clock runs from the
  question to the `Hit`s with their text.
- **bunko-keyword-core**: the same ranking without the hits: question → tokens → the keyword retriever's
  ranked chunk ids (BM25 candidates and their documents' BM25), mapped to pages by a dict; no chunk read, no `Hit`
  made. Its latency against bunko-keyword's is what building 50 hits with their text and parents costs.
- **bm25s-same-tokens**: the bm25s package (Lucene BM25, k1 1.5, b 0.75) over whole pages, each page
  tokenised by bunko's analyzer (page text = its searchable chunks), the query by the same analyzer
  after `query_text`; timed from the question to the top 10 page ids, tokenising included.
- **bm25s-bigrams**: the same over plain tokens: NFKC and lower case, every CJK run as overlapping
  character bigrams (a lone character as itself), every other run of word characters as a word;
  no stop words, no identifier parts, no question-phrase stripping. The issue's baseline.
- **bunko-hybrid** (unless ``--no-hybrid``): `Bunko.search(question, k=50, mode="hybrid")`; its
  latency includes embedding the question.

Corpora: handbook, reference, python (headings as known-item queries, 300 sampled a language) and
**questions**: the Debian Reference QA development set's answerable questions (fact, table,
multi-hop; ../shared/evalsets/debian-reference-qa) over the reference corpus's pages, a page of the
cited chapter in the question's language relevant; the gain is that of the first relevant page. Whole
questions, not headings: another kind of query over the same pages. Manual pages are never used here.

Every query is run `--repeat` times (default 3) per system, systems interleaved query by query so
that load on the shared machine falls on all of them alike; a query's latency is its minimum. Reports
nDCG@10 and p50/p90 latency per corpus and language, and the ratio of bunko's p50 to each bm25s's.
Writes bench/results/keyword.json and .md (``--out`` another stem).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import sys
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_pages as bp
import page_corpora as pc

from bunko.retrieve.base import Query
from bunko.retrieve.fusion import OneList
from bunko.retrieve.keyword import KeywordRetriever
from bunko.retrieve.router import Route
from bunko.schema import Hit
from bunko.text.analyzers import query_text
from bunko.text.scripts import CJK

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
K = 10
CHUNK_HITS = 50
QA_SET = ROOT.parent / "shared" / "evalsets" / "debian-reference-qa" / "questions.jsonl"
CORPORA = ("handbook", "reference", "python", "questions")
QA_LANGS = {"en": "en", "ja": "ja", "zh-cn": "zh"}

_PLAIN = re.compile(rf"(?P<cjk>[{CJK}]+)|(?P<word>[^\W_{CJK}]+)", re.UNICODE)


def plain_bigrams(text: str) -> list[str]:
    """The baseline tokenizer: CJK runs as character bigrams, other runs of word characters as words."""
    tokens: list[str] = []
    for match in _PLAIN.finditer(unicodedata.normalize("NFKC", text).lower()):
        run = match.group("cjk")
        if run:
            tokens.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
        else:
            tokens.append(match.group("word"))
    return tokens


def qa_queries(corpus: bp.Corpus) -> list[dict[str, Any]]:
    """The QA set's answerable questions, each with the pages of its cited chapter in its own language."""
    queries = []
    for line in QA_SET.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if q["tags"]["type"] == "absent":
            continue
        lang = q["tags"]["lang"]
        prefixes = tuple(f"{lang}/{name.split('.')[0]}-" for name in q["relevant_sources"]
                         if QA_LANGS.get(name.split(".")[1]) == lang)
        relevant = sorted(key for key in corpus.pages if key.startswith(prefixes))
        if relevant:
            queries.append({"id": q["id"], "lang": lang, "query": q["question"], "relevant": relevant, "kind": q["tags"]["type"]})
    return queries


Ranker = Callable[[str], list[str]]
"""question → page keys, best first."""


def page_keys(corpus: bp.Corpus) -> dict[str, str]:
    """Each stored source's page key, made before the clock runs: `page_key` parses a path (~4 µs), which timed
    per hit was a fifth of what the bunko rows measured."""
    return {doc.source: corpus.page_key(doc.source) for doc in corpus.kb.documents()}


def hit_record(hits: list[Hit] | list[list[Any]]) -> str:
    """What a keyword search answered, to compare runs: a digest of each hit's chunk id, score (every digit), the child
    that matched and the children it stands for, in order (a record already listed is digested as it is)."""
    listed = [h if isinstance(h, list) else
              [h.chunk.chunk_id, repr(h.score), h.chunk.meta.get("matched_child"), h.chunk.meta.get("children_hit")] for h in hits]
    return hashlib.sha1(json.dumps(listed, ensure_ascii=False).encode("utf-8")).hexdigest()


def bunko_ranker(corpus: bp.Corpus, mode: str, answered: dict[str, list[Hit]] | None = None) -> Ranker:
    """`answered` (question → `hit_record`) collects the hits, outside the clock's run (its last repeat's)."""
    kb = corpus.kb
    keys = page_keys(corpus)

    def run(question: str) -> list[str]:
        hits = kb.search(question, k=CHUNK_HITS, mode=mode)
        if answered is not None:
            answered[question] = hits  # made into a `hit_record` after the clock (`evaluate`)
        return list(dict.fromkeys(keys.get(h.chunk.source) or corpus.page_key(h.chunk.source) for h in hits))[:K]

    return run


def bunko_core_ranker(corpus: bp.Corpus) -> Ranker:
    """Keyword mode's ranking alone: the question's tokens, the store's BM25 candidates and their documents' BM25, the
    chunk ids mapped to pages by a dict built here: no chunk is read, no `Hit` is made."""
    kb = corpus.kb
    retriever = KeywordRetriever(kb.store.search(), kb.config.retrieve)
    page_of = {chunk.chunk_id: corpus.page_key(chunk.source) for chunk in kb.chunks()}

    def run(question: str) -> list[str]:
        tokens = kb.analyzer(query_text(question))
        fused = retriever.retrieve(Query(question, tokens, None, None, Route("keyword")), CHUNK_HITS)
        ids = fused.ids if isinstance(fused, OneList) else [cid for cid, _, _ in fused]  # a OneList's entries unmade
        return list(dict.fromkeys(page_of[cid] for cid in ids))[:K]

    return run


def bm25s_ranker(corpus: bp.Corpus, analyzer: Callable[[str], list[str]], strip_question: bool) -> Ranker:
    import bm25s

    keys = list(corpus.pages)
    retriever = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    retriever.index([analyzer(corpus.pages[key]) for key in keys], show_progress=False)

    def run(question: str) -> list[str]:
        tokens = analyzer(query_text(question) if strip_question else question)
        if not tokens:
            return []
        documents, scores = retriever.retrieve([tokens], k=min(K, len(keys)), show_progress=False)
        return [keys[int(d)] for d, s in zip(documents[0], scores[0], strict=True) if s > 0]

    return run


def first_rank(ranked: list[str], relevant: str | list[str]) -> int | None:
    wanted = {relevant} if isinstance(relevant, str) else set(relevant)
    return next((i + 1 for i, key in enumerate(ranked[:K]) if key in wanted), None)


def summary(ranks: list[int | None], ms: list[float]) -> dict[str, Any]:
    gains = np.array([bp.gain(r) for r in ranks]) if ranks else np.zeros(1)
    times = np.array(ms) if ms else np.zeros(1)
    return {"queries": len(ranks), "ndcg@10": round(float(gains.mean()), 4),
            "p50_ms": round(float(np.percentile(times, 50)), 3), "p90_ms": round(float(np.percentile(times, 90)), 3)}


def evaluate(corpus: bp.Corpus, queries: list[dict[str, Any]], hybrid: bool, repeat: int) -> dict[str, Any]:
    answered: dict[str, list[Hit]] = {}
    systems: dict[str, Ranker] = {
        "bunko-keyword": bunko_ranker(corpus, "keyword", answered),
        "bunko-keyword-core": bunko_core_ranker(corpus),
        "bm25s-same-tokens": bm25s_ranker(corpus, corpus.kb.analyzer, strip_question=True),
        "bm25s-bigrams": bm25s_ranker(corpus, plain_bigrams, strip_question=False),
    }
    if hybrid:
        systems["bunko-hybrid"] = bunko_ranker(corpus, "hybrid")
    for run in systems.values():  # warm-up, untimed: the first search loads the store's indexes and the embedder
        run(queries[0]["query"])
    ranks: dict[str, list[int | None]] = {name: [] for name in systems}
    ms: dict[str, list[float]] = {name: [] for name in systems}
    records: list[str] = []
    for q in queries:
        for name, run in systems.items():
            best = float("inf")
            for _ in range(repeat if name != "bunko-hybrid" else 1):
                started = time.perf_counter()
                ranked = run(q["query"])
                best = min(best, time.perf_counter() - started)
            ranks[name].append(first_rank(ranked, q["relevant"]))
            ms[name].append(best * 1000)
        records.append(hit_record(answered.pop(q["query"])))
    table: dict[str, dict[str, Any]] = {}
    for name in systems:
        for lang in pc.LANGS:
            picked = [i for i, q in enumerate(queries) if q["lang"] == lang]
            if picked:
                table.setdefault(name, {})[lang] = summary([ranks[name][i] for i in picked], [ms[name][i] for i in picked])
    for lang in table["bunko-keyword"]:
        mine = table["bunko-keyword"][lang]["p50_ms"]
        for peer in ("bm25s-same-tokens", "bm25s-bigrams"):
            table["bunko-keyword"][lang][f"p50_over_{peer}"] = round(mine / max(table[peer][lang]["p50_ms"], 1e-6), 2)
        for name in systems:
            table[name][lang]["ndcg_minus_bigrams"] = round(table[name][lang]["ndcg@10"] - table["bm25s-bigrams"][lang]["ndcg@10"], 4)
        print(f"  {lang}: " + "  ".join(f"{name} {table[name][lang]['ndcg@10']:.3f} {table[name][lang]['p50_ms']:.2f} ms"
                                        for name in systems), flush=True)
    return {"queries": len(queries), "table": table,
            "per_query": {name: {"rank": ranks[name], "ms": [round(m, 3) for m in ms[name]]} for name in systems},
            "ids": [q["id"] for q in queries], "keyword_hits": records}


def same_hits(results: dict[str, Any], other: dict[str, Any]) -> None:
    """Stop unless every query both runs asked was answered alike by bunko-keyword (`hit_record`); the count compared
    goes into the results."""
    compared, differ = 0, []
    for corpus, data in results["corpora"].items():
        theirs = other.get("corpora", {}).get(corpus)
        if theirs is None or "keyword_hits" not in theirs:
            continue
        their_hits = {query_id: hits if isinstance(hits, str) else hit_record(hits)  # a run that kept the records whole
                      for query_id, hits in zip(theirs["ids"], theirs["keyword_hits"], strict=True)}
        for query_id, hits in zip(data["ids"], data["keyword_hits"], strict=True):
            if query_id in their_hits:
                compared += 1
                if hits != their_hits[query_id]:
                    differ.append(f"{corpus} {query_id}")
    if differ or not compared:
        raise SystemExit(f"bunko-keyword hits differ from the other run's on {len(differ)} of {compared} queries: {differ[:10]}")
    results["same_hits_as_other_run"] = compared
    print(f"bunko-keyword: the same hits as the other run on all {compared} queries", flush=True)


def report(results: dict[str, Any]) -> str:
    lines = ["# Keyword search against plain BM25 (issue 47)", "",
             f"`{results['command']}` on {results['date']}, {results['machine']}; code {results['code']}.", "",
             "nDCG@10 and per-query latency (minimum of the repeats; p50/p90 over the queries). bunko's latency is "
             "`Bunko.search` from the question to 50 hits with their text; bm25s's from the question to 10 page ids, "
             "tokenising included.", ""]
    if "same_hits_as_other_run" in results:
        lines += [f"bunko-keyword's hits (ids, order, scores, matched children) were checked equal to another run's "
                  f"(`--same-as`) on all {results['same_hits_as_other_run']} queries both asked.", ""]
    for corpus, data in results["corpora"].items():
        lines += [f"## {corpus} ({data['queries']} queries)", "",
                  "| system | lang | nDCG@10 | − bigrams | p50 ms | p90 ms | p50 / bm25s-same | p50 / bm25s-bigrams |",
                  "|---|---|---|---|---|---|---|---|"]
        for name, langs in data["table"].items():
            for lang, row in langs.items():
                lines.append(f"| {name} | {lang} | {row['ndcg@10']:.3f} | {row['ndcg_minus_bigrams']:+.3f} | {row['p50_ms']:.3f} | "
                             f"{row['p90_ms']:.3f} | {row.get('p50_over_bm25s-same-tokens', '')} | {row.get('p50_over_bm25s-bigrams', '')} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", nargs="+", default=list(CORPORA), choices=list(CORPORA))
    parser.add_argument("--limit", type=int, help="only the first N queries of each language (a smoke test)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each query per system; its latency is the fastest")
    parser.add_argument("--no-hybrid", action="store_true", help="leave out bunko's hybrid search (no query embedding)")
    parser.add_argument("--same-as", help="a results .json of another run (another version's): fail unless bunko-keyword "
                        "answered every query shared by both with the same hits, in the same order, with the same scores")
    parser.add_argument("--out", default="keyword", help="results file stem under bench/results/ (or an absolute path stem)")
    args = parser.parse_args()
    results: dict[str, Any] = {"command": " ".join(["python bench/bench_keyword.py", *sys.argv[1:]]), "date": time.strftime("%Y-%m-%d %H:%M"),
                               "machine": f"{os.cpu_count()} cores, {platform.machine()}, load {os.getloadavg()[0]:.1f} at start",
                               "corpora": {}}
    loaded: dict[str, bp.Corpus] = {}
    try:
        for name in args.corpus:
            source = "reference" if name == "questions" else name
            if source not in loaded:
                loaded[source] = bp.load_corpus(source, False, None)
            corpus = loaded[source]
            queries = qa_queries(corpus) if name == "questions" else corpus.queries
            if args.limit is not None:
                queries = [q for lang in pc.LANGS for q in [q for q in queries if q["lang"] == lang][: args.limit]]
            print(f"{name}: {len(queries)} queries", flush=True)
            results.setdefault("code", bp.code_state(None)["commit"] + (" (uncommitted)" if bp.code_state(None)["uncommitted"] else ""))
            results["corpora"][name] = evaluate(corpus, queries, not args.no_hybrid, args.repeat)
    finally:
        for corpus in loaded.values():
            corpus.kb.close()
    results["machine"] += f", load {os.getloadavg()[0]:.1f} at end"
    if args.same_as:
        same_hits(results, json.loads(Path(args.same_as).read_text(encoding="utf-8")))
    out = RESULTS / args.out  # an absolute --out replaces the folder
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    out.with_suffix(".md").write_text(report(results), encoding="utf-8")
    print(f"wrote {out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
