"""``FlexSN`` follows numbers its core reads through modules when they change: a torch module's and a user
submodule's numbers, a surrogate replaced by another, and a neuron's ``tau`` and ``surrogate_function`` set as in
SpikingJelly. Split from ``test_constants_change.py``; each test compares with the eager loop or a fresh neuron.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch

from flexsn_nn import FlexSN
from flexsn_trace import ScanContract, reference_scan
from nn_reference import loss_and_grad, pick_device


class _FireModule(torch.nn.Module):
    """A user submodule whose forward reads its own number."""

    def __init__(self) -> None:
        super().__init__()
        self.gain = 4.0

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.gain * h)


class _WithSubmodules(torch.nn.Module):
    """A core module calling a torch module and a user submodule (before: neither's numbers were watched, so
    ``core.act.negative_slope = 0.5`` or ``core.fire.gain = 1.0`` left the kernels' values without a word)."""

    def __init__(self) -> None:
        super().__init__()
        self.act = torch.nn.LeakyReLU(0.1)
        self.fire = _FireModule()

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (self.act(x) - v) / 2.0
        s = self.fire(h - 1.0)
        return s, h * (1.0 - s)


@pytest.mark.parametrize("train", [False, True], ids=["inference", "training"])
@pytest.mark.parametrize("place", ["act.negative_slope", "fire.gain"])
def test_numbers_of_submodules_and_torch_modules_are_followed(place: str, train: bool) -> None:
    """A torch module's numbers are all taken as read (its code is not searched); a user submodule's are those its
    forward names. A change traces again with one warning naming the place, and the result follows the loop."""
    step = _WithSubmodules()
    owner_name, attr = place.split(".")
    neuron = FlexSN(step, 1, 1, 1, step_mode="m", backend="triton")
    assert f"self.{place}" in [c.name for c in neuron.kernel.constants.items]
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(15)) * 3 - 1).to(pick_device())
    for value in (getattr(getattr(step, owner_name), attr), 0.5):
        setattr(getattr(step, owner_name), attr, value)
        neuron.reset()
        xs = x.clone().requires_grad_(train)
        with torch.set_grad_enabled(train), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = neuron(xs)
        xr = x.clone().requires_grad_(train)
        with torch.set_grad_enabled(train):
            want, _ = reference_scan(step, ScanContract(1, 1, 1, (xr,), ()))
        torch.testing.assert_close(got, want)
        if train:
            got.sum().backward()
            want.sum().backward()
            torch.testing.assert_close(xs.grad, xr.grad)
        told = [str(w.message) for w in caught if "changed since the kernels were traced" in str(w.message)]
        assert len(told) == (value == 0.5) and all(f"self.{place}" in t for t in told), told


class _SurrogateHolder(torch.nn.Module):
    """A user core holding one of FlexSN's (immutable) surrogates as a plain attribute."""

    def __init__(self, sg: Any) -> None:
        super().__init__()
        self.sg = sg

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = self.sg(h - 1.0)
        return s, h * (1.0 - s)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("kind", ["Sigmoid", "PiecewiseLeakyReLU"])
def test_a_replaced_surrogate_is_followed_by_the_gradients(kind: str, compiled: bool) -> None:
    """Annealing a surrogate by replacing it (``self.sg = Sigmoid(alpha=1.0)``): before, the kernels kept the first
    one's parameters and the gradients were silently those of the old surrogate."""
    from flexsn_nn import surrogate

    make = {"Sigmoid": lambda a: surrogate.Sigmoid(alpha=a), "PiecewiseLeakyReLU": lambda a: surrogate.PiecewiseLeakyReLU(w=a)}[kind]
    core = _SurrogateHolder(make(4.0))
    neuron = FlexSN(core, 1, 1, 1)
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(2)) * 2).to(pick_device()).requires_grad_()
    torch._dynamo.reset()
    try:
        for value in (4.0, 1.0):
            core.sg = make(value)
            neuron.reset()
            x.grad = None
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                run(x).sum().backward()
            xr = x.detach().clone().requires_grad_()
            want, _ = reference_scan(core, ScanContract(1, 1, 1, (xr,), ()))
            want.sum().backward()
            torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5, msg=lambda m: f"{kind} = {value}: {m}")
            told = [str(w.message) for w in caught if "changed since the kernels were traced" in str(w.message)]
            assert len(told) == (value != 4.0) and all("self.sg." in t for t in told), told
    finally:
        torch._dynamo.reset()


@pytest.mark.parametrize("attribute", ["tau", "surrogate_function", "another surrogate kind"])
def test_a_neurons_tau_and_surrogate_are_settable_as_in_spikingjelly(attribute: str) -> None:
    """``node.tau = 4.0`` / ``node.surrogate_function = ATan()`` (SpikingJelly's attributes; before: "property has no
    setter"): the next call gives what a node built with the new value gives, forward and dL/dx. Another surrogate
    kind with the same ``alpha`` counts as a change too (its ``family``)."""
    from flexsn_nn import LIFNode, surrogate

    new: dict[str, dict[str, Any]] = {
        "tau": {"tau": 4.0},
        "surrogate_function": {"surrogate_function": surrogate.Sigmoid(alpha=1.0)},
        "another surrogate kind": {"surrogate_function": surrogate.ATan(alpha=4.0)},
    }
    first = {"surrogate_function": surrogate.Sigmoid(alpha=4.0)}
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(13)) * 2).to(pick_device())
    node, fresh = LIFNode(**first, step_mode="m"), LIFNode(**{**first, **new[attribute]}, step_mode="m")
    node(x)
    node.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name, value in new[attribute].items():
            setattr(node, name, value)
        got, grad = loss_and_grad(node, x)
    assert any("changed since the kernels were traced" in str(w.message) for w in caught)
    want, want_grad = loss_and_grad(fresh, x)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(grad, want_grad)
    with pytest.raises((TypeError, ValueError), match="tau must be > 1|surrogate_function must be"):
        setattr(node, "tau" if attribute == "tau" else "surrogate_function", 0.5)
