"""Checks questions.jsonl against the Python 3.11 documentation pages that prepare.sh lays out.

Every answerable question's expected string (one of them, when a list) must occur in the text of at least one
of its cited pages (BeautifulSoup get_text, NFKC, whitespace removed, casefolded), so a grader that matches
answers verbatim can score it; the cited pages must be among the pages prepare.sh copies, and the answer must
not be given away in the question. The pages are English only; Japanese and Chinese questions cite the same
English pages. Absent questions carry the terms that were grepped for in their notes (`grep: "a", "b" -> ...`):
none of them may occur in any of the pages, so the question is not trivially answered by them. An expected
string must hold a letter or digit: bunko's grader turns punctuation into spaces, so `(',', ':')` could never match. They are also
listed for a human to confirm.

Usage: check.py [DEST]   (DEST as given to prepare.sh; default: the installed python3.11-doc pages read in place)
Exit status 1 on any problem.
"""
from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import Counter
from functools import cache
from pathlib import Path

from bs4 import BeautifulSoup

HERE = Path(__file__).resolve().parent
INSTALLED = Path("/usr/share/doc/python3.11-doc/html")
LANGS = ("en", "ja", "zh")
TYPES = ("fact", "table", "multi-hop", "absent")
SUBTYPES = {"option", "value", "default", "envvar", "exception", "parameter", "name", "path", "command"}


def squash(text: str) -> str:
    """NFKC, no whitespace, casefolded: the form in which answers are matched."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).casefold()


def pages() -> list[str]:
    """The pages prepare.sh copies, as 'section/page.html' (read from its PAGES list: one source of truth)."""
    script = (HERE / "prepare.sh").read_text(encoding="utf-8")
    block = re.search(r'^PAGES="(.*?)"', script, re.S | re.M)
    if block is None:
        raise SystemExit("prepare.sh: no PAGES=\"...\" list found")
    return [f"{page}.html" for page in block.group(1).split()]


@cache
def page_text(root: Path, source: str) -> str:
    """Squashed text of one page; source is 'section/page.html'."""
    html = (root / source).read_text(encoding="utf-8")
    return squash(BeautifulSoup(html, "html.parser").get_text(" "))


def grep_terms(notes: str) -> list[str]:
    """The quoted terms after 'grep:' in an absent question's notes."""
    _, _, tail = notes.partition("grep:")
    return [json.loads(term) for term in re.findall(r'"(?:[^"\\]|\\.)*"', tail.split("->")[0])]


def check(rows: list[dict], root: Path) -> list[str]:
    """Returns one message per problem found."""
    problems: list[str] = []
    corpus = pages()
    seen: set[str] = set()
    for q in rows:
        qid, lang, kind = q["id"], q["tags"]["lang"], q["tags"]["type"]
        if qid in seen:
            problems.append(f"{qid}: duplicate id")
        seen.add(qid)
        if lang not in LANGS or not qid.startswith(lang + "-") or kind not in TYPES \
                or q["tags"].get("subtype") not in SUBTYPES:
            problems.append(f"{qid}: bad id/lang/type/subtype")
            continue
        if kind == "absent":
            if q.get("expected_answer") is not None or q.get("relevant_sources"):
                problems.append(f"{qid}: absent question with an answer or sources")
            terms = grep_terms(q.get("notes", ""))
            if not q.get("notes", "").startswith("absent:") or not terms:
                problems.append(f"{qid}: absent question without 'absent:' and the grepped terms in its notes")
            for term in terms:
                found = [p for p in corpus if squash(term) in page_text(root, p)]
                if found:
                    problems.append(f"{qid}: absent question's term {term!r} occurs in {found}")
            continue
        answers = q.get("expected_answer")
        answers = [answers] if isinstance(answers, str) else list(answers or [])
        if not answers:
            problems.append(f"{qid}: no expected_answer")
            continue
        sources = q.get("relevant_sources") or []
        if not sources or any(s not in corpus for s in sources):
            problems.append(f"{qid}: sources missing or not among prepare.sh's pages: {sources}")
            continue
        if kind == "multi-hop" and len(set(sources)) < 2:
            problems.append(f"{qid}: multi-hop question citing a single page")
        try:
            holding = [s for s in sources if any(squash(a) in page_text(root, s) for a in answers)]
        except FileNotFoundError as exc:
            problems.append(f"{qid}: cited page missing: {exc.filename}")
            continue
        if not holding:
            problems.append(f"{qid}: none of {answers} found in {sources}")
        if any(not any(c.isalnum() for c in a) for a in answers):
            problems.append(f"{qid}: an expected answer of punctuation only, which a grader dropping punctuation "
                            "(bunko's normalise) can never match")
        if any(squash(a) in squash(q["question"]) for a in answers):
            problems.append(f"{qid}: the answer is given away in the question")
        if not q.get("notes", "").startswith("evidence:"):
            problems.append(f"{qid}: notes do not start with 'evidence:'")
        else:
            quote = q["notes"][len("evidence:"):].rsplit("(", 1)[0].replace("…", "")
            if not any(squash(quote) in page_text(root, s) for s in sources):
                problems.append(f"{qid}: the evidence quote is not verbatim in a cited page")
    return problems


def main() -> int:
    root = Path(sys.argv[1]) / "html" if len(sys.argv) > 1 else INSTALLED
    rows = [json.loads(line) for line in (HERE / "questions.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    counts = Counter((q["tags"]["lang"], q["tags"]["type"]) for q in rows)
    for lang in LANGS:
        print(lang, {t: counts[(lang, t)] for t in TYPES}, "total", sum(counts[(lang, t)] for t in TYPES))
    subtypes = Counter(q["tags"]["subtype"] for q in rows if q["tags"]["type"] != "absent")
    print("answerable subtypes:", dict(sorted(subtypes.items())))
    cited = Counter(s for q in rows for s in q.get("relevant_sources") or [])
    print(f"{len(cited)} of {len(pages())} pages cited; most cited:", cited.most_common(5))
    print("\nabsent questions (confirm by hand that the pages do not answer them):")
    for q in rows:
        if q["tags"]["type"] == "absent":
            print(f"  {q['id']}: {q['question']}\n      {q.get('notes', '')}")
    problems = check(rows, root)
    print()
    for p in problems:
        print("FAIL", p)
    print(f"{len(rows)} questions, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
