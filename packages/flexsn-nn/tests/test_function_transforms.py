"""``torch.func`` transforms and forward-mode AD over FlexSN neurons: the eager loop runs, told once, never a wrong answer.

The fused kernels read raw memory; a ``torch.func`` transform (``vmap``, ``grad``, ``jvp``) wraps tensors in
objects without it, and a forward-mode AD dual tensor carries a tangent the kernels would drop. Before, on the
kernel backends, ``vmap`` and ``jvp`` raised ``NotImplementedError: Cannot access storage of ...`` from inside
the launch, ``torch.func.grad`` raised autograd's ``setup_context`` error, and a dual tensor through
``LIFNode(backend="triton", step_mode="m")`` came back with no tangent at all; on every backend forward-mode AD failed in the
surrogate function (no ``jvp``). Now such calls run the eager loop with one warning naming the transform, and
the surrogates give forward-mode AD the same derivative as their backward. References: autograd through the
``torch`` backend's loop, and ``<J t, g> = <t, J^T g>`` between a JVP and a VJP.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest
import torch
import torch.autograd.forward_ad as fwAD

from flexsn_nn import LIFNode, ParametricLIFNode, surrogate
from nn_reference import pick_device

BACKENDS = ("triton", "inductor", "torch", "hop")
KERNEL_BACKENDS = ("triton", "inductor")
NEURONS: dict[str, Callable[..., torch.nn.Module]] = {
    "lif": lambda backend: LIFNode(step_mode="m", backend=backend, surrogate_function=surrogate.Sigmoid(4.0)),
    "plif": lambda backend: ParametricLIFNode(step_mode="m", backend=backend, surrogate_function=surrogate.ATan()),
}


def _inputs() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``x [T, B, N]`` around the threshold, a tangent ``t`` and an output gradient ``g`` of its shape."""
    gen = torch.Generator().manual_seed(7)
    x = torch.rand(6, 3, 10, generator=gen) * 2.5
    t = torch.randn(6, 3, 10, generator=gen)
    g = torch.randn(6, 3, 10, generator=gen)
    return x.to(pick_device()), t.to(pick_device()), g.to(pick_device())


def _run(module: torch.nn.Module, fn: Callable[[], Any]) -> tuple[Any, list[str]]:
    """``fn()`` after ``reset()``, with the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module.reset()  # type: ignore[operator]
        result = fn()
    return result, [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


def _reference(name: str, x: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Spikes of the ``torch`` backend's loop and dL/dx for ``L = sum(g * spikes)``, by autograd through it."""
    ref = NEURONS[name]("torch").to(x.device)
    xr = x.clone().requires_grad_(True)
    out = ref(xr)
    (out * g).sum().backward()
    return out.detach(), xr.grad  # type: ignore[return-value]


@pytest.mark.parametrize("name", list(NEURONS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_vmap_over_batch_matches_the_loop(backend: str, name: str) -> None:
    x, _, g = _inputs()
    neuron = NEURONS[name](backend).to(x.device)
    out, told = _run(neuron, lambda: torch.func.vmap(neuron, in_dims=1, out_dims=1)(x))
    expected, _ = _reference(name, x, g)
    torch.testing.assert_close(out, expected)
    if backend in KERNEL_BACKENDS:
        assert any("torch.func transforms" in m for m in told), told


@pytest.mark.parametrize("name", list(NEURONS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_func_grad_matches_autograd_through_the_loop(backend: str, name: str) -> None:
    x, _, g = _inputs()
    neuron = NEURONS[name](backend).to(x.device)
    grad, told = _run(neuron, lambda: torch.func.grad(lambda xx: (neuron(xx) * g).sum())(x))
    _, expected = _reference(name, x, g)
    torch.testing.assert_close(grad, expected, rtol=1e-5, atol=1e-6)
    if backend in KERNEL_BACKENDS:
        assert any("torch.func transforms" in m for m in told), told


@pytest.mark.parametrize("name", list(NEURONS))
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("api", ["dual_level", "torch.func.jvp"])
def test_forward_mode_tangent_is_the_transpose_of_the_gradient(backend: str, name: str, api: str) -> None:
    x, t, g = _inputs()
    neuron = NEURONS[name](backend).to(x.device)

    def jvp() -> tuple[torch.Tensor, torch.Tensor]:
        if api == "torch.func.jvp":
            out, tangent = torch.func.jvp(neuron, (x,), (t,))
            return out, tangent
        with fwAD.dual_level():
            out, tangent = fwAD.unpack_dual(neuron(fwAD.make_dual(x, t)))
            assert tangent is not None, "the output carries no tangent"
            return out, tangent

    (out, tangent), told = _run(neuron, jvp)
    expected, grad_x = _reference(name, x, g)
    torch.testing.assert_close(out, expected)
    # <J t, g> = <t, J^T g>: forward mode agrees with the surrogate gradient autograd computes
    torch.testing.assert_close((tangent * g).sum(), (t * grad_x).sum(), rtol=1e-4, atol=1e-5)
    assert tangent.abs().sum() > 0, "a zero tangent proves nothing"
    if backend in KERNEL_BACKENDS:
        said = "torch.func transforms" if api == "torch.func.jvp" else "forward-mode AD"
        assert any(said in m for m in told), told


SURROGATES = ["ATan", "Erf", "PiecewiseLeakyReLU", "PiecewiseQuadratic", "Rect", "Sigmoid", "SoftSign", "SuperSpike"]


@pytest.mark.parametrize("name", SURROGATES)
def test_surrogate_forward_mode_derivative_is_its_backward(name: str) -> None:
    sg = getattr(surrogate, name)()
    x = torch.linspace(-2.0, 2.0, 41, dtype=torch.float64)
    t = torch.linspace(0.5, 1.5, 41, dtype=torch.float64)
    with fwAD.dual_level():
        out, tangent = fwAD.unpack_dual(sg(fwAD.make_dual(x, t)))
    xr = x.clone().requires_grad_(True)
    sg(xr).backward(torch.ones_like(x))
    torch.testing.assert_close(out, (x >= 0).to(x.dtype))
    torch.testing.assert_close(tangent, t * xr.grad)  # elementwise: the Jacobian is diagonal
