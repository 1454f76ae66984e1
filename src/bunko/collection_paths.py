"""Where a collection lives on disk: the folder `bunko` looks for and the config file in it.

Constants alone, in a module that imports nothing, so the command line can find a collection (and print its help)
without importing the config models or the engine; `bunko.config` and `bunko.engine` re-export them.
"""

from __future__ import annotations

CONFIG_FILE = "bunko.toml"
"""A collection's config file, in the collection folder; its presence is what makes a folder a collection."""

DEFAULT_COLLECTION = ".bunko"
"""The collection folder a command uses when none is given: the nearest one in this folder or a parent (like git)."""
