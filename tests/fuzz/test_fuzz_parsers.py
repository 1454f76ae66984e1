"""Every parser, fed mutated seeds (tests/fuzz/seeds/): a document or a coded DocumentError, never another exception,
and never a parse past the time guard. Zip-based formats also get mutations of one XML member inside a valid zip.

CI: `ci_examples` per target, the same inputs every run; BUNKO_FUZZ_PROFILE=long for a long one (fuzzing.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzzing import check_parse, fuzz_settings, mutated, seeds, zip_mutated
from hypothesis import given
from hypothesis import strategies as st

from bunko.schema import ParsedDocument

# target: seed files, zip-based, CI examples (sized so the whole file runs in about two minutes on one core)
TARGETS: dict[str, tuple[tuple[str, ...], bool, int]] = {
    "markdown": (("front-*.md",), False, 150),
    "text": (("plain-*.txt",), False, 150),
    "html": (("page-*.html",), False, 150),
    "csv": (("rows-*.csv", "rows-*.tsv"), False, 150),
    "json": (("doc-*.json", "lines-*.jsonl"), False, 150),
    "eml": (("mail-*.eml",), False, 120),
    "msg": (("mail-*.msg",), False, 100),
    "pdf": (("text-*.pdf",), False, 80),
    "docx": (("doc-*.docx",), True, 60),
    "pptx": (("deck-*.pptx",), True, 60),
    "xlsx": (("book-*.xlsx",), True, 80),
    "image": (("scan.*",), False, 100),
    "roff": (("man-*.[18]", "man-*.gz"), False, 120),
}


def _case(target: str) -> tuple[str, list[tuple[str, bytes]], bool]:
    patterns, is_zip, _ = TARGETS[target]
    return target, [(p.name, p.read_bytes()) for p in seeds(*patterns)], is_zip


def _fuzz(target: str) -> None:
    _, corpus, is_zip = _case(target)
    mutate = zip_mutated if is_zip else mutated
    strategy = st.one_of([st.tuples(st.just(name), mutate(data)) for name, data in corpus])

    @fuzz_settings(TARGETS[target][2])
    @given(strategy)
    def run(case: tuple[str, bytes]) -> None:
        name, data = case
        check_parse(target, data, name)

    run()


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_mutated_seed_parses_or_fails_with_a_code(target: str) -> None:
    _fuzz(target)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_seed_parses(target: str) -> None:
    """The seeds themselves are valid documents (else the fuzzer mutates files that never reach the parser's body)."""
    _, corpus, _ = _case(target)
    for name, data in corpus:
        result = check_parse(target, data, name)
        assert isinstance(result, ParsedDocument), (name, result)
        assert result.elements, name


def test_a_saved_finding_still_fails_as_recorded() -> None:
    """Every input under found/ is turned into an xfail(strict=True) test in test_fuzz_found.py, or fixed and removed."""
    found = Path(__file__).parent / "found"
    inputs = sorted(p.name for p in found.glob("*") if p.suffix != ".txt" and p.name != ".gitkeep")
    from test_fuzz_found import FINDINGS

    assert sorted(FINDINGS) == inputs
