"""Static inputs in the kernels: the layout rules, gradients summed over time and broadcast dims,
the public launchers and ops, against autograd through the Python loop."""

from __future__ import annotations

import math
import pickle
import warnings
import pytest
import torch

from flexsn_runtime import FlexSNKernel, ensure_training_kernels, flexsn_backward, flexsn_inference_op
from flexsn_runtime.scan_kernel import ScanKernel
from flexsn_runtime import statics as statics_module
from flexsn_runtime.statics import (
    StaticPartials, partial_modes, prepare_static, run_gradients, split_sums, static_dims, static_layout, static_problem,
    static_runs,
)
from flexsn_trace import ScanContract, reference_scan

STEP = (2, 3, 4)


def decay_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(w)
    return torch.tanh(h), h * 0.9


def ratio_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Divides by its static input: on a masked lane (zeros loaded) its gradient is 0 / 0."""
    h = 0.5 * v + x
    return h / w, h


@pytest.mark.parametrize(
    "shape, layout",
    [((1, 1, 1), (1, 1)), ((2, 3, 4), (1, 24)), ((1, 3, 1), (4, 3)), ((1, 1, 4), (1, 4)), ((2, 1, 1), (12, 2)),
     ((1, 3, 4), (1, 12)), ((2, 3, 1), (4, 6))],
)
def test_layouts_give_the_broadcast_index(shape: tuple[int, ...], layout: tuple[int, int]) -> None:
    assert static_layout(shape, STEP) == layout
    inner, mid = layout
    w = torch.arange(torch.Size(shape).numel()).reshape(shape)
    i = torch.arange(24)
    torch.testing.assert_close(w.reshape(-1)[(i // inner) % mid], w.expand(STEP).reshape(-1))


@pytest.mark.parametrize("shape", [(3,), (2, 3, 5), (1, 3), (2, 1, 4), (3, 1, 1, 1)])
def test_prepare_brings_any_broadcasting_shape_into_layout(shape: tuple[int, ...]) -> None:
    w = torch.randn(shape)
    if static_problem([w], torch.zeros(1, *STEP)) is not None:
        with pytest.raises(ValueError, match="does not broadcast"):
            prepare_static(w, STEP)
        return
    p = prepare_static(w, STEP)
    assert static_layout(p.shape, STEP) is not None and p.is_contiguous()
    torch.testing.assert_close(p.expand(STEP), w.expand(STEP))


@pytest.mark.parametrize("shape", [(), (1,), (4,), (3, 1), (1, 3, 4), (2, 3, 4)])
def test_a_static_already_in_the_kernels_memory_is_passed_as_it_is(shape: tuple[int, ...]) -> None:
    w = torch.randn(shape, requires_grad=True)
    assert prepare_static(w, STEP) is w  # no reshape node per call; its gradient comes back in its own shape
    assert static_layout(shape, STEP) == static_layout(prepare_static(w.detach().reshape((1,) * (3 - len(shape)) + shape), STEP).shape, STEP)
    strided = torch.randn(4, 3).t()  # [3, 4], not contiguous: copied into layout form
    p = prepare_static(strided, STEP)
    assert p is not strided and p.is_contiguous()
    torch.testing.assert_close(p.expand(STEP), strided.expand(STEP))


def test_a_gap_in_the_run_is_filled_and_its_gradient_summed() -> None:
    w = torch.randn(2, 1, 4, requires_grad=True)  # [2, 1, 4]: not one run; becomes [2, 3, 4]
    p = prepare_static(w, STEP)
    assert p.shape == STEP
    partial = torch.randn(24)
    p.backward(_reduced(partial, [p.shape], STEP, 32)[0])
    assert w.grad is not None
    torch.testing.assert_close(w.grad, partial.view(STEP).sum(1, keepdim=True))


def _kernel_store(v: torch.Tensor, mode: int, block: int) -> torch.Tensor:
    """What the backward kernel stores for per-neuron time sums ``v`` [NCL] under ``RED = mode`` (flexsn_codegen.templates)."""
    if mode == 0:
        return v
    programs = -(-v.numel() // block)
    padded = torch.zeros(programs * block, dtype=v.dtype)
    padded[: v.numel()] = v  # the masked tail adds nothing
    return padded.view(programs, block // mode, mode).sum(1).reshape(-1)


def _stored(v: torch.Tensor, shapes: list[tuple[int, ...]], step: tuple[int, ...], block: int) -> StaticPartials:
    """StaticPartials as the kernel leaves them when it stored per-neuron sums ``v`` (a row per static)."""
    ncl = torch.Size(step).numel()
    per_static = v.reshape(len(shapes), ncl)
    parts = StaticPartials.allocate(static_dims(shapes, step), ncl, block, torch.device("cpu"))
    for row, mode, sums in zip(parts.rows, parts.modes, per_static):
        row.copy_(_kernel_store(sums, mode, block))
    return parts


def _reduced(v: torch.Tensor, shapes: list[tuple[int, ...]], step: tuple[int, ...], block: int) -> list[torch.Tensor]:
    """The static gradients StaticPartials gives when the kernel stored per-neuron sums ``v`` (a row per static)."""
    return _stored(v, shapes, step, block).reduce(shapes, [v.dtype] * len(shapes))


@pytest.mark.parametrize(
    "step, shape, block, mode",
    [((2, 3, 4), (1, 1, 1), 32, 1), ((2, 3, 4), (1, 3, 1), 32, 0), ((2, 3, 4), (2, 1, 1), 32, 0),
     ((2, 3, 4), (1, 3, 4), 32, 0), ((2, 3, 4), (2, 3, 4), 32, 0), ((2, 4, 8), (), 16, 1),
     ((2, 4, 8), (4, 1), 8, 1), ((2, 4, 8), (4, 1), 16, 0), ((2, 4, 8), (4, 1), 64, 32), ((2, 4, 8), (8,), 16, 8),
     ((2, 4, 8), (2, 4, 8), 16, 0), ((2, 4, 8), (2, 4, 8), 64, 64), ((5, 4), (4,), 8, 4), ((3, 5), (5,), 16, 0),
     ((3, 5), (1,), 4, 1), ((4, 2, 8), (2, 1), 4, 1)],
)
def test_each_kernel_reduction_mode_sums_to_the_broadcast_dims(
    step: tuple[int, ...], shape: tuple[int, ...], block: int, mode: int
) -> None:
    """Every RED mode (per neuron, per program, one period per program; a masked tail) reduces to sum_to_size."""
    assert partial_modes(static_dims([shape], step), block) == (mode,)
    v = torch.randn(torch.Size(step).numel()).double()  # fp64 gradients of a static from the fp32 partials
    (got,) = _reduced(v, [shape], step, block)
    assert got.dtype == torch.float64 and got.shape == torch.Size(shape)
    torch.testing.assert_close(got, v.view(step).sum_to_size(shape) if shape else v.sum(), rtol=1e-5, atol=1e-6)


def test_statics_of_one_layout_share_a_reduction_and_each_gets_its_own_sum() -> None:
    """Runs of one layout summed together ([1, 3, 1] twice, then [2, 3, 4], then [1, 3, 1]), each row its own gradient."""
    shapes = [(1, 3, 1), (1, 3, 1), (2, 3, 4), (1, 3, 1), ()]
    values = torch.randn(len(shapes), *STEP)
    parts = StaticPartials.allocate(static_dims(shapes, STEP), 24, 32, torch.device("cpu"))
    assert len(parts.rows) == len(shapes) and len(parts.layout.groups) == 4
    got = _reduced(values, shapes, STEP, 32)
    for g, v, shape in zip(got, values, shapes):
        torch.testing.assert_close(g, v.sum_to_size(shape) if shape else v.sum())
    assert len({g.untyped_storage().data_ptr() for g in got}) == 4  # one per run of a layout


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_backward_ops_run_sums_split_into_each_statics_gradient(dtype: torch.dtype) -> None:
    """flexsn::backward's form: one fp32 [n, numel] sum per run of one shape, sharing no storage; split, the sum_to_size."""
    shapes = [(1, 3, 1), (1, 3, 1), (2, 3, 4), (1, 3, 1), (), ()]
    assert static_runs(shapes, STEP) == (2, 1, 1, 2)
    assert static_runs([(3, 1), (1, 3, 1), (1, 1, 1), ()], STEP) == (2, 2)  # ranks padded: [3, 1] is [1, 3, 1]
    values = torch.randn(len(shapes), *STEP)
    parts = _stored(values, shapes, STEP, 32)
    for runs in (static_runs(shapes, STEP), (1,) * len(shapes)):  # the op's runs; finer ones than the groups
        sums = parts.layout.run_sums(parts.bufs, runs)
        assert [tuple(s.shape) for s in sums] == [(n, math.prod(shapes[sum(runs[:i])])) for i, n in enumerate(runs)]
        assert all(s.dtype == torch.float32 for s in sums)
        assert len({s.untyped_storage().data_ptr() for s in sums}) == len(runs)
        got = run_gradients(sums, shapes, [dtype] * len(shapes))
        for g, v, shape in zip(got, values, shapes):
            assert g.dtype == dtype and g.shape == torch.Size(shape)
            torch.testing.assert_close(g, (v.sum_to_size(shape) if shape else v.sum()).to(dtype))


@pytest.mark.parametrize(
    "n, split",
    [(0, (8192, 128, 1)), (1, (8192, 128, 1)), (4, (16384, 8, 1)), (2, (8192, 4, 3)), (3, (8256, 5, 1)), (0, (8200, 4, 1)),
     (2, (512, 6, 2)), (0, (512, 6, 2))],
)
def test_split_sums_sums_many_rows_in_two_reductions_to_the_same_numbers(n: int, split: tuple[int, int, int]) -> None:
    """[n, outer, mid, inner] summed over outer and inner: blocks of rows first from TWO_STAGE_ROWS rows on (where 64 divides
    outer), else one reduction; every case against an fp64 sum. The row count of a padded group's buffer is a view too;
    n = 0: one static's [outer * mid * inner] buffer, summed to [mid]."""
    outer, mid, inner = split
    padded = torch.randn(max(n, 1), outer * mid * inner + 4)  # a group's rows start 16-byte aligned: [n, size] is a view
    buf = padded[:, : outer * mid * inner] if n else padded[0, : outer * mid * inner]
    got = split_sums(buf, n, split)
    assert got.shape == ((n, mid) if n else (mid,)) and got.dtype == torch.float32
    want = buf.double().reshape(max(n, 1), outer, mid, inner).sum((1, 3))
    torch.testing.assert_close(got.double(), want if n else want[0], rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("shapes", [[(8,)], [(4, 1), (4, 1)], [(8,), (8,), ()]])
def test_the_reductions_sum_many_programs_in_two_steps_to_each_statics_gradient(
    shapes: list[tuple[int, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the two-step threshold at 2 rows (and blocks of 2), the reducer and the op's run sums (one and several
    statics of a layout; mode P, eight programs of 16) still give each static its sum_to_size."""
    monkeypatch.setattr(statics_module, "TWO_STAGE_ROWS", 2)
    monkeypatch.setattr(statics_module, "_STAGE", 2)
    step = (4, 4, 8)  # NCL = 128: eight programs of 16, one period of [8] (or two of [4, 1]... per row) each
    values = torch.randn(len(shapes), *step).double()
    for got in (_reduced(values, shapes, step, 16), run_gradients(
        (parts := _stored(values, shapes, step, 16)).layout.run_sums(parts.bufs, static_runs(shapes, step)), shapes,
        [torch.float64] * len(shapes),
    )):
        for g, v, shape in zip(got, values, shapes):
            torch.testing.assert_close(g, v.sum_to_size(shape) if shape else v.sum(), rtol=1e-5, atol=1e-6)


@pytest.fixture
def forced_block(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Every scan kernel launches with ``BLOCK_NCL = request.param``; CUDA launchers cached under another block are dropped."""
    block = request.param
    monkeypatch.setattr(ScanKernel, "config", lambda self, ref, ncl: {"BLOCK_NCL": block, "num_warps": 4})
    kernels: list[ScanKernel] = []
    yield block, kernels
    for kern in kernels:  # a direct launcher keeps the grid it was built with: none may outlive the patch
        for k in (kern, kern.final_state):
            if k is not None:
                k._direct.clear()


@pytest.mark.parametrize(
    "forced_block, w_shape, mode",
    [(16, (), 1), (64, (), 1), (8, (2, 1), 1), (16, (2, 1), 16), (16, (8,), 8), (16, (2, 8), 16), (64, (2, 8), 16),
     (16, (5, 1, 1), 1), (32, (5, 1, 1), 0), (16, (5, 2, 8), 0), (4, (2, 8), 0)],
    indirect=["forced_block"],
)
@pytest.mark.parametrize("core", [decay_core, ratio_core])
def test_the_backward_kernel_reduces_static_gradients_in_every_mode(
    forced_block: tuple[int, list[ScanKernel]], w_shape: tuple[int, ...], mode: int, core, device: torch.device  # type: ignore[no-untyped-def]
) -> None:
    """Per program or per neuron (RED), a masked tail included (where a NaN must not leak into a sum): the gradients
    match autograd through the Python loop."""
    block, kernels = forced_block
    step = (5, 2, 8)  # NCL = 80: five programs of 16, or two of 64 (the second mostly masked)
    k = FlexSNKernel(core, 1, 1, 1, num_static=1)
    bundle = ensure_training_kernels(k.handle)
    assert bundle.training is not None
    kernels += [bundle.training.forward, bundle.training.backward]
    for kern in kernels:
        kern._direct.clear()
    assert partial_modes(static_dims([prepare_static(torch.zeros(w_shape), step).shape], step), block) == (mode,)
    x = torch.randn(3, *step, device=device, requires_grad=True)
    w = (torch.rand(w_shape, device=device) + 0.5).requires_grad_()
    y, v = k(x, w)
    gy, gv = torch.randn_like(y), torch.randn_like(v)
    torch.autograd.backward([y, v], [gy, gv])
    xr, wr = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    y_ref, v_ref = reference_scan(core, ScanContract(1, 1, 1, (xr,), (), (wr,)))
    torch.autograd.backward([y_ref, v_ref], [gy, gv])
    torch.testing.assert_close(x.grad, xr.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(w.grad, wr.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("forced_block, w_shape, mode", [(16, (8,), 8), (16, (2, 8), 16)], indirect=["forced_block"])
def test_the_backward_kernels_partials_summed_in_two_steps_match_the_loop(
    forced_block: tuple[int, list[ScanKernel]], w_shape: tuple[int, ...], mode: int, device: torch.device,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The five programs' partials (one period each) summed in two steps, as a large layer's are: the same gradients."""
    monkeypatch.setattr(statics_module, "TWO_STAGE_ROWS", 2)
    monkeypatch.setattr(statics_module, "_STAGE", 5)
    test_the_backward_kernel_reduces_static_gradients_in_every_mode(forced_block, w_shape, mode, ratio_core, device)


@pytest.mark.parametrize("w_shape", [(), (3, 1), (2, 3, 4), (4,)])
def test_the_public_launchers_return_static_gradients(w_shape: tuple[int, ...], device: torch.device) -> None:
    k = FlexSNKernel(decay_core, 1, 1, 1, num_static=1)
    bundle = ensure_training_kernels(k.handle)
    assert bundle.training is not None
    info = bundle.training.info
    x = torch.randn(6, *STEP, device=device)
    w = prepare_static(torch.randn(w_shape, device=device), STEP)
    v0 = torch.zeros(STEP, device=device)
    from flexsn_codegen import backward_saved_args
    from flexsn_runtime import flexsn_forward

    rets = flexsn_forward(bundle.training.forward, info, x, v0, w)
    pool = {("input", 0): x, ("init_state", 0): v0, ("static", 0): w}
    saved = [pool[a] if a[0] != "return" else rets[a[1]] for a in backward_saved_args(info)]
    gy, gv = torch.randn(6, *STEP, device=device), torch.randn(6, *STEP, device=device)
    gx, gv0, gw = flexsn_backward(bundle.training.backward, info, gy, gv, *saved, input_templates=[x], state_templates=[v0],
                                  static_templates=[w])
    xr, wr, vr = (t.detach().clone().requires_grad_() for t in (x, w, v0))
    y, vs = reference_scan(decay_core, ScanContract(1, 1, 1, (xr,), (vr,), (wr,)))
    torch.autograd.backward([y, vs], [gy, gv])
    for got, want in ((gx, xr.grad), (gv0, vr.grad), (gw, wr.grad)):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="static_templates must provide one tensor per static input"):
        flexsn_backward(bundle.training.backward, info, gy, gv, *saved, input_templates=[x], state_templates=[v0])


def test_the_ops_check_static_inputs_before_a_launch(device: torch.device) -> None:
    k = FlexSNKernel(decay_core, 1, 1, 1, num_static=1)
    assert k.handle is not None
    x = torch.randn(4, *STEP, device=device)
    with pytest.raises(ValueError, match=r"not in the kernels' layout"):
        flexsn_inference_op(k.handle, [x, torch.zeros(3, device=device)], False)  # [3] is not layout form
    with pytest.raises(TypeError, match="static input 0 must be a floating-point tensor"):
        flexsn_inference_op(k.handle, [x, torch.zeros(1, 1, 1, dtype=torch.int32, device=device)], False)
    out = flexsn_inference_op(k.handle, [x, torch.zeros(1, 3, 1, device=device)], False)
    want = reference_scan(decay_core, ScanContract(1, 1, 1, (x,), (), (torch.zeros(3, 1, device=device),)))
    for a, b in zip(out, want):
        torch.testing.assert_close(a, b)


def test_a_kernel_counts_its_static_inputs(device: torch.device) -> None:
    k = FlexSNKernel(decay_core, 1, 1, 1, num_static=1)
    x = torch.randn(4, *STEP, device=device)
    with pytest.raises(TypeError, match="static input 0 must be a torch.Tensor"):
        k(x, 0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_static must be an int >= 0"):
        FlexSNKernel(decay_core, 1, 1, 1, num_static=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y, v = k(x, torch.tensor(0.1, device=device))  # a 0-d static input: read as a scalar
    want = reference_scan(decay_core, ScanContract(1, 1, 1, (x,), (), (torch.tensor(0.1, device=device),)))
    torch.testing.assert_close(y, want[0])


def test_a_fallback_names_the_static_input_given_names_and_a_pickle_keeps_them(device: torch.device) -> None:
    """``static_names`` (``FlexSN`` passes its registered names) replace the index in a fallback warning."""
    k = pickle.loads(pickle.dumps(FlexSNKernel(decay_core, 1, 1, 1, num_static=1, static_names=("decay",))))
    assert k.static_names == ("decay",)
    x = torch.randn(4, *STEP, device=device)
    with pytest.warns(RuntimeWarning, match=r"static input 'decay' has dtype torch.int64"):
        k(x, torch.ones(3, 1, dtype=torch.int64, device=device))


def three_core(x: torch.Tensor, v: torch.Tensor, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor):  # type: ignore[no-untyped-def]
    """A step with three statics: two of one shape (one run), then a scalar."""
    h = v * a + x * b
    s = torch.sigmoid(h - c)
    return s, h * (1.0 - s)


@pytest.mark.parametrize("two_steps", [False, True])
@pytest.mark.parametrize("final_state", [False, True])
def test_the_ops_sum_a_run_of_statics_once_and_the_formula_splits_it(
    final_state: bool, two_steps: bool, device: torch.device, monkeypatch: pytest.MonkeyPatch
) -> None:
    """flexsn::backward returns a [2, 3] sum for the two [1, 3, 1] statics and a [1, 1] one for the scalar (its fake
    alike, opcheck); through the training op's autograd formula, every gradient matches autograd through the loop, on
    the derived launch (first call) and the launch plan (later ones). ``two_steps``: the per-neuron partials' two rows
    of ``outer`` summed as many rows are (:func:`split_sums`)."""
    from flexsn_codegen import backward_saved_args

    if two_steps:
        monkeypatch.setattr(statics_module, "TWO_STAGE_ROWS", 2)
        monkeypatch.setattr(statics_module, "_STAGE", 2)
    k = FlexSNKernel(three_core, 1, 1, 1, num_static=3)
    bundle = ensure_training_kernels(k.handle)
    assert bundle.training is not None
    x = torch.randn(5, *STEP, device=device)
    statics = [torch.rand(1, 3, 1, device=device) + 0.5, torch.rand(1, 3, 1, device=device) + 0.5, torch.tensor(0.3, device=device)]
    gy = torch.randn(5, *STEP, device=device)
    gv = torch.randn(STEP if final_state else (5, *STEP), device=device)
    xr, *wr = (t.clone().requires_grad_() for t in (x, *statics))
    y_ref, v_ref = reference_scan(three_core, ScanContract(1, 1, 1, (xr,), (), tuple(wr)))
    torch.autograd.backward([y_ref, v_ref[-1] if final_state else v_ref], [gy, gv])
    for _ in range(3):  # derived, then planned
        xl, *wl = (t.clone().requires_grad_() for t in (x, *statics))
        y, v = torch.ops.flexsn.training(k.handle, [xl, *wl], final_state)[:2]
        torch.autograd.backward([y, v], [gy, gv])
        for got, want in zip((xl.grad, *(w.grad for w in wl)), (xr.grad, *(w.grad for w in wr))):
            assert got is not None and want is not None and got.shape == want.shape
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    info = bundle.training.info
    rets = torch.ops.flexsn.training(k.handle, [x, *statics], final_state)
    if final_state:
        from flexsn_codegen import final_state_forward_returns

        stored = final_state_forward_returns(info)
        rets = {kk: (rets[kk] if kk < 1 else rets[1 + stored.index(kk)]) for kk in stored}
    pool = {"input": [x], "return": rets, "init_state": [torch.zeros(STEP, device=device)], "static": statics}
    saved = [pool[kind][idx] for kind, idx in backward_saved_args(info)]
    templates = [x, torch.zeros(STEP, device=device), *statics]
    out = torch.ops.flexsn.backward(k.handle, [gy, gv], saved, templates, final_state)
    assert [tuple(t.shape) for t in out[2:]] == [(2, 3), (1, 1)] and all(t.dtype == torch.float32 for t in out[2:])
    torch.library.opcheck(torch.ops.flexsn.backward, (k.handle, [gy, gv], saved, templates, final_state))
    zeros = torch.ops.flexsn.backward(k.handle, [None, None], saved, templates, final_state)  # SpikingJelly's zero rule
    assert [tuple(t.shape) for t in zeros[2:]] == [(2, 3), (1, 1)] and not any(t.any() for t in zeros)
