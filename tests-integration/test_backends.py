"""The generated kernels against the eager loop, across the stack.

``flexsn_runtime.FlexSNKernel`` (trace -> codegen -> runtime) is compared
with a Python loop over time written here, and with autograd on that
unrolled loop, for outputs, state sequences, final states and the
gradients of the input sequences and initial states. Cores: LIF, and one
with 2 inputs, 2 states and 2 outputs. Sizes: T and per-step element counts
that are not multiples of any block size (75, and 1099 which spans several
1024-wide programs on a GPU). fp32 is compared tightly; bf16 loosely
against the fp32 loop on the same (bf16-rounded) data.

When ``flexsn_nn`` is importable, ``FlexSN(backend="triton")`` is also
compared with ``FlexSN(backend="torch")``.

Runs compiled on CUDA when available, else on the CPU under Triton's
interpreter.
"""

from __future__ import annotations

import os
from typing import Any, Callable, NamedTuple, Sequence

import pytest
import torch

if not torch.cuda.is_available():
    # before triton is imported: its own jit'd helpers (tl.zeros, ...) are
    # interpreted only when TRITON_INTERPRET is set at import time
    os.environ.setdefault("TRITON_INTERPRET", "1")

import random_cores  # noqa: E402
from flexsn_runtime import FlexSNKernel  # noqa: E402
from flexsn_trace.testing import lif_core as lif, two_by_two_core as two, unrolled_loop  # noqa: E402


class Core(NamedTuple):
    fn: Callable[..., Any]
    ni: int
    ns: int
    no: int


CORES = {"lif": Core(lif, 1, 1, 1), "two": Core(two, 2, 2, 2)}
SIZES = {"T9-75": (9, (3, 25)), "T5-1099": (5, (7, 157))}


@pytest.fixture
def device() -> torch.device:
    """CUDA (compiled kernels) when available, else the CPU with the interpreter."""
    return random_cores.device()


@pytest.fixture(scope="module")
def kernels() -> dict[str, FlexSNKernel]:
    return {name: FlexSNKernel(c.fn, c.ni, c.ns, c.no) for name, c in CORES.items()}


def loop(core: Core, xs: Sequence[torch.Tensor], s0: Sequence[torch.Tensor]) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    return unrolled_loop(core.fn, core.no, xs, s0)


def reference(core: Core, xs: Sequence[torch.Tensor], s0: Sequence[torch.Tensor],
              grads: Sequence[torch.Tensor]) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """(outputs + state sequences, gradients of inputs + initial states), fp32."""
    leaves = [t.detach().float().clone().requires_grad_() for t in [*xs, *s0]]
    outs, seqs = loop(core, leaves[: core.ni], leaves[core.ni :])
    results = [*outs, *seqs]
    torch.autograd.backward(results, [g.float() for g in grads])
    return [r.detach() for r in results], [t.grad for t in leaves]  # type: ignore[misc]


def data(core: Core, T: int, shape: tuple[int, ...], device: torch.device, dtype: torch.dtype,
         seed: int = 0) -> tuple[list[torch.Tensor], list[torch.Tensor], list[torch.Tensor]]:
    g = torch.Generator().manual_seed(seed)
    xs = [(torch.randn(T, *shape, generator=g) * 1.5 + 0.6).to(dtype).to(device) for _ in range(core.ni)]
    s0 = [(torch.randn(*shape, generator=g) * 0.5).to(dtype).to(device) for _ in range(core.ns)]
    grads = [torch.randn(T, *shape, generator=g).to(dtype).to(device) for _ in range(core.no + core.ns)]
    return xs, s0, grads


def assert_mostly_close(got: torch.Tensor, want: torch.Tensor, atol: float, rtol: float, max_frac: float,
                        what: str) -> None:
    """Loose comparison for bf16: a small fraction of elements may differ (a spike that
    flips at a threshold changes that neuron's later steps)."""
    got, want = got.float().cpu(), want.float().cpu()
    bad = ~torch.isclose(got, want, rtol=rtol, atol=atol)
    frac = bad.float().mean().item()
    assert frac <= max_frac, f"{what}: {frac:.1%} of elements off (max {max_frac:.0%}), e.g. {got[bad][:5]} vs {want[bad][:5]}"


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("name", list(CORES))
def test_fp32_matches_the_loop(name: str, size: str, kernels: dict[str, FlexSNKernel], device: torch.device) -> None:
    core, k = CORES[name], kernels[name]
    T, shape = SIZES[size]
    xs, s0, grads = data(core, T, shape, device, torch.float32)
    assert k.uses_kernels(*xs)
    want, want_grads = reference(core, xs, s0, grads)

    with torch.no_grad():
        got = k(*xs, *s0)
        final = k.final_state(*xs, *s0)
    for i, (g, w) in enumerate(zip(got, want)):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5, msg=lambda m: f"inference result {i}: {m}")
    for j in range(core.ns):
        torch.testing.assert_close(final[core.no + j], want[core.no + j][-1], rtol=1e-5, atol=1e-5)

    leaves = [t.clone().requires_grad_() for t in [*xs, *s0]]
    out = k(*leaves)
    for i, (g, w) in enumerate(zip(out, want)):
        torch.testing.assert_close(g.detach(), w, rtol=1e-5, atol=1e-5, msg=lambda m: f"training result {i}: {m}")
    torch.autograd.backward(list(out), grads)
    for i, (leaf, w) in enumerate(zip(leaves, want_grads)):
        torch.testing.assert_close(leaf.grad, w, rtol=1e-4, atol=1e-5, msg=lambda m: f"gradient {i}: {m}")

    # final-state training: gradients of (outputs, final states)
    leaves = [t.clone().requires_grad_() for t in [*xs, *s0]]
    out = k.final_state(*leaves)
    gf = [g[-1] for g in grads[core.no :]]
    torch.autograd.backward(list(out), [*grads[: core.no], *gf])
    seq_grads = [torch.zeros_like(g) for g in grads[core.no :]]
    for sg, f in zip(seq_grads, gf):
        sg[-1] = f
    _, want_fs = reference(core, xs, s0, [*grads[: core.no], *seq_grads])
    for i, (leaf, w) in enumerate(zip(leaves, want_fs)):
        torch.testing.assert_close(leaf.grad, w, rtol=1e-4, atol=1e-5, msg=lambda m: f"final-state gradient {i}: {m}")


@pytest.mark.parametrize("name", list(CORES))
def test_bf16_close_to_the_fp32_loop(name: str, kernels: dict[str, FlexSNKernel], device: torch.device) -> None:
    core, k = CORES[name], kernels[name]
    T, shape = SIZES["T9-75"]
    xs, s0, grads = data(core, T, shape, device, torch.bfloat16, seed=1)
    want, want_grads = reference(core, xs, s0, grads)
    leaves = [t.clone().requires_grad_() for t in [*xs, *s0]]
    out = k(*leaves)
    assert all(o.dtype == torch.bfloat16 for o in out)
    for i, (g, w) in enumerate(zip(out, want)):
        assert_mostly_close(g.detach(), w, atol=3e-2, rtol=3e-2, max_frac=0.03, what=f"bf16 result {i}")
    torch.autograd.backward(list(out), grads)
    for i, (leaf, w) in enumerate(zip(leaves, want_grads)):
        assert leaf.grad is not None and leaf.grad.dtype == torch.bfloat16
        assert_mostly_close(leaf.grad, w, atol=5e-2, rtol=5e-2, max_frac=0.05, what=f"bf16 gradient {i}")
    with torch.no_grad():
        final = k.final_state(*xs, *s0)
    for j in range(core.ns):
        assert_mostly_close(final[core.no + j], want[core.no + j][-1], atol=3e-2, rtol=3e-2, max_frac=0.05,
                            what=f"bf16 final state {j}")


@pytest.mark.parametrize("name", list(CORES))
def test_flexsn_module_triton_matches_torch_backend(name: str, device: torch.device) -> None:
    flexsn_nn = pytest.importorskip("flexsn_nn")
    core = CORES[name]
    T, shape = SIZES["T9-75"]
    xs, s0, grads = data(core, T, shape, device, torch.float32, seed=2)
    results = {}
    for backend in ("triton", "torch"):
        m = flexsn_nn.FlexSN(core.fn, core.ni, core.ns, core.no, backend=backend, store_state_seqs=True)
        m.states = [s.clone() for s in s0]
        leaves = [x.clone().requires_grad_() for x in xs]
        out = m(*leaves)
        out = (out,) if isinstance(out, torch.Tensor) else tuple(out)
        seqs = list(m.state_seqs)
        torch.autograd.backward([*out, *seqs], grads)
        results[backend] = ([o.detach() for o in out], [s.detach() for s in seqs],
                            [s.detach() for s in m.states], [x.grad for x in leaves])
    tri, ref = results["triton"], results["torch"]
    for group, (a_list, b_list) in zip(("outputs", "state sequences", "final states", "input gradients"), zip(tri, ref)):
        for i, (a, b) in enumerate(zip(a_list, b_list)):
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5, msg=lambda m: f"{group} {i}: {m}")
