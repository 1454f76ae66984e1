"""How many threads llama.cpp is given: the physical cores bunko may use, under its cgroup quota, at most 4; and
`bunko ask` says so on stderr, leaving --json's stdout one document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko.cli import app
from bunko.llm import llamacpp
from bunko.llm.llamacpp import MAX_DEFAULT_THREADS, default_threads


def cpu_tree(root: Path, cores: list[tuple[int, int]]) -> Path:
    """A sysfs CPU tree: logical CPU i sits on (package, core) = cores[i]."""
    for cpu, (package, core) in enumerate(cores):
        topology = root / f"cpu{cpu}" / "topology"
        topology.mkdir(parents=True)
        (topology / "physical_package_id").write_text(f"{package}\n")
        (topology / "core_id").write_text(f"{core}\n")
    return root


def cgroup_v2(root: Path, line: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "cpu.max").write_text(line + "\n")
    return root


def cgroup_v1(root: Path, quota: int, period: int) -> Path:
    (root / "cpu").mkdir(parents=True)
    (root / "cpu" / "cpu.cfs_quota_us").write_text(f"{quota}\n")
    (root / "cpu" / "cpu.cfs_period_us").write_text(f"{period}\n")
    return root


def test_hyper_threads_of_one_core_count_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llamacpp, "allowed_cpus", lambda: {0, 1, 2, 3})
    cpus = cpu_tree(tmp_path / "cpu", [(0, 0), (0, 0), (0, 1), (0, 1)])
    threads = default_threads(None, cgroup=tmp_path / "none", cpu_root=cpus, load=0.0)
    assert threads.count == 2 and "physical cores" in threads.reason


def test_only_the_cpus_this_process_may_use_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llamacpp, "allowed_cpus", lambda: {2, 3})
    cpus = cpu_tree(tmp_path / "cpu", [(0, c) for c in range(8)])
    assert default_threads(None, cgroup=tmp_path / "none", cpu_root=cpus, load=0.0).count == 2


def test_a_cgroup_quota_lowers_the_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llamacpp, "allowed_cpus", lambda: set(range(8)))
    cpus = cpu_tree(tmp_path / "cpu", [(0, c) for c in range(8)])
    v2 = default_threads(None, cgroup=cgroup_v2(tmp_path / "v2", "150000 100000"), cpu_root=cpus, load=0.0)
    assert v2.count == 2 and "quota of 1.5" in v2.reason
    v1 = default_threads(None, cgroup=cgroup_v1(tmp_path / "v1", 100000, 100000), cpu_root=cpus, load=0.0)
    assert v1.count == 1
    unlimited = default_threads(None, cgroup=cgroup_v2(tmp_path / "max", "max 100000"), cpu_root=cpus, load=0.0)
    assert unlimited.count == MAX_DEFAULT_THREADS


def test_many_cores_are_capped_and_the_setting_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llamacpp, "allowed_cpus", lambda: set(range(32)))
    unreadable = tmp_path / "no-topology"  # no sysfs: logical CPUs are counted
    threads = default_threads(None, cgroup=tmp_path / "none", cpu_root=unreadable, load=0.0)
    assert threads.count == MAX_DEFAULT_THREADS == 4 and "at most 4" in threads.reason
    assert default_threads(12).count == 12
    assert "[llm]" in default_threads(12).notice() and "threads = N" in default_threads(None).notice()


def test_cores_other_processes_keep_busy_are_left_to_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llamacpp, "allowed_cpus", lambda: set(range(4)))
    cpus = cpu_tree(tmp_path / "cpu", [(0, c) for c in range(4)])
    assert default_threads(None, cgroup=tmp_path / "none", cpu_root=cpus, load=0.9).count == 4, "its own task is not busy"
    threads = default_threads(None, cgroup=tmp_path / "none", cpu_root=cpus, load=3.2)
    assert threads.count == 1 and "2.2 kept busy by other processes" in threads.reason
    assert default_threads(None, cgroup=tmp_path / "none", cpu_root=cpus, load=12.0).count == 1, "never fewer than one"
    assert default_threads(3, load=12.0).count == 3, "the setting wins"


def test_this_machine_gets_at_least_one_and_at_most_four() -> None:
    assert 1 <= default_threads(None).count <= MAX_DEFAULT_THREADS


def test_ask_with_the_local_model_names_its_threads_on_stderr(samples_kb_path: Path, tmp_path: Path) -> None:
    """A model file llama.cpp cannot load: the answer falls back to the extractive one, and nothing is generated, so
    the test needs no CPU time for the model; the notice is printed before anything is asked."""
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)
    question = "How many API requests per minute does one key get?"
    result = CliRunner().invoke(app, ["ask", question, "-c", str(samples_kb_path), "--generator", "llamacpp",
                                      "--model-path", str(broken), "--json"])
    assert result.exit_code == 0, result.output
    assert "llama.cpp uses" in result.stderr and "threads = N" in result.stderr and "[llm]" in result.stderr
    assert json.loads(result.stdout)["question"] == question  # stdout is the JSON alone
