"""Modules stay small: every Python file of the packages (sources and tests), the cross-package tests and the
developer tools holds at most 500 lines (the team's rule: short modules named for what they hold).

``tools/results/`` is left out: its scripts are records of what ran on the GPU, kept as they ran.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAX_LINES = 500


def module_files() -> list[Path]:
    """The Python files the rule covers."""
    roots = [*sorted((REPO / "packages").glob("*/src")), *sorted((REPO / "packages").glob("*/tests")), REPO / "tests-integration"]
    files = [p for root in roots for p in root.rglob("*.py")]
    files += [p for p in (REPO / "tools").glob("*.py")]  # not tools/results/: records of runs
    return sorted(files)


def too_long(files: list[Path], root: Path = REPO) -> list[str]:
    """``"path: N lines"`` (relative to ``root``) for each file over :data:`MAX_LINES`."""
    out = []
    for p in files:
        n = len(p.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            out.append(f"{p.relative_to(root)}: {n} lines")
    return out


def test_every_module_holds_at_most_500_lines() -> None:
    files = module_files()
    assert len(files) > 200  # the search found the tree
    assert too_long(files) == [], "split these modules by what they hold"


def test_the_check_finds_a_long_module(tmp_path: Path) -> None:
    planted = tmp_path / "long.py"
    planted.write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    short = tmp_path / "short.py"
    short.write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    assert too_long([planted, short], tmp_path) == [f"long.py: {MAX_LINES + 1} lines"]
