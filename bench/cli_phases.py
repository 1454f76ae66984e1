"""Where one cold `bunko search` or `ask` process spends its time, phase by phase (wall and CPU seconds).

    PYTHONPATH=src python bench/cli_phases.py COLLECTION search|ask

The phases in the order a command meets them: typer, the command line, the engine's imports, opening the collection,
loading the embedder, loading the in-memory index (rows, vectors, BM25), and the search or the answer. Companion of
bench/bench_cli.py, whose figures are whole processes.
"""

from __future__ import annotations

import sys
import time

T0 = (time.perf_counter(), time.process_time())
marks: list[tuple[str, float, float]] = []


def mark(name: str) -> None:
    marks.append((name, time.perf_counter(), time.process_time()))


def main() -> None:
    import typer  # noqa: F401

    mark("import typer")
    import bunko.cli

    mark("import bunko.cli")
    from bunko.engine import Bunko

    mark("import bunko.engine")
    kb = Bunko(sys.argv[1], create=False)
    mark("open collection")
    _ = kb.embedder
    mark("load embedder")
    kb.store.search().keyword_search(["apt"], 1)
    mark("load in-memory index (rows, vectors, bm25)")
    if sys.argv[2] == "search":
        kb.search("apt proxy", k=10)
        mark("search")
    else:
        import bunko.generate.answerer  # noqa: F401

        mark("import answerer")
        kb.ask("How do I make apt use a proxy?")
        mark("ask")
    kb.close()
    previous = T0
    for name, wall, cpu in marks:
        print(f"{name:45s} wall {wall - previous[0]:6.3f}  cpu {cpu - previous[1]:6.3f}")
        previous = (wall, cpu)
    print(f"{'total':45s} wall {marks[-1][1] - T0[0]:6.3f}  cpu {marks[-1][2] - T0[1]:6.3f}")


if __name__ == "__main__":
    main()
