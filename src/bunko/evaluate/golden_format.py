"""What `bunko eval --help` says about golden sets: their file format and the default retrieval cut-offs.

Constants alone, importing nothing, so the command line shows its help without loading the evaluation code;
`bunko.evaluate.golden` and `bunko.evaluate.metrics` re-export them.
"""

from __future__ import annotations

DEFAULT_KS = (1, 5, 10)
"""Retrieval cut-offs measured when `bunko eval run --k` is not given."""

GOLDEN_FORMAT = """A golden set is JSONL: one JSON object per line (blank lines are skipped), for example
{"id": "q01", "question": "宿泊費の上限は？", "expected_answer": "12,000円", "relevant_sources": ["travel-ja.md"]}
{"id": "q02", "question": "婚假有几天？", "expected_answer": ["3天", "三天"], "tags": {"type": "table"}}
{"id": "q03", "question": "Who is the CEO?", "expected_answer": null, "tags": {"type": "absent"}}

Keys (only question is required):
  id                  a unique string (default: line<N>)
  question            the question, in any language
  expected_answer     a string, or a list of accepted alternatives; "" or null: no answer
  relevant_sources    the documents that hold the evidence, as `bunko docs` names them
  relevant_chunk_ids  exact chunks (`bunko chunks`); the most specific relevant_* given is used
  relevant_pages      page numbers, or {"source": "a.pdf", "page": 7}
  tags                {"lang": "ja", "type": "fact"}: lang ja, zh or en (default: the question's);
                      type fact (default), table, multi-hop or absent; other tags are kept
  draft               true: skipped by `bunko eval run` unless --include-drafts
  notes               free text

A question of type absent is not answered by the documents (bunko should abstain): its expected_answer is "" or \
null and it has no relevant_*. Any other question needs an expected_answer or a relevant_* key."""
"""The golden-set format, for `--help`: typer keeps the line breaks of every paragraph after a help's first, so the
lines are laid out here as they are shown, and a paragraph to be wrapped is one line."""
