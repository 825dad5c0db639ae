"""A pytest plugin that lists tests whose every tensor comparison was of all-zero tensors.

Spiking outputs are often all zero: inputs too small to reach the threshold, a
constant that silences the neuron. A test that then compares the fused result with
its reference compares zeros with zeros, and passes whatever the kernels compute
(the kind of test our working rules call a defect: one that cannot fail). This
plugin wraps :func:`torch.testing.assert_close` for a run and, at the end,
writes the node ids of tests in which at least one floating-point comparison ran
and every one of them had both sides all zero.

Usage (from the repository root; ``-n`` workers each write their own file)::

    PYTHONPATH=$(ls -d packages/*/src | paste -sd:):tools TRITON_INTERPRET=1 \\
        python -m pytest -p zero_compare_audit packages/*/tests tests-integration
    # -> zero_compare_audit.<pid>.json in ZERO_AUDIT_DIR (default: the current folder)

The file holds two lists, ``all_zero`` (every comparison all zero) and
``spikes_all_zero`` (every comparison of 0/1 tensors all zero: the neuron never
fired in what was compared). ``torch.allclose`` and ``torch.equal`` are counted too (a ``not torch.allclose(...)`` as
well: a lead, not a verdict); comparisons through ``==`` or NumPy are not seen. A test listed
is a lead, not a verdict: a gradient that must be zero is a fine thing to assert,
but then say so next to a comparison that can fail.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

import pytest
import torch

#: test node id -> [floating-point comparisons, of which both sides were all zero,
#:                  spike-like (0/1) comparisons, of which both sides were all zero]
_COUNTS: dict[str, list[int]] = {}
_CURRENT: list[str] = []
_assert_close = torch.testing.assert_close


def _both_zero(actual: Any, expected: Any) -> bool | None:
    """Whether both sides are all-zero floating tensors; ``None`` when the comparison is not of such tensors."""
    if not (isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor)):
        return None
    if actual.numel() == 0 or not actual.is_floating_point() or actual.is_meta:
        return None
    return not bool(torch.count_nonzero(actual.detach())) and not bool(torch.count_nonzero(expected.detach()))


def _spike_like(t: torch.Tensor) -> bool:
    """Whether every element of ``t`` is 0 or 1 (a spike tensor, or one that could pass for it)."""
    d = t.detach()
    return bool(((d == 0) | (d == 1)).all())


def _count(actual: Any, expected: Any) -> None:
    """Count one comparison of ``actual`` with ``expected`` for the running test."""
    if not _CURRENT:
        return
    try:
        zero = _both_zero(actual, expected)
        spikes = zero is not None and _spike_like(actual) and _spike_like(expected)
    except Exception:  # noqa: BLE001 - a subclass or fake tensor: not this audit's business
        zero, spikes = None, False
    if zero is not None:
        counts = _COUNTS.setdefault(_CURRENT[-1], [0, 0, 0, 0])
        counts[0] += 1
        counts[1] += int(zero)
        counts[2] += int(spikes)
        counts[3] += int(spikes and zero)


def _counting_assert_close(actual: Any, expected: Any, *args: Any, **kwargs: Any) -> None:
    _count(actual, expected)
    _assert_close(actual, expected, *args, **kwargs)


def _counting(compare: Any) -> Any:
    """``torch.allclose`` / ``torch.equal`` counted alike (a test may assert through them)."""

    def counted(actual: Any, expected: Any, *args: Any, **kwargs: Any) -> Any:
        _count(actual, expected)
        return compare(actual, expected, *args, **kwargs)

    return counted


torch.testing.assert_close = _counting_assert_close  # type: ignore[assignment]
torch.allclose = _counting(torch.allclose)
torch.equal = _counting(torch.equal)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Attribute the comparisons made while ``item`` runs to its node id."""
    _CURRENT.append(item.nodeid)
    try:
        yield
    finally:
        _CURRENT.pop()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write both lists of leads, and say how long each is.

    ``all_zero``: tests whose every comparison was of all-zero tensors.
    ``spikes_all_zero``: tests that compared 0/1 tensors and every one of those was
    all zero (the neuron never fired in what was compared), though other
    comparisons (membranes, gradients) may not be.
    """
    found = sorted(test for test, (n, zero, _, _) in _COUNTS.items() if n and n == zero)
    silent = sorted(test for test, (_, _, k, zero) in _COUNTS.items() if k and k == zero)
    out = Path(os.environ.get("ZERO_AUDIT_DIR", ".")) / f"zero_compare_audit.{os.getpid()}.json"
    out.write_text(json.dumps({"all_zero": found, "spikes_all_zero": silent}, indent=1))
    print(
        f"\nzero_compare_audit: {len(found)} test(s) compared only all-zero tensors, "
        f"{len(silent)} compared only all-zero spikes -> {out}"
    )
