#!/usr/bin/env python3
"""Validate bench/multihop/handbook.jsonl against the handbook page corpus.

Checks, for every question:
  * required fields and allowed values;
  * lang matches the id prefix and every evidence source directory;
  * at least two evidence items;
  * each evidence snippet (NFKC, all whitespace removed) occurs in its own
    page's text (same normalisation) and in no other page of that language;
  * expected_answer occurs in at least one of the evidence snippets;
and globally: ids unique, 24 questions per language, and at least 18 per
language whose evidence spans two or more different files.

Usage: python bench/multihop/check.py [--jsonl PATH] [--pages DIR]
Exits 1 (after printing every failure) if anything is wrong.
Needs only the standard library and bs4.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

from bs4 import BeautifulSoup

HERE = Path(__file__).resolve().parent
DEFAULT_JSONL = HERE / "handbook.jsonl"
DEFAULT_PAGES = Path(os.path.expanduser("~/.cache/bunko-bench/pages/handbook"))

LANGS = ("en", "ja", "zh")
KINDS = ("bridge", "comparison")
PER_LANG = 24
MIN_CROSS_FILE = 18
SNIPPET_MIN, SNIPPET_MAX = 30, 200
REQUIRED = ("id", "lang", "question", "kind", "evidence", "expected_answer", "notes")
ID_RE = re.compile(r"^mh-(en|ja|zh)-\d{3}$")
_WS = re.compile(r"\s+")


def norm(text: str) -> str:
    return _WS.sub("", unicodedata.normalize("NFKC", text))


def load_pages(pages_dir: Path) -> dict[str, dict[str, str]]:
    """lang -> {"<lang>/<file>.html": normalised text}"""
    out: dict[str, dict[str, str]] = {}
    for lang in LANGS:
        d = pages_dir / lang
        files = {}
        for p in sorted(d.glob("*.html")):
            html = p.read_text(encoding="utf-8")
            files[f"{lang}/{p.name}"] = norm(BeautifulSoup(html, "html.parser").get_text(" "))
        out[lang] = files
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jsonl", type=Path, default=DEFAULT_JSONL)
    ap.add_argument("--pages", type=Path, default=DEFAULT_PAGES)
    args = ap.parse_args()

    failures: list[str] = []

    def fail(qid: str, msg: str) -> None:
        failures.append(f"{qid}: {msg}")

    for lang in LANGS:
        if not (args.pages / lang).is_dir():
            print(f"missing page directory {args.pages / lang}", file=sys.stderr)
            return 1
    pages = load_pages(args.pages)

    rows = []
    with args.jsonl.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                fail(f"line {lineno}", f"invalid JSON: {exc}")

    ids = Counter()
    per_lang = Counter()
    cross_file = Counter()
    kinds = Counter()

    for i, q in enumerate(rows, 1):
        qid = q.get("id", f"row {i}") if isinstance(q, dict) else f"row {i}"
        if not isinstance(q, dict):
            fail(qid, "not a JSON object")
            continue
        missing = [k for k in REQUIRED if k not in q]
        if missing:
            fail(qid, f"missing fields {missing}")
            continue
        ids[qid] += 1
        for k in ("id", "lang", "question", "kind", "expected_answer", "notes"):
            if not isinstance(q[k], str) or not q[k].strip():
                fail(qid, f"field {k!r} must be a non-empty string")
        m = ID_RE.match(str(q["id"]))
        lang = q["lang"]
        if not m:
            fail(qid, "id does not look like mh-<lang>-NNN")
        elif m.group(1) != lang:
            fail(qid, f"id prefix {m.group(1)!r} != lang {lang!r}")
        if lang not in LANGS:
            fail(qid, f"unknown lang {lang!r}")
            continue
        per_lang[lang] += 1
        if q["kind"] not in KINDS:
            fail(qid, f"kind {q['kind']!r} not in {KINDS}")
        kinds[(lang, q["kind"])] += 1

        ev = q["evidence"]
        if not isinstance(ev, list) or len(ev) < 2:
            fail(qid, "needs at least 2 evidence items")
            continue
        if len(ev) > 3:
            fail(qid, f"too many evidence items ({len(ev)})")
        norm_snips = []
        sources = set()
        for j, e in enumerate(ev):
            tag = f"evidence[{j}]"
            if not isinstance(e, dict) or not isinstance(e.get("source"), str) or not isinstance(e.get("text"), str):
                fail(qid, f"{tag} needs string 'source' and 'text'")
                continue
            src, text = e["source"], e["text"]
            if src.split("/", 1)[0] != lang:
                fail(qid, f"{tag} source {src!r} not under {lang}/")
                continue
            if src not in pages[lang]:
                fail(qid, f"{tag} source {src!r} does not exist")
                continue
            sources.add(src)
            if not (SNIPPET_MIN <= len(text) <= SNIPPET_MAX):
                fail(qid, f"{tag} snippet length {len(text)} outside {SNIPPET_MIN}-{SNIPPET_MAX}")
            ns = norm(text)
            norm_snips.append(ns)
            if not ns:
                fail(qid, f"{tag} empty snippet")
                continue
            if ns not in pages[lang][src]:
                fail(qid, f"{tag} snippet not found in {src}: {text[:60]!r}")
            others = [f for f, t in pages[lang].items() if f != src and ns in t]
            if others:
                fail(qid, f"{tag} snippet also occurs in {others}")
        if len(sources) >= 2:
            cross_file[lang] += 1
        ans = norm(q["expected_answer"])
        if ans and not any(ans in s for s in norm_snips):
            fail(qid, f"expected_answer {q['expected_answer']!r} not in any evidence snippet")

    for qid, n in ids.items():
        if n > 1:
            fail(qid, f"id used {n} times")
    for lang in LANGS:
        if per_lang[lang] != PER_LANG:
            fail(lang, f"{per_lang[lang]} questions, expected {PER_LANG}")
        if cross_file[lang] < MIN_CROSS_FILE:
            fail(lang, f"only {cross_file[lang]} questions with evidence in 2 different files (need {MIN_CROSS_FILE})")

    for lang in LANGS:
        ks = ", ".join(f"{k}={kinds[(lang, k)]}" for k in KINDS)
        print(f"{lang}: {per_lang[lang]} questions ({ks}); {cross_file[lang]} cross-file")
    if failures:
        print(f"\n{len(failures)} failure(s):")
        for f in failures:
            print("  " + f)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
