"""A search scores the same in every process: sums over a question's terms do not follow the hash seed's set order."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
from bunko.index.bm25 import BM25Index
from bunko.retrieve.coverage import keyword_coverage, term_coverage
from bunko.text.analyzers import multilingual
texts = ["fcitx5 は日本語入力の枠組みです。", "fcitx5 是输入法框架，支持中文输入。", "Configure fcitx5 for Japanese input on GNOME."] * 3
index = BM25Index().build([multilingual(t) for t in texts])
question = multilingual("fcitx5 で日本語入力を GNOME に設定するには？ 怎么配置中文输入？ How do I configure input?")
idf = index.idf(question)
print(list(idf))
print(repr(keyword_coverage(question, set(multilingual(texts[0])), idf)))
print(repr(term_coverage({"c": set(multilingual(texts[1]))}, idf)["c"]))
"""


def _run(seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True).stdout


def test_idf_and_coverage_are_the_same_under_any_hash_seed() -> None:
    runs = {_run(seed) for seed in ("1", "2", "3", "4")}
    assert len(runs) == 1, runs
