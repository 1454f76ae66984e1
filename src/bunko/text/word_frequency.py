"""How common an English word is (wordfreq's Zipf scale), read from a table built once per installed wordfreq.

Importing wordfreq and decoding its English list costs about a quarter of a second, which every process paid at its
first English question (a cold `bunko ask` is a second in all). The values are the same every run, so the first
process writes them to the user's cache as one plain array (`user_cache.cache_root`), and later ones memory-map it:
sorted 64-bit hashes of the words in one row, their Zipf values in hundredths (wordfreq rounds to two places) in the
other, looked up by binary search. Only words of lower-case ASCII letters are in the table, the ones wordfreq reads
as one token; any other word is asked of wordfreq itself, so every answer is wordfreq's own.

The file is keyed by wordfreq's code and English list (sizes and modification times); it is read with
``allow_pickle=False``, and one that is missing, damaged or unwritable costs wordfreq's import, never a wrong value.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import tempfile
import threading
from pathlib import Path

import numpy as np

from bunko.text.lazy_regex import lazy_compile
from bunko.user_cache import cache_root

log = logging.getLogger(__name__)

FORMAT = 1
"""Bumped when the file's layout changes; part of its key."""

_TABLE_WORD = lazy_compile(r"[a-z]+")
_LIST_FILE = "data/large_en.msgpack.gz"
"""wordfreq's English list behind `zipf_frequency(word, "en")` (its 'best' list for English)."""

_lock = threading.Lock()
_table: tuple[np.ndarray, np.ndarray] | None = None
_unavailable = False


def zipf_en(word: str) -> float:
    """wordfreq's `zipf_frequency(word, "en")`: 0 for a word it has never seen, about 7 for "the"."""
    if _TABLE_WORD.fullmatch(word):
        table = _loaded()
        if table is not None:
            hashes, zipf = table
            key = _hash(word)
            at = int(np.searchsorted(hashes, key))
            return float(zipf[at]) / 100 if at < len(hashes) and int(hashes[at]) == key else 0.0
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


def _hash(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode("ascii"), digest_size=8).digest(), "little")


def table_path(root: Path | None = None) -> Path | None:
    """Where the table of the installed wordfreq lives (None when wordfreq's files cannot be found)."""
    spec = importlib.util.find_spec("wordfreq")
    if spec is None or spec.origin is None:
        return None
    package = Path(spec.origin).parent
    parts = [f"format={FORMAT}"]
    for name in ("__init__.py", _LIST_FILE):
        try:
            stat = (package / name).stat()
        except OSError:
            return None
        parts.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}")
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    return (root or cache_root()) / "wordfreq" / f"en-{key}.npy"


def _loaded() -> tuple[np.ndarray, np.ndarray] | None:
    global _table, _unavailable
    if _table is not None or _unavailable:
        return _table
    with _lock:
        if _table is None and not _unavailable:
            path = table_path()
            _table = (_read(path) or _build(path)) if path is not None else None
            _unavailable = _table is None
    return _table


def _read(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("word frequency table %s is unreadable (%s); rebuilding it", path, exc)
        return None
    if array.dtype != np.uint64 or array.ndim != 2 or array.shape[0] != 2 or array.shape[1] == 0:
        log.warning("word frequency table %s has the wrong shape %s; rebuilding it", path, array.shape)
        return None
    hashes, zipf = array[0], array[1]
    if not bool(np.all(hashes[1:] > hashes[:-1])):
        log.warning("word frequency table %s is not sorted; rebuilding it", path)
        return None
    return hashes, zipf


def _build(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """The table from wordfreq itself (about 2 s once), written beside where it is read; held in memory when the
    cache cannot be written."""
    try:
        from wordfreq import get_frequency_dict, zipf_frequency
    except ImportError:
        return None
    words = [w for w in get_frequency_dict("en", "best") if _TABLE_WORD.fullmatch(w)]
    by_hash = {_hash(w): round(zipf_frequency(w, "en") * 100) for w in words}
    keys = np.fromiter(sorted(by_hash), dtype=np.uint64, count=len(by_hash))
    array = np.stack([keys, np.fromiter((by_hash[int(k)] for k in keys), dtype=np.uint64, count=len(keys))])
    written: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as out:
            written = out.name
            np.save(out, array, allow_pickle=False)
        os.replace(written, path)
    except OSError as exc:
        log.warning("cannot write the word frequency table %s (%s); using it from memory", path, exc)
        if written is not None:
            Path(written).unlink(missing_ok=True)
    return array[0], array[1]
