"""What the fuzz tests share: the settings (a short reproducible CI run, or a long one), byte and zip-member mutations
of the seed corpus, and one parse held to small limits and a wall-clock guard.

* ``BUNKO_FUZZ_PROFILE=ci`` (the default): few examples per target, ``derandomize=True`` (the same inputs on every run),
  ``deadline=None`` (a slow example is not a failure; a hung one is, by the time guard below and pytest-timeout).
* ``BUNKO_FUZZ_PROFILE=long``: random inputs, ``BUNKO_FUZZ_EXAMPLES`` examples per target (default 2,000).
* ``BUNKO_FUZZ_EXAMPLES=N`` sets the examples per target in either profile.

An uncoded exception (anything but bunko's `DocumentError` from a parse) fails the test; Hypothesis shrinks the input,
and the smallest input seen for each (target, exception type, place raised) is kept under tests/fuzz/found/ when
``BUNKO_FUZZ_SAVE=1``: the file to attach to the report, and to turn into an ``xfail(strict=True)`` reproducer.
"""

from __future__ import annotations

import hashlib
import io
import os
import signal
import tempfile
import time
import traceback
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from PIL import Image

from bunko.errors import DocumentError
from bunko.parse.limits import ParseLimits, parse_within
from bunko.parse.ocr import OcrLine, Tesseract
from bunko.parse.registry import _OOXML, LazyParser, ParserRegistry, default_registry
from bunko.schema import ParsedDocument

HERE = Path(__file__).resolve().parent
SEEDS = HERE / "seeds"
FOUND = HERE / "found"

PROFILE = os.environ.get("BUNKO_FUZZ_PROFILE", "ci")
LONG = PROFILE == "long"
_EXAMPLES = os.environ.get("BUNKO_FUZZ_EXAMPLES")


def fuzz_settings(ci_examples: int) -> settings:
    """`ci_examples` in the CI profile; BUNKO_FUZZ_EXAMPLES (or 2,000 in the long profile) otherwise."""
    examples = int(_EXAMPLES) if _EXAMPLES else (2_000 if LONG else ci_examples)
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=not LONG,
        database=None,
        print_blob=LONG,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


LIMITS = ParseLimits(
    max_parse_seconds=5.0, max_memory_mb=256.0, max_unpacked_mb=16.0, max_zip_members=500, max_depth=64, max_rows=2_000,
    max_cells=20_000, max_pages=20, max_page_pixels=4_000_000, max_elements=5_000, max_chars=1_000_000,
    max_front_matter_values=1_000, max_figures=5,
)
"""Small per-file limits: a mutated seed of a few KB that passes them is a bug in a check, not a big document."""
GUARD_SECONDS = 3 * LIMITS.max_parse_seconds
"""In-process stand-in for the ingest worker's kill at max_parse_seconds (ingest/isolation.py): a parse this long hangs."""


class FakeOcr(Tesseract):
    """Tesseract's stand-in: decodes every pixel of the page or image it is given (the parsers' part: opening, rendering,
    frames) and "reads" one line, in microseconds instead of seconds (Tesseract's own input is not bunko's to fuzz)."""

    binary = "fake-tesseract"  # type: ignore[assignment]
    available = True  # type: ignore[assignment]
    version = "fuzz"  # type: ignore[assignment]
    langs = "eng+jpn+chi_sim"  # type: ignore[assignment]

    def restricted_to(self, wanted: tuple[str, ...]) -> Tesseract:
        return self

    def recognize(self, image: Image.Image, scale: float = 1.0) -> list[OcrLine]:
        image.convert("RGB").tobytes()
        width, height = image.size
        return [OcrLine("宿泊費 hotel 住宿", (0.0, 0.0, width / scale, height / scale), 90.0, (1, 1))]


def registry() -> ParserRegistry:
    """The built-in parsers, with `FakeOcr` for scanned pages, images and figures."""
    reg = default_registry()
    ocr = FakeOcr()
    reg.register(LazyParser("pdf", ("application/pdf",), "pdf", "PdfParser", ocr=ocr))
    reg.register(LazyParser("docx", (_OOXML[0][1],), "docx", "DocxParser", ocr=ocr))
    reg.register(LazyParser("pptx", (_OOXML[1][1],), "pptx", "PptxParser", ocr=ocr))
    reg.register(LazyParser("image-ocr", ("image/png", "image/jpeg", "image/tiff", "image/gif"), "ocr", "ImageParser", ocr=ocr))
    reg.register(LazyParser("email", ("message/rfc822", "application/vnd.ms-outlook"), "email", "EmailParser", registry=reg))
    return reg


REGISTRY = registry()


class Hang(BaseException):
    """A parse past GUARD_SECONDS (a BaseException, so no parser's `except Exception` swallows it)."""


@contextmanager
def time_guard(seconds: float) -> Iterator[None]:
    """SIGALRM after `seconds`, restoring whatever timer was set before (pytest-timeout's, in its signal mode)."""

    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"parse still running after {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    outer, _ = signal.getitimer(signal.ITIMER_REAL)
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, max(0.001, outer - (time.monotonic() - started)))


def parse_bytes(data: bytes, name: str) -> ParsedDocument | DocumentError:
    """Parse `data` as a file called `name` under LIMITS: a document or a coded failure; anything else propagates."""
    with tempfile.TemporaryDirectory(prefix="bunko-fuzz-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        try:
            with time_guard(GUARD_SECONDS):
                return parse_within(REGISTRY, path, name, LIMITS)
        except DocumentError as exc:
            return exc


def keep_smallest(target: str, data: bytes, name: str, exc: BaseException) -> None:
    """With BUNKO_FUZZ_SAVE=1: keep the smallest input per (target, exception type, place raised) under found/."""
    if os.environ.get("BUNKO_FUZZ_SAVE") != "1":
        return
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    key = hashlib.sha1(f"{target}|{type(exc).__name__}|{where}".encode()).hexdigest()[:10]
    suffix = Path(name).suffix
    FOUND.mkdir(exist_ok=True)
    path = FOUND / f"{target}-{type(exc).__name__}-{key}{suffix}"
    if not path.exists() or len(data) < path.stat().st_size:
        path.write_bytes(data)
        path.with_suffix(path.suffix + ".txt").write_text(f"{type(exc).__name__} at {where}: {exc!s:.500}\n", encoding="utf-8")


KNOWN: dict[tuple[str, str, str], str] = {}
"""(bunko/parse file, function, source line) of the innermost parser frame an uncoded exception escaped from -> the
bug, as reported: CI stays green on a reported bug and fails on a new one. Empty: the fourteen the first runs found
(tests/fuzz/test_fuzz_found.py) are fixed by `parse.limits.parse_within` coding a library's own error as PARSE_FAILED
and by the front matter catching PyYAML's constructor errors."""


def signature(exc: BaseException) -> tuple[str, str, str, str]:
    """The exception's type, and the innermost bunko/parse frame it passed through (file name, function, line)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/bunko/parse/" in f.filename.replace("\\", "/")]
    if not frames:
        return type(exc).__name__, "?", "?", "?"
    where = frames[-1]
    return type(exc).__name__, Path(where.filename).name, where.name, (where.line or "").strip()


def check_parse(target: str, data: bytes, name: str, known_ok: bool = True) -> ParsedDocument | DocumentError | str:
    """The property: a document or a coded failure, within the time guard. A failure of a KNOWN bug returns its
    description (`known_ok`, the fuzz runs: CI stays green on reported bugs and fails on new ones) or raises."""
    try:
        return parse_bytes(data, name)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        if known_ok and signature(exc)[1:] in KNOWN:
            return KNOWN[signature(exc)[1:]]
        keep_smallest(target, data, name, exc)
        raise


# -- mutations ---------------------------------------------------------------------------------

INTERESTING = (
    b"\x00", b"\xff", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf", b"\xe3\x81", b"\xc3", "宿泊費".encode(), "住宿".encode("gb18030"),
    "規程".encode("shift_jis"), b"\r\n", b"\r", b"\n\n", b"---\n", b"&#0;", b"&#xD800;", b"&amp", b"]]>", b"<!--", b"<![CDATA[",
    b"<", b"</", b">", b"<a>" * 40, b"<div>" * 80, b"\"", b"'", b"\\", b"{", b"}", b"[", b"]" * 40, b"[" * 200, b"{\"a\":" * 100,
    b",", b"\t", b"-1", b"0", b"4294967295", b"99999999999999999999", b"1e309", b"NaN", b"obj", b"endobj", b"stream\n",
    b"endstream", b"xref", b"trailer", b"%%EOF", b" 0 R", b"/Length 99999", b"/Kids [", b"*a ", b"&a ", b"!!python/object ",
    b"=?utf-8?b?", b"=?iso-2022-jp?q?", b"Content-Type: multipart/mixed; boundary=x\n", b"--x\n", b"charset=", b"PK\x03\x04",
)
KINDS = ("flip", "insert", "delete", "duplicate", "truncate", "overwrite")

op_strategy = st.tuples(
    st.sampled_from(KINDS),
    st.integers(0, 1 << 24),
    st.integers(0, 1 << 24),
    st.one_of(st.sampled_from(INTERESTING), st.binary(min_size=1, max_size=24)),
)
ops_strategy = st.lists(op_strategy, min_size=1, max_size=5)


def apply_ops(data: bytes, ops: list[tuple[str, int, int, bytes]]) -> bytes:
    """Flip a bit, insert or overwrite bytes, delete or duplicate a range (up to 8 copies), truncate."""
    buf = bytearray(data)
    for kind, a, b, payload in ops:
        n = len(buf)
        at = a % (n + 1)
        if kind == "flip" and n:
            buf[at % n] ^= 1 << (b % 8)
        elif kind == "insert":
            buf[at:at] = payload
        elif kind == "overwrite":
            buf[at:at + len(payload)] = payload
        elif kind == "delete":
            del buf[at:at + 1 + b % 256]
        elif kind == "duplicate" and n:
            piece = bytes(buf[at:at + 1 + b % 512])
            to = (a // 7 + b) % (n + 1)
            buf[to:to] = piece * (1 + b % 8)
        elif kind == "truncate":
            del buf[at:]
    return bytes(buf)


def mutated(seed: bytes) -> st.SearchStrategy[bytes]:
    return ops_strategy.map(lambda ops: apply_ops(seed, ops))


def rezip(seed: bytes, member: int, ops: list[tuple[str, int, int, bytes]], drop: bool) -> bytes:
    """A valid zip whose `member`-th XML part (by index, modulo their count) is mutated, or dropped."""
    with zipfile.ZipFile(io.BytesIO(seed)) as archive:
        infos = archive.infolist()
        parts = {info.filename: archive.read(info) for info in infos}
    xml = [info.filename for info in infos if info.filename.endswith((".xml", ".rels"))]
    chosen = xml[member % len(xml)]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in infos:
            if info.filename != chosen:
                archive.writestr(info.filename, parts[info.filename])
            elif not drop:
                archive.writestr(info.filename, apply_ops(parts[info.filename], ops))
    return out.getvalue()


def zip_mutated(seed: bytes) -> st.SearchStrategy[bytes]:
    """Mutations of one XML member inside a valid zip (the parser's XML is reached), or of the package's bytes."""
    drop = st.integers(0, 9).map(lambda i: i == 9)  # one time in ten, the member is left out
    inside = st.builds(lambda m, ops, gone: rezip(seed, m, ops, gone), st.integers(0, 1 << 16), ops_strategy, drop)
    return st.one_of(inside, inside, mutated(seed))


def seeds(*patterns: str) -> list[Path]:
    found = sorted({p for pattern in patterns for p in SEEDS.glob(pattern)})
    assert found, f"no seeds match {patterns} in {SEEDS}"
    return found


def outcome_kind(result: ParsedDocument | DocumentError) -> str:
    return result.code.value if isinstance(result, DocumentError) else "document"

