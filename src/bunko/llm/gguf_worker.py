"""The child process that runs a GGUF model for `llm/llamacpp.py`: one JSON request per line in, replies out.

    python -m bunko.llm.gguf_worker MODEL.gguf CONTEXT_TOKENS THREADS

Requests: ["tokenize", text] → ["count", n]; ["complete", messages, max_tokens, temperature] →
["done", text, prompt_tokens, completion_tokens]; ["stream", …] → ["delta", piece]… then ["done", …].
["stop"] sent while a stream runs ends it after the piece being written, with its ["done", …]; a "stop" that
arrives after the stream ended is ignored (no reply), so the parent always reads exactly one "done".
A failure is ["error", message] and the model stays loaded. The protocol owns the process's real
stdout: file descriptor 1 is pointed at stderr first, so nothing the native runtime prints can
corrupt a reply.
"""

from __future__ import annotations

import json
import os
import select
import sys
from typing import Any, TextIO


def main(argv: list[str]) -> None:
    model_path, context_tokens, threads = argv[0], int(argv[1]), int(argv[2])
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    try:
        import cyllama
        from cyllama.api import GenerationConfig

        _use_threads(threads or min(len(os.sched_getaffinity(0)), 4))

        llm = cyllama.LLM(model_path, config=GenerationConfig(n_ctx=context_tokens, n_gpu_layers=0), verbose=False)
    except Exception as exc:  # a bad file, an unsupported architecture: name it, do not hang
        _reply(replies, ["error", f"llama.cpp could not load {model_path}: {type(exc).__name__}: {exc}".splitlines()[0]])
        return
    _reply(replies, ["ready"])
    for line in sys.stdin:
        try:
            _handle(replies, llm, GenerationConfig, context_tokens, json.loads(line))
        except Exception as exc:  # a refusal or a bad request: the model stays loaded
            _reply(replies, ["error", f"{type(exc).__name__}: {exc}".splitlines()[0]])


def _use_threads(count: int) -> None:
    """Give llama.cpp's contexts `count` threads (the parent chooses: `llamacpp.default_threads`). cyllama leaves
    llama.cpp's default of 4, which on a 2-core machine under load made a 1,600-token prompt take 70 s instead of a
    few; its API has no setting, so the context parameters it builds are given the count here."""
    import cyllama.api as api

    make = api.LlamaContextParams

    def params() -> Any:
        made = make()
        made.n_threads = made.n_threads_batch = count
        return made

    api.LlamaContextParams = params


def _stop_asked() -> bool:
    """Whether the parent sent ["stop"] during a stream: the only line it writes before reading the "done"."""
    if not select.select([sys.stdin], [], [], 0)[0]:
        return False
    line = sys.stdin.readline()
    return bool(line) and json.loads(line)[0] == "stop"


def _reply(out: TextIO, message: list[Any]) -> None:
    out.write(json.dumps(message, ensure_ascii=False) + "\n")
    out.flush()


def _tokens(llm: Any, text: str) -> int:
    return len(llm.vocab.tokenize(text, False, False)) if text else 0


def _handle(out: TextIO, llm: Any, config_type: Any, context_tokens: int, request: list[Any]) -> None:
    op = request[0]
    if op == "stop":  # the stream it was meant for had already ended
        return
    if op == "tokenize":
        _reply(out, ["count", _tokens(llm, request[1])])
        return
    _, messages, max_tokens, temperature = request
    config = config_type(max_tokens=max_tokens, temperature=temperature, n_ctx=context_tokens, n_gpu_layers=0)
    if op == "complete":
        response = llm.chat(messages, config=config)
        _reply(out, ["done", response.text, response.stats.prompt_tokens, response.stats.generated_tokens])
        return
    text = ""
    pieces = llm.chat(messages, config=config, stream=True)
    for piece in pieces:
        text += piece
        _reply(out, ["delta", piece])
        if _stop_asked():
            pieces.close()  # the reader has what it needs: every further token is CPU spent for nothing
            break
    prompt = sum(_tokens(llm, str(m.get("content", ""))) for m in messages)
    _reply(out, ["done", text, prompt, _tokens(llm, text)])


if __name__ == "__main__":
    main(sys.argv[1:])
