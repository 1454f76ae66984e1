"""Parsing under a wall-time and memory limit: one child process, reused across files, replaced after a kill.

The ingest pipeline hands every file to `ParseWorker.parse`. The worker is a Python child process
(`python -c "…serve()"`, not a fork: the parent may hold threads and loaded models) started when the first
file needs it and kept for the files after, so a run of many small files pays its start-up once (measured in
bench/results/hostile.md). For each file the child:

* lowers its own address-space limit (RLIMIT_AS) so that its resident memory cannot grow past
  `ingest.max_memory_mb` (its address space now, plus the headroom between its resident size and the limit):
  an allocation past it fails inside the parser (MemoryError, or a C library's own failure at that size →
  TOO_LARGE) instead of taking the machine's memory; the child then exits, and the next file gets a fresh one;
* runs `parse.limits.parse_within` (sniffing, container checks, the parser, the document checks);
* answers with the document, or the code and detail of its failure, and its peak resident memory for the file.

The parent waits at most `ingest.max_parse_seconds`, watching the child's resident memory meanwhile against
`ingest.max_memory_mb` (the guard where RLIMIT_AS is not enforced, as on macOS); past either it kills the child's process group (OCR's
Tesseract included) and fails the file with TIMEOUT or TOO_LARGE naming the limit. A child that dies on its
own fails the file with PARSE_FAILED, or TOO_LARGE when it was near its memory limit. Either way the next
file starts a new child, so one file never costs the others anything but the restart. A child left holding
much more memory than it started with (freed but not returned by a large file) is replaced as well.

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
from bunko.parse.limits import ParseLimits, parse_within
from bunko.parse.progress import PageCallback, listening
from bunko.parse.registry import ParserRegistry
from bunko.schema import ErrorCode, ParsedDocument

log = logging.getLogger(__name__)

_HEADER = struct.Struct("!Q")
_POLL_S = 0.05
START_TIMEOUT_S = 120.0
"""How long a starting child may take to import the parsers and say it is ready (a loaded 2-core machine: ~1 s)."""
RECYCLE_ABOVE_MB = 256
"""A child holding this much more resident memory than when it started (what a large file leaves behind, freed but
not returned) is replaced before the next file, so a long-lived worker (the server's) does not keep it."""
NEAR_LIMIT = 0.8
"""A child that fails or dies with at least this share of its memory limit resident is reported as over it (TOO_LARGE)."""
MIN_HEADROOM_MB = 64
"""Address space a file always gets, even when the child is already near its limit (it is replaced after such a file)."""
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


def _frame(data: bytes) -> bytes:
    return _HEADER.pack(len(data)) + data


def _send(stream: IO[bytes], message: Any) -> None:
    stream.write(_frame(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)))
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
    # The pipe's other end is the parse worker this process started, not a file: a worker that could forge this
    # pickle already runs code as this user.
    return pickle.loads(body)  # noqa: S301


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


def _die_with_parent() -> None:
    """Linux: be killed when the ingesting process dies (a parse stuck in a loop must not outlive it)."""
    parent = os.getppid()
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the request took
        os._exit(1)


def serve() -> None:
    """The child's loop: a registry, then one request per file until stdin closes."""
    _die_with_parent()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a library printing to stdout must not break the frames
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer.fileno()
    import numpy  # noqa: F401  # imported before any memory limit: OpenBLAS exits the process when its buffers fail
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
        reply, fatal = _parse_one(registry, Path(path), source, limits, _progress_sender(out))
        try:
            _send(out, reply)
        except MemoryError:
            stats = {**reply[-1], "exiting": True}
            _send(out, ("fail", ErrorCode.TOO_LARGE.value, f"{source}: the parsed document does not fit in memory", stats))
            fatal = True
        if fatal:
            return


PROGRESS_EVERY_S = 0.2
"""The child tells the parent how far it is at most this often (and at the first and last page): a few small frames
a second never fill the pipe while the parent is busy embedding the file before."""


def _progress_sender(out: IO[bytes]) -> PageCallback:
    """A `parse.progress` listener that sends ("progress", done, total, unit) frames to the parent, throttled."""
    last = [0.0]

    def send(done: int, total: int, unit: str) -> None:
        now = time.perf_counter()
        if done not in (1, total) and now - last[0] < PROGRESS_EVERY_S:
            return
        last[0] = now
        with contextlib.suppress(MemoryError):
            _send(out, ("progress", done, total, unit))

    return send


def _parse_one(
    registry: ParserRegistry, path: Path, source: str, limits: ParseLimits, on_progress: PageCallback | None = None,
) -> tuple[tuple[Any, ...], bool]:
    """(reply, whether this process must exit after answering)."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    size_kb = _status_kb("self", "VmSize")
    limit_kb = limits.max_memory_mb * 1024
    rss_kb = _status_kb("self", "VmRSS")
    if size_kb is not None and rss_kb is not None:
        soft = (size_kb + max(limit_kb - rss_kb, MIN_HEADROOM_MB * 1024)) * 1024
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_AS, (int(soft), hard))
    _reset_peak()
    started = time.perf_counter()
    fatal = False
    try:
        with listening(on_progress):
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
    if outcome[0] == "fail" and outcome[1] == ErrorCode.PARSE_FAILED.value and peak and peak >= NEAR_LIMIT * limit_kb:
        # a C library whose allocation failed at the limit says so in its own words (libxml2: "unknown error")
        outcome = ("fail", ErrorCode.TOO_LARGE.value, f"{memory_detail(source, limits)}; the parser then failed: {outcome[2]}")
        fatal = True
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


@dataclass
class _Request:
    """A file handed to the child whose reply has not been read yet."""

    path: Path
    source: str
    sent_at: float
    in_process: bool = False


class ParseWorker:
    """Parses files in a child process under `limits`; falls back to in-process parsing where it cannot.

    `submit` hands a file to the child and returns at once; `result` waits for it. The ingest pipeline submits
    the next file before it chunks, embeds and stores the current one, so on two cores the parse of one file and
    the embedding of the one before run side by side, and the round trip to the child costs no wall time.
    One file is outstanding at a time: submitting another first reads (and drops) the one before.
    """

    def __init__(self, registry: ParserRegistry, limits: ParseLimits, isolate: bool = True) -> None:
        self.registry = registry
        self.limits = limits
        self.fallback: str | None = None if isolate else "ingest.isolate = false"
        if self.fallback is None and (os.name != "posix" or not sys.executable):
            self.fallback = "no child process on this platform"
        self._registry_blob: bytes | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._ready_at: float | None = None
        self._fresh_kb = 0
        self._pending: _Request | None = None
        self.starts = 0
        self.last = ParseStats()

    @property
    def isolated(self) -> bool:
        return self.fallback is None

    @property
    def pending(self) -> str | None:
        """The source of the file submitted and not yet collected."""
        return self._pending.source if self._pending is not None else None

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
        self._ready_at = None
        if not self._write(_frame(self._registry_blob)):
            self._kill()
            self._fall_back("the parse worker did not start")

    def submit(self, path: Path, source: str) -> None:
        """Hand one file to the child (or, without one, note it for `result` to parse here)."""
        if self._pending is not None:
            with contextlib.suppress(DocumentError):
                self.result(self._pending.source)
        request = _Request(path, source, time.perf_counter(), in_process=True)
        if self.fallback is None:
            message = _frame(pickle.dumps(("parse", str(path), source, self.limits), protocol=pickle.HIGHEST_PROTOCOL))
            for _ in range(2):  # a child that died between files is replaced, once
                self.start()
                if self.fallback is not None:
                    break
                if self._write(message):
                    request.in_process = False
                    break
                self._kill()
            if request.in_process and self.fallback is None:
                self._fall_back("the parse worker does not take requests")
        self._pending = request

    def result(self, source: str, on_progress: PageCallback | None = None) -> ParsedDocument:
        """The document of the file submitted for `source`, or DocumentError with the code of what went wrong.
        `on_progress` hears the parser's page reports (`parse/progress.py`) while this waits, in order."""
        request = self._pending
        if request is None or request.source != source:
            raise RuntimeError(f"{source} was not submitted to the parse worker")
        self._pending = None
        if request.in_process or not self._await_ready():
            with listening(on_progress):
                return self._in_process(request.path, source)
        proc = self._proc
        assert proc is not None
        reply = self._wait(proc, source, max(request.sent_at, self._ready_at or request.sent_at), on_progress)
        stats = reply[-1]
        self.last = ParseStats(stats.get("seconds", 0.0), stats.get("peak_rss_mb"), isolated=True, restarted=bool(stats.get("exiting")))
        if self._proc is not None and (stats.get("rss_kb") or 0) > self._fresh_kb + RECYCLE_ABOVE_MB * 1024:
            self.close()
        if reply[0] == "ok":
            doc: ParsedDocument = reply[1]
            return doc
        raise DocumentError(ErrorCode(reply[1]), reply[2])

    def parse(self, path: Path, source: str) -> ParsedDocument:
        """`submit` and `result` in one."""
        self.submit(path, source)
        return self.result(source)

    def close(self) -> None:
        """Stop the child: it finishes the file it is on, if any, and ends at the closed pipe."""
        self._pending = None
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

    def _write(self, frame: bytes) -> bool:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return False
        try:
            proc.stdin.write(frame)
            proc.stdin.flush()
        except OSError:
            return False
        return True

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
        if self._ready_at is not None:
            return True
        proc = self._proc
        if proc is None or proc.stdout is None:
            return False
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
        self._ready_at = time.perf_counter()
        self._fresh_kb = message[2] or 0
        return True

    def _wait(
        self, proc: subprocess.Popen[bytes], source: str, started: float, on_progress: PageCallback | None = None,
    ) -> tuple[Any, ...]:
        """The child's reply (its progress frames told to `on_progress` on the way); or, past the time or memory
        limit or at its death, the failure that says so."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = started + self.limits.max_parse_seconds
        limit_kb = self.limits.max_memory_mb * 1024
        peak_kb = 0
        while True:
            remaining = deadline - time.perf_counter()
            if _readable(fd, max(0.0, min(_POLL_S, remaining))):  # a reply that came in time is read, however late
                try:
                    reply: tuple[Any, ...] = _receive(fd)
                except (EOFError, pickle.UnpicklingError, MemoryError):
                    return self._died(proc, source, peak_kb)
                if reply[0] != "progress":
                    if reply[-1].get("exiting"):
                        self._reap()  # the child exits after a MemoryError
                    return reply
                if on_progress is not None:
                    on_progress(reply[1], reply[2], reply[3])
                remaining = deadline - time.perf_counter()  # a child that keeps reporting is still held to the time limit
            if remaining <= 0:
                self._kill()
                self.last = ParseStats(round(time.perf_counter() - started, 4), round(peak_kb / 1024, 1) or None, isolated=True)
                raise DocumentError(ErrorCode.TIMEOUT, timeout_detail(source, self.limits))
            rss = _status_kb(proc.pid, "VmRSS")
            if rss is not None:
                peak_kb = max(peak_kb, rss)
                if rss > limit_kb:
                    self._kill()
                    self.last = ParseStats(round(time.perf_counter() - started, 4), round(peak_kb / 1024, 1), isolated=True)
                    raise DocumentError(ErrorCode.TOO_LARGE, memory_detail(source, self.limits))

    def _died(self, proc: subprocess.Popen[bytes], source: str, peak_kb: int) -> tuple[Any, ...]:
        code = proc.wait()
        self._proc = None
        _close_pipes(proc)
        how = f"signal {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals() else f"exit status {code}"
        stats = {"seconds": 0.0, "peak_rss_mb": round(peak_kb / 1024, 1) if peak_kb else None}
        near = peak_kb >= NEAR_LIMIT * self.limits.max_memory_mb * 1024
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
