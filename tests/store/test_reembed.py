"""Changing the embedding model without taking the collection offline (local and postgres stores).

A re-embed stages the new model's vectors beside the live ones; searches keep using the old model until every
chunk is embedded, then vectors, hashes, recorded embedder and bunko.toml switch at once. These tests run it on a
few thousand ja/zh/en chunks with cheap hashing embedders (tests/hash_embedder.py), held where a search or a
kill must land in the middle (until the search has been answered, or until the kill).
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bunko import Bunko, BunkoError, CollectionError
from bunko.config import CONFIG_FILE, Config, EmbedConfig
from bunko.ingest.active_embedder import ActiveEmbedder
from bunko.ingest.maintenance import ReembedReport, ReembedStopped
from bunko.ingest.reembed import Reembedder
from bunko.rerank.collection_units import CollectionUnits
from bunko.store.registry import open_store, writer_lock
from hash_embedder import HashEmbedder
from reembed_corpus import line, small_chunk_config, write_corpus
from waiting import wait_until

TESTS = Path(__file__).resolve().parents[1]
SRC = TESTS.parent / "src"
BATCH = 64
QUERIES = [line("zh", 3, 5), line("ja", 1, 7), line("en", 2, 9)]


@pytest.fixture(params=["local", "postgres"])
def store_setting(request: pytest.FixtureRequest) -> str:
    return "local" if request.param == "local" else str(request.getfixturevalue("pg_store_dsn"))


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """3 languages x 8 files x 100 lines: about 2,400 chunks."""
    write_corpus(tmp_path / "docs", files_per_language=8, lines_per_file=100)
    return tmp_path / "docs"


class PacedPassages(HashEmbedder):
    """A new model whose every batch of passages first waits until `ready()` (queries go at hashing speed): the
    condition a slow model's batches only gave time for, waited for instead."""

    def __init__(self, *args: Any, ready: Callable[[], bool], waiting_for: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ready = ready
        self.waiting_for = waiting_for

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        wait_until(self.ready, timeout=60, message=self.waiting_for)
        return super().embed(texts)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return super().embed(texts)


def open_kb(tmp_path: Path, store: str, embedder: HashEmbedder, units: bool = False, **options) -> Bunko:
    return Bunko(tmp_path / ".bunko", config=small_chunk_config(store, units=units), embedder=embedder, **options)


def top_hit_is_exact(kb: Bunko, query: str) -> None:
    """A dense search for a stored line finds that line at distance ~0: the query and the vectors it was compared
    with come from one model (a query of one model against the other's vectors finds noise, or fails on width)."""
    hit = kb.search(query, k=3, mode="dense")[0]
    assert hit.chunk.text == query and hit.distance is not None and hit.distance < 1e-4, (query, hit.chunk.text, hit.distance)


def new_vectors_everywhere(kb: Bunko, model: HashEmbedder) -> None:
    """Every searched chunk's stored vector is `model`'s vector of its text."""
    chunks = [c for c in kb.chunks() if c.searchable]
    stored = kb.store.search().vectors_for([c.chunk_id for c in chunks])
    expected = HashEmbedder(model.name, model.dimension, seed=model.seed).embed([c.embed_text for c in chunks])
    assert stored.shape == expected.shape
    np.testing.assert_allclose(stored, expected, atol=1e-5)


def reembed_chunks(kb: Bunko, embedder: HashEmbedder, **options: Any) -> tuple[ReembedReport, int]:
    """The re-embed's report and the embed calls it took (the collections these tests count calls in keep no unit
    vectors, so every call embeds a batch of chunks)."""
    calls: list[int] = []
    report = kb.reembedder.run(embedder=embedder, progress=lambda done, total: calls.append(embedder.calls), **options)
    return report, calls[-1]


def test_searches_answer_throughout_with_the_old_model_until_the_switch_and_the_new_after(tmp_path: Path, store_setting: str, corpus: Path) -> None:
    old = HashEmbedder("hash-a", 64, seed=1)
    kb = open_kb(tmp_path, store_setting, old)
    assert kb.ingest(corpus).ok
    total = kb.store.chunk_count()
    assert total >= 2000
    outcomes: list[tuple[str, str | None]] = []  # (query, error)
    seen_at_progress: list[int] = []
    stop = threading.Event()
    answered_before = [0]

    def a_search_answered_since_the_last_batch() -> bool:
        if len(outcomes) <= answered_before[0]:
            return False
        answered_before[0] = len(outcomes)
        return True

    # each batch waits for a search answered meanwhile: a re-embed that kept searches out would time out here
    new = PacedPassages("hash-b", 96, seed=7, ready=a_search_answered_since_the_last_batch,
                        waiting_for="no search was answered while the vectors were being staged")

    def search_forever() -> None:
        while not stop.is_set():
            for query in QUERIES:
                try:
                    top_hit_is_exact(kb, query)
                    assert kb.search(query, k=5), "no hits"
                    outcomes.append((query, None))
                except Exception as exc:  # collected: the assertion below lists them
                    outcomes.append((query, repr(exc)))

    searcher = threading.Thread(target=search_forever)
    searcher.start()
    try:
        report = kb.reembedder.run(embedder=new, progress=lambda done, all_: seen_at_progress.append(len(outcomes)))
        switched_at = len(outcomes)
        wait_until(lambda: len(outcomes) >= switched_at + 6, timeout=60, message="searches stopped after the switch")
    finally:
        stop.set()
        searcher.join()
    assert [o for o in outcomes if o[1]] == []
    assert report.chunks == total and report.embedded == total and report.replaced == "hash-a"
    assert seen_at_progress[-1] - seen_at_progress[0] >= 3, "searches answered while the vectors were being staged"
    assert kb.store.get_meta("embedder") == "hash-b" and kb.store.get_meta("dimension") == "96"
    assert kb.embedder_name == "hash-b" and kb.reembedder.status() is None
    new_vectors_everywhere(kb, new)
    for query in QUERIES:
        top_hit_is_exact(kb, query)
    kb.close()
    reopened = open_kb(tmp_path, store_setting, HashEmbedder("hash-b", 96, seed=7))
    top_hit_is_exact(reopened, QUERIES[0])
    reopened.close()


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt], ids=["embedder-fails", "ctrl-c"])
def test_an_interrupted_reembed_keeps_the_old_model_and_a_rerun_resumes_from_the_last_batch(
    tmp_path: Path, store_setting: str, corpus: Path, error: type[BaseException],
) -> None:
    kb = open_kb(tmp_path, store_setting, HashEmbedder("hash-a", 64, seed=1))
    assert kb.ingest(corpus).ok
    total = kb.store.chunk_count()
    with pytest.raises(error):
        kb.reembedder.run(embedder=HashEmbedder("hash-b", 96, seed=7, fail_after=5, error=error), batch=BATCH)
    assert kb.store.get_meta("embedder") == "hash-a" and kb.embedder_name == "hash-a"
    for query in QUERIES:
        top_hit_is_exact(kb, query)
    status = kb.reembedder.status()
    assert status is not None and status["embedder"] == "hash-b" and not status["running"]
    assert (status["chunks_embedded"], status["chunks"]) == (5 * BATCH, total)
    kb.close()

    kb = open_kb(tmp_path, store_setting, HashEmbedder("hash-a", 64, seed=1))  # the old model opens the collection
    with pytest.raises(CollectionError, match="in progress"):
        kb.reembedder.run(embedder=HashEmbedder("hash-c", 32, seed=9))
    rest = HashEmbedder("hash-b", 96, seed=7)
    report, calls = reembed_chunks(kb, rest, batch=BATCH)
    assert report.embedded == total - 5 * BATCH and report.chunks == total
    assert calls == math.ceil((total - 5 * BATCH) / BATCH), "only the batches not finished before were embedded"
    new_vectors_everywhere(kb, rest)
    top_hit_is_exact(kb, QUERIES[1])
    kb.close()


KILLED = textwrap.dedent("""
    import sys
    sys.path[:0] = [{tests!r}, {src!r}]
    from hash_embedder import HashEmbedder
    from reembed_corpus import small_chunk_config
    from bunko import Bunko

    kb = Bunko({path!r}, config=small_chunk_config({store!r}), embedder=HashEmbedder("hash-a", 64, seed=1))
    class Stalling(HashEmbedder):
        def embed(self, texts):
            if self.calls == 10:  # ten batches staged: the eleventh is being embedded when the kill comes
                print("stalled", flush=True)
                sys.stdin.readline()  # never answered: held until killed
            return super().embed(texts)

    def progress(done, total):
        print(done, total, flush=True)
    kb.reembedder.run(embedder=Stalling("hash-b", 96, seed=7), batch={batch}, progress=progress)
    print("finished", flush=True)
""")


def test_a_reembed_killed_with_sigkill_keeps_the_old_model_and_resumes(tmp_path: Path, store_setting: str, corpus: Path) -> None:
    kb = open_kb(tmp_path, store_setting, HashEmbedder("hash-a", 64, seed=1))
    assert kb.ingest(corpus).ok
    total = kb.store.chunk_count()
    kb.close()
    script = KILLED.format(tests=str(TESTS), src=str(SRC), path=str(tmp_path / ".bunko"), store=store_setting, batch=BATCH)
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(SRC)})
    assert child.stdout is not None
    for output in child.stdout:
        assert output != "finished\n", "the re-embed finished before it could be killed"
        if output == "stalled\n":  # mid-batch: the kill lands while a batch is being embedded
            break
    else:
        raise AssertionError(f"the re-embed ended without reaching its eleventh batch (exit status {child.wait(30)})")
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=30)

    kb = open_kb(tmp_path, store_setting, HashEmbedder("hash-a", 64, seed=1))
    assert kb.store.get_meta("embedder") == "hash-a"
    for query in QUERIES:
        top_hit_is_exact(kb, query)
    status = kb.reembedder.status()
    assert status is not None and not status["running"] and 10 * BATCH <= status["chunks_embedded"] < total
    staged = status["chunks_embedded"]
    assert staged % BATCH == 0, "whole batches only: the one being embedded at the kill is lost, none is half-written"
    rest = HashEmbedder("hash-b", 96, seed=7)
    report, calls = reembed_chunks(kb, rest, batch=BATCH)
    assert report.embedded == total - staged and calls == math.ceil((total - staged) / BATCH)
    assert kb.store.get_meta("embedder") == "hash-b"
    new_vectors_everywhere(kb, rest)
    kb.close()


def test_abort_discards_the_staged_vectors_and_the_next_reembed_starts_over(tmp_path: Path, corpus: Path) -> None:
    kb = open_kb(tmp_path, "local", HashEmbedder("hash-a", 64, seed=1))
    assert kb.ingest(corpus).ok
    total = kb.store.chunk_count()
    with pytest.raises(RuntimeError):
        kb.reembedder.run(embedder=HashEmbedder("hash-b", 96, seed=7, fail_after=3), batch=BATCH)
    assert kb.reembedder.abort() == "hash-b"
    assert kb.reembedder.status() is None and kb.store.staging_counts() == (0, total)
    with pytest.raises(BunkoError, match="no re-embed in progress"):
        kb.reembedder.abort()
    again = HashEmbedder("hash-b", 96, seed=7)
    report, calls = reembed_chunks(kb, again, batch=BATCH)
    assert report.embedded == total and calls == math.ceil(total / BATCH)
    kb.close()


def test_aborting_a_running_reembed_stops_it_and_keeps_the_old_model(tmp_path: Path, corpus: Path) -> None:
    kb = open_kb(tmp_path, "local", HashEmbedder("hash-a", 64, seed=1))
    assert kb.ingest(corpus).ok

    def abort_after_three(done: int, total: int) -> None:
        if done >= 3 * BATCH:
            kb.reembedder.abort()

    with pytest.raises(ReembedStopped, match="aborted"):
        kb.reembedder.run(embedder=HashEmbedder("hash-b", 96, seed=7), batch=BATCH, progress=abort_after_three)
    assert kb.reembedder.status() is None and kb.store.get_meta("embedder") == "hash-a"
    top_hit_is_exact(kb, QUERIES[2])
    kb.close()


def test_chunks_written_during_a_reembed_end_up_with_the_new_models_vectors(tmp_path: Path, store_setting: str, corpus: Path) -> None:
    kb = open_kb(tmp_path, store_setting, HashEmbedder("hash-a", 64, seed=1))
    assert kb.ingest(corpus).ok
    added = tmp_path / "added"
    write_corpus(added, files_per_language=1, lines_per_file=30, tag="new")
    changed = corpus / "zh-0.md"
    ingested: list[int] = []

    def ingest_midway(done: int, total: int) -> None:
        if done >= 4 * BATCH and not ingested:  # the lines of zh-0.md were staged by now; they change under it
            changed.write_text(changed.read_text(encoding="utf-8").replace("最多报销", "最多可报销"), encoding="utf-8")
            report = kb.ingest([added, changed])
            assert report.ok
            ingested.append(len(report.jobs))

    new = HashEmbedder("hash-b", 96, seed=7)
    report = kb.reembedder.run(embedder=new, batch=BATCH, progress=ingest_midway)
    assert ingested == [4]
    assert report.chunks == kb.store.chunk_count()
    new_vectors_everywhere(kb, new)
    for query in (line("zh", 0, 5, "new"), line("zh", 0, 7).replace("最多报销", "最多可报销"), line("ja", 0, 3, "new")):
        top_hit_is_exact(kb, query)
    kb.close()


def factory(config: EmbedConfig) -> HashEmbedder:
    """Model names of a bunko.toml mapped to hash embedders, as `build_embedder` maps them to real models."""
    return {"use-m3": HashEmbedder("hash-a", 64, seed=1), "hash-b": HashEmbedder("hash-b", 96, seed=7)}[config.model]


def test_a_switch_by_model_name_rewrites_bunko_toml_and_another_open_collection_follows_it(tmp_path: Path, store_setting: str, corpus: Path) -> None:
    writer = Bunko(tmp_path / ".bunko", config=small_chunk_config(store_setting), embedder_factory=factory)
    assert writer.ingest(corpus).ok
    reader = Bunko(tmp_path / ".bunko", create=False, embedder_factory=factory)  # e.g. a server, opened before
    top_hit_is_exact(reader, QUERIES[0])
    report = writer.reembedder.run("hash-b")
    assert report.embedder == "hash-b"
    assert Config.load(tmp_path / ".bunko" / CONFIG_FILE).embed.model == "hash-b"
    assert reader.embedder_name == "hash-a"
    for query in QUERIES:
        top_hit_is_exact(reader, query)  # it sees the switch and embeds its queries with the new model
    assert reader.embedder_name == "hash-b" and reader.config.embed.model == "hash-b"
    writer.close()
    reader.close()


def test_a_crash_after_the_store_switched_but_before_bunko_toml_was_written_is_finished_at_the_next_open(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    kb = Bunko(tmp_path / ".bunko", config=small_chunk_config(), embedder_factory=factory)
    assert kb.ingest(corpus).ok
    calls = {"n": 0}
    real_write = ActiveEmbedder.write_config

    def die_first(self: ActiveEmbedder, embed: EmbedConfig) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise SystemExit("killed between the store's commit and bunko.toml")
        real_write(self, embed)

    monkeypatch.setattr(ActiveEmbedder, "write_config", die_first)
    with pytest.raises(SystemExit):
        kb.reembedder.run("hash-b")
    kb.close()
    assert Config.load(tmp_path / ".bunko" / CONFIG_FILE).embed.model == "use-m3"  # the file lags the store
    reopened = Bunko(tmp_path / ".bunko", create=False, embedder_factory=factory)
    assert Config.load(tmp_path / ".bunko" / CONFIG_FILE).embed.model == "hash-b"
    assert reopened.embedder_name == "hash-b" and reopened.store.get_meta("embedder") == "hash-b"
    top_hit_is_exact(reopened, QUERIES[2])
    reopened.close()


def test_a_second_reembed_is_refused_while_one_runs_and_the_current_model_is_no_target(tmp_path: Path, corpus: Path) -> None:
    kb = open_kb(tmp_path, "local", HashEmbedder("hash-a", 64, seed=1))
    assert kb.ingest(corpus).ok
    with pytest.raises(BunkoError, match="embedded with hash-a already"):
        kb.reembedder.run(embedder=HashEmbedder("hash-a", 64, seed=1))
    other = open_kb(tmp_path, "local", HashEmbedder("hash-a", 64, seed=1))
    refused: list[str] = []

    def try_second(done: int, total: int) -> None:
        if not refused:
            with pytest.raises(CollectionError, match="a re-embed is running") as caught:
                other.reembedder.run(embedder=HashEmbedder("hash-c", 32, seed=9))
            refused.append(str(caught.value))
            status = other.reembedder.status()
            assert status is not None and status["running"]

    kb.reembedder.run(embedder=HashEmbedder("hash-b", 96, seed=7), progress=try_second)
    assert refused
    kb.close()
    other.close()


def test_an_ingest_begun_before_a_switch_by_another_writer_writes_nothing_after_it(tmp_path: Path, store_setting: str, corpus: Path) -> None:
    kb = open_kb(tmp_path, store_setting, HashEmbedder("hash-a", 64, seed=1))
    assert kb.ingest(corpus).ok
    other = open_kb(tmp_path, store_setting, HashEmbedder("hash-a", 64, seed=1))  # another process, same old model
    begun = other._ingestor()  # its run started before the switch (and checked the embedder then)
    new = HashEmbedder("hash-b", 64, seed=7)  # the same width: nothing but the embedder check tells the two apart
    kb.reembedder.run(embedder=new)
    write_corpus(tmp_path / "late", files_per_language=1, lines_per_file=5, tag="late")
    report = begun.run([tmp_path / "late"])
    assert len(report.failed) == 3, report.failed
    assert all(
        j.error_code == "INDEX_FAILED" and "switched to the embedder hash-b" in (j.error_detail or "") for j in report.failed
    ), [j.error_detail for j in report.failed]
    new_vectors_everywhere(kb, new)
    with pytest.raises(CollectionError, match="embedded with 'hash-b'"):
        other.ingest(tmp_path / "late")  # a later run sees the switch; this one cannot build hash-b, so it says so
    assert kb.ingest(tmp_path / "late").ok
    new_vectors_everywhere(kb, new)
    other.close()
    kb.close()


def test_the_units_are_embedded_for_the_new_model_at_the_switch(tmp_path: Path, corpus: Path) -> None:
    """Searches judge documents by their best sentence through the units of the model in force: a switch that left
    them to the old model would rank documents by their chunks alone until `bunko reindex --unit-vectors`."""
    kb = open_kb(tmp_path, "local", HashEmbedder("hash-a", 64, seed=1), units=True)
    assert kb.ingest(corpus).ok
    before = kb.units.file.count()
    assert before > 0
    kb.reembedder.run(embedder=HashEmbedder("hash-b", 96, seed=7), batch=BATCH)
    assert kb.units.file.count() == 2 * before  # each unit once for each model
    assert kb.units.documents_with_units() == (len(kb.documents()),) * 2
    for doc_id, version in kb.store.document_versions([document.doc_id for document in kb.documents()[:3]]).items():
        matrix = kb.units.file.document_units(kb.units.file.document_key("hash-b", doc_id, version), 96)
        assert matrix is not None and len(matrix) > 0
    kb.close()


def test_a_reembed_embeds_each_unit_once_with_its_batch_across_an_interruption_and_nothing_after_the_switch(tmp_path: Path) -> None:
    """The new model's units are embedded with the chunks of their batch, before it commits: an interrupted run
    leaves the units of its committed batches stored, the resumed run embeds only the rest, and the switch leaves
    only the documents' matrices to write (the Japanese lines' second sentence, the same in every line of a file,
    is one unit embedded once)."""
    corpus = tmp_path / "docs"
    write_corpus(corpus, files_per_language=2, lines_per_file=100)  # 600 chunks, about ten batches
    kb = open_kb(tmp_path, "local", HashEmbedder("hash-a", 64, seed=1), units=True)
    assert kb.ingest(corpus).ok
    distinct = kb.units.file.count()
    units_of = kb.units.file.embedded
    assert distinct == units_of < 2 * kb.store.chunk_count()  # the repeated ja sentence: fewer units than sentences
    failing = HashEmbedder("hash-b", 96, seed=7, fail_after=5)
    with pytest.raises(RuntimeError):
        kb.reembedder.run(embedder=failing, batch=BATCH)
    staged, total = kb.store.staging_counts()
    assert 0 < staged < total
    embedded_before = kb.units.file.embedded - units_of
    assert 0 < embedded_before < distinct and kb.units.file.count() == distinct + embedded_before

    rest = HashEmbedder("hash-b", 96, seed=7)
    seen: list[int] = []
    report = kb.reembedder.run(embedder=rest, batch=BATCH, progress=lambda done, total: seen.append(rest.texts))
    assert report.embedded == total - staged
    assert kb.units.file.embedded - units_of == distinct, "each of the new model's units embedded once over both runs"
    assert rest.texts == seen[-1], "nothing was embedded after the switch"
    assert rest.texts == (total - staged) + (distinct - embedded_before)
    assert kb.units.file.count() == 2 * distinct
    assert kb.units.documents_with_units() == (len(kb.documents()),) * 2
    top_hit_is_exact(kb, line("zh", 1, 5))
    kb.close()


def test_asks_after_a_switch_go_through_an_answer_pipeline_built_with_the_new_model(tmp_path: Path) -> None:
    """The answer pipeline (its searcher, reranker and extractive answer) is built with the embedder in force: one built
    before a switch is replaced by the next ask, whose question is then embedded by the model whose vectors it reads
    (the old one's 64 dimensions against the new 96 would not compare)."""
    write_corpus(tmp_path / "docs", files_per_language=1, lines_per_file=10)
    kb = open_kb(tmp_path, "local", HashEmbedder("hash-a", 64, seed=1))
    assert kb.ingest(tmp_path / "docs").ok
    before = kb.answerer
    new = HashEmbedder("hash-b", 96, seed=7)
    kb.reembedder.run(embedder=new, batch=BATCH)
    for lang in ("ja", "zh", "en"):
        question = line(lang, 0, 4)
        answer = kb.ask(question)
        assert kb.answerer is not before and kb.answerer.searcher.embedder is new
        assert not answer.abstained and question.startswith(answer.sentences[0].text), answer.text  # its first sentence
        assert answer.sentences[0].citations[0].source == f"docs/{lang}-0.md"
    kb.close()


def test_a_reembedder_over_a_store_opened_without_the_engine_switches_the_collection(tmp_path: Path) -> None:
    """`Reembedder` needs a store, the embedder in force and the writer lock, not a `Bunko`: an application that opens
    the store itself re-embeds the collection, and a collection opened afterwards reads the new model's vectors."""
    write_corpus(tmp_path / "docs", files_per_language=1, lines_per_file=10)
    config, path = small_chunk_config(), tmp_path / ".bunko"
    with Bunko(path, config=config, embedder_factory=factory) as kb:
        assert kb.ingest(tmp_path / "docs").ok
    store = open_store(config, path)
    models = ActiveEmbedder(store, path, config, factory=factory)
    units = CollectionUnits(store, path, config, models)
    reembedder = Reembedder(store, path, models, writer_lock(config, path), units)
    report = reembedder.run("hash-b")
    assert (report.embedder, report.replaced, report.chunks) == ("hash-b", "hash-a", store.chunk_count())
    assert models.name == "hash-b" and reembedder.status() is None and not reembedder.running()
    units.close()
    store.close()
    assert Config.load(path / CONFIG_FILE).embed.model == "hash-b"
    with Bunko(path, create=False, embedder_factory=factory) as reopened:
        new_vectors_everywhere(reopened, HashEmbedder("hash-b", 96, seed=7))
        for lang in ("ja", "zh", "en"):
            top_hit_is_exact(reopened, line(lang, 0, 3))
