"""Checks questions.jsonl against the laid-out Debian New Maintainers' Guide pages.

Every answerable question's expected string (one of them, when a list) must occur
in the text of at least one of its cited pages *in the question's language*
(BeautifulSoup get_text, NFKC, whitespace removed, casefolded), so a grader that
matches answers verbatim can score it. Sources must be given in all three
languages, the answer must not be given away in the question, and multi-hop
questions must cite two different pages. Absent questions are only listed, for a
human to confirm the guide does not answer them (grep all three languages for
their key words; the greps are recorded in their notes).

Usage: check.py [DEST]   (DEST as given to prepare.sh; default: the installed
packages maint-guide, maint-guide-ja, maint-guide-zh-cn read in place)
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
INSTALLED = {
    "en": Path("/usr/share/doc/maint-guide/html"),
    "ja": Path("/usr/share/doc/maint-guide-ja/html"),
    "zh": Path("/usr/share/doc/maint-guide-zh-cn/html"),
}
SUFFIX = {"en": "en", "ja": "ja", "zh": "zh-cn"}
TYPES = ("fact", "table", "multi-hop", "absent")
SUBTYPES = {"command", "path", "option", "value", "package", "purpose", "definition", "list", "which-section"}


def squash(text: str) -> str:
    """NFKC, no whitespace, casefolded: the form in which answers are matched."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).casefold()


@cache
def page_text(root: Path | None, source: str) -> str:
    """Squashed text of one cited page; source is 'lang/file.html'."""
    lang, name = source.split("/", 1)
    path = (INSTALLED[lang] if root is None else root / lang) / name
    html = path.read_text(encoding="utf-8")
    return squash(BeautifulSoup(html, "html.parser").get_text(" "))


def check(rows: list[dict], root: Path | None) -> list[str]:
    """Returns one message per problem found."""
    problems: list[str] = []
    seen: set[str] = set()
    for q in rows:
        qid, lang, kind = q["id"], q["tags"]["lang"], q["tags"]["type"]
        if qid in seen:
            problems.append(f"{qid}: duplicate id")
        seen.add(qid)
        if lang not in SUFFIX or not qid.startswith(lang + "-") or kind not in TYPES \
                or q["tags"].get("subtype") not in SUBTYPES:
            problems.append(f"{qid}: bad id/lang/type/subtype")
            continue
        if kind == "absent":
            if q.get("expected_answer") is not None or q.get("relevant_sources"):
                problems.append(f"{qid}: absent question with an answer or sources")
            if "grep" not in q.get("notes", ""):
                problems.append(f"{qid}: absent question without the grep in its notes")
            continue
        answers = q.get("expected_answer")
        answers = [answers] if isinstance(answers, str) else list(answers or [])
        if not answers:
            problems.append(f"{qid}: no expected_answer")
            continue
        sources = q.get("relevant_sources") or []
        own = [s for s in sources if s.startswith(lang + "/")]
        if not own:
            problems.append(f"{qid}: no source in its own language")
            continue
        stems = {s.split("/", 1)[1].split(".", 1)[0] for s in sources}
        expected = {f"{lg}/{stem}.{SUFFIX[lg]}.html" for lg in SUFFIX for stem in stems}
        if expected != set(sources):
            problems.append(f"{qid}: sources not given in all three languages: {sources}")
        if kind == "multi-hop" and len(stems) < 2:
            problems.append(f"{qid}: multi-hop question citing a single page")
        try:
            text = "".join(page_text(root, s) for s in own)
        except FileNotFoundError as exc:
            problems.append(f"{qid}: cited page missing: {exc.filename}")
            continue
        if not any(squash(a) in text for a in answers):
            problems.append(f"{qid}: none of {answers} found in {own}")
        if any(squash(a) in squash(q["question"]) for a in answers):
            problems.append(f"{qid}: the answer is given away in the question")
        if not q.get("notes", "").startswith("evidence:"):
            problems.append(f"{qid}: notes do not start with 'evidence:'")
    return problems


def main() -> int:
    root = Path(sys.argv[1]) / "html" if len(sys.argv) > 1 else None
    rows = [json.loads(line) for line in (HERE / "questions.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    counts = Counter((q["tags"]["lang"], q["tags"]["type"]) for q in rows)
    for lang in SUFFIX:
        print(lang, {t: counts[(lang, t)] for t in TYPES}, "total", sum(counts[(lang, t)] for t in TYPES))
    subtypes = Counter(q["tags"]["subtype"] for q in rows if q["tags"]["type"] != "absent")
    print("answerable subtypes:", dict(sorted(subtypes.items())))
    per_page = Counter((q["tags"]["lang"], s) for q in rows for s in q.get("relevant_sources") or []
                       if s.startswith(q["tags"]["lang"] + "/"))
    for (lang, src), n in sorted(per_page.items()):
        if n > 4:
            print(f"note: {n} {lang} questions cite {src}")
    print("\nabsent questions (confirm by hand that the guide does not answer them):")
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
