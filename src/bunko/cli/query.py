"""Asking the collection: `search`, `ask`, `trace`, and `demo` (the samples, asked in three languages)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from bunko.cli.shared import (
    SAMPLES_DEMO_QUESTIONS,
    SAMPLES_DOCS,
    CollectionOption,
    GeneratorOption,
    JsonOption,
    ModelPathOption,
    ModeOption,
    PolicyOption,
    console,
    errors,
    fail,
    open_kb,
    parse_filters,
    print_json,
    run,
)
from bunko.collection_paths import DEFAULT_COLLECTION

if TYPE_CHECKING:
    from bunko.engine import Bunko
    from bunko.schema import Answer, Hit



def _hit_json(hit: Hit) -> dict[str, Any]:
    chunk = hit.chunk
    return {
        "chunk_id": chunk.chunk_id, "source": chunk.source, "section_path": chunk.section_path, "pages": chunk.pages,
        "kinds": chunk.kinds, "lang": chunk.lang, "score": hit.score, "distance": hit.distance, "signals": hit.signals.to_dict(), "text": chunk.text,
        "also_at": hit.also_at,
    }


def _location(hit: Hit) -> str:
    parts = [hit.chunk.source, *hit.chunk.section_path]
    if hit.chunk.pages:
        parts.append("p." + ",".join(map(str, hit.chunk.pages)))
    return " > ".join(parts)


def search(
    query: str,
    k: Annotated[int | None, typer.Option("-k", help="Number of hits.")] = None,
    mode: ModeOption = None,
    source: Annotated[str | None, typer.Option(help="Only sources matching this glob.")] = None,
    section: Annotated[str | None, typer.Option(help="Only chunks under this section (text or glob).")] = None,
    where: Annotated[str | None, typer.Option(help='Filter as JSON, e.g. \'{"kind": "table"}\'.')] = None,
    explain: Annotated[str | None, typer.Option(
        "--explain", metavar="[full]", help="Why each hit ranked where it did, one line per hit instead of its text: rank, "
        "place, score, the lists that found it with its rank in each, the share of the query's terms it holds, its "
        "fused rank. `--explain full`: the text too, and every retriever's rank and score, the fusion formula and the "
        "limits it passed.",
    )] = None,
    group_by: Annotated[
        str | None, typer.Option("--group-by", help="chunk, section or document: one hit per section or document (its best chunk).")
    ] = None,
    language: Annotated[
        str | None, typer.Option("--language", help="Prefer chunks in en, ja or zh instead of the query's language; any: no preference.")
    ] = None,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ranked evidence with source > section > page."""
    from bunko.retrieve.explain import thresholds, why


    if explain not in (None, "brief", "full"):
        raise fail(f"--explain {explain}: say --explain, or --explain full")
    full = explain == "full"
    kb = open_kb(collection)
    filters = parse_filters(source, section, where)
    result = run(lambda: kb.search_detailed(query, k=k, filters=filters, mode=mode, group_by=group_by, language=language))
    hits = result.hits
    limits = thresholds(kb.config.retrieve)
    explanations = [kb.explain(hit, result.mode, filtered=filters is not None) for hit in hits] if full else []
    kb.close()
    route = {"name": result.route.name, "weights": result.route.weights, "reason": result.route.reason} if result.route else None
    if as_json:
        payload: dict[str, Any] = {"query": query, "filters": filters, "hits": [_hit_json(h) for h in hits]}
        if explain:
            payload |= {"mode": result.mode, "route": route, "query_tokens": result.query_tokens, "thresholds": limits}
            for shown, hit in zip(payload["hits"], hits, strict=True):
                shown["why"] = why(hit)
            for shown, lines in zip(payload["hits"], explanations, strict=False):
                shown["explanation"] = lines
        print_json(payload)
        return
    if full:
        console.print(f"[dim]mode {result.mode}; route {escape(json.dumps(route, ensure_ascii=False))}[/dim]")
        console.print(f"[dim]keyword tokens: {escape(' '.join(result.query_tokens))}[/dim]")
        console.print(f"[dim]filter (applied inside each retriever, before top-k): {escape(json.dumps(filters, ensure_ascii=False))}[/dim]")
    elif explain:
        console.print(f"[dim]route {escape(result.route.name if result.route else result.mode)}; keyword tokens: "
                      f"{escape(' '.join(result.query_tokens))}  (--explain full: every score)[/dim]", soft_wrap=True)
    if not hits:
        console.print("no hits")
    for rank, hit in enumerate(hits, start=1):
        lang = f"  [dim]{hit.chunk.lang}[/dim]" if hit.chunk.lang else ""
        if explain and not full:  # one line a hit: rank, where, score, why
            also = f"  [dim]also at {escape(', '.join(hit.also_at))}[/dim]" if hit.also_at else ""
            console.print(f"[bold]{rank}.[/bold] [cyan]{escape(_location(hit))}[/cyan]  score {hit.score:.4f}{lang}{also}  "
                          f"[dim]{escape(why(hit))}[/dim]", soft_wrap=True)
            continue
        console.print(f"[bold]{rank}.[/bold] [cyan]{escape(_location(hit))}[/cyan]  score {hit.score:.4f}{lang}")
        if hit.also_at:
            console.print(f"   [dim]also at {escape(', '.join(hit.also_at))}[/dim]", soft_wrap=True)
        if full:
            for line in explanations[rank - 1]:
                console.print(f"   [dim]{escape(line)}[/dim]")
        snippet = hit.chunk.text if len(hit.chunk.text) <= 300 else hit.chunk.text[:300] + "…"
        console.print("   " + escape(snippet).replace("\n", "\n   "))


def ask(
    question: str,
    source: Annotated[str | None, typer.Option(help="Only sources matching this glob.")] = None,
    section: Annotated[str | None, typer.Option(help="Only chunks under this section.")] = None,
    where: Annotated[str | None, typer.Option(help="Filter as JSON.")] = None,
    stream: Annotated[bool, typer.Option("--stream", help="Print each sentence as soon as it passes the citation check.")] = False,
    mode: ModeOption = None,
    generator: GeneratorOption = None,
    model_path: ModelPathOption = None,
    policy: PolicyOption = None,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """A grounded answer, each sentence cited; or a plain statement that the documents do not say."""
    from bunko.generate.citation_marks import source_lines
    from bunko.schema import to_dict


    kb = open_kb(collection)
    run(lambda: choose_answering(kb, generator, model_path, policy))
    filters = parse_filters(source, section, where)
    if stream and not as_json:
        answer = run(lambda: _print_stream(kb.ask_stream(question, filters=filters, mode=mode)))
    else:
        answer = run(lambda: kb.ask(question, filters=filters, mode=mode))
    kb.close()
    if as_json:
        print_json(to_dict(answer))
        return
    if not stream:
        console.print(escape(answer.text))
    for line in source_lines(answer.sentences):
        console.print(f"  [dim]{escape(line)}[/dim]")
    if answer.trace is not None and answer.trace.generation.fallback:
        console.print(f"[yellow]the LLM failed, so this answer is extractive: {escape(answer.trace.generation.fallback)}[/yellow]")
    review = " · [yellow]needs review[/yellow]" if answer.needs_review else ""
    console.print(f"[dim]confidence {answer.confidence:.2f} · trace {answer.trace_id}[/dim]{review}")


def choose_answering(kb: Bunko, generator: str | None, model_path: str | None, policy: str | None) -> None:
    """This ask's generator, model file and policy over the collection's config (nothing is saved)."""
    from bunko.errors import ConfigError
    from bunko.llm.llamacpp import default_threads


    answer, llm = kb.config.answer, kb.config.llm
    if model_path is not None:
        llm.model_path, llm.backend = model_path, "llamacpp"
    if generator is not None:
        if generator not in ("extractive", "llm", "openai", "llamacpp"):
            raise ConfigError(f"unknown generator {generator!r}; use extractive, llm, openai or llamacpp")
        answer.generator = configured_llm(kb) if generator == "llm" else generator  # type: ignore[assignment]
    if policy is not None:
        if policy not in ("standard", "strict", "regulated"):
            raise ConfigError(f"unknown policy {policy!r}; use standard, strict or regulated")
        answer.policy = policy  # type: ignore[assignment]
    if answer.generator == "llamacpp":  # on stderr, so --json stays one document
        errors.print(f"[dim]{escape(default_threads(llm.threads).notice())}[/dim]")


def configured_llm(kb: Bunko) -> str:
    """The backend `--generator llm` means: the [llm] server when one is set, else a local GGUF model."""
    from bunko.errors import ConfigError
    from bunko.llm.llamacpp import bundled_model


    llm = kb.config.llm
    if llm.backend == "openai" and llm.base_url:
        return "openai"
    if llm.model_path or bundled_model() is not None:
        return "llamacpp"
    raise ConfigError("no LLM is configured: set [llm] base_url (an OpenAI-compatible server) or model_path (a .gguf file)")


def _print_stream(items: Iterator[str | Answer]) -> Answer:
    """Deltas as they come; the final Answer is returned for the source list."""
    from bunko.errors import BunkoError
    from bunko.schema import Answer


    for item in items:
        if isinstance(item, Answer):
            console.print()
            return item
        console.print(escape(item), end="", soft_wrap=True)
    raise BunkoError("the answer stream ended without an answer")


def trace(trace_id: str, collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Everything recorded for one `ask`: route, hits and signals, rerank, grade, prompt, verdicts, timings."""
    from bunko.generate.trace_view import render_trace


    kb = open_kb(collection)
    payload = kb.trace(trace_id)
    kb.close()
    if payload is None:
        raise fail(f"no trace {trace_id}", 1)
    if as_json:
        print_json(payload)
    else:
        render_trace(console, payload)


def demo_questions() -> list[str]:
    """The questions `bunko demo` asks, from the samples beside the documents they are about."""
    return [line.strip() for line in SAMPLES_DEMO_QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]


def demo(collection: CollectionOption = None) -> None:
    """Ingest the bundled sample documents and ask one question in each language."""
    from bunko.cli.documents import ingest


    path = collection or Path.cwd() / DEFAULT_COLLECTION
    console.print(f"Ingesting the bundled samples ({escape(str(SAMPLES_DOCS))}) into {escape(str(path))} …")
    ingest([SAMPLES_DOCS], prune=False, collection=path, as_json=False)
    for question in demo_questions():
        console.rule(escape(question))
        ask(question, source=None, section=None, where=None, collection=path, as_json=False)
