"""When two texts are the same page: an exact check on normalised text, then MinHash over character shingles.

A translated manual leaves many pages untranslated, so its ja/ and zh/ folders hold the English page again,
byte for byte or with a title or a paragraph changed. Each copy would be indexed, shown beside the others and
cited at random; ingest compares every document with those stored and records which one it copies
(`ingest/copies.py`), and search shows one copy per group (`retrieve/copies.py`).

The comparison is language-blind on purpose: text is normalised (NFKC, case folded, whitespace collapsed) and
cut into overlapping 5-character shingles, which suit English words and CJK text without a tokenizer. Two
texts are near-identical when the Jaccard similarity of their shingle sets reaches `NEAR_DUPLICATE`, estimated
from 128 MinHash values (standard error ≤ 0.045); the values are kept with the document, so a later ingest, a
delete or a rewrite compares without reading any text again. Candidates are found by LSH over 32 bands of 4
values: a pair at 0.8 shares a band with probability 0.9999, a pair at 0.4 with 0.56 and is then rejected by
the estimate.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from typing import Any

import numpy as np

SHINGLE = 5
"""Characters per shingle: a common English word with its neighbours' edges, two or three CJK words."""
PERMUTATIONS = 128
BANDS = 32
ROWS = PERMUTATIONS // BANDS
NEAR_DUPLICATE = 0.8
"""Estimated shingle Jaccard from which two documents are copies of one page. A page with its title and one
paragraph of ten translated stays above it; two different pages of one manual sharing its boilerplate (the
LibreOffice help's "Related Topics", menus and notes) stay far below it (bench/results/duplicates.md)."""
SAME_PASSAGE = 0.5
"""Shingle Jaccard from which two passages of one copy group say the same thing: a passage with a sentence
changed is still the same passage; another passage of the page shares less than a tenth of its shingles."""

_BLOCK = 8192
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_rng = np.random.default_rng(0x62756E6B6F)  # fixed: stored fingerprints must stay comparable across versions
_A = (_rng.integers(1, 2**63, PERMUTATIONS, dtype=np.uint64) * np.uint64(2) + np.uint64(1)).reshape(-1, 1)
_B = _rng.integers(0, 2**63, PERMUTATIONS, dtype=np.uint64).reshape(-1, 1)
_POWERS = np.array([pow(1_000_003, j, 2**64) for j in range(SHINGLE)], dtype=np.uint64)


def normalised(text: str) -> str:
    """The text as compared: NFKC (full-width forms as ASCII), case folded, every run of white space one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _shingle_hashes(text: str) -> np.ndarray:
    """One 64-bit hash per distinct shingle of normalised text (the whole text when shorter than a shingle)."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    if codes.size == 0:
        return np.zeros(0, dtype=np.uint64)
    width = min(SHINGLE, codes.size)
    count = codes.size - width + 1
    with np.errstate(over="ignore"):
        hashed = np.zeros(count, dtype=np.uint64)
        for j in range(width):
            hashed += codes[j:j + count] * _POWERS[j]
        hashed ^= hashed >> np.uint64(30)  # splitmix64's finaliser: nearby shingles far apart
        hashed *= _MIX_1
        hashed ^= hashed >> np.uint64(27)
        hashed *= _MIX_2
        hashed ^= hashed >> np.uint64(31)
    return np.unique(hashed)


def minhash(text: str) -> np.ndarray:
    """128 MinHash values (uint32) of normalised text's shingles: multiply-shift hashing, block by block, in one
    work array reused in place (a fresh 8 MB array per operation cost as much as the arithmetic)."""
    hashes = _shingle_hashes(text)
    lowest = np.full(PERMUTATIONS, np.iinfo(np.uint64).max, dtype=np.uint64)
    if hashes.size == 0:
        return lowest.astype(np.uint32)
    work = np.empty((PERMUTATIONS, min(_BLOCK, hashes.size)), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for start in range(0, hashes.size, _BLOCK):
            block = hashes[start:start + _BLOCK]
            out = work[:, :block.size]
            np.multiply(_A, block, out=out)
            out += _B
            out >>= np.uint64(32)
            np.minimum(lowest, out.min(axis=1), out=lowest)
    return lowest.astype(np.uint32)


@dataclass(frozen=True)
class Fingerprint:
    """What a document is compared by: the hash of its normalised text and its MinHash values."""

    text_hash: str
    minhash: tuple[int, ...]

    def to_meta(self) -> dict[str, str]:
        return {"text": self.text_hash, "minhash": np.asarray(self.minhash, dtype=">u4").tobytes().hex()}

    @classmethod
    def from_meta(cls, value: Any) -> Fingerprint | None:
        """A stored fingerprint, or None for a document stored without one (or a value not written by `to_meta`)."""
        if not isinstance(value, dict) or not isinstance(value.get("text"), str) or not isinstance(value.get("minhash"), str):
            return None
        try:
            values = np.frombuffer(bytes.fromhex(value["minhash"]), dtype=">u4")
        except ValueError:
            return None
        if values.size != PERMUTATIONS:
            return None
        return cls(value["text"], tuple(int(v) for v in values))

    def bands(self) -> list[str]:
        """The LSH keys: near-identical texts share at least one."""
        return [f"{band}:" + ",".join(map(str, self.minhash[band * ROWS:(band + 1) * ROWS])) for band in range(BANDS)]


def fingerprint(text: str) -> Fingerprint:
    plain = normalised(text)
    return Fingerprint(hashlib.sha256(plain.encode("utf-8")).hexdigest()[:32], tuple(int(v) for v in minhash(plain)))


def similarity(a: Fingerprint, b: Fingerprint) -> float:
    """1.0 for the same normalised text, else the estimated Jaccard similarity of the two shingle sets."""
    if a.text_hash == b.text_hash:
        return 1.0
    return float(np.mean(np.asarray(a.minhash) == np.asarray(b.minhash)))


def passage_similarity(a: str, b: str) -> float:
    """The exact shingle Jaccard of two short texts (passages), 1.0 when their normalised texts are equal."""
    left, right = normalised(a), normalised(b)
    if left == right:
        return 1.0
    x, y = _shingle_hashes(left), _shingle_hashes(right)
    union = np.union1d(x, y).size
    return np.intersect1d(x, y, assume_unique=True).size / union if union else 0.0
