"""Retrieval that finds the evidence (issue 5): bunko against its peers, side by side in one run.

    python bench/bench_retrieval.py                      # everything: quality, analyzers, speed at 10k/100k/1M
    python bench/bench_retrieval.py --parts quality analyzers --langs ja zh
    python bench/bench_retrieval.py --parts speed --sizes 10000 100000 --speed-systems bunko-exact bm25s
    python bench/bench_retrieval.py --quick              # 10k speed only, 100 questions a language

Peers are bench-only (`pip install -e '.[bench]'`); a missing one is reported as skipped.

1. Quality — labelled set from real en/ja/zh documents (bench/retrieval_data.py, cached under
   bench/data/); nDCG@10, recall@10, MRR@10 with a 95 % bootstrap interval on nDCG.
   bunko keyword / dense / hybrid run through bunko's own LocalStore + Searcher (default
   RetrieveConfig), against rank_bm25 (BM25Okapi), bm25s (default tokenizer, and fed bunko's
   tokens), LlamaIndex VectorStoreIndex (default in-memory store), Chroma (ephemeral client)
   and LangChain's EnsembleRetriever (BM25Retriever + InMemoryVectorStore, equal weights).
   Every dense system gets the same USE multilingual v3 vectors (embedded once, cached).
2. Analyzers — ja/zh keyword tokens (bunko bigrams, bm25s default, Janome, SudachiPy, jieba)
   fed to the same BM25 (bm25s, Lucene variant, k1 1.5, b 0.75 — bunko's formula).
3. Speed — synthetic chunks (sentences of the real passages recombined, random unit vectors)
   at each size; one subprocess per system and size, so peak RSS is that system's; query
   latency with the query vector given (embedding excluded), build time, memory.

Writes bench/results/retrieval.json and bench/results/retrieval.md.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import io
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import retrieval_data as rd

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data"
RESULTS = ROOT / "bench" / "results"
K = 10
DIM = 512
SPEED_SEED = 7
CHUNKS_PER_DOC = 100
PEER_PACKAGES = ["rank-bm25", "bm25s", "llama-index-core", "chromadb", "langchain", "langchain-community", "langchain-classic",
                 "langchain-core", "janome", "sudachipy", "sudachidict-core", "jieba", "faiss-cpu", "numpy"]

warnings.filterwarnings("ignore")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


# -- small helpers ---------------------------------------------------------------------------

def peak_rss_mb() -> float:
    """This process's high-water RSS. VmHWM, not ru_maxrss: Linux carries ru_maxrss over fork + exec,
    so a worker would report at least its parent's size."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def release_memory() -> None:
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def ms_stats(times: Sequence[float]) -> dict[str, float]:
    values = np.asarray(times) * 1000
    return {"p50_ms": round(float(np.percentile(values, 50)), 3), "p95_ms": round(float(np.percentile(values, 95)), 3),
            "mean_ms": round(float(values.mean()), 3), "qps": round(float(len(values) / (values.sum() / 1000)), 1), "n": len(values)}


def quiet() -> contextlib.AbstractContextManager:
    """Peers print progress bars and banners; the benchmark's own output stays readable."""
    return contextlib.redirect_stderr(io.StringIO())


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in PEER_PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def machine() -> dict[str, Any]:
    mem = next((line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")), "0")
    return {"cores": os.cpu_count(), "mem_gb": round(int(mem) / 2**20, 1), "loadavg_at_start": os.getloadavg(),
            "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE")}


# -- data and vectors ------------------------------------------------------------------------

def load_set(args: argparse.Namespace) -> dict:
    return rd.load_or_build(args.questions, args.seed, args.python_doc_max, args.rebuild_set)


def vectors_for(data: dict) -> tuple[np.ndarray, np.ndarray, dict]:
    """USE vectors of every passage and question, embedded once and cached beside the set."""
    path = DATA / f"use-m3-{data['digest']}.npz"
    if path.exists():
        cached = np.load(path)
        return cached["passages"], cached["questions"], {"passage_s": float(cached["passage_s"]), "question_s": float(cached["question_s"]), "cached": True}
    from bunko.embed.use_m3 import UseM3Embedder

    embedder = UseM3Embedder(threads=1)
    started = time.perf_counter()
    passages = embedder.embed([p["text"] for p in data["passages"]]).astype(np.float32)
    passage_s = time.perf_counter() - started
    started = time.perf_counter()
    questions = embedder.embed([q["text"] for q in data["questions"]]).astype(np.float32)
    question_s = time.perf_counter() - started
    DATA.mkdir(parents=True, exist_ok=True)
    np.savez(path, passages=passages, questions=questions, passage_s=passage_s, question_s=question_s)
    return passages, questions, {"passage_s": passage_s, "question_s": question_s, "cached": False}


class Corpus:
    """One language's passages and questions with their vectors."""

    def __init__(self, data: dict, pvec: np.ndarray, qvec: np.ndarray, lang: str) -> None:
        rows = [i for i, p in enumerate(data["passages"]) if p["lang"] == lang]
        qrows = [i for i, q in enumerate(data["questions"]) if q["lang"] == lang]
        self.lang = lang
        self.passages = [data["passages"][i] for i in rows]
        self.pids = [p["pid"] for p in self.passages]
        self.texts = [p["text"] for p in self.passages]
        self.pvec = np.ascontiguousarray(pvec[rows])
        self.questions = [data["questions"][i] for i in qrows]
        self.qtexts = [q["text"] for q in self.questions]
        self.qvec = np.ascontiguousarray(qvec[qrows])
        self.table = {t: v for t, v in zip(self.texts, self.pvec, strict=True)} | {t: v for t, v in zip(self.qtexts, self.qvec, strict=True)}


# -- metrics ---------------------------------------------------------------------------------

def per_query(ranked: Sequence[str], relevant: set[str]) -> tuple[float, float, float]:
    top = list(dict.fromkeys(ranked))[:K]
    gains = [1.0 if pid in relevant else 0.0 for pid in top]
    dcg = sum(g / np.log2(i + 2) for i, g in enumerate(gains))
    idcg = sum(1.0 / np.log2(i + 2) for i in range(min(len(relevant), K)))
    recall = sum(gains) / len(relevant)
    rr = next((1.0 / (i + 1) for i, g in enumerate(gains) if g), 0.0)
    return dcg / idcg, recall, rr


def score(rankings: dict[str, list[str]], questions: list[dict], seed: int = 0) -> dict[str, Any]:
    rows = np.array([per_query(rankings.get(q["qid"], []), set(q["relevant"])) for q in questions])
    rng = np.random.default_rng(seed)
    boot = rows[rng.integers(0, len(rows), (1000, len(rows))), 0].mean(axis=1)
    return {"ndcg@10": round(float(rows[:, 0].mean()), 4), "ndcg_ci95": [round(float(np.percentile(boot, 2.5)), 4), round(float(np.percentile(boot, 97.5)), 4)],
            "recall@10": round(float(rows[:, 1].mean()), 4), "mrr@10": round(float(rows[:, 2].mean()), 4), "questions": len(rows),
            "per_query_ndcg": [round(float(x), 4) for x in rows[:, 0]]}


def top_rows(scores: np.ndarray, k: int = K) -> list[int]:
    if scores.size <= k:
        return list(np.argsort(-scores, kind="stable"))
    part = np.argpartition(-scores, k - 1)[:k]
    return [int(i) for i in part[np.argsort(-scores[part], kind="stable")]]


# -- quality: systems -----------------------------------------------------------------------
# Each returns (rankings {qid: [pid, ...]}, timings) for one language's corpus.

Rankings = dict[str, list[str]]


def bunko_store(corpus: Corpus, folder: Path, embed_texts: Sequence[str] | None = None):
    """A LocalStore holding the corpus's passages (one document per source file) with their vectors (`corpus.pvec`).
    `embed_texts`: what each passage's vector and keyword tokens were made from, when not its bare text
    (bench/bench_fusion.py: as ingest writes a chunk, its section path before its text)."""
    from bunko.schema import Chunk, ParsedDocument, doc_id_for
    from bunko.store.base import StoredChunk
    from bunko.store.local import LocalStore
    from bunko.text.analyzers import multilingual

    store = LocalStore(folder)
    by_source: dict[str, list[int]] = {}
    for row, passage in enumerate(corpus.passages):
        by_source.setdefault(passage["source"], []).append(row)
    embedded = list(embed_texts) if embed_texts is not None else corpus.texts
    for source, rows in by_source.items():
        doc = ParsedDocument(doc_id_for(source), source, source, "text/html", "bench", [], {})
        stored = [
            StoredChunk(Chunk(corpus.pids[row], doc.doc_id, source, ordinal, corpus.texts[row], embedded[row],
                              section_path=[corpus.passages[row]["section"]]), corpus.pvec[row], multilingual(embedded[row]), f"h-{corpus.pids[row]}")
            for ordinal, row in enumerate(rows)
        ]
        store.replace_document(doc, f"hash-{source}", stored)
    store.search().keyword_search(["warm"], 1)
    return store


BUNKO_VARIANTS = {
    "bunko keyword": ("keyword", {}),
    "bunko dense": ("dense", {}),
    "bunko hybrid": ("hybrid", {}),
    "bunko hybrid (RRF 1 : 0.3, the old default)": ("hybrid", {"fusion": "rrf", "keyword_weight": 0.3, "exact_keyword_weight": 1.0}),
    "bunko hybrid (RRF, equal weights)": ("hybrid", {"fusion": "rrf", "keyword_weight": 1.0, "exact_keyword_weight": 1.0}),
}


def bunko_systems(corpus: Corpus, tmp: Path) -> dict[str, tuple[Rankings, dict]]:
    from bunko.config import RetrieveConfig
    from bunko.retrieve.searcher import Searcher
    from bunko.text.analyzers import multilingual

    started = time.perf_counter()
    store = bunko_store(corpus, tmp / f"bunko-{corpus.lang}")
    build_s = time.perf_counter() - started
    out = {}
    for name, (mode, overrides) in BUNKO_VARIANTS.items():
        searcher = Searcher(store.search(), None, multilingual, RetrieveConfig(**overrides))  # type: ignore[arg-type]  # query vectors are given
        rankings: Rankings = {}
        started = time.perf_counter()
        for q, vec in zip(corpus.questions, corpus.qvec, strict=True):
            rankings[q["qid"]] = [h.chunk.chunk_id for h in searcher.search(q["text"], k=K, mode=mode, query_vector=vec).hits]
        out[name] = (rankings, {"build_s": build_s, "query_s": time.perf_counter() - started})
    store.close()
    return out


def rank_bm25_system(corpus: Corpus) -> tuple[Rankings, dict]:
    from rank_bm25 import BM25Okapi

    started = time.perf_counter()
    bm25 = BM25Okapi([t.split() for t in corpus.texts])  # whitespace tokens, as in rank_bm25's README
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    rankings = {q["qid"]: [corpus.pids[i] for i in top_rows(np.asarray(bm25.get_scores(q["text"].split())))] for q in corpus.questions}
    return rankings, {"build_s": build_s, "query_s": time.perf_counter() - started}


def bm25s_rank(index_tokens: list[list[str]], query_tokens: list[list[str]], corpus: Corpus) -> tuple[Rankings, dict]:
    import bm25s

    started = time.perf_counter()
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    with quiet():
        retriever.index(index_tokens, show_progress=False)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    rankings: Rankings = {}
    for q, tokens in zip(corpus.questions, query_tokens, strict=True):
        tokens = [t for t in tokens if t in retriever.vocab_dict]
        if not tokens:
            rankings[q["qid"]] = []
            continue
        with quiet():
            docs, scores = retriever.retrieve([tokens], k=min(K, len(corpus.texts)), show_progress=False)
        rankings[q["qid"]] = [corpus.pids[int(i)] for i, s in zip(docs[0], scores[0], strict=True) if s > 0]
    return rankings, {"build_s": build_s, "query_s": time.perf_counter() - started}


def bm25s_default_tokens(texts: list[str]) -> list[list[str]]:
    import bm25s

    with quiet():
        return bm25s.tokenize(texts, return_ids=False, show_progress=False)  # its defaults: lower, \w\w+, English stop words


def bm25s_default_system(corpus: Corpus) -> tuple[Rankings, dict]:
    started = time.perf_counter()
    tokens = bm25s_default_tokens(corpus.texts)
    tokenize_s = time.perf_counter() - started
    rankings, timings = bm25s_rank(tokens, bm25s_default_tokens(corpus.qtexts), corpus)
    timings["build_s"] += tokenize_s
    return rankings, timings


def bm25s_bunko_system(corpus: Corpus) -> tuple[Rankings, dict]:
    from bunko.text.analyzers import multilingual

    started = time.perf_counter()
    tokens = [multilingual(t) for t in corpus.texts]
    tokenize_s = time.perf_counter() - started
    rankings, timings = bm25s_rank(tokens, [multilingual(q) for q in corpus.qtexts], corpus)
    timings["build_s"] += tokenize_s
    return rankings, timings


def llama_embedding(table: dict[str, np.ndarray]):
    """A LlamaIndex embed model that answers from the precomputed USE vectors (same vectors as everyone)."""
    from llama_index.core.embeddings import BaseEmbedding
    from pydantic import PrivateAttr

    class PrecomputedUSE(BaseEmbedding):
        _table: dict = PrivateAttr(default_factory=dict)

        def __init__(self, vectors: dict[str, np.ndarray]) -> None:
            super().__init__(model_name="use-m3-precomputed", embed_batch_size=256)
            self._table = vectors

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._table[query].tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._table[text].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return [self._table[t].tolist() for t in texts]

    return PrecomputedUSE(table)


def llamaindex_system(corpus: Corpus) -> tuple[Rankings, dict]:
    from llama_index.core import VectorStoreIndex
    from llama_index.core.schema import TextNode

    embed_model = llama_embedding(corpus.table)
    started = time.perf_counter()
    nodes = [TextNode(text=t, id_=pid) for t, pid in zip(corpus.texts, corpus.pids, strict=True)]
    index = VectorStoreIndex(nodes, embed_model=embed_model, show_progress=False)
    retriever = index.as_retriever(similarity_top_k=K)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    rankings = {q["qid"]: [n.node.node_id for n in retriever.retrieve(q["text"])] for q in corpus.questions}
    return rankings, {"build_s": build_s, "query_s": time.perf_counter() - started}


def chroma_collection(name: str):
    import chromadb

    client = chromadb.EphemeralClient()
    with contextlib.suppress(Exception):
        client.delete_collection(name)
    return client, client.create_collection(name, embedding_function=None)


def chroma_add(client, collection, ids: list[str], vectors: np.ndarray, texts: list[str]) -> None:
    batch = client.get_max_batch_size()
    for start in range(0, len(ids), batch):
        collection.add(ids=ids[start : start + batch], embeddings=vectors[start : start + batch], documents=texts[start : start + batch])


def chroma_system(corpus: Corpus) -> tuple[Rankings, dict]:
    started = time.perf_counter()
    client, collection = chroma_collection(f"quality-{corpus.lang}")
    chroma_add(client, collection, corpus.pids, corpus.pvec, corpus.texts)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    rankings = {}
    for q, vec in zip(corpus.questions, corpus.qvec, strict=True):
        rankings[q["qid"]] = collection.query(query_embeddings=[vec], n_results=K, include=[])["ids"][0]
    return rankings, {"build_s": build_s, "query_s": time.perf_counter() - started}


def langchain_system(corpus: Corpus) -> tuple[Rankings, dict]:
    from langchain_community.retrievers import BM25Retriever
    from langchain_core.embeddings import Embeddings
    from langchain_core.vectorstores import InMemoryVectorStore

    try:
        from langchain.retrievers import EnsembleRetriever  # langchain < 1.0
    except ImportError:
        from langchain_classic.retrievers import EnsembleRetriever  # langchain >= 1.0 moved it

    table = corpus.table

    class PrecomputedUSE(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [table[t].tolist() for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return table[text].tolist()

    started = time.perf_counter()
    metadatas = [{"pid": pid} for pid in corpus.pids]
    keyword = BM25Retriever.from_texts(corpus.texts, metadatas=metadatas, k=K)  # default preprocess: str.split
    store = InMemoryVectorStore(embedding=PrecomputedUSE())
    store.add_texts(corpus.texts, metadatas=metadatas, ids=corpus.pids)
    ensemble = EnsembleRetriever(retrievers=[keyword, store.as_retriever(search_kwargs={"k": K})], weights=[0.5, 0.5])
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    rankings = {q["qid"]: [d.metadata["pid"] for d in ensemble.invoke(q["text"])][:K] for q in corpus.questions}
    return rankings, {"build_s": build_s, "query_s": time.perf_counter() - started}


QUALITY_PEERS: dict[str, Callable[[Corpus], tuple[Rankings, dict]]] = {
    "rank_bm25 BM25Okapi": rank_bm25_system,
    "bm25s (default tokenizer)": bm25s_default_system,
    "bm25s + bunko tokens": bm25s_bunko_system,
    "LlamaIndex VectorStoreIndex": llamaindex_system,
    "Chroma (ephemeral)": chroma_system,
    "LangChain EnsembleRetriever": langchain_system,
}
QUALITY_SYSTEMS = ["bunko", *QUALITY_PEERS]


def run_quality(data: dict, pvec: np.ndarray, qvec: np.ndarray, langs: list[str], systems: list[str]) -> dict:
    out: dict[str, Any] = {"languages": {}, "skipped": {}}
    for lang in langs:
        corpus = Corpus(data, pvec, qvec, lang)
        results: dict[str, Any] = {}
        print(f"[quality] {lang}: {len(corpus.passages)} passages, {len(corpus.questions)} questions", flush=True)
        if "bunko" in systems:
            with tempfile.TemporaryDirectory() as tmp:
                for name, (rankings, timings) in bunko_systems(corpus, Path(tmp)).items():
                    results[name] = {**score(rankings, corpus.questions), **{k: round(v, 3) for k, v in timings.items()}}
                    print(f"  {name:32s} nDCG@10 {results[name]['ndcg@10']:.3f}", flush=True)
        for name, system in QUALITY_PEERS.items():
            if name not in systems:
                continue
            try:
                rankings, timings = system(corpus)
            except ImportError as exc:
                out["skipped"][name] = f"not installed: {exc}"
                print(f"  {name:32s} skipped: {exc}", flush=True)
                continue
            results[name] = {**score(rankings, corpus.questions), **{k: round(v, 3) for k, v in timings.items()}}
            print(f"  {name:32s} nDCG@10 {results[name]['ndcg@10']:.3f}", flush=True)
            release_memory()
        out["languages"][lang] = {"passages": len(corpus.passages), "questions": len(corpus.questions), "systems": results}
    return out


# -- analyzers -------------------------------------------------------------------------------

def tokenizers_for(lang: str) -> dict[str, Callable[[list[str]], list[list[str]]] | str]:
    from bunko.text.analyzers import multilingual

    def keep(tokens):
        return [t for t in tokens if any(ch.isalnum() for ch in t)]

    out: dict[str, Any] = {
        "bunko multilingual (CJK bigrams)": lambda texts: [multilingual(t) for t in texts],
        "bm25s default (\\w\\w+, English stop words)": bm25s_default_tokens,
    }
    if lang == "ja":
        try:
            from janome.tokenizer import Tokenizer as Janome

            janome = Janome(wakati=True)
            out["Janome (surface forms)"] = lambda texts: [keep(t.lower() for t in janome.tokenize(x)) for x in texts]
        except ImportError as exc:
            out["Janome (surface forms)"] = f"not installed: {exc}"
        try:
            from sudachipy import Dictionary, SplitMode

            sudachi = Dictionary().create()
            for mode_name, mode in (("A", SplitMode.A), ("C", SplitMode.C)):
                out[f"SudachiPy mode {mode_name} (surface forms)"] = (
                    lambda texts, mode=mode: [keep(m.surface().lower() for m in sudachi.tokenize(x, mode)) for x in texts]
                )
            out["SudachiPy mode A (normalised forms)"] = lambda texts: [keep(m.normalized_form().lower() for m in sudachi.tokenize(x, SplitMode.A)) for x in texts]
        except ImportError as exc:
            out["SudachiPy"] = f"not installed: {exc}"
    if lang == "zh":
        try:
            import jieba

            jieba.setLogLevel(60)
            jieba.initialize()
            out["jieba lcut"] = lambda texts: [keep(w.lower() for w in jieba.lcut(x)) for x in texts]
            out["jieba lcut_for_search"] = lambda texts: [keep(w.lower() for w in jieba.lcut_for_search(x)) for x in texts]
        except ImportError as exc:
            out["jieba"] = f"not installed: {exc}"
    return out


def run_analyzers(data: dict, pvec: np.ndarray, qvec: np.ndarray, langs: list[str]) -> dict:
    out: dict[str, Any] = {}
    for lang in [lang for lang in langs if lang in ("ja", "zh")]:
        corpus = Corpus(data, pvec, qvec, lang)
        out[lang] = {}
        print(f"[analyzers] {lang}", flush=True)
        for name, tokenize in tokenizers_for(lang).items():
            if isinstance(tokenize, str):
                out[lang][name] = {"skipped": tokenize}
                continue
            started = time.perf_counter()
            doc_tokens = tokenize(corpus.texts)
            tokenize_s = time.perf_counter() - started
            query_tokens = tokenize(corpus.qtexts)
            rankings, _ = bm25s_rank(doc_tokens, query_tokens, corpus)
            vocab = len({t for tokens in doc_tokens for t in tokens})
            out[lang][name] = {**score(rankings, corpus.questions), "tokenize_s": round(tokenize_s, 3),
                               "chars_per_s": round(sum(map(len, corpus.texts)) / tokenize_s), "vocabulary": vocab,
                               "tokens_per_passage": round(sum(map(len, doc_tokens)) / len(doc_tokens), 1),
                               "empty_queries": sum(1 for t in query_tokens if not t)}
            print(f"  {name:44s} nDCG@10 {out[lang][name]['ndcg@10']:.3f}", flush=True)
    return out


# -- speed: synthetic corpora and one worker process per system and size ---------------------

def sentence_pools(data: dict) -> dict[str, list[str]]:
    pools: dict[str, list[str]] = {lang: [] for lang in rd.LANGS}
    for p in data["passages"]:
        pools[p["lang"]].extend(s for s in rd.sentences(p["text"], p["text_lang"]) if len(s) >= 20)
    return {lang: sorted(set(pool)) for lang, pool in pools.items()}


def synthetic_texts(pools: dict[str, list[str]], size: int) -> list[str]:
    """Chunk i is three sentences of one language (en, ja, zh in turn), drawn with a fixed seed."""
    rng = random.Random(SPEED_SEED)
    langs = list(rd.LANGS)
    out = []
    for i in range(size):
        lang = langs[i % 3]
        out.append((" " if lang == "en" else "").join(rng.sample(pools[lang], 3)))
    return out


VECTORS = {"kind": "random", "real": None}
"""random: unit vectors drawn uniformly (no structure: the hard case for HNSW build and recall);
perturbed: a real passage's USE vector plus Gaussian noise of norm ~0.5 (real vectors' structure)."""


def synthetic_vectors(size: int) -> np.ndarray:
    rng = np.random.default_rng(SPEED_SEED)
    out = np.empty((size, DIM), dtype=np.float32)
    real = VECTORS["real"]
    for start in range(0, size, 100_000):
        block = rng.standard_normal((min(100_000, size - start), DIM), dtype=np.float32)
        if VECTORS["kind"] == "perturbed":
            block *= 0.5 / np.sqrt(DIM)
            block += real[rng.integers(0, len(real), len(block))]
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[start : start + len(block)] = block
    return out


def speed_queries(data: dict, qvec: np.ndarray, n: int) -> tuple[list[str], np.ndarray]:
    order = list(range(len(data["questions"])))
    random.Random(SPEED_SEED).shuffle(order)
    order = order[:n]
    return [data["questions"][i]["text"] for i in order], np.ascontiguousarray(qvec[order])


def timed_queries(run: Callable[[str, np.ndarray], Any], queries: list[str], vectors: np.ndarray, budget_s: float) -> tuple[dict, list[Any]]:
    for q, v in zip(queries[:3], vectors[:3], strict=True):
        run(q, v)  # warm caches
    times, answers = [], []
    deadline = time.perf_counter() + budget_s
    for i, (q, v) in enumerate(zip(queries, vectors, strict=True)):
        started = time.perf_counter()
        answers.append(run(q, v))
        times.append(time.perf_counter() - started)
        if i >= 9 and time.perf_counter() > deadline:
            break
    return ms_stats(times), answers


class Timer:
    """Wraps a method in this process only, to time a build step inside a bunko call."""

    def __init__(self, owner: Any, name: str) -> None:
        self.owner, self.name, self.seconds, self.calls = owner, name, 0.0, 0
        original = getattr(owner, name)
        timer = self

        def wrapped(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                timer.seconds += time.perf_counter() - started
                timer.calls += 1

        self.original = original
        setattr(owner, name, wrapped)

    def restore(self) -> None:
        setattr(self.owner, self.name, self.original)


def bunko_store_folder(size: int) -> Path:
    return DATA / "speed" / f"bunko-{VECTORS['kind']}-{size}"


def write_bunko_store(folder: Path, texts: list[str], vectors: np.ndarray) -> float:
    from bunko.schema import Chunk, ParsedDocument, doc_id_for
    from bunko.store.base import StoredChunk
    from bunko.store.local import LocalStore
    from bunko.text.analyzers import multilingual

    shutil.rmtree(folder, ignore_errors=True)
    store = LocalStore(folder)
    started = time.perf_counter()
    for start in range(0, len(texts), CHUNKS_PER_DOC):
        source = f"synthetic/doc-{start // CHUNKS_PER_DOC:07d}.md"
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "bench", [], {})
        stored = []
        for row in range(start, min(start + CHUNKS_PER_DOC, len(texts))):
            chunk = Chunk(f"{source}#{row - start}", doc.doc_id, source, row - start, texts[row], texts[row], section_path=[f"S{row % 17}"])
            stored.append(StoredChunk(chunk, vectors[row], multilingual(texts[row]), f"h{row}"))
        store.replace_document(doc, f"hash-{start}", stored)
    seconds = time.perf_counter() - started
    store.close()
    return seconds


def worker_bunko(size: int, queries: list[str], qv: np.ndarray, pools: dict, budget_s: float, hnsw: bool, reuse: bool, reuse_graph: bool = False) -> dict:
    """bunko-exact writes the store; bunko-hnsw and bunko-exact-blas1 open the one it wrote (same rows)."""
    from bunko.config import RetrieveConfig
    from bunko.index.bm25 import BM25Index
    from bunko.index.hnsw import HnswIndex
    from bunko.retrieve.searcher import Searcher
    from bunko.store.local import LocalStore
    from bunko.text.analyzers import multilingual

    folder = bunko_store_folder(size)
    marker = folder / "bench-written.json"
    out: dict[str, Any] = {}
    if reuse and marker.exists():
        out["write"] = {**json.loads(marker.read_text()), "reused": True}
    else:
        texts = synthetic_texts(pools, size)
        vectors = synthetic_vectors(size)
        out["input_rss_mb"] = round(rss_mb(), 1)
        seconds = write_bunko_store(folder, texts, vectors)
        out["write"] = {"write_s": round(seconds, 2), "db_mb": round(sum(p.stat().st_size for p in folder.glob("bunko.db*")) / 2**20, 1)}
        marker.write_text(json.dumps(out["write"]))
        del texts, vectors
        release_memory()
    if hnsw:
        for graph in (folder / "index").glob("hnsw-*"):
            if not reuse_graph:
                graph.unlink()
    out["rss_before_load_mb"] = round(rss_mb(), 1)
    bm25_timer, hnsw_timer = Timer(BM25Index, "build"), Timer(HnswIndex, "sync")
    store = LocalStore(folder, ann_threshold=1 if hnsw else None)
    started = time.perf_counter()
    store.search().dense_search(np.ones(DIM, dtype=np.float32), 1)
    out["load_s"] = round(time.perf_counter() - started, 2)
    out["bm25_build_s"] = round(bm25_timer.seconds, 2) if bm25_timer.calls else None
    out["hnsw_build_s"] = round(hnsw_timer.seconds, 2) if hnsw else None
    out["hnsw_graph_reused"] = bool(hnsw and not store._index.ann.rebuilt)
    if hnsw:  # the ef_search bunko calibrated for its target recall, and the recall it measured itself
        out["hnsw_calibration"] = store._index.ann.stats()
    bm25_timer.restore()
    hnsw_timer.restore()
    release_memory()
    out["rss_after_build_mb"] = round(rss_mb(), 1)
    searcher = Searcher(store.search(), None, multilingual, RetrieveConfig())  # type: ignore[arg-type]
    modes = ("dense", "hybrid") if hnsw else ("keyword", "dense", "hybrid")
    for mode in modes:
        stats, answers = timed_queries(lambda q, v, mode=mode: [h.chunk.chunk_id for h in searcher.search(q, k=K, mode=mode, query_vector=v).hits],
                                       queries, qv, budget_s)
        out[mode] = stats
        if mode == "dense":
            dense_answers = answers
    # store-level latency: the retriever alone, without the chunk fetch and fusion of the searcher
    stats, _ = timed_queries(lambda q, v: store.search().dense_search(v, K), queries, qv, budget_s / 2)
    out["store_dense"] = stats
    if not hnsw:
        stats, _ = timed_queries(lambda q, v: store.search().keyword_search(multilingual(q), K), queries, qv, budget_s / 2)
        out["store_keyword"] = stats
    else:  # recall of the graph against exact search on the same rows (random vectors: the hard case for HNSW)
        index = store._index
        hits = 0
        for v, got in zip(qv, dense_answers, strict=False):
            exact = {index.ids[i] for i in top_rows(index.vectors @ v)}
            hits += len(exact & set(got[:K]))
        out["hnsw_recall@10_vs_exact"] = round(hits / (K * len(dense_answers)), 4)
    store.close()
    return out


def worker_bm25s(size: int, queries: list[str], qv: np.ndarray, pools: dict, budget_s: float, bunko_tokens: bool) -> dict:
    import bm25s

    from bunko.text.analyzers import multilingual

    texts = synthetic_texts(pools, size)
    out: dict[str, Any] = {"input_rss_mb": round(rss_mb(), 1)}
    started = time.perf_counter()
    tokens = [multilingual(t) for t in texts] if bunko_tokens else bm25s_default_tokens(texts)
    out["tokenize_s"] = round(time.perf_counter() - started, 2)
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    with quiet():
        retriever.index(tokens, show_progress=False)
    out["build_s"] = round(time.perf_counter() - started, 2)
    del tokens, texts
    release_memory()
    out["rss_after_build_mb"] = round(rss_mb(), 1)
    vocab = retriever.vocab_dict

    def run(q: str, v: np.ndarray) -> list[int]:
        query = multilingual(q) if bunko_tokens else bm25s_default_tokens([q])[0]
        query = [t for t in query if t in vocab]
        if not query:
            return []
        docs, _ = retriever.retrieve([query], k=K, show_progress=False)
        return docs[0].tolist()

    with quiet():
        out["keyword"], _ = timed_queries(run, queries, qv, budget_s)
    return out


def worker_llamaindex(size: int, queries: list[str], qv: np.ndarray, pools: dict, budget_s: float) -> dict:
    from llama_index.core import VectorStoreIndex
    from llama_index.core.schema import QueryBundle, TextNode

    texts = synthetic_texts(pools, size)
    vectors = synthetic_vectors(size)
    out: dict[str, Any] = {"input_rss_mb": round(rss_mb(), 1)}
    embed_model = llama_embedding({})
    started = time.perf_counter()
    nodes = [TextNode(text=t, id_=str(i), embedding=v.tolist()) for i, (t, v) in enumerate(zip(texts, vectors, strict=True))]
    index = VectorStoreIndex(nodes, embed_model=embed_model, show_progress=False)  # nodes carry their vectors: nothing is embedded
    retriever = index.as_retriever(similarity_top_k=K)
    out["build_s"] = round(time.perf_counter() - started, 2)
    del nodes, texts, vectors
    release_memory()
    out["rss_after_build_mb"] = round(rss_mb(), 1)
    out["dense"], _ = timed_queries(lambda q, v: [n.node.node_id for n in retriever.retrieve(QueryBundle(q, embedding=v.tolist()))],
                                    queries, qv, budget_s)
    return out


def worker_chroma(size: int, queries: list[str], qv: np.ndarray, pools: dict, budget_s: float) -> dict:
    texts = synthetic_texts(pools, size)
    vectors = synthetic_vectors(size)
    out: dict[str, Any] = {"input_rss_mb": round(rss_mb(), 1)}
    started = time.perf_counter()
    client, collection = chroma_collection(f"speed-{size}")
    chroma_add(client, collection, [str(i) for i in range(size)], vectors, texts)
    out["build_s"] = round(time.perf_counter() - started, 2)
    del texts, vectors
    release_memory()
    out["rss_after_build_mb"] = round(rss_mb(), 1)
    out["dense"], _ = timed_queries(lambda q, v: collection.query(query_embeddings=[v], n_results=K, include=["documents", "distances"])["ids"][0],
                                    queries, qv, budget_s)
    return out


SPEED_SYSTEMS = ["bunko-exact", "bunko-exact-blas1", "bunko-hnsw", "bm25s", "bm25s-bunko-tokens", "llamaindex", "chroma"]
DEFAULT_SPEED_SYSTEMS = ["bunko-exact", "bunko-exact-blas1", "bunko-hnsw", "bm25s", "llamaindex", "chroma"]
PEER_SPEED = {"bm25s", "bm25s-bunko-tokens", "llamaindex", "chroma"}


def run_worker(args: argparse.Namespace) -> None:
    data = load_set(args)
    _, qvec, _ = vectors_for(data)
    queries, qv = speed_queries(data, qvec, args.speed_queries)
    pools = sentence_pools(data)
    system, size = args.worker, args.size
    VECTORS["kind"] = args.vectors
    VECTORS["real"] = vectors_for(data)[0] if args.vectors == "perturbed" else None
    started = time.perf_counter()
    if system == "bunko-exact":
        result = worker_bunko(size, queries, qv, pools, args.query_budget_s, False, args.reuse_stores)
    elif system in ("bunko-hnsw", "bunko-exact-blas1"):  # the rows bunko-exact wrote in this run, if there
        result = worker_bunko(size, queries, qv, pools, args.query_budget_s, system == "bunko-hnsw", True, args.reuse_stores)
    elif system in ("bm25s", "bm25s-bunko-tokens"):
        result = worker_bm25s(size, queries, qv, pools, args.query_budget_s, system == "bm25s-bunko-tokens")
    elif system == "llamaindex":
        result = worker_llamaindex(size, queries, qv, pools, args.query_budget_s)
    elif system == "chroma":
        result = worker_chroma(size, queries, qv, pools, args.query_budget_s)
    else:
        raise SystemExit(f"unknown system {system}")
    result.update(system=system, chunks=size, peak_rss_mb=round(peak_rss_mb(), 1), worker_s=round(time.perf_counter() - started, 1),
                  loadavg=os.getloadavg())
    Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")


def build_seconds(result: dict) -> float:
    if "write" in result:
        return float(result["write"].get("write_s", 0)) + float(result.get("load_s", 0))
    return float(result.get("build_s", 0))


def run_speed(args: argparse.Namespace, save: Callable[[dict], None], results: dict) -> dict:
    speed: dict[str, Any] = results.setdefault("speed", {"runs": [], "skipped": [], "vectors": args.vectors})
    last: dict[str, dict] = {}
    for size in sorted(args.sizes):
        for system in args.speed_systems:
            if system == "bunko-exact-blas1" and size > args.blas1_max_size:
                continue
            if system in PEER_SPEED and system in last:
                previous = last[system]
                factor = size / previous["chunks"]
                predicted_build = build_seconds(previous) * factor
                predicted_rss = previous["peak_rss_mb"] * factor
                if predicted_build > args.max_build_s or predicted_rss > args.max_rss_mb:
                    reason = (f"predicted from {previous['chunks']:,}: build {predicted_build:.0f} s (limit {args.max_build_s:.0f}), "
                              f"peak RSS {predicted_rss / 1024:.1f} GB (limit {args.max_rss_mb / 1024:.1f})")
                    speed["skipped"].append({"system": system, "chunks": size, "reason": reason})
                    print(f"[speed] {system} @ {size:,}: skipped, {reason}", flush=True)
                    save(results)
                    continue
            print(f"[speed] {system} @ {size:,} …", flush=True)
            with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
                out_path = handle.name
            command = [sys.executable, __file__, "--worker", system, "--size", str(size), "--out", out_path,
                       "--questions", str(args.questions), "--seed", str(args.seed), "--python-doc-max", str(args.python_doc_max),
                       "--speed-queries", str(args.speed_queries), "--query-budget-s", str(args.query_budget_s)]
            command += ["--vectors", args.vectors]
            if args.reuse_stores:
                command.append("--reuse-stores")
            env = dict(os.environ)
            if system == "bunko-exact-blas1":
                env["OPENBLAS_NUM_THREADS"] = "1"  # the same search with single-threaded BLAS
            timeout = args.bunko_timeout_s if system.startswith("bunko") else args.max_build_s * 2 + 4 * args.query_budget_s + 120
            started = time.perf_counter()
            try:
                proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
                if proc.returncode != 0:
                    raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}")
                result = json.loads(Path(out_path).read_text())
            except (subprocess.TimeoutExpired, RuntimeError) as exc:
                reason = f"timed out after {timeout:.0f} s" if isinstance(exc, subprocess.TimeoutExpired) else f"failed: {exc}"
                speed["skipped"].append({"system": system, "chunks": size, "reason": reason})
                print(f"[speed] {system} @ {size:,}: {reason}", flush=True)
                save(results)
                continue
            finally:
                Path(out_path).unlink(missing_ok=True)
            result["wall_s"] = round(time.perf_counter() - started, 1)
            speed["runs"].append(result)
            last[system] = result
            print(f"[speed] {system} @ {size:,}: {summary_line(result)}", flush=True)
            save(results)
    if not args.keep_stores:
        VECTORS["kind"] = args.vectors
        for size in args.sizes:
            shutil.rmtree(bunko_store_folder(size), ignore_errors=True)
    return speed


def summary_line(result: dict) -> str:
    parts = [f"build {build_seconds(result):.1f} s"]
    for mode in ("keyword", "dense", "hybrid"):
        if mode in result:
            parts.append(f"{mode} p50 {result[mode]['p50_ms']:.2f} ms")
    parts.append(f"peak {result['peak_rss_mb'] / 1024:.2f} GB")
    return ", ".join(parts)


# -- report -----------------------------------------------------------------------------------

def fmt(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "–"
    return f"{a / b:.2f}×"


def report(results: dict) -> str:
    lines = ["# Retrieval: bunko against its peers (issue 5)", "",
             f"Command: `{results['command']}`  ", f"Run: {results['started']}, {results['elapsed_min']} min on {results['machine']['cores']} cores, "
             f"{results['machine']['mem_gb']} GB; load average at start {', '.join(f'{x:.1f}' for x in results['machine']['loadavg_at_start'])}"
             + (f", at end {', '.join(f'{x:.1f}' for x in results['machine'].get('loadavg_at_end', []))}" if results['machine'].get('loadavg_at_end') else "")
             + " (the machine is shared: absolute times are noisy, ratios measured in the same run are the comparison).", "",
             "Versions: " + ", ".join(f"{k} {v}" for k, v in results["versions"].items()), ""]
    data = results.get("dataset")
    if data:
        lines += ["## Labelled set", "",
                  "Built by `bench/retrieval_data.py` (seed "
                  f"{data['seed']}, cached under bench/data/): passages from the Debian Reference in en/ja/zh (+ Python 3 docs in en), "
                  "questions made from one sentence of a sampled passage with 30–50 % of its content units dropped and a question template; "
                  "relevant = that passage, its exact duplicates and any passage containing the sentence.", "",
                  "| language | passages | of which in the language | median chars | questions | questions with >1 relevant |", "|---|---|---|---|---|---|"]
        for lang, row in data["languages"].items():
            lines.append(f"| {lang} | {row['passages']:,} | {row['in_language']:,} | {row['median_chars']} | {row['questions']} | {row['multi_relevant']} |")
        lines += ["", f"Vectors: USE multilingual v3 (`UseM3Embedder(threads=1)`), every passage and question embedded once "
                  f"({data['embed']['passage_s']:.0f} s for the passages{', cached' if data['embed'].get('cached') else ''}); all dense systems get the same vectors.", ""]
    quality = results.get("quality")
    if quality:
        lines += ["## 1. Quality", "", "bunko: LocalStore + Searcher with the default RetrieveConfig (candidates 50, coverage fusion: cosine similarity + "
                  "0.55 × keyword evidence (idf-weighted query-term coverage + a third of relative BM25), 0.65 × for queries with codes or quotes; "
                  "max distance 0.9). The two RRF rows are the "
                  "previous default (keyword weight 0.3, k 20) and equal weights, for comparison with LangChain's equal-weight ensemble; "
                  "every fusion and weight is compared in `bench/bench_fusion.py` (bench/results/fusion.md).", ""]
        for lang, block in quality["languages"].items():
            lines += [f"### {lang} — {block['passages']:,} passages, {block['questions']} questions", "",
                      "| system | nDCG@10 [95% CI] | recall@10 | MRR@10 | build s | query s (all) |", "|---|---|---|---|---|---|"]
            for name, row in block["systems"].items():
                ci = row["ndcg_ci95"]
                lines.append(f"| {name} | **{row['ndcg@10']:.3f}** [{ci[0]:.3f}–{ci[1]:.3f}] | {row['recall@10']:.3f} | {row['mrr@10']:.3f} "
                             f"| {row.get('build_s', 0):.2f} | {row.get('query_s', 0):.2f} |")
            lines.append("")
        lines += ["### Ratios (nDCG@10, bunko ÷ peer)", "", "| bunko system ÷ peer | " + " | ".join(quality["languages"]) + " |",
                  "|---|" + "---|" * len(quality["languages"])]
        pairs = [("bunko hybrid", p) for p in ("LangChain EnsembleRetriever", "LlamaIndex VectorStoreIndex", "Chroma (ephemeral)", "bm25s (default tokenizer)", "rank_bm25 BM25Okapi")]
        pairs += [("bunko dense", "LlamaIndex VectorStoreIndex"), ("bunko dense", "Chroma (ephemeral)"),
                  ("bunko keyword", "bm25s (default tokenizer)"), ("bunko keyword", "rank_bm25 BM25Okapi"), ("bunko keyword", "bm25s + bunko tokens"),
                  ("bunko hybrid", "bunko dense"), ("bunko hybrid", "bunko keyword"), ("bunko hybrid", "bunko hybrid (RRF 1 : 0.3, the old default)"),
                  ("bunko hybrid", "bunko hybrid (RRF, equal weights)")]
        for a, b in pairs:
            cells = []
            for block in quality["languages"].values():
                sa, sb = block["systems"].get(a), block["systems"].get(b)
                cells.append(ratio(sa and sa["ndcg@10"], sb and sb["ndcg@10"]))
            lines.append(f"| {a} ÷ {b} | " + " | ".join(cells) + " |")
        lines.append("")
        for name, reason in quality.get("skipped", {}).items():
            lines.append(f"- skipped {name}: {reason}")
    analyzers = results.get("analyzers")
    if analyzers:
        lines += ["## 2. Keyword analyzers on ja / zh (same BM25: bm25s, Lucene, k1 1.5, b 0.75)", "",
                  "| language | tokens | nDCG@10 [95% CI] | recall@10 | MRR@10 | vocabulary | tokens / passage | tokenize chars/s | queries with no token |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for lang, block in analyzers.items():
            for name, row in block.items():
                if "skipped" in row:
                    lines.append(f"| {lang} | {name} | skipped: {row['skipped']} | | | | | | |")
                    continue
                ci = row["ndcg_ci95"]
                lines.append(f"| {lang} | {name} | **{row['ndcg@10']:.3f}** [{ci[0]:.3f}–{ci[1]:.3f}] | {row['recall@10']:.3f} | {row['mrr@10']:.3f} "
                             f"| {row['vocabulary']:,} | {row['tokens_per_passage']} | {row['chars_per_s']:,} | {row['empty_queries']} |")
        lines.append("")
    speed = results.get("speed")
    if speed and (speed["runs"] or speed["skipped"]):
        lines += ["## 3. Speed", "",
                  "Synthetic chunks: three sentences of one language from the real passages (en/ja/zh in turn); "
                  + ("random unit vectors (512-d), which are the hard case for HNSW (build time, recall). " if speed.get("vectors", "random") == "random"
                     else "vectors = a real passage's USE vector plus Gaussian noise (norm 0.5), renormalised. ")
                  + "*bunko-exact-blas1* is bunko-exact's store searched with OPENBLAS_NUM_THREADS=1. Queries: the labelled questions (mixed languages) with their USE vectors given, "
                  "so query embedding is excluded everywhere. One process per system and size: peak RSS includes the generated input "
                  "(texts + vectors, *input* column); *resident after build* is measured after the input is freed. bunko build = SQLite write "
                  "(tokenizing included) + index load (BM25 build, and the HNSW graph for bunko-hnsw, which reuses the SQLite store written by bunko-exact). "
                  "bunko latencies are `Searcher.search` (retrieve, fuse, fetch chunks from SQLite); *store* rows are the retriever alone.", "",
                  "| chunks | system | mode | p50 ms | p95 ms | queries/s | n | build s | peak RSS GB | resident after build GB | input GB |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for run in sorted(speed["runs"], key=lambda r: (r["chunks"], SPEED_SYSTEMS.index(r["system"]))):
            build = build_seconds(run)
            detail = ""
            if "write" in run:
                w = run["write"]
                detail = f" (write {w.get('write_s', 0):.1f}{' shared' if w.get('reused') else ''} + load {run['load_s']:.1f}"
                detail += f"; of which HNSW {run['hnsw_build_s']:.1f}{' reused' if run.get('hnsw_graph_reused') else ''})" if run.get("hnsw_build_s") is not None else ")"
            for mode in ("keyword", "dense", "hybrid", "store_keyword", "store_dense"):
                if mode not in run:
                    continue
                row = run[mode]
                lines.append(f"| {run['chunks']:,} | {run['system']} | {mode.replace('_', ' ')} | {row['p50_ms']:.2f} | {row['p95_ms']:.2f} | {row['qps']:,} | {row['n']} "
                             f"| {build:.1f}{detail} | {run['peak_rss_mb'] / 1024:.2f} | {run['rss_after_build_mb'] / 1024:.2f} | "
                             f"{fmt(run.get('input_rss_mb') and run['input_rss_mb'] / 1024, 2)} |")
        recalls = [(r["chunks"], r["hnsw_recall@10_vs_exact"], r.get("hnsw_calibration") or {}) for r in speed["runs"] if "hnsw_recall@10_vs_exact" in r]
        if recalls:
            lines += ["", f"HNSW recall@10 of the questions against exact search on the same rows ({speed.get('vectors', 'random')} vectors): "
                      + ", ".join(f"{n:,}: {r:.3f}" + (f" (ef_search {c['ef_search']} calibrated by bunko, which measured {c['recall@10']:.3f} "
                                                       f"in {c.get('seconds', 0):.1f} s)" if c else "") for n, r, c in recalls)]
        for skip in speed["skipped"]:
            lines.append(f"- {skip['system']} @ {skip['chunks']:,}: skipped — {skip['reason']}")
        lines += ["", "### Targets and ratios", "", "| check | value | target | met |", "|---|---|---|---|"]
        for check in speed.get("checks", []):
            lines.append(f"| {check['check']} | {check['value']} | {check['target']} | {check['met']} |")
        lines.append("")
    notes = RESULTS / "retrieval.notes.md"
    if notes.exists():  # the hand-written reading of the run, kept beside the generated tables
        lines += [notes.read_text(encoding="utf-8").rstrip(), ""]
    return "\n".join(lines) + "\n"


def speed_checks(speed: dict) -> list[dict]:
    runs = {(r["system"], r["chunks"]): r for r in speed["runs"]}
    checks = []
    sizes = sorted({r["chunks"] for r in speed["runs"]})
    for size in sizes:
        hnsw, exact, blas1 = runs.get(("bunko-hnsw", size)), runs.get(("bunko-exact", size)), runs.get(("bunko-exact-blas1", size))
        llama, bm25s, chroma = runs.get(("llamaindex", size)), runs.get(("bm25s", size)), runs.get(("chroma", size))
        if hnsw and "hnsw_recall@10_vs_exact" in hnsw:
            recall = hnsw["hnsw_recall@10_vs_exact"]
            checks.append({"check": f"HNSW recall@10 vs exact (questions) @ {size:,}", "value": f"{recall:.3f}", "target": "≥ 0.98",
                           "met": "yes" if recall >= 0.98 else "NO"})
        if size == max(sizes) and hnsw:
            value = hnsw["hybrid"]["p50_ms"]
            checks.append({"check": f"bunko hybrid p50 with HNSW @ {size:,}", "value": f"{value:.2f} ms", "target": "≤ 10 ms", "met": "yes" if value <= 10 else "NO"})
        if llama:
            for name, run in (("exact", exact), ("exact, BLAS 1 thread", blas1), ("HNSW", hnsw)):
                if run:
                    r = llama["dense"]["p50_ms"] / run["dense"]["p50_ms"]
                    checks.append({"check": f"LlamaIndex dense p50 ÷ bunko dense ({name}) p50 @ {size:,}", "value": f"{r:.1f}×",
                                   "target": "≥ 10×" if size == 100_000 else "–", "met": ("yes" if r >= 10 else "NO") if size == 100_000 else "–"})
        if chroma:
            for name, run in (("exact", exact), ("exact, BLAS 1 thread", blas1), ("HNSW", hnsw)):
                if run:
                    r = chroma["dense"]["p50_ms"] / run["dense"]["p50_ms"]
                    checks.append({"check": f"Chroma dense p50 ÷ bunko dense ({name}) p50 @ {size:,}", "value": f"{r:.2f}×", "target": "–", "met": "–"})
        if bm25s and exact:
            r = bm25s["keyword"]["p50_ms"] / exact["keyword"]["p50_ms"]
            checks.append({"check": f"bm25s keyword p50 ÷ bunko keyword p50 @ {size:,}", "value": f"{r:.2f}×", "target": "≥ 1×", "met": "yes" if r >= 1 else "NO"})
            r = bm25s["keyword"]["p50_ms"] / exact["store_keyword"]["p50_ms"]
            checks.append({"check": f"bm25s keyword p50 ÷ bunko store keyword p50 (ids only, like bm25s) @ {size:,}", "value": f"{r:.2f}×", "target": "≥ 1×", "met": "yes" if r >= 1 else "NO"})
            r = bm25s["keyword"]["p95_ms"] / exact["keyword"]["p95_ms"]
            checks.append({"check": f"bm25s keyword p95 ÷ bunko keyword p95 @ {size:,}", "value": f"{r:.2f}×", "target": "–", "met": "–"})
            r = build_seconds(exact) / max(bm25s["build_s"], 1e-9)
            checks.append({"check": f"bunko build (write + load) ÷ bm25s build @ {size:,}", "value": f"{r:.2f}×", "target": "–", "met": "–"})
    return checks


def dataset_summary(data: dict, embed: dict) -> dict:
    out = {"seed": data["seed"], "digest": data["digest"], "embed": embed, "languages": {}}
    for lang in rd.LANGS:
        ps = [p for p in data["passages"] if p["lang"] == lang]
        qs = [q for q in data["questions"] if q["lang"] == lang]
        out["languages"][lang] = {"passages": len(ps), "in_language": sum(p["text_lang"] == lang for p in ps),
                                  "median_chars": int(np.median([len(p["text"]) for p in ps])), "questions": len(qs),
                                  "multi_relevant": sum(len(q["relevant"]) > 1 for q in qs)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", nargs="+", default=["quality", "analyzers", "speed"], choices=["quality", "analyzers", "speed"])
    parser.add_argument("--langs", nargs="+", default=list(rd.LANGS), choices=list(rd.LANGS))
    parser.add_argument("--systems", nargs="+", default=QUALITY_SYSTEMS, choices=QUALITY_SYSTEMS, help="quality systems")
    parser.add_argument("--questions", type=int, default=250, help="questions per language in the labelled set")
    parser.add_argument("--seed", type=int, default=rd.SEED)
    parser.add_argument("--python-doc-max", type=int, default=6000, help="cap on Python-doc passages in the English corpus")
    parser.add_argument("--rebuild-set", action="store_true", help="rebuild the labelled set instead of using the cache")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--speed-systems", nargs="+", default=DEFAULT_SPEED_SYSTEMS, choices=SPEED_SYSTEMS)
    parser.add_argument("--speed-queries", type=int, default=200)
    parser.add_argument("--vectors", choices=["random", "perturbed"], default="perturbed",
                        help="synthetic vectors: real USE passage vectors plus noise (default), or uniformly random unit vectors "
                             "(HNSW's worst case: its graph build at 1M would take over an hour here)")
    parser.add_argument("--blas1-max-size", type=int, default=100_000, help="run bunko-exact-blas1 up to this size")
    parser.add_argument("--query-budget-s", type=float, default=60.0, help="time per system and mode; at least 10 queries are run")
    parser.add_argument("--max-build-s", type=float, default=600.0, help="skip a peer whose build, predicted from the previous size, exceeds this")
    parser.add_argument("--max-rss-mb", type=float, default=18_000.0, help="skip a peer whose peak RSS, predicted likewise, exceeds this")
    parser.add_argument("--bunko-timeout-s", type=float, default=2700.0)
    parser.add_argument("--reuse-stores", action="store_true", help="reuse bunko stores/graphs left under bench/data/speed by --keep-stores")
    parser.add_argument("--keep-stores", action="store_true", help="keep the bunko speed stores under bench/data/speed")
    parser.add_argument("--quick", action="store_true", help="10k speed only, 100 questions a language, 50 speed queries")
    parser.add_argument("--out", default=None)
    parser.add_argument("--report-only", action="store_true", help="re-render the Markdown report from the JSON results")
    parser.add_argument("--worker", choices=SPEED_SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(args)
        return
    if args.report_only:
        json_path = Path(args.out) if args.out else RESULTS / "retrieval.json"
        json_path.with_suffix(".md").write_text(report(json.loads(json_path.read_text(encoding="utf-8"))), encoding="utf-8")
        return
    if args.quick:
        args.sizes, args.questions, args.speed_queries, args.query_budget_s = [10_000], 100, 50, 15.0
    started_wall = time.time()
    results: dict[str, Any] = {"command": "python bench/bench_retrieval.py " + " ".join(sys.argv[1:]),
                               "started": time.strftime("%Y-%m-%d %H:%M", time.localtime()), "machine": machine(), "versions": versions()}
    json_path = Path(args.out) if args.out else RESULTS / "retrieval.json"

    def save(res: dict) -> None:
        res["elapsed_min"] = round((time.time() - started_wall) / 60, 1)
        res["machine"]["loadavg_at_end"] = os.getloadavg()
        if "speed" in res:
            res["speed"]["checks"] = speed_checks(res["speed"])
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(res, indent=1, ensure_ascii=False), encoding="utf-8")
        json_path.with_suffix(".md").write_text(report(res), encoding="utf-8")

    data = load_set(args)
    pvec, qvec, embed = vectors_for(data)
    results["dataset"] = dataset_summary(data, embed)
    if "quality" in args.parts:
        results["quality"] = run_quality(data, pvec, qvec, args.langs, args.systems)
        save(results)
    if "analyzers" in args.parts:
        results["analyzers"] = run_analyzers(data, pvec, qvec, args.langs)
        save(results)
    if "speed" in args.parts:
        run_speed(args, save, results)
    save(results)
    print(report(results))


if __name__ == "__main__":
    main()
