"""Numbers a core reads without its code spelling their names: a change traces the kernels again, never a stale result.

The place search (``flexsn_trace.places``) follows the attribute names and string keys a core's code spells. Three
ways of reading a number spell none of them, and each gave the gradients of the traced value after a change, without
a warning, until they were followed:

* a surrogate of a class defined in user code (``class MySig(Sigmoid)``): the library's ``__call__`` reads its
  parameters (its ``__flexsn_watched__`` names were read on the library's own objects only);
* a ``functools.partial``'s keyword deeper than the search's free depth: the keyword is the function's parameter
  name, which no code loads as an attribute;
* a mapping unpacked into a call (``sgf(h, **holder.cfg.kw)``): its keys are read, none is spelled;
* a descriptor in the core's class body (``thr = Halved()``) or a ``functools.cached_property``: the code reading
  the number is its ``__get__`` or its function, which was not searched as a ``property``'s getter is.

Each test changes the number between two training calls and compares the output and dL/dx with the eager loop
(``flexsn_trace.reference_scan``) at the new value, and asks for the one warning naming the change.
"""

from __future__ import annotations

import functools
import warnings
from types import SimpleNamespace
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN, surrogate
from flexsn_trace import ScanContract, reference_scan
from nn_reference import assert_changes_followed, pick_device


class _UserSigmoid(surrogate.Sigmoid):
    """A user's surrogate: FlexSN's Sigmoid under another name."""


class _UserPiecewiseLeakyReLU(surrogate.PiecewiseLeakyReLU):
    """A user's surrogate with two parameters."""


def _fire(h: torch.Tensor, alpha: float) -> torch.Tensor:
    """A spike whose surrogate slope is a parameter (bound by a partial or passed by ``**``); no code here spells
    ``alpha`` as an attribute or a keyword (``Sigmoid(alpha=alpha)`` would: a keyword's name is a string constant)."""
    return surrogate.Sigmoid(alpha)(h)


def _holder_core(holder: Any, fire: Callable[[Any, torch.Tensor], torch.Tensor]) -> Callable[..., tuple[torch.Tensor, torch.Tensor]]:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = fire(holder, h - 1.0)
        return s, h * (1.0 - s)

    return core


def _case(kind: str) -> tuple[Any, Callable[[float], None]]:
    """A core reading its surrogate's slope in one unspelled way, and how to set that slope."""
    holder = SimpleNamespace(cfg=SimpleNamespace())
    if kind in ("user Sigmoid", "user PiecewiseLeakyReLU"):
        make = (lambda a: _UserSigmoid(alpha=a)) if kind == "user Sigmoid" else (lambda a: _UserPiecewiseLeakyReLU(w=a))
        holder.sg = make(4.0)
        return _holder_core(holder, lambda o, h: o.sg(h)), lambda a: setattr(holder, "sg", make(a))
    if kind == "a partial's keyword two attributes deep":
        holder.cfg.fire = functools.partial(_fire, alpha=4.0)
        return _holder_core(holder, lambda o, h: o.cfg.fire(h)), lambda a: setattr(holder.cfg, "fire", functools.partial(_fire, alpha=a))
    assert kind == "keywords unpacked from a dict two attributes deep"
    holder.cfg.kw = {"alpha": 4.0}
    return _holder_core(holder, lambda o, h: _fire(h, **o.cfg.kw)), lambda a: holder.cfg.kw.__setitem__("alpha", a)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("kind", [
    "user Sigmoid", "user PiecewiseLeakyReLU", "a partial's keyword two attributes deep",
    "keywords unpacked from a dict two attributes deep",
])
def test_a_changed_unspelled_number_traces_again(kind: str, compiled: bool) -> None:
    core, set_slope = _case(kind)
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(21)) * 2).to(pick_device())
    torch._dynamo.reset()
    try:
        _check(kind, core, set_slope, neuron, run, x)
    finally:
        torch._dynamo.reset()


def _check(kind: str, core: Any, set_slope: Callable[[float], None], neuron: FlexSN, run: Any, x: torch.Tensor) -> None:
    """Two training calls of ``run`` (``neuron``, maybe compiled) at two slopes against the eager loop."""
    for slope in (4.0, 1.0):
        set_slope(slope)
        neuron.reset()
        xg = x.clone().requires_grad_()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = run(xg)
            got.sum().backward()
        xr = x.clone().requires_grad_()
        want, _ = reference_scan(core, ScanContract(1, 1, 1, (xr,), ()))
        want.sum().backward()
        torch.testing.assert_close(got, want, msg=lambda m: f"{kind} = {slope}: {m}")
        torch.testing.assert_close(xg.grad, xr.grad, rtol=1e-4, atol=1e-5, msg=lambda m: f"{kind} = {slope}: {m}")
        told = [str(w.message) for w in caught if "changed since the kernels were traced" in str(w.message)]
        assert len(told) == (slope != 4.0), told


class _Halved:
    """A descriptor: ``obj.thr`` is half of ``obj._base`` (a user class's ``__get__``, not a ``property``)."""

    def __get__(self, obj: Any, owner: type) -> Any:
        return self if obj is None else obj._base * 0.5


class _DescriptorCore:
    """Reads its threshold through a descriptor of its class body: the code that reads ``_base`` is ``__get__``'s."""

    thr = _Halved()

    def __init__(self) -> None:
        self._base = 2.0

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = (h >= self.thr).to(x.dtype)
        return s, h * (1.0 - s)


def test_a_number_a_descriptor_computes_traces_again() -> None:
    """Before, a descriptor's ``__get__`` was not searched as a property's getter is: ``self._base = 0.4`` kept the
    traced threshold, silently."""
    core = _DescriptorCore()
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(22)) * 2).to(pick_device())
    told = assert_changes_followed(neuron, neuron, core, x, (2.0, 0.4), lambda base: setattr(core, "_base", base), "_base")
    assert "self._base" in told[0], told


class _CachedCore:
    """Reads its threshold through a ``functools.cached_property`` computed from ``self._base``."""

    def __init__(self) -> None:
        self._base = 2.0

    @functools.cached_property
    def thr(self) -> float:
        return self._base * 0.5

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = (h >= self.thr).to(x.dtype)
        return s, h * (1.0 - s)


def test_a_number_a_cached_property_computes_traces_again() -> None:
    """Before, a ``cached_property``'s function was not searched as a ``property``'s getter is, and the neuron is
    built before its first read fills the cache: ``_base`` changed and the cache cleared kept the traced threshold."""
    core = _CachedCore()
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(23)) * 2).to(pick_device())

    def set_base(base: float) -> None:
        core._base = base
        core.__dict__.pop("thr", None)  # functools' way to recompute a cached property

    told = assert_changes_followed(neuron, neuron, core, x, (2.0, 0.4), set_base, "_base")
    assert "self._base" in told[0], told
