"""Every public name has a docstring: each function and class a package exports (its ``__all__``), and each public
method and property of those classes (the team's rule: shapes, dtypes, errors and where the behaviour comes from are
written where a reader looks, ``help(flexsn_nn.FlexSN)``).

Type aliases (``flexsn_hop.CoreFn``) cannot hold a docstring and are documented by a comment beside them; module-level
constants are documented by a ``#:`` comment. Neither is checked here.
"""

from __future__ import annotations

import importlib
import inspect
import types
from typing import Any

import pytest

PACKAGES = ["flexsn_trace", "flexsn_codegen", "flexsn_runtime", "flexsn_hop", "flexsn_nn"]


def undocumented(module: types.ModuleType) -> list[str]:
    """``"module.name"`` (or ``"module.Class.member"``) for each public function, class, method or property of
    ``module.__all__`` without a docstring; names defined in another package (re-exports of PyTorch's) are not
    checked."""
    out: list[str] = []
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue  # constants, aliases, instances (flex_sn_scan's operator is checked through its class)
        if not getattr(obj, "__module__", "").startswith(module.__name__.split(".")[0]):
            continue
        if not (obj.__doc__ or "").strip():
            out.append(f"{module.__name__}.{name}")
        if inspect.isclass(obj):
            out += [f"{module.__name__}.{name}.{m}" for m in _undocumented_members(obj)]
    return out


def _undocumented_members(cls: type) -> list[str]:
    """The public methods and properties ``cls`` itself defines without a docstring."""
    out = []
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        func: Any = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
        if (inspect.isfunction(func) or isinstance(func, property)) and not (func.__doc__ or "").strip():
            out.append(name)
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_function_class_and_member_has_a_docstring(package: str) -> None:
    module = importlib.import_module(package)
    assert len(module.__all__) > 5  # the package exports its API
    assert undocumented(module) == []


def test_the_check_finds_an_undocumented_name() -> None:
    planted = types.ModuleType("flexsn_planted")

    def documented() -> None:
        """Does nothing, and says so."""

    def bare() -> None:
        pass

    class Holder:
        """A class whose method and property say nothing."""

        def run(self) -> None:
            pass

        @property
        def size(self) -> int:
            return 0

        @staticmethod
        def told() -> None:
            """Documented."""

    for f in (documented, bare, Holder):
        f.__module__ = "flexsn_planted"
    planted.__dict__.update(documented=documented, bare=bare, Holder=Holder, LIMIT=3)
    planted.__all__ = ["documented", "bare", "Holder", "LIMIT"]  # type: ignore[attr-defined]
    assert undocumented(planted) == ["flexsn_planted.bare", "flexsn_planted.Holder.run", "flexsn_planted.Holder.size"]
