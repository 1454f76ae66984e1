"""Templates pick a strategy per document kind; rules override per folder or glob; the choice is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from chunkdocs import SENTENCES, document, joined, parse_markdown

from bunko import Config
from bunko.chunk.templates import choose, detect_kind, rule_matches
from bunko.config import ChunkConfig
from bunko.errors import ConfigError
from bunko.parse.tables import table_markdown

TABLE = table_markdown(["a", "b"], [["1", "2"], ["3", "4"]])


def _kind(build: list[tuple[str, str, dict]], mime: str = "text/markdown", source: str = "d.md") -> str:
    return detect_kind(document(source, build, mime), ChunkConfig())


def test_kinds_are_detected_from_mime_ocr_questions_tables_and_headings() -> None:
    assert _kind([("paragraph", "x", {})], mime="application/vnd.openxmlformats-officedocument.presentationml.presentation") == "slides"
    assert _kind([("paragraph", "scanned text", {"meta": {"method": "ocr"}})] * 3, mime="application/pdf") == "scanned"
    faq = [("heading", "FAQ", {})] + [p for i in range(4) for p in [("paragraph", f"Q{i}: Does it work?", {}), ("paragraph", "Yes.", {})]]
    assert _kind(faq) == "faq"
    assert _kind([("paragraph", "Intro.", {}), ("table", TABLE, {}), ("table", TABLE, {}), ("paragraph", "x", {})]) == "tables"
    manual = [p for i in range(4) for p in [("heading", f"Chapter {i}", {}), ("paragraph", "Text.", {})]]
    assert _kind(manual) == "manual"
    assert _kind([("paragraph", "Just a note.", {})]) == "default"


def test_a_manual_with_a_few_questions_is_not_an_faq() -> None:
    build = [p for i in range(20) for p in [("heading", f"Section {i}", {}), ("paragraph", "Text.", {}), ("paragraph", "More.", {})]]
    build += [("paragraph", "Why does it fail?", {}), ("paragraph", "Can it run offline?", {}), ("paragraph", "Is it safe?", {})]
    assert _kind(build) == "manual"


@pytest.mark.parametrize(("glob", "source", "expected"), [
    ("faq/*", "faq/a.md", True), ("faq/*", "docs/faq/a.md", True), ("faq/*", "faqs/a.md", False),
    ("*.pptx", "decks/q3.pptx", True), ("docs/**/manual-*.md", "docs/x/manual-a.md", True),
])
def test_rule_globs_match_the_source_path_or_its_tail(glob: str, source: str, expected: bool) -> None:
    assert rule_matches(glob, source) is expected


def test_rules_come_first_then_a_fixed_strategy_then_templates() -> None:
    doc = parse_markdown("# A\n\nx\n\n# B\n\ny\n\n# C\n\nz\n", "faq/a.md")
    auto = ChunkConfig(strategy="auto")
    assert choose(doc, auto) == choose(doc, auto, "auto")
    assert choose(doc, auto).strategy == "heading" and choose(doc, auto).reason == "template manual"
    fixed = ChunkConfig(strategy="recursive")
    assert choose(doc, fixed).strategy == "recursive"
    ruled = ChunkConfig(strategy="recursive", rules=[{"glob": "faq/*", "strategy": "qa_pairs"}])
    assert choose(doc, ruled).strategy == "qa_pairs" and choose(doc, ruled).reason == "rule faq/*"
    custom = ChunkConfig(strategy="auto", templates={"manual": "structure"})
    assert choose(doc, custom).strategy == "structure"
    assert custom.templates["faq"] == "qa_pairs"  # kinds not mentioned keep their default


def test_bad_chunk_config_is_refused_with_the_key() -> None:
    with pytest.raises(ConfigError, match="rules"):
        Config.from_dict({"chunk": {"rules": [{"glob": "x/*", "strategy": "sentences"}]}})
    with pytest.raises(ConfigError, match="unknown document kind memo"):
        Config.from_dict({"chunk": {"templates": {"memo": "heading"}}})
    with pytest.raises(ConfigError, match="strategy"):
        Config.from_dict({"chunk": {"strategy": "magic"}})
    with pytest.raises(ConfigError, match="overlap_chars"):
        Config.from_dict({"chunk": {"max_chars": 100, "overlap_chars": 100}})


def test_rules_and_templates_survive_a_round_trip_through_bunko_toml(tmp_path: Path) -> None:
    config = Config.from_dict({"chunk": {"strategy": "auto", "templates": {"manual": "structure"},
                                         "rules": [{"glob": "faq/*", "strategy": "qa_pairs"}]}})
    config.save(tmp_path / "bunko.toml")
    again = Config.load(tmp_path / "bunko.toml")
    assert again.chunk == config.chunk


def test_ingest_records_kind_strategy_and_reason(make_kb, tmp_path: Path) -> None:
    config = Config.from_dict({"chunk": {"strategy": "auto", "rules": [{"glob": "notes/*", "strategy": "fixed"}]}})
    kb = make_kb(config=config)
    docs = tmp_path / "docs"
    (docs / "notes").mkdir(parents=True)
    (docs / "faq.md").write_text(
        "# FAQ\n\n" + "\n\n".join(f"## Q: Question {i}?\n\nAnswer {i}." for i in range(4)) + "\n", encoding="utf-8"
    )
    (docs / "manual.md").write_text(
        "".join(f"# Part {i}\n\n{joined('en', SENTENCES['en'])}\n\n" for i in range(3)), encoding="utf-8"
    )
    (docs / "notes" / "n.md").write_text("# Part\n\n" + joined("ja", SENTENCES["ja"]) + "\n", encoding="utf-8")
    assert kb.ingest(docs).ok
    recorded = {d.source: (d.meta["doc_kind"], d.meta["chunk_strategy"], d.meta["chunk_reason"]) for d in kb.documents()}
    assert recorded == {
        "docs/faq.md": ("faq", "qa_pairs", "template faq"),
        "docs/manual.md": ("manual", "heading", "template manual"),
        "docs/notes/n.md": ("default", "fixed", "rule notes/*"),
    }
    faq_chunks = kb.chunks("docs/faq.md")
    assert [c.text.split("\n\n")[0] for c in faq_chunks] == [f"Q: Question {i}?" for i in range(4)]


def test_every_strategy_the_config_accepts_has_a_chunker() -> None:
    from bunko.chunk.registry import CHUNKERS
    from bunko.config import CHUNK_STRATEGIES

    assert sorted(CHUNKERS) == sorted(CHUNK_STRATEGIES)
