"""A cross-encoder from a local folder (``[rerank] method = "cross_encoder"``, ``model_path``).

A cross-encoder reads question and passage together, which is more accurate
than comparing two separately computed vectors and too slow for more than a
few dozen candidates — exactly the rerank stage's job. bunko never downloads
it: the hub is switched off and the folder opened with ``local_files_only``,
as for the sentence-transformers embedder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bunko.embed.sentence_transformers import _hub_off, _quiet_loading
from bunko.errors import BunkoError
from bunko.rerank.base import RerankQuery, ordered
from bunko.schema import Hit


class RerankError(BunkoError):
    """A reranker could not be built or run: missing package or model folder, or a model that failed."""


class CrossEncoderReranker:
    def __init__(self, model_path: str | Path | None, *, batch_size: int = 16, max_length: int = 512, threads: int = 1) -> None:
        if not model_path:
            raise RerankError("[rerank] method = \"cross_encoder\" needs [rerank] model_path, a local cross-encoder folder")
        folder = Path(model_path).expanduser()
        if not (folder / "config.json").is_file():
            raise RerankError(f"{folder} is not a Hugging Face model folder (no config.json) ([rerank] model_path)")
        _hub_off()
        try:
            import torch
            from sentence_transformers import CrossEncoder
        except ImportError as exc:
            raise RerankError(f"the cross_encoder reranker needs torch and sentence-transformers: {exc}") from None
        torch.set_num_threads(threads)
        try:
            with _quiet_loading():
                self._model: Any = CrossEncoder(str(folder), device="cpu", max_length=max_length, local_files_only=True, trust_remote_code=False)
        except Exception as exc:  # transformers raises many types; the user needs the folder and the reason
            raise RerankError(f"could not load the cross-encoder {folder}: {type(exc).__name__}: {exc}".splitlines()[0]) from None
        self.name = f"cross_encoder:{folder.name}"
        self.batch_size = batch_size

    def score(self, question: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        scores = self._model.predict([(question, p) for p in passages], batch_size=self.batch_size, show_progress_bar=False)
        return [float(s) for s in (scores.reshape(len(passages), -1)[:, -1] if getattr(scores, "ndim", 1) > 1 else scores)]

    def rerank(self, query: RerankQuery, hits: list[Hit]) -> list[Hit]:
        """Passages are the embed text (headings + text): a row's heading is part of what it means."""
        return ordered(hits, self.score(query.question, [h.chunk.embed_text for h in hits]))
