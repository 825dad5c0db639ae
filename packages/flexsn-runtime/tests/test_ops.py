"""The ``flexsn::*`` custom ops: opcheck, zero initial states
materialized inside the op, final-state fast paths, non-differentiable
outputs, ``requires_grad`` masks, and ``torch.compile``."""

from __future__ import annotations

import itertools

from typing import Any

import pytest
import torch

from flexsn_codegen import backward_saved_args
from flexsn_runtime import (
    FlexSNKernel,
    ensure_training_kernels,
    flexsn_backward_op,
    flexsn_inference_op,
    flexsn_training_op,
)

T, SHAPE = 5, (3, 11)


def leaves(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    return [t.detach().clone().requires_grad_() for t in tensors]


@pytest.mark.parametrize("name", ["lif", "two"])
@pytest.mark.parametrize("explicit_states", [True, False], ids=["states", "no-states"])
@pytest.mark.parametrize("steps", [T, 0], ids=["T", "T0"])
def test_opcheck_forward_ops(name: str, explicit_states: bool, steps: int, kernels: dict[str, Any], ref: Any,
                             device: torch.device) -> None:
    k = kernels[name]
    xs, s0 = ref.make_data(ref.CORES[name], steps, SHAPE, device)
    flat = [*xs, *s0] if explicit_states else xs
    for final_state in (False, True):
        torch.library.opcheck(torch.ops.flexsn.inference, (k.handle, flat, final_state))
        torch.library.opcheck(torch.ops.flexsn.training, (k.handle, leaves(flat), final_state))


@pytest.mark.parametrize("final_state", [False, True])
def test_opcheck_backward_op(final_state: bool, kernels: dict[str, Any], ref: Any, device: torch.device) -> None:
    k = kernels["two"]
    c = ref.CORES["two"]
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    info = ensure_training_kernels(k.handle).training.info
    rets = torch.ops.flexsn.training(k.handle, [*xs, *s0], final_state)
    if final_state:
        from flexsn_codegen import final_state_forward_returns

        stored = final_state_forward_returns(info)
        rets = {kk: (rets[kk] if kk < c.no else rets[c.ns + stored.index(kk)]) for kk in stored}
    pool = {"input": xs, "return": rets, "init_state": s0}
    saved = [pool[kind][idx] for kind, idx in backward_saved_args(info)]
    g = torch.randn(T, *SHAPE, device=device)
    gs = torch.randn(*SHAPE, device=device) if final_state else g
    torch.library.opcheck(torch.ops.flexsn.backward, (k.handle, [g, None, gs, None], saved, [*xs, *s0], final_state))


def test_a_backward_through_an_op_without_a_formula_raises(kernels: dict[str, Any], ref: Any, device: torch.device) -> None:
    """``flexsn::inference`` and ``flexsn::backward`` have no backward formula. A call whose tensors require grad runs
    (a trace that never differentiates makes it: ``torch.export`` of a network whose parameters require grad) and
    returns what a ``no_grad`` call does, but a backward through its results raises, as ``torch.library.custom_op``'s
    ops do. PyTorch's fallback for an op without an autograd kernel would only warn there and give no gradient."""
    k = kernels["lif"]
    xs, _ = ref.make_data(ref.CORES["lif"], T, SHAPE, device)
    x = leaves(xs)
    out = flexsn_inference_op(k.handle, x, True)
    with torch.no_grad():
        want = flexsn_inference_op(k.handle, x, True)
    assert all(t.requires_grad for t in out) and not any(t.requires_grad for t in want)
    for a, b in zip(out, want):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    with pytest.raises(RuntimeError, match="flexsn::inference, which has no backward formula"):
        out[0].sum().backward()

    # the training op's formula calls flexsn::backward: a first-order gradient is right, a second-order one raises
    s = flexsn_training_op(k.handle, x, True)[0]
    g = torch.randn_like(s).requires_grad_()
    (gx,) = torch.autograd.grad(s, x, g, create_graph=True)
    (want_gx,) = torch.autograd.grad(flexsn_training_op(k.handle, x, True)[0], x, g.detach())
    torch.testing.assert_close(gx, want_gx, rtol=0, atol=0)
    with pytest.raises(RuntimeError, match="flexsn::backward, which has no backward formula"):
        gx.sum().backward()


@pytest.mark.parametrize("name", ["lif", "two"])
def test_omitted_initial_states_are_zeros(name: str, kernels: dict[str, Any], ref: Any, device: torch.device) -> None:
    k = kernels[name]
    c = ref.CORES[name]
    xs, _ = ref.make_data(c, T, SHAPE, device)
    zeros = [torch.zeros(SHAPE, device=device) for _ in range(c.ns)]
    for op, final_state in itertools.product((flexsn_inference_op, flexsn_training_op), (False, True)):
        implicit = op(k.handle, xs, final_state)
        explicit = op(k.handle, [*xs, *zeros], final_state)
        assert len(implicit) == len(explicit)
        for a, b in zip(implicit, explicit):
            torch.testing.assert_close(a, b)

    # and the gradients of the input sequences are the same too
    xa, xb = leaves(xs), leaves(xs)
    out_a = flexsn_training_op(k.handle, xa, False)[: c.no + c.ns]
    out_b = flexsn_training_op(k.handle, [*xb, *zeros], False)[: c.no + c.ns]
    torch.autograd.backward(out_a, [torch.ones_like(o) for o in out_a])
    torch.autograd.backward(out_b, [torch.ones_like(o) for o in out_b])
    for a, b in zip(xa, xb):
        torch.testing.assert_close(a.grad, b.grad)


@pytest.mark.parametrize("name", ["lif", "two"])
def test_final_state_fast_paths_equal_the_last_row(name: str, kernels: dict[str, Any], ref: Any,
                                                   device: torch.device) -> None:
    k = kernels[name]
    c = ref.CORES[name]
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    seq = flexsn_inference_op(k.handle, [*xs, *s0], False)
    fin = flexsn_inference_op(k.handle, [*xs, *s0], True)
    for j in range(c.no):
        torch.testing.assert_close(fin[j], seq[j])
    for j in range(c.ns):
        assert fin[c.no + j].shape == SHAPE
        torch.testing.assert_close(fin[c.no + j], seq[c.no + j][-1])

    # training: final-state outputs and their gradients equal the sequence path's last row
    la, lb = leaves([*xs, *s0]), leaves([*xs, *s0])
    full = flexsn_training_op(k.handle, la, False)[: c.no + c.ns]
    last = flexsn_training_op(k.handle, lb, True)[: c.no + c.ns]
    for j in range(c.no):
        torch.testing.assert_close(last[j], full[j])
    for j in range(c.ns):
        torch.testing.assert_close(last[c.no + j], full[c.no + j][-1])
    gen = torch.Generator().manual_seed(9)
    gy = [torch.randn(T, *SHAPE, generator=gen).to(device) for _ in range(c.no)]
    gf = [torch.randn(*SHAPE, generator=gen).to(device) for _ in range(c.ns)]
    torch.autograd.backward([*full[: c.no], *(s[-1] for s in full[c.no :])], [*gy, *gf])
    torch.autograd.backward(list(last), [*gy, *gf])
    for a, b in zip(la, lb):
        torch.testing.assert_close(b.grad, a.grad, rtol=1e-5, atol=1e-6)
    want = ref.loop_grads(c, xs, s0, [*gy, *gf], final_state=True)
    for a, w in zip(lb, want):
        torch.testing.assert_close(a.grad, w, rtol=1e-4, atol=1e-5)


def test_t0_final_state_training_passes_the_gradient_through(kernels: dict[str, Any], ref: Any,
                                                             device: torch.device) -> None:
    k = kernels["lif"]
    xs, s0 = ref.make_data(ref.CORES["lif"], 0, SHAPE, device)
    x, v = leaves([*xs, *s0])
    s, vf = flexsn_training_op(k.handle, [x, v], True)[:2]
    assert s.shape == (0, *SHAPE)
    torch.testing.assert_close(vf, v.detach())
    g = torch.randn(SHAPE, device=device)
    vf.backward(g)
    torch.testing.assert_close(v.grad, g)
    assert x.grad is None or torch.count_nonzero(x.grad) == 0


def test_hard_threshold_output_is_handled_by_the_backward_shim(kernels: dict[str, Any], ref: Any,
                                                               device: torch.device) -> None:
    k = kernels["hard"]
    c = ref.CORES["hard"]
    assert k.has_training_kernels
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    x, v = leaves([*xs, *s0])
    s, vs = k(x, v)
    assert not s.requires_grad or s.grad_fn is not None
    gen = torch.Generator().manual_seed(3)
    gs, gv = torch.randn(T, *SHAPE, generator=gen).to(device), torch.randn(T, *SHAPE, generator=gen).to(device)
    torch.autograd.backward([s, vs], [gs, gv]) if s.requires_grad else vs.backward(gv)
    want = ref.loop_grads(c, xs, s0, [gs, gv])
    torch.testing.assert_close(x.grad, want[0], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(v.grad, want[1], rtol=1e-4, atol=1e-5)
    want_out, want_seq = ref.loop(c, xs, s0)
    torch.testing.assert_close(s.detach(), want_out[0])
    torch.testing.assert_close(vs.detach(), want_seq[0])


def test_requires_grad_mask(ref: Any, device: torch.device) -> None:
    c = ref.CORES["two"]
    k = FlexSNKernel(c.fn, c.ni, c.ns, c.no, requires_grad=[True, False, True, False])
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    x1, a = leaves([xs[0], s0[0]])
    outs = k(x1, xs[1], a, s0[1])
    gen = torch.Generator().manual_seed(6)
    grads = [torch.randn(T, *SHAPE, generator=gen).to(device) for _ in outs]
    torch.autograd.backward([o for o in outs if o.requires_grad], [g for o, g in zip(outs, grads) if o.requires_grad])
    want = ref.loop_grads(c, xs, s0, grads)
    torch.testing.assert_close(x1.grad, want[0], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(a.grad, want[2], rtol=1e-4, atol=1e-5)


def test_inputs_without_grad_take_the_inference_kernel(kernels: dict[str, Any], ref: Any,
                                                       device: torch.device) -> None:
    k = kernels["lif"]
    xs, s0 = ref.make_data(ref.CORES["lif"], T, SHAPE, device)
    s, vs = k(*xs, *s0)
    assert not s.requires_grad and not vs.requires_grad
    with torch.no_grad():
        s2, vs2 = k(*leaves(xs), *s0)
    assert s2.grad_fn is None
    torch.testing.assert_close(s, s2)


def test_torch_compile_treats_the_ops_as_single_nodes(kernels: dict[str, Any], ref: Any, device: torch.device) -> None:
    k = kernels["lif"]
    c = ref.CORES["lif"]
    xs, s0 = ref.make_data(c, T, SHAPE, device)

    def step(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        s, vs = k(x, v)
        return s.sum() + 0.5 * vs.sum()

    compiled = torch.compile(step, backend="aot_eager", fullgraph=True)
    x, v = leaves([*xs, *s0])
    compiled(x, v).backward()
    gen_out = [torch.ones(T, *SHAPE, device=device), torch.full((T, *SHAPE), 0.5, device=device)]
    want = ref.loop_grads(c, xs, s0, gen_out)
    torch.testing.assert_close(x.grad, want[0], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(v.grad, want[1], rtol=1e-4, atol=1e-5)
    with torch.no_grad():
        torch.testing.assert_close(compiled(*xs, *s0), step(*xs, *s0))


def test_training_under_symbolic_sizes_compiles_once_and_matches_the_loop(ref: Any, device: torch.device) -> None:
    """``torch.compile(dynamic=True)``: the training op's bookkeeping (``TrainingCall``) is made under fake tensors of
    symbolic sizes; two call sizes share one graph and both match autograd through the loop."""
    from torch._dynamo.testing import CompileCounterWithBackend

    c = ref.CORES["lif"]
    k = FlexSNKernel(c.fn, c.ni, c.ns, c.no)
    counter = CompileCounterWithBackend("aot_eager")

    def step(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        s, vs = k.final_state(x, v)
        return s.sum() + 0.5 * vs.sum()

    compiled = torch.compile(step, backend=counter, dynamic=True, fullgraph=True)
    for n_steps, n in ((5, 16), (7, 33)):
        xs, s0 = ref.make_data(c, n_steps, (n,), device)
        x, v = leaves([*xs, *s0])
        compiled(x, v).backward()
        grads = [torch.ones(n_steps, n, device=device), torch.full((n,), 0.5, device=device)]
        want = ref.loop_grads(c, xs, s0, grads, final_state=True)
        torch.testing.assert_close(x.grad, want[0], rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(v.grad, want[1], rtol=1e-4, atol=1e-5)
    assert counter.frame_count == 1


def test_ops_reject_a_wrong_number_of_tensors(kernels: dict[str, Any], ref: Any, device: torch.device) -> None:
    k = kernels["two"]
    xs, s0 = ref.make_data(ref.CORES["two"], T, SHAPE, device)
    with pytest.raises(ValueError, match="num_inputs=2 input sequences optionally followed by num_states=2"):
        flexsn_inference_op(k.handle, [*xs, s0[0]], False)


def test_ops_refuse_a_sparse_tensor_by_name(kernels: dict[str, Any], ref: Any, device: torch.device) -> None:
    k = kernels["two"]
    xs, s0 = ref.make_data(ref.CORES["two"], T, SHAPE, device)
    flexsn_inference_op(k.handle, [*xs, *s0], False)  # the dense signature first: checked once, then remembered
    with pytest.raises(TypeError, match=r"argument 2 \(initial state\) has layout torch\.sparse_coo"):
        flexsn_inference_op(k.handle, [*xs, s0[0].to_sparse(), s0[1]], False)


def _only_here(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A core no other test builds: no live bundle of its fingerprint answers its released handle."""
    h = v + (x - v) / 3.25
    s = (h >= 0.75).to(x.dtype)
    return s, h * (1.0 - s)


@pytest.mark.parametrize("trace_cache", [False, True], ids=["no-cache", "cache"])
def test_ops_on_a_released_handle(trace_cache: bool, device: torch.device, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Without the trace cache (a handle salted per process) a released handle raises; with it, the handle is
    answered by the cache's entry of its fingerprint (the same kernels), as a saved program's would be."""
    import gc

    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("FLEXSN_TRACE_CACHE", "1" if trace_cache else "0")
    k = FlexSNKernel(_only_here, 1, 1, 1)
    h = k.handle
    del k
    gc.collect()
    x = torch.tensor([[1.0, 2.0, 3.0], [0.5, 1.5, 2.5]], device=device)  # step 0 charges to 0.31-0.92: one neuron spikes
    if not trace_cache:
        with pytest.raises(RuntimeError, match="unknown FlexSN kernel handle"):
            flexsn_inference_op(h, [x], False)
        return
    s, v = flexsn_inference_op(h, [x], False)
    want_v = x[0] / 3.25
    want_s = (want_v >= 0.75).to(x.dtype)
    assert 0 < torch.count_nonzero(want_s) < want_s.numel()
    torch.testing.assert_close(s[0], want_s)
    torch.testing.assert_close(v[0], want_v * (1.0 - want_s))


def test_backward_op_keeps_template_shapes(ref: Any, device: torch.device) -> None:
    k = FlexSNKernel(ref.lif, 1, 1, 1)  # its own handle: no training forward built the BPTT kernels before this call
    x_t = torch.empty(0, *SHAPE, device=device)
    s_t = torch.empty(SHAPE, device=device)
    gx, gv = flexsn_backward_op(k.handle, [None, None], [], [x_t, s_t])
    assert gx.shape == x_t.shape and gv.shape == s_t.shape
    assert torch.count_nonzero(gx) == 0 and torch.count_nonzero(gv) == 0


def test_a_checked_signature_is_not_checked_again(monkeypatch: pytest.MonkeyPatch, device: torch.device) -> None:
    """The full argument check runs once per (op, handle, shapes, dtypes, devices); bad calls still raise."""
    from flexsn_runtime import FlexSNKernel, ops
    from flexsn_trace.testing import count_calls, lif_core

    k = FlexSNKernel(lif_core, 1, 1, 1)
    x = torch.randn(3, 2, 5, device=device)
    calls = count_calls(monkeypatch, ops, "_check_op_args")
    first = torch.ops.flexsn.inference.default(k.handle, [x], True)
    again = torch.ops.flexsn.inference.default(k.handle, [x.clone()], True)
    assert calls == [1]
    torch.testing.assert_close(first, again)
    torch.ops.flexsn.inference.default(k.handle, [torch.randn(4, 2, 5, device=device)], True)
    assert calls == [1, 1]  # another shape: checked
    with pytest.raises(TypeError, match="dtype"):
        torch.ops.flexsn.inference.default(k.handle, [x.double()], True)
    with pytest.raises(TypeError, match="dtype"):  # a failed check is never remembered
        torch.ops.flexsn.inference.default(k.handle, [x.double()], True)
    if device.type == "cpu":  # the interpreter switched off after a checked call: checked again, refused
        monkeypatch.setenv("TRITON_INTERPRET", "0")
        with pytest.raises(ValueError, match="TRITON_INTERPRET"):
            torch.ops.flexsn.inference.default(k.handle, [x], True)
