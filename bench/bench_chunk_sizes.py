"""Which chunk sizes should parent_child default to? Child and parent size on the page-shaped corpora (issue 14).

    python bench/bench_chunk_sizes.py [--corpus handbook reference] [--settings c300-p2000 ...] [--own-default] [--limit N]

Issue 14 asks that the chunk sizes be chosen from measurements on corpora that look like a
documentation site: one file per page, a person typing a few words that describe the page. This
runs the known-item heading queries of bench/bench_pages.py (corpora built by
bench/page_corpora.py, cached in ~/.cache/bunko-bench/pages/<corpus>/) over one bunko collection
per chunk setting and compares page-level quality with what the setting costs:

- **c300-p2000**: the default, children of ``chunk.max_chars`` 300 characters searched, parents of
  ``chunk.parent_max_chars`` 2000 returned for context (never embedded nor indexed). Its collection
  is bench_pages' own, ``<corpus>/.bunko``, reused as it is (built earlier, under another load);
  ``--own-default`` builds it like the others instead, so that its build time compares;
- **c600-p2000 / c1000-p2000**: larger children under the same parents;
- **c300-p4000**: the default children under parents twice as large (children never cross a
  parent's boundary, so they change a little where a parent ends).

Every other collection lives in ``<corpus>/.bunko-chunk-<setting>``, built with a `bunko.Config`
whose ``chunk`` section alone differs from the defaults, from the same three language folders
(so sources and page keys are those of bench_pages). A collection that already holds every page
is reused, with the build time recorded when it was built (``bench-ingest.json`` inside it;
bench_pages' ``.bunko-ingest.json`` for the default). One embedder (USE multilingual v3, one
thread) is loaded once and shared; the query vectors are embedded once per corpus.

Systems run as in bench_pages (its `bunko_system`, `rank_of`, `summarise`; one BLAS thread, one
untimed warm-up query): **bunko-hybrid / bunko-keyword / bunko-dense**, bunko's `Searcher` with
the code's default retrieve config (the same for every setting, recorded in the JSON; hybrid now
adds document-level evidence to each chunk: the page's BM25 and its closest chunks' cosine), 50
chunk hits reduced to distinct pages, top 10; **bunko-hybrid, chunks only**: hybrid with the
document evidence weights at 0 (the default before commit 67bc333), where chunk size weighs most.

Not measured: embedding the document title with each chunk. `make_chunk` embeds the section
path ("A > B\\n" + text) but not the document title, no setting adds it, and these pages have no
headings and no ``<title>`` (both removed so that no query is its page's own text): every chunk's
section path is empty and each document's title is its file name.

Metrics per corpus × setting × language × system: nDCG@10, MRR@10, recall@10, search p50/p95
(query vector given), plus the setting's indexed chunks (= vectors), parents, chunk length and
ingest seconds; per query, the rank of the relevant page, so settings can be compared query by
query: against the default, the nDCG@10 difference with a 95 % paired bootstrap interval (2,000
resamples of the queries) and the queries found in the top 10 with one and not the other.

Writes bench/results/chunk-sizes.json and bench/results/chunk-sizes.md (with the hand-written
reading in bench/results/chunk-sizes.notes.md appended, when it exists).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_pages as bp
import page_corpora as pc

from bunko import Bunko, Config
from bunko.config import CONFIG_FILE, RetrieveConfig
from bunko.embed.base import Embedder, embed_queries
from bunko.embed.registry import build_embedder
from bunko.schema import JobStatus

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
RECORD = "bench-ingest.json"
CHUNKS_ONLY = {name: 0.0 for name in ("document_weight", "document_similarity_weight") if name in RetrieveConfig.model_fields}
SYSTEMS: dict[str, tuple[str, dict[str, Any]]] = {
    "bunko-hybrid": ("hybrid", {}), "bunko-keyword": ("keyword", {}), "bunko-dense": ("dense", {}),
    "bunko-hybrid, chunks only": ("hybrid", CHUNKS_ONLY),
}
MAIN_SYSTEMS = ("bunko-hybrid", "bunko-keyword", "bunko-dense")
LANG_COLUMNS = (*pc.LANGS, "all")
BOOTSTRAP = 2000
SEED = 20261203


@dataclass(frozen=True)
class Setting:
    child: int
    parent: int

    @property
    def name(self) -> str:
        return f"c{self.child}-p{self.parent}"

    def config(self) -> Config:
        config = Config()
        config.chunk.max_chars = self.child
        config.chunk.parent_max_chars = self.parent
        return config


SETTINGS = {s.name: s for s in (Setting(300, 2000), Setting(600, 2000), Setting(1000, 2000), Setting(300, 4000))}
DEFAULT = Setting(Config().chunk.max_chars, Config().chunk.parent_max_chars)


def collection_path(folder: Path, setting: Setting, own_default: bool) -> Path:
    """bench_pages' collection for the default setting (unless `own_default`), else one per setting."""
    return folder / (".bunko" if setting == DEFAULT and not own_default else f".bunko-chunk-{setting.name}")


def record_path(folder: Path, setting: Setting, own_default: bool) -> Path:
    """Where the last build of the setting's collection is recorded (bench_pages' record for its collection)."""
    if setting == DEFAULT and not own_default:
        return folder / bp.INGEST_RECORD
    return collection_path(folder, setting, own_default) / RECORD


def open_collection(folder: Path, setting: Setting, embedder: Embedder, own_default: bool) -> Bunko:
    """The setting's collection, created with its config; an existing one must have been built with the same chunk section.

    Whatever retrieve settings a collection's bunko.toml holds, it is searched with the code's defaults, the same for all.
    """
    config = setting.config()
    path = collection_path(folder, setting, own_default)
    stored = path / CONFIG_FILE
    if stored.exists() and (found := Config.load(stored).chunk) != config.chunk:
        changed = {k: v for k, v in found.model_dump().items() if v != config.chunk.model_dump()[k]}
        raise SystemExit(f"{path}: built with other chunk settings {changed}; remove it or pick another setting")
    return Bunko(path, config=config, embedder=embedder)


def ensure_ingested(kb: Bunko, folder: Path, setting: Setting, pages: int, own_default: bool) -> dict[str, Any]:
    """Index the three language folders unless the collection already holds every page; returns the build record."""
    record = record_path(folder, setting, own_default)
    before = len(kb.documents())
    if before == pages and record.exists():
        return {"reused": True, **json.loads(record.read_text(encoding="utf-8"))}
    load_before = os.getloadavg()[0]
    report, seconds = bp.index_languages(kb, folder, every_s=20)
    built = {"date": time.strftime("%Y-%m-%d %H:%M"), "indexed": report.count(JobStatus.READY), "seconds": round(seconds, 1),
             "chunks": kb.store.chunk_count(), "resumed_from_documents": before,
             "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2)}
    record.write_text(json.dumps(built), encoding="utf-8")
    print(f"  ingest: {built['indexed']} indexed in {seconds:.1f} s, {built['chunks']:,} chunks with parents", flush=True)
    return {"reused": False, **built}


def chunk_stats(kb: Bunko, corpus: bp.Corpus) -> dict[str, Any]:
    """The index's shape: chunks by role and language, the searchable chunks' length, those the embedder cuts."""
    counts: Counter[str] = Counter()
    roles: Counter[str] = Counter()
    lengths: list[int] = []
    truncated = 0
    for chunk in kb.chunks():
        roles[str(chunk.meta.get("role", "single"))] += 1
        if chunk.searchable:  # a parent only repeats its children's text and has no vector
            counts[corpus.page_key(chunk.source).split("/", 1)[0]] += 1
            lengths.append(len(chunk.text))
            truncated += bool(chunk.meta.get("truncated"))
    return {"searchable": len(lengths), "with_parents": sum(roles.values()), "parents": roles["parent"], "children": roles["child"],
            "single": roles["single"], "mean_chars": round(statistics.fmean(lengths), 1) if lengths else 0,
            "median_chars": statistics.median(lengths) if lengths else 0, "truncated": truncated,
            "per_language": {lang: counts[lang] for lang in pc.LANGS}}


def evaluate(corpus: bp.Corpus, systems: list[str]) -> dict[str, Any]:
    """Every query through every system, as bench_pages' evaluate: metrics per language and pooled, ranks per query."""
    table: dict[str, dict[str, Any]] = {}
    ranks: dict[str, list[int | None]] = {}
    seconds: dict[str, float] = {}
    for name in systems:
        started = time.perf_counter()
        run = bp.bunko_system(corpus, *SYSTEMS[name])
        rows = []
        with threadpool_limits(limits=1, user_api="blas"):  # as bench_pages: a shared BLAS stalls when the other core is busy
            run(0)  # warm-up, untimed: the first search loads the store's indexes
            for i, q in enumerate(corpus.queries):
                ranked, spent = run(i)
                rows.append({"lang": q["lang"], "rank": bp.rank_of(ranked, q["relevant"]), "ms": spent * 1000, "top": ranked[:1]})
        table[name] = {lang: bp.summarise([r for r in rows if r["lang"] == lang]) for lang in pc.LANGS} | {"all": bp.summarise(rows)}
        ranks[name] = [r["rank"] for r in rows]
        seconds[name] = round(time.perf_counter() - started, 1)
        print(f"  {name:26s} " + "  ".join(f"{lang} {table[name][lang]['ndcg@10']:.3f}/{table[name][lang]['mrr@10']:.3f}"
                                             for lang in LANG_COLUMNS) + f"  ({seconds[name]:.1f} s)", flush=True)
    return {"table": table, "rank": ranks, "seconds": seconds}


def gains(ranks: list[int | None]) -> np.ndarray:
    """Per query nDCG@10 with one relevant page: 1 / log2(rank + 1), 0 when not in the top 10."""
    return np.array([1 / np.log2(r + 1) if r else 0.0 for r in ranks])


def vs_default(
    ranks: dict[str, dict[str, list[int | None]]], langs: list[str], setting: str, systems: list[str]
) -> dict[str, dict[str, Any]]:
    """Per system: queries found in the top 10 with `setting` and not with the default and the reverse, and per
    language (and all) the nDCG@10 difference with a 95 % paired bootstrap interval over queries."""
    rng = np.random.default_rng(SEED)
    out: dict[str, dict[str, Any]] = {}
    for system in systems:
        mine, base = ranks[setting][system], ranks[DEFAULT.name][system]
        found = [sum(a is not None and b is None for a, b in zip(mine, base, strict=True)),
                 sum(b is not None and a is None for a, b in zip(mine, base, strict=True))]
        diff = gains(mine) - gains(base)
        delta = {}
        for lang in LANG_COLUMNS:
            part = diff if lang == "all" else diff[np.array([q == lang for q in langs])]
            means = part[rng.integers(0, len(part), (BOOTSTRAP, len(part)))].mean(axis=1) if len(part) else np.zeros(1)
            delta[lang] = [round(float(part.mean()) if len(part) else 0.0, 4),
                           round(float(np.percentile(means, 2.5)), 4), round(float(np.percentile(means, 97.5)), 4)]
        out[system] = {"found_only_here": found[0], "found_only_default": found[1], "ndcg_delta_ci95": delta}
    return out


def run_corpus(
    name: str, settings: list[Setting], systems: list[str], embedder: Embedder, limit: int | None, own_default: bool
) -> dict[str, Any]:
    folder = pc.build(name)
    files = pc.page_files(folder)
    queries = pc.load_queries(folder)
    if limit is not None:
        queries = [q for lang in pc.LANGS for q in [q for q in queries if q["lang"] == lang][:limit]]
    started = time.perf_counter()
    vectors = embed_queries(embedder, [q["query"] for q in queries])
    print(f"{name}: {len(files)} pages, {len(queries)} queries (vectors in {time.perf_counter() - started:.1f} s)", flush=True)
    found: dict[str, Any] = {"pages": {lang: sum(k.startswith(f"{lang}/") for k in files) for lang in pc.LANGS},
                             "queries": {"id": [q["id"] for q in queries], "lang": [q["lang"] for q in queries]},
                             "settings": {}}
    ranks: dict[str, dict[str, list[int | None]]] = {}
    for setting in settings:
        print(f"{name} {setting.name}: {collection_path(folder, setting, own_default)}", flush=True)
        kb = open_collection(folder, setting, embedder, own_default)
        try:
            ingest = ensure_ingested(kb, folder, setting, len(files), own_default)
            if len(kb.documents()) != len(files):
                raise SystemExit(f"{kb.path}: the collection holds {len(kb.documents())} documents for {len(files)} pages")
            corpus = bp.Corpus(name, folder, kb, queries, vectors, {key: "" for key in files}, {}, ingest)
            shape = chunk_stats(kb, corpus)
            started = time.perf_counter()
            evaluated = evaluate(corpus, systems)
            seconds = round(time.perf_counter() - started, 1)
            # the collection folder once searched: SQLite store with the vectors, the keyword index caches
            shape["disk_mb"] = round(sum(f.stat().st_size for f in kb.path.rglob("*") if f.is_file()) / 1e6, 1)
        finally:
            kb.close()
        if corpus.unmapped:
            print(f"  warning: hit sources not mapped to pages: {dict(corpus.unmapped.most_common(5))}", flush=True)
        ranks[setting.name] = evaluated["rank"]
        found["settings"][setting.name] = {
            "child_chars": setting.child, "parent_chars": setting.parent, "collection": str(kb.path), "ingest": ingest,
            "index": shape, "table": evaluated["table"], "evaluate_seconds": seconds, "system_seconds": evaluated["seconds"],
            "unmapped_hit_sources": dict(corpus.unmapped.most_common(20)), "rank": ranks[setting.name],
        }
    if DEFAULT.name in ranks:
        for setting in settings:
            if setting != DEFAULT:
                found["settings"][setting.name]["vs_default"] = vs_default(ranks, found["queries"]["lang"], setting.name, systems)
    return found


# -- report ----------------------------------------------------------------------------------------

def dumps(results: dict[str, Any]) -> str:
    """Indented JSON with each per-query column (a long list of numbers or strings) on one line."""
    columns: dict[str, str] = {}

    def shape(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: shape(v) for k, v in value.items()}
        if isinstance(value, list) and len(value) > 12 and all(v is None or isinstance(v, int | float | str) for v in value):
            key = f"@column{len(columns)}@"
            columns[key] = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            return key
        return value

    text = json.dumps(shape(results), indent=1, ensure_ascii=False)
    for key, column in columns.items():
        text = text.replace(f'"{key}"', column, 1)
    return text


def metric_table(found: dict[str, Any], metric: str, systems: list[str], cost: bool) -> list[str]:
    """Rows = settings; columns = the metric per language for each system (bold: best of the column), then the cost."""
    head = [f"{system.removeprefix('bunko-')} {lang}" for system in systems for lang in LANG_COLUMNS]
    extra = ["indexed chunks (with parents)", "mean chunk chars", "MB on disk", "ingest s", "hybrid p50 ms"] if cost else []
    lines = ["| setting | " + " | ".join(head + extra) + " |", "|---|" + "---|" * (len(head) + len(extra))]
    rows = found["settings"]
    best = {(s, lang): max(row["table"][s][lang][metric] for row in rows.values()) for s in systems for lang in LANG_COLUMNS}
    for name, row in rows.items():
        cells = []
        for system in systems:
            for lang in LANG_COLUMNS:
                value = row["table"][system][lang][metric]
                bold = "**" if value == best[(system, lang)] else ""
                cells.append(f"{bold}{value:.3f}{bold}")
        if cost:
            index, ingest = row["index"], row["ingest"]
            cells += [f"{index['searchable']:,} ({index['with_parents']:,})", f"{index['mean_chars']:.0f}", f"{index['disk_mb']:.0f}",
                      f"{ingest['seconds']:.0f}" + ("" if not ingest.get("resumed_from_documents") else " (resumed)"),
                      f"{row['table']['bunko-hybrid']['all']['p50_ms']:.1f}"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def report(results: dict[str, Any]) -> str:
    systems: list[str] = results["systems"]
    main_systems = [s for s in systems if s in MAIN_SYSTEMS]
    others = [s for s in systems if s not in main_systems]
    code = results["code"]
    lines = [
        "# Chunk sizes on the page-shaped corpora (issue 14)", "",
        f"Generated by `{results['command']}` on {results['date']} ({results['machine']}; load {results['load_end']:.1f} at the end; "
        f"another engineer's benchmarks share the machine), bunko at commit {code['commit']}"
        + (f" with {len(code['uncommitted'])} uncommitted files under src/" if code["uncommitted"] else "")
        + f" (src digest {code['src_digest']}" + ("" if results["src_digest_end"] == code["src_digest"]
                                                   else f", {results['src_digest_end']} at the end: src/ changed during the run")
        + "). Total run time " + f"{results['seconds']:.0f} s.", "",
        "The corpora and queries are bench_pages' (bench/results/pages.md): the Debian Administrator's Handbook (**handbook**, one "
        "file per page) and the Debian Reference (**reference**, one file per second-level section) in en/ja/zh, the three "
        "languages in one collection; queries are the pages' removed headings (at most 300 per language), one relevant page each. "
        "Each setting is its own collection, built with only `[chunk]` changed: `cX-pY` = children (`max_chars`, the searched "
        "and embedded chunks) of X characters, parents (`parent_max_chars`, returned for context, neither embedded nor indexed) "
        "of Y; c300-p2000 is the default"
        + (" (its own collection here, built like the others)" if results["own_default"] else " and reuses bench_pages' collection")
        + ". Search: bunko's `Searcher` with the code's default retrieve config for every setting (in the JSON; hybrid adds "
        "document-level evidence to each chunk: its page's BM25 and its page's closest chunks' cosine), 50 chunk hits reduced to "
        "distinct pages, top 10; *hybrid, chunks only*: hybrid with those document weights at 0, chunk evidence alone (the "
        "default before commit 67bc333). Latency is the `search` call with the query vector given, one BLAS thread. *indexed chunks* = searchable chunks = stored vectors (a parent with a "
        "single child is stored once, as that child); *MB on disk*: the collection folder once searched (SQLite store with the "
        "vectors, keyword index caches). Ingest seconds are one full build (parse, chunk, embed with USE "
        "multilingual v3 on one thread, index), measured when the collection was built (see Run for the date and load).", "",
        "Not measured: a contextual title prefix. bunko embeds each chunk's section path before its text (`embed_text_for`) but "
        "never the document title, and no setting adds it; these pages have no headings and no `<title>` (removed so that no "
        "query is its page's own text), so every chunk's section path is empty, its embedded text is its text, and each "
        "document's title is its file name.", "",
    ]
    for corpus, found in results["corpora"].items():
        pages = ", ".join(f"{lang} {n}" for lang, n in found["pages"].items())
        queries = Counter(found["queries"]["lang"])
        asked = ", ".join(f"{lang} {queries[lang]}" for lang in pc.LANGS)
        lines += [f"## {corpus}", "", f"Pages: {pages}; queries: {asked}.", "",
                  "nDCG@10 (bold: best setting of the column):", "", *metric_table(found, "ndcg@10", main_systems, cost=True), "",
                  "MRR@10:", "", *metric_table(found, "mrr@10", main_systems, cost=False), ""]
        if others:
            lines += [f"{', '.join(others)} (nDCG@10):", "", *metric_table(found, "ndcg@10", others, cost=False), ""]
        compared = {name: row["vs_default"] for name, row in found["settings"].items() if "vs_default" in row}
        if compared:
            lines += ["Against the default, all languages: nDCG@10 difference [95 % paired bootstrap interval over queries]; "
                      "queries found in the top 10 with the setting and not with the default / the reverse:", "",
                      "| setting | " + " | ".join(s.removeprefix("bunko-") for s in systems) + " |", "|---|" + "---|" * len(systems)]
            for name, diff in compared.items():
                cells = []
                for s in systems:
                    mean, low, high = diff[s]["ndcg_delta_ci95"]["all"]
                    only = f"+{diff[s]['found_only_here']} / −{diff[s]['found_only_default']}"
                    cells.append(f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]; {only}")
                lines.append(f"| {name} | " + " | ".join(cells) + " |")
            lines.append("")
        lines += ["Search latency p50 / p95 ms (all queries):", "",
                  "| setting | " + " | ".join(s.removeprefix("bunko-") for s in systems) + " |", "|---|" + "---|" * len(systems)]
        for name, row in found["settings"].items():
            lines.append(f"| {name} | " + " | ".join(f"{row['table'][s]['all']['p50_ms']:.1f} / {row['table'][s]['all']['p95_ms']:.1f}"
                                                    for s in systems) + " |")
        lines.append("")
    lines += ["## Run", ""]
    for corpus, found in results["corpora"].items():
        for name, row in found["settings"].items():
            ingest, index = row["ingest"], row["index"]
            load = (f", load {ingest['load_before']:.1f} before / {ingest['load_after']:.1f} after" if "load_before" in ingest else "")
            built = f"built {ingest['date']} in {ingest['seconds']:.0f} s ({ingest['indexed']} files{load})"
            lines.append(f"- {corpus} {name}: {built}" + ("; reused" if ingest["reused"] else "; by this run")
                         + f"; {index['children']:,} children, {index['single']:,} single chunks, {index['parents']:,} parents, "
                         f"median {index['median_chars']:.0f} chars, {index['truncated']} truncated for the embedder; "
                         f"evaluation {row['evaluate_seconds']:.0f} s; hit sources not mapped to a page: {len(row['unmapped_hit_sources'])}.")
    lines.append("")
    notes = RESULTS / "chunk-sizes.notes.md"
    if notes.exists():  # a hand-written reading, kept beside the generated tables
        lines += [notes.read_text(encoding="utf-8").rstrip(), ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", nargs="+", default=list(pc.CORPORA), choices=list(pc.CORPORA))
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    parser.add_argument("--own-default", action="store_true",
                        help=f"build the default setting into .bunko-chunk-{DEFAULT.name} instead of reusing bench_pages' .bunko "
                        "(its build then timed under this run's conditions)")
    parser.add_argument("--limit", type=int, help="only the first N queries of each language (a smoke test)")
    parser.add_argument("--out", default="chunk-sizes", help="results file stem under bench/results/")
    args = parser.parse_args()
    started = time.perf_counter()
    config = Config()
    results: dict[str, Any] = {
        "command": " ".join(["python bench/bench_chunk_sizes.py", *sys.argv[1:]]), "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, load {os.getloadavg()[0]:.1f} at start",
        "systems": args.systems, "system_overrides": {name: SYSTEMS[name] for name in args.systems},
        "own_default": args.own_default, "k": bp.K, "chunk_hits": bp.CHUNK_HITS, "default_setting": DEFAULT.name,
        "code": bp.code_state(config.retrieve.model_dump()), "corpora": {},
    }
    embedder = build_embedder(config.embed)
    settings = [SETTINGS[name] for name in args.settings]
    for name in args.corpus:
        results["corpora"][name] = run_corpus(name, settings, args.systems, embedder, args.limit, args.own_default)
    results["seconds"] = round(time.perf_counter() - started, 1)
    results["load_end"] = round(os.getloadavg()[0], 2)
    results["src_digest_end"] = bp.code_state(None)["src_digest"]
    for name, found in results["corpora"].items():
        print(f"\n{name}\n" + "\n".join(metric_table(found, "ndcg@10", [s for s in args.systems if s in MAIN_SYSTEMS], cost=True)))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(dumps(results), encoding="utf-8")
    (RESULTS / f"{args.out}.md").write_text(report(results), encoding="utf-8")
    print(f"wrote {RESULTS / f'{args.out}.md'} ({results['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
