"""IFNode / LIFNode against SpikingJelly's charge-fire-reset equations, and the functional helpers."""

from __future__ import annotations

import copy

import pytest
import torch
from nn_reference import pick_device
from torch import nn

from flexsn_nn import IFNode, LIFNode, functional, reset_net, set_backend, set_step_mode
from flexsn_nn.surrogate import ATan, Sigmoid, SurrogateFunction

DEV = pick_device()
T, SHAPE = 17, (2, 11)


def sj_reference(
    x_seq: torch.Tensor,
    *,
    tau: float | None,
    v_threshold: float,
    v_reset: float | None,
    decay_input: bool,
    sg: SurrogateFunction,
    detach_reset: bool,
) -> tuple[torch.Tensor, torch.Tensor]:
    """SpikingJelly's neuron step, written out (``tau=None``: IF)."""
    v = torch.full_like(x_seq[0], 0.0 if v_reset is None else v_reset)
    vr = 0.0 if v_reset is None else v_reset
    spikes, vs = [], []
    for t in range(x_seq.shape[0]):
        x = x_seq[t]
        if tau is None:
            h = v + x
        elif decay_input:
            h = v + (x - (v - vr)) / tau
        else:
            h = v - (v - vr) / tau + x
        s = sg(h - v_threshold)
        sd = s.detach() if detach_reset else s
        v = h - sd * v_threshold if v_reset is None else (1.0 - sd) * h + sd * v_reset
        spikes.append(s)
        vs.append(v)
    return torch.stack(spikes), torch.stack(vs)


LIF_CASES = [
    dict(tau=2.0, v_reset=0.0, decay_input=True, detach_reset=False, sg=Sigmoid()),
    dict(tau=3.0, v_reset=None, decay_input=True, detach_reset=True, sg=ATan()),
    dict(tau=1.5, v_reset=-0.2, decay_input=False, detach_reset=False, sg=Sigmoid(2.0)),
]


def _x(seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(T, *SHAPE, generator=g) * 2.0).to(DEV)


def _check(node: IFNode, kwargs: dict[str, object]) -> None:
    x = _x().requires_grad_()
    s = node(x)
    assert isinstance(s, torch.Tensor) and s.shape == x.shape and s.dtype == x.dtype
    xr = x.detach().clone().requires_grad_()
    ref_s, ref_v = sj_reference(xr, v_threshold=0.8, **kwargs)  # type: ignore[arg-type]
    torch.testing.assert_close(s, ref_s)
    assert node.v_seq is not None and node.v is not None
    torch.testing.assert_close(node.v_seq, ref_v, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(node.v, ref_v[-1], atol=1e-5, rtol=1e-5)
    w = torch.linspace(-1, 1, T, device=DEV).view(T, 1, 1)
    ((s * w).sum() + node.v.sum()).backward()
    ((ref_s * w).sum() + ref_v[-1].sum()).backward()
    assert x.grad is not None and xr.grad is not None
    torch.testing.assert_close(x.grad, xr.grad, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("backend", ["triton", "torch"])
@pytest.mark.parametrize("case", range(len(LIF_CASES)))
def test_lif_matches_spikingjelly_equations(backend: str, case: int) -> None:
    kw = dict(LIF_CASES[case])
    node = LIFNode(
        tau=kw["tau"], v_threshold=0.8, v_reset=kw["v_reset"], decay_input=kw["decay_input"],  # type: ignore[arg-type]
        surrogate_function=kw["sg"], detach_reset=kw["detach_reset"], backend=backend, store_v_seq=True, step_mode="m",  # type: ignore[arg-type]
    )
    if backend == "triton":
        assert node.kernel.handle is not None
    _check(node, kw)


@pytest.mark.parametrize("v_reset", [0.1, None], ids=["hard", "soft"])
def test_if_matches_spikingjelly_equations(v_reset: float | None) -> None:
    node = IFNode(v_threshold=0.8, v_reset=v_reset, surrogate_function=ATan(), store_v_seq=True, step_mode="m")
    _check(node, dict(tau=None, v_reset=v_reset, decay_input=True, detach_reset=False, sg=ATan()))


def test_detach_reset_changes_gradients_only() -> None:
    x = _x(1)
    grads = []
    outs = []
    for detach in (False, True):
        node = LIFNode(detach_reset=detach, backend="torch", step_mode="m")
        xi = x.clone().requires_grad_()
        out = node(xi)
        assert isinstance(out, torch.Tensor)
        out.sum().backward()
        outs.append(out.detach())
        grads.append(xi.grad)
    torch.testing.assert_close(outs[0], outs[1])
    assert grads[0] is not None and grads[1] is not None and not torch.allclose(grads[0], grads[1])


def test_neuron_properties_step_mode_and_validation() -> None:
    node = LIFNode(tau=4.0, v_reset=-0.5, step_mode="s")
    assert node.v == -0.5 and node.v_seq is None and not node.store_v_seq  # SpikingJelly's v: v_reset until a call
    assert (node.tau, node.v_threshold, node.v_reset, node.decay_input) == (4.0, 1.0, -0.5, True)
    assert node.surrogate_function == Sigmoid() and not node.detach_reset
    x = _x() * 2.0  # tau = 4 needs the stronger drive to fire
    with torch.no_grad():
        steps = torch.stack([node(x[t]) for t in range(T)])  # type: ignore[misc]
        multi = LIFNode(tau=4.0, v_reset=-0.5, step_mode="m")
        assert steps.any(), "the neurons must fire for the comparison to mean anything"
        torch.testing.assert_close(multi(x), steps)
    assert isinstance(node.v, torch.Tensor)
    torch.testing.assert_close(node.v, multi.v)
    text = repr(node)
    assert "tau=4.0" in text and "v_reset=-0.5" in text and "backend='triton'" in text
    with pytest.raises(ValueError, match="tau must be > 1"):
        LIFNode(tau=1.0, backend="torch", step_mode="m")
    with pytest.raises(TypeError, match="SurrogateFunction"):
        LIFNode(surrogate_function=torch.sigmoid, backend="torch", step_mode="m")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="v_threshold"):
        IFNode(v_threshold=torch.tensor(1.0), backend="torch", step_mode="m")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="backend must be one of"):
        IFNode(backend="cupy", step_mode="m")
    c = copy.deepcopy(node)
    assert isinstance(c.v, torch.Tensor) and c.tau == 4.0


def test_functional_helpers() -> None:
    net = nn.Sequential(nn.Linear(4, 5), LIFNode(backend="torch", step_mode="m"), nn.Linear(5, 3), IFNode(backend="torch", step_mode="m"))
    x = torch.rand(6, 2, 4)
    with torch.no_grad():
        y = net(x)
    assert y.shape == (6, 2, 3)
    assert isinstance(net[1].v, torch.Tensor) and isinstance(net[3].v, torch.Tensor)
    reset_net(net)
    assert net[1].v == 0.0 and net[3].v == 0.0 and net[1].states == [] and net[3].states == []

    with pytest.raises(ValueError, match="step_mode must be one of"):
        set_step_mode(net, "multi")
    assert net[1].step_mode == "m" and net[3].step_mode == "m"
    set_step_mode(net, "s")
    assert net[1].step_mode == "s" and net[3].step_mode == "s"
    with torch.no_grad():
        assert net(x[0]).shape == (2, 3)

    with pytest.raises(ValueError, match="backend must be one of"):
        set_backend(net, "numpy")
    set_backend(net, "inductor")
    assert net[1].backend == "inductor" and net[3].backend == "inductor"
    assert functional.reset_net is reset_net
    with pytest.raises(TypeError, match="nn.Module"):
        reset_net([net])  # type: ignore[arg-type]


def test_reset_net_finds_reset_wherever_getattr_does() -> None:
    """``reset_net`` calls every callable ``reset`` that ``getattr`` finds, as SpikingJelly's ``functional.reset_net``
    does with ``hasattr``: a method, a class attribute, an instance attribute, a submodule named ``reset``, one a
    custom ``__getattr__`` makes; a parameter named ``reset`` is not callable and is left alone."""
    calls: list[str] = []

    class Method(nn.Module):
        def reset(self) -> None:
            calls.append("method")

    class Dynamic(nn.Module):
        def __getattr__(self, name: str) -> object:
            if name == "reset":
                return lambda: calls.append("__getattr__")
            return super().__getattr__(name)

    class Called(nn.Module):
        def forward(self) -> None:
            calls.append("submodule")

    instance, holder, param = nn.Identity(), nn.Module(), nn.Module()
    instance.reset = lambda: calls.append("instance")  # type: ignore[method-assign,assignment]
    holder.reset = Called()
    param.reset = nn.Parameter(torch.zeros(1))
    net = nn.Sequential(Method(), nn.Linear(2, 2), Dynamic(), instance, holder, param, LIFNode(step_mode="m"))
    reset_net(net)
    assert calls == ["method", "__getattr__", "instance", "submodule"]
