"""`bunko graph`: stats, one entity's passages and neighbours, and an export, over a small ja/zh/en collection."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko import Bunko, Config
from bunko.cli import app
from bunko.cli.graph import GRAPHML_NS
from bunko.embed.use_m3 import UseM3Embedder

DOCS = {
    "server-ja.md": (
        "# サーバー運用\n\n## 起動\n\nサーバーを起動する前に /etc/fstab を確認してください。バックアップ手順は毎週実行します。\n\n"
        "## 停止\n\nサーバーを停止するときはバックアップ手順を先に終えてください。ログは /var/log/syslog に残ります。\n"
    ),
    "leave-zh.md": (
        "# 休假制度\n\n## 年假\n\n员工每年享有年假十天。年假申请需提前提交给人事部门。\n\n"
        "## 婚假\n\n员工结婚可享受婚假三天。婚假申请同样提交给人事部门。\n"
    ),
    "packages-en.md": (
        "# Package management\n\n## Installing\n\nInstall packages with apt-get. Each package lists its dependencies in the "
        "control file. Mount points are listed in /etc/fstab.\n\n## Removing\n\nRemove a package with apt-get remove. "
        "The package manager keeps the control file of removed packages until a purge.\n"
    ),
}


def _write_docs(folder: Path) -> Path:
    docs = folder / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    return docs


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Path:
    """One collection for the module (the commands only read it); the graph commands never load the embedder."""
    root = tmp_path_factory.mktemp("graph")
    kb = Bunko(root / ".bunko", embedder=embedder)
    report = kb.ingest(_write_docs(root))
    kb.close()
    assert not report.failed
    return root / ".bunko"


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    return CliRunner()


def _graph(collection: Path):
    kb = Bunko(collection, create=False)
    try:
        return kb.store.search().entity_graph()
    finally:
        kb.close()


def _invoke(runner: CliRunner, collection: Path, *args: str):
    return runner.invoke(app, ["graph", *args, "--collection", str(collection)])


def test_stats_lists_an_entity_of_each_language(runner: CliRunner, collection: Path) -> None:
    stats = json.loads(_invoke(runner, collection, "stats", "--json").stdout)
    graph = _graph(collection)
    assert stats["passages"] == graph.passage_count == 6
    assert stats["entities"] == sum(1 for key in graph.keys if graph.passage_frequency(key) > 0)
    assert stats["edges"] == len(list(graph.edges(1))) > 0
    assert stats["hubs"] == 0
    top = {entry["key"]: entry["passages"] for entry in stats["top_entities"]}
    assert top["サーバ"] == 2 and top["人事部门"] == 2 and top["package"] == 2 and top["/etc/fstab"] == 2

    text = _invoke(runner, collection, "stats")
    assert text.exit_code == 0, text.output
    assert "6 passages" in text.stderr  # piped: the summary beside the records, which are one entity a line
    assert all(key in text.stdout for key in ("サーバ", "人事部门", "apt-get"))
    assert {line.split("\t")[0]: int(line.split("\t")[1]) for line in text.stdout.splitlines()}["サーバ"] == 2


def test_entity_merges_spellings_and_shows_where_it_is_mentioned(runner: CliRunner, collection: Path) -> None:
    ja = json.loads(_invoke(runner, collection, "entity", "サーバ", "--json").stdout)
    assert ja["key"] == "サーバ" and ja["passages"] == 2
    assert {m["source"] for m in ja["mentions"]} == {"docs/server-ja.md"}
    assert [m["section_path"] for m in ja["mentions"]] == [["サーバー運用", "起動"], ["サーバー運用", "停止"]]
    assert all(m["mention"]["surface"] == "サーバー" and "サーバー" in m["snippet"] for m in ja["mentions"])
    assert "バックアップ手順" in {n["key"] for n in ja["neighbours"]}

    zh = json.loads(_invoke(runner, collection, "entity", "人事部门", "--json").stdout)
    assert zh["passages"] == 2 and {m["source"] for m in zh["mentions"]} == {"docs/leave-zh.md"}
    assert "员工" in {n["key"] for n in zh["neighbours"]}

    en = json.loads(_invoke(runner, collection, "entity", "Packages", "--json").stdout)
    assert en["key"] == "package" and {m["source"] for m in en["mentions"]} == {"docs/packages-en.md"}
    assert en["mentions"][0]["mention"]["surface"].lower().startswith("package")

    path = json.loads(_invoke(runner, collection, "entity", "/etc/fstab", "--json").stdout)
    assert path["key"] == "/etc/fstab"
    assert {m["source"] for m in path["mentions"]} == {"docs/server-ja.md", "docs/packages-en.md"}
    snippets = {m["source"]: m["snippet"] for m in path["mentions"]}
    assert "Mount points are listed in /etc/fstab." in snippets["docs/packages-en.md"]
    mention = path["mentions"][0]["mention"]
    assert mention["end"] - mention["start"] == len("/etc/fstab")

    limited = json.loads(_invoke(runner, collection, "entity", "/etc/fstab", "--limit", "1", "--json").stdout)
    assert limited["passages"] == 2 and len(limited["mentions"]) == 1

    text = _invoke(runner, collection, "entity", "サーバ")
    assert text.exit_code == 0, text.output
    assert "docs/server-ja.md > サーバー運用 > 起動" in text.stdout
    assert "サーバーを起動する前に" in text.stdout and "バックアップ手順" in text.stdout


def test_unknown_entity_exits_1_with_close_keys(runner: CliRunner, collection: Path) -> None:
    result = _invoke(runner, collection, "entity", "pakage")
    assert result.exit_code == 1
    assert "no entity 'pakage'" in result.stderr and "package" in result.stderr.split("close:")[1]
    assert _invoke(runner, collection, "entity", "kubernetes").exit_code == 1


def test_export_json_and_graphml_match_the_graph(runner: CliRunner, collection: Path, tmp_path: Path) -> None:
    graph = _graph(collection)
    entities = {key: graph.passages_of(key) for key in graph.keys if graph.passage_frequency(key) > 0}
    edges = {(a, b): w for a, b, w in graph.edges(1)}

    result = _invoke(runner, collection, "export", str(tmp_path / "g.json"))
    assert result.exit_code == 0 and f"wrote {len(entities)} entities and {len(edges)} edges" in result.stdout
    data = json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))
    assert {e["key"]: e["passages"] for e in data["entities"]} == entities
    assert {(e["source"], e["target"]): e["weight"] for e in data["edges"]} == edges

    result = _invoke(runner, collection, "export", str(tmp_path / "g.xml"), "--format", "graphml", "--min-shared", "2")
    assert result.exit_code == 0, result.output
    ns = {"g": GRAPHML_NS}
    root = ET.parse(tmp_path / "g.xml").getroot()
    keys = {k.get("id"): k.get("attr.name") for k in root.findall("g:key", ns)}
    assert keys == {"key": "key", "passages": "passages", "weight": "weight"}
    nodes = {}
    for node in root.findall("g:graph/g:node", ns):
        data_of = {d.get("key"): d.text for d in node.findall("g:data", ns)}
        nodes[node.get("id")] = (data_of["key"], int(data_of["passages"]))
    assert {key: count for key, count in nodes.values()} == {key: len(ids) for key, ids in entities.items()}
    exported = {}
    for edge in root.findall("g:graph/g:edge", ns):
        exported[(nodes[edge.get("source")][0], nodes[edge.get("target")][0])] = int(edge.find("g:data", ns).text)
    assert exported == {pair: w for pair, w in edges.items() if w >= 2} and exported

    assert _invoke(runner, collection, "export", str(tmp_path / "g.txt")).exit_code == 2


def test_a_graph_without_entities_says_to_reindex(runner: CliRunner, tmp_path: Path, embedder: UseM3Embedder) -> None:
    kb = Bunko(tmp_path / ".bunko", config=Config.model_validate({"ingest": {"entities": "none"}}), embedder=embedder)
    kb.ingest(_write_docs(tmp_path))
    kb.close()
    stats = _invoke(runner, tmp_path / ".bunko", "stats")
    assert stats.exit_code == 0 and "no entities" in stats.stdout and "bunko reindex" in stats.stdout
    assert json.loads(_invoke(runner, tmp_path / ".bunko", "stats", "--json").stdout)["entities"] == 0
    entity = _invoke(runner, tmp_path / ".bunko", "entity", "サーバ")
    assert entity.exit_code == 1 and "bunko reindex" in entity.stderr
