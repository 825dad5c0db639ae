"""The neurons' constants are settable after construction, as SpikingJelly's attributes are (``node.v_reset = None``,
``node.detach_reset = True``, ``node.decay_input = False``, ``node.tau = 4.0``, ``node.tau_a = 5.0``), and the next
call computes with the new value: forward, final state and dL/dx equal those of the eager loop of a node built with it.
Bad values are refused with the argument's name."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch

import flexsn_nn
from flexsn_trace import ScanContract, reference_scan
from nn_reference import pick_device

# (neuron, attribute, new value): one per settable attribute and per neuron family that holds it.
CASES = [
    ("IFNode", "v_reset", None),
    ("IFNode", "detach_reset", True),
    ("LIFNode", "v_reset", -0.5),
    ("LIFNode", "v_reset", None),
    ("LIFNode", "decay_input", False),
    ("LIFNode", "detach_reset", True),
    ("ParametricLIFNode", "decay_input", False),
    ("ParametricLIFNode", "v_reset", None),
    ("LearnableThresholdLIFNode", "tau", 4.0),
    ("LearnableThresholdLIFNode", "decay_input", False),
    ("AdaptiveLIFNode", "tau", 3.0),
    ("AdaptiveLIFNode", "tau_a", 5.0),
    ("QIFNode", "detach_reset", True),
]


def _run(node: Any, x: torch.Tensor, call: Any = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Spikes, final ``v`` and dL/dx of one call (through ``call``, the node or its compiled form) after a
    ``reset()``, for a loss that weighs every output and the final membrane potential."""
    node.reset()
    xg = x.clone().requires_grad_()
    out = (node if call is None else call)(xg)
    v = node.v
    assert isinstance(v, torch.Tensor)
    (out * torch.linspace(0.5, 1.5, out.shape[-1], device=x.device)).sum().backward(retain_graph=True)
    (v * 0.3).sum().backward()  # the membrane's gradient path, which detach_reset and v_reset change
    assert xg.grad is not None
    return out.detach(), v.detach(), xg.grad


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize(("make", "attribute", "value"), CASES, ids=[f"{m}.{a}={v}" for m, a, v in CASES])
def test_a_set_attribute_is_what_the_next_call_computes_with(make: str, attribute: str, value: Any, compiled: bool) -> None:
    cls = getattr(flexsn_nn, make)
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(21)) * 3 - 0.5).to(pick_device())
    node = cls(step_mode="m").to(x.device)
    call = torch.compile(node, fullgraph=True) if compiled else node
    try:
        before = _run(node, x)
        setattr(node, attribute, value)
        assert getattr(node, attribute) == value
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = _run(node, x, call)
        if not compiled:  # compiled calls are re-traced through Dynamo's guards instead
            assert any("changed since the kernels were traced" in str(w.message) for w in caught), caught
        want = _run(cls(backend="torch", step_mode="m", **{attribute: value}).to(x.device), x)
        for name, g, w in zip(("spikes", "v", "dL/dx"), got, want):
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5, msg=lambda m: f"{name}: {m}")
        # The new value changes something, so this test fails where the setter is ignored.
        assert any(not torch.allclose(b, w) for b, w in zip(before, want))
    finally:
        torch._dynamo.reset()


@pytest.mark.parametrize(
    ("attribute", "value", "error", "message"),
    [
        ("v_reset", "0.0", TypeError, "v_reset must be a Python float or None"),
        ("v_reset", float("inf"), ValueError, "v_reset must be finite"),
        ("detach_reset", "False", TypeError, "detach_reset must be a Python bool"),
        ("decay_input", torch.tensor(True), TypeError, "decay_input must be a Python bool"),
        ("tau", 1.0, ValueError, "tau must be > 1"),
    ],
)
def test_a_bad_value_is_refused_with_the_arguments_name(attribute: str, value: Any, error: type, message: str) -> None:
    node = flexsn_nn.LIFNode(step_mode="m")
    with pytest.raises(error, match=message):
        setattr(node, attribute, value)
    with pytest.raises(error, match=message):
        flexsn_nn.LIFNode(**{attribute: value}, step_mode="m")
    assert getattr(node, attribute) == getattr(flexsn_nn.LIFNode(step_mode="m"), attribute)  # left as it was


def test_adaptive_tau_a_is_refused_below_one_step() -> None:
    node = flexsn_nn.AdaptiveLIFNode(step_mode="m")
    with pytest.raises(ValueError, match="tau_a must be > 1"):
        node.tau_a = 0.5
    assert node.tau_a == 20.0


def test_store_v_seq_is_settable_as_in_spikingjelly() -> None:
    """``node.store_v_seq = True`` (before: "property has no setter"): the next call keeps ``v_seq``, equal to the loop's."""
    x = (torch.rand(5, 2, 4, generator=torch.Generator().manual_seed(5)) * 2).to(pick_device())
    node, ref = flexsn_nn.LIFNode(step_mode="m").to(x.device), flexsn_nn.LIFNode(backend="torch", store_v_seq=True, step_mode="m").to(x.device)
    node(x)
    assert node.v_seq is None
    node.reset()
    node.store_v_seq = True
    node(x)
    ref(x)
    assert node.v_seq is not None and ref.v_seq is not None
    torch.testing.assert_close(node.v_seq, ref.v_seq)
    node.store_v_seq = False
    node.reset()
    node(x)
    assert node.v_seq is None
    with pytest.raises(TypeError, match="store_v_seq must be a Python bool"):
        node.store_v_seq = "yes"  # type: ignore[assignment]


# (neuron, state attribute, its index in the core's states): SpikingJelly's memories, settable before a call.
STATES = [
    ("LIFNode", "v", 0), ("IFNode", "v", 0), ("ParametricLIFNode", "v", 0), ("AdaptiveLIFNode", "v", 0),
    ("AdaptiveLIFNode", "a", 1), ("CUBALIFNode", "c", 1), ("IzhikevichNode", "v", 0), ("IzhikevichNode", "w", 1),
]


@pytest.mark.parametrize(("make", "kwargs", "starts"), [
    ("LIFNode", {}, {"v": 0.0}), ("LIFNode", {"v_reset": -0.2}, {"v": -0.2}), ("IFNode", {"v_reset": None}, {"v": 0.0}),
    ("ParametricLIFNode", {"v_reset": 0.1}, {"v": 0.1}), ("AdaptiveLIFNode", {"v_reset": 0.1}, {"v": 0.1, "a": 0.0}),
    ("CUBALIFNode", {}, {"v": 0.0, "c": 0.0}), ("IzhikevichNode", {"w_rest": 0.2, "v_reset": -0.05}, {"v": -0.05, "w": 0.2}),
    ("IzhikevichNode", {}, {"v": 0.0, "w": 0.0}),
])
def test_a_state_reads_the_float_it_starts_from_until_a_call(make: str, kwargs: dict[str, object], starts: dict[str, float]) -> None:
    """Before the first call and after ``reset()`` a neuron's state reads as the float it starts from, as
    SpikingJelly's memories do (``v = v_reset``, or 0.0 with soft reset; ``w = w_rest``; ``c = a = 0.0``; before:
    ``None``), and that is where a call starts: a call from nothing equals one from those floats set by hand, and a
    multi-step call equals the neuron's steps fed one by one."""
    cls = getattr(flexsn_nn, make)
    x = (torch.rand(5, 2, 6, generator=torch.Generator().manual_seed(31)) * 2).to(pick_device())
    node = cls(step_mode="m", **kwargs).to(x.device)
    for name, want in starts.items():
        got = getattr(node, name)
        assert isinstance(got, float) and got == want, (name, got)
    fresh = node(x)
    assert fresh.any(), "the neuron must fire for the comparison to mean anything"
    node.reset()
    assert node.states == [] and all(getattr(node, name) == want for name, want in starts.items())
    for name, want in starts.items():
        setattr(node, name, want)
    torch.testing.assert_close(node(x), fresh)
    node.reset()
    node.step_mode = "s"
    torch.testing.assert_close(torch.stack([node(x[t]) for t in range(x.shape[0])]), fresh)


@pytest.mark.parametrize("kind", ["float", "tensor"])
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize(("make", "attribute", "index"), STATES, ids=[f"{m}.{a}" for m, a, _ in STATES])
def test_a_set_state_is_where_the_next_call_starts(make: str, attribute: str, index: int, compiled: bool, kind: str) -> None:
    """``node.v = 0.3`` (a float, as SpikingJelly's ``v`` after ``reset()`` is one) or ``node.v = tensor``: the next
    call starts from it, forward and dL/dx equal to the eager loop of the core from those initial states; it reads
    back as set until the call, and ``reset()`` forgets it. Before: ``v`` had no setter."""
    cls = getattr(flexsn_nn, make)
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(22)) * 2).to(pick_device())
    node = cls(step_mode="m").to(x.device)
    call = torch.compile(node, fullgraph=True) if compiled else node
    start = 0.3 if kind == "float" else torch.linspace(-0.2, 0.6, 8, device=x.device).expand(3, 8).contiguous()
    try:
        node.reset()
        setattr(node, attribute, start)
        assert getattr(node, attribute) is start
        xg = x.clone().requires_grad_()
        got = call(xg)
        got.sum().backward()
        init = [torch.as_tensor(s).to(x).expand(3, 8) for s in node.init_states(x)]  # the neuron's own start
        init[index] = torch.full((3, 8), start, device=x.device) if isinstance(start, float) else start
        xr = x.clone().requires_grad_()
        want = reference_scan(node.core, ScanContract(1, len(init), 1, (xr,), tuple(init), node.static_inputs))[0]
        want.sum().backward()
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(xg.grad, xr.grad, rtol=1e-5, atol=1e-5)
        setattr(node, attribute, start)
        node.reset()  # forgets the start: the next call is a plain one
        assert getattr(node, attribute) == node.state_starts()[index]
        torch.testing.assert_close(call(x).detach(), cls(backend="torch", step_mode="m").to(x.device)(x))
    finally:
        torch._dynamo.reset()


@pytest.mark.parametrize(("value", "error", "message"), [
    ("0.3", TypeError, "v must be a torch.Tensor, a Python float or None, got str"),
    (True, TypeError, "v must be a torch.Tensor, a Python float or None, got bool"),
    (float("nan"), ValueError, "v must be finite"),
])
def test_a_bad_state_value_is_refused(value: Any, error: type[Exception], message: str) -> None:
    node = flexsn_nn.LIFNode(step_mode="m")
    with pytest.raises(error, match=message):
        node.v = value


def test_a_float_state_survives_a_deep_copy_and_not_a_pickle() -> None:
    """A deep copy keeps a set float ``v`` (before the fix it raised on it: a float has no ``is_leaf``); a pickle
    keeps no states at all, as for tensors (``flexsn_nn.persistence``)."""
    import copy
    import pickle

    node = flexsn_nn.LIFNode(step_mode="m")
    node.v = 0.3
    assert copy.deepcopy(node).v == 0.3
    assert pickle.loads(pickle.dumps(node)).v == 0.0 and pickle.loads(pickle.dumps(node)).states == []
