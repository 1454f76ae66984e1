"""HTML pages: main content only, headings, lists, tables, links kept as text."""

from __future__ import annotations

from pathlib import Path

import pytest

from bunko.parse.html import HtmlParser
from bunko.schema import Element

PAGES = {
    "en": ("Leave policy", "Annual leave", "Staff get twenty days of leave.", "Read the", "full rules", "Apply early", "Get approval",
           ("Years", "Days"), ("1", "10")),
    "ja": ("休暇規程", "年次休暇", "社員は年間二十日の休暇を取得できる。", "詳しくは", "規程全文", "早めに申請する", "承認を得る",
           ("勤続年数", "日数"), ("1年", "10日")),
    "zh": ("休假制度", "年假", "员工每年可享受二十天年假。", "详见", "完整制度", "提前申请", "获得批准",
           ("工龄", "天数"), ("1年", "10天")),
}


def page(lang: str) -> str:
    title, h2, para, lead, link, item1, item2, header, row = PAGES[lang]
    return f"""<!doctype html><html><head><title>{title} | Intranet</title><style>body{{color:red}}</style>
<script>var tracking = "do not index";</script></head><body>
<header><a href="/">Home</a> <a href="/hr">HR</a></header>
<nav class="menu"><ul><li>Home</li><li>Search</li></ul></nav>
<main>
  <h1>{title}</h1>
  <div class="cookie-banner">We use cookies</div>
  <h2>{h2}</h2>
  <p>{para}</p>
  <p>{lead} <a href="https://intranet.example/leave">{link}</a>.</p>
  <ol><li>{item1}<ul><li>{item2}</li></ul></li></ol>
  <table><thead><tr><th>{header[0]}</th><th>{header[1]}</th></tr></thead><tbody><tr><td>{row[0]}</td><td>{row[1]}</td></tr></tbody></table>
</main>
<aside>Related: nothing</aside>
<footer>© Example Corp</footer>
</body></html>"""


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_main_content_only_with_headings_lists_tables_and_links(tmp_path: Path, lang: str) -> None:
    title, h2, para, lead, link, item1, item2, header, row = PAGES[lang]
    path = tmp_path / f"{lang}.html"
    path.write_text(page(lang), encoding="utf-8")
    doc = HtmlParser().parse(path, path.name, "text/html")
    got = [(e.kind, e.text, e.section_path) for e in doc.elements]
    assert got == [
        ("heading", title, [title]),
        ("heading", h2, [title, h2]),
        ("paragraph", para, [title, h2]),
        ("paragraph", f"{lead} {link}.", [title, h2]),
        ("list", f"1. {item1}\n  - {item2}", [title, h2]),
        ("table", f"| {header[0]} | {header[1]} |\n|---|---|\n| {row[0]} | {row[1]} |", [title, h2]),
    ]
    assert doc.elements[3].meta["links"] == [{"text": link, "href": "https://intranet.example/leave"}]
    assert doc.elements[5].meta["cells"] == {"header": list(header), "rows": [list(row)]}
    assert doc.title == f"{title} | Intranet"
    text = "\n".join(e.text for e in doc.elements)
    for furniture in ("Home", "Search", "cookies", "tracking", "Related", "Example Corp", "color"):
        assert furniture not in text


def test_page_without_main_drops_navigation_and_reads_loose_text(tmp_path: Path) -> None:
    path = tmp_path / "plain.html"
    path.write_text("<html><body><nav>Menu</nav><div>Loose text <b>bold</b> here<p>Para</p>tail</div><footer>F</footer></body></html>", encoding="utf-8")
    doc = HtmlParser().parse(path, path.name, "text/html")
    assert [(e.kind, e.text) for e in doc.elements] == [("paragraph", "Loose text bold here"), ("paragraph", "Para"), ("paragraph", "tail")]
    assert all(e.meta["method"] == "html-dom" for e in doc.elements)


def test_role_main_marks_the_content_and_comments_are_not_text(tmp_path: Path) -> None:
    """Pins the typed rewrite of the content-root lookup (find(role=...)) and of the child filter."""
    path = tmp_path / "role.html"
    path.write_text('<html><body><div>Site banner</div><div role="main"><p>Body <!-- hidden note -->text</p>'
                    '<div class="sidebar"><a href="/side">Side</a></div></div></body></html>', encoding="utf-8")
    doc = HtmlParser().parse(path, path.name, "text/html")
    assert [(e.kind, e.text) for e in doc.elements] == [("paragraph", "Body text")]


def parsed(tmp_path: Path, html: str) -> list[Element]:
    """The elements bunko reads from a page holding `html`."""
    path = tmp_path / "page.html"
    path.write_text(html, encoding="utf-8")
    return HtmlParser().parse(path, path.name, "text/html").elements


SIDEBAR_NOTES = {
    "en": ("HARBOUR RULE Register a mooring in /etc/harbour/berths.conf",
           "Boats must not edit /etc/harbour/berths.conf themselves; they register their mooring with berth-register."),
    "ja": ("HARBOUR RULE /etc/harbour/berths.conf への係留の登録",
           "船は /etc/harbour/berths.conf を直接書き換えず、berth-register を使って係留を登録します。"),
    "zh": ("HARBOUR RULE 在 /etc/harbour/berths.conf 中登记泊位",
           "船只不能自行修改 /etc/harbour/berths.conf，而应使用 berth-register 登记其泊位。"),
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_sidebar_of_prose_is_content_and_a_sidebar_of_links_is_navigation(tmp_path: Path, lang: str) -> None:
    """A manual's sidebars (DocBook's NOTE / TIP / POLICY boxes, <aside> notes) hold facts written nowhere else; a
    site's sidebar is a list of links."""
    title, note = SIDEBAR_NOTES[lang]
    texts = [e.text for e in parsed(
        tmp_path,
        f'<html><body><div class="sidebar"><ul><li><a href="/a">Home</a></li><li><a href="/b">Index of boats</a></li></ul></div>'
        f'<div class="book"><p>berths</p><div class="sidebar"><p class="title">{title}</p><div class="para">{note}</div>'
        f'<aside class="sidebar"><p>{note}</p></aside></div>'
        f'<aside><p>{note} <a href="/berths">berths</a></p></aside>'
        f'<aside role="complementary"><a href="/related">Related pages</a></aside></div></body></html>',
    )]
    assert texts == ["berths", title, note, note, f"{note} berths"]


LINK_LISTS = {
    "en": ("9.6. The inetd Super-Server", "9.5. syslog System Events", "the rules every Debian package follows"),
    "ja": ("9.6. inetd スーパーサーバ", "9.5. syslog システムイベント", "すべての Debian パッケージが従う規則です"),
    "zh": ("9.6. inetd 超级服务器", "9.5. syslog 系统事件", "每个 Debian 软件包都遵守的规则"),
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_list_made_of_links_is_navigation_and_a_list_that_says_something_of_its_links_is_content(
    tmp_path: Path, lang: str,
) -> None:
    """A table of contents or a "Prev / Next" bar holds other pages' titles: kept, this page would be a hit for them."""
    section, previous, says = LINK_LISTS[lang]
    texts = [e.text for e in parsed(
        tmp_path,
        f'<html><body><div class="toc"><dl><dt><a href="#a">{section}</a></dt><dd><dl><dt><a href="#b">{previous}</a></dt>'
        f'</dl></dd></dl></div><p>inetd</p>'
        f'<ul><li><a href="/policy">Debian Policy</a>: {says}</li><li><a href="/devref">Developer\'s Reference</a>: {says}</li></ul>'
        f'<ul class="docnav"><li><a href="prev.html">Prev {previous}</a></li><li><a href="next.html">Next {section}</a></li></ul>'
        f'<ul><li><a href="/only">{section}</a></li></ul></body></html>',
    )]
    assert texts == ["inetd", f"- Debian Policy: {says}\n- Developer's Reference: {says}", f"- {section}"]


def test_a_ruby_reading_is_not_text_and_a_hidden_tab_panel_is(tmp_path: Path) -> None:
    """東京<rt>とうきょう</rt> is the word 東京; an inactive tab's panel is hidden until chosen, not gone."""
    texts = [e.text for e in parsed(
        tmp_path,
        '<html><body><p><ruby>東京<rp>(</rp><rt>とうきょう</rt><rp>)</rp></ruby>の設定</p><p><ruby>设置<rt>shèzhì</rt></ruby>文件</p>'
        '<div role="tablist"><button role="tab">Linux</button><button role="tab">Windows</button></div>'
        '<div role="tabpanel"><p>Run apt install foo.</p></div>'
        '<div role="tabpanel" hidden="hidden"><p>Run winget install foo.</p></div>'
        '<div hidden="hidden"><p>Draft text</p></div><p>Tip<span aria-hidden="true">¶</span></p></body></html>',
    )]
    assert texts == ["東京の設定", "设置文件", "Run apt install foo.", "Run winget install foo.", "Tip"]


DOCBOOK_NOTES = {
    "en": ("Chapter 1. GNU/Linux tutorials", "Chapter 2. Debian package management", "Never share the root password."),
    "ja": ("第1章 GNU/Linux チュートリアル", "第2章 Debian パッケージ管理", "root のパスワードを共有してはいけません。"),
    "zh": ("第 1 章 GNU/Linux 教程", "第 2 章 Debian 软件包管理", "不要共享 root 密码。"),
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_docbook_navigation_tables_are_dropped_and_its_note_tables_are_prose(tmp_path: Path, lang: str) -> None:
    """DocBook lays out its Prev / Home / Next bars and its admonitions (icon, "Warning", the text) as tables: the
    first are furniture (their text is the next chapter's title), the second a sentence of the chapter."""
    chapter, following, warning = DOCBOOK_NOTES[lang]
    elements = parsed(
        tmp_path,
        f'<html><body><div class="navheader"><table summary="Navigation header"><tr><th colspan="3">{chapter}</th></tr>'
        f'<tr><td><a href="pr01.html"><img src="prev.png" alt="Prev"/></a></td><td><a href="ch02.html">'
        f'<img src="next.png" alt="Next"/></a></td></tr></table></div>'
        f'<div class="chapter"><h1>{chapter}</h1><div class="warning"><table border="0" summary="Warning">'
        f'<tr><td rowspan="2"><img alt="[Warning]" src="warning.png"/></td><th>Warning</th></tr>'
        f'<tr><td><p>{warning}</p></td></tr></table></div>'
        f'<table role="presentation"><tr><td><p>{warning}</p></td><td><p>{following}</p></td></tr></table>'
        f'<table><tr><th>package</th><th>size</th></tr><tr><td>mc</td><td>1493</td></tr></table></div>'
        f'<div class="navfooter"><table summary="Navigation footer"><tr><td>Preface</td><td><a href="index.html">Home</a></td>'
        f'<td>{following}</td></tr></table></div></body></html>',
    )
    assert [(e.kind, e.text) for e in elements] == [
        ("heading", chapter), ("paragraph", "Warning"), ("paragraph", warning), ("paragraph", warning),
        ("paragraph", following), ("table", "| package | size |\n|---|---|\n| mc | 1493 |"),
    ]


@pytest.mark.parametrize(
    ("heading", "mark"),
    [("json — JSON encoder and decoder", "¶"), ("休暇規程の概要", "#"), ("差旅报销规定", "\u200b"), ("Release process", "§")],
)
def test_a_permalink_symbol_is_not_part_of_its_heading(tmp_path: Path, heading: str, mark: str) -> None:
    """Sphinx and MkDocs end each heading with a "¶" link to itself, Docusaurus with "#" (or a zero-width space)."""
    elements = parsed(
        tmp_path,
        f'<html><body><main><h1>{heading}<a class="headerlink" href="#top" title="Link to this heading">{mark}</a></h1>'
        f'<p>See <a href="#fn1">1</a> and <a href="#top">{heading}</a>.</p></main></body></html>',
    )
    assert [(e.kind, e.text, e.section_path) for e in elements] == [
        ("heading", heading, [heading]), ("paragraph", f"See 1 and {heading}.", [heading]),
    ]


def test_shift_jis_page_declared_by_meta_charset(tmp_path: Path) -> None:
    path = tmp_path / "sjis.html"
    html = '<html><head><meta charset="shift_jis"></head><body><p>出張旅費の規程</p></body></html>'
    path.write_bytes(html.encode("shift_jis"))
    doc = HtmlParser().parse(path, path.name, "text/html")
    assert [e.text for e in doc.elements] == ["出張旅費の規程"]
    assert doc.meta["encoding"] == "shift_jis"


def test_figure_and_its_caption_stay_together(tmp_path: Path) -> None:
    path = tmp_path / "fig.html"
    path.write_text('<body><figure><img src="flow.png" alt="Flow chart"><figcaption>Figure 1: Approval flow</figcaption></figure></body>', encoding="utf-8")
    figure, caption = HtmlParser().parse(path, path.name, "text/html").elements
    assert (figure.kind, figure.text, figure.meta["src"], figure.meta["caption"]) == ("figure", "Flow chart", "flow.png", "Figure 1: Approval flow")
    assert (caption.kind, caption.parent_id) == ("caption", figure.element_id)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("The orders are kept in\n  <code>/srv/bakery/orders</code>\n  until they are baked.",
         "The orders are kept in /srv/bakery/orders until they are baked."),
        ("注文は\n\"/srv/bakery/orders\"\nに保存され、パンが\n焼き上がるまで残ります。",
         "注文は \"/srv/bakery/orders\" に保存され、パンが焼き上がるまで残ります。"),
        ("订单保存在\n“/srv/bakery/orders”\n中，直到面包\n烤好。", "订单保存在 “/srv/bakery/orders” 中，直到面包烤好。"),
        ("First line<br>second line", "First line\nsecond line"),
    ],
)
def test_source_line_breaks_in_a_paragraph_are_spaces_and_vanish_between_cjk(tmp_path: Path, source: str, expected: str) -> None:
    """Translated manuals wrap paragraphs in the HTML source; only <br> breaks a line, as in a browser."""
    path = tmp_path / "wrapped.html"
    path.write_text(f"<html><body><main><p>{source}</p></main></body></html>", encoding="utf-8")
    doc = HtmlParser().parse(path, path.name, "text/html")
    assert [e.text for e in doc.elements] == [expected]


def test_an_xml_declared_page_is_parsed_without_a_warning(tmp_path: Path) -> None:
    """DocBook output and exported fragments start with an XML declaration; reading them as HTML is what bunko
    means to do, so bs4's XMLParsedAsHTMLWarning (once per file) is noise in an ingest's output."""
    import warnings

    page = tmp_path / "page.html"
    page.write_text(
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        "<div><h1>バックアップ</h1><p>Back up /etc daily. 每天备份。</p></div>",
        encoding="utf-8",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = HtmlParser().parse(page, "page.html", "text/html")
    assert any("每天备份" in e.text for e in doc.elements)


@pytest.mark.parametrize("title", ["Table 3.1. List of text editors", "表3.1 テキストエディターのリスト", "表 3.1. 文本编辑器列表"])
def test_a_table_title_written_before_the_table_is_its_caption(tmp_path: Path, title: str) -> None:
    """DocBook writes a table's title as a paragraph before the table's wrapper, not as a `<caption>`."""
    elements = parsed(tmp_path, f'<body><h2>Editors</h2><div class="table"><a id="t1"></a><p class="title"><b>{title}</b></p>'
                      '<div class="table-contents"><table><thead><tr><th>package</th><th>size</th></tr></thead>'
                      "<tbody><tr><td>vim</td><td>3,200</td></tr><tr><td>nano</td><td>2,900</td></tr></tbody></table></div></div>"
                      "<p>Editors are compared by size.</p><table><tr><th>key</th><th>action</th></tr>"
                      "<tr><td>i</td><td>insert</td></tr></table></body>")
    first, second = [e for e in elements if e.kind == "table"]
    assert first.meta["caption"] == title
    assert "caption" not in second.meta  # a paragraph before a table is not its title unless it reads as one
