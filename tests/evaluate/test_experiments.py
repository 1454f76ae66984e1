"""Experiments: the better configuration wins, indexes are shared or rebuilt as they must be."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bunko import Bunko, Config
from bunko.embed.use_m3 import UseM3Embedder
from bunko.evaluate.experiments import Experiment, compare, run_experiment
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.variants import Variant, differences, index_key, load_variants, overlay, redacted


def test_the_default_beats_tiny_fixed_windows_on_table_questions(table_experiment: Experiment) -> None:
    default, fixed = table_experiment.run("default"), table_experiment.run("fixed60")
    pair = compare([default, fixed], table_experiment.ks, table_experiment.stages, resamples=1000, seed=0)
    fact = next(c for c in pair if c.metric == "fact_match")
    assert fact.winner == "default"
    interval = fact.diffs["fixed60"]
    assert interval is not None and interval.diff < -0.15 and interval.significant  # a real loss, not noise
    assert default.by_tag["type"]["table"]["fact_match"] > fixed.by_tag["type"]["table"]["fact_match"]
    three_way = table_experiment.comparison("fact_match")
    assert three_way is not None and three_way.winner != "fixed60"


def test_only_configurations_that_change_the_index_are_reindexed(table_experiment: Experiment) -> None:
    default, fixed, k3 = (table_experiment.run(n) for n in ("default", "fixed60", "k3"))
    assert default.index == k3.index == "temporary #1" and fixed.index == "temporary #2"
    assert default.ingest_seconds is not None and k3.ingest_seconds is None
    assert fixed.chunks > 2 * default.chunks == 2 * k3.chunks
    assert all(len(r.hits) <= 10 for r in k3.records)  # retrieval measured at the largest k, not [retrieve] k


def test_results_cover_every_question_in_order(table_experiment: Experiment, table_items: list[GoldenItem]) -> None:
    for run in table_experiment.runs:
        assert [r.item_id for r in run.records] == [i.id for i in table_items]
        assert not any(r.error for r in run.records)
        assert set(run.by_tag["lang"]) == {"ja", "zh", "en"}
        assert run.summary["abstention_recall"] is not None
        assert run.summary["latency_p95.total"] >= run.summary["latency_p50.total"] > 0
    assert "total" in table_experiment.stages and table_experiment.stages[0] == "total"


def test_an_existing_collection_is_reused_or_rebuilt_from_its_own_documents(
    make_kb: Callable[..., Bunko], embedder: UseM3Embedder, samples_dir: Path, table_items: list[GoldenItem],
) -> None:
    kb = make_kb()
    kb.ingest(samples_dir)
    sources = {d.source for d in kb.documents()}
    kb.close()
    items = table_items[:4]
    smaller = Config.from_dict({"chunk": {"max_chars": 200}})
    experiment = run_experiment(
        items, [Variant("current", kb.config, "bunko.toml"), Variant("small", smaller, "small.toml")],
        collection=kb.path, embedder=embedder, ks=(5,), resamples=100,
    )
    current, small = experiment.run("current"), experiment.run("small")
    assert current.index == "collection" and current.ingest_seconds is None
    assert small.index == "temporary #1" and small.chunks > current.chunks
    # the rebuilt index names sources exactly like the collection, so chunk-level relevance stays comparable
    assert {h.source for r in small.records for h in r.hits} <= sources


def test_partial_configuration_files_lay_over_the_base(tmp_path: Path) -> None:
    base = Config.from_dict({"retrieve": {"k": 7}})
    (tmp_path / "a.toml").write_text("[chunk]\nmax_chars = 500\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.toml").write_text("[retrieve]\nmode = 'dense'\n", encoding="utf-8")
    first, second = load_variants([tmp_path / "a.toml", tmp_path / "sub" / "a.toml"], base)
    assert (first.name, second.name) == ("a-1", "a-2")
    assert first.config.chunk.max_chars == 500 and first.config.retrieve.k == 7
    assert second.config.retrieve.mode == "dense" and second.config.chunk.max_chars == Config().chunk.max_chars
    assert index_key(second.config) == index_key(base) != index_key(first.config)
    assert index_key(Config.from_dict({"retrieve": {"analyzer": "whitespace"}})) != index_key(Config())
    assert overlay({"a": {"x": 1, "y": 2}}, {"a": {"y": 3}, "b": 1}) == {"a": {"x": 1, "y": 3}, "b": 1}


def test_reports_never_show_a_store_password() -> None:
    config = Config.from_dict({"store": "postgresql://bunko:s3cret@db.internal:5432/kb?schema=x"})
    assert redacted(config)["store"] == "postgresql://bunko:***@db.internal:5432/kb?schema=x"
    assert differences(redacted(Config()), redacted(config)) == ["store: 'local' → 'postgresql://bunko:***@db.internal:5432/kb?schema=x'"]
    assert index_key(config) != index_key(Config())  # another backend is never reused as this one
