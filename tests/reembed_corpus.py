"""A collection of a few thousand short ja/zh/en chunks for the re-embed tests and bench (hash embedders)."""

from __future__ import annotations

from pathlib import Path

from bunko import Config

LINES = {
    "en": "Rule {i} of list {f}: item {j} hotel nights paid: {i}.",
    "ja": "第{f}章の規則{i}：項目{j}の宿泊費は{i}泊分まで支給されます。出張申請が必要です。",
    "zh": "第{f}章第{i}条：项目{j}的住宿费最多报销{i}晚，需要提前提交出差申请表格。",
}
"""Each line 35-60 characters: two never fit one 60-character chunk, so every line is a chunk of its own."""


def line(lang: str, f: int, i: int, tag: str = "") -> str:
    return LINES[lang].format(i=i, f=f, j=f * 1000 + i) + tag


def write_corpus(folder: Path, files_per_language: int, lines_per_file: int, tag: str = "") -> list[Path]:
    """`files_per_language` markdown files per language, each line its own paragraph (about one chunk each)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for lang in LINES:
        for f in range(files_per_language):
            body = "\n\n".join(line(lang, f, i, tag) for i in range(lines_per_file))
            path = folder / f"{lang}-{f}{tag and '-' + tag}.md"
            path.write_text(f"# {lang} {f}\n\n{body}\n", encoding="utf-8")
            written.append(path)
    return written


def small_chunk_config(store: str = "local", units: bool = False) -> Config:
    """One line, one chunk: recursive chunking at 60 characters, the line alone embedded (no section prefix), no
    entity extraction (not what is measured); the unit vectors left to asks unless `units` (then embedded at ingest
    and by a re-embed with each batch, two embed calls a batch where the tests count one)."""
    config = Config(store=store)
    if not units:
        config.rerank.unit_vectors = "ask"
    config.chunk.strategy = "recursive"
    config.chunk.max_chars = 60
    config.chunk.context = "none"
    config.ingest.entities = "none"
    return config
