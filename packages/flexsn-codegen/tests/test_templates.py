"""The multi-step scan templates, launched directly against an eager loop.

Kernels are launched here with a ``BLOCK_NCL`` smaller than ``NCL`` (and
not dividing it), so several programs and a partial last block run; the
runtime under the interpreter uses one wide program. Both loop variants
(with and without the one-step prefetch, ``FLEXSN_PREFETCH``) are checked.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import pytest
import torch
import triton

from flexsn_codegen import (
    backward_saved_args,
    final_state_forward_returns,
    generate_triton_code_str,
    get_flexsn_backward_kernel,
    get_flexsn_forward_kernel,
    get_flexsn_inference_final_state_kernel,
    get_flexsn_inference_kernel,
    render_backward_kernel,
    render_forward_kernel,
    render_inference_kernel,
)
from flexsn_trace import extract_info, generate_inference_graph, trace_training_graphs
from flexsn_trace.testing import lif_core as lif, two_by_two_core as two, unrolled_loop  # noqa: E402

T, NCL, BLOCK = 7, 77, 32


def hard(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A non-differentiable output (hard threshold): no tangent in the AOT backward graph."""
    h = 0.5 * v + x
    return (h >= 1.0).float(), h - (h >= 1.0).float()


CORES = {"lif": (lif, 1, 1, 1), "two": (two, 2, 2, 2), "hard": (hard, 1, 1, 1)}


def grid() -> tuple[int]:
    return (triton.cdiv(NCL, BLOCK),)


def data(ni: int, ns: int, device: torch.device, dtype: torch.dtype = torch.float32) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    g = torch.Generator().manual_seed(7)
    xs = [(torch.randn(T, NCL, generator=g) * 1.5 + 0.5).to(dtype).to(device) for _ in range(ni)]
    s0 = [(torch.randn(NCL, generator=g) * 0.5).to(dtype).to(device) for _ in range(ns)]
    return xs, s0


@pytest.fixture(params=["prefetch", "no-prefetch"])
def prefetch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("FLEXSN_PREFETCH", "1" if request.param == "prefetch" else "0")
    return str(request.param)


@pytest.mark.parametrize("name", ["lif", "two"])
def test_inference_kernels_match_the_loop(name: str, prefetch: str, device: torch.device) -> None:
    core, ni, ns, no = CORES[name]
    graph = generate_inference_graph(core, [torch.zeros(4)] * (ni + ns))
    step, step_name = generate_triton_code_str(graph, f"{name}_step")
    xs, s0 = data(ni, ns, device)
    want_out, want_seq = unrolled_loop(core, no, xs, s0)

    kernel, _ = get_flexsn_inference_kernel(step, step_name, ni, ns, no)
    outs = [torch.empty(T, NCL, device=device) for _ in range(no + ns)]
    kernel[grid()](*xs, *s0, *outs, T, NCL, BLOCK_NCL=BLOCK)
    for got, want in zip(outs, [*want_out, *want_seq]):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)

    kernel, _ = get_flexsn_inference_final_state_kernel(step, step_name, ni, ns, no)
    outs = [torch.empty(T, NCL, device=device) for _ in range(no)] + [torch.empty(NCL, device=device) for _ in range(ns)]
    kernel[grid()](*xs, *s0, *outs, T, NCL, BLOCK_NCL=BLOCK)
    for got, want in zip(outs, [*want_out, *(s[-1] for s in want_seq)]):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["lif", "two"])
def test_zero_init_kernels_start_from_zeros_without_reading_the_states(name: str, device: torch.device) -> None:
    """``ZERO_INIT=True``: the initial-state pointers hold NaN and are never read; results are those of zero states."""
    core, ni, ns, no = CORES[name]
    xs, _ = data(ni, ns, device)
    nan = [torch.full((NCL,), float("nan"), device=device) for _ in range(ns)]
    zeros = [torch.zeros(NCL, device=device) for _ in range(ns)]
    want_out, want_seq = unrolled_loop(core, no, xs, zeros)
    graph = generate_inference_graph(core, [torch.zeros(4)] * (ni + ns))
    step, step_name = generate_triton_code_str(graph, f"{name}_step")
    kernel, _ = get_flexsn_inference_kernel(step, step_name, ni, ns, no)
    outs = [torch.empty(T, NCL, device=device) for _ in range(no + ns)]
    kernel[grid()](*xs, *nan, *outs, T, NCL, BLOCK_NCL=BLOCK, ZERO_INIT=True)
    for got, want in zip(outs, [*want_out, *want_seq]):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    _, _, _, _, _, info, (fcode, fname), _ = _training_setup(name, device)
    fwd, _ = get_flexsn_forward_kernel(fcode, fname, info, final_state=True)
    stored = final_state_forward_returns(info)
    rets = [torch.empty(T, NCL, device=device) for _ in stored]
    finals = [torch.empty(NCL, device=device) for _ in range(ns)]
    fwd[grid()](*xs, *nan, *rets, *finals, T, NCL, BLOCK_NCL=BLOCK, ZERO_INIT=True)
    for k in range(no):
        torch.testing.assert_close(rets[k], want_out[k], rtol=1e-5, atol=1e-5)
    for j in range(ns):
        torch.testing.assert_close(finals[j], want_seq[j][-1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["fp16", "bf16"])
def test_half_states_round_every_step_to_nearest(dtype: torch.dtype, device: torch.device) -> None:
    """fp32 compute, storage rounding: the recurrence of an fp32 loop that rounds
    outputs and states to ``dtype`` after each step, bit for bit (LIF's ops
    are exact fp32 arithmetic, so the only rounding is the storage one)."""
    graph = generate_inference_graph(lif, [torch.zeros(4)] * 2)
    step, step_name = generate_triton_code_str(graph, "lif_step")
    (x,), (v0,) = data(1, 1, device, dtype)
    kernel, _ = get_flexsn_inference_kernel(step, step_name, 1, 1, 1)
    s_seq, v_seq = torch.empty_like(x), torch.empty_like(x)
    kernel[grid()](x, v0, s_seq, v_seq, T, NCL, BLOCK_NCL=BLOCK)
    v = v0.float()
    for t in range(T):
        s, v = lif(x[t].float(), v)
        v = v.to(dtype).float()
        assert torch.equal(s_seq[t], s.to(dtype)), f"spikes differ at t={t}"
        assert torch.equal(v_seq[t], v.to(dtype)), f"states differ at t={t}"


def _training_setup(name: str, device: torch.device) -> Any:
    core, ni, ns, no = CORES[name]
    graphs = trace_training_graphs(core, [torch.zeros(4)] * (ni + ns))
    info = extract_info(graphs.fwd, ni, ns, no)
    fcode, fname = generate_triton_code_str(graphs.fwd, f"{name}_fwd")
    bcode, bname = generate_triton_code_str(graphs.bwd, f"{name}_bwd")
    return core, ni, ns, no, graphs, info, (fcode, fname), (bcode, bname)


def _reference_grads(core: Callable[..., Any], ni: int, ns: int, no: int, xs: Sequence[torch.Tensor],
                     s0: Sequence[torch.Tensor], grads: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    leaves = [t.detach().clone().requires_grad_() for t in [*xs, *s0]]
    outs, seqs = unrolled_loop(core, no, leaves[:ni], leaves[ni:])
    pairs = [(o, g) for o, g in zip([*outs, *seqs], grads) if o.requires_grad]
    torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
    return [t.grad if t.grad is not None else torch.zeros_like(t) for t in leaves]


@pytest.mark.parametrize("name", ["lif", "two", "hard"])
def test_training_kernels_match_autograd(name: str, prefetch: str, device: torch.device) -> None:
    core, ni, ns, no, graphs, info, (fcode, fname), (bcode, bname) = _training_setup(name, device)
    if name == "hard":
        assert graphs.tangent_mask == (False, True)  # the backward graph takes no spike gradient
    xs, s0 = data(ni, ns, device)
    want_out, want_seq = unrolled_loop(core, no, xs, s0)

    fwd, _ = get_flexsn_forward_kernel(fcode, fname, info)
    rets = [torch.empty(T, NCL, device=device) for _ in range(info.num_fwd_kernel_returns)]
    fwd[grid()](*xs, *s0, *rets, T, NCL, BLOCK_NCL=BLOCK)
    for got, want in zip(rets, [*want_out, *want_seq]):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)

    g = torch.Generator().manual_seed(3)
    grads = [torch.randn(T, NCL, generator=g).to(device) for _ in range(no + ns)]
    bwd, _ = get_flexsn_backward_kernel(bcode, bname, info, graphs.tangent_mask)
    pool = {"input": xs, "return": rets, "init_state": s0}
    saved = [pool[kind][idx] for kind, idx in backward_saved_args(info)]
    gin = [torch.empty(T, NCL, device=device) for _ in range(ni)] + [torch.empty(NCL, device=device) for _ in range(ns)]
    bwd[grid()](*grads, *saved, *gin, T, NCL, BLOCK_NCL=BLOCK)
    for k, (got, want) in enumerate(zip(gin, _reference_grads(core, ni, ns, no, xs, s0, grads))):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, msg=lambda m: f"gradient {k}: {m}")


@pytest.mark.parametrize("name", ["lif", "two"])
def test_final_state_training_kernels_match_autograd(name: str, device: torch.device) -> None:
    core, ni, ns, no, graphs, info, (fcode, fname), (bcode, bname) = _training_setup(name, device)
    xs, s0 = data(ni, ns, device)
    want_out, want_seq = unrolled_loop(core, no, xs, s0)

    stored = final_state_forward_returns(info)
    assert all(k in stored for k in range(no))
    fwd, _ = get_flexsn_forward_kernel(fcode, fname, info, final_state=True)
    rets = {k: torch.empty(T, NCL, device=device) for k in stored}
    finals = [torch.empty(NCL, device=device) for _ in range(ns)]
    fwd[grid()](*xs, *s0, *rets.values(), *finals, T, NCL, BLOCK_NCL=BLOCK)
    for k in range(no):
        torch.testing.assert_close(rets[k], want_out[k], rtol=1e-5, atol=1e-5)
    for j in range(ns):
        torch.testing.assert_close(finals[j], want_seq[j][-1], rtol=1e-5, atol=1e-5)

    g = torch.Generator().manual_seed(5)
    gy = [torch.randn(T, NCL, generator=g).to(device) for _ in range(no)]
    gf = [torch.randn(NCL, generator=g).to(device) for _ in range(ns)]
    # only the final states get a gradient: as a state-sequence gradient it sits at t = T - 1
    seq_grads = [torch.zeros(T, NCL, device=device) for _ in range(ns)]
    for j in range(ns):
        seq_grads[j][-1] = gf[j]
    want = _reference_grads(core, ni, ns, no, xs, s0, [*gy, *seq_grads])

    bwd, _ = get_flexsn_backward_kernel(bcode, bname, info, graphs.tangent_mask, final_state=True)
    pool = {"input": xs, "return": rets, "init_state": s0}
    saved = [pool[kind][idx] for kind, idx in backward_saved_args(info)]  # type: ignore[index]
    gin = [torch.empty(T, NCL, device=device) for _ in range(ni)] + [torch.empty(NCL, device=device) for _ in range(ns)]
    bwd[grid()](*gy, *gf, *saved, *gin, T, NCL, BLOCK_NCL=BLOCK)
    for k, (got, w) in enumerate(zip(gin, want)):
        torch.testing.assert_close(got, w, rtol=1e-4, atol=1e-5, msg=lambda m: f"gradient {k}: {m}")


def test_single_step_and_single_element(device: torch.device) -> None:
    graph = generate_inference_graph(lif, [torch.zeros(4)] * 2)
    step, step_name = generate_triton_code_str(graph, "lif_step")
    kernel, _ = get_flexsn_inference_kernel(step, step_name, 1, 1, 1)
    for t_steps, ncl in [(1, 77), (7, 1)]:
        x = torch.randn(t_steps, ncl, device=device) * 2
        v0 = torch.randn(ncl, device=device)
        s_seq, v_seq = torch.empty_like(x), torch.empty_like(x)
        kernel[(triton.cdiv(ncl, BLOCK),)](x, v0, s_seq, v_seq, t_steps, ncl, BLOCK_NCL=BLOCK)
        (ws,), (wv,) = unrolled_loop(lif, 1, [x], [v0])
        torch.testing.assert_close(s_seq, ws)
        torch.testing.assert_close(v_seq, wv)


def test_render_errors() -> None:
    graph = generate_inference_graph(lif, [torch.zeros(4)] * 2)
    step, step_name = generate_triton_code_str(graph, "lif_step")
    with pytest.raises(ValueError, match="at least one input sequence"):
        render_inference_kernel(step, step_name, 0, 2, 0)
    with pytest.raises(ValueError, match="returns nothing"):
        render_inference_kernel(step, step_name, 1, 0, 0)
    graphs = trace_training_graphs(lif, [torch.zeros(4)] * 2)
    info = extract_info(graphs.fwd, 1, 1, 1)
    with pytest.raises(ValueError, match="tangent_mask has 1 entries, expected 2"):
        render_backward_kernel(step, step_name, info, (True,))
    with pytest.raises(ValueError, match="at least one input sequence"):
        render_forward_kernel(step, step_name, info._replace(num_inputs=0))


def test_backward_saved_args_order_and_dedup() -> None:
    """A saved previous state needs its state sequence and the initial state, each once."""
    graphs = trace_training_graphs(lambda x, v: (x * v, v * 0.5 + x * v), [torch.zeros(4)] * 2)
    info = extract_info(graphs.fwd, 1, 1, 1)
    kinds = {src.kind for src in info.saved_sources}
    assert "prev_state" in kinds or "input" in kinds
    saved = backward_saved_args(info)
    assert len(saved) == len(set(saved))
    if any(src.kind == "prev_state" for src in info.saved_sources):
        assert ("return", info.num_outputs) in saved and ("init_state", 0) in saved
