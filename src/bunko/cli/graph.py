"""Looking at the entity graph: `graph stats`, `graph entity NAME` (its passages and neighbours), `graph export`.

The graph is the one the graph route walks (`store.entity_graph()`, kept in step
with the store): an entity's passages are the chunks that mention it, and two
entities are linked by the passages they share. Hubs (entities in too many
passages) and entities of a single passage link nothing in that walk, so they
are left out of neighbours, top entities and edges here too.
"""

from __future__ import annotations

import difflib
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from bunko.cli.shared import CollectionOption, JsonOption, console, errors, fail, open_kb, print_json, run
from bunko.engine import Bunko
from bunko.index.graph import EntityGraph
from bunko.schema import Chunk
from bunko.text.entities import Mention, entity_key

graph_app = typer.Typer(
    help="The entity graph the graph route walks: what the collection is about, where an entity is mentioned, an export.",
    no_args_is_help=True,
)

SNIPPET_CHARS = 60
"""Characters of context either side of a mention."""
GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"


def _load(collection: Path | None) -> tuple[Bunko, EntityGraph]:
    kb = open_kb(collection)
    return kb, run(kb.store.entity_graph)


def _entities(graph: EntityGraph) -> list[tuple[str, int]]:
    """Every key with passages left, with its passage count, in id order (a removed document's keys stay, empty)."""
    counts = ((key, graph.passage_frequency(key)) for key in graph.keys)
    return [(key, count) for key, count in counts if count > 0]


def _empty_note(kb: Bunko, graph: EntityGraph) -> str:
    if graph.passage_count == 0:
        return "the collection has no passages yet: run `bunko ingest` first"
    if kb.config.ingest.entities == "none":
        return 'the graph has no entities: [ingest] entities = "none"; set it to "rules" and run `bunko reindex`'
    return "the graph has no entities (ingested before the entity graph existed?): run `bunko reindex`"


def _hubs(graph: EntityGraph, entities: list[tuple[str, int]]) -> list[str]:
    """Entities in too many passages to link anything specific (is_hub is also true of single-passage entities)."""
    return [key for key, count in entities if count > 1 and graph.is_hub(key)]


@graph_app.command("stats")
def stats(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many top entities to list.")] = 20,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Passages, entities, edges and hubs of the entity graph, and its most mentioned entities."""
    kb, graph = _load(collection)
    entities = _entities(graph)
    note = None if entities else _empty_note(kb, graph)
    kb.close()
    hubs = _hubs(graph, entities)
    edges = sum(1 for _ in graph.edges(1)) if entities else 0
    top = graph.top_entities(limit) if entities else []
    if as_json:
        payload: dict[str, Any] = {
            "passages": graph.passage_count, "entities": len(entities), "edges": edges, "hubs": len(hubs),
            "hub_entities": hubs, "single_passage_entities": sum(1 for _, count in entities if count == 1),
            "top_entities": [{"key": key, "passages": count} for key, count in top],
        }
        if note:
            payload["note"] = note
        print_json(payload)
        return
    if note:
        console.print(f"[yellow]{escape(note)}[/yellow]")
        return
    console.print(f"{graph.passage_count} passages, {len(entities)} entities, {edges} edges (co-occurring pairs), {len(hubs)} hubs")
    if hubs:
        console.print(f"[dim]hubs (in too many passages to link anything): {escape(', '.join(hubs[:20]))}[/dim]")
    table = Table("entity", "passages", title=f"top {len(top)} entities")
    for key, count in top:
        table.add_row(escape(key), str(count))
    console.print(table)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _resolve(graph: EntityGraph, name: str) -> str | None:
    for key in (entity_key(name, identifier=True), entity_key(name)):
        if graph.passage_frequency(key) > 0:
            return key
    return None


def _suggestions(graph: EntityGraph, name: str, limit: int = 5) -> list[str]:
    keys = [key for key, _ in _entities(graph)]
    found: dict[str, None] = {}
    for form in dict.fromkeys((entity_key(name, identifier=True), entity_key(name))):
        found.update(dict.fromkeys(difflib.get_close_matches(form, keys, n=limit, cutoff=0.6)))
    return list(found)[:limit]


def _mention_of(key: str, mentions: list[Mention]) -> Mention | None:
    return next((m for m in mentions if m.key == key), None)


def _snippet(text: str, mention: Mention | None) -> tuple[str, str, str]:
    """The text before, of and after the mention (about SNIPPET_CHARS either side), on one line."""

    def flat(part: str) -> str:
        return " ".join(part.split())

    if mention is None:
        return "", "", flat(text[: 2 * SNIPPET_CHARS]) + ("…" if len(text) > 2 * SNIPPET_CHARS else "")
    start, end = max(0, mention.start - SNIPPET_CHARS), min(len(text), mention.end + SNIPPET_CHARS)
    before = ("…" if start > 0 else "") + flat(text[start : mention.start]).lstrip()
    after = flat(text[mention.end : end]).rstrip() + ("…" if end < len(text) else "")
    if text[start : mention.start][-1:].isspace():
        before += " "
    if text[mention.end : end][:1].isspace():
        after = " " + after
    return before, flat(text[mention.start : mention.end]), after


def _passage_json(chunk: Chunk, mention: Mention | None, parts: tuple[str, str, str]) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id, "source": chunk.source, "pages": chunk.pages, "section_path": chunk.section_path,
        "mention": None if mention is None else {"surface": mention.surface, "start": mention.start, "end": mention.end},
        "snippet": "".join(parts),
    }


@graph_app.command("entity")
def entity(
    name: Annotated[str, typer.Argument(help="An entity as written in the documents (case, width, plurals and ー don't matter).")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many passages and neighbours to show.")] = 10,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """One entity: how many passages mention it, the entities it shares passages with, and where it is mentioned."""
    kb, graph = _load(collection)
    key = _resolve(graph, name)
    if key is None:
        note = None if _entities(graph) else _empty_note(kb, graph)
        kb.close()
        if note:
            raise fail(note, 1)
        close = _suggestions(graph, name)
        hint = f"; close: {', '.join(close)}" if close else ""
        raise fail(f"no entity {name!r} in the graph{hint}", 1)
    passage_ids = graph.passages_of(key)
    shown = passage_ids[:limit]
    chunks = {chunk.chunk_id: chunk for chunk in run(lambda: kb.store.get_chunks(shown))}
    mentions = run(lambda: kb.store.mentions(shown))
    kb.close()
    neighbours = graph.neighbours(key, limit)
    passages = []
    for chunk_id in shown:
        chunk = chunks.get(chunk_id)
        if chunk is not None:
            mention = _mention_of(key, mentions.get(chunk_id, []))
            passages.append((chunk, mention, _snippet(chunk.text, mention)))
    if as_json:
        print_json({
            "query": name, "key": key, "passages": len(passage_ids), "hub": len(passage_ids) > 1 and graph.is_hub(key),
            "neighbours": [{"key": other, "shared": shared} for other, shared in neighbours],
            "mentions": [_passage_json(chunk, mention, parts) for chunk, mention, parts in passages],
        })
        return
    hub = " [yellow](a hub: too common to link passages)[/yellow]" if len(passage_ids) > 1 and graph.is_hub(key) else ""
    console.print(f"[bold]{escape(key)}[/bold]: {_count(len(passage_ids), 'passage')}{hub}")
    if neighbours:
        console.print("neighbours: " + ", ".join(f"{escape(other)} ({shared})" for other, shared in neighbours))
    else:
        console.print("[dim]no neighbours (it shares no passage with another linking entity)[/dim]")
    for rank, (chunk, _, (before, surface, after)) in enumerate(passages, start=1):
        location = [chunk.source, *chunk.section_path]
        if chunk.pages:
            location.append("p." + ",".join(map(str, chunk.pages)))
        console.print(f"[bold]{rank}.[/bold] [cyan]{escape(' > '.join(location))}[/cyan]")
        console.print(f"   {escape(before)}[bold yellow]{escape(surface)}[/bold yellow]{escape(after)}")
    if len(passage_ids) > len(shown):
        console.print(f"[dim]… {_count(len(passage_ids) - len(shown), 'more passage')} (--limit)[/dim]")


def _graphml(entities: list[tuple[str, int]], edges: list[tuple[str, str, int]], ids: dict[str, str]) -> ET.ElementTree:
    ET.register_namespace("", GRAPHML_NS)

    def tag(name: str) -> str:
        return f"{{{GRAPHML_NS}}}{name}"

    root = ET.Element(tag("graphml"))
    for key_id, domain, attr_type in (("key", "node", "string"), ("passages", "node", "int"), ("weight", "edge", "int")):
        ET.SubElement(root, tag("key"), {"id": key_id, "for": domain, "attr.name": key_id, "attr.type": attr_type})
    graph = ET.SubElement(root, tag("graph"), {"id": "entities", "edgedefault": "undirected"})
    for key, count in entities:
        node = ET.SubElement(graph, tag("node"), {"id": ids[key]})
        ET.SubElement(node, tag("data"), {"key": "key"}).text = key
        ET.SubElement(node, tag("data"), {"key": "passages"}).text = str(count)
    for source, target, weight in edges:
        edge = ET.SubElement(graph, tag("edge"), {"source": ids[source], "target": ids[target]})
        ET.SubElement(edge, tag("data"), {"key": "weight"}).text = str(weight)
    ET.indent(root)
    return ET.ElementTree(root)


@graph_app.command("export")
def export(
    path: Annotated[Path, typer.Argument(help="File to write (.json or .graphml).")],
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="json or graphml (default: from the file suffix).")] = None,
    min_shared: Annotated[int, typer.Option("--min-shared", min=1, help="Only edges of entities sharing at least this many passages.")] = 1,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write the entity graph: entities with their passages, and co-occurrence edges weighted by shared passages."""
    chosen = fmt.lower() if fmt else {".json": "json", ".graphml": "graphml"}.get(path.suffix.lower())
    if chosen not in ("json", "graphml"):
        given = f"unknown format {fmt!r}" if fmt else f"cannot tell the format from {path.name!r}"
        raise fail(f"{given}: give --format json or --format graphml")
    kb, graph = _load(collection)
    entities = _entities(graph)
    note = None if entities else _empty_note(kb, graph)
    kb.close()
    if note:
        errors.print(f"[yellow]note:[/yellow] {escape(note)}")
    edges = sorted(graph.edges(min_shared), key=lambda e: (-e[2], e[0], e[1])) if entities else []
    try:
        if chosen == "json":
            data = {
                "entities": [{"key": key, "passages": graph.passages_of(key)} for key, _ in entities],
                "edges": [{"source": a, "target": b, "weight": weight} for a, b, weight in edges],
            }
            path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        else:
            ids = {key: f"n{graph.vocabulary[key]}" for key, _ in entities}
            _graphml(entities, edges, ids).write(path, encoding="utf-8", xml_declaration=True)
    except OSError as exc:
        raise fail(f"cannot write {path}: {exc}") from None
    if as_json:
        print_json({"path": str(path), "format": chosen, "entities": len(entities), "edges": len(edges), "min_shared": min_shared})
    else:
        console.print(f"wrote {len(entities)} entities and {len(edges)} edges (min shared {min_shared}) to {escape(str(path))} as {chosen}")
