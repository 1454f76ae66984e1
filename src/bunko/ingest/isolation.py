"""Parsing under a wall-time and memory limit: one child process, reused across files, replaced after a kill.

The ingest pipeline hands every file to `ParseWorker.parse`. The worker is a Python child process
(`python -c "…serve()"`, not a fork: the parent may hold threads and loaded models) started when the first
file needs it and kept for the files after, so a run of many small files pays its start-up once (measured in
bench/results/hostile.md). For each file the child:

* lowers its own address-space limit (RLIMIT_AS) to its present size plus `ingest.max_memory_mb`, so an
  allocation past the budget fails inside the parser (MemoryError → TOO_LARGE) instead of taking the
  machine's memory; the child then exits, and the next file gets a fresh one;
* runs `parse.limits.parse_within` (sniffing, container checks, the parser, the document checks);
* answers with the document, or the code and detail of its failure, and its peak resident memory for the file.

The parent waits at most `ingest.max_parse_seconds`, watching the child's resident memory meanwhile (the
guard where RLIMIT_AS is not enforced, as on macOS); past either it kills the child's process group (OCR's
Tesseract included) and fails the file with TIMEOUT or TOO_LARGE naming the limit. A child that dies on its
own fails the file with PARSE_FAILED, or TOO_LARGE when it was near its memory budget. Either way the next
file starts a new child, so one file never costs the others anything but the restart.

Where a child cannot run (no POSIX, `ingest.isolate = false`, or a registry holding a parser that does not
pickle), files are parsed in the calling process: every other limit holds, these two do not.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bunko.errors import DocumentError
from bunko.parse.limits import MB, ParseLimits, parse_within
from bunko.parse.registry import ParserRegistry
from bunko.schema import ErrorCode, ParsedDocument

log = logging.getLogger(__name__)

_HEADER = struct.Struct("!Q")
_POLL_S = 0.05
START_TIMEOUT_S = 120.0
"""How long a starting child may take to import the parsers and say it is ready (a loaded 2-core machine: ~1 s)."""
NEAR_BUDGET = 0.8
"""A child that dies with at least this share of its memory budget in use is reported as over it (TOO_LARGE)."""
_CHILD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"}
"""Fewer threads and malloc arenas: each reserves address space, which RLIMIT_AS counts."""


@dataclass
class ParseStats:
    """What parsing one file cost: wall seconds, peak resident memory of the parser's process, where it ran."""

    seconds: float = 0.0
    peak_rss_mb: float | None = None
    isolated: bool = False
    restarted: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


# -- framing: 8-byte length, then a pickle ---------------------------------------------------------


def _send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read_exactly(fd: int, size: int) -> bytes | None:
    parts: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _receive(fd: int) -> Any:
    header = _read_exactly(fd, _HEADER.size)
    if header is None:
        raise EOFError
    body = _read_exactly(fd, _HEADER.unpack(header)[0])
    if body is None:
        raise EOFError
    return pickle.loads(body)


# -- /proc: resident and virtual memory ------------------------------------------------------------


def _status_kb(pid: int | str, key: str) -> int | None:
    """A `VmRSS`/`VmHWM`/`VmSize` line of /proc/PID/status in kB (None where there is no /proc)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _reset_peak() -> None:
    """Start this process's peak resident memory (VmHWM) afresh for the next file (Linux ≥ 4.0)."""
    with contextlib.suppress(OSError), open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
        handle.write("5")


# -- the child -------------------------------------------------------------------------------------


def serve() -> None:
    """The child's loop: a registry, then one request per file until stdin closes."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a library printing to stdout must not break the frames
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer.fileno()
    try:
        registry = _receive(stdin)
    except Exception as exc:  # a custom parser that cannot be imported here: the parent parses in-process
        _send(out, ("broken", f"{type(exc).__name__}: {exc}".splitlines()[0]))
        return
    _send(out, ("ready", os.getpid(), _status_kb("self", "VmRSS")))
    while True:
        try:
            request = _receive(stdin)
        except EOFError:
            return
        _, path, source, limits = request
        reply, fatal = _parse_one(registry, Path(path), source, limits)
        try:
            _send(out, reply)
        except MemoryError:
            stats = {**reply[-1], "exiting": True}
            _send(out, ("fail", ErrorCode.TOO_LARGE.value, f"{source}: the parsed document does not fit in memory", stats))
            fatal = True
        if fatal:
            return


def _parse_one(registry: ParserRegistry, path: Path, source: str, limits: ParseLimits) -> tuple[tuple[Any, ...], bool]:
    """(reply, whether this process must exit after answering)."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    size_kb = _status_kb("self", "VmSize")
    budget = int(limits.max_memory_mb * MB)
    if size_kb is not None:
        soft = size_kb * 1024 + budget
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    _reset_peak()
    started = time.perf_counter()
    fatal = False
    try:
        doc = parse_within(registry, path, source, limits)
        outcome: tuple[Any, ...] = ("ok", doc)
    except DocumentError as exc:
        outcome = ("fail", exc.code.value, exc.detail)
    except MemoryError:
        outcome = ("fail", ErrorCode.TOO_LARGE.value, memory_detail(source, limits))
        fatal = True  # a library may be left half-way: the next file gets a fresh process
    except Exception as exc:
        outcome = ("fail", ErrorCode.PARSE_FAILED.value, f"{source}: {type(exc).__name__}: {exc}".splitlines()[0])
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    peak = _status_kb("self", "VmHWM")
    stats = {
        "seconds": round(time.perf_counter() - started, 4), "peak_rss_mb": round(peak / 1024, 1) if peak else None,
        "rss_kb": _status_kb("self", "VmRSS"), "exiting": fatal,
    }
    return (*outcome, stats), fatal


def memory_detail(source: str, limits: ParseLimits) -> str:
    return f"{source}: parsing needed more memory than the limit (ingest.max_memory_mb = {limits.max_memory_mb:g} MB)"


def timeout_detail(source: str, limits: ParseLimits) -> str:
    return f"{source}: parsing took longer than the limit (ingest.max_parse_seconds = {limits.max_parse_seconds:g} s); stopped"


# -- the parent ------------------------------------------------------------------------------------


class ParseWorker:
    """Parses files in a child process under `limits`; falls back to in-process parsing where it cannot."""

    def __init__(self, registry: ParserRegistry, limits: ParseLimits, isolate: bool = True) -> None:
        self.registry = registry
        self.limits = limits
        self.fallback: str | None = None if isolate else "ingest.isolate = false"
        if self.fallback is None and (os.name != "posix" or not sys.executable):
            self.fallback = "no child process on this platform"
        self._registry_blob: bytes | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._ready = False
        self._baseline_kb = 0
        self.starts = 0
        self.last = ParseStats()

    @property
    def isolated(self) -> bool:
        return self.fallback is None

    def start(self) -> None:
        """Start the child if none runs; it imports the parsers while the caller goes on (ready is read at first use)."""
        if self.fallback is not None or self._proc is not None:
            return
        if self._registry_blob is None:
            try:
                self._registry_blob = pickle.dumps(self.registry, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:
                self._fall_back(f"the parser registry does not pickle ({type(exc).__name__}: {exc})")
                return
        env = {**os.environ, **_CHILD_ENV, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "from bunko.ingest.isolation import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, start_new_session=True,
        )
        self.starts += 1
        self._ready = False
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(_HEADER.pack(len(self._registry_blob)) + self._registry_blob)
            self._proc.stdin.flush()
        except OSError as exc:
            self._kill()
            self._fall_back(f"the parse worker did not start ({exc})")

    def parse(self, path: Path, source: str) -> ParsedDocument:
        """The parsed document, or DocumentError with the code of what went wrong (TIMEOUT, TOO_LARGE, …)."""
        if self.fallback is None:
            self.start()
        if self.fallback is not None or not self._await_ready():
            return self._in_process(path, source)
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            _send(proc.stdin, ("parse", str(path), source, self.limits))
        except OSError:  # the child died between files
            self._kill()
            return self.parse(path, source)
        reply = self._wait(proc, source)
        stats = reply[-1]
        self.last = ParseStats(stats.get("seconds", 0.0), stats.get("peak_rss_mb"), isolated=True, restarted=bool(stats.get("exiting")))
        if stats.get("rss_kb"):
            self._baseline_kb = stats["rss_kb"]
        if reply[0] == "ok":
            doc: ParsedDocument = reply[1]
            return doc
        raise DocumentError(ErrorCode(reply[1]), reply[2])

    def close(self) -> None:
        if self._proc is None:
            return
        proc, self._proc = self._proc, None
        try:
            assert proc.stdin is not None
            proc.stdin.close()  # the child's loop ends at EOF
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            _kill_group(proc)
        finally:
            if proc.stdout is not None:
                proc.stdout.close()

    # -- internals --------------------------------------------------------------------------------

    def _fall_back(self, reason: str) -> None:
        self.fallback = reason
        log.warning("parsing in the ingest process, without the time and memory limits: %s", reason)

    def _in_process(self, path: Path, source: str) -> ParsedDocument:
        started = time.perf_counter()
        try:
            return parse_within(self.registry, path, source, self.limits)
        finally:
            self.last = ParseStats(round(time.perf_counter() - started, 4))

    def _await_ready(self) -> bool:
        if self._ready:
            return True
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        try:
            if not _readable(fd, START_TIMEOUT_S):
                raise EOFError
            message = _receive(fd)
        except (EOFError, pickle.UnpicklingError):
            self._kill()
            self._fall_back("the parse worker did not start")
            return False
        if message[0] != "ready":
            self._kill()
            self._fall_back(f"the parse worker cannot load the parser registry: {message[1]}")
            return False
        self._ready = True
        self._baseline_kb = message[2] or 0
        return True

    def _wait(self, proc: subprocess.Popen[bytes], source: str) -> tuple[Any, ...]:
        """The child's reply; or, past the time or memory limit or at its death, the failure that says so."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        started = time.perf_counter()
        deadline = started + self.limits.max_parse_seconds
        budget_kb = self.limits.max_memory_mb * 1024
        peak_kb = 0
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                self._kill()
                self.last = ParseStats(round(time.perf_counter() - started, 4), round(peak_kb / 1024, 1) or None, isolated=True)
                raise DocumentError(ErrorCode.TIMEOUT, timeout_detail(source, self.limits))
            if _readable(fd, min(_POLL_S, remaining)):
                try:
                    reply: tuple[Any, ...] = _receive(fd)
                except (EOFError, pickle.UnpicklingError, MemoryError):
                    return self._died(proc, source, peak_kb)
                if reply[-1].get("exiting"):
                    self._reap()  # the child exits after a MemoryError
                return reply
            rss = _status_kb(proc.pid, "VmRSS")
            if rss is not None:
                peak_kb = max(peak_kb, rss)
                if rss > self._baseline_kb + budget_kb:
                    self._kill()
                    self.last = ParseStats(round(time.perf_counter() - started, 4), round(peak_kb / 1024, 1), isolated=True)
                    raise DocumentError(ErrorCode.TOO_LARGE, memory_detail(source, self.limits))

    def _died(self, proc: subprocess.Popen[bytes], source: str, peak_kb: int) -> tuple[Any, ...]:
        code = proc.wait()
        self._proc = None
        how = f"signal {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals() else f"exit status {code}"
        stats = {"seconds": 0.0, "peak_rss_mb": round(peak_kb / 1024, 1) if peak_kb else None}
        near = peak_kb >= self._baseline_kb + NEAR_BUDGET * self.limits.max_memory_mb * 1024
        if near or code == -signal.SIGKILL:  # SIGKILL from outside: the kernel's OOM killer, most often
            return ("fail", ErrorCode.TOO_LARGE.value, memory_detail(source, self.limits) + f" (the parser process ended by {how})", stats)
        return ("fail", ErrorCode.PARSE_FAILED.value, f"{source}: the parser process ended by {how} while reading it", stats)

    def _reap(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
            _close_pipes(proc)

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            _kill_group(proc)
            _close_pipes(proc)


def _readable(fd: int, timeout_s: float) -> bool:
    poller = select.poll()  # poll, not select: a server may hold descriptors past FD_SETSIZE
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    return bool(poller.poll(max(0, int(timeout_s * 1000))))


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the child leads its own session: Tesseract goes with it
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def _close_pipes(proc: subprocess.Popen[bytes]) -> None:
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
