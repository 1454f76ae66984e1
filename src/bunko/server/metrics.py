"""Prometheus text-format metrics, kept in-process without a client library.

Counters and fixed-bucket histograms are all a scrape needs; writing the text
format by hand keeps the server extra to three packages. Labels are route
templates (``/api/collections/{name}/search``), never raw paths, so a client
cannot blow up the series count by varying URLs.
"""

from __future__ import annotations

import bisect
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

Labels = tuple[tuple[str, str], ...]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(labels: Labels, extra: Iterable[tuple[str, str]] = ()) -> str:
    items = [*labels, *extra]
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in items) + "}" if items else ""


class Histogram:
    def __init__(self, buckets: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.buckets = buckets
        self.counts = [0] * (len(buckets) + 1)
        self.total = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, value)] += 1
        self.total += value
        self.count += 1


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counters: dict[str, dict[Labels, float]] = defaultdict(dict)
        self._histograms: dict[str, dict[Labels, Histogram]] = defaultdict(dict)
        self._help: dict[str, str] = {}
        self._gauges: list[Callable[[], Iterable[tuple[str, str, Labels, float]]]] = []

    def inc(self, name: str, help_text: str, labels: Labels, amount: float = 1.0) -> None:
        with self._lock:
            self._help[name] = help_text
            series = self._counters[name]
            series[labels] = series.get(labels, 0.0) + amount

    def observe(self, name: str, help_text: str, labels: Labels, value: float) -> None:
        with self._lock:
            self._help[name] = help_text
            self._histograms[name].setdefault(labels, Histogram()).observe(value)

    def gauges(self, collect: Callable[[], Iterable[tuple[str, str, Labels, float]]]) -> None:
        """Register a callback yielding (name, help, labels, value), read at scrape time."""
        self._gauges.append(collect)

    def render(self) -> str:
        lines: list[str] = []
        with self._lock:
            for name, series in sorted(self._counters.items()):
                lines += [f"# HELP {name} {self._help[name]}", f"# TYPE {name} counter"]
                lines += [f"{name}{_labels(labels)} {value:g}" for labels, value in sorted(series.items())]
            for name, hists in sorted(self._histograms.items()):
                lines += [f"# HELP {name} {self._help[name]}", f"# TYPE {name} histogram"]
                for labels, hist in sorted(hists.items()):
                    running = 0
                    for bound, count in zip(hist.buckets, hist.counts, strict=False):
                        running += count
                        lines.append(f"{name}_bucket{_labels(labels, [('le', f'{bound:g}')])} {running}")
                    lines.append(f"{name}_bucket{_labels(labels, [('le', '+Inf')])} {hist.count}")
                    lines.append(f"{name}_sum{_labels(labels)} {hist.total:.6f}")
                    lines.append(f"{name}_count{_labels(labels)} {hist.count}")
        grouped: dict[str, tuple[str, list[tuple[Labels, float]]]] = {}
        for collect in self._gauges:
            for name, help_text, labels, value in collect():
                grouped.setdefault(name, (help_text, []))[1].append((labels, value))
        for name, (help_text, gauge_series) in sorted(grouped.items()):
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
            lines += [f"{name}{_labels(labels)} {value:g}" for labels, value in gauge_series]
        return "\n".join(lines) + "\n"

    # -- the server's own series ----------------------------------------------
    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.inc("bunko_http_requests_total", "HTTP requests by route template and status.",
                 (("method", method), ("route", route), ("status", str(status))))
        self.observe("bunko_http_request_duration_seconds", "HTTP request latency by route template.",
                     (("method", method), ("route", route)), seconds)

    def stages(self, collection: str, operation: str, timings: dict[str, float]) -> None:
        for stage, seconds in timings.items():
            self.observe("bunko_stage_duration_seconds", "Time per pipeline stage (embed_query, dense, keyword, retrieve, document_search, evidence, fusion, fuse, generate, total).",
                         (("collection", collection), ("operation", operation), ("stage", stage)), float(seconds))

    def ingest(self, collection: str, status: str, error_code: str | None) -> None:
        self.inc("bunko_ingest_jobs_total", "Finished upload ingest jobs by final status and error code.",
                 (("collection", collection), ("status", status), ("error_code", error_code or "")))
