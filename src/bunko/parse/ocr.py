"""OCR through the Tesseract command-line program, and the parser for image files.

Tesseract is called as a subprocess rather than through a binding so that the
default install needs no compiled extension and a missing binary is an
ordinary, explainable condition (OCR_UNAVAILABLE) instead of an import error.
The binary is found from an explicit argument, then $BUNKO_TESSERACT, then
PATH; languages from an argument, then $BUNKO_OCR_LANGS, then whichever of
Japanese, Chinese and English are installed.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from PIL import Image, ImageSequence, UnidentifiedImageError

from bunko.errors import DocumentError
from bunko.parse.base import ElementBuilder, page_error, union_bbox
from bunko.parse.cjk import join_words
from bunko.parse.limits import current as current_limits
from bunko.parse.limits import over_limit
from bunko.parse.progress import report as report_progress
from bunko.schema import ElementKind, ErrorCode, ParsedDocument

INSTALL_HINT = (
    "install Tesseract with `apt-get install tesseract-ocr tesseract-ocr-jpn tesseract-ocr-chi-sim tesseract-ocr-chi-tra` "
    "(Debian/Ubuntu) or `brew install tesseract tesseract-lang` (macOS), or set BUNKO_TESSERACT to the tesseract binary"
)
PREFERRED_LANGS = ("jpn", "chi_sim", "chi_tra", "eng")
OCR_DPI = 300
MIN_OCR_DPI = 100
"""A page too large for `ingest.max_page_pixels` at OCR_DPI is rendered at a lower resolution, never below this."""


@dataclass
class OcrLine:
    text: str
    bbox: tuple[float, float, float, float]
    confidence: float
    block: tuple[int, int]


class Tesseract:
    """A Tesseract binary and the languages to ask it for."""

    def __init__(self, binary: str | None = None, langs: str | None = None, timeout: float = 120.0) -> None:
        self._binary = binary if binary is not None else os.environ.get("BUNKO_TESSERACT")
        self._langs = langs or os.environ.get("BUNKO_OCR_LANGS")
        self.timeout = timeout

    @cached_property
    def binary(self) -> str | None:
        candidate = self._binary or "tesseract"
        found = shutil.which(candidate)
        return found

    @property
    def available(self) -> bool:
        return self.binary is not None and bool(self.langs)

    @cached_property
    def version(self) -> str:
        if self.binary is None:
            return "unavailable"
        out = subprocess.run([self.binary, "--version"], capture_output=True, text=True, timeout=30, check=False)
        first = (out.stdout or out.stderr).split("\n", 1)[0].split()
        return first[1] if len(first) > 1 else "unknown"

    @cached_property
    def langs(self) -> str:
        if self.binary is None:
            return ""
        if self._langs:
            return self._langs
        out = subprocess.run([self.binary, "--list-langs"], capture_output=True, text=True, timeout=30, check=False)
        installed = {line.strip() for line in out.stdout.splitlines()[1:]}
        return "+".join(lang for lang in PREFERRED_LANGS if lang in installed)

    def restricted_to(self, wanted: tuple[str, ...]) -> Tesseract:
        """This binary with only the `wanted` models that it has (all of its own when it has none of them)."""
        own = self.langs.split("+")
        chosen = "+".join(lang for lang in wanted if lang in own) or self.langs
        if chosen == self.langs:
            return self
        return Tesseract(self.binary, chosen, self.timeout)

    def unavailable_reason(self) -> str:
        if self.binary is None:
            where = self._binary or "tesseract"
            return f"OCR needed but the Tesseract program ({where}) was not found: {INSTALL_HINT}"
        return f"OCR needed but Tesseract at {self.binary} has none of the languages {', '.join(PREFERRED_LANGS)}: {INSTALL_HINT}"

    def recognize(self, image: Image.Image, scale: float = 1.0) -> list[OcrLine]:
        """Lines of text with their boxes (divided by `scale`, i.e. in the caller's units) and mean word confidence."""
        if not self.available:
            raise DocumentError(ErrorCode.OCR_UNAVAILABLE, self.unavailable_reason())
        assert self.binary is not None
        with tempfile.TemporaryDirectory(prefix="bunko-ocr-") as tmp:
            png = Path(tmp) / "page.png"
            image.convert("RGB").save(png)
            result = subprocess.run(
                [self.binary, str(png), "stdout", "-l", self.langs, "--psm", "3", "tsv"],
                capture_output=True, text=True, timeout=self.timeout, check=False,
            )
        if result.returncode != 0:
            raise DocumentError(ErrorCode.PARSE_FAILED, f"tesseract failed: {result.stderr.strip().splitlines()[-1:] or result.returncode}")
        return _lines_from_tsv(result.stdout, scale)


def render_scale(size_pt: tuple[float, float], dpi: float) -> float:
    """Pixels per point to render a page of `size_pt` (points) for OCR within `ingest.max_page_pixels`.

    The page's own resolution (`dpi`) when it fits; else the largest that fits, down to MIN_OCR_DPI; past that the
    page fails with TOO_LARGE (a 12,000 pt square page would need 144 million pixels even at 72 dpi).
    """
    width, height = (max(float(v), 1.0) for v in size_pt)
    cap = current_limits().max_page_pixels
    scale = dpi / 72.0
    if width * height * scale * scale <= cap:
        return scale
    fitted = math.sqrt(cap / (width * height))
    if fitted * 72.0 >= MIN_OCR_DPI:
        return fitted
    pixels = width * height * (MIN_OCR_DPI / 72.0) ** 2
    raise over_limit(ErrorCode.TOO_LARGE, "", f"pixels at {MIN_OCR_DPI} dpi ({width:.0f} × {height:.0f} pt page)",
                     round(pixels), "max_page_pixels")


def _lines_from_tsv(tsv: str, scale: float) -> list[OcrLine]:
    words: dict[tuple[int, int, int], list[tuple[str, float, tuple[float, float, float, float]]]] = {}
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5" or not cols[11].strip():
            continue
        left, top, width, height = (float(c) / scale for c in cols[6:10])
        key = (int(cols[2]), int(cols[3]), int(cols[4]))
        words.setdefault(key, []).append((cols[11].strip(), float(cols[10]), (left, top, left + width, top + height)))
    lines = []
    for (block, par, _line), items in words.items():
        confs = [c for _, c, _ in items if c >= 0]
        bbox = union_bbox([b for _, _, b in items])
        text = join_words([w for w, _, _ in items])
        lines.append(OcrLine(text, bbox, round(sum(confs) / len(confs), 1) if confs else 0.0, (block, par)))
    return lines


def add_ocr_lines(builder: ElementBuilder, lines: list[OcrLine], page: int, engine: Tesseract) -> int:
    """Paragraphs from OCR lines (Tesseract's own block/paragraph grouping), each marked as OCR with its confidence."""
    added = 0
    groups: dict[tuple[int, int], list[OcrLine]] = {}
    for line in lines:
        groups.setdefault(line.block, []).append(line)
    for group in groups.values():
        text = "\n".join(line.text for line in group)
        if not text.strip():
            continue
        bbox = union_bbox([line.bbox for line in group])
        confidence = round(sum(line.confidence for line in group) / len(group), 1)
        builder.add(ElementKind.PARAGRAPH, text, page=page, bbox=bbox, meta={
            "method": "ocr", "ocr_confidence": confidence, "ocr_engine": f"tesseract/{engine.version}", "ocr_langs": engine.langs,
        })
        added += 1
    return added


class ImageParser:
    """Scanned pages saved as images: every frame is a page that goes through OCR."""

    name = "image-ocr"
    mimes = ("image/png", "image/jpeg", "image/tiff", "image/gif")

    def __init__(self, ocr: Tesseract | None = None) -> None:
        self.ocr = ocr or Tesseract()

    @property
    def version(self) -> str:
        return f"tesseract-{self.ocr.version}"

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        builder = ElementBuilder(source)
        meta: dict[str, object] = {}
        try:
            image = Image.open(path)
        except Image.DecompressionBombError as exc:
            raise DocumentError(ErrorCode.TOO_LARGE, f"{source}: {exc}") from None
        except (UnidentifiedImageError, OSError) as exc:
            raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not a readable image ({exc})") from None
        pages = 0
        with image:
            frames = getattr(image, "n_frames", 1)
            if frames > current_limits().max_pages:
                raise over_limit(ErrorCode.TOO_COMPLEX, source, "frames", frames, "max_pages")
            for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
                pages = number
                pixels = frame.size[0] * frame.size[1]
                if pixels > current_limits().max_page_pixels:
                    detail = over_limit(ErrorCode.TOO_LARGE, "", f"pixels ({frame.size[0]} × {frame.size[1]})",
                                        pixels, "max_page_pixels").detail
                    page_error(meta, number, ErrorCode.TOO_LARGE.value, detail)
                    continue
                if not self.ocr.available:
                    page_error(meta, number, ErrorCode.OCR_UNAVAILABLE.value, self.ocr.unavailable_reason())
                    continue
                dpi = frame.info.get("dpi", (OCR_DPI, OCR_DPI))[0] or OCR_DPI
                # Boxes in PDF points (1/72 inch) like every other parser's bbox.
                add_ocr_lines(builder, self.ocr.recognize(frame, scale=float(dpi) / 72.0), number, self.ocr)
                report_progress(number, frames)
        errors: list[dict[str, Any]] = meta.get("page_errors", [])  # type: ignore[assignment]
        if pages and len(errors) == pages:
            codes = Counter(e["code"] for e in errors)
            code = ErrorCode(codes.most_common(1)[0][0])
            if code == ErrorCode.OCR_UNAVAILABLE:
                raise DocumentError(code, f"{source}: {self.ocr.unavailable_reason()}")
            raise DocumentError(code, f"{source}: no page could be read; page {errors[0]['page']}: {errors[0]['detail']}")
        meta["pages"] = pages
        return ParsedDocument(
            doc_id="", source=source, title=Path(source).stem, mime=mime, parser=f"{self.name}/{self.version}",
            elements=builder.elements, meta=meta,
        )
