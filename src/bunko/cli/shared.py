"""What every command shares: the two consoles, the one way to fail, and how a command finds its collection.

Output is split so scripts can rely on it: results go to stdout (`console`,
`print_json`), progress bars, notes and errors to stderr (`errors`). An error
is one red line and an exit code, never a traceback (`fail`, `run`).

A table is drawn for a terminal only (`print_rows`): piped or redirected, stdout is plain text, one record a line,
its fields tab-separated in the order the table shows them, with no header, no colour, no wrapping and no cut names;
`--json` is for scripts that want names for the fields. Nothing printed to a pipe is wrapped (`_Stdout`).

Nothing here imports the engine, the config models or rich's tables and progress bars at import time: the command
line's help and `--version` import this module, and a command pays for what it uses when it runs.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from bunko.collection_paths import CONFIG_FILE, DEFAULT_COLLECTION

if TYPE_CHECKING:
    from bunko.engine import Bunko
    from bunko.schema import IngestJob


class _Stdout(Console):
    """stdout: piped or redirected, a line is never wrapped at a width no terminal has (rich assumes 80 columns)."""

    def print(self, *objects: Any, **options: Any) -> None:
        if not self.is_terminal:
            options.setdefault("soft_wrap", True)
        super().print(*objects, **options)


console: Console = _Stdout()
errors = Console(stderr=True, soft_wrap=True)

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
SAMPLES_DOCS = SAMPLES / "docs"
SAMPLES_GOLDEN = SAMPLES / "golden.jsonl"
SAMPLES_DEMO_QUESTIONS = SAMPLES / "demo-questions.txt"
"""What `bunko demo` asks of the samples, one question a line: one in each language, each answered by a sample."""

T = TypeVar("T")

COLLECTION_ENV = "BUNKO_COLLECTION"
CollectionOption = Annotated[
    Path | None,
    typer.Option("--collection", "-c", envvar=COLLECTION_ENV, help="Collection folder (default: nearest ./.bunko, like git)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
ModeOption = Annotated[
    str | None,
    typer.Option(
        "--route", "--mode",
        help="Force a search mode: hybrid, dense, keyword, graph, graph-local, graph-global, tree or table (default: the router's choice).",
    ),
]
GeneratorOption = Annotated[
    str | None,
    typer.Option(help="extractive, or llm for the \\[llm] model (openai or llamacpp by name); default: \\[answer] generator."),
]
ModelPathOption = Annotated[str | None, typer.Option(help="A GGUF file for the llamacpp generator (default: \\[llm] model_path).")]
PolicyOption = Annotated[str | None, typer.Option(help="standard, strict or regulated (default: \\[answer] policy).")]


def fail(message: str, code: int = 2, as_json: bool = False, details: dict[str, Any] | None = None) -> typer.Exit:
    """Print ``error: message`` on stderr; the caller raises the returned exit (2: usage or input, 1: nothing to act on).

    Under `--json` (`as_json`, or the running command's own `--json`: `json_requested`) the error is also one JSON
    object on stdout, ``{"error": message, "exit_code": code, …details}``, so a script reading stdout is told why
    there is no result."""
    errors.print(f"[red]error:[/red] {escape(message)}")
    if as_json or json_requested():
        print_json({"error": message, "exit_code": code, **(details or {})})
    return typer.Exit(code)


def json_requested() -> bool:
    """Whether the command running was given `--json` (its `as_json` parameter), so that every command's errors are
    JSON under `--json` without each call site saying so. Read from the click context typer runs the command in."""
    try:
        from typer._click.globals import get_current_context
    except ImportError:  # a typer without its own click: the call sites' as_json still works
        return False
    ctx = get_current_context(silent=True)
    return bool(ctx is not None and ctx.params.get("as_json"))


def run(action: Callable[[], T], as_json: bool = False) -> T:
    """Run a command body; a BunkoError (or a bad value or missing file) becomes a one-line message and exit code 2,
    and under `--json` a JSON error on stdout too (with the error's `details`, when it has them: a golden set's
    problems)."""
    from bunko.errors import BunkoError

    try:
        return action()
    except (BunkoError, ValueError, FileNotFoundError) as exc:
        details = getattr(exc, "details", None)
        raise fail(str(exc), as_json=as_json, details=details if isinstance(details, dict) else None) from None


def find_collection(explicit: Path | None) -> Path:
    """An explicit path wins; else the nearest `.bunko` in this folder or a parent; else `./.bunko`."""
    if explicit is not None:
        return explicit
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / DEFAULT_COLLECTION / CONFIG_FILE).exists():
            return folder / DEFAULT_COLLECTION
    return here / DEFAULT_COLLECTION


def existing_collection(explicit: Path | None) -> Path:
    """Like `find_collection`, for commands that must not create one: exit 2 when there is none."""
    path = find_collection(explicit)
    if not (path / CONFIG_FILE).exists():
        raise fail(f"{path}: no bunko collection here (run `bunko init` or `bunko ingest` first)")
    return path


def open_kb(collection: Path | None, create: bool = False, as_json: bool = False) -> Bunko:
    from bunko.engine import Bunko

    return run(lambda: Bunko(find_collection(collection), create=create), as_json=as_json)


def print_json(data: Any, compact: bool = False) -> None:
    """`compact`: one line, for outputs scripts read line by line (a new API key)."""
    indent = None if compact else 2
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=indent, default=str) + "\n")


def piped() -> bool:
    """Whether stdout is a pipe or a file rather than a terminal (rich's judgement: `TTY_COMPATIBLE=1` or `FORCE_COLOR`
    make it a terminal, `TTY_COMPATIBLE=0` a pipe)."""
    return not console.is_terminal


def plain_field(value: object) -> str:
    """One field of a piped record: never empty ("-"), no tab or line break inside (each becomes a space)."""
    text = " ".join(str(value).replace("\t", " ").splitlines()).strip() if value is not None else ""
    return text or "-"


def print_lines(lines: Sequence[str]) -> None:
    """Lines as they are, on stdout: no markup, no wrapping at the terminal's width."""
    sys.stdout.write("".join(line + "\n" for line in lines))


def print_rows(
    columns: Sequence[str], rows: Sequence[Sequence[object]], *, title: str | None = None,
    styles: Mapping[int, Callable[[str], str | None]] | None = None, fold: Sequence[int] = (),
) -> None:
    """A table on a terminal; piped, one row a line, its fields tab-separated (`plain_field`), no header.

    `styles`: per column index, the rich style of a value (or None); `fold`: columns whose long values wrap whole
    (a document's name) instead of being cut in the middle."""
    if piped():
        print_lines(["\t".join(plain_field(v) for v in row) for row in rows])
        return
    from rich.table import Table

    table = Table(*columns, title=title, title_justify="left" if title else "center")
    for index in fold:
        table.columns[index].overflow = "fold"
        table.columns[index].min_width = min(40, max((len(str(row[index])) for row in rows), default=6))
    for row in rows:
        cells = []
        for index, value in enumerate(row):
            text = escape("" if value is None else str(value))
            style = styles[index](str(value)) if styles and index in styles else None
            cells.append(f"[{style}]{text}[/{style}]" if style else text)
        table.add_row(*cells)
    console.print(table)


def parse_filters(source: str | None, section: str | None, where: str | None) -> dict[str, Any] | None:
    """The `--source`, `--section` and `--where` options as one filter (their AND), or None for no filter."""
    from bunko.errors import FilterError
    from bunko.index.filters import validate_filter

    clauses: list[dict[str, Any]] = []
    if source:
        clauses.append({"source": {"$glob": source}})
    if section:
        clauses.append({"section": {"$glob": section} if any(c in section for c in "*?[") else section})
    if where:
        try:
            parsed = json.loads(where)
        except json.JSONDecodeError as exc:
            raise fail(f"--where is not valid JSON: {exc}") from None
        try:  # its form and values, with the path of a bad part; the collection checks its field names when it searches
            validate_filter(parsed)
        except FilterError as exc:
            raise fail(str(exc)) from None
        if parsed:
            clauses.append(parsed)
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


@contextmanager
def document_progress(description: str, as_json: bool) -> Iterator[Callable[[int, int, IngestJob], None]]:
    """A progress bar on stderr for work done document by document (ingest, reindex); silent for --json or a pipe."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("{task.fields[current]}"), console=errors, disable=as_json or not errors.is_terminal, transient=True,
    ) as bar:
        task = bar.add_task(description, total=None, current="")

        def progress(done: int, total: int, job: IngestJob) -> None:
            """The file in hand and its stage ("manual.pdf: parsing page 57/272"), not the last one finished."""
            current = f"{job.source}: {job.progress.describe()}" if job.progress is not None else job.source
            bar.update(task, completed=done, total=total, current=escape(current))

        yield progress
