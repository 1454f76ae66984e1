"""`bunko serve` and `bunko keys`: argument parsing only; the web stack is imported when serving starts.

Key management needs no server extra, so `bunko keys create` works on a
machine that only prepares collections.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from bunko.cli.shared import (
    COLLECTION_ENV,
    CollectionOption,
    JsonOption,
    console,
    errors,
    existing_collection,
    fail,
    print_json,
    print_rows,
)
from bunko.server.auth import ROLES

keys_app = typer.Typer(help="API keys of a collection for `bunko serve` (stored hashed; a new key is shown once).", no_args_is_help=True)

RoleOption = Annotated[str, typer.Option("--role", help=f"One of {', '.join(ROLES)}.")]
GroupsOption = Annotated[
    str | None,
    typer.Option("--groups", help="Comma-separated access groups (e.g. hr,finance); omitted or '*' = every document."),
]


def _create_key(path: Path, name: str, role: str, groups: str | None, as_json: bool) -> None:
    from bunko.errors import BunkoError
    from bunko.server.auth import KeyStore, parse_groups

    store = KeyStore(path)
    try:
        parsed = parse_groups(groups)
        key = store.create(name, role, parsed)
    except BunkoError as exc:
        raise fail(str(exc)) from None
    finally:
        store.close()
    scope = ", ".join(parsed) if parsed is not None else "every document"
    if as_json:
        print_json({"name": name, "role": role, "groups": list(parsed) if parsed else None, "key": key}, compact=True)
        return
    errors.print(f"created {role} key {escape(name)} for {escape(str(path))} (sees: {escape(scope)}); it is shown only now:")
    sys.stdout.write(key + "\n")


@keys_app.command("create")
def keys_create(
    name: str,
    role: RoleOption = "reader",
    groups: GroupsOption = None,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a key and print it once."""
    _create_key(existing_collection(collection), name, role, groups, as_json)


@keys_app.command("list")
def keys_list(
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Key names, roles and groups (the keys themselves are not stored)."""
    from bunko.server.auth import KeyStore

    store = KeyStore(existing_collection(collection))
    listed = store.list()
    store.close()
    if as_json:
        print_json(listed, compact=True)
        return
    print_rows(("name", "role", "groups"), [(key["name"], key["role"], ",".join(key["groups"]) if key["groups"] else "*") for key in listed])


@keys_app.command("revoke")
def keys_revoke(name: str, collection: CollectionOption = None) -> None:
    """Delete a key: requests with it are refused from now on."""
    from bunko.server.auth import KeyStore

    store = KeyStore(existing_collection(collection))
    removed = store.revoke(name)
    store.close()
    if not removed:
        raise fail(f"no key named {name}")
    console.print(f"revoked {escape(name)}")


def serve(
    collection: Annotated[
        list[str] | None,
        typer.Option("--collection", "-c", envvar=COLLECTION_ENV, help="Collection folder, or NAME=PATH; repeat to serve several."),
    ] = None,
    host: Annotated[str, typer.Option(help="Address to listen on; collections without keys are served on loopback only.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8765,
    max_upload_mb: Annotated[float | None, typer.Option(help="Per-file upload limit (default: the collection's ingest.max_file_mb).")] = None,
    max_request_mb: Annotated[float, typer.Option(help="Limit of one upload request (all its files).")] = 200.0,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option("--allowed-host", help="A Host name the server answers besides loopback and --host (repeat; '*' for any)."),
    ] = None,
    allowed_origin: Annotated[
        list[str] | None,
        typer.Option("--allowed-origin", help="A web origin (https://host[:port]) that may send POST/DELETE besides the server's own (repeat)."),
    ] = None,
    create_key: Annotated[str | None, typer.Option("--create-key", help="Create an API key with this name, print it once, and exit.")] = None,
    role: RoleOption = "reader",
    groups: GroupsOption = None,
) -> None:
    """HTTP API, OpenAI-compatible /v1/chat/completions and a web page, over one or more collections."""
    from bunko.errors import BunkoError
    from bunko.server.browser import BrowserPolicy
    from bunko.server.serve import CollectionSpec, check_exposure, collection_name, open_collections, parse_spec, run

    specs = [parse_spec(text) for text in collection] if collection else []
    if not specs:
        path = existing_collection(None)
        specs = [CollectionSpec(collection_name(path), path)]
    if create_key is not None:
        if len(specs) != 1:
            raise fail("--create-key needs exactly one --collection")
        _create_key(specs[0].path, create_key, role, groups, as_json=False)
        return
    try:
        served = open_collections(specs, max_upload_mb)
        check_exposure(served, host)
        policy = BrowserPolicy.for_collections([c.kb.config.server for c in served], host, allowed_host or (), allowed_origin or ())
    except BunkoError as exc:
        raise fail(str(exc)) from None
    for item in served:
        access = "API keys required" if not item.open_access else "NO KEYS: anyone on this machine is admin (create one: bunko keys create)"
        errors.print(f"collection [bold]{escape(item.name)}[/bold] = {escape(str(item.kb.path))} — {access}")
    errors.print(f"web page http://{host}:{port}/ · API docs /docs · OpenAI base URL http://{host}:{port}/v1")
    run(served, host, port, max_request_mb, policy)
