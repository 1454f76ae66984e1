"""`[answer] models`: a folder holding a reader and a confidence fitted elsewhere (as `bench/fit_reader.py` writes them
for each corpus it leaves out) decides in place of the packaged models, and a bad folder is an error naming the file."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from bunko import Bunko, Config
from bunko.errors import ConfigError
from bunko.generate.confidence import FITTED_MODEL, folder_reader, load_confidence
from bunko.rerank.reader import READER_MODEL

DOCS = {
    "kiln.md": "# Kiln\n\nAfter a glaze firing the kiln cools for twelve hours before it may be opened.\n",
    "kiln-ja.md": "# 窯\n\n釉薬焼成のあと、窯は扉を開けるまで十二時間冷ます。\n",
    "kiln-zh.md": "# 窑炉\n\n釉烧之后，窑炉要冷却十二小时才能打开。\n",
}
QUESTIONS = [("How long does the kiln cool after a glaze firing?", "twelve hours"),
             ("釉薬焼成のあと、窯は何時間冷ましますか？", "十二時間"),
             ("釉烧之后窑炉要冷却多久？", "十二小时")]


def packaged(package: str, name: str) -> dict[str, object]:
    return json.loads(resources.files(package).joinpath(name).read_text("utf-8"))


def models_folder(root: Path, threshold: float) -> Path:
    """The packaged models, the confidence's threshold set to `threshold`."""
    root.mkdir()
    confidence = packaged("bunko.generate", FITTED_MODEL)
    confidence["meta"] = {**confidence["meta"], "threshold": threshold}  # type: ignore[dict-item]
    (root / FITTED_MODEL).write_text(json.dumps(confidence), encoding="utf-8")
    (root / READER_MODEL).write_text(json.dumps(packaged("bunko.rerank", READER_MODEL)), encoding="utf-8")
    return root


def test_the_folders_models_decide_in_every_language(make_kb: Callable[..., Bunko], tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    shipped = make_kb()
    shipped.ingest(docs)
    config = Config()
    config.answer.models = str(models_folder(tmp_path / "strict", 0.999))
    strict = make_kb(config=config, name="strict")
    strict.ingest(docs)
    assert strict.answerer.confidence is not None and strict.answerer.confidence.threshold == 0.999
    for question, fact in QUESTIONS:
        answered, refused = shipped.ask(question), strict.ask(question)
        assert not answered.abstained and fact in answered.text, question
        assert refused.abstained and refused.confidence == answered.confidence, question  # same model, its own threshold


def test_a_missing_or_malformed_model_file_is_an_error_naming_it(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    with pytest.raises(ConfigError, match=f"{folder / READER_MODEL}.*does not exist"):
        folder_reader(str(folder))
    with pytest.raises(ConfigError, match=f"{folder / FITTED_MODEL}.*does not exist"):
        load_confidence("fitted", folder=str(folder))
    (folder / FITTED_MODEL).write_text(json.dumps({"features": ["no such feature"], "weights": [1.0], "bias": 0.0}), encoding="utf-8")
    with pytest.raises(ConfigError, match=f"{folder / FITTED_MODEL} is not a confidence model"):
        load_confidence("fitted", folder=str(folder))
    (folder / READER_MODEL).write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match=f"{folder / READER_MODEL} is not a reader model"):
        folder_reader(str(folder))
