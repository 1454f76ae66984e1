"""The CLI is a shell over Bunko: JSON for scripts, exit codes that tell what happened."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bunko
from bunko.cli import app


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    return CliRunner()


def _json(result) -> object:
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_ingest_search_ask_in_the_current_folder(runner: CliRunner, tmp_path: Path, samples_dir: Path) -> None:
    result = runner.invoke(app, ["ingest", str(samples_dir), "--json"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / ".bunko" / "bunko.toml").exists()
    assert all(job["status"] == "READY" for job in json.loads(result.stdout)["jobs"])

    hits = _json(runner.invoke(app, ["search", "年假有几天", "--json", "-k", "3"]))["hits"]
    assert len(hits) == 3
    assert hits[0]["source"].endswith("leave-policy-zh.md")
    assert {"chunk_id", "source", "section_path", "pages", "score", "signals"} <= set(hits[0])

    answer = _json(runner.invoke(app, ["ask", "東京23区の一般社員の宿泊費の上限はいくら？", "--json"]))
    assert not answer["abstained"] and "12,000円" in answer["text"]
    assert answer["sentences"][0]["citations"][0]["source"].endswith("travel-expense-policy-ja.md")
    assert answer["trace_id"]

    status = _json(runner.invoke(app, ["status", "--json"]))
    assert status["documents"] == 12 and status["embedder"] == "use-m3"
    docs = _json(runner.invoke(app, ["docs", "--json"]))
    source = docs[0]["source"]
    assert _json(runner.invoke(app, ["rm", source, "--json"]))["removed"] is True
    assert runner.invoke(app, ["rm", source]).exit_code == 1
    trace = _json(runner.invoke(app, ["trace", answer["trace_id"], "--json"]))
    assert trace["answer"]["text"] == answer["text"]


def test_failed_files_set_the_exit_code_and_show_in_jobs(runner: CliRunner, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("# OK\n\nFine text.\n", encoding="utf-8")
    (docs / "empty.md").write_bytes(b"")
    result = runner.invoke(app, ["ingest", "docs"])
    assert result.exit_code == 1
    jobs = _json(runner.invoke(app, ["jobs", "--failed", "--json"]))
    assert [(Path(j["source"]).name, j["error_code"]) for j in jobs] == [("empty.md", "EMPTY")]


def test_missing_collection_is_a_clear_error(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["search", "x", "--collection", str(tmp_path / "nowhere")])
    assert result.exit_code == 2
    assert "no bunko collection" in result.stderr


def test_bad_filter_json_and_unknown_field_are_errors(runner: CliRunner, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nalpha text\n", encoding="utf-8")
    runner.invoke(app, ["ingest", "docs"])
    assert runner.invoke(app, ["search", "alpha", "--where", "{oops"]).exit_code == 2
    result = runner.invoke(app, ["search", "alpha", "--where", '{"colour": "red"}'])
    assert result.exit_code == 2 and "unknown filter field 'colour'" in result.stderr


def test_console_script_runs(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "bunko", "--help"], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert result.returncode == 0 and "ingest" in result.stdout


def test_search_explain_reports_route_tokens_and_thresholds(runner: CliRunner, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faq.md").write_text("# FAQ\n\n## 接続\n\nERR_CONN_RESET はプロキシが原因です。\n", encoding="utf-8")
    runner.invoke(app, ["ingest", "docs"])
    payload = _json(runner.invoke(app, ["search", "ERR_CONN_RESET の原因", "--explain", "--json", "--source", "docs/*"]))
    assert payload["route"]["name"] == "exact"
    assert "err_conn_reset" in payload["query_tokens"]
    assert payload["thresholds"]["max_distance"] == 0.9
    assert payload["hits"][0]["signals"]["keyword"]["rank"] == 1.0
    text = runner.invoke(app, ["search", "ERR_CONN_RESET の原因", "--explain", "full", "--source", "docs/*"]).stdout
    assert "keyword: rank 1" in text and "matches the filter" in text
    assert "of the query's idf-weighted terms" in text and payload["hits"][0]["signals"]["coverage"]["score"] > 0.5


def test_search_groups_by_document_and_prefers_a_named_language(runner: CliRunner, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    pages = {
        "proxy-en.md": "# Proxy\n\n## Cause\n\nERR_CONN_RESET is caused by the proxy.\n\n## Fix\n\nSet the proxy in apt.conf to fix ERR_CONN_RESET.\n",
        "proxy-ja.md": "# プロキシ\n\n## 原因\n\nERR_CONN_RESET はプロキシが原因です。\n\n## 対処\n\nERR_CONN_RESET は apt.conf でプロキシを設定して直します。\n",
        "proxy-zh.md": "# 代理\n\n## 原因\n\nERR_CONN_RESET 是代理造成的。\n\n## 处理\n\n在 apt.conf 中设置代理即可解决 ERR_CONN_RESET。\n",
    }
    for name, text in pages.items():
        (docs / name).write_text(text, encoding="utf-8")
    assert runner.invoke(app, ["ingest", "docs"]).exit_code == 0
    grouped = _json(runner.invoke(app, ["search", "ERR_CONN_RESET", "-k", "10", "--group-by", "document", "--json"]))
    sources = [hit["source"] for hit in grouped["hits"]]
    assert len(sources) == len(set(sources)) == 3
    for language, name in (("ja", "proxy-ja.md"), ("zh", "proxy-zh.md")):
        payload = _json(runner.invoke(app, ["search", "ERR_CONN_RESET apt.conf", "--language", language, "--json"]))
        assert payload["hits"][0]["source"].endswith(name)
    refused = runner.invoke(app, ["search", "ERR_CONN_RESET", "--language", "fr"])
    assert refused.exit_code == 2 and "unknown language" in refused.stderr


def test_version_and_global_options_before_the_command(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"bunko {bunko.__version__}"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# 規程\n\n出張の宿泊費は一泊一万二千円までです。\n", encoding="utf-8")
    assert runner.invoke(app, ["-c", str(tmp_path / "kb-a"), "ingest", "docs"]).exit_code == 0
    assert (tmp_path / "kb-a" / "bunko.toml").exists() and not (tmp_path / ".bunko").exists()
    listed = _json(runner.invoke(app, ["--collection", str(tmp_path / "kb-a"), "docs", "--json"]))
    assert [d["source"] for d in listed] == ["docs/a.md"]
    # the global option wins over BUNKO_COLLECTION, the command's own option over both, and nothing leaks into later runs
    elsewhere = {"BUNKO_COLLECTION": str(tmp_path / "nowhere")}
    assert runner.invoke(app, ["-c", str(tmp_path / "kb-a"), "search", "宿泊費", "--json"], env=elsewhere).exit_code == 0
    own = runner.invoke(app, ["-c", str(tmp_path / "kb-a"), "status", "-c", str(tmp_path / "nowhere")])
    assert own.exit_code == 2 and "nowhere" in own.stderr
    assert runner.invoke(app, ["-c", str(tmp_path / "kb-a"), "jobs", "--json"]).exit_code == 0
    assert "BUNKO_COLLECTION" not in __import__("os").environ
    assert runner.invoke(app, ["status"]).exit_code == 2  # no collection in this folder: the -c above did not stick


def test_lang_is_shown_and_filters_from_the_command_line(runner: CliRunner, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "leave-ja.md").write_text("# 休暇\n\n年次有給休暇は入社半年後に十日付与されます。\n", encoding="utf-8")
    (docs / "leave-zh.md").write_text("# 休假\n\n员工入职满一年后享有五天年假。\n", encoding="utf-8")
    (docs / "leave-en.md").write_text("# Leave\n\nEmployees receive twenty days of annual leave.\n", encoding="utf-8")
    assert runner.invoke(app, ["ingest", "docs"]).exit_code == 0
    for lang in ("ja", "zh", "en"):
        hits = _json(runner.invoke(app, ["search", "年假 休暇 annual leave", "--where", json.dumps({"lang": lang}), "--json"]))["hits"]
        assert hits and {h["lang"] for h in hits} == {lang} and hits[0]["source"] == f"docs/leave-{lang}.md"
    listed = {d["source"]: (d["lang"], d["languages"]) for d in _json(runner.invoke(app, ["docs", "--json"]))}
    assert listed == {f"docs/leave-{lang}.md": (lang, {lang: 1.0}) for lang in ("en", "ja", "zh")}
    piped = runner.invoke(app, ["docs"]).stdout  # not a terminal: one document a line, tab-separated
    assert {line.split("\t")[0]: line.split("\t")[3] for line in piped.splitlines()} == {f"docs/leave-{lang}.md": lang for lang in ("en", "ja", "zh")}
    table = runner.invoke(app, ["docs"], env={"TTY_COMPATIBLE": "1"}).stdout
    assert "lang" in table and " zh " in table
    chunks = _json(runner.invoke(app, ["chunks", "docs/leave-ja.md", "--json"]))
    assert chunks["lang"] == "ja" and {c["lang"] for c in chunks["chunks"]} == {"ja"}


def test_jobs_retry_from_the_command_line(runner: CliRunner, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faq-zh.md").write_bytes(b"")
    (docs / "faq-en.md").write_text("# FAQ\n\nThe office opens at nine.\n", encoding="utf-8")
    assert runner.invoke(app, ["ingest", "docs"]).exit_code == 1
    [failed] = _json(runner.invoke(app, ["jobs", "--failed", "--json"]))
    assert failed["job_id"] in runner.invoke(app, ["jobs"]).stdout
    assert runner.invoke(app, ["jobs", "retry", "--failed"]).exit_code == 1  # still empty: fails again, exit 1
    refused = runner.invoke(app, ["jobs", "retry"])
    assert refused.exit_code == 2 and "--failed" in refused.stderr

    (docs / "faq-zh.md").write_text("# 常见问题\n\n办公室早上九点开门。\n", encoding="utf-8")
    retried = _json(runner.invoke(app, ["jobs", "retry", failed["job_id"], "--json"]))
    assert [(j["source"], j["status"]) for j in retried["jobs"]] == [("docs/faq-zh.md", "READY")]
    assert _json(runner.invoke(app, ["search", "办公室几点开门", "--json", "-k", "1"]))["hits"][0]["source"] == "docs/faq-zh.md"
    result = runner.invoke(app, ["jobs", "retry", "--failed"])
    assert result.exit_code == 0 and "0 retried" in result.stdout


def test_strict_policy_masks_search_hits_on_the_command_line(runner: CliRunner, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "contact-ja.md").write_text("# 問い合わせ\n\n経費の質問は経理部 keiri@aozora.example（電話03-1234-5678）へ。\n", encoding="utf-8")
    assert runner.invoke(app, ["ingest", "docs"]).exit_code == 0
    assert "keiri@aozora.example" in runner.invoke(app, ["search", "経理部の連絡先"]).stdout
    config = tmp_path / ".bunko" / "bunko.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('policy = "standard"', 'policy = "strict"'), encoding="utf-8")
    for args in (["search", "経理部の連絡先"], ["search", "経理部の連絡先", "--json"], ["chunks", "docs/contact-ja.md", "--text"],
                 ["tree", "docs/contact-ja.md"], ["tree", "docs/contact-ja.md", "--json"]):
        shown = runner.invoke(app, args).stdout
        assert "keiri@" not in shown and "03-1234-5678" not in shown and "［メールアドレス］" in shown, args


def _imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_cli_is_the_top_layer_with_one_console() -> None:
    """Nothing under bunko imports the CLI (no cycle to dodge with lazy imports); only cli/shared.py builds consoles."""
    package = Path(bunko.__file__).parent
    below = [p for p in package.rglob("*.py") if p.relative_to(package).parts[0] not in ("cli", "__main__.py")]
    importers = [str(p.relative_to(package)) for p in below if any(m == "bunko.cli" or m.startswith("bunko.cli.") for m in _imported_modules(p))]
    assert importers == []
    consoles = [str(p.relative_to(package)) for p in package.rglob("*.py") if "Console(" in p.read_text(encoding="utf-8")]
    assert consoles == ["cli/shared.py"]
