"""Golden sets a person can write: `bunko eval check`, "" or null for no answer, the format in --help, JSON errors.

Issue 50, item 5. The questions here are made up for these tests (ja/zh/en), in files written the way a person
writes them by hand: with mistakes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko.cli import app
from bunko.evaluate.golden import KNOWN_KEYS, check_lines, parse_lines

README = Path(__file__).resolve().parents[2] / "README.md"

VALID = [
    {"id": "ja-1", "question": "会議室の予約は何日前からできますか？", "expected_answer": "14日前", "relevant_sources": ["rooms-ja.md"]},
    {"id": "zh-1", "question": "会议室最多可以提前几天预订？", "expected_answer": ["14天", "十四天"], "tags": {"type": "table"}},
    {"id": "en-1", "question": "How far ahead can a meeting room be booked?", "relevant_pages": [2]},
    {"id": "ja-absent", "question": "社長の好きな色は？", "expected_answer": "", "tags": {"type": "absent"}},
    {"id": "zh-absent", "question": "总经理最喜欢什么颜色？", "expected_answer": None, "tags": {"type": "absent"}},
    {"id": "en-absent", "question": "What is the CEO's favourite colour?", "expected_answer": "  ", "tags": {"type": "absent"}},
]

# (line as written, the key named, a phrase of the message)
MISTAKES = [
    ('{"id": "b1", "question": "会議室は何階？", "expected_answer": "3階", "relevant_source": ["rooms-ja.md"]}', "relevant_source", "unknown key 'relevant_source'"),
    ('{"id": "b2", "question": "会议室在几楼？", "expected_answer": "3楼", "tags": {"type": "opinion"}}', "tags.type", "tags.type 'opinion' is not one of"),
    ('{"id": "b3", "question": "Which floor?", "expected_answer": "3rd floor", "tags": {"type": "absent"}}', "expected_answer", "an 'absent' question must have expected_answer"),
    ('{"id": "b4", "question": "Which floor?", "relevant_sources": ["rooms-en.md"], "tags": {"type": "absent"}}', "relevant_sources", "an 'absent' question must have no relevant_sources"),
    ('{"id": "b5", "question": "会議室の定員は？"}', "expected_answer", "nothing to measure"),
    ('{"id": "b6", "question": "会议室能坐几人？", "expected_answer": 12}', "expected_answer", "expected_answer 12 must be a string"),
    ('{"id": "b7", "question": "", "expected_answer": "x"}', "question", "question is missing or empty"),
    ('{"id": "b8", "question": "Seats?", "expected_answer": "12", "relevant_pages": ["p2"]}', "relevant_pages", 'relevant_pages entry "p2"'),
    ('{"id": "b9", "question": "Seats?", "expected_answer": "12", "draft": "yes"}', "draft", "draft must be true or false"),
    ('{"id": "ja-1", "question": "会議室の定員は何人ですか？", "expected_answer": "12人"}', "id", "id 'ja-1' is already used on line 1"),
    ('{"id": "b11", "question": "Seats?", "expected_answer": "12",}', None, "not valid JSON"),
    ('["Seats?", "12"]', None, "expected a JSON object"),
]


def _lines() -> list[str]:
    return [json.dumps(v, ensure_ascii=False) for v in VALID] + [line for line, _, _ in MISTAKES]


def test_empty_string_and_null_both_mean_no_answer() -> None:
    items = parse_lines([json.dumps(v, ensure_ascii=False) for v in VALID])
    absent = {item.id: item for item in items if item.absent}
    assert set(absent) == {"ja-absent", "zh-absent", "en-absent"}
    assert all(item.expected_answers == () for item in absent.values())
    assert {item.lang for item in absent.values()} == {"ja", "zh", "en"}
    # a question that is not absent and gives "" has no answer to match; its evidence is still measured
    (item,) = parse_lines(['{"question": "会議室は何階？", "expected_answer": "", "relevant_sources": ["rooms-ja.md"]}'])
    assert item.expected_answers == () and item.relevant_sources == ("rooms-ja.md",)


def test_every_problem_is_named_by_line_and_key() -> None:
    items, problems = check_lines(_lines(), origin="golden.jsonl")
    assert [item.id for item in items] == [v["id"] for v in VALID]
    first = len(VALID) + 1
    expected = {(first + i, key) for i, (_, key, _) in enumerate(MISTAKES)}
    assert {(p.line, p.key) for p in problems} == expected
    for problem in problems:
        _, _, phrase = MISTAKES[problem.line - first]
        assert phrase in problem.message, problem
        if problem.key is not None:
            assert problem.key in problem.message  # the message a person reads names the key too
            assert problem.key.split(".")[0] in (*KNOWN_KEYS, "relevant_source")


def test_eval_check_reports_every_problem_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_text("\n".join(_lines()) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", "check", str(path)])
    assert result.exit_code == 1, result.output
    reported = result.stdout.splitlines()
    assert len(reported) == len(MISTAKES)
    for number, (_, _, phrase) in enumerate(MISTAKES, start=len(VALID) + 1):
        assert any(line.startswith(f"{path}:{number}: ") and phrase in line for line in reported), (number, reported)
    assert f"{len(MISTAKES)} problem(s) on {len(MISTAKES)} line(s)" in result.stderr

    result = CliRunner().invoke(app, ["eval", "check", str(path), "--json"])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["valid"] is False and payload["questions"] == len(VALID)
    assert [(p["line"], p["key"]) for p in payload["problems"]] == [
        (number, key) for number, (_, key, _) in enumerate(MISTAKES, start=len(VALID) + 1)
    ]


def test_eval_check_of_a_valid_file_says_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_text("\n".join(json.dumps(v, ensure_ascii=False) for v in VALID) + "\n\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", "check", str(path)])
    assert result.exit_code == 0, result.output
    assert f"{path}: valid, 6 questions (absent 3, fact 2, table 1; en 2, ja 2, zh 2)" in result.stdout
    payload = json.loads(CliRunner().invoke(app, ["eval", "check", str(path), "--json"]).stdout)
    assert payload == {
        "file": str(path), "valid": True, "questions": 6, "drafts": 0, "types": {"absent": 3, "fact": 2, "table": 1},
        "languages": {"en": 2, "ja": 2, "zh": 2}, "problems": [],
    }


@pytest.mark.parametrize(("name", "content", "reason"), [
    ("missing.jsonl", None, "no such golden set"),
    ("latin1.jsonl", '{"question": "Café?", "expected_answer": "oui"}\n'.encode("latin-1"), "not UTF-8 text"),
    ("empty.jsonl", b"\n\n", "the golden set has no questions"),
])
def test_a_file_unreadable_exits_2_and_an_empty_one_1_saying_why_in_json_too(tmp_path: Path, name: str, content: bytes | None, reason: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    result = CliRunner().invoke(app, ["eval", "check", str(path), "--json"])
    if name == "empty.jsonl":  # readable, but nothing in it: a problem of the file, exit 1
        assert result.exit_code == 1
        assert json.loads(result.stdout)["problems"] == [{"line": None, "key": None, "message": reason}]
        return
    assert result.exit_code == 2
    payload = json.loads(result.stdout)
    assert payload["exit_code"] == 2 and reason in payload["error"] and str(path) in payload["error"]
    assert reason in result.stderr


def test_eval_run_under_json_prints_its_golden_set_errors_as_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "golden.jsonl"
    path.write_text("\n".join(_lines()) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", "run", str(path), "--samples", "--json"])
    assert result.exit_code == 2
    payload = json.loads(result.stdout)
    assert payload["exit_code"] == 2 and payload["file"] == str(path)
    assert len(payload["problems"]) == len(MISTAKES)
    assert "invalid golden set" in payload["error"]
    result = CliRunner().invoke(app, ["eval", "run", "--json"])  # a usage error, JSON too
    assert result.exit_code == 2 and "give a golden set" in json.loads(result.stdout)["error"]


@pytest.mark.parametrize("command", ["check", "run"])
def test_the_format_is_in_help(command: str) -> None:
    result = CliRunner().invoke(app, ["eval", command, "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    text = result.stdout
    for phrase in ("one JSON object per line", "expected_answer", '"" or null', "relevant_pages", "absent", "draft"):
        assert phrase in text, phrase


def test_the_readme_golden_set_is_valid_and_the_check_says_so(tmp_path: Path) -> None:
    """The README's example file (its ```jsonl block in the Evaluation section) passes `bunko eval check`."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Evaluation"):]
    block = re.search(r"```jsonl\n(.*?)```", section, re.S)
    assert block, "the README's Evaluation section shows no golden file"
    path = tmp_path / "golden.jsonl"
    path.write_text(block.group(1), encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", "check", str(path), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["valid"] and payload["questions"] >= 4 and set(payload["languages"]) == {"ja", "zh", "en"}
    assert payload["types"].get("absent", 0) >= 2
