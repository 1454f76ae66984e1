"""The thumbnail folder of a collection: replaced whole per document, removed with it, swept of the orphaned."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from bunko.store.figure_files import FigureFiles


def png(size: tuple[int, int], colour: str = "navy") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def test_a_rewrite_replaces_the_documents_figures_and_an_empty_one_removes_them(tmp_path: Path) -> None:
    files = FigureFiles(tmp_path)
    assert files.write("a1", {"fig1": png((1000, 500)), "fig2": png((100, 100))}) == 2
    assert Image.open(files.path("a1", "fig1") or "").size == (320, 160)  # shrunk to 320 px on its longest side
    assert Image.open(files.path("a1", "fig2") or "").size == (100, 100)  # never enlarged
    files.write("a1", {"fig1": png((50, 50))})
    assert files.path("a1", "fig2") is None and Image.open(files.path("a1", "fig1") or "").size == (50, 50)
    files.write("a1", {})
    assert files.documents() == [] and not (tmp_path / "figures" / "a1").exists()


def test_sweep_removes_folders_of_documents_gone_and_leftovers_of_interrupted_writes(tmp_path: Path) -> None:
    files = FigureFiles(tmp_path)
    files.write("keep", {"fig1": png((64, 64))})
    files.write("gone", {"fig1": png((64, 64))})
    (tmp_path / "figures" / ".keep.123-abcd.tmp").mkdir()
    assert files.sweep(["keep"]) == ["gone"]
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == ["keep"]


@pytest.mark.parametrize(("doc_id", "figure_id"), [("..", "fig1"), ("a1", "../../bunko"), ("a/b", "fig1"), ("a1", "")])
def test_ids_that_are_not_ours_name_no_file(tmp_path: Path, doc_id: str, figure_id: str) -> None:
    FigureFiles(tmp_path).write("a1", {"fig1": png((64, 64))})
    assert FigureFiles(tmp_path).path(doc_id, figure_id) is None
