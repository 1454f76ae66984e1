"""One experiment over the sample documents, shared by the experiment and report tests (it takes ~30 s); the fake chat server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bunko import Config
from bunko.embed.use_m3 import UseM3Embedder
from bunko.evaluate.experiments import Experiment, run_experiment
from bunko.evaluate.golden import GoldenItem, load_golden
from bunko.evaluate.variants import Variant

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generate"))  # fake_openai.py: the tests' OpenAI-compatible server

SAMPLES_GOLDEN = Path(__file__).resolve().parents[2] / "src" / "bunko" / "samples" / "golden.jsonl"

TINY_FIXED = {"chunk": {"strategy": "fixed", "max_chars": 60}}
"""Known to be worse on table questions: 60-character windows cut every table row apart from its header."""


@pytest.fixture(scope="session")
def table_items() -> list[GoldenItem]:
    """The samples' table questions plus four absent ones (so abstention metrics are exercised too)."""
    items = load_golden(SAMPLES_GOLDEN)
    return [i for i in items if i.type == "table"] + [i for i in items if i.absent][:4]


@pytest.fixture(scope="session")
def table_experiment(table_items: list[GoldenItem], embedder: UseM3Embedder, samples_dir: Path) -> Experiment:
    variants = [
        Variant("default", Config(), "defaults"),
        Variant("fixed60", Config.from_dict(TINY_FIXED), "fixed60.toml"),
        Variant("k3", Config.from_dict({"retrieve": {"k": 3}}), "k3.toml"),
    ]
    return run_experiment(
        table_items, variants, docs=[samples_dir], embedder=embedder, ks=(1, 5, 10), resamples=500, golden=str(SAMPLES_GOLDEN),
    )
