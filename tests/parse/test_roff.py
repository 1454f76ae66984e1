"""Manual pages in roff (man and mdoc macros, tbl tables), plain and gzip-compressed, in en/ja/zh: read as headings,
option lists whose items keep their tag, tables and code, and answered from."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.errors import DocumentError
from bunko.parse.limits import ParseLimits, applied
from bunko.parse.registry import default_registry
from bunko.schema import ElementKind, ErrorCode, ParsedDocument

EN_PAGE = r""".\" Copyright: a test page written for bunko's tests
.TH PACKSYNC 1 "2026-01-01" "packsync 2.0" "User Commands"
.SH NAME
packsync \- copy files between hosts with checksums
.SH SYNOPSIS
.B packsync
[\fIOPTIONS\fR] \fISOURCE\fR \fIDEST\fR
.SH DESCRIPTION
.B packsync
copies files and verifies each with a SHA\-256 checksum \(em even over slow links.
.SH OPTIONS
.TP
.BR \-r ", " \-\-retries =\fIN\fR
Retry a failed transfer \fIN\fR times (default 4).
.TP
.B \-q
Print nothing but errors.
.SH LIMITS
.TS
tab(;);
l l.
Plan;Transfers per day
_
Free;120
Team;T{
9000, shared by the team
T}
.TE
.SH EXAMPLE
.EX
packsync \-r 2 notes/ backup:/srv/notes
.EE
.SH FILES
.TP
.I /etc/packsync.conf
The system\-wide configuration file.
"""

JA_PAGE = r""".TH KAGAMI 8 "2026-01-01" "kagami 1.0" "システム管理コマンド"
.SH 名前
kagami \- ディレクトリをミラーサーバーへ同期する
.SH 説明
.B kagami
は毎晩 3 時にミラーサーバーへ同期します。
.SH オプション
.TP
.B \-n
実際には転送せず、転送するファイルの一覧だけを表示する。
.TP
.BI \-b " 帯域"
転送の帯域を \fI帯域\fP KB/s に制限する（既定値は 800）。
"""

ZH_PAGE = r""".Dd January 1, 2026
.Dt XIANLIU 8
.Os
.Sh 名称
.Nm xianliu
.Nd 限制网络流量的守护进程
.Sh 描述
.Nm
守护进程默认监听 6060 端口。
.Bl -tag -width Ds
.It Fl f
不转入后台运行，把日志写到标准错误。
.It Fl l Ar 速率
把每个连接的速率限制为
.Ar 速率
千字节每秒。
.El
.Sh 文件
.Bl -tag -width Ds
.It Pa /etc/xianliu.conf
启动时读取的配置文件。
.El
"""


def _parse(path: Path) -> ParsedDocument:
    parser, mime = default_registry().parser_for(path, path.name)
    return parser.parse(path, path.name, mime)


def _write(folder: Path, name: str, text: str, gzipped: bool = False) -> Path:
    path = folder / name
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if gzipped else data)
    return path


@pytest.mark.parametrize("gzipped", [False, True])
def test_an_english_man_page_becomes_headings_options_table_and_code(tmp_path: Path, gzipped: bool) -> None:
    doc = _parse(_write(tmp_path, "packsync.1" + (".gz" if gzipped else ""), EN_PAGE, gzipped))
    assert doc.title == "PACKSYNC(1)"
    headings = [e.text for e in doc.elements if e.kind == ElementKind.HEADING]
    assert headings == ["PACKSYNC(1)", "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "LIMITS", "EXAMPLE", "FILES"]
    lists = [e for e in doc.elements if e.kind == ElementKind.LIST]
    assert lists[0].text.splitlines() == ["-r, --retries=N: Retry a failed transfer N times (default 4).", "-q: Print nothing but errors."]
    assert lists[0].section_path[-1] == "OPTIONS"
    assert lists[1].text == "/etc/packsync.conf: The system-wide configuration file."
    table = next(e for e in doc.elements if e.kind == ElementKind.TABLE)
    assert table.meta["cells"] == {"header": ["Plan", "Transfers per day"], "rows": [["Free", "120"], ["Team", "9000, shared by the team"]]}
    code = next(e for e in doc.elements if e.kind == ElementKind.CODE)
    assert "packsync -r 2 notes/ backup:/srv/notes" in code.text
    description = next(e for e in doc.elements if e.section_path[-1] == "DESCRIPTION" and e.kind == ElementKind.PARAGRAPH)
    assert description.text == "packsync copies files and verifies each with a SHA-256 checksum — even over slow links."
    assert not any("\\f" in e.text or e.text.startswith(".") for e in doc.elements)


def test_a_japanese_man_page_keeps_each_option_with_its_description(tmp_path: Path) -> None:
    doc = _parse(_write(tmp_path, "kagami.8", JA_PAGE))
    items = next(e for e in doc.elements if e.kind == ElementKind.LIST)
    assert items.section_path[-1] == "オプション"
    assert items.text.splitlines() == ["-n: 実際には転送せず、転送するファイルの一覧だけを表示する。", "-b 帯域: 転送の帯域を 帯域 KB/s に制限する（既定値は 800）。"]


def test_a_chinese_mdoc_page_renders_flags_arguments_and_paths(tmp_path: Path) -> None:
    doc = _parse(_write(tmp_path, "xianliu.8.gz", ZH_PAGE, gzipped=True))
    assert doc.title == "XIANLIU(8)"
    lists = [e.text for e in doc.elements if e.kind == ElementKind.LIST]
    assert lists == ["-f: 不转入后台运行，把日志写到标准错误。\n-l 速率: 把每个连接的速率限制为 速率 千字节每秒。", "/etc/xianliu.conf: 启动时读取的配置文件。"]
    name = next(e.text for e in doc.elements if e.section_path[-1:] == ["名称"] and e.kind == ElementKind.PARAGRAPH)
    assert name == "xianliu — 限制网络流量的守护进程"
    assert not any(e.text.startswith(("Dd", "Os", "Bl")) for e in doc.elements)


def test_a_gzip_that_inflates_past_the_limit_fails_by_name_and_limit(tmp_path: Path) -> None:
    path = _write(tmp_path, "huge.1.gz", EN_PAGE + "A line of filler text.\n" * 200_000, gzipped=True)
    with applied(ParseLimits(max_unpacked_mb=1.0)), pytest.raises(DocumentError) as raised:
        _parse(path)
    assert raised.value.code == ErrorCode.TOO_LARGE
    assert "huge.1.gz" in str(raised.value) and "max_unpacked_mb" in str(raised.value)


def test_a_gzip_that_is_not_a_manual_page_is_still_refused_with_advice(tmp_path: Path) -> None:
    path = _write(tmp_path, "notes.txt.gz", "plain notes\n", gzipped=True)
    with pytest.raises(DocumentError) as raised:
        default_registry().parser_for(path, path.name)
    assert raised.value.code == ErrorCode.UNSUPPORTED_FORMAT and "gunzip" in str(raised.value)


def test_a_cut_gzip_manual_page_fails_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "cut.1.gz"
    path.write_bytes(gzip.compress(EN_PAGE.encode())[:40])
    with pytest.raises(DocumentError) as raised:
        _parse(path)
    assert "cut.1.gz" in str(raised.value)


def test_macro_definitions_conditionals_and_includes_print_nothing(tmp_path: Path) -> None:
    page = EN_PAGE.replace(".SH DESCRIPTION", ".de XX\n.B secret macro body\n..\n.if t .B typeset only\n.if n .B terminal text\n.so /etc/passwd\n.SH DESCRIPTION")
    doc = _parse(_write(tmp_path, "macros.1", page))
    texts = " ".join(e.text for e in doc.elements)
    assert "secret macro body" not in texts and "typeset only" not in texts and "root:" not in texts
    assert "terminal text" in texts


@pytest.mark.parametrize(("name", "page", "question", "expected"), [
    ("packsync.1", EN_PAGE, "Which packsync option makes it print nothing but errors?", "-q"),
    ("kagami.8", JA_PAGE, "kagami で実際には転送せずに一覧だけ表示するオプションは？", "-n"),
    ("xianliu.8", ZH_PAGE, "xianliu 守护进程默认监听哪个端口？", "6060"),
])
def test_a_question_about_a_manual_page_is_answered_from_it(
    tmp_path: Path, embedder, name: str, page: str, question: str, expected: str,
) -> None:
    docs = tmp_path / "man"
    docs.mkdir()
    _write(docs, name + ".gz", page, gzipped=True)
    kb = Bunko(tmp_path / ".bunko", embedder=embedder)
    assert kb.ingest(docs).ok
    answer = kb.ask(question)
    kb.close()
    assert not answer.abstained and expected in answer.text
    assert answer.sentences[0].citations[0].source == f"man/{name}.gz"


def test_an_upload_of_a_gzipped_manual_page_is_queued_and_another_gzip_refused() -> None:
    from bunko.server.uploads import UploadRejected, check_type

    check_type("crontab.5.gz", {})
    check_type("kagami.8", {})
    with pytest.raises(UploadRejected) as raised:
        check_type("backup.tar.gz", {})
    assert raised.value.status == 415 and "backup.tar.gz" in raised.value.message and "gunzip" in raised.value.message
