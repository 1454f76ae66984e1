"""Retrieval reads a collection through `SearchBackend` alone: no module of `src/bunko/retrieve/` imports storage.

Storage (`store/base.py`'s protocols, the backends' packages) and search are two protocols
(docs/architecture.md), and retrieval ranks the same on every backend only while everything it
reads goes through the one protocol the search contract holds both backends to. Import-linter's
layers allow `retrieve` to import all of `bunko.store`, so this narrower rule is checked here:
from `bunko.store`, a retrieve module may import `search_backend` and the plain data records
listed in `DATA`, nothing else.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path

RETRIEVE = Path(__file__).resolve().parents[1] / "src" / "bunko" / "retrieve"

SEARCH = "bunko.store.search_backend"
DATA = {"bunko.store.copies": {"CopyRecord"}}
"""Records a search read returns, by module: data, not a way to read or write a store."""


def store_imports(path: Path) -> list[tuple[int, str, str | None]]:
    """Every import of `bunko.store` in one module (at any depth, type-checking blocks included): (line, module, name)."""
    found: list[tuple[int, str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, None) for alias in node.names if alias.name.split(".")[:2] == ["bunko", "store"]]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # a relative import inside retrieve/ resolves under bunko.retrieve
                module = ".".join(["bunko", "retrieve"][: 2 - (node.level - 1)] + ([module] if module else []))
            if module == "bunko" and any(alias.name == "store" for alias in node.names):
                found.append((node.lineno, "bunko.store", None))
            elif module.split(".")[:2] == ["bunko", "store"]:
                found += [(node.lineno, module, alias.name) for alias in node.names]
    return found


def forbidden(path: Path) -> list[str]:
    return [f"{path.name}:{line}: {module}" + (f".{name}" if name else "")
            for line, module, name in sorted(store_imports(path), key=lambda found: found[0])
            if module != SEARCH and (name is None or name not in DATA.get(module, set()))]


def test_retrieve_imports_nothing_of_the_store_but_the_search_backend() -> None:
    modules = sorted(RETRIEVE.rglob("*.py"))
    assert len(modules) > 20
    assert [bad for path in modules for bad in forbidden(path)] == []
    assert any(module == SEARCH for path in modules for _, module, _ in store_imports(path))


def test_the_records_retrieve_may_import_are_data() -> None:
    for module, names in DATA.items():
        for name in names:
            assert dataclasses.is_dataclass(getattr(importlib.import_module(module), name)), (module, name)


def test_the_check_sees_every_way_of_importing_storage(tmp_path: Path) -> None:
    """A storage protocol, a backend, the store package and the search module's neighbours all fail it."""
    module = tmp_path / "reader.py"
    module.write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "import bunko.store.local\n"
        "from bunko import store\n"
        "from bunko.store.copies import CopyRecord, regroup\n"
        "from bunko.store.search_backend import SearchBackend\n"
        "if TYPE_CHECKING:\n"
        "    from bunko.store.base import DocumentStore\n"
        "def read() -> None:\n"
        "    from bunko.store.search_fallbacks import SearchFallbacks\n"
        "from ..store.postgres import PostgresStore\n",
        encoding="utf-8",
    )
    assert forbidden(module) == [
        "reader.py:3: bunko.store.local", "reader.py:4: bunko.store", "reader.py:5: bunko.store.copies.regroup",
        "reader.py:8: bunko.store.base.DocumentStore", "reader.py:10: bunko.store.search_fallbacks.SearchFallbacks",
        "reader.py:11: bunko.store.postgres.PostgresStore",
    ]
