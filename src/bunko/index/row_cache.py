"""The index rows of one generation kept beside the BM25 cache, so a new process reads none of them from SQLite.

A cold `bunko search` spent most of its own work reading every searchable chunk's id, vector and filter record from
SQLite and building a dictionary per row (0.5–0.8 s CPU at 47k chunks). The rows only change when the generation
does, so they are written once per generation as three files and read back in milliseconds:

- ``rows-G.vectors.npy``: the float32 vectors, memory-mapped read-only (pages load as the first search touches them);
- ``rows-G.cells.npy``: an int32 matrix, one row per index row and one column per record field, each cell the
  number of the field's value in the value table (−1: the row lacks the field);
- ``rows-G.json``: the chunk ids, the field names and the value table.

Plain numbers and JSON, read with ``allow_pickle=False``: a collection folder is shared, and no file in it can carry
code. Each file is replaced atomically; a file that is missing, cut, of another generation or inconsistent with the
others loads as absent, and the rows are read from SQLite again (and the cache rewritten on the index's writer
thread, `MemoryIndex._write_later`; a writer writes it at the end of its write), never searched wrong.
The filter records themselves are built as dictionaries only when a search first filters (`RowRecords`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bunko.index.atomic import replacing

FORMAT = 1
PREFIX = "rows-"


class RowRecords(Sequence[dict[str, Any]]):
    """The filter records of the index rows, with the two facts a load needs (each row's document, the field names)
    at hand without building a dictionary per row; the dictionaries are built on first use."""

    def __init__(self, doc_ids: Sequence[str], fields: set[str], build: Callable[[], list[dict[str, Any]]]) -> None:
        self.doc_ids = doc_ids
        self.fields = fields
        self._build = build
        self._records: list[dict[str, Any]] | None = None

    @classmethod
    def of(cls, records: list[dict[str, Any]]) -> RowRecords:
        made = cls([r["doc_id"] for r in records], {key for r in records for key in r}, lambda: records)
        made._records = records
        return made

    def materialised(self) -> list[dict[str, Any]]:
        if self._records is None:
            self._records = self._build()
        return self._records

    def __len__(self) -> int:
        return len(self.doc_ids)

    def __getitem__(self, index: Any) -> Any:
        return self.materialised()[index]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.materialised())


def _paths(cache_dir: Path, generation: int) -> tuple[Path, Path, Path]:
    base = f"{PREFIX}{generation}"
    return cache_dir / f"{base}.vectors.npy", cache_dir / f"{base}.cells.npy", cache_dir / f"{base}.json"


def _value_key(value: Any) -> Any:
    """A hashable key for a record value: the value itself when it can be one, else its JSON."""
    try:
        hash(value)
    except TypeError:
        return ("json", json.dumps(value, sort_keys=True, ensure_ascii=False))
    return (type(value).__name__, value)


def save(cache_dir: Path, generation: int, ids: Sequence[str], vectors: np.ndarray, records: Sequence[Mapping[str, Any]]) -> None:
    """Write the rows of `generation` and remove every other generation's; a failure to write leaves no cache."""
    fields = sorted({key for record in records for key in record})
    column = {name: number for number, name in enumerate(fields)}
    values: list[Any] = []
    numbered: dict[Any, int] = {}
    cells = np.full((len(records), len(fields)), -1, dtype=np.int32)
    for row, record in enumerate(records):
        for name, value in record.items():
            key = _value_key(value)
            number = numbered.get(key)
            if number is None:
                number = numbered[key] = len(values)
                values.append(value)
            cells[row, column[name]] = number
    vectors_path, cells_path, table_path = _paths(cache_dir, generation)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        for old in cache_dir.glob(f"{PREFIX}*"):
            if not old.name.startswith(f"{PREFIX}{generation}."):  # another process may be writing this generation's
                old.unlink(missing_ok=True)
        for path, array in ((vectors_path, np.ascontiguousarray(vectors, dtype=np.float32)), (cells_path, cells)):
            with replacing(path) as temporary, temporary.open("wb") as out:
                np.save(out, array, allow_pickle=False)
        table = {"format": FORMAT, "generation": generation, "ids": list(ids), "fields": fields, "values": values}
        with replacing(table_path) as temporary:
            temporary.write_text(json.dumps(table, ensure_ascii=False), encoding="utf-8")
    except OSError:
        pass  # a read-only collection still searches; it reads its rows from SQLite each time


def load(cache_dir: Path, generation: int) -> tuple[list[str], np.ndarray, RowRecords] | None:
    """The rows of `generation`, or None when its files are absent, damaged or disagree with each other."""
    vectors_path, cells_path, table_path = _paths(cache_dir, generation)
    if not (vectors_path.exists() and cells_path.exists() and table_path.exists()):
        return None
    try:
        table = json.loads(table_path.read_text(encoding="utf-8"))
        vectors = np.load(vectors_path, mmap_mode="r", allow_pickle=False)
        cells = np.load(cells_path, allow_pickle=False)
        ids, fields, values = table["ids"], table["fields"], table["values"]
        consistent = (
            table.get("format") == FORMAT and table.get("generation") == generation
            and isinstance(ids, list) and isinstance(fields, list) and isinstance(values, list)
            and vectors.dtype == np.float32 and vectors.ndim == 2 and vectors.shape[0] == len(ids)
            and cells.dtype == np.int32 and cells.shape == (len(ids), len(fields)) and "doc_id" in fields
            and (cells.size == 0 or (int(cells.min()) >= -1 and int(cells.max()) < len(values)))
        )
        if not consistent:
            return None
        doc_cells = cells[:, fields.index("doc_id")]
        if (doc_cells < 0).any():
            return None
        doc_ids = [values[number] for number in doc_cells.tolist()]
    except Exception:  # any damage is a missing cache: the rows are read from SQLite instead
        return None

    def build() -> list[dict[str, Any]]:
        named = list(enumerate(fields))
        return [{name: values[number] for column, name in named if (number := row[column]) >= 0} for row in cells.tolist()]

    return [str(cid) for cid in ids], vectors, RowRecords(doc_ids, set(fields), build)


def load_derived(cache_dir: Path, generation: int, name: str, rows: int) -> np.ndarray | None:
    """An array computed from the rows of `generation` (`save_derived`), or None when absent, damaged, or not of
    `rows` rows: what a first search would otherwise compute again in each new process."""
    path = cache_dir / f"{PREFIX}{generation}.{name}.npy"
    if not path.exists():
        return None
    try:
        array = np.load(path, allow_pickle=False)
    except Exception:  # a damaged file is a missing one
        return None
    return array if array.ndim >= 1 and array.shape[0] == rows and array.dtype.kind in "iuf" else None


def save_derived(cache_dir: Path, generation: int, name: str, array: np.ndarray) -> None:
    """Keep `array` beside the rows of `generation`; it goes when they do (`save` removes other generations)."""
    if not (cache_dir / f"{PREFIX}{generation}.json").exists():
        return  # rows not cached (a read-only folder): nothing to keep it beside
    try:
        with replacing(cache_dir / f"{PREFIX}{generation}.{name}.npy") as temporary, temporary.open("wb") as out:
            np.save(out, array, allow_pickle=False)
    except OSError:
        pass
