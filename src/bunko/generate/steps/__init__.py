"""The answerer's steps, in the order `Answerer.run` calls them.

Each is a function from the typed state the step before handed on to the next state, or to the answer:

| step | module | reads → hands on |
|---|---|---|
| condense | `condense.pose` | the user's words (and history) → `AskState` |
| analyse | `analyse.analyse` | `AskState` → `AskState` with its `Analysis` |
| direct reply | `direct.direct_reply` | `AskState` → `Answer`, or None to search |
| retrieve | `retrieve.retrieve` | `AskState` → `Gathered` (the evidence, graded) |
| summary | `summary.summarise` | `Gathered` → `Gathered` with an overview's central sentences, graded as evidence for its subject |
| unrepeat | `unrepeat.unrepeated` | `AskState`, `Gathered` → the same, or a condensed follow-up read again when the reader would repeat the previous answer |
| table | `table.tabulate`, `table.computed` | `Gathered` → sentences computed from a table, or None |
| judge | `retrieve.judge` | `Gathered` → `Gathered` with the reason not to answer, if any |
| compose | `compose.compose` | `Gathered` → `Composed` (what the generator wrote and the check kept) |
| check | `check.check` | `Composed` → `Answer`, its trace saved |

The steps that write text (`compose`, `check`, `computed`) are generators: they yield text deltas while streaming
and return their state, so `run` streams with ``yield from``.
"""

from bunko.generate.steps.analyse import analyse
from bunko.generate.steps.check import check
from bunko.generate.steps.compose import compose
from bunko.generate.steps.condense import pose
from bunko.generate.steps.direct import direct_reply
from bunko.generate.steps.retrieve import judge, retrieve
from bunko.generate.steps.summary import summarise
from bunko.generate.steps.table import computed, tabulate
from bunko.generate.steps.unrepeat import unrepeated

__all__ = ["analyse", "check", "compose", "computed", "direct_reply", "judge", "pose", "retrieve", "summarise", "tabulate",
           "unrepeated"]
