"""Table questions in everyday wording, in en, ja and zh, on tables that share their columns.

One collection holds an English HTML report with two sections whose tables have the same columns, a Japanese
workbook with two sheets of the same columns, a Chinese HTML page with two sections of the same columns and a
Chinese CSV. The questions name neither the column nor the table by its own words: "takes up the most space",
容量, 占用空间 name a size column; "the video archives", インストーラー, 图形工具 name the table by its heading; "how
many files … altogether" is the sum of a "number of files" column. Two tables the question cannot tell apart
give no computed answer; an aggregate is never shown at 1.00: its confidence is the confidence model's, from the
rows it read and the mapping's certainty, as for any answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from openpyxl import Workbook

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.generate.confidence import FEATURES, AnswerFeatures, ConfidenceModel, load_confidence
from bunko.generate.steps.table import table_confidence
from bunko.schema import Answer
from bunko.text.numbers import find_quantities
from bunko.trace_steps import TableStep

PHOTOS = [("2019-hokkaido", 1204, 8450), ("2020-garden", 388, 2115), ("2021-wedding", 2960, 19870), ("2022-kyoto", 845, 6020)]
VIDEOS = [("2019-hokkaido-clips", 36, 41300), ("2020-school-play", 12, 18950), ("2021-wedding-film", 8, 62400),
          ("2022-kyoto-walks", 21, 27800)]
INSTALLERS = [("setup-win.exe", 5120, 84200), ("setup-mac.dmg", 2340, 91500), ("setup-linux.tar.gz", 1410, 66800)]
SOURCES = [("src-full.tar.gz", 860, 48300), ("src-docs.zip", 430, 12700), ("src-tests.zip", 120, 9950)]
NETWORK = [("curl-lite", 476, "下载工具"), ("netprobe", 1220, "网络诊断"), ("dnsview", 318, "域名查询")]
GRAPHICS = [("pixedit", 9840, "图片编辑"), ("shotgrab", 2150, "截图工具"), ("iconforge", 5610, "图标制作")]
MIRRORS = [("华北", 12, 35), ("华东", 18, 28), ("华南", 9, 41), ("西南", 5, 63)]


def html_table(header: list[str], rows: list[tuple[object, ...]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c:,}</td>" if isinstance(c, int) else f"<td>{c}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_backups(path: Path) -> None:
    header = ["archive", "number of files", "size"]
    path.write_text(
        "<html><head><title>Backup report</title></head><body><h1>Backup report</h1>"
        "<h2>Photo archives</h2><p>Archives of photographs kept on the home server, one per trip.</p>"
        + html_table(header, PHOTOS)
        + "<h2>Video archives</h2><p>Archives of home videos kept on the home server, one per event.</p>"
        + html_table(header, VIDEOS) + "</body></html>", encoding="utf-8")


def write_downloads(path: Path) -> None:
    book = Workbook()
    book.remove(book.active)
    for name, rows in (("インストーラー", INSTALLERS), ("ソースコード", SOURCES)):
        sheet = book.create_sheet(name)
        sheet.append(["ファイル名", "ダウンロード数", "サイズ"])
        for row in rows:
            sheet.append(list(row))
    book.save(path)


def write_packages(path: Path) -> None:
    header = ["软件包", "大小", "说明"]
    path.write_text(
        "<html><head><title>软件仓库</title></head><body><h1>软件仓库</h1>"
        "<h2>网络工具</h2><p>下面是仓库里常用的网络工具。</p>" + html_table(header, NETWORK)
        + "<h2>图形工具</h2><p>下面是仓库里常用的图形工具。</p>" + html_table(header, GRAPHICS)
        + "</body></html>", encoding="utf-8")


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("wording")
    docs = root / "docs"
    docs.mkdir()
    write_backups(docs / "backups.html")
    write_downloads(docs / "downloads.xlsx")
    write_packages(docs / "packages.html")
    (docs / "mirrors.csv").write_text("地区,镜像数量,平均延迟（毫秒）\n" + "".join(f"{a},{b},{c}\n" for a, b, c in MIRRORS),
                                      encoding="utf-8")
    collection = Bunko(root / "kb", embedder=embedder)
    assert collection.ingest(docs).ok
    yield collection
    collection.close()


def table_step(answer: Answer) -> TableStep:
    assert answer.trace is not None
    [step] = [s.output for s in answer.trace.steps if s.name in ("table", "table_lookup") and isinstance(s.output, TableStep)
              and s.output.outcome == "answered"]
    assert isinstance(step, TableStep)
    return step


def numbers(text: str) -> list[float]:
    return [q.value for q in find_quantities(text)]


def test_two_tables_with_the_same_columns_stay_two(kb: Bunko) -> None:
    titles = sorted(t.title.split(" > ")[-1] for t in kb.tables.catalog() if t.source == "docs/backups.html")
    assert titles == ["Photo archives", "Video archives"]


@pytest.mark.parametrize(("question", "expected", "heading"), [
    ("Which video archive takes up the most space?", "2021-wedding-film", "Video archives"),
    ("インストーラーで一番容量が大きいのはどれ？", "setup-mac.dmg", "インストーラー"),
    ("哪个图形工具占用空间最大？", "pixedit", "图形工具"),
])
def test_the_heading_chooses_between_tables_and_the_answer_names_it(kb: Bunko, question: str, expected: str, heading: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in answer.text and heading in answer.text
    step = table_step(answer)
    assert step.certainty is not None and 0.52 <= step.certainty <= 1.0
    features = answer.trace.evidence.grade.features if answer.trace else {}
    assert features["table"] == 1.0 and features["certainty"] == pytest.approx(step.certainty, abs=1e-4)
    model = ConfidenceModel.load()
    recorded = AnswerFeatures(**{name: features[name] for name in FEATURES if name in features})
    assert answer.confidence == pytest.approx(model.probability(recorded), abs=2e-3)
    assert model.threshold <= answer.confidence < 1.0


@pytest.mark.parametrize(("question", "expected"), [
    ("Which video archive takes up the most space?", "2021-wedding-film"),
    ("インストーラーで一番容量が大きいのはどれ？", "setup-mac.dmg"),
    ("哪个图形工具占用空间最大？", "pixedit"),
])
def test_a_table_answer_abstains_below_the_threshold_every_answer_is_decided_by(kb: Bunko, question: str, expected: str) -> None:
    """One probability decides every route: a computed answer is no exception. Asked again with `min_confidence` just
    above the confidence it got, it abstains, and its grade keeps the sentence it would have said."""
    answered = kb.ask(question)
    assert not answered.abstained and expected in answered.text
    configured = kb.config.answer.min_confidence
    kb.config.answer.min_confidence = min(answered.confidence + 0.01, 1.0)
    try:
        refused = kb.ask(question)
    finally:
        kb.config.answer.min_confidence = configured
    assert refused.abstained and refused.confidence == answered.confidence
    assert refused.trace is not None and refused.trace.abstain_reason == "low_confidence"
    assert refused.trace.generation.generator == "table" and expected in refused.trace.evidence.grade.quoted


def test_a_model_without_the_table_routes_features_keeps_the_mapping_formula(kb: Bunko) -> None:
    """The retrieval grade's map (``calibrated``) and the ``query_passage`` model were fitted without the table route's
    features: a table answer under them is rated by `table_confidence`, not by a model that cannot read it."""
    shipped = kb.answerer.confidence
    kb.answerer.confidence = load_confidence("calibrated")
    try:
        answer = kb.ask("Which video archive takes up the most space?")
    finally:
        kb.answerer.confidence = shipped
    features = answer.trace.evidence.grade.features if answer.trace else {}
    passages = max(features["rows_confidence"], features["retrieval_confidence"])
    assert not answer.abstained and "2021-wedding-film" in answer.text
    assert answer.confidence == table_confidence(features["mapping_certainty"], passages, aggregate=True) < 1.0


@pytest.mark.parametrize(("question", "expected"), [
    ("How many files are in the photo archives altogether?", sum(r[1] for r in PHOTOS)),
    ("ソースコードのダウンロード数を合わせるといくつ？", sum(r[1] for r in SOURCES)),
    ("所有地区的镜像加起来一共多少个？", sum(r[1] for r in MIRRORS)),
    ("网络工具的大小加起来是多少？", sum(r[1] for r in NETWORK)),
])
def test_a_number_asked_is_a_sum_of_the_column_that_holds_it(kb: Bunko, question: str, expected: int) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and any(abs(v - expected) < 0.01 for v in numbers(answer.text)), answer.text
    assert table_step(answer).operation == "sum" and answer.confidence < 1.0


def test_an_average_asked_with_how_many_is_an_average() -> None:
    from bunko.text.table_questions import table_intent
    for question in ("配布ファイルの平均容量はいくつになる？", "What is the average size, and how many are there?"):
        intent = table_intent(question)
        assert intent is not None and intent.operation == "avg"


@pytest.mark.parametrize(("question", "expected"), [
    ("How big is 2020-garden?", 2115),
    ("src-docs.zip の大きさは？", 12700),
    ("netprobe 有多大？", 1220),
    ("华东有多少个镜像？", 18),
])
def test_a_cell_named_in_everyday_words_is_read(kb: Bunko, question: str, expected: int) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in numbers(answer.text), answer.text
    assert any(c.cells for s in answer.sentences for c in s.citations)


@pytest.mark.parametrize(("question", "expected"), [
    ("What are the two largest video archives?", ["2021-wedding-film", "2019-hokkaido-clips"]),
    ("图形工具中最大的两个软件包是哪些？", ["pixedit", "iconforge"]),
])
def test_a_number_written_out_asks_for_the_top_rows(kb: Bunko, question: str, expected: list[str]) -> None:
    answer = kb.ask(question)
    assert all(name in answer.text for name in expected) and table_step(answer).operation == "top"


@pytest.mark.parametrize("question", ["Which archive is the largest?", "一番大きいファイルはどれ？", "哪个软件包最大？"])
def test_two_tables_the_question_cannot_tell_apart_give_no_computed_answer(kb: Bunko, question: str) -> None:
    answer = kb.ask(question)
    assert answer.trace is not None
    outcomes = [s.output.outcome for s in answer.trace.steps if s.name == "table" and isinstance(s.output, TableStep)]
    assert outcomes and outcomes[0].startswith("the mapping is uncertain")
    assert not any(c.cells for s in answer.sentences for c in s.citations)


@pytest.mark.parametrize(("question", "expected", "heading"), [
    ("How many video archives are there?", len(VIDEOS), "Video archives"),
    ("インストーラーは全部でいくつ？", len(INSTALLERS), "インストーラー"),
    ("图形工具一共有几个？", len(GRAPHICS), "图形工具"),
])
def test_a_table_named_by_its_heading_has_its_rows_counted(kb: Bunko, question: str, expected: int, heading: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in numbers(answer.text) and heading in answer.text, answer.text
    assert table_step(answer).operation == "count"


PLAYER_KEYS = {
    "en": ("Media player", "Media player shortcut keys", ("Action", "Key"),
           [("Play or pause", "Space"), ("Mute", "M"), ("Full screen", "F")],
           "The media player plays through up to four speakers at once."),
    "ja": ("メディアプレーヤー", "メディアプレーヤーのショートカットキー", ("操作", "キー"),
           [("再生または一時停止", "Space"), ("消音", "M"), ("全画面", "F")],
           "メディアプレーヤーは最大四台のスピーカーから同時に再生できます。"),
    "zh": ("媒体播放器", "媒体播放器快捷键", ("操作", "按键"),
           [("播放或暂停", "Space"), ("静音", "M"), ("全屏", "F")],
           "媒体播放器最多可以同时通过四个音箱播放。"),
}


@pytest.fixture(scope="module")
def player_kb(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("player")
    (root / "docs").mkdir()
    for lang, (title, heading, header, rows, intro) in PLAYER_KEYS.items():
        (root / "docs" / f"keys-{lang}.html").write_text(
            f"<html><head><title>{title}</title></head><body><h1>{title}</h1><h2>{heading}</h2><p>{intro}</p>"
            + html_table(list(header), rows) + "</body></html>", encoding="utf-8")
    collection = Bunko(root / "kb", embedder=embedder)
    assert collection.ingest(root / "docs").ok
    yield collection
    collection.close()


@pytest.mark.parametrize("question", [
    "How many speakers can the media player play through?", "メディアプレーヤーは何台のスピーカーで再生できますか？",
    "媒体播放器能同时用几个音箱播放？",
])
def test_a_question_naming_what_a_table_is_about_but_not_what_its_rows_are_counts_nothing(player_kb: Bunko, question: str) -> None:
    answer = player_kb.ask(question)
    assert answer.trace is not None
    counted = [s.output for s in answer.trace.steps if isinstance(s.output, TableStep) and s.output.outcome == "answered"]
    assert not counted, answer.text


@pytest.mark.parametrize(("question", "heading"), [
    ("How many media player shortcut keys are there?", "Media player shortcut keys"),
    ("メディアプレーヤーのショートカットキーはいくつありますか？", "メディアプレーヤーのショートカットキー"),
    ("媒体播放器快捷键一共有几个？", "媒体播放器快捷键"),
])
def test_a_question_naming_what_the_rows_are_counts_them(player_kb: Bunko, question: str, heading: str) -> None:
    answer = player_kb.ask(question)
    assert 3 in numbers(answer.text) and heading in answer.text, answer.text
    assert table_step(answer).operation == "count"


TRANSLATED = {  # one printer list in three translations; each names its columns in its own words
    "en": ("Printer list", ["Printer", "Location", "Auto-Duplex"], [("hp-east", "floor 2", "yes"), ("canon-west", "floor 5", "no")]),
    "ja": ("プリンター一覧", ["プリンター", "設置場所", "自動両面印刷"], [("hp-east", "2階", "はい"), ("canon-west", "5階", "いいえ")]),
    "zh": ("打印机列表", ["打印机", "位置", "自动双面打印"], [("hp-east", "2楼", "支持"), ("canon-west", "5楼", "不支持")]),
}


@pytest.fixture(scope="module")
def translated_kb(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("translated")
    (root / "docs").mkdir()
    for lang, (heading, header, rows) in TRANSLATED.items():
        (root / "docs" / f"printers-{lang}.html").write_text(
            f"<html><body><h1>{heading}</h1>" + html_table(header, rows) + "</body></html>", encoding="utf-8")
    collection = Bunko(root / "kb", embedder=embedder)
    assert collection.ingest(root / "docs").ok
    yield collection
    collection.close()


@pytest.mark.parametrize(("question", "expected", "source"), [
    ("打印机列表里，canon-west 的自动双面打印（Auto-Duplex）是什么？", "no", "printers-en.html"),
    ("プリンター一覧で canon-west の Auto-Duplex は？", "no", "printers-en.html"),
    ("In the printer list, what is the 自动双面打印 of canon-west?", "不支持", "printers-zh.html"),
])
def test_a_lookup_reads_the_table_that_writes_the_term_the_question_writes(
    translated_kb: Bunko, question: str, expected: str, source: str,
) -> None:
    answer = translated_kb.ask(question)
    assert not answer.abstained and expected in answer.text, answer.text
    assert table_step(answer).operation == "lookup"
    assert any(c.source.endswith(source) for s in answer.sentences for c in s.citations)
