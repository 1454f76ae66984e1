"""Tables as cells plus a Markdown rendering: every parser emits tables this way."""

from __future__ import annotations

from typing import Any


def _cell(text: Any) -> str:
    return str("" if text is None else text).replace("|", "\\|").replace("\n", " ").strip()


def table_markdown(header: list[str], rows: list[list[str]]) -> str:
    width = max(len(header), *(len(r) for r in rows)) if rows else len(header)
    if width == 0:
        return ""
    header = [*header, *[""] * (width - len(header))]
    lines = ["| " + " | ".join(_cell(c) for c in header) + " |", "|" + "|".join(["---"] * width) + "|"]
    for row in rows:
        row = [*row, *[""] * (width - len(row))]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines)


def table_meta(header: list[str], rows: list[list[str]]) -> dict[str, Any]:
    return {"cells": {"header": header, "rows": rows}, "n_rows": len(rows), "n_cols": max(len(header), *(len(r) for r in rows)) if rows else len(header)}
