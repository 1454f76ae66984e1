"""Evaluation: golden sets, retrieval and answer metrics, experiments across configurations, reports.

    from bunko.evaluate import load_golden, run_experiment, Variant
    experiment = run_experiment(load_golden("golden.jsonl"), [Variant("default", kb.config, "bunko.toml")], collection=path)

The command line is ``bunko eval init | generate | run`` (bunko/cli/evaluate.py). The names below are imported on first
use (PEP 562), so importing one module of this package (the help's `golden_format`) does not load the experiments.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bunko.evaluate.experiments import Experiment, RunResult, run_experiment
    from bunko.evaluate.golden import GoldenError, GoldenItem, load_golden
    from bunko.evaluate.variants import Variant, load_variants

_EXPORTS = {
    "Experiment": "bunko.evaluate.experiments", "RunResult": "bunko.evaluate.experiments",
    "run_experiment": "bunko.evaluate.experiments", "GoldenError": "bunko.evaluate.golden",
    "GoldenItem": "bunko.evaluate.golden", "load_golden": "bunko.evaluate.golden", "Variant": "bunko.evaluate.variants",
    "load_variants": "bunko.evaluate.variants",
}
__all__ = ["Experiment", "GoldenError", "GoldenItem", "RunResult", "Variant", "load_golden", "load_variants", "run_experiment"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'bunko.evaluate' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
