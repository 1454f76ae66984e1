"""The router's section numbers: every form it reads holds a digit, and a question without one has none."""

from __future__ import annotations

import pytest

from bunko.retrieve.router import names_section, section_numbers


@pytest.mark.parametrize(("question", "numbers"), [
    ("What does section 1.2 say?", {"1.2"}), ("chapter 3", {"3"}), ("§4 and § 5", {"4", "5"}), ("第 1.2 节", {"1.2"}),
    ("第3章の内容", {"3"}), ("2.1 節", {"2.1"}), ("第１．２节", {"１.２"}), ("section ٣", {"٣"}),
])
def test_section_numbers_of_every_form(question: str, numbers: set[str]) -> None:
    assert section_numbers(question) == numbers


@pytest.mark.parametrize("question", ["What does the section say?", "第三章の内容", "§ of the law", "宿泊費の上限"])
def test_a_question_without_a_digit_has_no_section_number(question: str) -> None:
    assert section_numbers(question) == set()


def test_a_titled_section_is_still_named_without_a_number() -> None:
    assert names_section("the section on backups") and not names_section("宿泊費の上限")


@pytest.mark.parametrize("question", [
    "Are the pages about games kept in man section 6?", "man 手册页第 8 节收录哪些命令？", "man マニュアルページの第 1 節にはどんなコマンドが載っていますか？",
])
def test_a_manual_page_section_is_not_a_section_of_the_documents(question: str) -> None:
    assert section_numbers(question) == set()


def test_a_section_of_a_manual_is_still_a_section() -> None:
    assert section_numbers("What does the manual section 4.2 say?") == {"4.2"}
