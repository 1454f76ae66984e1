"""A collection folder is untrusted input (it is copied, moved and shared): no file in it can make bunko run code.

Every file a collection writes is replaced, one at a time in a fresh copy, by a pickle that would create a marker
folder when unpickled (an object-array `.npy` for numpy files), and the copy is opened, searched and asked.
Whatever else happens (the file is rebuilt as a damaged cache, or the collection refuses to open with an error),
the marker never appears."""

from __future__ import annotations

import io
import os
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

from bunko import Bunko
from bunko.errors import BunkoError


class _Planted:
    """Unpickling this calls os.mkdir(marker): the proof that a loader ran code from a file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.mkdir, (str(self.marker),))


def _payload(path: Path, marker: Path) -> bytes:
    if path.suffix == ".npy" or path.name.endswith(".vocab.json"):  # the vocabulary was an object-array .npy once
        buffer = io.BytesIO()
        np.save(buffer, np.array([_Planted(marker)], dtype=object), allow_pickle=True)
        return buffer.getvalue()
    return pickle.dumps(_Planted(marker))


@pytest.fixture(scope="module")
def written_collection(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    """A collection after ingest, search and ask in three languages: every cache it writes is on disk."""
    root = tmp_path_factory.mktemp("written")
    docs = root / "docs"
    docs.mkdir()
    (docs / "travel-en.md").write_text("# Travel\n\nHotel costs are refunded up to 12,000 yen a night.\n", encoding="utf-8")
    (docs / "travel-ja.md").write_text("# 出張\n\n宿泊費は一泊12,000円まで精算できます。\n", encoding="utf-8")
    (docs / "travel-zh.md").write_text("# 出差\n\n住宿费每晚最多报销12,000日元。\n", encoding="utf-8")
    (docs / "rates.csv").write_text("city,rate\nTokyo,12000\nOsaka,10000\n", encoding="utf-8")
    kb = Bunko(root / ".bunko", embedder=embedder)
    assert kb.ingest(docs).ok
    for question in ("Hotel costs a night?", "宿泊費の上限は？", "住宿费上限是多少？"):
        kb.search(question, k=3)
        kb.ask(question)
    kb.close()
    return root / ".bunko"


def _files(collection: Path) -> list[Path]:
    files = sorted(p.relative_to(collection) for p in collection.rglob("*") if p.is_file())
    bm25 = next(p for p in files if p.name.endswith(".vocab.json"))
    return [*files, bm25.with_name(bm25.name.replace(".vocab.json", ".vocab.npy"))]  # the older vocabulary's name too


def test_the_collection_writes_caches_worth_attacking(written_collection: Path) -> None:
    names = {p.name for p in _files(written_collection)}
    assert any(name.endswith(".vocab.json") for name in names) and any(name.endswith(".npz") for name in names)
    assert len(names) >= 5


def test_a_pickle_planted_in_any_collection_file_never_runs(written_collection: Path, tmp_path: Path, embedder) -> None:
    planted, findings = 0, []
    for number, relative in enumerate(_files(written_collection)):
        copy = tmp_path / f"copy-{number}" / ".bunko"
        shutil.copytree(written_collection, copy)
        marker = tmp_path / f"ran-{number}"
        (copy / relative).write_bytes(_payload(copy / relative, marker))
        planted += 1
        try:
            kb = Bunko(copy, embedder=embedder)
            try:
                kb.search("宿泊費の上限", k=3)
                kb.search("hotel refund", mode="keyword", k=3)
                kb.ask("住宿费上限是多少？")
            finally:
                kb.close()
        except (BunkoError, ValueError, OSError) as refused:  # a collection that cannot open says so; that is safe
            assert str(refused)
        except Exception as failure:  # any other failure is a finding, reported with the file
            findings.append(f"{relative}: {type(failure).__name__}: {failure}")
        assert not marker.exists(), f"code ran from the planted {relative}"
    assert findings == []
    assert planted >= 6
