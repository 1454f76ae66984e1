"""A local GGUF model in process through llama-cpp-python (``pip install bunko[llamacpp]``).

No server, no network: the model file named by ``[llm] model_path`` is
loaded once per engine. llama-cpp-python compiles from source on Linux (no
wheel), so it is an extra and nothing else imports it; without it, choosing
this backend is an `LLMError` that says how to install it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bunko.config import LLMConfig
from bunko.llm.base import LLMError, Message
from bunko.trace import Usage


class LlamaCppChatModel:
    def __init__(
        self, model_path: str | Path, *, context_tokens: int = 8192, max_tokens: int = 512, temperature: float = 0.0,
        threads: int | None = None,
    ) -> None:
        path = Path(model_path).expanduser()
        if not path.is_file():
            raise LLMError(f"GGUF model {path} does not exist ([llm] model_path)")
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise LLMError(f"the llamacpp backend needs llama-cpp-python (pip install 'bunko[llamacpp]'): {exc}") from None
        try:
            self._llama: Any = Llama(model_path=str(path), n_ctx=context_tokens, n_threads=threads, verbose=False)
        except Exception as exc:  # llama.cpp reports a bad file as ValueError or RuntimeError, by version
            raise LLMError(f"llama.cpp could not load {path}: {type(exc).__name__}: {exc}".splitlines()[0]) from None
        self.name = f"llamacpp:{path.name}"
        self.context_tokens = context_tokens
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.last_usage: Usage | None = None
        """Tokens of the last call: llama.cpp's own counts for a completion, this model's tokenizer's for a stream."""

    @classmethod
    def from_config(cls, config: LLMConfig) -> LlamaCppChatModel:
        if not config.model_path:
            raise LLMError("the llamacpp generator needs [llm] model_path, a .gguf file")
        return cls(config.model_path, context_tokens=config.context_tokens, max_tokens=config.max_tokens,
                   temperature=config.temperature, threads=config.threads)

    def count_tokens(self, text: str) -> int:
        """The model's own count, so the prompt budget is exact for this backend."""
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def complete(self, messages: Sequence[Message], max_tokens: int | None = None) -> str:
        self.last_usage = None
        try:
            result = self._llama.create_chat_completion(
                messages=list(messages), max_tokens=max_tokens or self.max_tokens, temperature=self.temperature,
            )
            content = str(result["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"{self.name}: unexpected completion shape ({exc})") from None
        usage = result.get("usage")
        self.last_usage = Usage.from_dict(usage) if isinstance(usage, dict) else self._counted(messages, content)
        return content

    def stream(self, messages: Sequence[Message], max_tokens: int | None = None) -> Iterator[str]:
        self.last_usage = None
        output = ""
        for chunk in self._llama.create_chat_completion(
            messages=list(messages), max_tokens=max_tokens or self.max_tokens, temperature=self.temperature, stream=True,
        ):
            content = chunk["choices"][0].get("delta", {}).get("content")
            if content:
                output += content
                yield content
        self.last_usage = self._counted(messages, output)

    def _counted(self, messages: Sequence[Message], output: str) -> Usage:
        """Streams report no usage; the tokenizer counts the messages' text (not the chat template's markers), hence `estimated`."""
        prompt = sum(self.count_tokens(str(m.get("content", ""))) for m in messages)
        return Usage(prompt, self.count_tokens(output), estimated=True)
