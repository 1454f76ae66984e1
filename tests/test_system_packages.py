"""Tests skipped for a missing system package are counted at the end of the run, with the command that installs them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from system_packages import INSTALL_SYSTEM_PACKAGES, missing, system_packages_note

ROOT = Path(__file__).resolve().parents[1]


def test_the_summary_names_the_skips_for_missing_packages_and_the_install_command() -> None:
    reports = [
        SimpleNamespace(longrepr=("tests/server/test_browser.py", 20, "Skipped: " + missing("Chromium (the chromium package)"))),
        SimpleNamespace(longrepr=("tests/parse/test_ocr.py", 20, "Skipped: " + missing("a CJK font (fonts-wqy-microhei)"))),
        SimpleNamespace(longrepr=("tests/parse/test_ocr.py", 30, "Skipped: " + missing("a CJK font (fonts-wqy-microhei)"))),
        SimpleNamespace(longrepr=("tests/parse/test_adapters.py", 24, "Skipped: markitdown is installed")),
    ]
    note = system_packages_note(reports)
    assert note is not None and note.startswith("3 tests skipped for missing system packages")
    assert "chromium" in note and "fonts-wqy-microhei" in note and "markitdown" not in note
    assert note.endswith(INSTALL_SYSTEM_PACKAGES) and note.count(INSTALL_SYSTEM_PACKAGES) == 1
    assert "Chromium (the chromium package) is not installed" in note
    assert system_packages_note(reports[3:]) is None


def test_the_readme_says_so_and_the_install_command_installs_every_package_the_skips_name() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tests_section = readme[readme.index("**Run the tests**"):readme.index("## Command line")]
    assert "skipped" in tests_section and INSTALL_SYSTEM_PACKAGES in tests_section
    packages = {line.strip() for line in (ROOT / "deps" / "apt.txt").read_text().splitlines() if line.strip() and not line.startswith("#")}
    assert {"tesseract-ocr", "tesseract-ocr-jpn", "tesseract-ocr-chi-sim", "chromium", "fonts-wqy-microhei"} <= packages


def test_every_skip_for_a_system_package_names_the_tool_and_the_install_command() -> None:
    """A skip that names a package of deps/apt.txt goes through `missing`, so its reason carries the command."""
    packages = {line.strip() for line in (ROOT / "deps" / "apt.txt").read_text().splitlines() if line.strip()}
    for path in (ROOT / "tests").rglob("*.py"):
        if path.name == "test_system_packages.py":
            continue
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            if ("pytest.skip(" in line or "skipif(" in line) and any(p in line.lower() for p in ("chromium", "tesseract", "font")):
                assert "missing(" in line, f"{path.name}: {line.strip()}"
    assert {"chromium", "fonts-wqy-microhei"} <= packages
