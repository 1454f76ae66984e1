"""The CI skip policy (tests/skip_policy.py): a skip fails under CI=true unless the allow-list names it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skip_policy import AllowedSkip, load_allowed, unallowed

TESTS = Path(__file__).resolve().parent


def test_an_entry_allows_its_tests_and_only_with_its_reason_fragment() -> None:
    entry = AllowedSkip("tests/store/test_pg*.py::*", "no server here", when="pgserver")
    assert entry.allows("tests/store/test_pg_x.py::test_a", "pgserver is not installed")
    assert not entry.allows("tests/store/test_pg_x.py::test_a", "psycopg is not installed")
    assert not entry.allows("tests/embed/test_e.py::test_a", "pgserver is not installed")
    assert unallowed("tests/embed/test_e.py::test_a", "torch missing", [entry]) is not None
    assert unallowed("tests/store/test_pg_x.py::test_a", "pgserver missing", [entry]) is None


def test_an_entry_without_a_reason_is_refused(tmp_path: Path) -> None:
    listed = tmp_path / "allowed.toml"
    listed.write_text('[[skip]]\ntest = "tests/x.py::*"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="needs both `test` and `reason`"):
        load_allowed(listed)


def test_the_repository_allow_list_is_valid_and_short() -> None:
    assert len(load_allowed()) <= 10


def _run(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_sample.py").write_text(
        "import pytest\n\n"
        "def test_runs():\n    assert True\n\n"
        "def test_needs_a_tool():\n    pytest.skip('the frobnicator is not installed')\n\n"
        "def test_allowed():\n    pytest.skip('needs a GPU')\n\n"
        "@pytest.mark.xfail(reason='known gap', strict=True)\ndef test_known_gap():\n    assert False\n",
        encoding="utf-8",
    )
    listed = tmp_path / "allowed.toml"
    listed.write_text('[[skip]]\ntest = "test_sample.py::test_allowed"\nreason = "no GPU on CI machines"\n', encoding="utf-8")
    env = {**os.environ, "CI": ci, "BUNKO_ALLOWED_SKIPS": str(listed), "PYTHONPATH": str(TESTS)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "skip_policy", "-p", "no:cacheprovider", "test_sample.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )


def test_in_ci_a_skip_off_the_list_fails_the_run_and_says_why(tmp_path: Path) -> None:
    result = _run(tmp_path, "true")
    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 passed, 1 skipped, 1 xfailed" in result.stdout
    assert "skipped in CI: the frobnicator is not installed" in result.stdout


def test_outside_ci_a_skip_is_a_skip(tmp_path: Path) -> None:
    result = _run(tmp_path, "")
    assert result.returncode == 0, result.stdout
    assert "1 passed, 2 skipped, 1 xfailed" in result.stdout
