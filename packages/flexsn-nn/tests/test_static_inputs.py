"""``static_inputs``: tensors passed to the core after the states at every step (learnable decays,
per-channel thresholds), on every backend, with gradients.

The reference is a Python loop over the core written here, with autograd through it; the fused
backends must also run fused (no fallback warning, and the kernels' route).
"""

from __future__ import annotations

import copy
import io
import pickle
import warnings
from typing import Any, Callable, Sequence

import pytest
import torch
from torch import nn

import flexsn_runtime.flexsn_kernel as flexsn_kernel_module
from flexsn_nn import FlexSN, hop_available
from flexsn_nn.surrogate import Sigmoid
from flexsn_trace.testing import SpikeWithAlpha
from nn_reference import plif_core as plif

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
needs_hop = pytest.mark.skipif(not hop_available(), reason="flexsn_hop is not importable")
BACKENDS = ["torch", "triton", "inductor", pytest.param("hop", marks=needs_hop)]
T, B, C, H = 5, 2, 3, 4
spike = Sigmoid(alpha=4.0)


def adaptive_threshold(
    x: torch.Tensor, v: torch.Tensor, a: torch.Tensor, th: torch.Tensor, beta: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Two states and two static inputs: a per-channel threshold and an adaptation strength."""
    h = 0.5 * v + x
    s = spike(h - th - beta * a)
    return s, h - s * th, 0.8 * a + s


def shifted_plif(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """PLIF with a threshold ``th`` (a module-level function: modules holding it pickle)."""
    return plif(x - th + 1.0, v, w)


def loop(core: Callable[..., Any], x: torch.Tensor, states: Sequence[torch.Tensor], statics: Sequence[torch.Tensor]):  # type: ignore[no-untyped-def]
    ys, seqs = [], []
    for t in range(x.shape[0]):
        y, *states = core(x[t], *states, *statics)
        ys.append(y)
        seqs.append(states)
    return torch.stack(ys), [torch.stack([s[j] for s in seqs]) for j in range(len(states))]


def _x(dtype: torch.dtype = torch.float32) -> torch.Tensor:
    g = torch.Generator().manual_seed(5)
    return (torch.rand(T, B, C, H, generator=g) * 2.5).to(DEVICE, dtype)


class FusedRoutes:
    """Records the route of every fused call (the kernels ran, not the eager loop)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real = flexsn_kernel_module.run_route

        def spy(kernel: Any, r: Any, *args: Any, **kwargs: Any) -> Any:
            self.paths.append(r.path)
            return real(kernel, r, *args, **kwargs)

        monkeypatch.setattr(flexsn_kernel_module, "run_route", spy)


@pytest.mark.parametrize(
    "w_shape", [(), (1,), (C, 1), (H,), (B, C, H), (1, C, 1), (B, 1, 1), (C, H)],
    ids=["scalar", "1", "per-channel", "per-feature", "per-neuron", "1C1", "per-sample", "CH"],
)
@pytest.mark.parametrize("backend", BACKENDS)
def test_plif_with_a_learnable_decay_matches_the_loop(backend: str, w_shape: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    routes = FusedRoutes(monkeypatch)
    w = nn.Parameter(torch.linspace(-1.0, 1.0, max(1, int(torch.tensor(w_shape).prod()))).reshape(w_shape).to(DEVICE))
    m = FlexSN(plif, 1, 1, 1, backend=backend, store_state_seqs=True, static_inputs=[w])
    x = _x().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # fused backends: no fallback
        y = m(x)
    weights = torch.rand(y.shape, generator=torch.Generator().manual_seed(1)).to(DEVICE)
    assert m.state_seqs is not None
    ((y * weights).sum() + m.state_seqs[0].sum() * 0.5).backward()
    xr, wr = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    yr, (vr,) = loop(plif, xr, [torch.zeros(B, C, H, device=DEVICE)], [wr])
    ((yr * weights).sum() + vr.sum() * 0.5).backward()
    torch.testing.assert_close(y, yr)
    torch.testing.assert_close(m.state_seqs[0], vr)
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5)
    assert w.grad is not None and w.grad.shape == w.shape and w.grad.abs().sum() > 0
    torch.testing.assert_close(w.grad, wr.grad, rtol=1e-4, atol=1e-5)
    if backend in ("triton", "inductor"):
        assert routes.paths == ["training"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("store", [False, True], ids=["final-state", "state-seqs"])
def test_two_states_and_two_static_inputs(backend: str, store: bool) -> None:
    th = nn.Parameter(torch.tensor([0.8, 1.0, 1.2], device=DEVICE).view(C, 1))
    beta = nn.Parameter(torch.tensor(0.3, device=DEVICE))
    m = FlexSN(adaptive_threshold, 1, 2, 1, backend=backend, store_state_seqs=store, static_inputs=[th, beta])
    x = _x().requires_grad_()
    y = m(x)
    loss = y.sum() + sum(s.sum() for s in m.states if s is not None)
    loss.backward()
    leaves = [x.detach().clone().requires_grad_(), th.detach().clone().requires_grad_(), beta.detach().clone().requires_grad_()]
    zeros = [torch.zeros(B, C, H, device=DEVICE)] * 2
    yr, seqs = loop(adaptive_threshold, leaves[0], zeros, leaves[1:])
    (yr.sum() + sum(q[-1].sum() for q in seqs)).backward()
    torch.testing.assert_close(y, yr)
    for got, want in zip([x, th, beta], leaves):
        assert got.grad is not None
        torch.testing.assert_close(got.grad, want.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("backend", ["triton", pytest.param("hop", marks=needs_hop)])
def test_inside_torch_compile_fullgraph(backend: str) -> None:
    w = nn.Parameter(torch.full((C, 1), 0.2, device=DEVICE))
    m = FlexSN(plif, 1, 1, 1, backend=backend, static_inputs=[w])

    def step(x: torch.Tensor) -> torch.Tensor:
        m.reset()
        return m(x)

    compiled = torch.compile(step, fullgraph=True, backend="aot_eager")
    x = _x().requires_grad_()
    compiled(x).sum().backward()
    got = (x.grad.clone(), w.grad.clone())  # type: ignore[union-attr]
    x.grad, w.grad = None, None
    step(x).sum().backward()
    torch.testing.assert_close(got[0], x.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(got[1], w.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_sequences_with_fp32_parameters(dtype: torch.dtype) -> None:
    w = nn.Parameter(torch.full((C, 1), 0.1, device=DEVICE))
    m = FlexSN(plif, 1, 1, 1, static_inputs=[w])
    x = _x(dtype).requires_grad_()
    y = m(x)
    assert y.dtype == dtype and m.uses_kernels(x)
    y.float().sum().backward()
    assert w.grad is not None and w.grad.dtype == torch.float32
    # the reference loop in fp32 on the same (rounded) inputs; kernels store v in the sequences' dtype
    xr, wr = x.detach().float().requires_grad_(), w.detach().clone().requires_grad_()
    yr, _ = loop(plif, xr, [torch.zeros(B, C, H, device=DEVICE)], [wr])
    yr.sum().backward()
    assert (y.float() != yr).float().mean() < 0.05  # a few spikes may flip where v rounds across the threshold
    torch.testing.assert_close(w.grad, wr.grad, rtol=0.1, atol=0.5)


def _no_kernel_plif(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """PLIF with a reduction the kernels cannot lower: every backend falls back to the loop."""
    return plif(x + 0 * x.sum(-1, keepdim=True), v, w)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("core", [plif, _no_kernel_plif], ids=["fused", "falling back"])
@pytest.mark.parametrize("store", [False, True], ids=["final state", "state sequences"])
def test_half_sequences_with_fp32_parameters_keep_their_dtype_on_every_route(
    backend: str, core: Callable[..., Any], store: bool
) -> None:
    """By PyTorch's type promotion a bfloat16 step with a float32 parameter returns float32; the kernels store
    outputs and states in the sequences' dtype, and so must the loop (backend ``torch``, a fallback, ``hop``'s
    decomposition) and single-step mode. Before: ``backend="torch"`` and the fallbacks returned float32 sequences,
    and a single-step neuron raised "state 0 has dtype torch.float32 but the inputs have torch.bfloat16" on its
    second step."""
    w = nn.Parameter(torch.full((C, 1), 0.1, device=DEVICE))
    x = _x(torch.bfloat16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback's warning: not what is tested here
        m = FlexSN(core, 1, 1, 1, backend=backend, store_state_seqs=store, static_inputs=[w])
        y = m(x)
        single = FlexSN(core, 1, 1, 1, backend=backend, step_mode="s", static_inputs=[w])
        steps = [single(x[t]) for t in range(T)]
    assert y.dtype == torch.bfloat16 and all(s.dtype == torch.bfloat16 for s in m.states)
    if store:
        assert all(s.dtype == torch.bfloat16 for s in m.state_seqs)
    assert all(s.dtype == torch.bfloat16 for s in (*steps, *single.states))
    # the reference: the loop on the bfloat16 steps; each single step starts from the state rounded to bfloat16
    v = torch.zeros(B, C, H, device=DEVICE, dtype=torch.bfloat16)
    for t in range(T):
        want, v = (r.to(torch.bfloat16) for r in core(x[t], v, w))
        torch.testing.assert_close(steps[t], want)
    if backend == "torch":  # the loop itself: the promoted computation, stored once at the end
        want_y, _ = loop(core, x, [torch.zeros(B, C, H, device=DEVICE, dtype=torch.bfloat16)], [w])
        torch.testing.assert_close(y, want_y.to(torch.bfloat16))


def test_single_step_mode_passes_the_static_inputs() -> None:
    th = torch.tensor(0.7, device=DEVICE)
    m = FlexSN(lambda x, v, th: ((v + x >= th).to(x), (v + x) * 0.5), 1, 1, 1, step_mode="s", backend="torch", static_inputs=[th])
    x = _x()
    s1 = m(x[0])
    torch.testing.assert_close(s1, (x[0] >= 0.7).to(x))
    assert [n for n, _ in m.named_buffers()] == ["static_input_0"]


def test_registered_as_parameters_and_buffers_and_kept_by_copies() -> None:
    w = nn.Parameter(torch.full((C, 1), 0.5, device=DEVICE))
    th = torch.ones((), device=DEVICE)
    m = FlexSN(shifted_plif, 1, 1, 1, static_inputs=[w, th])
    assert [n for n, _ in m.named_parameters()] == ["static_input_0"]
    assert [n for n, _ in m.named_buffers()] == ["static_input_1"]
    assert set(m.state_dict()) == {"static_input_0", "static_input_1"}
    x = _x()
    with torch.no_grad():
        y = m(x)
        for twin in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
            assert twin.static_inputs[0] is not w and torch.equal(twin.static_inputs[0], w)
            twin.reset()
            torch.testing.assert_close(twin(x), y)
        buf = io.BytesIO()
        torch.save(m.state_dict(), buf)
        buf.seek(0)
        fresh = FlexSN(shifted_plif, 1, 1, 1,
                       static_inputs=[nn.Parameter(torch.zeros(C, 1, device=DEVICE)), torch.zeros((), device=DEVICE)])
        fresh.load_state_dict(torch.load(buf))
        torch.testing.assert_close(fresh(x), y)
    m.to(torch.float64)
    assert m.static_inputs[0].dtype == torch.float64


def test_a_static_input_that_requires_grad_but_is_no_parameter_is_told() -> None:
    """A view of a parameter (or a leaf tensor requiring grad) becomes a buffer: trained through this one graph,
    it silently stops following its source after ``.double()``; the construction says so, once, and names it."""
    w = nn.Parameter(torch.full((C, 2), 1.0, device=DEVICE))
    with pytest.warns(UserWarning, match=r"static_inputs\['static_input_0'\] requires grad but is not an nn.Parameter "
                                         r"\(computed by SliceBackward0\): it is registered as a buffer") as told:
        m = FlexSN(plif, 1, 1, 1, static_inputs=(w[:, :1],))
    assert len([t for t in told if "requires grad" in str(t.message)]) == 1
    assert told[0].filename == __file__  # points at the user's FlexSN(...) call
    assert [n for n, _ in m.named_buffers()] == ["static_input_0"]
    m.double()
    with torch.no_grad():
        w.add_(1.0)  # what the warning is about: the buffer no longer follows w
    assert not torch.equal(m.static_inputs[0].float(), w[:, :1])
    with pytest.warns(UserWarning, match=r"\(a leaf tensor\)"):
        FlexSN(plif, 1, 1, 1, static_inputs={"w": torch.zeros(C, 1, device=DEVICE, requires_grad=True)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a parameter, or a tensor without grad, is not told
        FlexSN(shifted_plif, 1, 1, 1, static_inputs=(nn.Parameter(torch.zeros(C, 1, device=DEVICE)), torch.ones(())))


def test_bad_static_inputs() -> None:
    with pytest.raises(TypeError, match=r"static_inputs\['static_input_0'\] must be a torch.Tensor, got float"):
        FlexSN(plif, 1, 1, 1, static_inputs=[0.5])  # type: ignore[list-item]
    # a lone tensor: before, iterated into its rows, then a tracing error about the core's argument count
    with pytest.raises(TypeError, match=r"sequence or mapping of tensors, got a torch.Tensor; wrap a single one"):
        FlexSN(plif, 1, 1, 1, static_inputs=torch.zeros(3))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'forward' is not a free attribute name"):
        FlexSN(plif, 1, 1, 1, static_inputs={"forward": torch.zeros(())})
    named = FlexSN(plif, 1, 1, 1, static_inputs={"w": nn.Parameter(torch.zeros(()))})
    assert [n for n, _ in named.named_parameters()] == ["w"]
    m = FlexSN(plif, 1, 1, 1, static_inputs=[torch.zeros(7, device=DEVICE)])  # does not broadcast to [B, C, H]
    with pytest.warns(RuntimeWarning, match=r"static input 'static_input_0' of shape \(7,\) does not broadcast"):
        # the eager loop runs the core, which fails in PyTorch; the error names the static input
        with pytest.raises(ValueError, match=r"'static_input_0' of shape \(7,\), which does not broadcast.*The size of"):
            m(_x())


@pytest.mark.parametrize("step_mode", ["m", "s"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_static_input_that_does_not_broadcast_is_named(backend: str, step_mode: str) -> None:
    """A per-channel parameter given the wrong length: a ``ValueError`` naming it, its shape and the per-step shape.

    Before, every backend raised PyTorch's "The size of tensor a (3) must match the size of tensor b
    (4)", which names neither the parameter nor the inputs' shape.
    """
    m = FlexSN(shifted_plif, 1, 1, 1, static_inputs={"w": nn.Parameter(torch.zeros(())), "th": nn.Parameter(torch.ones(C + 1, 1))},
               backend=backend, step_mode=step_mode).to(DEVICE)
    x = _x() if step_mode == "m" else _x()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the kernel backends' fallback to the eager loop, which then fails
        with pytest.raises(ValueError) as info:
            m(x)
    msg = str(info.value)
    assert f"'th' of shape ({C + 1}, 1), which does not broadcast to the per-step shape {(B, C, H)}" in msg
    assert "'w'" not in msg  # the scalar fits
    assert "The size of tensor" in msg  # PyTorch's own message stays
    m.reset()
    with torch.no_grad():
        m.th = nn.Parameter(torch.ones(C, 1, device=DEVICE))  # the right shape: it runs
    assert m(x).shape == x.shape


@pytest.mark.parametrize("backend", ["triton", "inductor"])
def test_the_fallback_warning_names_the_static_input(backend: str) -> None:
    """The kernel backends' fallback warning names a static input by its registered name and a captured
    tensor by where it lives, not by its argument index (before: "static input 1 has dtype torch.int64")."""
    gain = torch.ones((), device=DEVICE)

    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return shifted_plif(x * gain, v, w, th)

    m = FlexSN(core, 1, 1, 1, static_inputs={"w": nn.Parameter(torch.zeros((), device=DEVICE)),
                                              "th": torch.ones(C, 1, device=DEVICE)}, backend=backend)
    assert m.kernel.captures.names() == ("closure gain",)
    m.th = torch.ones(C, 1, device=DEVICE, dtype=torch.int64)  # a buffer the kernels cannot read
    with pytest.warns(RuntimeWarning, match=r"static input 'th' has dtype torch.int64") as record:
        y = m(_x())
    assert not any("static input 1" in str(r.message) for r in record)
    torch.testing.assert_close(y, loop(core, _x(), [torch.zeros(B, C, H, device=DEVICE)], m.static_inputs)[0])
    m.reset()
    m.th = torch.ones(C, 1, device=DEVICE)
    gain = torch.ones(7, device=DEVICE)  # the closure's tensor no longer broadcasts: the loop's own error follows
    with pytest.warns(RuntimeWarning, match=r"the captured tensor closure gain of shape \(7,\) does not broadcast"):
        with pytest.raises(RuntimeError):
            m(_x())


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_parameter_bound_as_a_default_argument(backend: str, compiled: bool) -> None:
    """``../shared/bench/bench_plif.py``'s core: ``w`` bound as a default, lifted on every backend, also
    inside ``torch.compile(fullgraph=True)``; no fallback warning, gradients as autograd through the loop."""
    w = nn.Parameter(torch.tensor(0.2, device=DEVICE))

    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor = w) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(w)
        s = SpikeWithAlpha.apply(h - 1.0, 4.0)
        return s, h * (1.0 - s)

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # ours (a fallback); Dynamo's own DeprecationWarnings pass
        m = FlexSN(core, 1, 1, 1, backend=backend).to(DEVICE)
        if backend in ("triton", "inductor"):
            assert m.kernel.captures.names() == ("default w",)
        # dynamic=False: another test's compile of FlexSN.forward with other shapes would make
        # Dynamo recompile this one with dynamic shapes (see test_module's second batch size test)
        run = torch.compile(m, fullgraph=True, backend="aot_eager", dynamic=False) if compiled else m
        x = _x().requires_grad_()
        y = run(x)
        (y * torch.linspace(0.5, 1.5, H, device=DEVICE)).sum().backward()
    got = (y.detach(), x.grad.clone(), w.grad.clone())  # type: ignore[union-attr]
    w.grad = None
    xr = x.detach().clone().requires_grad_()
    yr, _ = loop(core, xr, [torch.zeros_like(xr[0])], [])
    (yr * torch.linspace(0.5, 1.5, H, device=DEVICE)).sum().backward()
    torch.testing.assert_close(got[0], yr)
    torch.testing.assert_close(got[1], xr.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(got[2], w.grad, rtol=1e-4, atol=1e-5)


MIXED_GAIN = torch.tensor(1.0)


class _Settings(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cfg = {"bias": torch.linspace(-0.1, 0.1, H, device=DEVICE).requires_grad_()}


class MixedPlaces(nn.Module):
    """Tensors in the places lifted last: a class-body tensor read through ``self``, a dict held as a plain
    attribute, a module global read by a method ``forward`` calls, and a dict held by a submodule's plain
    attribute (each fell back to the loop before)."""

    th = torch.tensor(1.0)

    def __init__(self) -> None:
        super().__init__()
        self.p = {"decay": torch.linspace(-0.5, 0.5, H, device=DEVICE).requires_grad_()}
        self.settings = _Settings()

    def fire(self, h: torch.Tensor) -> torch.Tensor:
        return spike(MIXED_GAIN * (h - self.th))

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(self.p["decay"]) + self.settings.cfg["bias"]
        s = self.fire(h)
        return s, h * (1.0 - s)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_captures_of_classes_containers_and_methods(backend: str, compiled: bool) -> None:
    """Lifted on every backend, also inside ``torch.compile(fullgraph=True)``; no fallback warning, gradients of
    every captured tensor as autograd through the loop."""
    global MIXED_GAIN
    MIXED_GAIN = torch.full((C, 1), 1.5, device=DEVICE, requires_grad=True)
    MixedPlaces.th = torch.linspace(0.8, 1.2, H, device=DEVICE).requires_grad_()
    core = MixedPlaces()
    params = [MIXED_GAIN, MixedPlaces.th, core.p["decay"], core.settings.cfg["bias"]]
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        m = FlexSN(core, 1, 1, 1, backend=backend)
        if backend in ("triton", "inductor"):
            assert set(m.kernel.captures.names()) == {
                "self.th", "self.p['decay']", "global MIXED_GAIN (read by fire)", "self.settings.cfg['bias']",
            }
        run = torch.compile(m, fullgraph=True, backend="aot_eager", dynamic=False) if compiled else m
        x = _x().requires_grad_()
        y = run(x)
        (y * torch.linspace(0.5, 1.5, H, device=DEVICE)).sum().backward()
    got = [y.detach(), x.grad.clone(), *(p.grad.clone() for p in params)]  # type: ignore[union-attr]
    for p in params:
        p.grad = None
    xr = x.detach().clone().requires_grad_()
    yr, _ = loop(core, xr, [torch.zeros_like(xr[0])], [])
    (yr * torch.linspace(0.5, 1.5, H, device=DEVICE)).sum().backward()
    for g, want in zip(got, [yr, xr.grad, *(p.grad for p in params)]):
        torch.testing.assert_close(g, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_static_input_on_another_device_is_named(backend: str) -> None:
    """Inputs moved without their neuron (``x.cuda()`` but no ``net.cuda()``): a ``ValueError`` naming the
    parameter and both devices, with PyTorch's message after it. (The meta device stands in for a second
    device on a CPU-only machine: the core's arithmetic fails on it as on CUDA.)"""
    m = FlexSN(shifted_plif, 1, 1, 1, static_inputs={"w": nn.Parameter(torch.zeros(())), "th": nn.Parameter(torch.ones(C, 1))},
               backend=backend).to(DEVICE)
    m.th = nn.Parameter(torch.ones(C, 1, device="meta"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the kernel backends' fallback to the eager loop, which then fails
        with pytest.raises(ValueError) as info:
            m(x := _x())
    msg = str(info.value)
    # the inputs' own device (cuda:0 on a GPU, where DEVICE is the index-free "cuda")
    assert "'th' is on meta" in msg and f"than the inputs ({x.device})" in msg and ".to(" in msg
    assert "'w'" not in msg


@pytest.mark.parametrize("backend", ["triton", "inductor", pytest.param("hop", marks=needs_hop)])
def test_inside_torch_compile_with_dynamic_shapes(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``torch.compile(dynamic=True)``: every size symbolic, the channel count too. A per-channel static still runs
    fused and matches the loop, over batch and length changes. Before, Dynamo answered ``3 in (1, s)`` False for
    the symbolic channel size, the static was said not to broadcast, and the call fell back to the loop inside
    the compiled graph, where Dynamo then failed ("lift_tracked_freevar_to_input should not be called on root
    SubgraphTracer"). On ``hop`` this core's global surrogate reaches the scan's body as a lifted float that the
    surrogate's own ``autograd.Function`` bodies read with ``.item()``; the scan trained on the eager loop, with a
    warning, until ``flexsn_hop.scalars`` read it as a tensor there too."""
    routes = FusedRoutes(monkeypatch)
    if backend == "hop":  # the scan's fused path routes through flexsn_hop.runtime_fusion
        from flexsn_hop import runtime_fusion

        real = runtime_fusion.run_route
        monkeypatch.setattr(runtime_fusion, "run_route", lambda k, r, *a, **kw: (routes.paths.append(r.path), real(k, r, *a, **kw))[1])
    w0 = torch.linspace(-0.5, 0.5, C, device=DEVICE).view(C, 1)
    m = FlexSN(plif, 1, 1, 1, backend=backend, static_inputs={"w": nn.Parameter(w0.clone())})

    def step(x: torch.Tensor) -> torch.Tensor:
        m.reset()
        return m(x)

    compiled = torch.compile(step, dynamic=True, backend="aot_eager")
    torch._dynamo.reset()
    try:
        for b, h in ((B, H), (B + 1, H), (B, H + 3)):
            x = (torch.rand(T, b, C, h, generator=torch.Generator().manual_seed(b * h)) * 2.5).to(DEVICE)
            xg = x.clone().requires_grad_()
            m.w.grad = None
            with warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)  # no fallback
                y = compiled(xg)
            g = torch.linspace(0.5, 1.5, y.numel(), device=DEVICE).view(y.shape)
            (y * g).sum().backward()
            wr, xr = w0.clone().requires_grad_(), x.clone().requires_grad_()
            yr, _ = loop(plif, xr, [torch.zeros_like(x[0])], [wr])
            (yr * g).sum().backward()
            torch.testing.assert_close(y, yr)
            torch.testing.assert_close(xg.grad, xr.grad, rtol=1e-4, atol=1e-5)
            torch.testing.assert_close(m.w.grad, wr.grad, rtol=1e-4, atol=1e-4)
    finally:
        torch._dynamo.reset()
    assert routes.paths and "eager" not in routes.paths, routes.paths
