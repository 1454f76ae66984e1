"""The server's ask takes stage timings from the trace `ask` returns, not from a store read after it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bunko.server.auth import ANONYMOUS
from bunko.server.collection import AskOutcome, ServedCollection

LEAVE = "# 休暇規程\n\n年次有給休暇は入社6か月後に10日付与されます。\n\n婚假为3天。\n\nSick leave is paid for up to 5 days a year.\n"


def test_ask_and_stream_take_timings_from_the_returned_trace(tmp_path: Path, served_factory: Callable[..., ServedCollection]) -> None:
    served = served_factory()
    (tmp_path / "leave.md").write_text(LEAVE, encoding="utf-8")
    assert served.kb.ingest(tmp_path / "leave.md").ok

    def no_store_read(trace_id: str) -> None:
        raise AssertionError(f"read trace {trace_id} back from the store")

    served.kb.store.get_trace = no_store_read  # type: ignore[method-assign]
    outcome = served.ask(ANONYMOUS, "年次有給休暇は何日付与されますか？", None, None)
    assert outcome.answer.trace is not None and outcome.timings == outcome.answer.trace.timings
    assert outcome.timings["total"] > 0
    final = list(served.ask_stream(ANONYMOUS, "How many days of sick leave are paid?", None, None))[-1]
    assert isinstance(final, AskOutcome) and {"search", "generate", "total"} <= set(final.timings)
