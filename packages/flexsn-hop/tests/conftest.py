"""Make ``hop_reference`` (shared test helpers) importable under
``--import-mode=importlib`` and keep Dynamo / hook state per test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.fixture(autouse=True)
def _clean_hop_state() -> Iterator[None]:
    import torch._dynamo

    import flexsn_hop

    torch._dynamo.reset()
    previous = flexsn_hop.register_fused_impl(None)
    yield
    # restore the process's hook (the runtime kernels by default) for tests run after these
    flexsn_hop.register_fused_impl(previous)


@pytest.fixture
def fused_paths(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The fused hook on, and the route of every fused run (``runtime_fusion.run_route``), in order."""
    import flexsn_hop
    from flexsn_hop import runtime_fusion

    flexsn_hop.enable_fused_kernels(True)  # every test starts without the fused hook (above)
    paths: list[str] = []
    real = runtime_fusion.run_route

    def spy(kernel, r, *args, **kwargs):  # type: ignore[no-untyped-def]
        paths.append(r.path)
        return real(kernel, r, *args, **kwargs)

    monkeypatch.setattr(runtime_fusion, "run_route", spy)
    yield paths
    flexsn_hop.enable_fused_kernels(False)
