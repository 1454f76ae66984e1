"""Reports: valid self-contained HTML with every configuration, Markdown tables, Ragas JSONL, JSON results."""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import lxml.html
import numpy as np
import pytest

from bunko.evaluate import charts
from bunko.evaluate.experiments import Experiment
from bunko.evaluate.metrics import fact_in_evidence, fact_match
from bunko.evaluate.ragas_export import ragas_rows, write_ragas
from bunko.evaluate.report_html import render_html
from bunko.evaluate.report_md import misses, render_markdown

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class StrictParser(HTMLParser):
    """Records every tag that closes out of order or never closes (html.parser itself forgives both)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.images: list[str] = []
        self.external: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "img":
            self.images.append(values.get("src") or "")
        for name in ("src", "href"):
            if (values.get(name) or "").startswith(("http:", "https:", "//")):
                self.external.append(values[name] or "")
        if tag in ("script", "link"):
            self.external.append(tag)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()


@pytest.fixture(scope="module")
def html(table_experiment: Experiment) -> str:
    return render_html(table_experiment, ["fixed60: fact_match = 0.400 < 0.7"])


def test_the_html_report_is_well_formed_and_self_contained(html: str, table_experiment: Experiment) -> None:
    parser = StrictParser()
    parser.feed(html)
    parser.close()
    assert parser.problems == [] and parser.stack == []
    assert parser.external == []  # no CDN, no scripts, no stylesheets to fetch
    assert len(parser.images) == 4 and all(src.startswith("data:image/png;base64,") for src in parser.images)  # 3 charts + reliability
    assert {f"q-{item.id}" for item in table_experiment.items} <= parser.ids  # one drill-down per question


def test_the_html_report_shows_every_configuration(html: str, table_experiment: Experiment) -> None:
    tree = lxml.html.fromstring(html)
    header = [th.text_content() for th in tree.xpath("(//table)[2]//th")]
    assert header[:4] == ["metric", "default", "fixed60", "k3"] and "winner" in header
    configurations = [row.xpath("./td[1]")[0].text_content() for row in tree.xpath("(//table)[1]/tbody/tr")]
    assert configurations == ["default", "fixed60", "k3"]
    first = tree.xpath("//details")[0].text_content()
    assert all(name in first for name in ("default", "fixed60", "k3"))
    assert "FAILED" in tree.xpath("//h2")[0].text_content()
    assert tree.xpath("//td[contains(@class, 'win')]")  # winners are highlighted


def test_without_matplotlib_the_report_still_renders(table_experiment: Experiment, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(charts, "available", lambda: False)
    html = render_html(table_experiment)
    assert "<img" not in html and "pip install" in html


def test_the_markdown_report_has_the_comparison(table_experiment: Experiment) -> None:
    markdown = render_markdown(table_experiment, [])
    assert "| metric ↑↓ |" not in markdown
    assert "| metric | default | fixed60 | k3 | winner | fixed60 − default [95% CI] | k3 − default [95% CI] |" in markdown
    fact_row = next(line for line in markdown.splitlines() if line.startswith("| fact_match"))
    assert "| default |" in fact_row or "| k3 |" in fact_row or "| tie |" in fact_row
    assert "- passed" in markdown and "Not measured: page_hit" in markdown
    assert "**fact_match** —" in markdown  # definitions
    length = next(line for line in markdown.splitlines() if line.startswith("| answer_chars_p50 (informative) |"))
    assert re.match(r"\| answer_chars_p50 \(informative\) \| \d+ ch \| \d+ ch \| \d+ ch \| – \|", length)  # each run's; no winner


def test_ragas_export_has_the_evaluation_dataset_fields(table_experiment: Experiment, tmp_path: Path) -> None:
    run = table_experiment.run("default")
    path = write_ragas(tmp_path / "ragas.jsonl", table_experiment.items, run.records, contexts=5)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len(table_experiment.items)
    for item, row in zip(table_experiment.items, rows, strict=True):
        assert row["user_input"] == item.question and isinstance(row["response"], str)
        assert isinstance(row["retrieved_contexts"], list) and len(row["retrieved_contexts"]) <= 5
        assert all(isinstance(c, str) and c for c in row["retrieved_contexts"])
        assert ("reference" in row) == (not item.absent)
        assert set(row) <= {"user_input", "retrieved_contexts", "response", "reference"}
    assert ragas_rows(table_experiment.items[:1], run.records[:1])[0]["reference"] == table_experiment.items[0].expected_answers[0]


def test_ragas_loads_the_export_when_installed(table_experiment: Experiment, tmp_path: Path) -> None:
    ragas = pytest.importorskip("ragas")
    run = table_experiment.run("default")
    dataset = ragas.EvaluationDataset.from_jsonl(str(write_ragas(tmp_path / "r.jsonl", table_experiment.items, run.records)))
    assert len(dataset) == len(table_experiment.items)


def test_results_json_round_trips(table_experiment: Experiment) -> None:
    data = json.loads(json.dumps(table_experiment.to_json(), ensure_ascii=False))
    assert [r["name"] for r in data["runs"]] == ["default", "fixed60", "k3"]
    assert data["baseline"] == "default" and len(data["items"]) == len(table_experiment.items)
    fact = next(c for c in data["comparisons"] if c["metric"] == "fact_match")
    assert set(fact["diffs"]) == {"fixed60", "k3"} and {"diff", "low", "high"} <= set(fact["diffs"]["fixed60"])


def test_every_record_keeps_the_evidence_its_answer_was_drawn_from(table_experiment: Experiment) -> None:
    for run in table_experiment.runs:
        for item, record in zip(table_experiment.items, run.records, strict=True):
            assert record.evidence is not None and all(p.text for p in record.evidence), item.id
            cited = {c.chunk_id for s in record.sentences for c in s.citations}
            assert cited <= {p.chunk_id for p in record.evidence}, item.id
            rows_cut = run.name == "fixed60" and item.type == "table"
            # 60-character chunks cut a table's rows: a table answer reads the stored row, and no chunk holds all of it
            # (its provenance is the table's first chunk, index/table_data._row_chunks); a known limit, not checked here
            if item.expected_answers and not record.abstained and fact_match(record.answer, item.expected_answers) and not rows_cut:
                assert fact_in_evidence(item, record), item.id  # an extractive answer quotes its evidence


def test_the_misses_say_which_stage_lost_the_expected_answer(table_experiment: Experiment) -> None:
    run = table_experiment.run("fixed60")  # 60-character windows: answers are lost
    lost = 0
    for row in misses(table_experiment, run):
        item = next(i for i in table_experiment.items if i.id == row[0])
        record = run.records[table_experiment.items.index(item)]
        held = fact_in_evidence(item, record)
        if "not in the answer" in row[4]:
            lost += 1
            assert ("expected answer in the evidence, not in the answer" in row[4]) == bool(held)
            assert ("expected answer neither in the evidence nor in the answer" in row[4]) == (held is False)
        if not item.absent and record.abstained:
            assert ("abstained, the expected answer in the evidence" in row[4]) == bool(held)
    assert lost + sum(1 for r in run.records if r.abstained) > 0


def _drawing(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The matplotlib figures the charts save, kept (after saving, so their layout is the one in the PNG)."""
    figures: list[Any] = []
    save = charts._png

    def keep(figure: Any) -> bytes:
        png = save(figure)
        figures.append(figure)
        return png

    monkeypatch.setattr(charts, "_png", keep)
    return figures


def _image(png: bytes, figure: Any) -> np.ndarray:
    """The PNG decoded as RGB rows, top first: the figure's size at its dpi, and something drawn in it."""
    from PIL import Image

    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    width, height = figure.get_size_inches() * figure.dpi
    assert image.size == (int(width), int(height))
    pixels = np.asarray(image.convert("RGB"))
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50  # not a blank canvas
    return pixels


def _rgb(colour: str) -> np.ndarray:
    from matplotlib.colors import to_rgb

    return np.round(np.array(to_rgb(colour)) * 255).astype(np.uint8)


def _count(pixels: np.ndarray, colour: str) -> int:
    return int(np.all(pixels == _rgb(colour), axis=-1).sum())


def test_metric_bars_draw_each_configuration_s_scores(table_experiment: Experiment, monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.colors import to_hex

    figures = _drawing(monkeypatch)
    png = charts.metric_bars(table_experiment)
    [figure] = figures
    [axes] = figure.axes
    names = [run.name for run in table_experiment.runs]
    shown = [c for c in table_experiment.comparisons if c.info.group != "ops" and c.info.higher_is_better]
    assert len(shown) >= 5 and [t.get_text() for t in axes.get_yticklabels()] == [c.metric for c in shown]
    assert axes.get_xlabel() == "score (higher is better)" and axes.get_xlim() == (0, 1)
    assert [t.get_text() for t in axes.get_legend().get_texts()] == names
    assert [container.get_label() for container in axes.containers] == names
    for index, (name, container) in enumerate(zip(names, axes.containers, strict=True)):
        assert [bar.get_width() for bar in container] == pytest.approx([c.values[name] or 0.0 for c in shown])
        assert {to_hex(bar.get_facecolor()) for bar in container} == {charts.COLOURS[index]}

    # and the image shows those lengths: along each bar's middle row, its colour runs from the axis to its score
    pixels = _image(png, figure)
    legend = axes.get_legend().get_window_extent()
    measured = 0
    for index, container in enumerate(axes.containers):
        for bar in container:
            middle = bar.get_y() + bar.get_height() / 2
            (left, y), (right, _) = axes.transData.transform([(0.0, middle), (bar.get_width(), middle)])
            if legend.y0 - 2 <= y <= legend.y1 + 2:
                continue  # the legend is drawn over the ends of these
            row = pixels[pixels.shape[0] - 1 - int(y)]
            [drawn] = np.nonzero(np.all(row == _rgb(charts.COLOURS[index]), axis=-1))
            if right - left < 3:
                assert len(drawn) == 0, (bar.get_width(), drawn)
                continue
            # within 4 px (antialiasing and the edge line), while a value off by 0.01 moves an end by 6 px
            assert abs(drawn.min() - left) <= 4 and abs(drawn.max() - right) <= 4, (bar.get_width(), left, right, drawn.min(), drawn.max())
            assert len(drawn) >= 0.9 * (right - left)  # one bar, not two ends (grid lines cross it)
            measured += 1
    assert measured >= len(shown)


def test_latency_chart_draws_each_configuration_s_distribution_and_stages(
    table_experiment: Experiment, monkeypatch: pytest.MonkeyPatch,
) -> None:
    figures = _drawing(monkeypatch)
    png = charts.latency_chart(table_experiment)
    [figure] = figures
    left, right = figure.axes
    runs = table_experiment.runs
    stages = [s for s in table_experiment.stages if s != "total"]
    assert left.get_title() == "latency distribution" and left.get_ylabel() == "ms per question (ask, total)"
    assert [t.get_text() for t in left.get_xticklabels()] == [run.name for run in runs]
    assert len(left.patches) == len(runs)
    for run, box in zip(runs, left.patches, strict=True):  # each box spans its run's middle half of total times
        totals = [r.timings["total"] * 1000 for r in run.records if "total" in r.timings]
        ys = box.get_path().vertices[:, 1]
        assert (ys.min(), ys.max()) == pytest.approx(tuple(np.percentile(totals, [25, 75])))
    assert [t.get_text() for t in right.get_xticklabels()] == stages
    assert [c.get_label() for c in right.containers] == [f"{run.name} {p}" for run in runs for p in ("p95", "p50")]
    for index, run in enumerate(runs):
        p95, p50 = right.containers[2 * index: 2 * index + 2]
        for quantile, container in (("p95", p95), ("p50", p50)):
            expected = [(run.summary.get(f"latency_{quantile}.{s}") or 0.0) * 1000 for s in stages]
            assert [bar.get_height() for bar in container] == pytest.approx(expected)
    pixels = _image(png, figure)
    for index in range(len(runs)):  # each configuration's solid p50 bars are there in its colour
        assert _count(pixels, charts.COLOURS[index]) > 20, index


def test_breakdown_chart_draws_each_metric_per_type_and_language(table_experiment: Experiment, monkeypatch: pytest.MonkeyPatch) -> None:
    figures = _drawing(monkeypatch)
    png = charts.breakdown_chart(table_experiment)
    [figure] = figures
    metrics = ["recall@5", "fact_match", "abstention_recall"]
    runs = table_experiment.runs
    groups = [(d, v) for d in ("type", "lang") for v in runs[0].by_tag.get(d, {})]
    assert [axes.get_title() for axes in figure.axes] == metrics and len(groups) >= 3
    for axes, metric in zip(figure.axes, metrics, strict=True):
        assert [t.get_text() for t in axes.get_xticklabels()] == [f"{d}={v}" for d, v in groups]
        assert [c.get_label() for c in axes.containers] == [run.name for run in runs]
        for run, container in zip(runs, axes.containers, strict=True):
            expected = [run.by_tag.get(d, {}).get(v, {}).get(metric) for d, v in groups]
            np.testing.assert_allclose([bar.get_height() for bar in container],
                                       [np.nan if x is None else x for x in expected], equal_nan=True)  # NaN: not measured
    pixels = _image(png, figure)
    for index in range(len(runs)):
        assert _count(pixels, charts.COLOURS[index]) > 20, index
