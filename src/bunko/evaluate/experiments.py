"""Run several configurations over one golden set and compare them question by question.

Configurations that index the documents the same way (same ``[ingest]``, ``[chunk]``, ``[embed]``
and analyzer) share one index: the existing collection when it matches, else one temporary
collection built once. Only a configuration that changes the index gets its own re-chunked,
re-embedded temporary copy — indexing is the expensive part, and re-indexing for a change of
``k`` would measure nothing new. Temporary collections are deleted when the run ends.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bunko.config import CONFIG_FILE, Config
from bunko.embed.base import Embedder
from bunko.embed.registry import build_embedder, embedder_name
from bunko.engine import Bunko
from bunko.errors import BunkoError
from bunko.evaluate.bootstrap import Interval, quantile_difference, ratio_difference, resample_indices
from bunko.evaluate.calibration import ECE, Claim, Reliability, claims, ece_difference, reliability
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.judge import ERROR, OK, Judge, judge_summary
from bunko.evaluate.metrics import (
    ANSWER_LENGTH_QUANTILES,
    DEFAULT_KS,
    LATENCY_QUANTILES,
    MetricInfo,
    Ratio,
    aggregate,
    answer_chars,
    describe,
    metric_names,
    score_question,
    stage_order,
)
from bunko.evaluate.records import QuestionRecord
from bunko.evaluate.runner import evaluate_collection
from bunko.evaluate.variants import Variant, index_key, redacted
from bunko.ingest.sources import FOLDERS_META

Progress = Callable[[str, int, int], None]
"""progress(description, done, total): what the experiment is doing now."""

TAG_DIMENSIONS = ("lang", "type")


@dataclass
class RunResult:
    name: str
    origin: str
    config: dict[str, Any]
    index: str
    """Where the chunks came from: "collection" (reused as is) or "temporary #N" (built for this run)."""
    chunks: int
    ingest_seconds: float | None
    records: list[QuestionRecord]
    scores: list[dict[str, Ratio]]
    summary: dict[str, float | None]
    by_tag: dict[str, dict[str, dict[str, float | None]]] = field(default_factory=dict)
    """{"lang": {"ja": summary, …}, "type": {"table": summary, …}}."""
    ingest_failures: list[str] = field(default_factory=list)
    claims: list[Claim | None] = field(default_factory=list)
    """Per question, aligned with `records`: (confidence, right), or None when rightness cannot be judged."""
    reliability: Reliability | None = None
    """Calibration of the run's confidence: ECE and the reliability table (calibration.py)."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["records"] = [r.to_json() for r in self.records]
        data["scores"] = [{k: list(v) for k, v in row.items()} for row in self.scores]
        return data


@dataclass
class Comparison:
    metric: str
    info: MetricInfo
    values: dict[str, float | None]
    winner: str | None
    """Best configuration for this metric; "tie" when several share the best value; None with one run, and for an
    informative metric (answer length), which is no score to win on."""
    diffs: dict[str, Interval | None]
    """Per non-baseline run: its value minus the baseline's, with a paired bootstrap CI."""


@dataclass
class Experiment:
    golden: str
    items: list[GoldenItem]
    runs: list[RunResult]
    ks: tuple[int, ...]
    stages: list[str]
    comparisons: list[Comparison]
    resamples: int
    seed: int
    notes: list[str] = field(default_factory=list)
    judge: str | None = None
    """The LLM judge's model name when the run was judged (--judge), else None."""

    @property
    def baseline(self) -> str:
        return self.runs[0].name

    def run(self, name: str) -> RunResult:
        return next(r for r in self.runs if r.name == name)

    def comparison(self, metric: str) -> Comparison | None:
        return next((c for c in self.comparisons if c.metric == metric), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "golden": self.golden, "ks": list(self.ks), "stages": self.stages, "baseline": self.baseline,
            "resamples": self.resamples, "seed": self.seed, "notes": self.notes, "judge": self.judge,
            "items": [item.to_json() for item in self.items],
            "comparisons": [
                {
                    "metric": c.metric, "group": c.info.group, "higher_is_better": c.info.higher_is_better,
                    "informative": c.info.informative, "formula": c.info.formula,
                    "values": c.values, "winner": c.winner,
                    "diffs": {name: asdict(d) if d else None for name, d in c.diffs.items()},
                }
                for c in self.comparisons
            ],
            "runs": [r.to_json() for r in self.runs],
        }


# -- documents --------------------------------------------------------------------
def collection_documents(collection: Path) -> tuple[list[Path], list[str], str | None]:
    """The files a collection was built from (to rebuild it another way), the ones now missing, and the folders its
    names are anchored at (`ingest.sources.FOLDERS_META`), so a rebuild names each file as the collection does."""
    kb = Bunko(collection, create=False, allow_embedder_change=True)
    try:
        found: list[Path] = []
        missing: list[str] = []
        for doc in kb.documents():
            path = kb.source_path(doc.source)
            if path.exists():
                found.append(path)
            else:
                missing.append(doc.source)
        return found, missing, kb.store.get_meta(FOLDERS_META)
    finally:
        kb.close()


# -- scoring ----------------------------------------------------------------------
def summarise(
    items: Sequence[GoldenItem], records: Sequence[QuestionRecord], ks: Sequence[int], stages: Sequence[str],
    judged: Sequence[Claim | None] | None = None,
) -> tuple[list[dict[str, Ratio]], dict[str, float | None], dict[str, dict[str, dict[str, float | None]]]]:
    """Scores per question, the summary, and the summary per language and type; ECE among them (from `judged`,
    the questions' calibration claims, when not given computed here), and the answers' length percentiles."""
    scores = [score_question(item, record, ks) for item, record in zip(items, records, strict=True)]
    judged = list(judged) if judged is not None else claims(items, records)
    timings = [r.timings for r in records]
    lengths = [answer_chars(r) for r in records]
    summary = {**aggregate(scores, timings, stages, lengths), ECE: reliability(judged).ece}
    by_tag: dict[str, dict[str, dict[str, float | None]]] = {}
    for dimension in TAG_DIMENSIONS:
        groups: dict[str, list[int]] = {}
        for index, item in enumerate(items):
            groups.setdefault(item.lang if dimension == "lang" else item.type, []).append(index)
        by_tag[dimension] = {
            value: {
                **aggregate([scores[i] for i in indices], [timings[i] for i in indices], stages, [lengths[i] for i in indices]),
                ECE: reliability([judged[i] for i in indices]).ece,
            }
            for value, indices in sorted(groups.items())
        }
    return scores, summary, by_tag


def _winner(values: dict[str, float | None], higher_is_better: bool) -> str | None:
    present = {name: v for name, v in values.items() if v is not None}
    if len(values) < 2 or len(present) < 1:
        return None
    best = max(present.values()) if higher_is_better else min(present.values())
    leaders = [name for name, v in present.items() if abs(v - best) <= 1e-12]
    return leaders[0] if len(leaders) == 1 else "tie"


def compare(runs: Sequence[RunResult], ks: Sequence[int], stages: Sequence[str], resamples: int, seed: int) -> list[Comparison]:
    """One row per metric measured by some run: values, winner, and paired-bootstrap differences to the first run."""
    if not runs:
        return []
    indices = resample_indices(len(runs[0].records), resamples, seed) if runs[0].records else np.zeros((0, 0), dtype=int)
    base = runs[0]
    comparisons = []
    for metric in metric_names(ks, stages):
        values = {run.name: run.summary.get(metric) for run in runs}
        if all(v is None for v in values.values()):
            continue
        info = describe(metric)
        diffs: dict[str, Interval | None] = {}
        for run in runs[1:]:
            quantile, _, stage = metric.partition(".")
            if metric == ECE:
                diffs[run.name] = ece_difference(base.claims, run.claims, indices)
            elif quantile in LATENCY_QUANTILES:
                a = np.array([r.timings.get(stage, np.nan) for r in base.records], dtype=float)
                b = np.array([r.timings.get(stage, np.nan) for r in run.records], dtype=float)
                diffs[run.name] = quantile_difference(a, b, LATENCY_QUANTILES[quantile], indices)
            elif metric in ANSWER_LENGTH_QUANTILES:
                a, b = (np.array([_length(r) for r in measured.records], dtype=float) for measured in (base, run))
                diffs[run.name] = quantile_difference(a, b, ANSWER_LENGTH_QUANTILES[metric], indices)
            else:
                a_pairs = np.array([row.get(metric, (0.0, 0.0)) for row in base.scores], dtype=float).reshape(-1, 2)
                b_pairs = np.array([row.get(metric, (0.0, 0.0)) for row in run.scores], dtype=float).reshape(-1, 2)
                diffs[run.name] = ratio_difference(a_pairs[:, 0], a_pairs[:, 1], b_pairs[:, 0], b_pairs[:, 1], indices)
        winner = None if info.informative else _winner(values, info.higher_is_better)
        comparisons.append(Comparison(metric, info, values, winner, diffs))
    return comparisons


def _length(record: QuestionRecord) -> float:
    """The answer's characters, NaN when not answered (the bootstrap leaves NaN out, as the summary leaves it out)."""
    chars = answer_chars(record)
    return float(chars) if chars is not None else np.nan


# -- running ----------------------------------------------------------------------
class _Embedders:
    """One loaded model per embedder name for the whole experiment (loading one takes seconds)."""

    def __init__(self, given: Embedder | None) -> None:
        self.cache: dict[str, Embedder] = {given.name: given} if given is not None else {}

    def get(self, config: Config) -> Embedder:
        name = embedder_name(config.embed)
        if name not in self.cache:
            self.cache[name] = build_embedder(config.embed)
        return self.cache[name]


def run_experiment(
    items: Sequence[GoldenItem],
    variants: Sequence[Variant],
    *,
    collection: Path | None = None,
    docs: Sequence[Path] | None = None,
    embedder: Embedder | None = None,
    ks: Sequence[int] = DEFAULT_KS,
    resamples: int = 2000,
    seed: int = 0,
    golden: str = "<golden>",
    progress: Progress | None = None,
    workdir: Path | None = None,
    root: Path | None = None,
    judge: Judge | None = None,
) -> Experiment:
    """Evaluate every variant over the same items.

    `collection` is an existing collection to reuse for variants that index like it; `docs`
    are the files to index for the others (default: the collection's own documents).
    `embedder` is used for variants whose embedder has its name, so tests and callers that
    already loaded a model do not load it again. Without a collection, temporary indexes name
    sources relative to `root` (default: the current folder); with one, relative to its folder.
    `judge`, when given, scores every answered question of every configuration (judge.py); without
    it no model is asked anything beyond what the configurations' own answers ask.
    """
    if not variants:
        raise BunkoError("nothing to evaluate: no configuration given")
    if not items:
        raise BunkoError("nothing to evaluate: the golden set has no questions")
    ks = tuple(sorted(set(ks)))
    notes: list[str] = []
    embedders = _Embedders(embedder)
    base_key = None
    root = root or Path.cwd()
    if collection is not None:
        if not (collection / CONFIG_FILE).exists():
            raise BunkoError(f"{collection}: no bunko collection here (run `bunko ingest` first, or use --samples / --docs)")
        base_key = index_key(Config.load(collection / CONFIG_FILE))
        root = collection.resolve().parent
    needs_index = [v for v in variants if index_key(v.config) != base_key]
    doc_paths = list(docs) if docs else []
    anchors: str | None = None
    if needs_index and not doc_paths:
        if collection is None:
            raise BunkoError("no documents to index: pass --docs PATH (or --samples)")
        doc_paths, missing, anchors = collection_documents(collection)
        if missing:
            notes.append(f"{len(missing)} document(s) of the collection no longer exist and were not re-indexed: {', '.join(missing[:5])}")
        if not doc_paths:
            raise BunkoError(f"{collection}: none of its documents can be found to re-index; pass --docs PATH")
    if any(item.relevant_chunk_ids for item in items) and any(
        index_key(v.config) != base_key for v in variants
    ):
        notes.append(
            "relevant_chunk_ids name chunks of one chunking; configurations that re-chunk the documents "
            "produce other chunk ids, so their chunk-level retrieval scores are not comparable"
        )

    runs: list[RunResult] = []
    with tempfile.TemporaryDirectory(prefix="bunko-eval-", dir=workdir) as tmp:
        built: dict[str, tuple[Path, int]] = {}
        for variant in variants:
            key = index_key(variant.config)
            model = embedders.get(variant.config)
            ingest_seconds = None
            failures: list[str] = []
            if collection is not None and key == base_key:
                path, index = collection, "collection"
            elif key in built:
                path, number = built[key]
                index = f"temporary #{number}"
            else:
                number = len(built) + 1
                path = Path(tmp) / f"index-{number}" / ".bunko"
                built[key] = (path, number)
                index = f"temporary #{number}"
                if progress:
                    progress(f"{variant.name}: indexing {len(doc_paths)} path(s)", 0, 1)
                started = time.perf_counter()
                # a temporary index is always local: never write experiments into a shared PostgreSQL schema
                local = variant.config.model_copy(update={"store": "local"})
                kb = Bunko(path, config=local, embedder=model)
                kb.root = root  # sources named as in the original collection (or the current folder), so chunk ids compare
                if anchors:
                    kb.store.set_meta(FOLDERS_META, anchors)
                try:
                    report = kb.ingest(doc_paths)
                finally:
                    kb.close()
                ingest_seconds = time.perf_counter() - started
                failures = [f"{job.source}: {job.error_code} {job.error_detail or ''}".strip() for job in report.failed]
            config = variant.config if index == "collection" else variant.config.model_copy(update={"store": "local"})
            kb = Bunko(path, config=config, embedder=model, create=False)
            try:
                chunks = kb.store.chunk_count()

                def tick(done: int, total: int, item: GoldenItem, name: str = variant.name) -> None:
                    if progress:
                        progress(f"{name}: {item.id}", done, total)

                records = evaluate_collection(kb, items, k=max(ks), progress=tick)
            finally:
                kb.close()
            if judge is not None:

                def judged(done: int, total: int, record: QuestionRecord, name: str = variant.name) -> None:
                    if progress:
                        progress(f"{name}: judging {record.item_id}", done, total)

                judge.judge_records(records, progress=judged)
            runs.append(RunResult(
                name=variant.name, origin=variant.origin, config=redacted(variant.config), index=index, chunks=chunks,
                ingest_seconds=ingest_seconds, records=records, scores=[], summary={}, ingest_failures=failures,
            ))
    stages = stage_order(stage for run in runs for record in run.records for stage in record.timings)
    for run in runs:
        run.claims = claims(items, run.records)
        run.reliability = reliability(run.claims)
        run.scores, run.summary, run.by_tag = summarise(items, run.records, ks, stages, run.claims)
        errors = [r for r in run.records if r.error]
        if errors:
            notes.append(f"{run.name}: {len(errors)} question(s) failed, first: {errors[0].item_id}: {errors[0].error}")
        if run.ingest_failures:
            notes.append(f"{run.name}: {len(run.ingest_failures)} document(s) failed to index, first: {run.ingest_failures[0]}")
        if judge is not None:
            notes.extend(judge_notes(run))
    if any(r.summary.get("faithfulness") is not None for r in runs) and not any(
        s.support is not None for run in runs for record in run.records for s in record.sentences
    ):
        notes.append("faithfulness: no sentence carries a support score, so every verdict is the default 'supported'")
    return Experiment(
        golden=golden, items=list(items), runs=runs, ks=ks, stages=stages,
        comparisons=compare(runs, ks, stages, resamples, seed), resamples=resamples, seed=seed, notes=notes,
        judge=judge.name if judge is not None else None,
    )


def judge_notes(run: RunResult) -> list[str]:
    """What the report must say about a judged run beside its scores: questions left without a full verdict, or that
    too few verdicts could be read and the lexical judge scored the run."""
    counts = judge_summary(run.records)
    if counts["lexical"]:
        return [
            f"{run.name}: the judge's verdict could be read for {int(counts['parsed'])} of {int(counts['judged'])} answered "
            f"question(s), fewer than half, so every one was scored by the lexical judge instead (faithfulness: the "
            "share of sentences the citation check supported; relevance: the share of the question's content words in "
            "the answer); the model's replies are kept in the report"
        ]
    lacking = [r for r in run.records if r.judge is not None and r.judge.status != OK]
    if not lacking:
        return []
    first = lacking[0]
    assert first.judge is not None
    failed = int(counts[ERROR])
    return [
        f"{run.name}: the judge gave {len(lacking)} of {int(counts['judged'])} answered question(s) no full verdict "
        f"({int(counts['partial'])} partial, {int(counts['unparsed'])} unparsed, {failed} failed); "
        f"{int(counts['parsed'])} of {int(counts['judged'])} verdicts could be read; those scores are left out, "
        f"not counted as 0; first: {first.item_id}: {first.judge.status}: {first.judge.problem}"
    ]
