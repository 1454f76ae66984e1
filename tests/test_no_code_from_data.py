"""No loader in src/ can run code from data: collection files, uploads and model folders are untrusted input.

Ruff's bandit rules catch `pickle.loads`, `eval`, `exec` and `yaml.load` (S301, S307, S102, S506 in pyproject.toml);
this check catches what no ruff rule names: numpy's `allow_pickle=True`, and `torch.load` without `weights_only=True`.
The one pickle read in src/ (the parse worker's pipe, `ingest/isolation.py`) carries a `noqa: S301` saying why.
"""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

FORBIDDEN = {
    "allow_pickle=True": re.compile(r"allow_pickle\s*=\s*True"),
    "torch.load without weights_only=True": re.compile(r"torch\.load\((?![^)]*weights_only\s*=\s*True)"),
    "pickle.load from a file": re.compile(r"\bpickle\.load\("),
    "yaml.load / yaml.unsafe_load": re.compile(r"\byaml\.(?:unsafe_)?load\("),
    "np.load": re.compile(r"\bnp\.load\((?![^)]*allow_pickle\s*=\s*False)"),
}


def _violations(text: str) -> list[str]:
    return [name for name, pattern in FORBIDDEN.items() if pattern.search(text)]


def test_the_check_finds_each_forbidden_loader() -> None:
    assert _violations("terms = np.load(path, allow_pickle=True)") == ["allow_pickle=True", "np.load"]
    assert _violations("state = torch.load(folder / 'model.bin')") == ["torch.load without weights_only=True"]
    assert _violations("state = torch.load(path, weights_only=True)") == []
    assert _violations("data = yaml.load(text)") == ["yaml.load / yaml.unsafe_load"]
    assert _violations("data = yaml.safe_load(text)") == []
    assert _violations("x = pickle.load(handle)") == ["pickle.load from a file"]
    assert _violations("m = np.load(path, allow_pickle=False)") == []


def test_no_module_in_src_uses_a_loader_that_can_run_code() -> None:
    found = {
        str(path.relative_to(SRC)): hits
        for path in sorted(SRC.rglob("*.py"))
        if (hits := _violations(path.read_text(encoding="utf-8")))
    }
    assert found == {}
