"""What a collection shows of its documents as pictures: figure thumbnails and PDF pages with a chunk's regions drawn
on them (`Pages`), and the vision model that describes figures at ingest.

Thumbnails sit beside the store (`store/figure_files.py`), written by ingest and swept here when their document goes;
a page is rendered from the ingested file at request time, with the stored boxes of the chunk's elements, so nothing
of it is stored.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bunko.config import Config
from bunko.errors import DocumentError
from bunko.schema import DocumentInfo, ErrorCode
from bunko.store.base import Store
from bunko.store.figure_files import FigureFiles

if TYPE_CHECKING:
    from bunko.llm.vision import OpenAIFigureDescriber


class Pages:
    """A collection's figures (`figures`, the thumbnail folder) and page images.

    `source_path` finds the file a document was ingested from (the engine's `source_path`), which a page is rendered
    from.
    """

    def __init__(self, store: Store, path: Path, config: Config, source_path: Callable[[str], Path]) -> None:
        self.store = store
        self.path = path
        self.config = config
        self.source_path = source_path
        self.figures = FigureFiles(path)
        self._describer: OpenAIFigureDescriber | None = None

    def figure_file(self, doc_id: str, figure_id: str) -> Path | None:
        """The thumbnail of a document's figure (`store/figure_files.py`), or None."""
        return self.figures.path(doc_id, figure_id)

    def describer(self) -> OpenAIFigureDescriber | None:
        """The vision model that describes figures at ingest (`[figures] describe`), built once, or None (the default:
        its HTTP client is then never imported)."""
        if self.config.figures.describe == "none":
            return None
        from bunko.llm.vision import figure_describer

        if self._describer is None:
            self._describer = figure_describer(self.config)
        return self._describer

    def sweep(self) -> None:
        """Thumbnails of documents deleted by the run just done (pruned, unlisted by a source, removed) go too."""
        if self.figures.documents():
            self.figures.sweep(d.doc_id for d in self.store.documents())

    def highlight_boxes(self, source: str, chunk_id: str, page: int) -> list[tuple[float, float, float, float]]:
        """Where on `page` a chunk was read: the stored boxes of its elements there (a table that runs over a page
        break has a box on each page). Empty when the chunk is not this document's or not on this page."""
        chunks = [c for c in self.store.get_chunks([chunk_id]) if c.source == source]
        if not chunks:
            return []
        wanted = set(chunks[0].element_ids)
        boxes: list[tuple[float, float, float, float]] = []
        for element in self.store.elements(source):
            if element.element_id not in wanted:
                continue
            if element.page == page and element.bbox is not None:
                boxes.append(tuple(element.bbox))  # type: ignore[arg-type]
            for more in element.meta.get("continued_bboxes") or []:
                if more.get("page") == page and more.get("bbox"):
                    boxes.append(tuple(more["bbox"]))
        return boxes

    def page_image(self, source: str, page: int | None = None, highlight: str | None = None, dpi: float | None = None) -> tuple[bytes, int, int]:
        """A PDF document's page as PNG, with the regions of chunk `highlight` drawn on it; returns (png, page, boxes
        drawn). Without `page`, the first page the chunk is on; without `dpi`, `page_render.PAGE_DPI`. `source` is the
        document's name or id."""
        from bunko.parse import page_render

        doc = self._document(source)
        if doc is None:
            raise DocumentError(ErrorCode.NOT_FOUND, f"{source}: no such document in {self.path} (see `bunko docs`)")
        if doc.mime != "application/pdf":
            raise DocumentError(ErrorCode.UNSUPPORTED_FORMAT, f"{doc.source}: pages can be shown for PDF documents only; this one is {doc.mime}")
        if page is None and highlight:
            chunk = next((c for c in self.store.get_chunks([highlight]) if c.source == doc.source), None)
            if chunk is None:
                raise DocumentError(ErrorCode.NOT_FOUND, f"{doc.source}: no chunk {highlight} in this document")
            page = chunk.pages[0] if chunk.pages else 1
        page = page or 1
        boxes = self.highlight_boxes(doc.source, highlight, page) if highlight else []
        path = self.source_path(doc.source)
        image = page_render.render_page(path, doc.source, page, boxes, page_render.PAGE_DPI if dpi is None else dpi)
        return page_render.png(image), page, len(boxes)

    def _document(self, source_or_id: str) -> DocumentInfo | None:
        """The document stored under this source name, or with this id."""
        return next((d for d in self.store.documents() if source_or_id in (d.source, d.doc_id)), None)

    def close(self) -> None:
        if self._describer is not None:
            self._describer.close()
            self._describer = None
