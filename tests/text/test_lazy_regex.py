"""Module-level patterns compile on first use and then behave as `re.compile`'s; importing the engine and the answerer
compiles none of bunko's. A union of per-language parts matches as its whole pattern in every text, English, Japanese,
Chinese and mixed, while searching an ASCII text with only the parts that can match one."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import bunko
from bunko.text.ascii_patterns import ASCII_FOLD_FREE, _needs_non_ascii_char, case_blind, needs_non_ascii
from bunko.text.lazy_regex import LazyPattern, LazyUnion, lazy_compile, lazy_union

SRC = Path(bunko.__file__).resolve().parents[1]


def test_a_lazy_pattern_compiles_on_first_use_and_matches_like_re() -> None:
    pattern = lazy_compile(r"(?P<num>\d+)\s*(円|元|yen)", re.IGNORECASE)
    assert isinstance(pattern, LazyPattern) and "_compiled" not in pattern.__dict__
    assert pattern.pattern == r"(?P<num>\d+)\s*(円|元|yen)"
    eager = re.compile(pattern.pattern, re.IGNORECASE)
    for text in ("宿泊費は12,000円まで", "婚假3天，补贴500元", "It costs 300 YEN a night", "no number"):
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in eager.finditer(text)]
        assert pattern.sub("#", text) == eager.sub("#", text)
        assert pattern.findall(text) == eager.findall(text)
    assert "_compiled" in pattern.__dict__ and pattern.groupindex == eager.groupindex and pattern.groups == 2
    assert pattern.flags == eager.flags


def test_a_bytes_pattern_stays_bytes() -> None:
    pattern = lazy_compile(rb"<meta[^>]+charset=[\"']?([\w-]+)", re.IGNORECASE)
    match = pattern.search(b'<html><META charset="shift_jis">')
    assert match is not None and match.group(1) == b"shift_jis"


_PROBE = """
import re, sys
compiled = []
original = re._compile
def counting(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "") in ("re", "re._compiler", "re._parser"):
        frame = frame.f_back
    if frame is not None and frame.f_globals.get("__name__", "").startswith("bunko"):
        compiled.append(frame.f_globals["__name__"])
    return original(pattern, flags)
re._compile = counting
import bunko.engine, bunko.generate.answerer
print(sorted(set(compiled)))
"""


def test_importing_the_engine_compiles_no_bunko_pattern() -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"compiled at import: {done.stdout.strip()}"


def _unions() -> dict[str, LazyUnion]:
    from bunko.retrieve import router
    from bunko.text import questions, table_questions

    found = {f"{module.__name__}.{name}": value for module in (router, questions, table_questions)
             for name, value in vars(module).items() if isinstance(value, LazyUnion)}
    assert len(found) >= 15
    return found


UNION_TEXTS = [
    "Which region has the highest hotel limit?", "how many packages were installed together", "the newest kernel",
    "List the rows that contain 'tmpfs' and show the average size", "Its configuration file: what is the main topic?",
    "What changed? the one that rose most", "sum of the two values", "HIGHEST", "the largest  and  the smallest",
    "最も高い地域はどこですか", "一番新しいカーネル", "哪个产品增长最多", "上位3件の合計", "平均人口はいくつ", "该工具的配置",
    "apt の設定で最大のものは", "WebSocket 连接的总数", "ſum of the hıghest", "the K value (Kelvin sign)", "",
]


@pytest.mark.parametrize("name", sorted(_unions()))
def test_a_union_matches_as_its_whole_pattern_in_every_text(name: str) -> None:
    union = _unions()[name]
    whole = re.compile(union.pattern, union.flags)
    for text in UNION_TEXTS + [text.lower() for text in UNION_TEXTS]:
        assert _found(union, text) == _found(whole, text), (name, text)
    parse = importlib.import_module("re._parser").parse
    if any(needs_non_ascii(parse(part, union.flags).data, True) for part in union.parts):  # Japanese, Chinese parts
        assert len(union.on_ascii.pattern) < len(union.pattern), name  # are left out for an ASCII text
    assert not union.on_lower_ascii.flags & re.IGNORECASE, name  # a lower-case ASCII text is searched without it


def _found(pattern: Any, text: str) -> tuple[Any, ...]:
    search, match, full = pattern.search(text), pattern.match(text), pattern.fullmatch(text)
    return (search and (search.span(), search.groups()), match and match.span(), full and full.span(),
            [m.span() for m in pattern.finditer(text)], pattern.findall(text), pattern.search(text, 3, 20) and pattern.search(text, 3, 20).span())


def test_a_part_is_left_out_only_when_every_match_of_it_needs_a_character_outside_ascii() -> None:
    parse = importlib.import_module("re._parser").parse

    def needs(pattern: str, flags: int = re.IGNORECASE) -> bool:
        return needs_non_ascii(parse(pattern, flags).data, bool(flags & re.IGNORECASE))

    assert all(needs(p) for p in ("最大", "(?:高|多)い", "[高多]+", "x最", "(?>最)", "(?:最|一番){1,3}", "[一-龥]", "é"))
    assert not any(needs(p) for p in ("最?", "[^。]", ".", r"\d最?", "(?:最|a)", "最*", "(?=最)", r"\w+", "[a-z最]"))
    assert not needs("ſ") and not needs("\u212a") and not needs("\u0130") and not needs("\u0131")  # they match s, k, i
    assert needs("ſ", 0) and needs("\u212a", 0)
    blind = [p for p in (r"\bmost\b", "[a-z]+", r"\W", "[^。x]", "最", r"(?:a|b)c{2}", "(?=x)y") if case_blind(parse(p, re.IGNORECASE).data)]
    assert len(blind) == 7
    assert not any(case_blind(parse(p, re.IGNORECASE).data) for p in ("Most", "[A-Z]", "[@-^]", "ſ", "\u212a", r"(a)\1", "[\u0100-\u0200]"))
    grouped = lazy_union((r"\bmost\b", r"(\d+)个"), re.IGNORECASE)
    assert grouped.on_ascii.pattern == grouped.pattern  # leaving the group out would renumber the groups after it


def test_no_character_from_the_fold_free_point_on_matches_an_ascii_letter_ignoring_case() -> None:
    letters = [chr(code) for code in range(128) if chr(code).isalpha()]
    others = "".join(chr(code) for code in range(128, sys.maxunicode + 1) if not 0xD800 <= code <= 0xDFFF)
    for letter in letters:
        for match in re.finditer(re.escape(letter), others, re.IGNORECASE):
            char = match.group()
            assert ord(char) < ASCII_FOLD_FREE and not _needs_non_ascii_char(ord(char), True), (letter, char)
