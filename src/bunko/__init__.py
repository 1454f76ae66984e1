"""bunko: documents in, structure kept, evidence found, answers cited, quality measured.

The names below are imported on first use (PEP 562), so a process that needs one corner of the package —
the parse worker (`ingest/isolation.py`) imports the parsers alone — does not pay for the engine's imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bunko.config import Config
    from bunko.engine import Bunko
    from bunko.errors import BunkoError, CollectionError, ConfigError, DocumentError, FilterError
    from bunko.generate.conversation import Turn
    from bunko.schema import Answer, Chunk, Citation, Element, Hit, IngestJob, ParsedDocument

_EXPORTS = {
    "Config": "bunko.config", "Bunko": "bunko.engine",
    "BunkoError": "bunko.errors", "CollectionError": "bunko.errors", "ConfigError": "bunko.errors",
    "DocumentError": "bunko.errors", "FilterError": "bunko.errors",
    "Answer": "bunko.schema", "Chunk": "bunko.schema", "Citation": "bunko.schema", "Element": "bunko.schema",
    "Hit": "bunko.schema", "IngestJob": "bunko.schema", "ParsedDocument": "bunko.schema", "Turn": "bunko.generate.conversation",
}
__all__ = [
    "Answer", "Bunko", "BunkoError", "Chunk", "Citation", "CollectionError", "Config", "ConfigError",
    "DocumentError", "Element", "FilterError", "Hit", "IngestJob", "ParsedDocument", "Turn",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'bunko' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
