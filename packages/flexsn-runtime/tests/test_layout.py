"""Memory order of a launch (``flexsn_runtime.layout``): channels-last sequences read as they are.

Every result is checked against the same call on contiguous copies (the
kernels' original layout, itself tested against the Python loop) and
against autograd through the loop; the custom ops' fake implementations must
plan the strides the kernels write.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from flexsn_runtime import FlexSNKernel, ensure_training_kernels, ops
from flexsn_runtime.layout import backward_order, empty_in_order, in_order, launch_order, seq_order

T, B, C, H, W = 3, 2, 4, 3, 5
CL = (0, 2, 3, 1)  # [B, C, H, W] channels-last: B, H, W, C from the outermost


def channels_last(t: torch.Tensor) -> torch.Tensor:
    """``[T, B, C, H, W]`` with a channels-last convolution output's memory (the ``[T * B, C, H, W]`` view)."""
    return t.reshape(T * B, C, H, W).contiguous(memory_format=torch.channels_last).view(t.shape)


def decay_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(w)
    return torch.sigmoid(4.0 * (h - th)), h * 0.8


def test_seq_order_reads_dense_time_major_layouts() -> None:
    x = torch.randn(T, B, C, H, W)
    assert seq_order(x) is None  # contiguous
    assert seq_order(channels_last(x)) == CL
    assert seq_order(x.transpose(0, 1).contiguous().transpose(0, 1)) is None  # time not outermost: copied
    assert seq_order(x[:, :, ::2]) is None  # gaps: copied
    assert seq_order(torch.randn(T, B, 1, H, W).permute(0, 1, 3, 4, 2)) is None  # a size-1 dim moves nothing
    y = torch.randn(1, W, C).permute(0, 2, 1)  # T = 1: its stride is free
    assert seq_order(y) == (1, 0)


def test_launch_order_takes_statics_read_correctly_in_it() -> None:
    x = channels_last(torch.randn(T, B, C, H, W))
    for shape in [(), (1,), (C, 1, 1), (W,), (1, 1, 1, W), (B, 1, 1, 1), (H, W)]:
        assert launch_order(x, [shape]) == CL, shape
    for shape in [(C, H, W), (C, 1, W), (B, C, H, W)]:  # their memory is not in the channels-last order
        assert launch_order(x, [(C, 1, 1), shape]) is None, shape


def test_allocation_and_conversion_follow_the_order() -> None:
    x = channels_last(torch.randn(T, B, C, H, W))
    assert empty_in_order(x.shape, CL, x.dtype, x.device).stride() == x.stride()
    state = empty_in_order(x.shape[1:], CL, x.dtype, x.device)
    assert state.stride() == x[0].stride()
    step = x[1]
    assert in_order(x, CL) is x and in_order(step, CL) is step
    c = x.contiguous()
    moved = in_order(c, CL)
    assert moved.stride() == x.stride() and torch.equal(moved, c)
    w = torch.randn(C, 1, 1)
    assert in_order(w, CL) is w  # statics of lower rank: as they are (contiguous)
    assert in_order(x, None).is_contiguous()
    assert backward_order([None, w, c, x], x.shape) is None  # a tie: the first sequence decides
    assert backward_order([w, x, c], x.shape) == CL
    assert backward_order([c, x, None, x], x.shape) == CL  # the most sequences: the fewest copies
    assert backward_order([w], x.shape) is None
    # a tie of sequences: the per-step tensors beside them decide (a state, checkpoint rows), not only the first
    state, rows = torch.randn(B, C, H, W), torch.randn(2, B, C, H, W)
    assert backward_order([c, x, state, rows], x.shape) is None
    rows_cl = rows.reshape(2 * B, C, H, W).contiguous(memory_format=torch.channels_last).view(rows.shape)
    assert backward_order([c, x, rows_cl, state], x.shape) is None  # one each: the first sequence decides
    assert backward_order([c, x, rows_cl], x.shape) == CL
    state_cl = state.contiguous(memory_format=torch.channels_last)
    assert backward_order([x, c, state_cl], x.shape) == CL
    assert backward_order([state_cl, c, x, state], x.shape) is None  # a full tie: the earliest sequence, not state
    assert backward_order([state, rows], x.shape) is None  # no sequence: contiguous
    assert backward_order([x, state, rows, state], x.shape) == CL  # sequences first: states only break ties
    # a tensor copied to any order (the expanded gradient of a sum) has no say: the saved input's order is kept
    summed = torch.ones(()).expand(x.shape)
    assert backward_order([summed, x, rows], x.shape) == CL
    assert backward_order([summed, state], x.shape) is None  # nothing read as it is: contiguous


def _statics(device: torch.device) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    return [torch.randn(C, 1, 1, generator=g).to(device), (torch.rand(W, generator=g) * 0.5 + 0.3).to(device)]


def _fake_strides(op: Any, *args: Any) -> list[tuple[int, ...]]:
    mode = FakeTensorMode()
    with mode:
        fake = [
            [mode.from_tensor(t) if isinstance(t, torch.Tensor) else t for t in a] if isinstance(a, list) else a
            for a in args
        ]
        return [t.stride() for t in op(*fake)]


@pytest.mark.parametrize("final_state", [False, True], ids=["seqs", "final"])
@pytest.mark.parametrize("states", ["none", "channels-last", "contiguous"])
def test_the_ops_read_and_write_channels_last(final_state: bool, states: str, device: torch.device) -> None:
    k = FlexSNKernel(decay_core, 1, 1, 1, num_static=2)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(T, B, C, H, W, generator=g).to(device)
    v0 = torch.randn(B, C, H, W, generator=g).to(device)
    statics = _statics(device)
    xc = channels_last(x)
    v0c = {"none": [], "contiguous": [v0], "channels-last": [channels_last(v0.expand(T, -1, -1, -1, -1))[0]]}[states]
    want = torch.ops.flexsn.inference(k.handle, [x, *([v0] if v0c else []), *statics], final_state)
    got = torch.ops.flexsn.inference(k.handle, [xc, *v0c, *statics], final_state)
    assert got[0].stride() == xc.stride() and got[1].stride() == (xc.stride() if not final_state else xc[0].stride())
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    assert _fake_strides(torch.ops.flexsn.inference, k.handle, [xc, *v0c, *statics], final_state) == [t.stride() for t in got]

    # training forward + backward against the contiguous call
    ensure_training_kernels(k.handle)
    outs_c = torch.ops.flexsn.training(k.handle, [xc, *v0c, *statics], final_state)
    outs = torch.ops.flexsn.training(k.handle, [x, *([v0] if v0c else []), *statics], final_state)
    assert [t.stride() for t in outs_c] == _fake_strides(torch.ops.flexsn.training, k.handle, [xc, *v0c, *statics], final_state)
    assert all(t.stride() == (xc.stride() if t.dim() == 5 else xc[0].stride()) for t in outs_c)
    for a, b in zip(outs_c, outs):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def _leaves(ts: list[torch.Tensor]) -> list[torch.Tensor]:
    return [t.detach().clone().requires_grad_() for t in ts]


@pytest.mark.parametrize("final_state", [False, True], ids=["seqs", "final"])
@pytest.mark.parametrize("grad_layout", ["channels-last", "contiguous"])
def test_gradients_in_channels_last_match_autograd_through_the_loop(
    final_state: bool, grad_layout: str, device: torch.device
) -> None:
    k = FlexSNKernel(decay_core, 1, 1, 1, num_static=2)
    ensure_training_kernels(k.handle)
    g = torch.Generator().manual_seed(2)
    x = channels_last(torch.randn(T, B, C, H, W, generator=g).to(device))
    v0 = channels_last(torch.randn(T, B, C, H, W, generator=g).to(device))[0]
    leaves = _leaves([x, v0, *_statics(device)])
    xl, vl, wl, thl = leaves
    out = torch.ops.flexsn.training(k.handle, leaves, final_state)
    s, v = out[0], out[1]
    gs = torch.randn(T, B, C, H, W, generator=g).to(device)
    gv = torch.randn(*(v.shape), generator=g).to(device)
    if grad_layout == "channels-last":
        gs = channels_last(gs)
    torch.autograd.backward([s, v], [gs, gv])
    assert xl.grad is not None and xl.grad.stride() == x.stride()

    ref = _leaves([x.contiguous(), v0.contiguous(), *_statics(device)])
    rv, outs_s, outs_v = ref[1], [], []
    for t in range(T):
        st, rv = decay_core(ref[0][t], rv, ref[2], ref[3])
        outs_s.append(st)
        outs_v.append(rv)
    ref_v = rv if final_state else torch.stack(outs_v)
    torch.autograd.backward([torch.stack(outs_s), ref_v], [gs, gv])
    for got, want in zip(leaves, ref):
        assert got.grad is not None and want.grad is not None
        torch.testing.assert_close(got.grad, want.grad, rtol=1e-4, atol=1e-5)


def test_a_static_that_does_not_fit_the_order_takes_contiguous_copies(device: torch.device) -> None:
    k = FlexSNKernel(decay_core, 1, 1, 1, num_static=2)
    g = torch.Generator().manual_seed(3)
    x = torch.randn(T, B, C, H, W, generator=g).to(device)
    per_neuron = [torch.randn(C, H, W, generator=g).to(device), torch.randn(C, 1, 1, generator=g).to(device)]
    got = torch.ops.flexsn.inference(k.handle, [channels_last(x), *per_neuron], True)
    want = torch.ops.flexsn.inference(k.handle, [x, *per_neuron], True)
    assert got[0].is_contiguous()
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    assert _fake_strides(torch.ops.flexsn.inference, k.handle, [channels_last(x), *per_neuron], True) == [t.stride() for t in got]


def test_a_backward_whose_sequences_tie_takes_the_order_of_its_states_and_plans_it(device: torch.device) -> None:
    """A saved channels-last input beside a contiguous incoming gradient is a tie of sequences. The states beside
    them (the contiguous initial state and final-state gradient against channels-last checkpoint rows) decide:
    contiguous, so the input and the rows are copied, not the gradients and the initial state. The op's fake plans
    the strides it writes, and the gradients equal those of an all-contiguous call."""
    k = FlexSNKernel(decay_core, 1, 1, 1, num_static=2)
    ensure_training_kernels(k.handle)
    g = torch.Generator().manual_seed(4)
    x = channels_last(torch.randn(T, B, C, H, W, generator=g).to(device))
    v0 = torch.randn(B, C, H, W, generator=g).to(device)
    leaves = _leaves([x, v0, *_statics(device)])
    seen: list[tuple[Any, ...]] = []
    real = ops.backward_impl

    def spy(*args: Any) -> list[torch.Tensor]:
        seen.append(args)
        return real(*args)

    with mock.patch.object(ops, "backward_impl", spy):
        out = torch.ops.flexsn.training(k.handle, leaves, True)
        gs, gv = torch.randn(T, B, C, H, W, generator=g).to(device), torch.randn(B, C, H, W, generator=g).to(device)
        torch.autograd.backward([out[0], out[1]], [gs, gv])
    handle, grads, saved, templates, final_state = seen[0]
    orders = [seq_order(t if t.dim() == 5 else t.unsqueeze(0)) for t in [*saved[:3], *grads]]
    assert orders == [CL, CL, None, None, None]  # saved: x, checkpoint rows, v0; then the gradients of s and v

    with torch.no_grad():
        got = torch.ops.flexsn.backward(handle, grads, saved, templates, final_state)
        want = torch.ops.flexsn.backward(handle, [t.contiguous() for t in grads], [t.contiguous() for t in saved], templates, final_state)
    assert got[0].is_contiguous()  # before: the first sequence's order, channels-last, copying three tensors
    assert _fake_strides(torch.ops.flexsn.backward, handle, grads, saved, templates, final_state) == [t.stride() for t in got]
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6)
