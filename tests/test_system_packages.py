"""Tests skipped for a missing system package are counted at the end of the run, with the command that installs them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from system_packages import INSTALL_SYSTEM_PACKAGES, system_packages_note

ROOT = Path(__file__).resolve().parents[1]


def test_the_summary_names_the_skips_for_missing_packages_and_the_install_command() -> None:
    reports = [
        SimpleNamespace(longrepr=("tests/server/test_browser.py", 20, "Skipped: Debian chromium is not installed (deps/apt.txt)")),
        SimpleNamespace(longrepr=("tests/parse/test_ocr.py", 20, "Skipped: no font to render the scan's script (apt-get install fonts-wqy-microhei)")),
        SimpleNamespace(longrepr=("tests/parse/test_ocr.py", 30, "Skipped: no font to render the scan's script (apt-get install fonts-wqy-microhei)")),
        SimpleNamespace(longrepr=("tests/parse/test_adapters.py", 24, "Skipped: markitdown is installed")),
    ]
    note = system_packages_note(reports)
    assert note is not None and note.startswith("3 tests skipped for missing system packages")
    assert "chromium" in note and "fonts-wqy-microhei" in note and "markitdown" not in note
    assert note.endswith(INSTALL_SYSTEM_PACKAGES)
    assert system_packages_note(reports[3:]) is None


def test_the_readme_says_so_and_the_install_command_installs_every_package_the_skips_name() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tests_section = readme[readme.index("**Run the tests**"):readme.index("## Command line")]
    assert "skipped" in tests_section and INSTALL_SYSTEM_PACKAGES in tests_section
    packages = {line.strip() for line in (ROOT / "deps" / "apt.txt").read_text().splitlines() if line.strip() and not line.startswith("#")}
    assert {"tesseract-ocr", "tesseract-ocr-jpn", "tesseract-ocr-chi-sim", "chromium", "fonts-wqy-microhei"} <= packages
