"""Looking at the entity graph: `graph stats`, `graph entity NAME` (its passages and neighbours), `graph export`.

The graph is the one the graph route walks (`store.search().entity_graph()`, kept in step
with the store): an entity's passages are the chunks that mention it, and two
entities are linked by the passages they share. Hubs (entities in too many
passages) and entities of a single passage link nothing in that walk, so they
are left out of neighbours, top entities and edges here too.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from bunko.cli.shared import CollectionOption, JsonOption, console, errors, fail, open_kb, piped, print_json, print_rows, run

if TYPE_CHECKING:
    from bunko.engine import Bunko
    from bunko.index.graph import EntityGraph
    from bunko.retrieve.graph_lookup import EntityPassage, GraphLookup

graph_app = typer.Typer(
    help="The entity graph the graph route walks: what the collection is about, where an entity is mentioned, an export.",
    no_args_is_help=True,
)

GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"


def _load(collection: Path | None) -> tuple[Bunko, GraphLookup]:
    from bunko.retrieve.graph_lookup import GraphLookup

    kb = open_kb(collection)
    return kb, GraphLookup(run(kb.store.search().entity_graph))


def _empty_note(kb: Bunko, graph: EntityGraph) -> str:
    if graph.passage_count == 0:
        return "the collection has no passages yet: run `bunko ingest` first"
    if kb.config.ingest.entities == "none":
        return 'the graph has no entities: [ingest] entities = "none"; set it to "rules" and run `bunko reindex`'
    return "the graph has no entities (ingested before the entity graph existed?): run `bunko reindex`"


@graph_app.command("stats")
def stats(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many top entities to list.")] = 20,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Passages, entities, edges and hubs of the entity graph, and its most mentioned entities."""
    kb, lookup = _load(collection)
    graph = lookup.graph
    entities = lookup.entities()
    note = None if entities else _empty_note(kb, graph)
    kb.close()
    hubs = lookup.hubs(entities)
    edges = sum(1 for _ in graph.edges(1)) if entities else 0
    top = lookup.top_entities(limit) if entities else []
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
    summary = errors if piped() else console  # piped, stdout holds the entities only, one a line
    summary.print(f"{graph.passage_count} passages, {len(entities)} entities, {edges} edges (co-occurring pairs), {len(hubs)} hubs")
    if hubs:
        summary.print(f"[dim]hubs (in too many passages to link anything): {escape(', '.join(hubs[:20]))}[/dim]")
    print_rows(("entity", "passages"), top, title=f"top {len(top)} entities")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _passage_json(passage: EntityPassage) -> dict[str, Any]:
    chunk, mention = passage.chunk, passage.mention
    return {
        "chunk_id": chunk.chunk_id, "source": chunk.source, "pages": chunk.pages, "section_path": chunk.section_path,
        "mention": None if mention is None else {"surface": mention.surface, "start": mention.start, "end": mention.end},
        "snippet": str(passage.snippet),
    }


@graph_app.command("entity")
def entity(
    name: Annotated[str, typer.Argument(help="An entity as written in the documents (case, width, plurals and ー don't matter).")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many passages and neighbours to show.")] = 10,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """One entity: how many passages mention it, the entities it shares passages with, and where it is mentioned."""
    kb, lookup = _load(collection)
    key = lookup.resolve(name)
    if key is None:
        note = None if lookup.entities() else _empty_note(kb, lookup.graph)
        kb.close()
        if note:
            raise fail(note, 1)
        close = lookup.suggestions(name)
        hint = f"; close: {', '.join(close)}" if close else ""
        raise fail(f"no entity {name!r} in the graph{hint}", 1)
    found = run(lambda: lookup.entity(kb.store.search(), key, limit))
    kb.close()
    passage_count = len(found.passage_ids)
    if as_json:
        print_json({
            "query": name, "key": key, "passages": passage_count, "hub": found.hub,
            "neighbours": [{"key": other, "shared": shared} for other, shared in found.neighbours],
            "mentions": [_passage_json(passage) for passage in found.passages],
        })
        return
    hub = " [yellow](a hub: too common to link passages)[/yellow]" if found.hub else ""
    console.print(f"[bold]{escape(key)}[/bold]: {_count(passage_count, 'passage')}{hub}")
    if found.neighbours:
        console.print("neighbours: " + ", ".join(f"{escape(other)} ({shared})" for other, shared in found.neighbours))
    else:
        console.print("[dim]no neighbours (it shares no passage with another linking entity)[/dim]")
    for rank, passage in enumerate(found.passages, start=1):
        chunk, parts = passage.chunk, passage.snippet
        location = [chunk.source, *chunk.section_path]
        if chunk.pages:
            location.append("p." + ",".join(map(str, chunk.pages)))
        console.print(f"[bold]{rank}.[/bold] [cyan]{escape(' > '.join(location))}[/cyan]")
        console.print(f"   {escape(parts.before)}[bold yellow]{escape(parts.mention)}[/bold yellow]{escape(parts.after)}")
    shown = len(found.passages)
    if passage_count > shown:
        console.print(f"[dim]… {_count(passage_count - shown, 'more passage')} (--limit)[/dim]")


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
    kb, lookup = _load(collection)
    graph = lookup.graph
    entities = lookup.entities()
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
