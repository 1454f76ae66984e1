"""A vision model's description of a figure, asked once at ingest (`[figures] describe = "openai"`).

What a chart shows or a photo is of is rarely in its caption; a description written at ingest makes the figure
findable by it and costs nothing at question time. The model is any OpenAI-compatible endpoint that reads
``image_url`` parts; `[figures]` names it, or the `[llm]` endpoint is used. The prompt asks for the language of the
document, so a Japanese manual's figures are described in Japanese and found by Japanese questions.
"""

from __future__ import annotations

from typing import Protocol

from bunko.config import Config
from bunko.errors import ConfigError
from bunko.llm.openai_chat import OpenAIChatModel
from bunko.text.lexicon import speaking

PROMPT = (
    "Describe this figure from a document in two or three sentences of {language}: what it shows, and any "
    "numbers, labels or text in it. Do not guess what is not visible.{caption}"
)


class FigureDescriber(Protocol):
    name: str

    def describe(self, image: bytes, caption: str, lang: str | None) -> str: ...


class OpenAIFigureDescriber:
    """`FigureDescriber` over an OpenAI-compatible chat endpoint (`OpenAIChatModel.complete_with_image`)."""

    def __init__(self, model: OpenAIChatModel, max_tokens: int = 200) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.name = f"openai:{model.model}"

    def describe(self, image: bytes, caption: str, lang: str | None) -> str:
        language = speaking(lang or "en").NAME_IN_ENGLISH
        prompt = PROMPT.format(language=language, caption=f" Its caption: {caption}" if caption else "")
        return self.model.complete_with_image(prompt, image, "image/png", self.max_tokens).strip()

    def close(self) -> None:
        self.model.close()


def figure_describer(config: Config) -> OpenAIFigureDescriber | None:
    """The describer `[figures]` asks for; None when off (the default)."""
    figures = config.figures
    if figures.describe == "none":
        return None
    base_url = figures.base_url or config.llm.base_url
    model = figures.model or config.llm.model
    if not base_url or not model:
        raise ConfigError('[figures] describe = "openai" needs an endpoint and a model: set [figures] base_url and model, or [llm] base_url and model')
    chat = OpenAIChatModel(
        base_url, model, api_key_env=figures.api_key_env or config.llm.api_key_env, max_tokens=figures.max_tokens,
        timeout_s=figures.timeout_s, retries=config.llm.retries,
    )
    return OpenAIFigureDescriber(chat, figures.max_tokens)
