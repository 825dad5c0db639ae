"""Parity with SpikingJelly 2.0 itself: each neuron and surrogate of the same name, built with the same
arguments in both libraries, gives the same spikes, states and gradients (input and learnable
parameters), in both step modes; and the constructors take SpikingJelly's arguments in its order with
its defaults, so code written for it builds the same neuron here (a different default, such as
``CUBALIFNode``'s decays before they followed it, changes results without an error).

SpikingJelly is not a dependency (it pulls torchvision and torchaudio builds): the module is skipped
where it is not importable. On this repository's machines it runs from the wheel in ``.whl``
(``pip install --no-deps --target DIR``, ``DIR`` on ``PYTHONPATH``); see README, "The zoo".
"""

from __future__ import annotations

import inspect
import os
import warnings
from typing import Any, Callable

import pytest
import torch

sj_neuron = pytest.importorskip("spikingjelly.activation_based.neuron")
sj_surrogate = pytest.importorskip("spikingjelly.activation_based.surrogate")

import flexsn_nn  # noqa: E402
from flexsn_nn import surrogate as our_surrogate  # noqa: E402

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
T, B, N = 6, 3, 7
SURROGATES = ["ATan", "Erf", "PiecewiseLeakyReLU", "PiecewiseQuadratic", "Rect", "Sigmoid", "SoftSign", "SuperSpike"]

# (neuron, keyword arguments): SpikingJelly's defaults, then other values of every argument that changes the equations
CASES: list[tuple[str, dict[str, Any]]] = [
    ("IFNode", {}),
    ("IFNode", {"v_threshold": 0.6, "v_reset": None, "detach_reset": True, "surrogate_function": ("ATan", 3.0)}),
    ("LIFNode", {}),
    ("LIFNode", {"tau": 3.0, "decay_input": False, "v_threshold": 0.7, "v_reset": None, "detach_reset": True}),
    ("LIFNode", {"tau": 1.5, "v_reset": -0.2, "surrogate_function": ("PiecewiseQuadratic", 1.5), "store_v_seq": True}),
    ("ParametricLIFNode", {}),
    ("ParametricLIFNode", {"init_tau": 3.0, "decay_input": False, "v_reset": None, "store_v_seq": True}),
    ("EIFNode", {}),
    ("EIFNode", {"tau": 3.0, "delta_T": 0.5, "theta_rh": 0.6, "v_reset": None, "v_rest": 0.1}),
    ("QIFNode", {}),
    ("QIFNode", {"tau": 3.0, "v_c": 0.5, "a0": 0.7, "v_reset": None}),
    ("IzhikevichNode", {}),
    ("IzhikevichNode", {"a": 0.3, "b": 0.2, "tau_w": 3.0, "v_reset": None, "w_rest": 0.1, "store_v_seq": True}),
    ("CUBALIFNode", {}),
    ("ParametricLIFNode", {"detach_reset": True, "v_threshold": 0.8, "surrogate_function": ("Erf", 2.0)}),
    ("EIFNode", {"detach_reset": True, "surrogate_function": ("SuperSpike", 1.5)}),
    ("QIFNode", {"detach_reset": True, "surrogate_function": ("PiecewiseLeakyReLU", 1.0)}),
    ("IzhikevichNode", {"detach_reset": True, "surrogate_function": ("Rect", 0.8)}),
    ("CUBALIFNode", {"detach_reset": True, "surrogate_function": ("Sigmoid", 4.0)}),
    ("CUBALIFNode", {"c_decay": 0.8, "v_decay": 0.3, "v_threshold": 0.9, "v_reset": None, "surrogate_function": ("SoftSign", 2.0)}),
]


def _build(lib: str, name: str, kwargs: dict[str, Any], step_mode: str, backend: str = "triton") -> torch.nn.Module:
    """``name`` from SpikingJelly (``lib="sj"``) or FlexSN with ``kwargs``; a surrogate is given as (class name, alpha)."""
    kw = dict(kwargs)
    if "surrogate_function" in kw:
        sg_name, alpha = kw["surrogate_function"]
        kw["surrogate_function"] = getattr(sj_surrogate if lib == "sj" else our_surrogate, sg_name)(alpha)
    if lib == "sj":
        cls = getattr(sj_neuron, name)
        taken = set(inspect.signature(cls.__init__).parameters)
        m = cls(**{k: v for k, v in kw.items() if k in taken})
        for k, v in kw.items():  # SpikingJelly 2.0's CUBALIFNode takes no detach_reset argument: its attribute
            if k not in taken:
                assert hasattr(m, k), f"SpikingJelly's {name} has no {k}"
                setattr(m, k, v)
        m.step_mode = step_mode  # nor a step_mode argument
    else:
        m = getattr(flexsn_nn, name)(step_mode=step_mode, backend=backend, **kw)
    return m.to(DEVICE)


def _run(m: torch.nn.Module, x: torch.Tensor, step_mode: str) -> tuple[torch.Tensor, ...]:
    """Spikes ``[T, B, N]``, final ``v``, dL/dx and dL/d(parameters) of one sequence (one call, or T calls);
    in ``"m"`` with ``store_v_seq`` also ``v_seq`` ``[T, B, N]``."""
    xg = x.clone().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SpikingJelly's notes on its backends
        s = m(xg) if step_mode == "m" else torch.stack([m(xg[t]) for t in range(T)])
    v = m.v
    assert isinstance(v, torch.Tensor)
    weights = torch.linspace(-1.0, 1.0, T, device=DEVICE).view(T, 1, 1)
    ((s * weights).sum() + (v * v).sum()).backward()
    assert xg.grad is not None
    params = [p.grad if p.grad is not None else torch.zeros_like(p) for _, p in sorted(m.named_parameters())]
    seq = (m.v_seq.detach(),) if step_mode == "m" and getattr(m, "store_v_seq", False) else ()
    return (s.detach(), v.detach(), xg.grad, *(p.reshape(-1) for p in params), *seq)


@pytest.mark.parametrize("step_mode", ["m", "s"])
@pytest.mark.parametrize("backend", ["triton", "torch"])
@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_a_neuron_computes_what_spikingjellys_of_the_same_name_computes(name: str, kwargs: dict[str, Any], backend: str, step_mode: str) -> None:
    x = (torch.randn(T, B, N, generator=torch.Generator().manual_seed(3)) * 1.5 + 0.8).to(DEVICE)
    want = _run(_build("sj", name, kwargs, step_mode), x, step_mode)
    ours = _build("flexsn", name, kwargs, step_mode, backend)
    if backend == "triton" and step_mode == "m" and (DEVICE.type == "cuda" or os.environ.get("TRITON_INTERPRET") == "1"):
        assert ours.uses_kernels(x), f"{name} runs the eager loop"  # type: ignore[operator]
    got = _run(ours, x, step_mode)
    assert 0.05 < float(want[0].mean()) < 0.95, "the drive must make the neurons fire, and not always"
    assert len(got) == len(want), "the learnable parameters differ"
    names = ["spikes", "v", "dL/dx", *(f"dL/d{n}" for n, _ in sorted(ours.named_parameters())), "v_seq"]
    for what, g, w in zip(names, got, want):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=lambda m, what=what: f"{name} {what}: {m}")


@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_a_neurons_states_read_as_spikingjellys_before_a_call_and_after_reset(name: str, kwargs: dict[str, Any]) -> None:
    """``node.v`` (and ``c``, ``w``) before the first call and after ``reset()``: SpikingJelly's memories are floats
    there (``v_reset`` or 0.0, ``w_rest``, 0.0), and code written for it reads them (before: ours were ``None``)."""
    sj, ours = _build("sj", name, kwargs, "m"), _build("flexsn", name, kwargs, "m")
    memories = [k for k in ("v", "c", "w") if k in getattr(sj, "_memories", {})]
    assert "v" in memories
    x = (torch.randn(T, B, N, generator=torch.Generator().manual_seed(4)) + 0.8).to(DEVICE)
    for when in ("built", "reset"):
        for k in memories:
            want, got = getattr(sj, k), getattr(ours, k)
            assert isinstance(want, float) and isinstance(got, float) and got == want, (when, k, got, want)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sj(x), ours(x)
        sj.reset()
        ours.reset()


@pytest.mark.parametrize("name", ["LIFNode", "ParametricLIFNode", "CUBALIFNode", "IzhikevichNode"])
def test_single_and_multi_step_forward_compute_what_spikingjellys_do(name: str) -> None:
    """SpikingJelly's ``StepModule.single_step_forward`` / ``multi_step_forward``, called directly on a neuron in
    the other step mode: three single steps, then the rest as one sequence, in both libraries."""
    sj, ours = _build("sj", name, {}, "s"), _build("flexsn", name, {}, "m")
    x = (torch.randn(T, B, N, generator=torch.Generator().manual_seed(6)) * 1.5 + 0.8).to(DEVICE)
    got, want = [], []
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m, out in ((sj, want), (ours, got)):
            out += [m.single_step_forward(x[t]) for t in range(3)]
            out.append(m.multi_step_forward(x[3:]))
    torch.testing.assert_close(torch.cat([torch.stack(got[:3]), got[3]]), torch.cat([torch.stack(want[:3]), want[3]]))
    torch.testing.assert_close(ours.v, sj.v)
    assert 0.05 < float(want[3].mean()) < 0.95, "the drive must make the neurons fire, and not always"


def _parameters(cls: type) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]


@pytest.mark.parametrize("name", sorted({n for n, _ in CASES}))
def test_a_constructor_takes_spikingjellys_arguments_in_its_order_with_its_defaults(name: str) -> None:
    theirs = [p for p in _parameters(getattr(sj_neuron, name)) if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    ours = {p.name: p for p in _parameters(getattr(flexsn_nn, name))}
    positional = [p.name for p in _parameters(getattr(flexsn_nn, name)) if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert positional[: len(theirs)] == [p.name for p in theirs], "positional arguments in SpikingJelly's order"
    for p in theirs:
        d, o = p.default, ours[p.name].default
        if p.name == "surrogate_function":  # SpikingJelly's repr adds spiking=True
            assert repr(o) == repr(d).replace(", spiking=True", ""), f"{name}.surrogate_function default"
        else:
            assert o == d, f"{name}.{p.name}: ours {o!r}, SpikingJelly {d!r}"
    if "step_mode" not in ours or "step_mode" in {p.name for p in theirs}:
        return
    assert ours["step_mode"].default == sj_neuron.BaseNode().step_mode  # CUBALIFNode: SpikingJelly's base default


@pytest.mark.parametrize("spiking", [True, False])
@pytest.mark.parametrize("name", SURROGATES)
@pytest.mark.parametrize("alpha", [None, 0.5, 3.0])
def test_a_surrogate_has_spikingjellys_spike_and_gradient(name: str, alpha: float | None, spiking: bool) -> None:
    """Both modes: the spike with its surrogate gradient, and with ``spiking=False`` the primitive itself."""
    if not spiking and name == "SuperSpike":
        pytest.skip("SpikingJelly defines no primitive for SuperSpike (NotImplementedError)")
    args = () if alpha is None else (alpha,)
    theirs, ours = getattr(sj_surrogate, name)(*args, spiking=spiking), getattr(our_surrogate, name)(*args, spiking=spiking)
    z = torch.linspace(-3.0, 3.0, 601, device=DEVICE)
    zt, zo = z.clone().requires_grad_(), z.clone().requires_grad_()
    yt, yo = theirs(zt), ours(zo)
    torch.testing.assert_close(yo, yt, rtol=0 if spiking else 1e-6, atol=0 if spiking else 1e-7)
    (yt * z.cos()).sum().backward()
    (yo * z.cos()).sum().backward()
    assert zt.grad is not None and zo.grad is not None and zt.grad.abs().sum() > 0
    torch.testing.assert_close(zo.grad, zt.grad, rtol=1e-6, atol=1e-7)


def _plif_with_sj_surrogate(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A PLIF step as SpikingJelly 2.0's users write one for its FlexSN (its ``surrogate.sigmoid.apply``)."""
    h = v + (x - v) * torch.sigmoid(w)
    s = sj_surrogate.sigmoid.apply(h - 1.0, 4.0)
    return s, h * (1.0 - s)


@pytest.mark.parametrize("w_shape", [(), (B, N)], ids=["scalar", "per-neuron"])  # SpikingJelly takes no other shapes
def test_spikingjellys_flexsn_call_builds_the_same_neuron_here(w_shape: tuple[int, ...]) -> None:
    """``FlexSN(core=..., num_states=1, static_inputs=(w,), step_mode="m")``, SpikingJelly 2.0's call, word for word."""
    from spikingjelly.activation_based.neuron.flexsn import FlexSN as SJFlexSN

    x = (torch.randn(T, B, N, generator=torch.Generator().manual_seed(5)) * 1.5 + 0.8).to(DEVICE)
    results = []
    for cls in (SJFlexSN, flexsn_nn.FlexSN):
        w = torch.nn.Parameter((torch.linspace(-0.5, 0.5, B * N).view(w_shape) if w_shape else torch.tensor(0.2)).to(DEVICE))
        m = cls(core=_plif_with_sj_surrogate, num_states=1, static_inputs=(w,), step_mode="m").to(DEVICE)
        xg = x.clone().requires_grad_()
        if cls is flexsn_nn.FlexSN and (DEVICE.type == "cuda" or os.environ.get("TRITON_INTERPRET") == "1"):
            assert m.uses_kernels(x), "runs the eager loop"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = m(xg)
        v = m.states[0]
        weights = torch.linspace(-1.0, 1.0, T, device=DEVICE).view(T, 1, 1)
        ((s * weights).sum() + (v * v).sum()).backward()
        (p,) = list(m.parameters())
        results.append((s.detach(), v.detach(), xg.grad, p.grad))
    assert 0.05 < float(results[0][0].mean()) < 0.95
    for what, g, w in zip(["spikes", "v", "dL/dx", "dL/dw"], results[1], results[0]):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=lambda m, what=what: f"{what}: {m}")


def test_spikingjellys_set_step_mode_and_reset_net_drive_these_neurons() -> None:
    """A network mixing SpikingJelly's layers with these neurons, configured by SpikingJelly's own
    ``functional.set_step_mode`` / ``reset_net``, computes what the same network of SpikingJelly's neurons does."""
    from spikingjelly.activation_based import functional as sj_functional
    from spikingjelly.activation_based import layer as sj_layer

    torch.manual_seed(0)
    lin = sj_layer.Linear(N, 9)
    nets = []
    for lib in (sj_neuron, flexsn_nn):
        net = torch.nn.Sequential(sj_layer.Linear(N, 9), lib.LIFNode(tau=3.0), lib.ParametricLIFNode(v_threshold=0.5)).to(DEVICE)
        net[0].load_state_dict(lin.state_dict())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SpikingJelly logs that these modules are not its StepModules
            sj_functional.set_step_mode(net, "m")
        assert [m.step_mode for m in net] == ["m", "m", "m"]
        nets.append(net)
    x = (torch.rand(T, B, N, generator=torch.Generator().manual_seed(9)) * 3.0).to(DEVICE)
    outs = []
    for net in nets:
        for _ in range(2):  # reset_net between two sequences: the second starts from rest again
            sj_functional.reset_net(net)
            y = net(x)
        y.sum().backward()
        outs.append((y.detach(), net[0].weight.grad, net[2].w.grad))
    assert outs[0][0].any() and outs[0][2].abs().sum() > 0, "both neuron layers must fire"
    for g, w in zip(outs[1], outs[0]):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)


#: SpikingJelly 2.0's elementwise surrogate modules (LogTailedReLU assigns its gradient through boolean masks,
#: ``grad_x[x > 1] = 1 / x[x > 1]``, which ran the loop before ``flexsn_trace.masked``)
SJ_SURROGATES_IN_A_CORE = [*SURROGATES, "LogTailedReLU", "PiecewiseExp", "QPseudoSpike", "S2NN"]


def _loop_and_input_grad(
    core: Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]], x: torch.Tensor, weights: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The eager time loop of a one-state ``core`` over ``x`` ``[T, ...]`` from zeros: its outputs ``[T, ...]`` and the
    gradient of ``(outputs * weights).sum()`` by autograd through the loop, with respect to ``x``."""
    xr, v, ys = x.clone().requires_grad_(), torch.zeros_like(x[0]), []
    for t in range(x.shape[0]):
        s, v = core(xr[t], v)
        ys.append(s)
    y = torch.stack(ys)
    (grad,) = torch.autograd.grad((y * weights).sum(), xr)
    return y.detach(), grad


@pytest.mark.parametrize("name", SJ_SURROGATES_IN_A_CORE)
def test_a_core_on_a_spikingjelly_surrogate_module_trains_fused(name: str) -> None:
    """A core calling one of SpikingJelly's surrogate modules (``sg = surrogate.Erf()``, as its users write) runs
    the fused training kernels with the gradient of autograd through the eager loop. Erf, SoftSign and
    QPseudoSpike square in place in their backward (``pow_``), which ran the loop before."""
    sg = getattr(sj_surrogate, name)()

    def lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = sg(h - 1.0)
        return s, h * (1.0 - s)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = flexsn_nn.FlexSN(lif, 1, 1, 1).to(DEVICE)
    assert m.kernel.handle is not None and m.kernel.has_training_kernels, m.kernel.training_fallback_reason
    x = (torch.randn(T, B, N, generator=torch.Generator().manual_seed(6)) * 1.5 + 0.8).to(DEVICE)
    xg = x.clone().requires_grad_()
    weights = torch.linspace(-1.0, 1.0, T, device=DEVICE).view(T, 1, 1)
    y = m(xg)
    (y * weights).sum().backward()
    want, want_grad = _loop_and_input_grad(lif, x, weights)
    assert want_grad.abs().sum() > 0
    torch.testing.assert_close(y, want)
    torch.testing.assert_close(xg.grad, want_grad, rtol=1e-5, atol=1e-6)


def test_a_spikingjelly_surrogate_given_to_a_neuron_is_refused_naming_ours() -> None:
    with pytest.raises(TypeError, match=r"SpikingJelly's ATan is flexsn_nn\.surrogate\.ATan here, with the same arguments"):
        flexsn_nn.LIFNode(surrogate_function=sj_surrogate.ATan())


@pytest.mark.parametrize("name", sorted({n for n, _ in CASES}))
def test_a_spikingjelly_checkpoint_loads_strictly(name: str) -> None:
    """The same ``state_dict`` keys: a network trained with SpikingJelly's neurons loads into these."""
    theirs = getattr(sj_neuron, name)()
    ours = getattr(flexsn_nn, name)()
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    ours.load_state_dict(theirs.state_dict(), strict=True)


def test_a_spikingjelly_surrogates_parameters_are_followed_without_a_warning() -> None:
    """SpikingJelly's surrogate modules read their parameters by ``getattr(self, k) for k in self._sg_param_names``.
    Wherever SpikingJelly is imported from (an installed package, or a source checkout whose code FlexSN searches as
    the user's), a core on one builds without a "cannot follow" warning, and a later change of ``alpha`` traces the
    kernels again: they compute what the loop does. Before, a source checkout warned that ``alpha`` was not
    followed."""
    sg = sj_surrogate.ATan(alpha=2.0)

    def lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = sg(h - 1.0)
        return s, h * (1.0 - s)

    x = (torch.randn(T, B, N, generator=torch.Generator().manual_seed(8)) * 1.5 + 0.8).to(DEVICE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = flexsn_nn.FlexSN(lif, 1, 1, 1).to(DEVICE)
        m(x.clone().requires_grad_()).sum().backward()
        sg.alpha = 6.0
        m.reset()
        xg = x.clone().requires_grad_()
        m(xg).sum().backward()
    told = [str(w.message) for w in caught]
    assert not any("cannot follow" in t for t in told), told
    assert any("sg.alpha (2.0 -> 6.0)" in t for t in told), told
    _, want_grad = _loop_and_input_grad(lif, x, torch.ones((), device=DEVICE))
    torch.testing.assert_close(xg.grad, want_grad, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("step_mode", ["m", "s"])
def test_from_spikingjelly_swaps_a_networks_neurons_for_ones_computing_the_same(step_mode: str) -> None:
    """``flexsn_nn.from_spikingjelly``: every neuron of the zoo's names, with its settings, surrogate and learned
    PLIF ``w``, becomes FlexSN's; the network computes the same spikes and gradients; others stay, told."""
    import copy

    from spikingjelly.activation_based import functional as sj_functional
    from spikingjelly.activation_based import layer as sj_layer

    torch.manual_seed(1)
    net = torch.nn.Sequential(
        sj_layer.Linear(N, 9), sj_neuron.LIFNode(tau=3.0, surrogate_function=sj_surrogate.ATan(3.0), detach_reset=True),
        sj_layer.Linear(9, 9), sj_neuron.ParametricLIFNode(v_threshold=0.5, v_reset=None),
        sj_neuron.CUBALIFNode(c_decay=0.6, v_decay=0.5, surrogate_function=sj_surrogate.Sigmoid(4.0)),
        sj_layer.Linear(9, 9), sj_neuron.EIFNode(surrogate_function=sj_surrogate.PiecewiseLeakyReLU(0.8, 0.05)),
        sj_layer.Linear(9, 9), sj_neuron.IzhikevichNode(a=0.2, b=0.1), sj_neuron.IFNode(v_threshold=0.5),
    ).to(DEVICE)
    with torch.no_grad():
        net[3].w.fill_(0.7)  # a learned decay, not the initial one
        for lin in (net[0], net[2], net[5], net[7]):  # drive every layer to fire: their spikes are compared
            lin.weight.mul_(4.0)
            lin.bias.fill_(0.4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sj_functional.set_step_mode(net, step_mode)
    ours = flexsn_nn.from_spikingjelly(copy.deepcopy(net))
    assert [type(m).__module__.split(".")[0] for m in ours if "Node" in type(m).__name__] == ["flexsn_nn"] * 6
    assert float(ours[3].w.detach()) == pytest.approx(0.7) and ours[1].surrogate_function == our_surrogate.ATan(3.0)
    x = (torch.rand(T, B, N, generator=torch.Generator().manual_seed(2)) * 3.0).to(DEVICE)
    got = []
    for m in (net, ours):
        xg = x.clone().requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = m(xg) if step_mode == "m" else torch.stack([m(xg[t]) for t in range(T)])
        (y * torch.linspace(-1.0, 1.0, T, device=DEVICE).view(T, 1, 1)).sum().backward()
        got.append((y.detach(), xg.grad, m[0].weight.grad, m[3].w.grad))
        m.zero_grad()
    assert 0.05 < float(got[0][0].mean()) < 0.95 and got[0][3].abs() > 0, "the last layer must fire (not always), w get a gradient"
    for g, w in zip(got[1], got[0]):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
    with pytest.warns(RuntimeWarning, match=r"left SpikingJelly's 1 \(KLIFNode\)"):
        flexsn_nn.from_spikingjelly(torch.nn.Sequential(sj_neuron.LIFNode(), sj_neuron.KLIFNode()))


def test_from_spikingjelly_keeps_the_parameters_an_optimizer_holds_and_swaps_its_flexsn() -> None:
    """PLIF's ``w`` and a ``FlexSN``'s static inputs stay the same ``nn.Parameter`` objects, so an optimizer built
    before the swap trains the swapped network; SpikingJelly's ``FlexSN`` becomes ours over the same core."""
    from spikingjelly.activation_based.neuron.flexsn import FlexSN as SJFlexSN

    w = torch.nn.Parameter(torch.full((B, N), 0.3, device=DEVICE))
    torch.manual_seed(0)  # the layers' initial weights: the test asserts spikes, whatever ran before it in the process
    net = torch.nn.Sequential(
        torch.nn.Linear(N, N), sj_neuron.ParametricLIFNode(v_threshold=0.5, step_mode="m"),
        torch.nn.Linear(N, N), SJFlexSN(core=_plif_with_sj_surrogate, num_states=1, static_inputs=(w,), step_mode="m"),
    ).to(DEVICE)
    with torch.no_grad():
        for lin in (net[0], net[2]):
            lin.weight.mul_(3.0)
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    plif_w = net[1].w
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        flexsn_nn.from_spikingjelly(net)
    assert isinstance(net[1], flexsn_nn.ParametricLIFNode) and net[1].w is plif_w
    assert type(net[3]) is flexsn_nn.FlexSN and net[3].static_inputs[0] is w
    assert (net[3].num_inputs, net[3].num_states, net[3].num_outputs) == (1, 1, 1)
    before = (plif_w.detach().clone(), w.detach().clone())
    x = (torch.rand(T, B, N, generator=torch.Generator().manual_seed(4)) * 2.0).to(DEVICE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = net(x)
    assert y.any()
    y.sum().backward()
    opt.step()
    assert not torch.equal(plif_w.detach(), before[0]) and not torch.equal(w.detach(), before[1])


@pytest.mark.parametrize("name", SURROGATES)
def test_surrogate_from_spikingjelly_keeps_the_parameters_and_spiking(name: str) -> None:
    for spiking in (True, False):
        theirs = getattr(sj_surrogate, name)(spiking=spiking)
        ours = flexsn_nn.surrogate_from_spikingjelly(theirs)
        assert type(ours).__name__ == name and ours.spiking is spiking
        assert all(getattr(ours, k) == getattr(theirs, k) for k in ours.param_names)
    with pytest.raises(TypeError, match="LogTailedReLU is not one of SpikingJelly's surrogates that flexsn_nn.surrogate has"):
        flexsn_nn.surrogate_from_spikingjelly(sj_surrogate.LogTailedReLU())


def test_the_sequence_helpers_compute_what_spikingjellys_do() -> None:
    """``functional.multi_step_forward`` / ``chunk_multi_step_forward`` / ``seq_to_ann_forward``, ours and its,
    on the same modules: a network's code keeps its calls when its imports switch."""
    from spikingjelly.activation_based import functional as sj_functional

    from flexsn_nn import functional as ours

    torch.manual_seed(0)
    fc = torch.nn.Linear(5, 4)
    x = torch.rand(6, 3, 5) * 2
    neuron = flexsn_nn.LIFNode(step_mode="s")
    y = ours.multi_step_forward(x, [fc, neuron])
    neuron.reset()
    torch.testing.assert_close(y, sj_functional.multi_step_forward(x, [fc, neuron]))
    multi = flexsn_nn.LIFNode(step_mode="m")
    y = ours.chunk_multi_step_forward(4, x, multi)
    multi.reset()
    torch.testing.assert_close(y, sj_functional.chunk_multi_step_forward(4, x, multi))
    torch.testing.assert_close(ours.seq_to_ann_forward(x, [fc, torch.nn.ReLU()]), sj_functional.seq_to_ann_forward(x, [fc, torch.nn.ReLU()]))
