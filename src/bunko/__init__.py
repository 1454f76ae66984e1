"""bunko: documents in, structure kept, evidence found, answers cited, quality measured."""

from bunko.config import Config
from bunko.engine import Bunko
from bunko.errors import BunkoError, CollectionError, ConfigError, DocumentError, FilterError
from bunko.generate.conversation import Turn
from bunko.schema import Answer, Chunk, Citation, Element, Hit, IngestJob, ParsedDocument

__all__ = [
    "Answer", "Bunko", "BunkoError", "Chunk", "Citation", "CollectionError", "Config", "ConfigError",
    "DocumentError", "Element", "FilterError", "Hit", "IngestJob", "ParsedDocument", "Turn",
]
__version__ = "0.1.0"
