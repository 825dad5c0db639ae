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
