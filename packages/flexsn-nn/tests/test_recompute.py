"""Training kernels that recompute the steps (``flexsn_trace.recompute``): the forward stores the states every
``chunk`` steps, the backward recomputes each chunk's states from them and the inputs. Checked against autograd
through a Python loop at every position of ``T`` against the chunk, and against the saved-value kernels."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

from flexsn_nn import FlexSN
from flexsn_runtime import FlexSNKernel, ensure_training_kernels
from flexsn_runtime.training_plan import plan_for
from flexsn_trace import trace_training_graphs
from flexsn_trace.joint import recompute_partition, trace_joint
from flexsn_trace.recompute import chunk_length, prefer_recompute
from nn_reference import SG, plif_core, python_loop, two_core

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
K = chunk_length(1, 1)


def lif_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = SG(h - 1.0)
    return s, h * (1.0 - s)


def wide_core(*a: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """5 inputs, 4 states, 2 outputs: a chunk of 32 // 9 = 3 steps (odd, not a power of two)."""
    x1, x2, x3, x4, x5, v1, v2, v3, v4 = a
    h1 = 0.5 * v1 + x1 * torch.sigmoid(x2)
    h2 = 0.7 * v2 + x3 - 0.2 * h1
    s = SG(h1 - 1.0)
    v3n = 0.9 * v3 + x4 * s
    v4n = v4 + torch.tanh(x5) * 0.1
    return s, h2 * v4n, h1 * (1.0 - s), h2, v3n, v4n


def _fused(m: FlexSN, *xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to the eager loop
        y = m(*xs)
    return y if isinstance(y, tuple) else (y,)


CASES = {
    "lif": (lif_core, 1, 1, 1, None),
    "two": (two_core, 2, 2, 2, None),
    "plif-per-channel": (plif_core, 1, 1, 1, (3, 1)),
    "wide": (wide_core, 5, 4, 2, None),
}


@pytest.mark.parametrize("store", [False, True], ids=["final-state", "state-seqs"])
@pytest.mark.parametrize("T", [1, K - 1, K, K + 1, 2 * K + 3])
@pytest.mark.parametrize("case", list(CASES))
def test_gradients_match_autograd_through_the_loop_at_every_chunk_position(case: str, T: int, store: bool) -> None:
    core, ni, ns, no, w_shape = CASES[case]
    g = torch.Generator().manual_seed(T)
    statics = [] if w_shape is None else [nn.Parameter(torch.randn(w_shape, generator=g).to(DEVICE))]
    m = FlexSN(core, ni, ns, no, store_state_seqs=store, static_inputs=statics)
    assert m.kernel is not None
    ensure_training_kernels(m.kernel.handle)
    assert plan_for(m.kernel.handle, not store).info.chunk == chunk_length(ni, ns) > 1  # this pair recomputes
    xs = [(torch.randn(T, 2, 3, 5, generator=g) + 0.7).to(DEVICE).requires_grad_() for _ in range(ni)]
    v0 = [(torch.rand(2, 3, 5, generator=g) * 0.5).to(DEVICE).requires_grad_() for _ in range(ns)]
    weights = [torch.rand(T, 2, 3, 5, generator=g).to(DEVICE) for _ in range(no)]
    m.states = list(v0)
    ys = _fused(m, *xs)[:no]
    finals = list(m.states)
    extra = sum(s.sum() for s in m.state_seqs) if store else sum(f.sum() for f in finals)  # type: ignore[union-attr, misc]
    loss = sum((y * w).sum() for y, w in zip(ys, weights)) + 0.3 * extra
    leaves = [*xs, *v0, *statics]
    got = torch.autograd.grad(loss, leaves, allow_unused=True)

    ref_leaves = [t.detach().clone().requires_grad_() for t in leaves]
    rx, rv, rw = ref_leaves[:ni], ref_leaves[ni : ni + ns], ref_leaves[ni + ns :]
    outs, seqs, fins = python_loop(lambda *a: core(*a, *rw), no, rx, rv)
    ref_extra = sum(s.sum() for s in seqs) if store else sum(f.sum() for f in fins)
    ref_loss = sum((y * w).sum() for y, w in zip(outs, weights)) + 0.3 * ref_extra
    want = torch.autograd.grad(ref_loss, ref_leaves, allow_unused=True)
    for a, b in zip(ys, outs):
        torch.testing.assert_close(a, b)
    for a, b in zip(finals, fins):
        torch.testing.assert_close(a, b)
    for a, b, leaf in zip(got, want, leaves):
        a = torch.zeros_like(leaf) if a is None else a
        b = torch.zeros_like(leaf) if b is None else b
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("T", [3, K, 2 * K + 1])
def test_the_checkpoints_are_the_state_sequence_every_chunk_steps(T: int) -> None:
    k = FlexSNKernel(lif_core, 1, 1, 1)
    assert k.handle is not None
    ensure_training_kernels(k.handle)
    x = (torch.randn(T, 4, 9) + 0.7).to(DEVICE)
    v0 = torch.rand(4, 9).to(DEVICE)
    seq_out = torch.ops.flexsn.training(k.handle, [x, v0], False)
    fin_out = torch.ops.flexsn.training(k.handle, [x, v0], True)
    states = seq_out[1]  # [T, 4, 9]
    ckpt = fin_out[-1]  # past the outputs and final states: the saved checkpoints
    rows = -(-T // K)
    assert ckpt.shape == (rows, 4, 9)
    want = states[[min((r + 1) * K, T) - 1 for r in range(rows)]]
    torch.testing.assert_close(ckpt, want, rtol=0, atol=0)
    torch.testing.assert_close(fin_out[1], states[-1], rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_sequences_train_on_the_saved_value_pair(dtype: torch.dtype) -> None:
    """On half the bytes the recomputing backward's arithmetic shows (H200: slower than saving the
    membrane, ``tools/results/gpu-2026-12-04/``): 16-bit sequences run the saved-value pair."""
    T = 2 * K + 3
    g = torch.Generator().manual_seed(5)
    x = (torch.randn(T, 3, 40, generator=g) + 0.7).to(DEVICE, dtype)
    weights = torch.rand(T, 3, 40, generator=g).to(DEVICE, dtype)
    m = FlexSN(lif_core, 1, 1, 1)
    xl = x.clone().requires_grad_()
    (y,) = _fused(m, xl)
    (y * weights).sum().backward()
    assert m.kernel is not None
    assert plan_for(m.kernel.handle, True, dtype).info.chunk == 1
    assert plan_for(m.kernel.handle, True, torch.float32).info.chunk == K
    xr = x.float().requires_grad_()
    (yr,), _, _ = python_loop(lif_core, 1, [xr], [torch.zeros(3, 40, device=DEVICE)])
    (yr * weights.float()).sum().backward()
    assert xl.grad is not None and xr.grad is not None
    torch.testing.assert_close(xl.grad.float(), xr.grad, rtol=5e-2, atol=5e-2)


def _graphs(core: object, ni: int, ns: int) -> tuple[int, int]:
    examples = [torch.zeros(4) for _ in range(ni + ns)]
    graphs = trace_training_graphs(core, examples, num_inputs=ni)  # type: ignore[arg-type]
    return graphs.chunk, len(graphs.fwd.find_nodes(op="placeholder"))


def test_the_choice_counts_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    # LIF: saving h costs a write and a read; recomputing, a read of x and 2 / K for v
    assert _graphs(lif_core, 1, 1)[0] == K

    def input_only(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.sigmoid(x), v + x  # its backward reads x alone: one pass, less than 1 + 2 / K

    assert _graphs(input_only, 1, 1)[0] == 1
    monkeypatch.setenv("FLEXSN_RECOMPUTE", "0")
    assert _graphs(lif_core, 1, 1)[0] == 1


def test_a_step_drawing_random_numbers_is_never_recomputed() -> None:
    def noisy(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = v + x * torch.rand_like(x)
        return h * h, h

    x, v = torch.randn(4), torch.randn(4)
    probe = noisy(x.clone().requires_grad_(), v.clone().requires_grad_())
    joint = trace_joint(noisy, [x, v], [True, True], probe)
    assert recompute_partition(joint.graph, 2, 2) is None
    assert prefer_recompute(joint.graph, 2, 2, joint.graph, 1, 0) is None
