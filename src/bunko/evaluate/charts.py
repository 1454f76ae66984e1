"""Charts for the HTML report, drawn with matplotlib's Agg canvas into PNG bytes.

The object API (``Figure`` + ``FigureCanvasAgg``) is used instead of ``pyplot`` so no GUI
backend is ever touched and no global figure state leaks between reports (a server may draw
several at once). matplotlib is imported here only, when a report is drawn: it is the optional
``bunko[eval]`` extra, and the rest of evaluation works without it.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from bunko.evaluate import formatting as fmt
from bunko.evaluate.experiments import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

COLOURS = ("#3b6ea8", "#e0883a", "#4f9a5b", "#b8504b", "#8268b0", "#8c6d5a", "#d17fb5", "#7a7a7a")


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def metric_bars(experiment: Experiment) -> bytes:
    """Quality metrics (retrieval and answer, 0–1, higher is better), one bar per configuration."""
    comparisons = [c for c in experiment.comparisons if c.info.group != "ops" and c.info.higher_is_better]
    names = [run.name for run in experiment.runs]
    figure = _figure(9, 0.32 * len(comparisons) * max(1, len(names)) ** 0.5 + 1.2)
    axes = figure.add_subplot()
    positions = np.arange(len(comparisons))
    height = 0.8 / len(names)
    for index, name in enumerate(names):
        values = [0.0 if (value := c.values[name]) is None else value for c in comparisons]
        axes.barh(positions + index * height, values, height, label=name, color=_colour(index))
    axes.set_yticks(positions + height * (len(names) - 1) / 2, [c.metric for c in comparisons])
    axes.invert_yaxis()
    axes.set_xlim(0, 1.0)
    axes.set_xlabel("score (higher is better)")
    axes.grid(axis="x", alpha=0.3)
    axes.legend(loc="lower right", fontsize="small")
    return _png(figure)


def latency_chart(experiment: Experiment) -> bytes:
    """Left: distribution of total seconds per question; right: p50/p95 per stage."""
    names = [run.name for run in experiment.runs]
    stages = [s for s in experiment.stages if s != "total"]
    figure = _figure(11, 4)
    left, right = figure.subplots(1, 2, width_ratios=(1, 2))
    totals = [[r.timings["total"] * 1000 for r in run.records if "total" in r.timings] for run in experiment.runs]
    if any(totals):
        box = left.boxplot([t or [0.0] for t in totals], tick_labels=names, patch_artist=True, showfliers=True)
        for index, patch in enumerate(box["boxes"]):
            patch.set_facecolor(_colour(index))
            patch.set_alpha(0.6)
    left.set_ylabel("ms per question (ask, total)")
    left.set_title("latency distribution", fontsize="medium")
    left.grid(axis="y", alpha=0.3)
    positions = np.arange(len(stages))
    width = 0.8 / max(1, len(names))
    for index, run in enumerate(experiment.runs):
        p50 = [(run.summary.get(f"latency_p50.{s}") or 0.0) * 1000 for s in stages]
        p95 = [(run.summary.get(f"latency_p95.{s}") or 0.0) * 1000 for s in stages]
        x = positions + index * width
        right.bar(x, p95, width, color=_colour(index), alpha=0.35, label=f"{run.name} p95")
        right.bar(x, p50, width, color=_colour(index), label=f"{run.name} p50")
    right.set_xticks(positions + width * (len(names) - 1) / 2, stages, rotation=20)
    right.set_ylabel("ms")
    right.set_title("per stage: p50 (solid) and p95 (light)", fontsize="medium")
    right.grid(axis="y", alpha=0.3)
    right.legend(fontsize="x-small", ncols=max(1, len(names)))
    return _png(figure)


def breakdown_chart(experiment: Experiment, metrics: Sequence[str] | None = None) -> bytes:
    """Key metrics per question type and language, to see *where* a configuration wins or loses."""
    k = fmt.main_k(experiment.ks)
    metrics = list(metrics or (f"recall@{k}", "fact_match", "abstention_recall"))
    groups = [(dimension, value) for dimension in ("type", "lang") for value in experiment.runs[0].by_tag.get(dimension, {})]
    figure = _figure(11, 3.2 * len(metrics))
    axes_list = figure.subplots(len(metrics), 1, squeeze=False)[:, 0]
    positions = np.arange(len(groups))
    width = 0.8 / len(experiment.runs)
    for axes, metric in zip(axes_list, metrics, strict=True):
        for index, run in enumerate(experiment.runs):
            values = [run.by_tag.get(d, {}).get(v, {}).get(metric) for d, v in groups]
            heights = [x if x is not None else np.nan for x in values]  # NaN draws no bar: "not measured" is not 0
            axes.bar(positions + index * width, heights, width, label=run.name, color=_colour(index))
        axes.set_xticks(positions + width * (len(experiment.runs) - 1) / 2, [f"{d}={v}" for d, v in groups])
        axes.set_ylim(0, 1.05)
        axes.set_title(metric, fontsize="medium")
        axes.grid(axis="y", alpha=0.3)
    axes_list[0].legend(fontsize="small", ncols=len(experiment.runs))
    return _png(figure)


def reliability_chart(experiment: Experiment) -> bytes:
    """The reliability diagram: per confidence bin, the share of right answers against the mean confidence claimed;
    the diagonal is perfect calibration, and a marker's area is its bin's question count."""
    figure = _figure(5.5, 5)
    axes = figure.add_subplot()
    axes.plot([0, 1], [0, 1], color="#999999", linestyle="--", linewidth=1, label="calibrated")
    for index, run in enumerate(experiment.runs):
        bins = run.reliability.bins if run.reliability is not None else []
        if not bins:
            continue
        x = [b["confidence"] for b in bins]
        y = [b["accuracy"] for b in bins]
        sizes = [20 + 8 * b["count"] for b in bins]
        ece = run.reliability.ece if run.reliability is not None else None
        label = f"{run.name} (ECE {ece:.3f})" if ece is not None else run.name
        axes.plot(x, y, color=_colour(index), linewidth=1.2, alpha=0.7)
        axes.scatter(x, y, s=sizes, color=_colour(index), alpha=0.7, label=label)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("mean confidence in bin")
    axes.set_ylabel("share of right answers")
    axes.set_title("reliability", fontsize="medium")
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small", loc="upper left")
    return _png(figure)

