"""A vision model describes each figure at ingest, through an OpenAI-compatible endpoint (a fake one here): the image
goes as a base64 PNG data URL in an image_url part, the description joins the figure's text and finds it."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer
from PIL import Image

from bunko import Bunko, Config
from bunko.embed.use_m3 import UseM3Embedder
from bunko.schema import ElementKind
from figuredocs import figure_pptx

DESCRIPTIONS = {
    "Japanese": "青い背景に太い文字が書かれた看板の写真。",
    "Simplified Chinese": "一张蓝色背景的标牌照片，上面写着粗体文字。",
    "English": "A signboard photo with bold lettering on a pale blue background.",
}


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as fake:
        fake.reply = lambda messages, body: next(text for language, text in DESCRIPTIONS.items() if language in str(messages[0]["content"]))
        yield fake


def vision_config(server: FakeChatServer) -> Config:
    config = Config()
    config.figures.describe = "openai"
    config.figures.base_url = server.url
    config.figures.model = "fake-vision"
    config.llm.retries = 0
    return config


def image_parts(request: dict[str, Any]) -> list[dict[str, Any]]:
    [message] = request["body"]["messages"]
    return [part for part in message["content"] if part["type"] == "image_url"]


@pytest.mark.parametrize(("lang", "language"), [("en", "English"), ("ja", "Japanese"), ("zh", "Simplified Chinese")])
def test_figure_description_is_asked_with_the_picture_and_finds_the_figure(
    tmp_path: Path, embedder: UseM3Embedder, server: FakeChatServer, lang: str, language: str,
) -> None:
    deck = figure_pptx(tmp_path / f"deck-{lang}.pptx", lang)
    with Bunko(tmp_path / ".bunko", config=vision_config(server), embedder=embedder) as kb:
        report = kb.ingest([deck])
        assert report.ok and not report.warnings
        [request] = server.requests
        assert request["body"]["model"] == "fake-vision" and language in request["body"]["messages"][0]["content"][0]["text"]
        [part] = image_parts(request)
        prefix = "data:image/png;base64,"
        assert part["image_url"]["url"].startswith(prefix)
        picture = Image.open(io.BytesIO(base64.b64decode(part["image_url"]["url"][len(prefix):])))
        assert picture.format == "PNG" and picture.size[0] > 300
        [figure] = [e for e in kb.elements(report.jobs[0].source) if e.kind == ElementKind.FIGURE]
        assert figure.meta["description"] == DESCRIPTIONS[language] and figure.meta["described_by"] == "openai:fake-vision"
        assert DESCRIPTIONS[language] in figure.text
        hits = kb.search(DESCRIPTIONS[language], k=1)
        assert hits[0].chunk.meta["figures"] == ["fig1"]


def test_a_failing_vision_model_leaves_the_figure_its_caption_and_says_so(tmp_path: Path, embedder: UseM3Embedder, server: FakeChatServer) -> None:
    server.mode = "error"
    deck = figure_pptx(tmp_path / "deck.pptx", "en")
    with Bunko(tmp_path / ".bunko", config=vision_config(server), embedder=embedder) as kb:
        report = kb.ingest([deck])
        assert report.ok
        [(source, warning)] = report.warnings
        assert source == report.jobs[0].source and "figure fig1 not described" in warning and "HTTP 500" in warning
        [figure] = [e for e in kb.elements(source) if e.kind == ElementKind.FIGURE]
        assert "description" not in figure.meta and figure.text.startswith("Figure 2: Quarterly revenue by region")


def test_describing_needs_an_endpoint(tmp_path: Path, embedder: UseM3Embedder) -> None:
    from bunko.errors import ConfigError

    config = Config()
    config.figures.describe = "openai"
    with Bunko(tmp_path / ".bunko", config=config, embedder=embedder) as kb, pytest.raises(ConfigError, match=r"\[figures\] base_url"):
        kb.ingest([figure_pptx(tmp_path / "deck.pptx", "en")])


def test_off_by_default(tmp_path: Path, embedder: UseM3Embedder, server: FakeChatServer) -> None:
    with Bunko(tmp_path / ".bunko", embedder=embedder) as kb:
        assert kb.ingest([figure_pptx(tmp_path / "deck.pptx", "en")]).ok
    assert server.requests == []
