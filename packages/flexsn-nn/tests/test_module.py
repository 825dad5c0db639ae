"""FlexSN module: backends vs an explicit Python loop, step modes, states, T == 0, copies, errors."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_reference import CORES, lif_core, pick_device, python_loop, two_core

from flexsn_nn import BACKENDS, FlexSN, FlexSNKernel, hop_available

DEV = pick_device()
T, SHAPE = 19, (3, 7)  # T and NCL = 21 are not multiples of 16
TOL: dict[str, Any] = {"atol": 2e-5, "rtol": 1e-5}

needs_hop = pytest.mark.skipif(not hop_available(), reason="flexsn_hop is not importable yet")
BACKEND_PARAMS = [pytest.param(b, marks=needs_hop) if b == "hop" else b for b in BACKENDS]


def _inputs(ni: int, T: int = T, seed: int = 0) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(T, *SHAPE, generator=g) * 1.5 + 0.5).to(DEV) for _ in range(ni)]


def _states(ns: int, seed: int = 1) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*SHAPE, generator=g).to(DEV) for _ in range(ns)]


def _as_tuple(out: Any) -> tuple[torch.Tensor, ...]:
    return (out,) if isinstance(out, torch.Tensor) else tuple(out)


@pytest.mark.parametrize("store", [False, True], ids=["final", "seqs"])
@pytest.mark.parametrize("core_name", sorted(CORES))
@pytest.mark.parametrize("backend", BACKEND_PARAMS)
def test_backend_matches_python_loop(backend: str, core_name: str, store: bool) -> None:
    core, ni, ns, no = CORES[core_name]
    m = FlexSN(core, ni, ns, no, backend=backend, store_state_seqs=store)
    xs = [x.requires_grad_() for x in _inputs(ni)]
    s0 = [s.requires_grad_() for s in _states(ns)]
    m.states = list(s0)
    outs = _as_tuple(m(*xs))
    assert len(outs) == no
    if backend in ("triton", "inductor"):
        assert m.uses_kernels(*xs)

    xr = [x.detach().clone().requires_grad_() for x in xs]
    sr = [s.detach().clone().requires_grad_() for s in s0]
    ref_outs, ref_seqs, ref_final = python_loop(core, no, xr, sr)

    for a, b in zip(outs, ref_outs):
        torch.testing.assert_close(a, b, **TOL)
    for a, b in zip(m.states, ref_final):
        assert a is not None
        torch.testing.assert_close(a, b, **TOL)
    if store:
        assert m.state_seqs is not None and len(m.state_seqs) == ns
        for a, b in zip(m.state_seqs, ref_seqs):
            assert a.shape == (T, *SHAPE)
            torch.testing.assert_close(a, b, **TOL)
    else:
        assert m.state_seqs is None

    g = torch.Generator().manual_seed(7)
    grads_out = [torch.randn(T, *SHAPE, generator=g).to(DEV) for _ in range(no)]
    grads_state = [torch.randn(*SHAPE, generator=g).to(DEV) for _ in range(ns)]
    finals = [s for s in m.states if s is not None]
    torch.autograd.backward([*outs, *finals], [*grads_out, *grads_state])
    torch.autograd.backward([*ref_outs, *ref_final], [*grads_out, *grads_state])
    for a, b in zip([*xs, *s0], [*xr, *sr]):
        assert a.grad is not None and b.grad is not None
        torch.testing.assert_close(a.grad, b.grad, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("backend", ["triton", "torch"])
def test_single_step_sequence_equals_multi_step(backend: str) -> None:
    m = FlexSN(two_core, 2, 2, 2, backend=backend, store_state_seqs=True)
    s = copy.deepcopy(m)
    s.step_mode = "s"
    xs = [x.requires_grad_() for x in _inputs(2)]
    ys = _as_tuple(m(*xs))
    xs_s = [x.detach().clone().requires_grad_() for x in xs]
    steps: list[tuple[torch.Tensor, ...]] = []
    for t in range(T):
        step = _as_tuple(s(*(x[t] for x in xs_s)))
        assert all(o.shape == SHAPE for o in step)
        assert s.state_seqs is not None and all(q.shape == (1, *SHAPE) for q in s.state_seqs)
        steps.append(step)
    for k in range(2):
        torch.testing.assert_close(torch.stack([st[k] for st in steps]), ys[k], **TOL)
    for a, b in zip(s.states, m.states):
        assert a is not None and b is not None
        torch.testing.assert_close(a, b, **TOL)
    sum((o * (k + 1)).sum() for k, o in enumerate(ys)).backward()
    sum((torch.stack([st[k] for st in steps]) * (k + 1)).sum() for k in range(2)).backward()
    for a, b in zip(xs, xs_s):
        assert a.grad is not None and b.grad is not None
        torch.testing.assert_close(a.grad, b.grad, atol=1e-4, rtol=1e-4)


def test_states_persist_across_calls_and_reset() -> None:
    m = FlexSN(lif_core, 1, 1, 1, store_state_seqs=True)
    assert m.states == [] and m.state_seqs == []
    (x,) = _inputs(1)
    with torch.no_grad():
        full = m(x)
        v_full = m.states[0]
        m.reset()
        assert m.states == [] and m.state_seqs == []
        first = m(x[:8])
        second = m(x[8:])
        assert m.state_seqs is not None and m.state_seqs[0].shape == (T - 8, *SHAPE)
        torch.testing.assert_close(torch.cat([first, second]), full)
        torch.testing.assert_close(m.states[0], v_full)
        m.reset()
        torch.testing.assert_close(m(x), full)  # reset: starts from zeros again


def test_states_setter_none_entries_and_init_states_override() -> None:
    class OnesInit(FlexSN):
        def init_states(self, *input_seqs: torch.Tensor) -> list[torch.Tensor]:
            x = input_seqs[0]
            return [x.new_ones(x.shape[1:]), x.new_full(x.shape[1:], -0.5)]

    m = OnesInit(two_core, 2, 2, 2, backend="torch")
    xs = _inputs(2)
    b0 = _states(1)[0]
    m.states = [None, b0]  # a: from init_states, b: given
    with torch.no_grad():
        out = m(*xs)
    ref, _, final = python_loop(two_core, 2, xs, [torch.ones(SHAPE, device=DEV), b0])
    torch.testing.assert_close(out[0], ref[0])
    torch.testing.assert_close(m.states[1], final[1])
    with pytest.raises(ValueError, match="num_states = 2"):
        m.states = [b0]
    with pytest.raises(TypeError, match="states\\[1\\]"):
        m.states = [b0, 3.0]  # type: ignore[list-item]
    m.states = None
    assert m.states == []


@pytest.mark.parametrize("backend", BACKEND_PARAMS)
def test_zero_steps_use_example_output_dtypes(backend: str) -> None:
    m = FlexSN(
        two_core, 2, 2, 2, backend=backend, store_state_seqs=True,
        example_outputs=(torch.zeros(SHAPE, dtype=torch.float16), torch.zeros(SHAPE, dtype=torch.float64)),
    )
    xs = [x[:0] for x in _inputs(2)]
    s, y = m(*xs)
    assert s.shape == (0, *SHAPE) and s.dtype == torch.float16 and s.device.type == DEV.type
    assert y.shape == (0, *SHAPE) and y.dtype == torch.float64
    assert all(t is not None and torch.equal(t, torch.zeros(SHAPE, device=DEV)) for t in m.states)
    assert m.state_seqs is not None and all(q.shape == (0, *SHAPE) for q in m.state_seqs)
    # existing states are kept, and a later call continues from them
    b = _states(2)
    m.states = b
    m(*xs)
    assert m.states[0] is b[0] and m.states[1] is b[1]
    plain = FlexSN(lif_core, 1, 1, 1, backend=backend)
    # torch / hop: the shapes of one step on fake tensors; fused: the inputs' shape
    (out,) = _as_tuple(plain(_inputs(1)[0][:0]))
    assert out.shape == (0, *SHAPE) and out.dtype == torch.float32


def test_deepcopy_shares_kernel_and_keeps_working() -> None:
    m = FlexSN(lif_core, 1, 1, 1)
    x = _inputs(1)[0].requires_grad_()
    y = m(x)  # states now carry autograd history
    c = copy.deepcopy(m)
    assert c.kernel is not m.kernel and c.kernel.handle == m.kernel.handle is not None
    assert c.states[0] is not None and c.states[0].grad_fn is None
    torch.testing.assert_close(c.states[0], m.states[0].detach())  # type: ignore[union-attr]
    handle = m.kernel.handle
    del m
    c.reset()
    with torch.no_grad():
        y2 = c(x)
    assert c.kernel.handle == handle and c.uses_kernels(x)
    torch.testing.assert_close(y2, y.detach())


def test_kernel_accessor_is_the_functional_form() -> None:
    m = FlexSN(two_core, 2, 2, 2, store_state_seqs=True)
    assert isinstance(m.kernel, FlexSNKernel) and m.kernel.handle is not None
    xs, s0 = _inputs(2), _states(2)
    with torch.no_grad():
        m.states = s0
        outs = m(*xs)
        k_outs = m.kernel(*xs, *s0)
        k_final = m.kernel.final_state(*xs, *s0)
    for a, b in zip(outs, k_outs[:2]):
        torch.testing.assert_close(a, b)
    assert m.state_seqs is not None
    for j in range(2):
        torch.testing.assert_close(m.state_seqs[j], k_outs[2 + j])
        torch.testing.assert_close(m.states[j], k_final[2 + j])  # type: ignore[arg-type]
    torch_m = FlexSN(lif_core, 1, 1, 1, backend="torch")
    assert torch_m.kernel.handle is not None  # built on demand for the torch backend


def test_requires_grad_mask_passes_through() -> None:
    # x2 is never differentiated; BPTT still flows through the states
    m = FlexSN(two_core, 2, 2, 2, requires_grad=(True, False, False, False))
    x1, x2 = _inputs(2)
    x1.requires_grad_()
    s, y = m(x1, x2)
    (s.sum() + y.sum()).backward()
    xr = x1.detach().clone().requires_grad_()
    ref, _, _ = python_loop(two_core, 2, [xr, x2], [torch.zeros(SHAPE, device=DEV)] * 2)
    (ref[0].sum() + ref[1].sum()).backward()
    assert x1.grad is not None and xr.grad is not None
    torch.testing.assert_close(x1.grad, xr.grad, atol=1e-4, rtol=1e-4)
    with pytest.raises(ValueError, match="requires_grad must hold"):
        FlexSN(two_core, 2, 2, 2, backend="torch", requires_grad=(True,))


def test_constructor_validation_and_repr() -> None:
    with pytest.raises(ValueError, match=r"\['torch', 'triton', 'inductor', 'hop'\]"):
        FlexSN(lif_core, 1, 1, 1, backend="cuda")
    with pytest.raises(ValueError, match=r"\['s', 'm'\]"):
        FlexSN(lif_core, 1, 1, 1, step_mode="multi")
    with pytest.raises(TypeError, match="callable"):
        FlexSN(3, 1, 1, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"num_inputs must be >= 1, got 0 \(at least one input sequence\)"):
        FlexSN(lif_core, 0, 1, 1, backend="torch")
    with pytest.raises(ValueError, match="num_inputs must be >= 1, got -1"):  # not ">= 0": zero is refused too
        FlexSN(lif_core, -1, 1, 1, backend="torch")
    with pytest.raises(TypeError, match="num_states must be an int"):
        FlexSN(lif_core, 1, 1.0, 1, backend="torch")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="example_outputs must hold"):
        FlexSN(lif_core, 1, 1, 1, backend="torch", example_outputs=())
    with pytest.raises(TypeError, match="store_state_seqs must be a Python bool, got str 'False'"):
        FlexSN(lif_core, 1, 1, 1, backend="torch", store_state_seqs="False")  # type: ignore[arg-type]  # before: kept, as True
    m = FlexSN(lif_core, 1, 1, 1, backend="torch")
    with pytest.raises(ValueError, match="backend must be one of"):
        m.backend = "jax"
    with pytest.raises(ValueError, match="step_mode must be one of"):
        m.step_mode = "x"
    text = repr(m)
    for part in ("backend='torch'", "step_mode='m'", "num_inputs=1", "num_states=1", "num_outputs=1"):
        assert part in text


@pytest.mark.parametrize("backend", ["triton", "torch"])
def test_bad_input_raises_before_running_and_keeps_states(backend: str) -> None:
    m = FlexSN(two_core, 2, 2, 2, backend=backend, store_state_seqs=True)
    x1, x2 = _inputs(2)
    with torch.no_grad():
        m(x1, x2)
    states, seqs = list(m.states), list(m.state_seqs or [])

    def unchanged() -> None:
        assert len(m.states) == 2 and all(a is b for a, b in zip(m.states, states))
        assert m.state_seqs is not None and all(a is b for a, b in zip(m.state_seqs, seqs))

    bad: list[tuple[tuple[Any, ...], type[Exception], str]] = [
        ((x1,), ValueError, "expected 2 input sequence"),
        ((x1, x2, x2), ValueError, "expected 2 input sequence"),
        ((x1, x2[:-1]), ValueError, "time dimension"),
        ((x1, x2[:, :2]), ValueError, "per-step shape"),
        ((x1, x2.tolist()), TypeError, "must be a torch.Tensor"),
        ((x1, x2.to(torch.int32)), TypeError, "floating-point"),
        ((x1, x2.double()), TypeError, "share one dtype"),
        ((x1, torch.empty_like(x2, device="meta")), ValueError, "one device"),
        ((x1[:, :2], x2[:, :2]), ValueError, "call reset"),
        ((torch.tensor(1.0), torch.tensor(1.0)), ValueError, "0-d"),
    ]
    for args, exc, msg in bad:
        with pytest.raises(exc, match=msg):
            m(*args)
        unchanged()
    m.states = [states[0], states[1].double()]
    with pytest.raises(TypeError, match="dtype"):
        m(x1, x2)
    m.states = states
    unchanged()


def test_error_inside_the_core_keeps_states() -> None:
    boom = [False]

    def fragile(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if boom[0]:
            raise RuntimeError("boom")
        return lif_core(x, v)

    for backend in ["torch", "hop"] if hop_available() else ["torch"]:
        m = FlexSN(fragile, 1, 1, 1, backend=backend)
        x = _inputs(1)[0]
        m(x)
        before = m.states[0]
        boom[0] = True
        with pytest.raises(RuntimeError, match="boom"):
            m(x)
        boom[0] = False
        assert m.states[0] is before

    def wrong_count(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return x + v

    s = FlexSN(wrong_count, 1, 1, 1, backend="torch", step_mode="s")
    with pytest.raises(ValueError, match="returned 1 values"):
        s(torch.zeros(3, device=DEV))
    assert s.states == []


def test_fallback_warning_without_interpreter_gives_correct_results(monkeypatch: pytest.MonkeyPatch) -> None:
    m = FlexSN(lif_core, 1, 1, 1)
    x = _inputs(1)[0].cpu()
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    assert not m.uses_kernels(x)
    with pytest.warns(RuntimeWarning, match="TRITON_INTERPRET"):
        y = m(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once only
        m.reset()
        y2 = m(x.requires_grad_())
    ref, _, final = python_loop(lif_core, 1, [x], [torch.zeros(SHAPE)])
    torch.testing.assert_close(y, ref[0])
    torch.testing.assert_close(y2, ref[0])
    torch.testing.assert_close(m.states[0], final[0])
    y2.sum().backward()
    assert x.grad is not None


@needs_hop
@pytest.mark.parametrize(
    ("env", "fn_name"),
    [
        ("FLEXSN_ENABLE_EXPERIMENTAL_LOWERABLE_SCAN", "lowerable_scan"),
        ("FLEXSN_ENABLE_EXPERIMENTAL_LOWERABLE_WHILE_LOOP", "lowerable_while_loop_scan"),
    ],
)
def test_hop_env_switches_to_lowerable_scans(monkeypatch: pytest.MonkeyPatch, env: str, fn_name: str) -> None:
    import flexsn_hop

    available = {
        "lowerable_scan": flexsn_hop.lowerable_scan_available,
        "lowerable_while_loop_scan": flexsn_hop.lowerable_while_loop_available,
    }[fn_name]
    if not available():
        pytest.skip(f"{fn_name} unavailable in this torch")
    calls: list[str] = []
    for name in (fn_name, fn_name + "_final_state", "flex_sn_scan", "eager_scan_final_state"):
        original = getattr(flexsn_hop, name)

        def spy(*args: Any, _name: str = name, _fn: Any = original, **kwargs: Any) -> Any:
            calls.append(_name)
            return _fn(*args, **kwargs)

        monkeypatch.setattr(flexsn_hop, name, spy)
    monkeypatch.setenv(env, "1")
    xs = _inputs(2)
    ref, ref_seqs, _ = python_loop(two_core, 2, xs, [torch.zeros(SHAPE, device=DEV)] * 2)
    for store, expected in ((True, fn_name), (False, fn_name + "_final_state")):
        m = FlexSN(two_core, 2, 2, 2, backend="hop", store_state_seqs=store)
        with torch.no_grad():
            out = m(*xs)
        assert calls[-1] == expected
        for a, b in zip(out, ref):
            torch.testing.assert_close(a, b, **TOL)
        if store:
            assert m.state_seqs is not None
            torch.testing.assert_close(m.state_seqs[1], ref_seqs[1], **TOL)
    m = FlexSN(two_core, 2, 2, 2, backend="hop")
    m(xs[0].requires_grad_(), xs[1])  # training keeps the unrolled operator path
    assert calls[-1] == "eager_scan_final_state"
    monkeypatch.delenv(env)
    with torch.no_grad():
        FlexSN(two_core, 2, 2, 2, backend="hop", store_state_seqs=True)(*xs)
    assert calls[-1] == "flex_sn_scan"


@pytest.mark.parametrize("backend", [pytest.param("hop", marks=needs_hop), "triton"])
def test_torch_compile_fullgraph_keeps_states(backend: str) -> None:
    import torch._dynamo

    torch._dynamo.reset()
    m = FlexSN(two_core, 2, 2, 2, backend=backend, store_state_seqs=True)
    ref = FlexSN(two_core, 2, 2, 2, backend="torch", store_state_seqs=True)
    compiled = torch.compile(m, backend="aot_eager", fullgraph=True)
    xs = _inputs(2)
    x1 = xs[0].requires_grad_()
    x1r = x1.detach().clone().requires_grad_()
    for _ in range(2):  # the second call starts from the first call's states
        out = compiled(x1, xs[1])
        r = ref(x1r, xs[1])
        for a, b in zip(out, r):
            torch.testing.assert_close(a, b, **TOL)
    assert m.state_seqs is not None and ref.state_seqs is not None
    torch.testing.assert_close(m.state_seqs[1], ref.state_seqs[1], **TOL)
    (out[0].sum() + out[1].sum()).backward()
    (r[0].sum() + r[1].sum()).backward()
    assert x1.grad is not None and x1r.grad is not None
    torch.testing.assert_close(x1.grad, x1r.grad, atol=1e-4, rtol=1e-4)
    torch._dynamo.reset()


_LIF_MODULES: dict[bool, FlexSN] = {}


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    T=st.integers(0, 33),
    shape=st.lists(st.integers(1, 9), min_size=1, max_size=3).map(tuple),
    store=st.booleans(),
)
def test_triton_matches_loop_on_arbitrary_sizes(T: int, shape: tuple[int, ...], store: bool) -> None:
    if store not in _LIF_MODULES:
        _LIF_MODULES[store] = FlexSN(lif_core, 1, 1, 1, store_state_seqs=store)
    m = _LIF_MODULES[store]
    m.reset()
    x = (torch.rand(T, *shape) * 3.0).to(DEV)
    with torch.no_grad():
        y = m(x)
        m2 = m(x)  # continues from the first call's states
    ref, ref_seqs, _ = python_loop(lif_core, 1, [torch.cat([x, x])], [torch.zeros(shape, device=DEV)])
    assert isinstance(y, torch.Tensor) and isinstance(m2, torch.Tensor)
    torch.testing.assert_close(torch.cat([y, m2]), ref[0], **TOL)
    if T:
        torch.testing.assert_close(m.states[0], ref_seqs[0][-1], **TOL)
    if store:
        assert m.state_seqs is not None
        torch.testing.assert_close(m.state_seqs[0], ref_seqs[0][T:], **TOL)


@pytest.mark.parametrize("backend", [pytest.param("hop", marks=needs_hop), "triton"])
def test_training_kernels_first_needed_inside_torch_compile(backend: str) -> None:
    """The training trace waits for the first call that needs gradients; that call may be a compiled one."""
    import torch._dynamo

    from flexsn_runtime import lookup_flexsn_kernel_handle

    torch._dynamo.reset()

    def leaky(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # a core no other test built
        h = 0.75 * v + x
        return torch.sigmoid(4.0 * (h - 1.0)), h * 0.5

    m = FlexSN(leaky, 1, 1, 1, backend=backend)
    if backend == "triton":
        assert lookup_flexsn_kernel_handle(m.kernel.handle).training is None
    x = (torch.rand(T, 4, 5, device=DEV) * 2).requires_grad_()
    xr = x.detach().clone().requires_grad_()
    y = torch.compile(m, backend="aot_eager", fullgraph=True)(x)
    (yr,), _, _ = python_loop(leaky, 1, [xr], [torch.zeros(4, 5, device=DEV)])
    torch.testing.assert_close(y, yr, **TOL)
    g = torch.rand_like(y)
    (y * g).sum().backward()
    (yr * g).sum().backward()
    torch.testing.assert_close(x.grad, xr.grad, **TOL)
    if backend == "triton":
        assert lookup_flexsn_kernel_handle(m.kernel.handle).training is not None


@pytest.mark.parametrize("backend", ["torch", "triton", pytest.param("hop", marks=needs_hop)])
def test_torch_compile_with_a_second_batch_size(backend: str) -> None:
    """A compiled network meets a new batch size (an epoch's last batch): Dynamo recompiles with dynamic shapes
    (for ``hop``, it then lifts the batch size into ``flex_sn_scan``'s arguments: ``flexsn_hop.sizes``)."""
    import torch._dynamo

    torch._dynamo.reset()
    m = FlexSN(lif_core, 1, 1, 1, backend=backend)
    compiled = torch.compile(m, backend="aot_eager", fullgraph=True)
    try:
        for batch in (2, 3, 4):
            x = (torch.rand(5, batch, 8, device=DEV) * 2.5).requires_grad_()  # scaled: the neurons spike
            xr = x.detach().clone().requires_grad_()
            m.reset()
            y = compiled(x)
            y.sum().backward()
            want = python_loop(lif_core, 1, [xr], [torch.zeros_like(xr[0])])[0][0]
            want.sum().backward()
            assert torch.count_nonzero(want) > 0
            torch.testing.assert_close(y, want, **TOL)
            torch.testing.assert_close(x.grad, xr.grad, **TOL)
    finally:
        torch._dynamo.reset()
