"""Starting the server: clear messages for missing, locked or exposed collections; `bunko keys` and `serve --create-key`."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from bunko import Bunko, CollectionError
from bunko.cli import app
from bunko.embed.use_m3 import UseM3Embedder
from bunko.server.auth import KeyStore
from bunko.server.collection import ServedCollection
from bunko.server.serve import CollectionSpec, check_exposure, collection_name, open_collections, parse_spec
from bunko.store.lock import WriterLock


def test_a_missing_collection_is_named_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(CollectionError, match=r"collection 'gone'.*bunko init"):
        open_collections([CollectionSpec("gone", tmp_path / "gone")])
    result = subprocess.run(
        [sys.executable, "-m", "bunko", "serve", "-c", str(tmp_path / "nowhere"), "--port", "0"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2 and "no bunko.toml" in result.stderr and "Traceback" not in result.stderr


def test_a_locked_collection_names_the_writer(tmp_path: Path, embedder: UseM3Embedder) -> None:
    Bunko(tmp_path / "kb", embedder=embedder).close()
    with WriterLock(tmp_path / "kb" / "write.lock"), pytest.raises(CollectionError, match=r"locked.*pid \d+"):
        open_collections([CollectionSpec("kb", tmp_path / "kb")])
    opened = open_collections([CollectionSpec("kb", tmp_path / "kb")])  # free again
    assert opened[0].name == "kb"
    opened[0].kb.close()


def test_names_and_exposure(tmp_path: Path, embedder: UseM3Embedder) -> None:
    assert collection_name(tmp_path / "proj" / ".bunko") == "proj"
    assert parse_spec("hr=/data/hr kb") == CollectionSpec("hr", Path("/data/hr kb"))
    assert parse_spec("/data/legal").name == "legal"
    with pytest.raises(CollectionError, match="named a"):
        open_collections([CollectionSpec("a", tmp_path / "x"), CollectionSpec("a", tmp_path / "y")])
    served = ServedCollection("kb", Bunko(tmp_path / "kb", embedder=embedder))
    check_exposure([served], "127.0.0.1")
    with pytest.raises(CollectionError, match="no API keys"):
        check_exposure([served], "0.0.0.0")
    served.keys.create("admin", "admin")
    check_exposure([served], "0.0.0.0")
    served.kb.close()


def test_keys_command_prints_a_key_once_and_stores_only_its_hash(tmp_path: Path, embedder: UseM3Embedder) -> None:
    Bunko(tmp_path / "kb", embedder=embedder).close()
    runner = CliRunner()
    result = runner.invoke(app, ["keys", "create", "alice", "--role", "reader", "--groups", "hr,finance", "-c", str(tmp_path / "kb")])
    assert result.exit_code == 0, result.output
    key = result.stdout.strip().splitlines()[-1]
    assert key.startswith("bk_") and "finance, hr" in result.stderr
    store = KeyStore(tmp_path / "kb")
    principal = store.verify(key)
    assert principal is not None and principal.role == "reader" and principal.groups == ("finance", "hr")
    store.close()
    assert key.encode() not in (tmp_path / "kb" / "server.db").read_bytes()

    listed = runner.invoke(app, ["keys", "list", "-c", str(tmp_path / "kb"), "--json"])
    assert '"alice"' in listed.stdout and key not in listed.stdout
    duplicate = runner.invoke(app, ["serve", "-c", str(tmp_path / "kb"), "--create-key", "alice"])
    assert duplicate.exit_code == 2 and "exists" in duplicate.stderr
    admin_groups = runner.invoke(app, ["serve", "-c", str(tmp_path / "kb"), "--create-key", "boss", "--role", "admin", "--groups", "hr"])
    assert admin_groups.exit_code == 2 and "admin sees every document" in admin_groups.stderr
    created = runner.invoke(app, ["serve", "-c", str(tmp_path / "kb"), "--create-key", "bob", "--role", "editor"])
    assert created.exit_code == 0 and created.stdout.strip().startswith("bk_") and "every document" in created.stderr
    assert runner.invoke(app, ["keys", "revoke", "alice", "-c", str(tmp_path / "kb")]).exit_code == 0
    assert runner.invoke(app, ["keys", "revoke", "alice", "-c", str(tmp_path / "kb")]).exit_code == 2


@pytest.mark.slow
def test_bunko_serve_runs_two_collections_and_stops_cleanly(tmp_path: Path, samples_dir: Path, embedder: UseM3Embedder) -> None:
    for name in ("a", "b"):
        Bunko(tmp_path / name, embedder=embedder).close()
    with socket_port() as port:
        process = subprocess.Popen(
            [sys.executable, "-m", "bunko", "serve", "-c", str(tmp_path / "a"), "-c", f"beta={tmp_path / 'b'}", "--port", str(port)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                names = httpx.get(f"http://127.0.0.1:{port}/api/collections", timeout=2).json()["collections"]
                break
            except httpx.HTTPError:
                assert process.poll() is None and time.monotonic() < deadline, process.stderr.read() if process.poll() is not None else ""
                time.sleep(0.2)
        assert [c["name"] for c in names] == ["a", "beta"]
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=60)
    assert "NO KEYS" in stderr and "OpenAI base URL" in stderr


class socket_port:
    """A free loopback port number (released before the server binds it)."""

    def __enter__(self) -> int:
        import socket

        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        return self._sock.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        self._sock.close()
