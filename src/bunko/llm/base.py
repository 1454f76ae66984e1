"""The chat-model interface the LLM stages share (generator, grader, reranker), and its builder.

A model takes chat messages and returns text, whole or as deltas. Keeping the
interface this small is what lets an OpenAI-compatible server, an in-process
GGUF model and a test fake stand in for each other. Token counts are the one
extra a model may offer: an optional ``last_usage`` attribute (`reported_usage`),
so a fake without it still fits.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from bunko.config import Config
from bunko.errors import BunkoError
from bunko.text.lazy_regex import lazy_compile
from bunko.text.scripts import CJK, FULL_WIDTH
from bunko.trace import Usage

Message = dict[str, str]


class LLMError(BunkoError):
    """A language model failed: server down or too slow, a refusal, an answer that is not a chat reply.

    One line, naming the URL or file, because the user has to know which
    model to look at; the CLI prints it without a traceback.
    """


class ChatModel(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def context_tokens(self) -> int:
        """The model's window: prompt plus answer must fit."""
        ...

    def complete(self, messages: Sequence[Message], max_tokens: int | None = None) -> str: ...

    def stream(self, messages: Sequence[Message], max_tokens: int | None = None) -> Iterator[str]:
        """Text deltas as the model writes them."""
        ...


_ONE_TOKEN_CHAR = lazy_compile(f"[{CJK}{FULL_WIDTH}]")


def estimate_tokens(text: str) -> int:
    """A deliberately high token count: one per CJK character, one per three other characters.

    Real tokenizers give about one token per CJK character and four Latin
    characters; erring high means a prompt that fits by the estimate fits the
    model, which is the only direction of error that matters here.
    """
    cjk = len(_ONE_TOKEN_CHAR.findall(text))
    return cjk + (len(text) - cjk + 2) // 3


def reported_usage(model: object) -> Usage | None:
    """Tokens of the model's last call (whole or streamed to its end), when the model reported or counted them.

    Models keep it as ``last_usage``: set when a completion or stream finishes,
    None when the server said nothing. One attribute per model instance, so with
    calls in parallel on one model it may describe a neighbour's call.
    """
    usage = getattr(model, "last_usage", None)
    return usage if isinstance(usage, Usage) else None


def llm_backend(config: Config) -> str | None:
    """Which model backend the configuration asks for, or None when no LLM is configured.

    An LLM generator names its backend; with the extractive generator an LLM is
    configured only when [llm] points at a server or a model file (for the llm
    reranker or grader).
    """
    if config.answer.generator in ("openai", "llamacpp"):
        return config.answer.generator
    llm = config.llm
    if llm.backend == "openai" and llm.base_url:
        return "openai"
    if llm.backend == "llamacpp":
        from bunko.llm.llamacpp import bundled_model

        if llm.model_path or bundled_model() is not None:
            return "llamacpp"
    return None


def build_chat_model(config: Config) -> ChatModel | None:
    backend = llm_backend(config)
    if backend == "openai":
        from bunko.llm.openai_chat import OpenAIChatModel

        return OpenAIChatModel.from_config(config.llm)
    if backend == "llamacpp":
        from bunko.llm.llamacpp import LlamaCppChatModel

        return LlamaCppChatModel.from_config(config.llm)
    return None


def model_step_on(setting: bool | str, model: object) -> bool:
    """Whether an optional step that asks the model once more runs (`[answer] llm_grader`, `[agent] critique`):
    as configured, and for "auto" only when the model does not run on this machine (`runs_locally`), where every
    extra call is the user's CPU time."""
    if setting == "auto":
        return model is not None and not getattr(model, "runs_locally", False)
    return bool(setting)
