"""Communities of the entity graph: topics found without an LLM, each with the passages that represent it."""

from __future__ import annotations

from bunko.index.graph import EntityGraph


def two_topic_graph() -> EntityGraph:
    graph = EntityGraph()
    mail = ["postfix", "smtp", "dovecot", "imap", "spam", "mailbox"]
    disks = ["mdadm", "raid", "lvm", "volume", "partition", "ext4"]
    for topic, words in (("mail", mail), ("disks", disks)):
        passages = [(f"{topic}#{i}", [w for j, w in enumerate(words) if j != i % 6]) for i in range(12)]  # a dense topic
        graph.replace_document(topic, "v1", passages)
    graph.replace_document("filler", "v1", [(f"filler#{i}", [f"word{i}"]) for i in range(400)])
    return graph


def test_entities_that_share_passages_form_one_community_and_others_another() -> None:
    communities = two_topic_graph().communities()
    topics = [set(c.entities) for c in communities]
    assert {"postfix", "smtp", "dovecot", "imap", "spam", "mailbox"} in topics
    assert {"mdadm", "raid", "lvm", "volume", "partition", "ext4"} in topics
    for community in communities:
        prefix = "mail#" if "postfix" in community.entities else "disks#"
        assert community.passages and all(p.startswith(prefix) for p in community.passages)


def test_the_same_graph_gives_the_same_communities_and_a_change_recomputes_them() -> None:
    graph = two_topic_graph()
    first = graph.communities()
    assert graph.communities() is first
    assert [c.entities for c in two_topic_graph().communities()] == [c.entities for c in first]
    graph.remove_document("mail")
    assert all("postfix" not in c.entities for c in graph.communities())
