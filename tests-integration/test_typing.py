"""All five packages type-check under the one strict configuration in mypy.ini."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import release

REPO = Path(__file__).resolve().parents[1]


def has_modules(dist: str) -> bool:
    """Whether the package's source holds a module other than __about__.py."""
    src = REPO / "packages" / dist / "src" / release.import_name(dist)
    return any(path.name != "__about__.py" for path in src.rglob("*.py"))


def test_mypy_strict() -> None:
    packages = [release.import_name(dist) for dist in release.PACKAGES if has_modules(dist)]
    if not packages:
        pytest.skip("no package has modules besides __about__.py yet")
    command = [sys.executable, "-m", "mypy", "--config-file", "mypy.ini"]
    for package in packages:
        command += ["-p", package]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command[1:])} failed:\n{result.stdout}\n{result.stderr}"
