"""How the time to find an HTML page's main content grows with its nesting depth (parse/html.py `content_root`).

    python bench/bench_html_depth.py [--depths 10000,20000,40000,80000] [--rounds 3]

A page of `depth` nested <div>s around a <main> (and a <nav> to drop) is parsed with lxml, then `content_root` is
timed on it, best of `--rounds` (the garbage collector off while timed: a pass over the big tree mid-measurement is
noise, not the walk). Linear time shows as a ratio to the first depth equal to the depth ratio; the quadratic walk
it replaced (bs4's `decomposed` searched each subtree) took 196 s at 16k levels. The unit test
(tests/ingest/test_limits.py) checks the same growth by counting function calls, which no machine's speed changes;
this measures the seconds. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import gc
import platform
import time

from bs4 import BeautifulSoup

from bunko.parse.html import content_root


def page(depth: int) -> str:
    return "<html><body><nav>menu</nav>" + "<div>" * depth + "<main><p>本文 正文 body</p></main>" + "</div>" * depth + "</body></html>"


def best_seconds(depth: int, rounds: int) -> float:
    html = page(depth)
    times = []
    for _ in range(rounds):
        soup = BeautifulSoup(html, "lxml")
        gc.disable()
        try:
            started = time.perf_counter()
            root = content_root(soup, max_depth=10 * depth)
            times.append(time.perf_counter() - started)
        finally:
            gc.enable()
        assert root.name == "main" and soup.find("nav") is None
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depths", default="10000,20000,40000,80000", help="comma-separated nesting depths")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    depths = [int(d) for d in args.depths.split(",")]
    rows = [(depth, best_seconds(depth, args.rounds)) for depth in depths]
    first_depth, first_seconds = rows[0]
    print(f"content_root by nesting depth, best of {args.rounds} ({platform.python_version()}, {platform.machine()})\n")
    print("| depth | seconds | × depth | × time |")
    print("|---:|---:|---:|---:|")
    for depth, seconds in rows:
        print(f"| {depth:,} | {seconds:.3f} | {depth / first_depth:.1f} | {seconds / first_seconds:.1f} |")


if __name__ == "__main__":
    main()
