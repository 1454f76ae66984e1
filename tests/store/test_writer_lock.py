"""No stale `write.lock` (issue 50, item 12): the writer removes its lock file as it releases it, `bunko status` says
whether the lock is free, and removing the file never lets two writers in at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bunko
from bunko import Bunko
from bunko.cli import app
from bunko.store.lock import WRITE_LOCK, WriterLock, lock_state

DOCS = {
    "rooms-ja.md": "# 会議室\n\n会議室は十四日前から予約できます。\n",
    "rooms-zh.md": "# 会议室\n\n会议室可以提前十四天预订。\n",
    "rooms-en.md": "# Meeting rooms\n\nMeeting rooms can be booked fourteen days ahead.\n",
}


def _docs(folder: Path) -> Path:
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_no_lock_file_after_a_run(tmp_path: Path, embedder) -> None:
    docs = _docs(tmp_path / "docs")
    with Bunko(tmp_path / "kb", embedder=embedder) as kb:
        assert kb.ingest(docs).ok
        assert not (tmp_path / "kb" / WRITE_LOCK).exists()  # released after the ingest, not at close
        assert kb.status()["writer"] == "free"
        (docs / "rooms-en.md").unlink()
        kb.ingest(docs, prune=True)
        assert kb.delete("docs/rooms-ja.md")
    assert not (tmp_path / "kb" / WRITE_LOCK).exists()


def test_the_cli_leaves_no_lock_and_status_says_free(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    _docs(tmp_path / "docs")
    assert CliRunner().invoke(app, ["ingest", "docs"]).exit_code == 0
    assert not (tmp_path / ".bunko" / WRITE_LOCK).exists()
    status = CliRunner().invoke(app, ["status"]).stdout
    assert "writer: free" in status.splitlines()


def test_status_names_a_holder_and_clears_a_stale_file(tmp_path: Path, embedder) -> None:
    path = tmp_path / "kb"
    Bunko(path, embedder=embedder).close()
    with WriterLock(path / WRITE_LOCK):
        assert lock_state(path / WRITE_LOCK) == f"held by pid {os.getpid()}"
        assert (path / WRITE_LOCK).exists()
    assert not (path / WRITE_LOCK).exists()
    # a writer killed with -9 (or an older bunko) leaves the file unlocked: free, and removed
    (path / WRITE_LOCK).write_text("4242", encoding="utf-8")
    with Bunko(path, embedder=embedder) as kb:
        assert kb.status()["writer"] == "free"
    assert not (path / WRITE_LOCK).exists()


WRITER = """
import os, sys
from pathlib import Path
from bunko.store.lock import WriterLock

lock, inside, log, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.stdin.readline()  # every writer starts when the test says go
for _ in range(rounds):
    with WriterLock(Path(lock)):
        try:  # only one writer may be here: the marker must not exist yet
            os.close(os.open(inside, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            with open(log, "a", encoding="utf-8") as out:
                out.write("overlap\\n")
            continue
        os.unlink(inside)
"""


def test_removing_the_file_never_lets_two_writers_in(tmp_path: Path) -> None:
    """Writers in several processes take turns on one lock file that each removes as it releases it; a writer that
    waited on a removed file must not hold it beside one that created the file anew."""
    src = str(Path(bunko.__file__).resolve().parents[1])
    args = [str(tmp_path / WRITE_LOCK), str(tmp_path / "inside"), str(tmp_path / "log"), "300"]
    env = {**os.environ, "PYTHONPATH": src}
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, *args], stdin=subprocess.PIPE, env=env, text=True) for _ in range(4)
    ]
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    for writer in writers:
        assert writer.wait(timeout=240) == 0
    assert not (tmp_path / "log").exists(), (tmp_path / "log").read_text()
    assert not (tmp_path / WRITE_LOCK).exists()
