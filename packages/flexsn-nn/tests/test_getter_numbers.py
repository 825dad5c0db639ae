"""Numbers and tensors a core reads through the standard library's getters (``operator.attrgetter``,
``itemgetter``, ``methodcaller``): followed as if the core's code spelled the names the getter holds.

A getter holds its attribute names or keys as data (``GET = operator.attrgetter("neuron.thr")``), and a dotted
literal (``operator.attrgetter("neuron.thr")(cfg)``) is one string constant, not the attribute names ``neuron`` and
``thr``. The place search follows only names the code spells, so such a number was a constant of the kernels that
nothing watched: a change kept the traced value without a warning, and a tensor read that way was not lifted. Each
test here failed before (``flexsn_trace.kinds.getter_names``).
"""

from __future__ import annotations

import operator
import warnings
from types import SimpleNamespace
from typing import Any, Callable

import pytest
import torch

from flexsn_nn import FlexSN, surrogate
from flexsn_trace import ScanContract, reference_scan
from nn_reference import assert_changes_followed, pick_device

# each core reads its own globals: a case changes only what its core reads
CFG_A = SimpleNamespace(neuron=SimpleNamespace(thr=1.0))
GET_A = operator.attrgetter("neuron.thr")
CFG_B = SimpleNamespace(neuron=SimpleNamespace(thr=1.0))
CFG_C = {"a": {"b": {"c": {"thr": 1.0}}}}
GET_C = operator.itemgetter("thr")
CFG_D = {"a": {"b": {"c": {"thr": 1.0}}}}
GET_D = operator.methodcaller("get", "thr", 5.0)
CFG_E = SimpleNamespace(neuron=SimpleNamespace(thr=1.0, tau=1.0))
GETS_E = (operator.attrgetter("neuron.thr"),)
CFG_F = SimpleNamespace(neuron=SimpleNamespace(thr=1.0, high=0.4))


def _lif(x: torch.Tensor, v: torch.Tensor, thr: Any) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = (h >= thr).to(x.dtype)
    return s, h * (1.0 - s)


def core_a(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _lif(x, v, GET_A(CFG_A))


def core_b(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _lif(x, v, operator.attrgetter("neuron.thr")(CFG_B))


def core_c(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _lif(x, v, GET_C(CFG_C["a"]["b"]["c"]))


def core_d(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _lif(x, v, GET_D(CFG_D["a"]["b"]["c"]))


def core_e(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _lif(x, v, GETS_E[0](CFG_E))


def core_f(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _lif(x, v, GET_F(CFG_F))


_GETTERS_F = {name: operator.attrgetter(f"neuron.{name}") for name in ("thr", "high")}
GET_F = _GETTERS_F["thr"]


def _set_f(name: str) -> None:
    """Rebind ``GET_F`` (a getter is watched by identity, as a function is)."""
    global GET_F
    GET_F = _GETTERS_F[name]


CASES: dict[str, tuple[Callable[..., Any], Callable[[Any], None], tuple[Any, ...], str]] = {
    # name: (core, set the value, the values in turn, what the warning names)
    "a global attrgetter with a dotted name": (core_a, lambda t: setattr(CFG_A.neuron, "thr", t), (1.0, 0.3), "CFG_A.neuron.thr"),
    "an attrgetter's dotted literal in the core": (core_b, lambda t: setattr(CFG_B.neuron, "thr", t), (1.0, 0.3), "CFG_B.neuron.thr"),
    "an itemgetter below the free depth": (core_c, lambda t: CFG_C["a"]["b"]["c"].__setitem__("thr", t), (1.0, 0.3), "thr"),
    "a methodcaller's argument below the free depth": (core_d, lambda t: CFG_D["a"]["b"]["c"].__setitem__("thr", t), (1.0, 0.3), "thr"),
    "an attrgetter in a tuple": (core_e, lambda t: setattr(CFG_E.neuron, "thr", t), (1.0, 0.3), "CFG_E.neuron.thr"),
    "the getter rebound to another name": (core_f, _set_f, ("thr", "high"), "GET_F"),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_number_read_through_a_getter_traces_again(case: str, compiled: bool) -> None:
    core, set_value, values, named = CASES[case]
    set_value(values[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to tell at construction: the read is followed
        neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    run = torch.compile(neuron, backend="aot_eager", fullgraph=True) if compiled else neuron
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(31)) * 2).to(pick_device())
    torch._dynamo.reset()
    try:
        told = assert_changes_followed(run, neuron, core, x, values, set_value, case)
    finally:
        torch._dynamo.reset()
        set_value(values[0])
    assert named in told[0], told


HOLDER = SimpleNamespace(block=SimpleNamespace(w=None))
GET_W = operator.attrgetter("block.w")
SPIKE = surrogate.Sigmoid()


def core_w(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x * GET_W(HOLDER) - v) / 2.0
    s = SPIKE(h - 1.0)
    return s, h * (1.0 - s)


def test_a_tensor_read_through_a_getter_is_lifted_with_its_gradient() -> None:
    """Before, ``GET_W(HOLDER)`` was not searched below ``HOLDER`` (no code spells ``block`` or ``w``): the tensor was
    not lifted and the neuron ran the eager loop, with a warning."""
    device = pick_device()
    HOLDER.block.w = torch.tensor([0.5, 1.5, 2.0], device=device, requires_grad=True)
    shape = (2, 3)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no fallback: the tensor is lifted
            neuron = FlexSN(core_w, 1, 1, 1, step_mode="m", backend="triton",
                            example_inputs=(torch.zeros(shape, device=device), torch.zeros(shape, device=device)))
        assert [n for n in neuron.kernel.captures.names()] == ["global HOLDER.block.w"]
        x = torch.rand(5, *shape, generator=torch.Generator().manual_seed(32)).to(device) * 2
        xg = x.clone().requires_grad_()
        got = neuron(xg)
        got.sum().backward()
        got_w = HOLDER.block.w.grad.clone()
        HOLDER.block.w.grad = None
        xr = x.clone().requires_grad_()
        want, _ = reference_scan(core_w, ScanContract(1, 1, 1, (xr,), ()))
        want.sum().backward()
        torch.testing.assert_close(got, want)
        torch.testing.assert_close(xg.grad, xr.grad, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(got_w, HOLDER.block.w.grad, rtol=1e-4, atol=1e-5)
    finally:
        HOLDER.block.w = None
