"""Open collections for serving and run the server: the part of `bunko serve` that is not argument parsing."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bunko.config import CONFIG_FILE, Config
from bunko.embed.base import Embedder
from bunko.embed.registry import build_embedder
from bunko.engine import Bunko
from bunko.errors import CollectionError
from bunko.server.browser import BrowserPolicy
from bunko.server.collection import ServedCollection

DEFAULT_PORT = 8765


@dataclass(frozen=True)
class CollectionSpec:
    name: str
    path: Path


def collection_name(path: Path) -> str:
    """A URL-safe name: the folder's name, or its parent's for a `.bunko` folder."""
    resolved = path.resolve()
    base = resolved.parent.name if resolved.name.startswith(".") else resolved.name
    return re.sub(r"[^\w.-]", "_", base).strip("._") or "default"


def parse_spec(text: str) -> CollectionSpec:
    """``NAME=PATH`` or ``PATH``."""
    name, sep, path = text.partition("=")
    if sep and re.fullmatch(r"[\w.-]+", name):
        return CollectionSpec(name, Path(path))
    return CollectionSpec(collection_name(Path(text)), Path(text))


def open_collections(specs: Sequence[CollectionSpec], max_upload_mb: float | None = None) -> list[ServedCollection]:
    """Open every collection or none: a missing or locked one stops start-up with a message naming it.

    Collections with the same embedder settings share one loaded model.
    """
    names = [s.name for s in specs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise CollectionError(f"two collections are named {', '.join(duplicates)}; name them with --collection NAME=PATH")
    embedders: dict[str, Embedder] = {}
    opened: list[ServedCollection] = []
    try:
        for spec in specs:
            config_file = spec.path / CONFIG_FILE
            if not config_file.exists():
                raise CollectionError(
                    f"collection {spec.name!r}: {spec.path} has no {CONFIG_FILE}; create it with `bunko init -c {spec.path}` "
                    f"or `bunko ingest DOCS -c {spec.path}`"
                )
            config = Config.load(config_file)
            key = config.embed.model_dump_json()
            if key not in embedders:
                embedders[key] = build_embedder(config.embed)
            kb = Bunko(spec.path, config=config, embedder=embedders[key], create=False)
            try:
                ServedCollection.check_writable(kb)
            except CollectionError as exc:
                kb.close()
                raise CollectionError(
                    f"collection {spec.name!r} is locked: {exc}. The server ingests uploads, so start it when that writer is done"
                ) from None
            opened.append(ServedCollection(spec.name, kb, max_upload_mb))
    except BaseException:
        for served in opened:
            served.kb.close()
        raise
    return opened


def is_loopback(host: str) -> bool:
    """Whether every address `host` names is a loopback one: ``127.0.0.1``, ``::1``, ``[::1]``, ``localhost``."""
    name = host.strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    try:
        return bool(infos) and all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in infos)
    except ValueError:
        return False


def check_exposure(collections: Sequence[ServedCollection], host: str) -> None:
    """A collection without keys gives every caller admin rights: fine on loopback, refused elsewhere."""
    open_ones = [c.name for c in collections if c.open_access]
    if open_ones and not is_loopback(host):
        raise CollectionError(
            f"collection(s) {', '.join(open_ones)} have no API keys, so anyone reaching {host} would be admin; "
            f"create one first (`bunko keys create admin --role admin -c PATH`) or serve on 127.0.0.1"
        )


def run(
    collections: Sequence[ServedCollection], host: str, port: int, max_request_mb: float = 200.0, policy: BrowserPolicy | None = None
) -> None:
    """Serve until stopped; `policy` (default: loopback, `host` and the collections' ``[server]`` settings) decides
    which Host names and web origins are answered (see `browser`)."""
    import uvicorn

    from bunko.server.app import create_app

    if policy is None:
        policy = BrowserPolicy.for_collections([c.kb.config.server for c in collections], host)
    app = create_app(collections, max_request_mb=max_request_mb, policy=policy)
    uvicorn.run(app, host=host, port=port, log_level="info", timeout_graceful_shutdown=30)
