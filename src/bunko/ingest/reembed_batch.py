"""The re-embed's batch size, alone in a module that imports nothing, so `bunko reembed --help` shows its default
without loading the ingest pipeline; `bunko.ingest.maintenance` re-exports it."""

from __future__ import annotations

REEMBED_BATCH = 64
"""Chunks embedded and committed together: what an interruption loses at most, and the progress bar's step."""
