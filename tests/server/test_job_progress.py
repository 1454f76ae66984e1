"""The server's job endpoint while an upload is ingested: the stage and how far it is (`progress`)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from server_harness import running, upload, wait_jobs

from bunko import Bunko
from bunko.server.collection import ServedCollection


class SlowEmbedder:
    """The session's embedder, holding each call until the test lets it go (an embedding service under load)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed(self, texts: list[str]) -> np.ndarray:
        if self.armed:  # not the server's warm-up at start
            self.entered.set()
            self.release.wait(60)
        return self.inner.embed(texts)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


def test_the_server_s_job_endpoint_shows_the_stage_while_the_job_runs(tmp_path: Path, embedder) -> None:
    slow = SlowEmbedder(embedder)
    served = ServedCollection("kb", Bunko(tmp_path / "kb", embedder=slow))
    with running([served]) as live, live.client() as client:
        slow.armed = True
        body = "# 就業規則\n\n始業は九時です。\n\n## 休暇\n\n年次有給休暇は二十日です。\n\n## Leave\n\nAnnual leave is twenty days; 年假二十天。\n"
        accepted = upload(client, "kb", {"就業規則.md": body})
        assert accepted.status_code == 202, accepted.text
        job_id = accepted.json()["jobs"][0]["job_id"]
        assert slow.entered.wait(60)
        seen = client.get(f"/api/collections/kb/jobs/{job_id}").json()
        slow.release.set()
        assert seen["status"] == "EMBEDDING", seen
        assert seen["progress"]["stage"] == "embedding" and seen["progress"]["done"] == 0
        assert seen["progress"]["total"] >= 1 and seen["progress"]["text"].startswith("embedding 0/")
        done = wait_jobs(client, "kb", [job_id])[0]
        assert done["status"] == "READY" and done["progress"] is None
