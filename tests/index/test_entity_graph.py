"""The entity graph: documents are blocks replaced or removed alone, and a walk reaches passages two hops away."""

from __future__ import annotations

import numpy as np

from bunko.index.graph import HUB_MIN_PASSAGES, EntityGraph


def small_graph() -> EntityGraph:
    graph = EntityGraph()
    graph.replace_document("backup", "v1", [("backup#0", ["backup", "software raid"]), ("backup#1", ["backup", "rsync"])])
    graph.replace_document("raid", "v1", [("raid#0", ["software raid", "mdadm"]), ("raid#1", ["mdadm", "/etc/mdadm/mdadm.conf"])])
    graph.replace_document("mail", "v1", [("mail#0", ["postfix", "falcot"]), ("mail#1", ["postfix", "/etc/postfix/main.cf"])])
    return graph


def test_a_walk_from_the_question_reaches_the_passage_two_hops_away() -> None:
    graph = small_graph()
    walk = graph.walk({"backup": 1.0}, {})
    mass = dict(zip(graph.matrices.chunk_ids, walk.passage_mass, strict=True))
    # backup#0 -> "software raid" -> raid#0 -> "mdadm" -> raid#1; the mail passages share nothing with backup
    assert mass["raid#0"] > mass["raid#1"] > 0
    assert mass["mail#0"] == mass["mail#1"] == 0


def test_replacing_a_document_changes_only_its_own_passages_and_edges() -> None:
    graph = small_graph()
    before = {cid: graph.entities_of(cid) for cid in ("backup#0", "mail#0")}
    graph.replace_document("raid", "v2", [("raid#0", ["lvm"])])
    assert graph.entities_of("raid#0") == ["lvm"] and graph.entities_of("raid#1") == []
    assert graph.passages_of("mdadm") == []
    assert graph.passages_of("software raid") == ["backup#0"]
    assert {cid: graph.entities_of(cid) for cid in before} == before
    assert graph.versions() == {"backup": "v1", "raid": "v2", "mail": "v1"}


def test_removing_a_document_removes_its_passages_and_keeps_the_others_walkable() -> None:
    graph = small_graph()
    graph.remove_document("mail")
    assert "mail#0" not in graph.matrices.chunk_ids and graph.passages_of("postfix") == []
    assert graph.passage_count == 4
    walk = graph.walk({"falcot": 1.0}, {})  # falcot now lives in one passage: it links nothing, so nothing walks
    assert not walk.passage_mass.any()
    assert graph.walk({"mdadm": 1.0}, {}).passage_mass.sum() > 0


def test_an_entity_in_most_passages_is_a_hub_that_carries_no_walk() -> None:
    graph = EntityGraph()
    passages = [(f"d#{i}", ["system", f"tool{i // 2}"]) for i in range(4 * HUB_MIN_PASSAGES)]
    graph.replace_document("d", "v1", passages)
    assert graph.is_hub("system") and not graph.is_hub("tool0")
    walk = graph.walk({"tool0": 1.0}, {})
    reached = {graph.matrices.chunk_ids[row] for row in np.flatnonzero(walk.passage_mass)}
    assert reached == {"d#0", "d#1"}  # through "system" it would have reached every passage
    assert "system" not in dict(graph.top_entities(50))


def test_neighbours_and_edges_count_the_passages_two_entities_share() -> None:
    graph = small_graph()
    graph.replace_document("more", "v1", [("more#0", ["mdadm", "software raid"])])
    assert dict(graph.neighbours("mdadm"))["software raid"] == 2
    edges = {(a, b) if a < b else (b, a): w for a, b, w in graph.edges()}
    assert edges[("mdadm", "software raid")] == 2
