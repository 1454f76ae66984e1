"""Heading chunking: never crosses a heading, never splits a table or code block."""

from __future__ import annotations

from bunko.chunk.heading import HeadingChunker
from bunko.config import ChunkConfig
from bunko.parse.markdown import MarkdownParser
from bunko.text.sentences import split_sentences

TABLE_ROWS = "\n".join(f"| 地域{i} | {i * 1000:,}円 | 出張{i}の上限 |" for i in range(40))
DOC = f"""# 出張規程

## 宿泊費

宿泊費は実費精算とします。上限は次の表のとおりです。

| 地域 | 上限 | 備考 |
|---|---|---|
{TABLE_ROWS}

## Code

```python
def limit(region: str) -> int:
    return {{"tokyo": 12000}}.get(region, 10000)
```

## 年假

年假每年十五天。病假需要医生证明！婚假三天？ Leave requests go to HR. They answer within 2 days.
"""


def _chunks(max_chars: int = 300):
    doc = MarkdownParser().parse_text(DOC, "policy.md")
    doc.doc_id = "d1"
    return doc, HeadingChunker().chunk(doc, ChunkConfig(max_chars=max_chars))


def test_table_is_never_split_across_chunks() -> None:
    _, chunks = _chunks(max_chars=200)
    holding = [c for c in chunks if "| 地域0 |" in c.text]
    assert len(holding) == 1
    table_chunk = holding[0]
    assert all(f"| 地域{i} |" in table_chunk.text for i in range(40))
    assert table_chunk.meta.get("oversized") is True
    assert "table" in table_chunk.kinds


def test_code_block_is_never_split() -> None:
    _, chunks = _chunks(max_chars=60)
    code = [c for c in chunks if "def limit" in c.text]
    assert len(code) == 1 and code[0].text.count("```") == 2


def test_chunk_never_crosses_a_heading() -> None:
    _, chunks = _chunks(max_chars=5000)
    assert [c.section_path[-1] for c in chunks] == ["宿泊費", "Code", "年假"]
    assert all(len(c.section_path) == 2 and c.section_path[0] == "出張規程" for c in chunks)


def test_long_paragraph_splits_at_cjk_and_latin_sentence_ends() -> None:
    _, chunks = _chunks(max_chars=30)
    leave = [c.text for c in chunks if c.section_path[-1] == "年假"]
    assert leave[0] == "年假每年十五天。病假需要医生证明！婚假三天？"
    assert "".join(leave).replace(" ", "") == "年假每年十五天。病假需要医生证明！婚假三天？LeaverequestsgotoHR.Theyanswerwithin2days."


def test_ids_are_stable_and_embed_text_carries_headings() -> None:
    _, first = _chunks()
    _, second = _chunks()
    assert [c.chunk_id for c in first] == [c.chunk_id for c in second] == [f"policy.md#{i}" for i in range(len(first))]
    assert first[0].embed_text.startswith("出張規程 > 宿泊費\n")
    assert first[0].element_ids and all(e.startswith(first[0].element_ids[0].split(":")[0]) for e in first[0].element_ids)


def test_sentences_split_in_japanese_chinese_and_english() -> None:
    assert split_sentences("精算は30日以内です。承認が必要です！") == ["精算は30日以内です。", "承認が必要です！"]
    assert split_sentences("年假为5天。病假需要证明？") == ["年假为5天。", "病假需要证明？"]
    assert split_sentences("Use e.g. version 2.3.1 here. Then restart it.") == ["Use e.g. version 2.3.1 here.", "Then restart it."]
