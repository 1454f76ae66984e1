"""The figure tests' collection: the samples plus, in en, ja and zh, a PDF, a Word file and a slide deck with a picture."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from figuredocs import figure_docx, figure_pdf, figure_pptx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generate"))  # fake_openai.py: the tests' OpenAI-compatible server

LANGS = ("en", "ja", "zh")


def figure_docs(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return [make(folder / f"report-{lang}.{ext}", lang) for lang in LANGS
            for make, ext in ((figure_pdf, "pdf"), (figure_docx, "docx"), (figure_pptx, "pptx"))]


@pytest.fixture(scope="session")
def figures_kb(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder, samples_dir: Path) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("figures")
    docs = figure_docs(root / "reports")  # not "docs": the samples folder, from outside the root, is named docs/…
    kb = Bunko(root / ".bunko", embedder=embedder)
    report = kb.ingest([samples_dir, *docs])
    assert report.ok, [(j.source, j.error_detail) for j in report.failed]
    yield kb
    kb.close()
