"""A page left untranslated in a manual's ja/ and zh/ folders is one hit, named "also at" the other copies, and
cited from the copy in the question's language folder (`ingest/copies.py`, `retrieve/copies.py`).

The tree is real LibreOffice Writer help markup (tests/store/copies_pages/, cut from /work/evaldata/writer's
Debian `libreoffice-help-{en-us,ja,zh-cn}` pages): "Selecting Tables, Rows, and Columns" in all three languages as translated, and
"Converting a Field into Text" in en/, again byte for byte in ja/, and in zh/ with only its title translated.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bunko import Bunko, Config
from bunko.cli.query import _hit_json
from bunko.embed.use_m3 import UseM3Embedder
from bunko.server.views import hit_view, numbered_citations
from bunko.store.local import LocalStore

PAGES = Path(__file__).resolve().parent / "copies_pages"
FIELD = {lang: f"help/{lang}/swriter/guide/field_convert.html" for lang in ("en", "ja", "zh")}
QUESTIONS = {
    "en": "How can I turn a field into plain text that is no longer updated?",
    "ja": "フィールドを更新されない普通のテキストに変えるにはどうしますか？",
    "zh": "如何将字段转换成文本，使它不再更新？",
}


def build_tree(root: Path, translated: bool = True) -> Path:
    """The tree under `root`/help; `translated`: with the translated "Selecting Tables, Rows, and Columns" pages beside the copies."""
    tree = root / "help"
    for lang in ("en", "ja", "zh"):
        (tree / lang / "swriter" / "guide").mkdir(parents=True)
        if translated:
            shutil.copy(PAGES / f"table_select-{lang}.html", tree / lang / "swriter" / "guide" / "table_select.html")
    english = (PAGES / "field_convert-en.html").read_text(encoding="utf-8")
    (root / FIELD["en"]).write_text(english, encoding="utf-8")
    (root / FIELD["ja"]).write_text(english, encoding="utf-8")
    title = re.search(r"<title>(.*?)</title>", (PAGES / "field_convert-zh.html").read_text(encoding="utf-8")).group(1)
    retitled = english.replace("<title>Converting a Field into Text</title>", f"<title>{title}</title>")
    retitled = retitled.replace("</a>Converting a Field into Text", f"</a>{title}", 1)
    assert retitled.count(title) == 2
    (root / FIELD["zh"]).write_text(retitled, encoding="utf-8")
    return tree


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("copies")
    opened = Bunko(root / ".bunko", embedder=embedder)
    assert opened.ingest(build_tree(root)).ok
    yield opened
    opened.close()


def field_hits(kb: Bunko, question: str) -> list:
    return [h for h in kb.search(question, k=6) if h.chunk.source in FIELD.values()]


def test_each_copy_is_kept_with_its_place_and_names_its_original(kb: Bunko) -> None:
    docs = {d.source: d for d in kb.documents()}
    original = docs[FIELD["en"]].doc_id
    assert [docs[FIELD[lang]].duplicate_of for lang in ("en", "ja", "zh")] == [None, original, original]
    assert [docs[FIELD[lang]].folder_lang for lang in ("en", "ja", "zh")] == ["en", "ja", "zh"]
    assert all(d.duplicate_of is None for s, d in docs.items() if "table_select" in s)  # translations are pages of their own


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_search_shows_the_page_once_from_the_questions_folder_also_at_the_others(kb: Bunko, lang: str) -> None:
    hits = field_hits(kb, QUESTIONS[lang])
    assert hits, "the page is found"
    assert {h.chunk.source for h in hits} == {FIELD[lang]}
    texts = [h.chunk.text for h in hits]
    assert len(texts) == len(set(texts)), "one hit per passage, not one per copy"
    assert hits[0].also_at == sorted(FIELD[other] for other in FIELD if other != lang)
    assert _hit_json(hits[0])["also_at"] == hits[0].also_at == hit_view(hits[0])["also_at"]


def test_with_no_preference_the_original_is_shown(kb: Bunko) -> None:
    hits = [h for h in kb.search(QUESTIONS["ja"], k=6, language="any") if h.chunk.source in FIELD.values()]
    assert hits and {h.chunk.source for h in hits} == {FIELD["en"]}


def test_a_filter_hides_the_copies_it_excludes_from_the_hit_and_its_also_at(kb: Bunko) -> None:
    hidden = {"source": {"$ne": FIELD["ja"]}}  # as an access filter would: the ja copy is not the caller's
    hits = [h for h in kb.search(QUESTIONS["ja"], k=6, filters=hidden) if h.chunk.source in FIELD.values()]
    assert hits and {h.chunk.source for h in hits} == {FIELD["en"]} and hits[0].also_at == [FIELD["zh"]]
    only = {"source": {"$glob": "help/zh/*"}}
    hits = [h for h in kb.search(QUESTIONS["en"], k=6, filters=only) if h.chunk.source in FIELD.values()]
    assert hits and {h.chunk.source for h in hits} == {FIELD["zh"]} and all(h.also_at == [] for h in hits)


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_an_answer_cites_the_copy_in_the_questions_language_folder(kb: Bunko, lang: str) -> None:
    answer = kb.ask(QUESTIONS[lang])
    assert not answer.abstained
    cited = [c for s in answer.sentences for c in s.citations]
    assert cited and {c.source for c in cited} == {FIELD[lang]}
    assert all(c.also_at == sorted(FIELD[o] for o in FIELD if o != lang) for c in cited)
    assert all(shown["also_at"] == cited[0].also_at for shown in numbered_citations(answer))


@pytest.mark.parametrize("backend", ["local", "postgres"])
def test_deleting_or_rewriting_a_copy_keeps_the_group(
    tmp_path: Path, make_kb: Callable[..., Bunko], request: pytest.FixtureRequest, backend: str,
) -> None:
    tree = build_tree(tmp_path, translated=False)
    kb = make_kb(Config(store=request.getfixturevalue("pg_store_dsn")) if backend == "postgres" else None)
    assert kb.ingest(tree).ok
    hits = field_hits(kb, QUESTIONS["ja"])
    assert {h.chunk.source for h in hits} == {FIELD["ja"]} and hits[0].also_at == [FIELD["en"], FIELD["zh"]]
    assert {c.source for s in kb.ask(QUESTIONS["zh"]).sentences for c in s.citations} == {FIELD["zh"]}

    assert kb.delete(FIELD["en"])
    (tmp_path / FIELD["en"]).unlink()
    docs = {d.source: d for d in kb.documents()}
    assert docs[FIELD["ja"]].duplicate_of is None and docs[FIELD["zh"]].duplicate_of == docs[FIELD["ja"]].doc_id
    hits = field_hits(kb, QUESTIONS["en"])  # no copy in en/ now: the original, the first copy ingested, stands for it
    assert hits and {h.chunk.source for h in hits} == {FIELD["ja"]} and hits[0].also_at == [FIELD["zh"]]

    shutil.copy(PAGES / "field_convert-zh.html", tmp_path / FIELD["zh"])  # the zh copy is translated at last
    assert kb.ingest(tree).ok
    assert all(d.duplicate_of is None for d in kb.documents())
    hits = field_hits(kb, QUESTIONS["zh"])
    assert hits and all(h.also_at == [] for h in hits)
    assert FIELD["zh"] in {h.chunk.source for h in hits}


def test_reindex_groups_the_copies_of_a_collection_stored_before_copies_were_recorded(
    tmp_path: Path, make_kb: Callable[..., Bunko],
) -> None:
    kb = make_kb()
    assert kb.ingest(build_tree(tmp_path, translated=False)).ok
    store = kb.store
    assert isinstance(store, LocalStore)
    with store._lock:  # as an older bunko wrote it: no fingerprint, folder language nor original
        store._db.execute("UPDATE documents SET meta = json_remove(meta, '$.fingerprint', '$.duplicate_of', '$.folder_lang')")
        store._db.execute("UPDATE meta SET value = value + 1 WHERE key = 'generation'")
    assert all(d.duplicate_of is None for d in kb.documents()) and all(h.also_at == [] for h in field_hits(kb, QUESTIONS["ja"]))
    kb.reindex()
    docs = {d.source: d for d in kb.documents()}
    assert [docs[FIELD[lang]].duplicate_of for lang in ("ja", "zh")] == [docs[FIELD["en"]].doc_id] * 2
    hits = field_hits(kb, QUESTIONS["ja"])
    assert {h.chunk.source for h in hits} == {FIELD["ja"]} and hits[0].also_at == [FIELD["en"], FIELD["zh"]]
