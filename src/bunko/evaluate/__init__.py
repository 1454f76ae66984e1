"""Evaluation: golden sets, retrieval and answer metrics, experiments across configurations, reports.

    from bunko.evaluate import load_golden, run_experiment, Variant
    experiment = run_experiment(load_golden("golden.jsonl"), [Variant("default", kb.config, "bunko.toml")], collection=path)

The command line is ``bunko eval init | generate | run`` (bunko/cli/evaluate.py).
"""

from bunko.evaluate.experiments import Experiment, RunResult, run_experiment
from bunko.evaluate.golden import GoldenError, GoldenItem, load_golden
from bunko.evaluate.variants import Variant, load_variants

__all__ = ["Experiment", "GoldenError", "GoldenItem", "RunResult", "Variant", "load_golden", "load_variants", "run_experiment"]
