"""Surrogate spike functions: forward, backward formulas, gradcheck, tracing and lowering."""

from __future__ import annotations

import copy
import math
import pickle
import warnings
from typing import Any, Callable

import pytest
import torch
from nn_reference import pick_device
from functorch.compile import make_boxed_func
from torch._functorch.aot_autograd import aot_function
from torch.fx.experimental.proxy_tensor import make_fx

from flexsn_nn import FlexSN, FlexSNKernel
from flexsn_nn.surrogate import ATan, Sigmoid, SurrogateFunction

DEV = pick_device()


# Independent formulas (SpikingJelly surrogate.Sigmoid / surrogate.ATan), and
# the primitives whose derivatives they are.
def sigmoid_grad_formula(x: torch.Tensor, alpha: float) -> torch.Tensor:
    s = 1.0 / (1.0 + torch.exp(-alpha * x))
    return alpha * s * (1.0 - s)


def atan_grad_formula(x: torch.Tensor, alpha: float) -> torch.Tensor:
    return alpha / 2.0 / (1.0 + (math.pi / 2.0 * alpha * x) ** 2)


def sigmoid_primitive(x: torch.Tensor, alpha: float) -> torch.Tensor:
    return 1.0 / (1.0 + torch.exp(-alpha * x))


def atan_primitive(x: torch.Tensor, alpha: float) -> torch.Tensor:
    return torch.atan(math.pi / 2.0 * alpha * x) / math.pi + 0.5


CASES: list[tuple[type[SurrogateFunction], float, Callable[..., torch.Tensor], Callable[..., torch.Tensor]]] = [
    (Sigmoid, 4.0, sigmoid_grad_formula, sigmoid_primitive),
    (Sigmoid, 1.5, sigmoid_grad_formula, sigmoid_primitive),
    (ATan, 2.0, atan_grad_formula, atan_primitive),
    (ATan, 0.7, atan_grad_formula, atan_primitive),
]
IDS = [f"{c[0].__name__}-{c[1]}" for c in CASES]


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
@pytest.mark.parametrize("cls", [Sigmoid, ATan])
def test_forward_is_heaviside_in_input_dtype(cls: type[SurrogateFunction], dtype: torch.dtype) -> None:
    x = torch.tensor([-2.0, -1e-3, 0.0, 1e-3, 3.0], dtype=dtype)
    y = cls()(x)
    assert y.dtype == dtype and y.shape == x.shape
    assert y.tolist() == [0.0, 0.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize(("cls", "alpha", "formula", "primitive"), CASES, ids=IDS)
def test_backward_equals_formula(
    cls: type[SurrogateFunction], alpha: float, formula: Callable[..., torch.Tensor], primitive: Callable[..., torch.Tensor]
) -> None:
    sg = cls(alpha)
    x = torch.linspace(-3, 3, 61, dtype=torch.float64, requires_grad=True)
    g = torch.rand(61, dtype=torch.float64)
    sg(x).backward(g)
    assert x.grad is not None
    torch.testing.assert_close(x.grad, g * formula(x.detach(), alpha))
    torch.testing.assert_close(sg.surrogate_grad(x.detach()), formula(x.detach(), alpha))
    torch.testing.assert_close(sg.primitive(x.detach()), primitive(x.detach(), alpha))


@pytest.mark.parametrize(("cls", "alpha", "formula", "primitive"), CASES, ids=IDS)
def test_gradcheck_against_the_primitive(
    cls: type[SurrogateFunction], alpha: float, formula: Callable[..., torch.Tensor], primitive: Callable[..., torch.Tensor]
) -> None:
    """Straight-through form: value = primitive(x), gradient = the surrogate's backward only.

    gradcheck's finite differences of the primitive must then equal the
    surrogate backward: the surrogate gradient is the primitive's derivative.
    """
    sg = cls(alpha)

    def f(x: torch.Tensor) -> torch.Tensor:
        s = sg(x)
        return s + (primitive(x, alpha) - s).detach()

    x = torch.randn(40, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(f, (x,), eps=1e-6, atol=1e-7)


def _smooth_lif(sg: SurrogateFunction, primitive: Callable[..., torch.Tensor]) -> Callable[..., Any]:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = sg(h - 1.0)
        s = s + (primitive(h - 1.0, sg.alpha) - s).detach()
        return s, h * (1.0 - s)

    return core


@pytest.mark.parametrize(("cls", "alpha", "formula", "primitive"), CASES[::2], ids=IDS[::2])
def test_gradcheck_through_flexsn_torch_backend(
    cls: type[SurrogateFunction], alpha: float, formula: Callable[..., torch.Tensor], primitive: Callable[..., torch.Tensor]
) -> None:
    """BPTT through FlexSN(backend="torch") in float64, and the Triton kernels agree in float32."""
    core = _smooth_lif(cls(alpha), primitive)
    m = FlexSN(core, 1, 1, 1, backend="torch")

    def run(x: torch.Tensor, v0: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        m.reset()
        m.states = [v0]
        out = m(x)
        assert isinstance(out, torch.Tensor) and m.states[0] is not None
        return out, m.states[0]

    g = torch.Generator().manual_seed(3)
    x = (torch.randn(5, 3, generator=g, dtype=torch.float64) + 0.8).requires_grad_()
    v0 = torch.randn(3, generator=g, dtype=torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(run, (x, v0), eps=1e-6, atol=1e-6)

    k = FlexSN(core, 1, 1, 1, backend="triton")
    assert k.kernel.handle is not None
    xf = x.detach().float().to(DEV).requires_grad_()
    vf = v0.detach().float().to(DEV).requires_grad_()
    k.states = [vf]
    out = k(xf)
    assert isinstance(out, torch.Tensor) and k.states[0] is not None
    (out.sum() + k.states[0].sum()).backward()
    ref_out, ref_v = run(x, v0)
    (ref_out.sum() + ref_v.sum()).backward()
    assert xf.grad is not None and x.grad is not None and vf.grad is not None and v0.grad is not None
    torch.testing.assert_close(xf.grad.double().cpu(), x.grad, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(vf.grad.double().cpu(), v0.grad, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("sg", [Sigmoid(), ATan()], ids=repr)
def test_traces_and_backward_graph_lowers(sg: SurrogateFunction) -> None:
    x = torch.randn(8)
    graph = make_fx(lambda t: sg(t))(x).graph
    targets = {str(n.target) for n in graph.nodes if n.op == "call_function"}
    assert any("ge" in t for t in targets), targets

    captured: dict[str, torch.fx.GraphModule] = {}

    def keep(name: str) -> Callable[[torch.fx.GraphModule, Any], Any]:
        def compiler(gm: torch.fx.GraphModule, _: Any) -> Any:
            captured[name] = gm
            return make_boxed_func(gm.forward)

        return compiler

    f = aot_function(lambda t: sg(t * 2.0), fw_compiler=keep("fw"), bw_compiler=keep("bw"))
    xr = x.clone().requires_grad_()
    f(xr).sum().backward()
    bw_ops = {str(n.target) for n in captured["bw"].graph.nodes if n.op == "call_function"}
    assert not any("pow" in t for t in bw_ops), bw_ops
    assert xr.grad is not None
    torch.testing.assert_close(xr.grad, 2.0 * sg.surrogate_grad(2.0 * x))

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v * 0.5 + x
        s = sg(h - 1.0)
        return s, h - s

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback warning
        k = FlexSNKernel(core, 1, 1, 1)
    assert k.handle is not None and k.fallback_reason is None and k.has_training_kernels


def test_alpha_validation_and_value_semantics() -> None:
    with pytest.raises(TypeError, match="Python float"):
        Sigmoid(torch.tensor(2.0))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Python float"):
        ATan(True)
    with pytest.raises(ValueError, match="> 0"):
        Sigmoid(-1.0)
    with pytest.raises(ValueError, match="finite"):
        ATan(float("inf"))
    sg = Sigmoid(3)
    assert isinstance(sg.alpha, float) and sg.alpha == 3.0
    with pytest.raises(AttributeError, match="immutable"):
        sg.alpha = 2.0  # type: ignore[misc]
    assert sg == Sigmoid(3.0) and sg != ATan(3.0) and hash(sg) == hash(Sigmoid(3.0))
    assert repr(ATan()) == "ATan(alpha=2.0)" and Sigmoid().alpha == 4.0
    assert copy.deepcopy(sg) is sg and pickle.loads(pickle.dumps(sg)) == sg
    with pytest.raises(TypeError, match="floating-point"):
        sg(torch.tensor([1, 2]))


def test_functorch_transforms() -> None:
    sg = ATan(2.0)
    x = torch.randn(4, 5, dtype=torch.float64)
    torch.testing.assert_close(torch.func.vmap(sg)(x), (x >= 0).double())
    g = torch.func.vmap(torch.func.grad(lambda t: sg(t).sum()))(x)
    torch.testing.assert_close(g, atan_grad_formula(x, 2.0))


@pytest.mark.parametrize(("cls", "alpha", "_formula", "primitive"), CASES, ids=IDS)
def test_spiking_false_returns_the_primitive_with_its_gradient(
    cls: type[SurrogateFunction], alpha: float, _formula: Callable[..., torch.Tensor], primitive: Callable[..., torch.Tensor]
) -> None:
    """SpikingJelly's ``spiking=False``: the smooth primitive ``g(x)`` itself (written out above), and autograd's
    ``g'(x)`` backward, instead of ``Θ(x)``."""
    sg = cls(alpha, spiking=False)
    x = torch.linspace(-3.0, 3.0, 121, dtype=torch.float64, device=DEV, requires_grad=True)
    xr = x.detach().clone().requires_grad_()
    y, yr = sg(x), primitive(xr, alpha)
    torch.testing.assert_close(y, yr)
    assert not torch.equal(y, (x >= 0).to(y))
    (y * x.detach().cos()).sum().backward()
    (yr * xr.detach().cos()).sum().backward()
    torch.testing.assert_close(x.grad, xr.grad)


def test_spiking_is_part_of_a_surrogates_value() -> None:
    on, off = Sigmoid(3.0), Sigmoid(3.0, spiking=False)
    assert on.spiking and not off.spiking and on != off and hash(on) != hash(off)
    assert repr(off) == "Sigmoid(alpha=3.0, spiking=False)" and repr(on) == "Sigmoid(alpha=3.0)"
    assert pickle.loads(pickle.dumps(off)) == off and not pickle.loads(pickle.dumps(off)).spiking
    assert "spiking" in off.__flexsn_watched__  # a core's surrogate swapped for a non-spiking one traces again
    with pytest.raises(TypeError, match="spiking must be a Python bool"):
        ATan(spiking=0)  # type: ignore[arg-type]


def test_a_core_with_a_non_spiking_surrogate_runs_fused_and_matches_the_loop() -> None:
    """A non-spiking readout (``Sigmoid(spiking=False)``, SpikingJelly's) inside a core: the kernels compute it."""
    sg, smooth = Sigmoid(4.0), Sigmoid(2.0, spiking=False)

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = sg(h - 1.0)
        return s, smooth(h - 1.0), h * (1.0 - s)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = FlexSN(core, 1, 1, 2).to(DEV)
    x = (torch.rand(6, 3, 4, generator=torch.Generator().manual_seed(1)) * 3.0).to(DEV)
    xg = x.clone().requires_grad_()
    s, r = m(xg)
    (s.sum() + (r * r).sum()).backward()
    xr, v, outs = x.clone().requires_grad_(), torch.zeros_like(x[0]), []
    for t in range(6):
        st, rt, v = core(xr[t], v)
        outs.append((st, rt))
    sr, rr = torch.stack([o[0] for o in outs]), torch.stack([o[1] for o in outs])
    (sr.sum() + (rr * rr).sum()).backward()
    assert 0 < float(r.detach().min()) < float(r.detach().max()) < 1  # smooth, not 0 / 1
    torch.testing.assert_close(s, sr)
    torch.testing.assert_close(r, rr, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(xg.grad, xr.grad, rtol=1e-5, atol=1e-6)
