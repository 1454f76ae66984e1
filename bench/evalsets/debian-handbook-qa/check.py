"""Checks questions.jsonl against the laid-out Handbook pages.

Every answerable question's expected string must occur in the text of at least
one of its cited pages *in the question's language* (BeautifulSoup get_text,
NFKC, whitespace removed), so a grader that matches answers verbatim can score
it. Absent questions are only listed, for a human to confirm the book does not
answer them (grep all three languages for their key words).

Usage: check.py [DEST]   (DEST as given to prepare.sh; default: the installed
package read in place)
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
INSTALLED = Path("/usr/share/doc/debian-handbook/html")
LANG_DIRS = {"en": "en-US", "ja": "ja-JP", "zh": "zh-CN"}
TYPES = ("fact", "table", "multi-hop", "absent")
SUBTYPES = {"command", "path", "option", "value", "package", "purpose", "definition", "list", "which-section"}


def squash(text: str) -> str:
    """NFKC and no whitespace: the form in which answers are matched."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


@cache
def page_text(root: Path, source: str) -> str:
    """Squashed text of one cited page; source is 'lang/file.html'."""
    lang, name = source.split("/", 1)
    path = root / lang / name if root != INSTALLED else root / LANG_DIRS[lang] / name
    html = path.read_text(encoding="utf-8")
    return squash(BeautifulSoup(html, "html.parser").get_text(" "))


def check(rows: list[dict], root: Path) -> list[str]:
    """Returns one message per problem found."""
    problems: list[str] = []
    seen: set[str] = set()
    for q in rows:
        qid, lang, kind = q["id"], q["tags"]["lang"], q["tags"]["type"]
        if qid in seen:
            problems.append(f"{qid}: duplicate id")
        seen.add(qid)
        if not qid.startswith(lang + "-") or kind not in TYPES or q["tags"]["subtype"] not in SUBTYPES:
            problems.append(f"{qid}: bad id/lang/type/subtype")
        if kind == "absent":
            if q.get("expected_answer") is not None or q.get("relevant_sources"):
                problems.append(f"{qid}: absent question with an answer or sources")
            continue
        answers = q["expected_answer"]
        answers = [answers] if isinstance(answers, str) else answers
        own = [s for s in q["relevant_sources"] if s.startswith(lang + "/")]
        if not own:
            problems.append(f"{qid}: no source in its own language")
            continue
        files = {s.split("/", 1)[1] for s in q["relevant_sources"]}
        if {f"{lg}/{f}" for lg in LANG_DIRS for f in files} != set(q["relevant_sources"]):
            problems.append(f"{qid}: sources not given in all three languages")
        text = "".join(page_text(root, s) for s in own)
        missing = [a for a in answers if squash(a) not in text]
        if len(missing) == len(answers):
            problems.append(f"{qid}: none of {answers} found in {own}")
        if any(squash(a) in squash(q["question"]) for a in answers):
            problems.append(f"{qid}: the answer is given away in the question")
    return problems


def main() -> int:
    root = Path(sys.argv[1]) / "html" if len(sys.argv) > 1 else INSTALLED
    rows = [json.loads(line) for line in (HERE / "questions.jsonl").read_text().splitlines() if line.strip()]
    counts = Counter((q["tags"]["lang"], q["tags"]["type"]) for q in rows)
    for lang in LANG_DIRS:
        print(lang, {t: counts[(lang, t)] for t in TYPES})
    per_page = Counter((q["tags"]["lang"], s) for q in rows for s in q.get("relevant_sources") or []
                       if s.startswith(q["tags"]["lang"] + "/"))
    for (lang, src), n in per_page.items():
        if n > 3:
            print(f"note: {n} {lang} questions cite {src}")
    print("\nabsent questions (confirm by hand that the book does not answer them):")
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
