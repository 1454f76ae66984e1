"""Page-shaped corpora for bench/bench_pages.py: one file per page or section, known-item queries (headings, descriptions), in en/ja/zh.

    python bench/page_corpora.py [--corpus handbook reference python manpages] [--rebuild]

Built from documentation installed on this machine (Debian packages debian-handbook and
debian-reference-common), deterministically, into ``~/.cache/bunko-bench/pages/<corpus>/``:

- **handbook**: the Debian Administrator's Handbook, one file per publican page
  (``html/{en-US,ja-JP,zh-CN}/*.html``). The page furniture is dropped (banner, the Prev/Next
  lists and their neighbouring page titles, ``<head>`` with ``<title>``, tables of contents,
  index-term anchors); ``index.html`` and pages with under 300 characters of text are skipped.
- **reference**: the Debian Reference (``ch*.{en,ja,zh-cn}.html``, ``ap*``), split into one file
  per second-level section ("1.2. Unix-like filesystem", "A.1. …"); a chapter's text before its
  first such section (chapter table of contents, introduction) is dropped.
- **python** (English only: Debian ships no translation): the Python 3.11 library reference
  (package python3.11-doc, ``html/library/*.html``), one file per module page, its Sphinx body
  (``role="main"``) without the "¶" permalinks. Another generator and another subject than the two
  Debian manuals, which bunko's defaults were measured on.

- **manpages**: manual pages of sections 1, 5 and 8, Japanese and Chinese (packages manpages-ja,
  manpages-zh) and the English pages of the same names (package manpages and whatever installed
  them), formatted by ``man -l`` as plain text 3,000 columns wide (a paragraph per line): a line in
  column 0 is a section heading, the running header and footer are dropped. The NAME section is
  taken out, and its one-line description ("ls - list directory contents" → "list directory
  contents") is the page's only query (kind "description"): a page described as a whole, as a
  person who knows what a command does but not its name would.

Queries of the other corpora are the headings of each page: its own title (kind "title") and every sub-heading (kind
"subheading"), with section numbers ("1.2.3.", "Chapter 6.", "第 6 章", "付録 A.") stripped and
whitespace normalised. A heading is skipped when it is short (under 2 words in Latin script,
under 3 characters when CJK), when its text is the heading of more than one page of that
language (ambiguous), or, in ja/zh, when it has no CJK character (left untranslated). Every
heading is removed from the written pages, so a query is never a verbatim heading of its page:
it is a short description of the page or of a part of it. Each query has exactly one relevant
page. Every such query is written; 300 per corpus and language, drawn with seed 20261202, are marked as the sample
(``"sampled": true``) that benchmarks measure by default. All of them (``bench_pages.py --all-queries``) narrow a
cell's confidence interval where a corpus has more: a 300-query cell's nDCG@10 is known to about ±0.04 (95%).

Each page is written as a small standalone HTML file (``<html><body>`` + the cleaned content,
tables and ``<pre>`` kept, attributes dropped but col/rowspan) to ``<corpus>/<lang>/<name>.html``;
the queries go to ``<corpus>/queries.jsonl`` as ``{"id", "lang", "query", "relevant":
"<lang>/<name>.html", "kind", "sampled"}``. Nothing is rebuilt while ``queries.jsonl`` exists, unless
``--rebuild``.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import random
import re
import shutil
import subprocess
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup, Tag, XMLParsedAsHTMLWarning

from bunko.text.scripts import has_ja_zh

warnings.filterwarnings("ignore", category=XMLParsedAsHTMLWarning)

CACHE = Path.home() / ".cache" / "bunko-bench" / "pages"
CORPORA = ("handbook", "reference", "python", "manpages")
LANGS = ("en", "ja", "zh")
SEED = 20261202
MAX_QUERIES = 300
MIN_PAGE_CHARS = 300
QUERIES_FILE = "queries.jsonl"

HANDBOOK = Path("/usr/share/doc/debian-handbook/html")
HANDBOOK_LANGS = {"en": "en-US", "ja": "ja-JP", "zh": "zh-CN"}
REFERENCE = Path("/usr/share/doc/debian-reference-common/docs")
REFERENCE_LANGS = {"en": "en", "ja": "ja", "zh": "zh-cn"}
PYTHON_LIBRARY = Path("/usr/share/doc/python3.11-doc/html/library")
MANUAL_PAGES = Path("/usr/share/man")
MANUAL_PAGE_LANGS = {"en": "", "ja": "ja", "zh": "zh_CN"}
MANUAL_PAGE_SECTIONS = ("1", "5", "8")
SOURCE_PACKAGES = {"handbook": (HANDBOOK, "debian-handbook"), "reference": (REFERENCE, "debian-reference-en debian-reference-ja debian-reference-zh-cn"),
                   "python": (PYTHON_LIBRARY, "python3.11-doc"), "manpages": (MANUAL_PAGES / "zh_CN" / "man1", "manpages-ja manpages-zh")}
"""corpus → (the documentation it is cut from, the Debian package that installs it)"""

HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
QUERY_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5"))
KEEP_ATTRIBUTES = frozenset(("colspan", "rowspan"))
KEEP_EMPTY = ("br", "hr", "td", "th", "tr")
FURNITURE_CLASSES = ("docnav", "navheader", "navfooter", "toc", "list-of-tables", "list-of-figures", "list-of-examples", "indexterm",
                     "headerlink")
FURNITURE_IDS = ("banner", "title")

_NUMBER = re.compile(
    r"^(?:(?i:chapter|appendix|section|part)\s+[\dA-Z]+\.?"  # Chapter 6.  Appendix A.
    r"|第\s*[\d一二三四五六七八九十]+\s*[章部節节]"  # 第 6 章
    r"|(?:付録|附录|付錄)\s*[A-Z]\.?"  # 付録 A  附录 A.
    r"|(?:[A-Z]|\d+)(?:\.\d+)*\.(?=\s))"  # 1.2.3.  A.1.
    r"\s*"
)
_SECOND_LEVEL = re.compile(r"^(?:[A-Z]|\d+)\.\d+\.?$")


@dataclass
class Page:
    lang: str
    name: str
    body: Tag
    headings: list[str] = field(default_factory=list)
    """Normalised heading texts in document order, the page's own title first."""
    description: str = ""
    """A one-line description of the page taken out of it (a manual page's NAME line); when set, the page's only query."""

    @property
    def key(self) -> str:
        return f"{self.lang}/{self.name}.html"


def normalise_heading(text: str) -> str:
    """Section numbers stripped, whitespace (no-break spaces included) collapsed to single spaces."""
    text = " ".join(text.split())
    previous = None
    while previous != text:  # "Appendix A. A.1. …" never occurs, but "第 1 章 1.2." would need two passes
        previous, text = text, _NUMBER.sub("", text, count=1).strip()
    return text


def heading_number(text: str) -> str:
    """The leading section number of a heading ("1.2. Foo" → "1.2"), or ""."""
    first = " ".join(text.split()).split(" ", 1)[0]
    return first.rstrip(".") if re.fullmatch(r"(?:[A-Z]|\d+)(?:\.\d+)*\.?", first) else ""


def usable_query(text: str, lang: str) -> bool:
    """Long enough to describe something; in ja/zh, translated (at least one CJK character)."""
    has_cjk = has_ja_zh(text)
    if lang != "en" and not has_cjk:
        return False
    if has_cjk:
        return len(text.replace(" ", "")) >= 3
    return len(text.split()) >= 2


def _has_class(tag: Tag, names: tuple[str, ...]) -> bool:
    return any(name in (tag.get("class") or []) for name in names)


def drop_furniture(root: Tag) -> None:
    """Navigation, tables of contents, index anchors, images and scripts: nothing a reader searches for."""
    for tag in list(root.find_all(True)):
        if getattr(tag, "decomposed", False):
            continue
        if (tag.name in ("head", "title", "script", "style", "img", "link", "meta")
                or _has_class(tag, FURNITURE_CLASSES) or tag.get("id") in FURNITURE_IDS):
            tag.decompose()


def take_headings(root: Tag) -> list[str]:
    """Remove every heading from `root`; return the normalised texts of h1–h5 in document order."""
    texts = []
    for heading in root.find_all(HEADING_TAGS):
        if heading.name in QUERY_HEADINGS:
            text = normalise_heading(heading.get_text())
            if text:
                texts.append(text)
        heading.decompose()
    return texts


def strip_attributes(root: Tag) -> None:
    """Plain tags, so no class or id of the source (say "sidebar") decides what a parser keeps."""
    for tag in [root, *root.find_all(True)]:
        tag.attrs = {k: v for k, v in tag.attrs.items() if k in KEEP_ATTRIBUTES}


def drop_empty(root: Tag) -> None:
    """Wrappers left empty by the removals (title blocks, anchors), innermost first."""
    for tag in reversed(root.find_all(True)):
        if tag.name not in KEEP_EMPTY and not tag.get_text().strip() and tag.find(KEEP_EMPTY) is None:
            tag.decompose()


def page_text(root: Tag) -> str:
    return " ".join(root.get_text(" ").split())


def render(page: Page) -> str:
    inner = "".join(str(child) for child in page.body.contents)
    lang = {"en": "en", "ja": "ja", "zh": "zh-CN"}[page.lang]
    return f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"/></head><body>\n{inner}\n</body></html>\n'


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_bytes(), "lxml")


def _finish(lang: str, name: str, root: Tag) -> Page:
    drop_furniture(root)
    headings = take_headings(root)
    strip_attributes(root)
    drop_empty(root)
    return Page(lang, name, root, headings)


def handbook_pages(lang: str) -> Iterator[Page]:
    folder = HANDBOOK / HANDBOOK_LANGS[lang]
    for path in sorted(folder.glob("*.html")):
        if path.name == "index.html":
            continue
        body = _soup(path).body
        if body is None:
            continue
        yield _finish(lang, path.stem, body)


def reference_pages(lang: str) -> Iterator[Page]:
    suffix = REFERENCE_LANGS[lang]
    files = sorted(REFERENCE.glob(f"ch*.{suffix}.html")) + sorted(REFERENCE.glob(f"ap*.{suffix}.html"))
    for path in files:
        stem = path.name.split(".", 1)[0]
        chapter = _soup(path).find("div", class_=["chapter", "appendix"])
        if not isinstance(chapter, Tag):
            continue
        for section in chapter.find_all("div", class_="section", recursive=False):
            heading = section.find(HEADING_TAGS)
            number = heading_number(heading.get_text()) if isinstance(heading, Tag) else ""
            if not _SECOND_LEVEL.match(number):
                continue
            yield _finish(lang, f"{stem}-{number}", section)


def python_pages(lang: str) -> Iterator[Page]:
    if lang != "en":
        return
    for path in sorted(PYTHON_LIBRARY.glob("*.html")):
        body = _soup(path).find("div", attrs={"role": "main"})
        if path.stem != "index" and isinstance(body, Tag):
            yield _finish(lang, path.stem, body)


_MANUAL_NAME_HEADINGS = frozenset(("NAME", "名前", "名称", "名稱"))
_MANUAL_NAME_LINE = re.compile(r"^.+?\s[-−—－]+\s+(.+)$")
_OVERSTRIKE = re.compile(".\b")


def manual_page_files(lang: str, section: str) -> dict[str, Path]:
    """Page name ("ls.1") → its roff source, for one language's manual section."""
    folder = MANUAL_PAGES / MANUAL_PAGE_LANGS[lang] / f"man{section}"
    return {path.name.removesuffix(".gz"): path for path in sorted(folder.glob(f"*.{section}*"))} if folder.is_dir() else {}


def render_manual_page(path: Path) -> str:
    """The page formatted by man(1) as plain text, one paragraph per line (a 3,000-column page never wraps)."""
    env = {**os.environ, "MANWIDTH": "3000", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "MAN_KEEP_FORMATTING": ""}
    done = subprocess.run(["man", "-l", "-P", "cat", str(path)], env=env, capture_output=True, timeout=120, check=False)
    return _OVERSTRIKE.sub("", done.stdout.decode("utf-8", "replace"))


def manual_page_sections(text: str) -> list[tuple[str, list[str]]]:
    """(heading, paragraphs) in order: a line starting in column 0 is a section heading, an indented one a paragraph;
    the running header and footer lines (first and last) are dropped."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()][1:-1]
    sections: list[tuple[str, list[str]]] = []
    for line in lines:
        if not line[0].isspace():
            sections.append((" ".join(line.split()), []))
        elif sections:
            sections[-1][1].append(" ".join(line.split()))
    return sections


def manual_page(lang: str, name: str, text: str) -> Page:
    """The page without its NAME section, whose one-line description ("ls - list directory contents") is kept aside."""
    description = ""
    parts = []
    for heading, paragraphs in manual_page_sections(text):
        if heading.upper() in _MANUAL_NAME_HEADINGS and not description:
            found = _MANUAL_NAME_LINE.match(" ".join(paragraphs))
            description = found.group(1).strip() if found else ""
            continue
        parts.append(f"<h2>{html.escape(heading)}</h2>" + "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs))
    body = BeautifulSoup(f"<body>{''.join(parts)}</body>", "lxml").body
    assert body is not None
    return Page(lang, name, body, description=description)


def manual_pages(lang: str) -> Iterator[Page]:
    """Sections 1, 5 and 8 of the Japanese and Chinese manual pages (packages manpages-ja, manpages-zh), and the
    English pages of the same names: real documentation of another shape, each page found by its NAME line."""
    for section in MANUAL_PAGE_SECTIONS:
        files = manual_page_files(lang, section)
        if lang == "en":
            translated = set(manual_page_files("ja", section)) | set(manual_page_files("zh", section))
            files = {name: path for name, path in files.items() if name in translated}
        for name, path in files.items():
            yield manual_page(lang, name, render_manual_page(path))


SOURCES = {"handbook": handbook_pages, "reference": reference_pages, "python": python_pages, "manpages": manual_pages}


def query_texts(page: Page) -> list[str]:
    return [page.description] if page.description else page.headings


def build_queries(corpus: str, lang: str, pages: list[Page]) -> list[dict[str, Any]]:
    """Query texts (headings, or a description) that name one page only, in page order; MAX_QUERIES of them drawn by
    seeded sampling are marked "sampled" and keep the ids they had when only the sample was written."""
    pages_with = Counter(h for page in pages for h in {text.casefold() for text in query_texts(page)})
    candidates = []
    for page in pages:
        seen: set[str] = set()
        for position, text in enumerate(query_texts(page)):
            folded = text.casefold()
            if folded in seen or pages_with[folded] > 1 or not usable_query(text, lang):
                continue
            seen.add(folded)
            kind = "description" if page.description else "title" if position == 0 else "subheading"
            candidates.append({"lang": lang, "query": text, "relevant": page.key, "kind": kind})
    chosen = set(range(len(candidates)))
    if len(candidates) > MAX_QUERIES:
        chosen = set(random.Random(f"{SEED}-{corpus}-{lang}").sample(range(len(candidates)), MAX_QUERIES))
    sampled = iter(range(len(chosen)))
    others = iter(range(len(candidates)))
    return [
        {"id": f"{corpus}-{lang}-{next(sampled):03d}" if i in chosen else f"{corpus}-{lang}-more-{next(others):04d}",
         **q, "sampled": i in chosen}
        for i, q in enumerate(candidates)
    ]


def build(corpus: str, rebuild: bool = False) -> Path:
    """The corpus folder, written unless already there; returns it."""
    folder = CACHE / corpus
    queries_file = folder / QUERIES_FILE
    if queries_file.exists() and not rebuild:
        return folder
    source, package = SOURCE_PACKAGES[corpus]
    if not source.is_dir():
        raise SystemExit(f"{corpus}: {source} is missing; install it with: apt-get install {package}")
    queries: list[dict[str, Any]] = []
    for lang in LANGS:
        out = folder / lang
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        pages = [p for p in SOURCES[corpus](lang) if len(page_text(p.body)) >= MIN_PAGE_CHARS]
        for page in pages:
            (out / f"{page.name}.html").write_text(render(page), encoding="utf-8")
        queries += build_queries(corpus, lang, pages)
    tmp = queries_file.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries), encoding="utf-8")
    tmp.replace(queries_file)  # written last: its presence means the corpus is complete
    return folder


def read_queries(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / QUERIES_FILE).read_text(encoding="utf-8").splitlines() if line.strip()]


def load_queries(folder: Path, every: bool = False) -> list[dict[str, Any]]:
    """The sample of each language's queries, or with `every` all of them (a file written before the sample was
    marked holds only the sample: `--rebuild` writes the rest)."""
    queries = read_queries(folder)
    if every and not any("sampled" in q for q in queries):
        raise SystemExit(f"{folder / QUERIES_FILE} holds only the sampled queries; write every query with --rebuild")
    return queries if every else [q for q in queries if q.get("sampled", True)]


def page_files(folder: Path) -> dict[str, Path]:
    """``<lang>/<name>.html`` → file, for every page of the corpus."""
    return {f"{lang}/{path.name}": path for lang in LANGS for path in sorted((folder / lang).glob("*.html"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", nargs="+", default=list(CORPORA), choices=list(CORPORA))
    parser.add_argument("--rebuild", action="store_true", help="write the pages and queries again")
    args = parser.parse_args()
    for corpus in args.corpus:
        folder = build(corpus, rebuild=args.rebuild)
        files = page_files(folder)
        queries = read_queries(folder)
        for lang in LANGS:
            mine = [q for q in queries if q["lang"] == lang]
            kinds = Counter(q["kind"] for q in mine)
            pages = sum(key.startswith(f"{lang}/") for key in files)
            sample = sum(q.get("sampled", True) for q in mine)
            print(f"{corpus} {lang}: {pages} pages, {len(mine)} queries, {sample} sampled "
                  f"({', '.join(f'{n} {kind}' for kind, n in sorted(kinds.items()))})")
        print(f"  → {folder}")


if __name__ == "__main__":
    main()
