"""No test holds a question, or a question's expected answer, of a labelled evaluation set.

A test written from an evaluation question locks in a fix made for that one question, and the set's score then
measures the tests rather than the engine. Tests invent their own questions, documents and answers.

The sets: `bench/evalsets/*/questions.jsonl` (`question`, `expected_answer`), `bench/tables/*.jsonl` (`question`,
`expected`), the turns of `bench/conversations/reference.jsonl` (`question`, `expected_fact`) and
`../shared/evalsets/*/questions.jsonl` beside the repository (CI clones the repository fresh with a
copy of `shared/` beside it). When that folder is absent, as in a checkout on its own, the check still runs on the
sets inside the repository: they are the ones a test in that checkout can be copied from, and a check that failed
for a missing folder would only teach people to skip it.

What counts as held, with text compared after NFKC, lower-casing and collapsing whitespace:

* a question, whole: a file contains it, punctuation and whitespace aside (so a question split over two string
  literals is found too); questions narrower than 12 columns (a CJK character is 2) are skipped;
* a question, nearly whole: one line, or two in a row, hold 75 % of its pairs of neighbouring words (a CJK character is a
  word), for questions of at least 8 pairs: one word swapped ("regions" for "cities") is still the question;
* an expected answer beside its question. An answer alone is often a common string ("32,000", "Ctrl+F9", a path),
  so it counts only where a file contains it (answers narrower than 4 columns skipped, a Latin answer not inside a
  longer word or number) and the 10 lines either side hold 3 or more of its question's distinctive pieces: at
  least 60 % of them, or 30 % when that is 5 or more (a long question condensed). A piece is a Latin word of 4+
  letters off a small stop list (stemmed), a katakana word, or a bigram of a kanji/hanzi run split at a few
  grammar characters; pieces the answer itself says, and pieces in 10 or more of the sets' questions ("debian",
  "hotel", "人口", "ファイル"), are not distinctive.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import unicodedata
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
SHARED_EVALSETS = REPO.parent / "shared" / "evalsets"

MIN_QUESTION = 12  # columns
MIN_ANSWER = 4  # columns
NEAR_LINES = 2
NEAR_SHARE = 0.75
NEAR_MIN_PAIRS = 8
WINDOW = 10  # lines either side of an answer
MIN_PIECES = 3
SHARE = 0.6
LONG_PIECES = 5
LONG_SHARE = 0.3
COMMON = 10  # a piece in this many questions of the sets is not distinctive

STOP_WORDS = frozenset({
    "about", "also", "after", "again", "been", "before", "being", "both", "could", "does", "doing", "done", "each", "from",
    "have", "having", "here", "into", "just", "know", "like", "make", "many", "more", "most", "much", "need", "only", "other",
    "over", "same", "should", "some", "such", "tell", "than", "that", "their", "them", "then", "there", "these", "they",
    "this", "those", "under", "using", "very", "want", "were", "what", "when", "where", "which", "while", "will", "with",
    "would", "your", "yours",
})
# CJK characters that are grammar rather than content: a kanji/hanzi run is split at them
STOP_CHARS = "的了吗呢吧是在和与或及为哪什么怎样多少这那个我你他她它们请中"

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = "\u3040-\u30ff"
HAN_RUN = re.compile(f"[{_HAN}]+")
KATAKANA_WORD = re.compile("[\u30a0-\u30ff]{2,}")
CJK_CHAR = re.compile(f"[{_HAN}{_KANA}]")
WORD = re.compile(f"[{_HAN}{_KANA}]|[^\\W_{_HAN}{_KANA}]+")
LATIN_WORD = re.compile(r"[a-z\u00c0-\u024f]+")
NOT_WORD = re.compile(r"[\W_]+")
ASCII_ALNUM = re.compile(r"[0-9a-z]")
STOP_SPLIT = re.compile(f"[{STOP_CHARS}]")


def normalize(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).lower()).strip()


def _width(text: str) -> int:
    return len(text) + len(CJK_CHAR.findall(text))


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("s"):
        word = word[:-1]
    return word[:6]


def _pairs(words: Sequence[str]) -> set[str]:
    return {f"{a} {b}" for a, b in itertools.pairwise(words)}


def pieces_of(text: str) -> set[str]:
    """Content pieces: stemmed Latin words of 4+ letters off the stop list, katakana words, kanji/hanzi bigrams."""
    text = normalize(text)
    pieces = {_stem(w) for w in LATIN_WORD.findall(text) if len(w) >= 4 and w not in STOP_WORDS}
    pieces.update(KATAKANA_WORD.findall(text))
    for run in HAN_RUN.findall(text):
        for part in STOP_SPLIT.split(run):
            pieces.update(part[i : i + 2] for i in range(len(part) - 1))
    return pieces


def _present(pieces: set[str], text: str) -> set[str]:
    words = {_stem(w) for w in LATIN_WORD.findall(text)}
    return {p for p in pieces if (p in words if LATIN_WORD.fullmatch(p) else p in text)}


def answer_forms(expected: object) -> list[str]:
    """The strings an expected answer can be written as in a test."""
    if expected is None or isinstance(expected, bool):
        return []
    if isinstance(expected, str):
        return [expected]
    if isinstance(expected, int):
        return [str(expected), f"{expected:,}"]
    if isinstance(expected, float):
        if expected.is_integer():
            return answer_forms(int(expected))
        return [repr(expected), f"{expected:.2f}", f"{expected:,.2f}", f"{expected:,.0f}"]
    if isinstance(expected, dict):
        return [form for key, value in expected.items() for form in [*answer_forms(key), *answer_forms(value)]]
    if isinstance(expected, list | tuple):
        return [form for item in expected for form in answer_forms(item)]
    return [str(expected)]


@dataclass(frozen=True)
class Item:
    set_name: str
    item_id: str
    question: str
    answers: tuple[str, ...] = ()


def read_items(path: Path, set_name: str, answer_field: str) -> Iterator[Item]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            record = json.loads(line)
            answers = tuple(answer_forms(record.get(answer_field)))
            yield Item(set_name, str(record.get("id") or f"line {number}"), record.get("question") or "", answers)


def evaluation_items(repo: Path = REPO) -> list[Item]:
    items: list[Item] = []
    for path in sorted((repo / "bench" / "evalsets").glob("*/questions.jsonl")):
        items += read_items(path, f"bench/evalsets/{path.parent.name}", "expected_answer")
    for path in sorted((repo / "bench" / "tables").glob("*.jsonl")):
        items += read_items(path, f"bench/tables/{path.name}", "expected")
    for path in sorted((repo.parent / "shared" / "evalsets").glob("*/questions.jsonl")):
        items += read_items(path, f"shared/evalsets/{path.parent.name}", "expected_answer")
    items += conversation_items(repo / "bench" / "conversations" / "reference.jsonl", "bench/conversations/reference.jsonl")
    return items


def conversation_items(path: Path, set_name: str) -> Iterator[Item]:
    """Each turn of a measuring set of conversations (`turns`: `question`, `expected_fact`), an item of its own."""
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            for number, turn in enumerate(record["turns"], 1):
                yield Item(set_name, f"{record['id']} turn {number}", turn["question"], tuple(answer_forms(turn["expected_fact"])))


@dataclass
class Catalogue:
    """The labelled items, read into what a file is searched for."""

    items: Sequence[Item]
    squashed: list[str] = field(init=False)  # a question without whitespace and punctuation, "" when too short
    pairs: list[set[str]] = field(init=False)
    by_pair: dict[str, list[int]] = field(init=False)
    answers: list[dict[str, set[str]]] = field(init=False)  # answer -> its question's distinctive pieces

    def __post_init__(self) -> None:
        questions = [normalize(item.question) for item in self.items]
        long_enough = [_width(q) >= MIN_QUESTION for q in questions]
        self.squashed = [NOT_WORD.sub("", q) if ok else "" for q, ok in zip(questions, long_enough, strict=True)]
        self.pairs = [_pairs(WORD.findall(q)) if ok else set() for q, ok in zip(questions, long_enough, strict=True)]
        self.by_pair = defaultdict(list)
        for index, pairs in enumerate(self.pairs):
            if len(pairs) >= NEAR_MIN_PAIRS:
                for pair in pairs:
                    self.by_pair[pair].append(index)
        pieces = [pieces_of(q) for q in questions]
        common = {p for p, n in Counter(p for ps in pieces for p in ps).items() if n >= COMMON}
        self.answers = []
        for item, question in zip(self.items, pieces, strict=True):
            by_answer: dict[str, set[str]] = {}
            for answer in map(normalize, item.answers):
                if _width(answer) >= MIN_ANSWER and answer not in by_answer:
                    said = pieces_of(answer) | {_stem(w) for w in LATIN_WORD.findall(answer)}
                    by_answer[answer] = question - said - common
            self.answers.append({a: p for a, p in by_answer.items() if len(p) >= MIN_PIECES})


@dataclass(frozen=True)
class Hit:
    line: int
    item: Item
    what: str

    def describe(self, file: str) -> str:
        return f"{file}:{self.line}: {self.item.set_name} [{self.item.item_id}] {self.what}"


def _answer_at(line: str, answer: str) -> bool:
    """`answer` is in `line`, not as part of a longer Latin word or number."""
    start = line.find(answer)
    while start >= 0:
        end = start + len(answer)
        before, after = line[start - 1 : start], line[end : end + 1]
        glued_before = bool(ASCII_ALNUM.match(answer[0]) and ASCII_ALNUM.match(before))
        glued_after = bool(ASCII_ALNUM.match(answer[-1]) and ASCII_ALNUM.match(after))
        number_goes_on = answer[-1].isdigit() and after in {",", "."} and line[end + 1 : end + 2].isdigit()
        if not (glued_before or glued_after or number_goes_on):
            return True
        start = line.find(answer, start + 1)
    return False


def _beside(found: int, of: int) -> bool:
    return found >= MIN_PIECES and (found >= SHARE * of or (found >= LONG_PIECES and found >= LONG_SHARE * of))


def _line_of(starts: list[int], offset: int) -> int:
    """The 0-based line holding `offset`, given each line's start."""
    return bisect_right(starts, offset) - 1


def find_copies(text: str, catalogue: Catalogue) -> list[Hit]:
    """Where `text` holds an item's question, nearly or whole, or one of its answers beside its question."""
    lines = [normalize(line) for line in text.splitlines()]
    joined, starts = "\n".join(lines), [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    squashed_lines = [NOT_WORD.sub("", line) for line in lines]
    squashed, squashed_starts = "".join(squashed_lines), [0]
    for line in squashed_lines:
        squashed_starts.append(squashed_starts[-1] + len(line))
    words = [WORD.findall(line) for line in lines]
    found: dict[int, Hit] = {}

    for index, question in enumerate(catalogue.squashed):
        if question and (at := squashed.find(question)) >= 0:
            item = catalogue.items[index]
            found[index] = Hit(_line_of(squashed_starts, at) + 1, item, f"question {item.question!r}")

    for number in range(len(lines)):
        window = _pairs([w for ws in words[number : number + NEAR_LINES] for w in ws])
        counts = Counter(index for pair in window for index in catalogue.by_pair.get(pair, ()))
        for index, count in counts.items():
            share = count / len(catalogue.pairs[index])
            if index not in found and share >= NEAR_SHARE:
                item = catalogue.items[index]
                span = range(number, min(number + NEAR_LINES, len(lines)))
                best = max(span, key=lambda n: len(_pairs(words[n]) & catalogue.pairs[index]))
                what = f"question nearly: {share:.0%} of the word pairs of {item.question!r} in {lines[best][:80]!r}"
                found[index] = Hit(best + 1, item, what)

    for index, answers in enumerate(catalogue.answers):
        for answer, pieces in answers.items():
            at = joined.find(answer)
            while index not in found and at >= 0:
                number = _line_of(starts, at)
                if _answer_at(lines[number], answer):
                    near = _present(pieces, " ".join(lines[max(0, number - WINDOW) : number + WINDOW + 1]))
                    if _beside(len(near), len(pieces)):
                        what = f"answer {answer!r} beside {len(near)}/{len(pieces)} of its question's pieces {sorted(near)}"
                        found[index] = Hit(number + 1, catalogue.items[index], what)
                at = joined.find(answer, starts[number + 1])
    return sorted(found.values(), key=lambda hit: hit.line)


def _test_files() -> Iterator[Path]:
    me = Path(__file__).resolve()
    for path in sorted(TESTS.rglob("*")):
        if path.is_file() and path.resolve() != me and "__pycache__" not in path.parts:
            yield path


def _text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@functools.cache
def evaluation_catalogue() -> Catalogue:
    """Built once a session."""
    return Catalogue(evaluation_items())


# -- the matcher, on an invented set --

INVENTED = Catalogue([
    Item("invented-en", "en-1", "Which lamp oil keeps the lighthouse burning through a stormy winter night?", ("whale-oil 7",)),
    Item("invented-en", "en-2", "How many loaves does the harbour bakery bake for the summer regatta?", ("1,250",)),
    Item("invented-ja", "ja-1", "灯台守の交代は毎朝何時に行いますか？", ("午前六時",)),
    Item("invented-ja", "ja-2", "港町の図書館にある古地図の蔵書数は？", ("48,200",)),
    Item("invented-zh", "zh-1", "灯塔看守人多久更换一次灯芯？", ("每月两次",)),
    Item("invented-zh", "zh-2", "港口面包房为帆船赛烤多少个面包？", ("1,250",)),
])


def _hits(text: str) -> list[tuple[str, str]]:
    return [(hit.item.item_id, hit.what.split(":")[0].split()[0]) for hit in find_copies(text, INVENTED)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a whole question, in any case and spacing, or split over two string literals
        ('ask("which lamp oil keeps the LIGHTHOUSE  burning through a stormy winter night?")', [("en-1", "question")]),
        ('q = ("Which lamp oil keeps the lighthouse "\n     "burning through a stormy winter night?")', [("en-1", "question")]),
        ("assert kb.ask('灯台守の交代は毎朝何時に行いますか？').text", [("ja-1", "question")]),
        ("QUESTION = '灯塔看守人多久更换一次灯芯？'", [("zh-1", "question")]),
        # a question with one word swapped
        ('ask("Which lamp oil keeps the lighthouse burning through a stormy autumn night?")', [("en-1", "question")]),
        ("ask('灯台守の交代は毎晩何時に行いますか？')", [("ja-1", "question")]),
        ("ask('港口面包房为龙舟赛烤多少个面包？')", [("zh-2", "question")]),
        # the answer beside its question's pieces, reworded
        ('q = "harbour bakery: loaves for the summer regatta?"\n\n\nassert "1,250" in answer', [("en-2", "answer")]),
        ("q = '港町の図書館、古地図の蔵書数'\nassert '48,200' in a", [("ja-2", "answer")]),
        ("q = '港口面包房帆船赛烤面包数'\nassert '1,250' in a", [("zh-2", "answer")]),
    ],
)
def test_a_copy_is_caught(text: str, expected: list[tuple[str, str]]) -> None:
    assert _hits(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # the same answers beside another question
        'q = "How many rolls did the mill deliver to the county fair?"\nassert "1,250" in answer',
        "q = '山の学校の生徒数は？'\nassert '48,200' in a",
        "q = '工厂去年生产了多少台机器？'\nassert '1,250' in a",
        "q = '朝の会議は何時からですか？'\nassert '午前六時' in a",
        # a lone common answer, and an answer inside a longer number
        'TABLE = "| item | qty |\\n| bolts | 1,250 |"',
        'assert "31,250" in answer and "1,2500" not in answer  # harbour bakery summer regatta loaves',
        # the question's pieces far from the answer
        "q = 'harbour bakery loaves summer regatta'\n" + "x = 1\n" * 30 + "assert '1,250' in a",
        # paraphrases in other words, some words shared
        "assert kb.ask('What keeps a lighthouse lit when a winter storm comes?').text",
        "assert kb.ask('灯台の明かりは嵐の夜にどう保たれますか？').text",
        "assert kb.ask('港口的图书馆有多少本书？').text",
        "assert kb.ask('面包房每天烤多少个面包？').text",
    ],
)
def test_no_coincidence_is_caught(text: str) -> None:
    assert _hits(text) == []


def test_short_questions_and_answers_are_not_looked_for() -> None:
    short = Catalogue([Item("s", "1", "Who wins?", ("yes",)), Item("s", "2", "誰が勝つ？", ("彼",))])
    assert find_copies("who wins? yes 誰が勝つ？ 彼", short) == []


def test_pieces_common_to_many_questions_are_not_distinctive() -> None:
    items = [Item("c", str(i), f"What is the hotel limit for city number {i} of the list?", (f"{i + 1000}",)) for i in range(12)]
    catalogue = Catalogue([*items, Item("c", "x", "Which lighthouse keeper logs the harbour tides?", ("Ms Abernethy",))])
    assert catalogue.answers[0] == {}  # hotel, limit, city, number, list: each in 12 questions
    assert catalogue.answers[-1] == {"ms abernethy": {"lighth", "keeper", "logs", "harbou", "tide"}}


def test_expected_answers_are_read_in_the_forms_a_test_writes_them() -> None:
    assert answer_forms(49500) == ["49500", "49,500"]
    assert answer_forms(133250.0) == ["133250", "133,250"]
    assert "20,994" in answer_forms(20994.444444444445)
    assert answer_forms(["a", 12]) == ["a", "12", "12"]
    assert answer_forms({"関東": 39781185}) == ["関東", "39781185", "39,781,185"]
    assert answer_forms(None) == []


def test_the_sets_are_read() -> None:
    names = {item.set_name for item in evaluation_catalogue().items}
    assert {"bench/tables/questions.jsonl", "bench/evalsets/debian-maint-guide-qa"} <= names
    assert any(name.startswith("shared/evalsets/") for name in names) == any(SHARED_EVALSETS.glob("*/questions.jsonl"))
    assert all(item.question for item in evaluation_catalogue().items)


# -- the check --


def test_no_test_file_holds_an_evaluation_question_or_its_answer() -> None:
    catalogue = evaluation_catalogue()
    found = [
        hit.describe(str(path.relative_to(REPO)))
        for path in _test_files()
        if (text := _text(path)) is not None
        for hit in find_copies(text, catalogue)
    ]
    assert not found, "tests copy labelled evaluation items; invent examples of their own:\n" + "\n".join(found)
