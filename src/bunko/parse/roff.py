"""Manual pages in their roff source (man(7) and mdoc(7) macros, tbl tables), plain or gzip-compressed as installed.

A manual page read as plain text keeps its markup (".TP", "\\fB-r\\fR") and loses its structure: the options, the
files and the exit codes are one run of text under no heading, and a gzip-compressed page (how a system installs
them: ``ls.1.gz``) is not read at all. Here a page becomes what a reader of `man` sees, as elements:

- the title ("mytool(1)") and each section (``.SH``/``.Sh``) and subsection (``.SS``/``.Ss``) a heading;
- paragraphs; an option, file or value list (``.TP``, ``.IP``, mdoc's ``.It``) one list with one line per item,
  its tag and its description together ("-r, --retries=N: Retry a failed transfer N times."), so the item that
  answers names what it describes;
- no-fill and example blocks (``.nf``/``.fi``, ``.EX``/``.EE``, ``.Bd -literal``) code;
- tbl tables (``.TS``/``.TE``) tables, their first row the header.

Only the text-producing part of roff is interpreted: requests that move the output (indents, spacing, fonts, page
layout) are dropped, macro definitions and conditionals for typesetters skipped, ``.so`` never followed (a page
never reads another file). Escapes become the characters they print. Nothing here runs code; a page is only text.
"""

from __future__ import annotations

import re
import shlex
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from bunko.errors import DocumentError
from bunko.parse.base import ElementBuilder
from bunko.parse.encoding import decode, encoding_meta
from bunko.parse.limits import MB, current, over_limit
from bunko.parse.tables import table_markdown, table_meta
from bunko.schema import ElementKind, ErrorCode, ParsedDocument
from bunko.text.lazy_regex import lazy_compile

ROFF_MIME = "text/troff"
GZIPPED_ROFF_MIME = "application/x-troff-man-gzip"

_SPECIAL = {
    "em": "—", "en": "–", "hy": "-", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "bu": "•",
    "co": "©", "rg": "®", "tm": "™", "mu": "×", "di": "÷", "+-": "±", "<=": "≤", ">=": "≥", "!=": "≠", "->": "→",
    "<-": "←", "de": "°", "sc": "§", "ga": "`", "ti": "~", "ha": "^", "rs": "\\", "sl": "/", "ba": "|", "or": "|",
    "at": "@", "sh": "#", "Do": "$", "Eu": "€", "Po": "£", "Ye": "¥", "ct": "¢", "fm": "′", "pl": "+", "mi": "−",
    "eq": "=", "ua": "↑", "da": "↓", "OK": "✓", "lh": "☜", "rh": "☞", "ss": "ß", "'e": "é", "'a": "á", ":u": "ü",
    ":o": "ö", ":a": "ä", "`e": "è", "^e": "ê", "~n": "ñ", ",c": "ç",
}
"""groff's special characters (\\(xx, \\[xx]) that manual pages use, as the characters they print."""
_STRINGS = {"lq": "“", "rq": "”", "R": "®", "Tm": "™", "S": "", "aq": "'"}
"""Predefined strings (\\*x, \\*(xx, \\*[name]); a page's own ``.ds`` definitions are added per page."""

_ESCAPE = lazy_compile(
    r"\\(?:f(?:\[[^\]]*\]|\(..|.)"        # font change
    r"|s(?:[+-]?\d+|\[[^\]]*\]|\(..)"      # size change
    r"|\*(?:\[[^\]]*\]|\(..|.)"            # string
    r"|n[+-]?(?:\[[^\]]*\]|\(..|.)"        # number register
    r"|\[[^\]]*\]|\(.."                    # special character
    r"|[hvwlLoxkbZXDRSN]'[^']*'|[kz]."     # motions, widths and other drawing
    r"|[mM](?:\[[^\]]*\]|\(..|.)"          # colours
    r"|.)",
    re.DOTALL,
)
_COMMENT = lazy_compile(r'\\["#].*$')
_REQUEST = lazy_compile(r"^[.'][ \t]*(\S+)[ \t]*(.*)$")
_TBL_OPTIONS = lazy_compile(r"tab\s*\(\s*(.)\s*\)")
_MAN_NAME = lazy_compile(r"\.(?:[1-9n]|[1-9][a-z0-9_+-]{1,8}|man)$", re.IGNORECASE)
_ROFF_HEAD = lazy_compile(rb"^(?:\.TH|\.Dd|\.SH|\.Sh)[ \t]", re.MULTILINE)


def looks_like_roff(head: bytes) -> bool:
    """Whether the first bytes of a file are a manual page's roff source: a title or section request at a line's
    start, as every man(7) or mdoc(7) page has near its top."""
    return len(_ROFF_HEAD.findall(head)) >= 2 or head.lstrip().startswith((b".TH ", b".Dd ", b'.\\"', b"'\\\""))


def is_manual_page_name(name: str) -> bool:
    """A name as manual pages are installed: a section suffix ("ls.1", "crontab.5", "ssl.3ssl"), maybe gzipped."""
    return bool(_MAN_NAME.search(name.removesuffix(".gz")))


def _read(path: Path, source: str) -> bytes:
    """The page's bytes, decompressed when gzipped, never more than `ingest.max_unpacked_mb` of them."""
    data = path.read_bytes()
    if not data.startswith(b"\x1f\x8b"):
        return data
    limit = int(current().max_unpacked_mb * MB)
    try:
        inflater = zlib.decompressobj(wbits=31)
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not a readable gzip file ({exc})") from None
    if len(out) > limit:
        raise over_limit(ErrorCode.TOO_LARGE, source, "unpacked size", round(len(out) / MB, 1), "max_unpacked_mb", " MB", at_least=True)
    return out


def _special(name: str) -> str:
    if name in _SPECIAL:
        return _SPECIAL[name]
    if name.startswith("u") and len(name) in (5, 6) and all(c in "0123456789ABCDEFabcdef" for c in name[1:]):
        return chr(int(name[1:], 16))
    return ""


@dataclass
class _Page:
    strings: dict[str, str] = field(default_factory=lambda: dict(_STRINGS))

    def inline(self, text: str) -> str:
        """Text with its escapes replaced by what they print."""
        text = _COMMENT.sub("", text)

        def replace(match: re.Match[str]) -> str:
            escape = match.group()
            kind = escape[1]
            if kind in "-eE\\":
                return "-" if kind == "-" else "\\"
            if kind in " 0~":
                return " "
            if kind == "(":
                return _special(escape[2:4])
            if kind == "[":
                return _special(escape[2:-1])
            if kind == "*":
                name = escape[3:-1] if escape[2] == "[" else escape[3:5] if escape[2] == "(" else escape[2]
                return self.strings.get(name, "")
            if kind in ".'`":
                return kind if kind != "`" else "`"
            return ""  # fonts, sizes, registers, motions, \& \| \^ \% \c \: and the rest print nothing here

        return _ESCAPE.sub(replace, text)


def _arguments(text: str) -> list[str]:
    """A request's arguments as roff splits them: on spaces, "quoted" ones whole ("" inside a quote is one ")."""
    try:
        lexer = shlex.shlex(text.replace('""', "\x00"), posix=True)
        lexer.whitespace_split = True
        lexer.escape = ""
        lexer.quotes = '"'
        return [a.replace("\x00", '"') for a in lexer]
    except ValueError:  # an unbalanced quote: roff takes the rest of the line as the argument
        return text.replace('"', "").split()


_MDOC_FLAG = {"Fl": "-", "Cm": "", "Ar": "", "Pa": "", "Ev": "", "Va": "", "Ic": "", "Li": "", "Em": "", "Sy": "",
              "Dv": "", "Er": "", "Fn": "", "Ft": "", "Fa": "", "Nm": "", "Ad": "", "Ms": "", "Tn": "", "Ux": "UNIX"}
_MDOC_ENCLOSE = {"Op": ("[", "]"), "Oo": ("[", ""), "Oc": ("", "]"), "Dq": ("“", "”"), "Do": ("“", ""), "Dc": ("", "”"),
                 "Sq": ("‘", "’"), "So": ("‘", ""), "Sc": ("", "’"), "Pq": ("(", ")"), "Po": ("(", ""), "Pc": ("", ")"),
                 "Bq": ("[", "]"), "Bo": ("[", ""), "Bc": ("", "]"), "Brq": ("{", "}"), "Aq": ("⟨", "⟩"), "Ql": ("‘", "’"),
                 "Qq": ('"', '"')}
_PUNCTUATION = set(".,:;)]?!")
_MDOC_SILENT = {"Dd", "Os", "Bl", "Bd", "Bk", "Ek", "Sm", "Lb", "Rs", "Re", "Tg"}
"""mdoc requests that set up the page or a list and print nothing themselves."""


class _Builder:
    """Elements of one page: text gathers into a paragraph, a list item or a code block until a request ends it."""

    def __init__(self, source: str) -> None:
        self.out = ElementBuilder(source)
        self.words: list[str] = []
        self.item: tuple[str, list[str]] | None = None
        self.items: list[str] = []
        self.code: list[str] | None = None
        self.name = ""

    def text(self, words: str) -> None:
        words = words.strip()
        if not words:
            return
        if self.item is not None:
            self.item[1].append(words)
        else:
            self.words.append(words)

    def tag(self, tag: str) -> None:
        """A new list item; `tag` is its term (empty for an untagged indented paragraph)."""
        self._flush_paragraph()
        self._flush_item()
        self.item = (tag.strip(), [])

    def paragraph(self) -> None:
        """A paragraph break: ends a paragraph; inside a list it only separates an item's description paragraphs."""
        if self.item is not None:
            return
        self._flush_paragraph()

    def end_list(self) -> None:
        self._flush_paragraph()
        self._flush_item()
        if self.items:
            self.out.add(ElementKind.LIST, "\n".join(self.items), meta={"method": "roff"})
            self.items = []

    def heading(self, level: int, text: str) -> None:
        self.end_list()
        self.end_code()
        if text.strip():
            self.out.heading(level, " ".join(text.split()))

    def start_code(self) -> None:
        self.end_list()
        if self.code is None:
            self.code = []

    def code_line(self, line: str) -> None:
        assert self.code is not None
        self.code.append(line.rstrip())

    def end_code(self) -> None:
        if self.code is not None:
            body = "\n".join(self.code).strip("\n")
            self.code = None
            if body.strip():
                self.out.add(ElementKind.CODE, f"```\n{body}\n```", meta={"method": "roff"})

    def table(self, header: list[str], rows: list[list[str]]) -> None:
        self.end_list()
        if header or rows:
            self.out.add(ElementKind.TABLE, table_markdown(header, rows), meta={**table_meta(header, rows), "method": "roff-tbl"})

    def _flush_paragraph(self) -> None:
        if self.words:
            self.out.add(ElementKind.PARAGRAPH, " ".join(" ".join(self.words).split()), meta={"method": "roff"})
            self.words = []

    def _flush_item(self) -> None:
        if self.item is None:
            return
        tag, description = self.item
        self.item = None
        said = " ".join(" ".join(description).split())
        line = f"{tag}: {said}" if tag and said else tag or said
        if line:
            self.items.append(line)

    def finish(self) -> None:
        self.end_code()
        self.end_list()
        self._flush_paragraph()


class RoffParser:
    name = "roff"
    version = "1"
    mimes = (ROFF_MIME, GZIPPED_ROFF_MIME)

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        decoded = decode(_read(path, source), source)
        page = _Page()
        built = _Builder(source)
        lines = decoded.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        title = self._interpret(_joined(lines), page, built)
        built.finish()
        elements = [e for e in built.out.elements if e.text.strip()]
        if not elements:
            raise DocumentError(ErrorCode.EMPTY, f"{source}: the manual page holds no text")
        name = Path(source).name.removesuffix(".gz")
        return ParsedDocument(
            doc_id="", source=source, title=title or name, mime=ROFF_MIME, parser=f"{self.name}/{self.version}",
            elements=elements, meta={**encoding_meta(decoded), "manual_page": name},
        )

    def _interpret(self, lines: list[str], page: _Page, built: _Builder) -> str:
        title = ""
        pending: str | None = None  # a request (.B, .SH, .TP) that takes the next text line
        skip_until: str | None = None
        index = 0
        while index < len(lines):
            line = lines[index]
            index += 1
            if skip_until is not None:
                if line.strip().startswith(skip_until):
                    skip_until = None
                continue
            request = _REQUEST.match(line)
            if request is None or line.startswith(("\\.",)):
                text = page.inline(line)
                if built.code is not None:
                    built.code_line(text)
                elif pending is not None:
                    kind, pending = pending, None
                    self._take(kind, text, built, page)
                else:
                    built.text(text)
                continue
            name, rest = request.group(1), request.group(2)
            if name.startswith(('\\"', "\\#")):
                continue
            if name == "TS":
                index = self._table(lines, index, page, built)
                continue
            if name in ("de", "de1", "am", "ig"):
                skip_until = ".."
                continue
            if name == "ds":
                parts = rest.split(None, 1)
                if parts:
                    page.strings[parts[0]] = page.inline(parts[1].lstrip('"')) if len(parts) > 1 else ""
                continue
            if name in ("if", "ie", "el"):
                body = _conditional_body(name, rest)
                if body is not None:
                    lines.insert(index, body)
                continue
            args = _arguments(rest)
            if name == "TH":
                title = f"{page.inline(args[0])}({page.inline(args[1])})" if len(args) >= 2 else page.inline(" ".join(args))
                built.name = page.inline(args[0]) if args else ""
                built.heading(1, title)
            elif name == "Dt":
                title = f"{page.inline(args[0])}({args[1]})" if len(args) >= 2 else page.inline(" ".join(args))
                built.heading(1, title)
            elif name == "Nm" and not built.name and args:
                built.name = page.inline(args[0])
                built.text(_mdoc(args, page, built))
            elif name in ("SH", "Sh", "SS", "Ss"):
                level = 2 if name in ("SH", "Sh") else 3
                if args:
                    built.heading(level, page.inline(" ".join(args)))
                else:
                    pending = name
            elif name in ("PP", "P", "LP", "HP", "Pp", "Lp", "sp", "br"):
                if built.code is not None and name in ("sp", "br"):
                    built.code_line("")
                elif name not in ("br",):
                    built.paragraph()
            elif name == "TP":
                pending = "TP"
            elif name == "IP":
                built.tag(page.inline(args[0]) if args and args[0] not in ("\\(bu", "\\[bu]", "-", "*", "\\-") else "")
            elif name in ("It",):
                built.tag(_mdoc(args, page, built))
            elif name in ("El",):
                built.end_list()
            elif name in ("nf", "EX") or (name == "Bd" and "-literal" in args) or (name == "Bd" and "-unfilled" in args):
                built.start_code()
            elif name in ("fi", "EE", "Ed"):
                built.end_code()
            elif name in ("B", "I", "SM", "SB", "BR", "BI", "IB", "IR", "RB", "RI", "UR", "MT", "OP", "SY", "Nd"):
                if not args and name in ("B", "I", "SM", "SB"):
                    pending = pending or "text"  # the next line, in this font (still the tag after .TP)
                    continue
                joined = "".join(args) if len(name) == 2 and name not in ("SM", "SB", "UR", "MT", "OP", "SY", "Nd") else " ".join(args)
                if name == "OP":
                    joined = f"[{joined}]"
                if name == "Nd":
                    joined = f"— {joined}"
                kind, pending = pending or "text", None  # after .TP, .SH or .SS this line is the tag or heading
                self._take(kind, page.inline(joined), built, page)
            elif name in _MDOC_SILENT:
                continue
            elif name in _MDOC_FLAG or name in _MDOC_ENCLOSE or (len(name) in (2, 3) and name[0].isupper() and name[1:].islower()):
                built.text(_mdoc([name, *args], page, built))
            # every other request (indents, spacing, fonts, layout, .so) prints nothing here
        return title

    def _take(self, kind: str, text: str, built: _Builder, page: _Page) -> None:
        if kind == "TP":
            built.tag(text)
        elif kind in ("SH", "Sh"):
            built.heading(2, text)
        elif kind in ("SS", "Ss"):
            built.heading(3, text)
        elif built.code is not None:
            built.code_line(text)
        else:
            built.text(text)

    def _table(self, lines: list[str], index: int, page: _Page, built: _Builder) -> int:
        """A tbl table from after ``.TS`` to ``.TE``: options (ending ";"), formats (the last ending "."), data rows."""
        body: list[str] = []
        while index < len(lines) and not lines[index].strip().startswith(".TE"):
            body.append(lines[index])
            index += 1
        index += 1
        separator = "\t"
        position = 0
        if body and body[0].rstrip().endswith(";"):
            found = _TBL_OPTIONS.search(body[0])
            separator = found.group(1) if found else separator
            position = 1
        while position < len(body) and not body[position].rstrip().endswith("."):
            position += 1
        rows: list[list[str]] = []
        block: list[str] | None = None
        cells: list[str] = []
        for raw in body[position + 1 :]:
            if block is not None:  # inside T{ ... T}
                if raw.startswith("T}"):
                    cells.append(" ".join(block))
                    block = None
                    rest = raw[2:].lstrip(separator)
                    if rest:
                        cells.extend(page.inline(c).strip() for c in rest.split(separator))
                    else:
                        rows.append(cells)
                        cells = []
                    continue
                if not _REQUEST.match(raw):
                    block.append(page.inline(raw).strip())
                continue
            stripped = raw.strip()
            if not stripped or stripped in ("_", "=") or stripped.startswith((".T&", '.\\"')) or _REQUEST.match(raw):
                continue
            parts = raw.split(separator)
            if parts[-1].startswith("T{"):
                cells = [page.inline(c).strip() for c in parts[:-1]]
                block = [page.inline(parts[-1][2:]).strip()] if parts[-1][2:].strip() else []
                continue
            rows.append([page.inline(c).strip() for c in parts if c.strip() not in ("_", "=")])
        rows = [row for row in rows if any(row)]
        if rows:
            built.table(rows[0], rows[1:])
        return index


def _joined(lines: list[str]) -> list[str]:
    """Lines with roff's continuation (a backslash at the end) joined to the next."""
    out: list[str] = []
    carry = ""
    for line in lines:
        if line.endswith("\\") and not line.endswith("\\\\"):
            carry += line[:-1]
            continue
        out.append(carry + line)
        carry = ""
    if carry:
        out.append(carry)
    return out


def _conditional_body(name: str, rest: str) -> str | None:
    """The request a conditional runs on a terminal: ``.if n …`` yes, ``.if t …`` no, and a test this reader cannot
    evaluate (a register, a string comparison) not at all; ``.el`` never (its ``.ie`` was not judged)."""
    if name == "el":
        return None
    condition, _, body = rest.partition(" ")
    body = body.strip().removeprefix("\\{").strip()
    return body if condition in ("n", "!t") and body else None


def _mdoc(args: list[str], page: _Page, built: _Builder) -> str:
    """An mdoc line's words as printed: ``Fl r`` is "-r", ``Xr ls 1`` "ls(1)", ``Op Fl v`` "[-v]"; ``Ns`` joins two
    words, and punctuation sticks to the word before it."""
    words: list[str] = []
    closers: list[str] = []
    glue = False

    def put(text: str) -> None:
        nonlocal glue
        if words and (glue or text in _PUNCTUATION):
            words[-1] += text
        else:
            words.append(text)
        glue = False

    position = 0
    while position < len(args):
        word = args[position]
        position += 1
        following = args[position] if position < len(args) else ""
        if word == "Ns":
            glue = True
        elif word in _MDOC_ENCLOSE:
            opening, closing = _MDOC_ENCLOSE[word]
            if opening:
                put(opening)
                glue = True
            if closing and word.endswith(("c", "C")):  # a closing request: closes here
                put(closing)
            elif closing:
                closers.append(closing)
        elif word == "Xr":
            section = args[position + 1] if position + 1 < len(args) else ""
            put(f"{page.inline(following)}({section})" if section else page.inline(following))
            position += 2
        elif word == "Nm" and built.name and (not following or following in _MDOC_FLAG or following in _PUNCTUATION):
            put(built.name)
        elif word in _MDOC_FLAG:
            takes = bool(following) and following not in _MDOC_FLAG and following not in _MDOC_ENCLOSE and following not in _PUNCTUATION
            put(_MDOC_FLAG[word] + (page.inline(following) if takes else ""))
            position += 1 if takes else 0
        else:
            put(page.inline(word))
    return " ".join(words).replace("[ ", "[").replace("( ", "(").replace("“ ", "“").replace("‘ ", "‘") + "".join(reversed(closers))
