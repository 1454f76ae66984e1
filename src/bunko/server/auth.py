"""API keys and who may see what: roles, access groups, and the key file of a collection.

Keys live in ``<collection>/server.db`` (SQLite), hashed with SHA-256: a key is
32 random bytes, so a fast hash is as safe as a slow one and keeps every request
cheap, while a stolen key file still yields no usable key. The plain key is
shown once, when it is created.

Access model:

- role ``reader`` searches and asks; ``editor`` also uploads and deletes;
  ``admin`` also manages keys, sees every job, trace and metric.
- ``groups`` restrict a key to documents whose ``groups`` field shares a group
  with it. ``None`` means every document. Admins always see everything.
- A document without groups is visible only to unrestricted keys: a missing
  label must not make a document public.

This module has no web dependency, so `bunko keys` works without the server extra.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bunko.errors import BunkoError

ROLES = ("reader", "editor", "admin")
KEY_PREFIX = "bk_"
SERVER_DB = "server.db"
_NAME = re.compile(r"^[\w.@-]{1,64}$")
_GROUP = re.compile(r"^[\w.@-]{1,64}$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS keys (
    name TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, role TEXT NOT NULL, groups TEXT,
    created_at REAL NOT NULL, last_used_at REAL
);
CREATE TABLE IF NOT EXISTS trace_owners (trace_id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at REAL NOT NULL);
"""


class KeyAdminError(BunkoError):
    """A key cannot be created or revoked: bad name, role or groups, or a duplicate."""


@dataclass(frozen=True)
class Principal:
    """The caller of a request, resolved from its API key (or anonymous on an open collection)."""

    name: str
    role: str
    groups: tuple[str, ...] | None = None

    def has_role(self, role: str) -> bool:
        return ROLES.index(self.role) >= ROLES.index(role)

    @property
    def unrestricted(self) -> bool:
        return self.role == "admin" or self.groups is None

    def can_see(self, doc_groups: Any) -> bool:
        """Whether a document with this ``groups`` field value is visible; mirrors `access_filter`."""
        if self.unrestricted:
            return True
        values = doc_groups if isinstance(doc_groups, list | tuple) else ([] if doc_groups is None else [doc_groups])
        return bool(set(map(str, values)) & set(self.groups or ()))

    def public(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role, "groups": list(self.groups) if self.groups is not None else None}


ANONYMOUS = Principal("anonymous", "admin", None)
"""The caller on a collection that has no keys (only allowed on a loopback address)."""


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def parse_groups(text: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``"hr, finance"`` → ``("finance", "hr")``; None or ``"*"`` → None (every document)."""
    if text is None:
        return None
    items = [g.strip() for g in (text.split(",") if isinstance(text, str) else text)]
    items = [g for g in items if g]
    if items == ["*"]:
        return None
    for group in items:
        if not _GROUP.match(group):
            raise KeyAdminError(f"bad group name {group!r}: use letters, digits, '.', '_', '-' or '@'")
    if not items:
        raise KeyAdminError("groups is empty; give at least one group, or '*' for every document")
    return tuple(sorted(set(items)))


class KeyStore:
    """The keys and trace owners of one collection, in ``<collection>/server.db``."""

    def __init__(self, collection: Path) -> None:
        self.path = collection / SERVER_DB
        new = not self.path.exists()
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        if new:
            os.chmod(self.path, 0o600)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- keys ---------------------------------------------------------------
    def create(self, name: str, role: str, groups: tuple[str, ...] | None = None) -> str:
        """Store a new key and return it in plain text: the only time it is ever visible."""
        if not _NAME.match(name):
            raise KeyAdminError(f"bad key name {name!r}: 1-64 letters, digits, '.', '_', '-' or '@'")
        if role not in ROLES:
            raise KeyAdminError(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        if role == "admin" and groups is not None:
            raise KeyAdminError("an admin sees every document; drop the groups or use role editor/reader")
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO keys (name, key_hash, role, groups, created_at) VALUES (?, ?, ?, ?, ?)",
                    (name, hash_key(key), role, None if groups is None else ",".join(groups), time.time()),
                )
            except sqlite3.IntegrityError:
                raise KeyAdminError(f"a key named {name!r} exists; revoke it first or pick another name") from None
        return key

    def revoke(self, name: str) -> bool:
        with self._lock:
            return self._db.execute("DELETE FROM keys WHERE name = ?", (name,)).rowcount > 0

    def list(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT name, role, groups, created_at, last_used_at FROM keys ORDER BY name").fetchall()
        return [
            {"name": r[0], "role": r[1], "groups": r[2].split(",") if r[2] is not None else None, "created_at": r[3], "last_used_at": r[4]}
            for r in rows
        ]

    def has_keys(self) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM keys LIMIT 1").fetchone() is not None

    def verify(self, key: str) -> Principal | None:
        """The principal of a key, or None. Lookup is by hash, so no plain key is ever compared."""
        if not key.startswith(KEY_PREFIX):
            return None
        digest = hash_key(key)
        with self._lock:
            row = self._db.execute("SELECT name, role, groups, key_hash FROM keys WHERE key_hash = ?", (digest,)).fetchone()
            if row is None or not hmac.compare_digest(row[3], digest):
                return None
            self._db.execute("UPDATE keys SET last_used_at = ? WHERE name = ?", (time.time(), row[0]))
        return Principal(row[0], row[1], tuple(row[2].split(",")) if row[2] is not None else None)

    # -- trace owners ---------------------------------------------------------
    def own_trace(self, trace_id: str, owner: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO trace_owners VALUES (?, ?, ?)", (trace_id, owner, time.time()))

    def trace_owner(self, trace_id: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT owner FROM trace_owners WHERE trace_id = ?", (trace_id,)).fetchone()
        return row[0] if row else None


def bearer_token(headers: Iterable[tuple[str, str]]) -> str | None:
    """The key from ``Authorization: Bearer …`` or ``X-API-Key``."""
    for name, value in headers:
        lower = name.lower()
        if lower == "authorization" and value[:7].lower() == "bearer ":
            return value[7:].strip() or None
        if lower == "x-api-key":
            return value.strip() or None
    return None
