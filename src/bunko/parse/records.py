"""CSV, TSV, JSON and JSON Lines: each record becomes one element that names its fields.

A record is the unit people ask about ("what is the limit for Tokyo?"), so it
is kept whole with its field names in the text ("city: Tokyo") and as a dict in
meta["fields"]; meta["row"] (CSV, 1-based data row) or meta["line"] (JSONL)
or meta["index"] (JSON) points back to it.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from bunko.errors import DocumentError
from bunko.parse.base import ElementBuilder
from bunko.parse.encoding import decode, encoding_meta
from bunko.parse.limits import current as current_limits
from bunko.parse.limits import over_limit, too_deep
from bunko.schema import ElementKind, ErrorCode, ParsedDocument


def _scalar(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


def record_text(fields: dict[str, Any]) -> str:
    return "\n".join(f"{key}: {_scalar(value)}" for key, value in fields.items() if _scalar(value).strip())


class RecordsParser:
    name = "records"
    version = "1"
    mimes = ("text/csv", "text/tab-separated-values", "application/json", "application/x-ndjson")

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        decoded = decode(path.read_bytes(), source)
        text = decoded.text
        builder = ElementBuilder(source)
        meta: dict[str, Any] = encoding_meta(decoded)
        if mime in ("text/csv", "text/tab-separated-values"):
            self._csv(text, source, builder, meta, "\t" if mime == "text/tab-separated-values" else None)
        elif mime == "application/x-ndjson":
            self._jsonl(text, source, builder, meta)
        else:
            self._json(text, source, builder, meta)
        meta["records"] = len(builder.elements)
        return ParsedDocument(
            doc_id="", source=source, title=Path(source).stem, mime=mime, parser=f"{self.name}/{self.version}",
            elements=builder.elements, meta=meta,
        )

    @staticmethod
    def _csv(text: str, source: str, builder: ElementBuilder, meta: dict[str, Any], delimiter: str | None) -> None:
        sample = text[:8192]
        if delimiter is None:
            try:
                delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
            except csv.Error:
                delimiter = ","
        limit = current_limits().max_rows
        rows: list[list[str]] = []
        try:
            for row in csv.reader(io.StringIO(text), delimiter=delimiter):
                if any(c.strip() for c in row):
                    rows.append(row)
                    if len(rows) > limit + 1:  # the header is not a record
                        raise over_limit(ErrorCode.TOO_COMPLEX, source, "rows", len(rows) - 1, "max_rows", at_least=True)
        except csv.Error as exc:
            raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not valid CSV ({exc})") from None
        if not rows:
            return
        header = [h.strip() or f"column{i + 1}" for i, h in enumerate(rows[0])]
        meta.update(field_names=header, delimiter=delimiter)
        for number, row in enumerate(rows[1:], start=1):
            names = header + [f"column{i + 1}" for i in range(len(header), len(row))]
            fields = {name: value.strip() for name, value in zip(names, row, strict=False)}
            builder.add(ElementKind.RECORD, record_text(fields), meta={"method": "csv", "fields": fields, "row": number})

    @staticmethod
    def _jsonl(text: str, source: str, builder: ElementBuilder, meta: dict[str, Any]) -> None:
        names: dict[str, None] = {}
        limit = current_limits().max_rows
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            if len(builder.elements) >= limit:
                raise over_limit(ErrorCode.TOO_COMPLEX, source, "records", limit + 1, "max_rows", at_least=True)
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: line {number} is not JSON ({exc.msg})") from None
            fields = value if isinstance(value, dict) else {"value": value}
            names.update(dict.fromkeys(fields))
            builder.add(ElementKind.RECORD, record_text(fields), meta={"method": "jsonl", "fields": fields, "line": number})
        meta["field_names"] = list(names)

    @staticmethod
    def _json(text: str, source: str, builder: ElementBuilder, meta: dict[str, Any]) -> None:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        except RecursionError:
            raise too_deep(source, "the JSON") from None
        key = None
        if isinstance(data, dict):
            # {"items": [...]}: the one list of objects is the records; anything else is one record.
            lists = [k for k, v in data.items() if isinstance(v, list) and v and all(isinstance(i, dict) for i in v)]
            if len(lists) == 1:
                key = lists[0]
                data = data[key]
            else:
                data = [data]
        if not isinstance(data, list):
            data = [data]
        if len(data) > current_limits().max_rows:
            raise over_limit(ErrorCode.TOO_COMPLEX, source, "records", len(data), "max_rows")
        names: dict[str, None] = {}
        for index, value in enumerate(data):
            fields = value if isinstance(value, dict) else {"value": value}
            names.update(dict.fromkeys(fields))
            path = f"{key}[{index}]" if key else f"[{index}]"
            builder.add(ElementKind.RECORD, record_text(fields), meta={"method": "json", "fields": fields, "index": index, "json_path": path})
        meta["field_names"] = list(names)
