"""A number held by a submodule of the core's submodules: a change traces the kernels again, never a stale result.

The place search took the core module's own submodules as roots (``self.fire``) but did not go into a
submodule's submodules: a gain in ``self.block.fire``, or in any module of an ``nn.ModuleList``, ``nn.ModuleDict``
or ``nn.Sequential`` the core iterates or indexes, was a constant of the kernels that nothing watched, and a change
gave the old value's spikes without a warning. A module's submodules are searched now (every one of a container's,
the named ones of any other module). Each case compares with the eager loop (``flexsn_trace.reference_scan``) at
the new value, eagerly and compiled.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest
import torch
from torch import nn

from flexsn_nn import FlexSN
from flexsn_trace import ScanContract, reference_scan
from nn_reference import assert_changes_followed, pick_device


class _Gain(nn.Module):
    """``h * g`` with a plain float ``g`` (a user submodule's number)."""

    def __init__(self, g: float) -> None:
        super().__init__()
        self.g = g

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h * self.g


class _Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fire = _Gain(1.0)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.fire(h)


class _Core(nn.Module):
    """A LIF step whose charged potential passes through ``body`` (a way of holding submodules) before firing."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        if kind == "ModuleList":
            self.body: nn.Module = nn.ModuleList([_Gain(1.0), _Gain(1.0)])
        elif kind == "ModuleDict":
            self.body = nn.ModuleDict({"lif": _Gain(1.0), "other": _Gain(3.0)})
        elif kind == "Sequential":
            self.body = nn.Sequential(_Gain(1.0), nn.Hardtanh(-2.0, 2.0))
        else:
            self.body = _Block()

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        if self.kind == "ModuleList":
            for m in self.body:  # type: ignore[union-attr]
                h = m(h)
        elif self.kind == "ModuleDict":
            h = self.body["lif"](h)  # type: ignore[index]
        else:
            h = self.body(h)
        s = (h >= 1.0).to(x.dtype)
        return s, h * (1.0 - s)


def _setter(core: _Core) -> Callable[[float], None]:
    """How to set the gain the step reads (the last module of a list, the one a dict's key names, the first of a
    sequence, the block's ``fire``)."""
    body: Any = core.body
    target = {"ModuleList": lambda: body[1], "ModuleDict": lambda: body["lif"], "Sequential": lambda: body[0]}.get(
        core.kind, lambda: body.fire
    )()
    return lambda g: setattr(target, "g", g)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("kind", ["ModuleList", "ModuleDict", "Sequential", "a submodule's submodule"])
def test_a_changed_number_of_a_nested_submodule_traces_again(kind: str, compiled: bool) -> None:
    core = _Core(kind)
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(9)) * 3).to(pick_device())
    torch._dynamo.reset()
    try:
        told = assert_changes_followed(run, neuron, core, x, (1.0, 2.0), _setter(core), kind)
        if not compiled:  # Dynamo's guard compiles again first; the kernels then trace again inside it
            assert ".g (1.0 -> 2.0)" in told[0], told
    finally:
        torch._dynamo.reset()


class _Scale(nn.Module):
    """``h * w * p``: a plain tensor attribute ``w`` and a parameter ``p`` of a submodule in a list."""

    def __init__(self, dev: torch.device) -> None:
        super().__init__()
        self.w = torch.linspace(0.8, 1.2, 8, device=dev)
        self.p = nn.Parameter(torch.linspace(1.2, 0.8, 8, device=dev))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h * self.w * self.p


class _ListCore(nn.Module):
    def __init__(self, dev: torch.device) -> None:
        super().__init__()
        self.subs = nn.ModuleList([_Scale(dev), _Scale(dev)])

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        for m in self.subs:
            h = m(h)
        s = torch.sigmoid(4.0 * (h - 1.0))
        return s, h * (1.0 - s)


def test_tensors_of_modules_in_a_list_are_lifted_with_their_gradients() -> None:
    """The tensors of the list's modules are lifted (run fused, no warning), the plain one read at every call: the
    output and dL/dp equal the eager loop's after ``w`` changes in place. (Following submodules in the number
    search must not add them to the tensors the capture search lifts a second time: a first try did, and the
    neuron then fell back with a wrong shape.)"""
    dev = pick_device()
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(10)) * 3).to(dev)
    got_core, want_core = _ListCore(dev), _ListCore(dev)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # lifted: no fallback
        neuron = FlexSN(got_core, 1, 1, 1, step_mode="m", backend="triton")
        assert neuron.uses_kernels(x)
        neuron(x)
    for core in (got_core, want_core):
        with torch.no_grad():
            core.subs[1].w.mul_(0.5)
    neuron.reset()
    got = neuron(x)
    got.sum().backward()
    want, _ = reference_scan(want_core, ScanContract(1, 1, 1, (x,), ()))
    want.sum().backward()
    torch.testing.assert_close(got, want)
    for a, b in zip(got_core.parameters(), want_core.parameters()):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)
