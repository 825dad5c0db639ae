"""The layer rule: a FlexSN package, and its tests, import only its own and lower layers; no import cycles inside one.

Two checks, both able to fail:

* import-linter's contracts in ``.importlinter`` over the installed
  packages (it follows imports inside the five source trees): ``layers``,
  and ``acyclic_siblings`` (no module of a package imports one that imports
  it back, under ``if TYPE_CHECKING:`` included);
* an ``ast`` scan of every ``.py`` file under ``packages/<dist>/src`` and
  ``packages/<dist>/tests`` (import-linter does not see test folders).

Each check is also run against a planted violation in a temporary copy, so a
check that silently stopped detecting anything would fail here.
"""

from __future__ import annotations

import ast
import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import release

REPO = Path(__file__).resolve().parents[1]
LAYER_OF = {release.import_name(dist): layer for layer, dist in enumerate(release.PACKAGES)}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import statement in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def layer_violations(repo: Path) -> list[str]:
    """Imports of a higher FlexSN layer in any package's src/ or tests/ tree."""
    violations = []
    for dist in release.PACKAGES:
        own = LAYER_OF[release.import_name(dist)]
        for folder in ("src", "tests"):
            for path in sorted((repo / "packages" / dist / folder).rglob("*.py")):
                for line, module in imported_modules(path):
                    top = module.split(".")[0]
                    if LAYER_OF.get(top, -1) > own:
                        violations.append(
                            f"{path.relative_to(repo)}:{line}: imports {module} "
                            f"(layer {LAYER_OF[top] + 1}) from layer {own + 1} ({dist})"
                        )
    return violations


def run_lint_imports(repo: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the five source trees under ``repo``."""
    src_dirs = [str(repo / "packages" / dist / "src") for dist in release.PACKAGES]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(src_dirs))
    lint_imports = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(lint_imports), str(repo / ".importlinter"), "--no-cache", "--no-logo"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )


def plant(repo: Path, dist: str, folder: str, text: str) -> None:
    target = repo / "packages" / dist / folder
    if folder == "src":
        target = target / release.import_name(dist)
    (target / "_planted_layer_break.py").write_text(text, encoding="utf-8")


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """The packages' src/tests trees and .importlinter, copied."""
    copy = tmp_path / "repo"
    for dist in release.PACKAGES:
        for folder in ("src", "tests"):
            shutil.copytree(
                REPO / "packages" / dist / folder,
                copy / "packages" / dist / folder,
                ignore=shutil.ignore_patterns("__pycache__"),
            )
    shutil.copy(REPO / ".importlinter", copy / ".importlinter")
    return copy


def test_importlinter_layers_match_package_order() -> None:
    config = configparser.ConfigParser()
    config.read(REPO / ".importlinter")
    layers = config["importlinter:contract:layers"]["layers"].split()
    roots = config["importlinter"]["root_packages"].split()
    expected = [release.import_name(dist) for dist in reversed(release.PACKAGES)]
    assert layers == expected, "the .importlinter layers must list tools/release.py PACKAGES, highest first"
    assert sorted(roots) == sorted(expected)


def test_import_linter_contract_kept() -> None:
    result = run_lint_imports(REPO)
    assert result.returncode == 0, f"lint-imports failed:\n{result.stdout}\n{result.stderr}"


def test_import_linter_detects_a_planted_break(repo_copy: Path) -> None:
    plant(repo_copy, "flexsn-trace", "src", "import flexsn_nn\n")
    result = run_lint_imports(repo_copy)
    assert result.returncode != 0, f"lint-imports missed a planted layer break:\n{result.stdout}"
    assert "BROKEN" in result.stdout and "_planted_layer_break" in result.stdout, result.stdout


def plant_cycle(repo: Path, back: str) -> subprocess.CompletedProcess[str]:
    """Plant a module that ``flexsn_runtime.routing`` imports and that imports routing back by ``back``; lint."""
    plant(repo, "flexsn-runtime", "src", back)
    routing = repo / "packages" / "flexsn-runtime" / "src" / "flexsn_runtime" / "routing.py"
    routing.write_text(routing.read_text(encoding="utf-8") + "\nfrom . import _planted_layer_break\n", encoding="utf-8")
    return run_lint_imports(repo)


def test_import_linter_detects_a_planted_cycle(repo_copy: Path) -> None:
    # a function-level import back into a module that imports this one is a cycle too
    result = plant_cycle(repo_copy, "def f():\n    from . import routing\n")
    assert result.returncode != 0, f"lint-imports missed a planted import cycle:\n{result.stdout}"
    assert "No cycles are allowed in flexsn_runtime" in result.stdout and "_planted_layer_break" in result.stdout, result.stdout


def test_import_linter_detects_an_annotation_only_cycle(repo_copy: Path) -> None:
    # the same cycle for annotations only: never imported at run time, but it hides the lower module all the same
    # (a lower module names what it needs of a higher one in a Protocol: flexsn_runtime.routing.RoutedKernel)
    result = plant_cycle(repo_copy, "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import routing\n")
    assert result.returncode != 0, f"lint-imports missed an annotation-only import cycle:\n{result.stdout}"
    assert "No cycles are allowed in flexsn_runtime" in result.stdout, result.stdout


def test_sources_and_tests_import_only_lower_layers() -> None:
    violations = layer_violations(REPO)
    assert not violations, "layer breaks (a package and its tests import only lower layers):\n" + "\n".join(
        violations
    )


@pytest.mark.parametrize(
    ("dist", "folder", "text"),
    [
        ("flexsn-codegen", "tests", "from flexsn_runtime import something\n"),
        ("flexsn-hop", "src", "def f():\n    import flexsn_nn.module\n"),
        ("flexsn-trace", "tests", "import os, flexsn_hop as hop\n"),
    ],
)
def test_ast_scan_detects_a_planted_break(repo_copy: Path, dist: str, folder: str, text: str) -> None:
    before = set(layer_violations(repo_copy))
    plant(repo_copy, dist, folder, text)
    new = set(layer_violations(repo_copy)) - before
    assert len(new) == 1 and "_planted_layer_break.py" in new.pop(), new


def test_ast_scan_allows_own_and_lower_layers(repo_copy: Path) -> None:
    before = layer_violations(repo_copy)
    plant(repo_copy, "flexsn-runtime", "tests", "import flexsn_runtime\nfrom flexsn_trace import x\nfrom . import y\n")
    assert layer_violations(repo_copy) == before
