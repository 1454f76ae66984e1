"""`bunko chat`: a conversation with the collection in the terminal, each answer cited, follow-ups read with the history."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from bunko.cli.query import choose_answering
from bunko.cli.shared import (
    CollectionOption,
    GeneratorOption,
    ModelPathOption,
    ModeOption,
    PolicyOption,
    console,
    errors,
    open_kb,
    parse_filters,
    run,
)

if TYPE_CHECKING:
    from bunko.schema import Answer

PROMPT = "[bold cyan]>[/bold cyan] "


def chat(
    source: Annotated[str | None, typer.Option(help="Only sources matching this glob.")] = None,
    section: Annotated[str | None, typer.Option(help="Only chunks under this section.")] = None,
    where: Annotated[str | None, typer.Option(help="Filter as JSON.")] = None,
    mode: ModeOption = None,
    generator: GeneratorOption = None,
    model_path: ModelPathOption = None,
    policy: PolicyOption = None,
    collection: CollectionOption = None,
) -> None:

    """A conversation in the terminal: cited answers, follow-ups read with the turns before them.

    Ask, read the cited answer, ask a follow-up ("それの上限は？", "那年假呢？", "and its config file?"): it is searched
    as a standalone question made from the conversation. An empty line, Ctrl-D or Ctrl-C ends the conversation."""
    from bunko.errors import BunkoError
    from bunko.generate.citation_marks import sources_block
    from bunko.generate.conversation import Turn

    kb = open_kb(collection)
    run(lambda: choose_answering(kb, generator, model_path, policy))
    filters = parse_filters(source, section, where)
    history: list[Turn] = []
    errors.print("[dim]Ask a question; follow-ups are read with the conversation. An empty line or Ctrl-D ends it.[/dim]")
    try:
        while True:
            try:
                question = console.input(PROMPT).strip()
            except EOFError:
                break
            if not question:
                break
            try:
                answer = _answer(kb.ask_stream(question, filters=filters, mode=mode, history=history))
            except BunkoError as exc:
                errors.print(f"[red]error:[/red] {escape(str(exc))}")
                continue
            sources = sources_block(answer.sentences, answer.language)  # kept, so "your previous answer?" quotes them too
            history += [Turn("user", question), Turn("assistant", answer.text + ("\n\n" + sources if sources else ""))]
    except KeyboardInterrupt:
        console.print()
    finally:
        kb.close()


def _answer(items: Iterator[str | Answer]) -> Answer:
    """Print the answer as its sentences pass the citation check, then its sources and what the follow-up was searched as."""
    from bunko.errors import BunkoError
    from bunko.generate.citation_marks import source_lines
    from bunko.schema import Answer

    answer: Answer | None = None
    for item in items:
        if isinstance(item, Answer):
            answer = item
            break
        console.print(escape(item), end="", soft_wrap=True)
    if answer is None:
        raise BunkoError("the answer stream ended without an answer")
    console.print()
    for line in source_lines(answer.sentences):
        console.print(f"  [dim]{escape(line)}[/dim]")
    trace = answer.trace
    if trace is not None and trace.condensed is not None and trace.condensed.changed:
        console.print(f"  [dim]searched as: {escape(trace.condensed.standalone)}[/dim]")
    if trace is not None and trace.generation.fallback:
        console.print(f"  [yellow]the LLM failed, so this answer is extractive: {escape(trace.generation.fallback)}[/yellow]")
    return answer
