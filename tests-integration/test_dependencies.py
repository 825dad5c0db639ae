"""Each package's pyproject declares, with a version range, every distribution its sources import,
and no package imports a private name of another."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").exists())
#: import name -> distribution, for what the packages may use outside the standard library
THIRD_PARTY = {"torch": "torch", "triton": "triton", "numpy": "numpy", "functorch": "torch"}


def _imports(package: str) -> list[tuple[str, str, Path]]:
    """``(top-level module, full statement text, file)`` of every absolute import in a package's sources."""
    found = []
    for path in (ROOT / "packages" / package / "src").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [(a.name.split(".")[0], a.name, path) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = ",".join(a.name for a in node.names)
                found.append((node.module.split(".")[0], f"{node.module}:{names}", path))
    return found


def _declared(package: str) -> dict[str, str]:
    meta = tomllib.loads((ROOT / "packages" / package / "pyproject.toml").read_text(encoding="utf-8"))
    out = {}
    for req in meta["project"].get("dependencies", []):
        m = re.match(r"([A-Za-z0-9_.-]+)\s*(.*)", req)
        assert m is not None
        out[m.group(1).lower()] = m.group(2)
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_every_import_is_declared_with_a_range(package: str) -> None:
    own = package.replace("-", "_")
    declared = _declared(package)
    needed = set()
    for top, _, _ in _imports(package):
        if top == own or top in sys.stdlib_module_names or top == "__future__":
            continue
        needed.add(top.replace("_", "-") if top.startswith("flexsn_") else THIRD_PARTY.get(top, top))
    missing = sorted(needed - set(declared))
    assert not missing, f"{package} imports {missing} without declaring them in pyproject.toml"
    for dist, spec in declared.items():
        assert spec, f"{package} declares {dist} without a version range"


@pytest.mark.parametrize("package", PACKAGES)
def test_no_private_name_of_another_package(package: str) -> None:
    own = package.replace("-", "_")
    bad = []
    for top, text, path in _imports(package):
        if top.startswith("flexsn_") and top != own:
            module, _, names = text.partition(":")
            parts = module.split(".")[1:] + [n for n in names.split(",") if n]
            if any(p.startswith("_") for p in parts):
                bad.append(f"{path.relative_to(ROOT)}: {text}")
    assert not bad, bad
