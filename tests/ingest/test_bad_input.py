"""Each bad file fails alone with its code and reason; the good ones are indexed."""

from __future__ import annotations

from pathlib import Path

from bunko import Config
from bunko.schema import JobStatus


def test_each_bad_input_gets_its_code_and_the_rest_is_indexed(make_kb, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good-en.md").write_text("# Good\n\nThe vacation policy allows 20 days.\n", encoding="utf-8")
    (docs / "good-ja.txt").write_bytes("休暇は年間二十日です。".encode("shift_jis"))
    (docs / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    (docs / "empty.md").write_bytes(b"")
    (docs / "blank.md").write_text("   \n\n  \n", encoding="utf-8")
    (docs / "broken.txt").write_bytes(b"valid start \xff\xfe\x80\x81 broken \xc3\x28 bytes \x9d\x8f")
    (docs / "huge.md").write_text("# Big\n\n" + "x" * 1_200_000, encoding="utf-8")
    (docs / "archive.xyz").write_bytes(b"\x1f\x8b\x08\x00" + bytes(32))
    (docs / "changelog.Debian").write_text("bunko (0.2.0) unstable\n\n  * 拡張子のないテキストも内容で読みます。\n", encoding="utf-8")
    config = Config()
    config.ingest.max_file_mb = 1
    kb = make_kb(config=config)
    report = kb.ingest([docs, tmp_path / "missing-folder"])
    outcome = {Path(j.source).name: (j.status, j.error_code) for j in report.jobs}
    assert outcome == {
        "good-en.md": (JobStatus.READY, None),
        "good-ja.txt": (JobStatus.READY, None),
        "image.md": (JobStatus.FAILED, "UNSUPPORTED_FORMAT"),
        "empty.md": (JobStatus.FAILED, "EMPTY"),
        "blank.md": (JobStatus.FAILED, "EMPTY"),
        "broken.txt": (JobStatus.FAILED, "ENCODING"),
        "huge.md": (JobStatus.FAILED, "TOO_LARGE"),
        "archive.xyz": (JobStatus.FAILED, "UNSUPPORTED_FORMAT"),
        "changelog.Debian": (JobStatus.READY, None),
        "missing-folder": (JobStatus.FAILED, "NOT_FOUND"),
    }
    for job in report.failed:
        assert job.error_detail and Path(job.source).name in job.error_detail
    assert not report.ok
    assert {d.source for d in kb.documents()} == {"docs/good-en.md", "docs/good-ja.txt", "docs/changelog.Debian"}
    archive = next(j for j in report.failed if j.source.endswith("archive.xyz"))
    assert "gzip-compressed" in (archive.error_detail or "") and "decompress it" in (archive.error_detail or "")
    assert kb.search("休暇", mode="keyword")[0].chunk.source == "docs/good-ja.txt"
    assert [j.error_code for j in kb.jobs() if j.status == JobStatus.FAILED].count("EMPTY") == 2
