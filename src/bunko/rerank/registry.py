"""`[rerank] method` → a reranker. Models are loaded here, once per engine, not per question."""

from __future__ import annotations

from bunko.config import Config
from bunko.embed.base import Embedder
from bunko.llm.base import ChatModel, LLMError
from bunko.rerank.base import NoReranker, Reranker
from bunko.rerank.memo import UnitSplitter
from bunko.text.analyzers import Analyzer

METHODS = ("none", "light", "cross_encoder", "llm")


def build_reranker(
    config: Config, embedder: Embedder, analyzer: Analyzer, chat_model: ChatModel | None = None, split: UnitSplitter | None = None,
) -> Reranker:
    """`split`: the answerer's memo of chunk units, shared with the extractive answer (the light reranker only)."""
    method = config.rerank.method
    if method == "none":
        return NoReranker()
    if method == "light":
        from bunko.rerank.light import LightReranker

        return LightReranker(embedder, analyzer, split or UnitSplitter())
    if method == "cross_encoder":
        from bunko.rerank.cross_encoder import CrossEncoderReranker

        return CrossEncoderReranker(config.rerank.model_path)
    if method == "llm":
        if chat_model is None:
            raise LLMError('[rerank] method = "llm" needs a model: [answer] generator = "openai" or "llamacpp", '
                           "or [llm] base_url / model_path")
        from bunko.rerank.llm import LLMReranker

        return LLMReranker(chat_model, config.rerank.llm_mode)
    raise ValueError(f"unknown rerank method {method!r}; available: {', '.join(METHODS)}")
