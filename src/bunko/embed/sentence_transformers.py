"""Any sentence-transformers model from a local folder (``[embed] model_path``).

For teams that already picked a model (a fine-tuned one, bge, gte, e5…) and
have its files on disk. bunko never downloads: the hub is switched off before
sentence-transformers is imported and the folder is opened with
``local_files_only``, so a missing file is an error naming the folder instead
of a silent download (or a hang on a machine without network).

The ``name`` carries the folder's name and a fingerprint of its files, so a
collection notices when the folder now holds another model — the path alone
would not, and the path changes when a collection moves to another machine
while the model does not.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from bunko.embed.base import EmbedderError, normalize_rows

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".onnx", ".ckpt", ".h5", ".msgpack")
SAMPLE_BYTES = 1 << 20
"""Weights are fingerprinted by size plus their first and last MiB: reading GBs at every open would be slow."""


def model_fingerprint(folder: Path) -> str:
    """12 hex digits that change when the model in ``folder`` changes.

    Config and tokenizer files are hashed whole, weight files by size, head and
    tail. Hidden files (.git, .cache) and Markdown (model cards) are left out:
    they change without changing a single vector.
    """
    digest = hashlib.sha1()
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    for path in files:
        relative = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in relative.split("/")) or path.suffix.lower() == ".md":
            continue
        size = path.stat().st_size
        digest.update(f"{relative}\0{size}\0".encode())
        with path.open("rb") as handle:
            if path.suffix.lower() in WEIGHT_SUFFIXES and size > 2 * SAMPLE_BYTES:
                digest.update(handle.read(SAMPLE_BYTES))
                handle.seek(size - SAMPLE_BYTES)
                digest.update(handle.read(SAMPLE_BYTES))
            else:
                digest.update(handle.read())
    return digest.hexdigest()[:12]


def check_model_folder(model_path: str | Path | None) -> Path:
    """The model folder, or an EmbedderError that says what is wrong with ``model_path``."""
    if not model_path:
        raise EmbedderError("the sentence-transformers embedder needs [embed] model_path, a local model folder")
    folder = Path(model_path).expanduser()
    if not folder.is_dir():
        raise EmbedderError(f"sentence-transformers model folder {folder} does not exist or is not a folder ([embed] model_path)")
    if not (folder / "modules.json").is_file() and not (folder / "config.json").is_file():
        raise EmbedderError(f"{folder} is not a sentence-transformers or Hugging Face model folder (no modules.json or config.json)")
    return folder


def embedder_name(model_path: str | Path | None) -> str:
    """The name an embedder for this folder records, computed without loading torch or the model."""
    folder = check_model_folder(model_path)
    return f"sentence-transformers:{folder.resolve().name}@{model_fingerprint(folder)}"


def _hub_off() -> None:
    """Forbid every download.

    huggingface_hub reads HF_HUB_OFFLINE once, when it is first imported; if
    something imported it before us, its module constant is switched too.
    """
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:
        constants.HF_HUB_OFFLINE = True  # type: ignore[attr-defined]


@contextmanager
def _quiet_loading() -> Iterator[None]:
    """transformers draws a "Loading weights" bar on stderr; it would cut through the CLI's own progress display."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        yield
        return
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


class SentenceTransformerEmbedder:
    """A local sentence-transformers model on the CPU.

    Passages go through ``encode_document`` and queries through
    ``encode_query``, which apply the prompts the model declares in its
    config (e5's "query: " / "passage: ", bge's instruction), so asymmetric
    models work without bunko knowing about them.
    """

    def __init__(self, model_path: str | Path | None, *, threads: int = 1, batch_size: int = 32, device: str = "cpu") -> None:
        folder = check_model_folder(model_path)
        self.name = embedder_name(folder)
        self.batch_size = batch_size
        _hub_off()
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderError(
                f"the sentence-transformers embedder needs torch and sentence-transformers "
                f"(pip install torch==2.13.0 sentence-transformers): {exc}"
            ) from None
        # Like USE's BLAS threads: more torch threads than cores slows every batch.
        torch.set_num_threads(threads)
        try:
            with _quiet_loading():
                self._model: Any = SentenceTransformer(str(folder), device=device, local_files_only=True, trust_remote_code=False)
        except Exception as exc:  # torch and transformers raise many types; the user needs the folder and the reason
            raise EmbedderError(f"sentence-transformers could not load {folder}: {type(exc).__name__}: {exc}".splitlines()[0]) from None
        prompts = getattr(self._model, "prompts", None) or {}
        self._passage_prompt = next((prompts[k] for k in ("document", "passage", "corpus") if prompts.get(k)), "")
        # sentence-transformers cuts longer input silently; chunk sizing reads this to flag such chunks.
        self.max_input_tokens: int | None = getattr(self._model, "max_seq_length", None)
        getter = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dimension = getter()
        self.dimension = int(dimension) if dimension else int(self._encode(self._model.encode, ["dimension probe"]).shape[1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(getattr(self._model, "encode_document", self._model.encode), texts)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(getattr(self._model, "encode_query", self._model.encode), texts)

    def count_tokens(self, text: str) -> int:
        """The model's own tokens for a passage (its prompt and special tokens included), for ``[chunk] max_tokens``."""
        return len(self._model.tokenizer(self._passage_prompt + text, add_special_tokens=True, verbose=False)["input_ids"])

    def _encode(self, encode: Any, texts: Sequence[str]) -> np.ndarray:
        """sentence-transformers sorts by length and batches itself; rows come back in input order."""
        if not texts:
            return np.zeros((0, getattr(self, "dimension", 0)), dtype=np.float32)
        vectors = encode(
            list(texts), batch_size=self.batch_size, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
        )
        return normalize_rows(np.asarray(vectors, dtype=np.float32))
