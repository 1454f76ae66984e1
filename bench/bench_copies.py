"""Copy groups on a real translated manual: how many pages ingest groups, and what folding costs a search.

Ingests a manual's en/, ja/ and zh/ folders (the Writer help under /work/evaldata/writer/docs) into a fresh
collection, lists the groups ingest found, then times the same searches with the copies folded and with folding
off (`Searcher.copies = None`), interleaved in one process, and counts how many hits named the same passage twice.

    PYTHONPATH=src python bench/bench_copies.py /work/evaldata/writer/docs /tmp/copies-bench
"""

from __future__ import annotations

import shutil
import statistics
import sys
import time
from pathlib import Path

from bunko import Bunko

QUERIES = [
    "How do I split a table?", "表を分割するには", "如何拆分表格", "insert a field", "フィールドの挿入", "插入字段",
    "delete a table", "表の削除", "删除表格", "page numbers", "ページ番号", "页码", "keyboard shortcuts", "ショートカットキー",
    "快捷键",
]


def main(docs: Path, work: Path) -> None:
    shutil.rmtree(work, ignore_errors=True)
    kb = Bunko(work / ".bunko")
    started = time.perf_counter()
    report = kb.ingest(docs)
    print(f"ingest: {len(report.jobs)} files in {time.perf_counter() - started:.1f} s, ok={report.ok}")
    listed = {d.doc_id: d for d in kb.documents()}
    groups: dict[str, list[str]] = {}
    for d in listed.values():
        if d.duplicate_of:
            groups.setdefault(listed[d.duplicate_of].source, []).append(d.source)
    print(f"groups: {len(groups)}, copies: {sum(map(len, groups.values()))}")
    for original, copies in sorted(groups.items()):
        print(f"  {original} <- {', '.join(sorted(copies))}")
    searcher = kb.searcher
    folder = searcher.copies
    times: dict[str, list[float]] = {"folded": [], "off": []}
    repeated = {"folded": 0, "off": 0}
    for _ in range(3):
        for query in QUERIES:
            for name in ("off", "folded"):
                searcher.copies = folder if name == "folded" else None
                started = time.perf_counter()
                hits = searcher.search(query, k=10).hits
                times[name].append((time.perf_counter() - started) * 1000)
                texts = [" ".join(h.chunk.text.split()) for h in hits]
                repeated[name] += len(texts) - len(set(texts))
    for name, values in times.items():
        print(f"search {name}: min {min(values):.1f} ms, median {statistics.median(values):.1f} ms over {len(values)}; "
              f"hits repeating a passage of another hit: {repeated[name] // 3} over {len(QUERIES)} queries")
    kb.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
