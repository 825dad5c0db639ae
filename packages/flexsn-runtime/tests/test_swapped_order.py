"""A launch's second memory order (``flexsn_runtime.layout.fit_orders``): tensors read where they lie.

A backward whose tensors come in two orders (channels-last sequences beside
contiguous states and final-state gradients, as a compiled network hands
them over; or a channels-last saved input in a contiguous launch) reads the
odd ones through the swapped index of ``flexsn_codegen.addressing._offsets``
instead of copying them. Its gradients must equal those of the same call on
contiguous copies (itself checked against autograd through the loop in
``test_layout.py``), and nothing may be copied.
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Any, Iterator
from unittest import mock

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from flexsn_runtime import FlexSNKernel, ensure_training_kernels, layout
from flexsn_runtime.layout import fit_orders
from flexsn_runtime.scan_kernel import NO_ALT, ScanKernel
from flexsn_trace.testing import lif_core, two_by_two_core

T, B, C, H, W = 5, 2, 4, 3, 2
CL = (0, 2, 3, 1)  # [B, C, H, W] channels-last: B, H, W, C from the outermost


def channels_last(t: torch.Tensor) -> torch.Tensor:
    """``t`` (``[..., B, C, H, W]``) with channels-last memory in its last four dims, as a convolution writes it."""
    lead = t.shape[:-4]
    flat = t.reshape(-1, *t.shape[-3:]).contiguous(memory_format=torch.channels_last)
    return flat.view(*lead, *t.shape[-4:])


def decay_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(w)
    return torch.sigmoid(4.0 * (h - th)), h * 0.8


def test_the_swap_is_found_for_either_order_and_only_for_a_swap() -> None:
    x = channels_last(torch.randn(T, B, C, H, W))
    state, rows, seq = torch.randn(B, C, H, W), torch.randn(2, B, C, H, W), torch.randn(T, B, C, H, W)
    w = torch.randn(C, 1, 1)
    step = (B, C, H, W)
    got, alt = fit_orders([x, state, rows, w, None], CL, step)
    assert alt == (0b110, C, H * W)  # channels-last launch: the contiguous tensors' C sits outside H * W
    assert got[0] is x and got[1] is state and got[2] is rows and got[3] is w and got[4] is None
    got, alt = fit_orders([seq, x, state], None, step)
    assert alt == (0b010, H * W, C) and got[1] is x  # contiguous launch: the channels-last input's order swapped
    # a third order ([B, W, H, C]) is not one swap from channels-last: copied
    odd = torch.randn(B, W, H, C).permute(0, 3, 2, 1)
    got, alt = fit_orders([odd, state], CL, step)
    assert alt == (0b10, C, H * W) and got[0] is not odd and got[0].stride() == x[0].stride() and torch.equal(got[0], odd)
    # gaps cannot be indexed one element per neuron: copied
    gapped = torch.randn(B, C, H, 2 * W)[..., ::2]
    got, alt = fit_orders([gapped], CL, step)
    assert alt == (0, 1, 1) and got[0].stride() == x[0].stride() and torch.equal(got[0], gapped)
    # zeros are kept as they are; statics of lower rank are made contiguous
    got, alt = fit_orders([state, w.transpose(0, 1)], CL, step, zeros=[0])
    assert alt == (0, 1, 1) and got[0] is state and got[1].is_contiguous()


def test_size_one_dims_and_every_split_are_found() -> None:
    # [B, C, 1, L] launched channels-last ([B, 1, L, C]): the size-1 dim moves nothing
    x = torch.randn(T, B, C, 1, 4)
    xl = channels_last(x)
    got, alt = fit_orders([torch.randn(B, C, 1, 4)], layout.launch_order(xl), (B, C, 1, 4))
    assert alt == (1, C, 4)
    # groups of several dims: (B, C, H, W) launched as (C, H, W, B) against (B, C, H, W): P empty, G1 = (C, H, W)? no:
    # launch (1, 2, 3, 0), own (0, 1, 2, 3) = G2 + G1 with G1 = (1, 2, 3), G2 = (0,)
    got, alt = fit_orders([torch.randn(B, C, H, W)], (1, 2, 3, 0), (B, C, H, W))
    assert alt == (1, B, C * H * W)


def _run(k: FlexSNKernel, xs: list[torch.Tensor], s0: list[torch.Tensor], statics: list[torch.Tensor],
         grads: list[torch.Tensor], final_state: bool) -> list[torch.Tensor]:
    """The gradients of ``flexsn::training`` on leaf copies of ``[*xs, *s0, *statics]``, given ``grads`` for its outputs."""
    leaves = [t.detach().clone().requires_grad_() for t in [*xs, *s0, *statics]]
    out = torch.ops.flexsn.training(k.handle, leaves, final_state)
    visible = list(out[: len(grads)])
    torch.autograd.backward(visible, grads)
    return [t.grad for t in leaves]  # type: ignore[misc]


CORES = {"decay": (decay_core, 1, 1, 1, 2), "lif": (lif_core, 1, 1, 1, 0), "two": (two_by_two_core, 2, 2, 2, 0)}


def _case(name: str, seed: int, device: torch.device) -> tuple[FlexSNKernel, torch.Generator, list[torch.Tensor],
                                                             list[torch.Tensor], list[torch.Tensor]]:
    """A kernel of core ``name`` with its training kernels, the generator, contiguous input sequences, contiguous
    initial states and the core's static inputs (a per-channel ``[C, 1, 1]``, a per-column ``[W]``)."""
    fn, ni, ns, no, nw = CORES[name]
    k = FlexSNKernel(fn, ni, ns, no, num_static=nw)
    ensure_training_kernels(k.handle)
    g = torch.Generator().manual_seed(seed)
    xs = [torch.randn(T, B, C, H, W, generator=g).to(device) for _ in range(ni)]
    s0 = [torch.randn(B, C, H, W, generator=g).to(device) for _ in range(ns)]
    statics = [torch.randn(C, 1, 1, generator=g).to(device), (torch.rand(W, generator=g) + 0.3).to(device)][:nw]
    return k, g, xs, s0, statics


@contextlib.contextmanager
def watched(kind: str) -> Iterator[tuple[list[tuple[int, ...]], list[Any]]]:
    """``(copies, alts)``: the sequences and states ``layout.in_order`` copied, and the ``alt`` of each
    ``ScanKernel.launch`` of a kernel whose kind contains ``kind``, while the block runs. On CUDA a launch plan's
    launch calls the cached launcher, not ``ScanKernel.launch``: a call's first launch is seen, later ones may not be."""
    copies: list[tuple[int, ...]] = []
    alts: list[Any] = []
    real, launch = layout.in_order, ScanKernel.launch

    def spy(t: torch.Tensor, order: Any) -> torch.Tensor:
        out = real(t, order)
        if out is not t and t.dim() >= 4:
            copies.append(tuple(t.shape))
        return out

    def seen(self: ScanKernel, args: Any, T: int, ncl: int, ref: Any, dims: Any = (), zero_init: bool = False,
             reds: Any = (), alt: Any = NO_ALT) -> None:
        if kind in self.kind:
            alts.append(alt)
        launch(self, args, T, ncl, ref, dims, zero_init, reds, alt)

    with mock.patch.object(layout, "in_order", spy), mock.patch.object(ScanKernel, "launch", seen):
        yield copies, alts


@pytest.mark.parametrize("final_state", [False, True], ids=["seqs", "final"])
@pytest.mark.parametrize("grads_in", ["channels-last", "contiguous"])
@pytest.mark.parametrize("name", list(CORES))
def test_a_backward_reads_the_swapped_order_where_it_lies(name: str, grads_in: str, final_state: bool, device: torch.device) -> None:
    """Channels-last inputs, contiguous initial states; the gradients of the outputs channels-last (the compiled
    convnet's first layers: the states, checkpoint rows and final-state gradients are the odd ones) or contiguous
    (a tie of sequences: the saved input is). Gradients equal the contiguous call's, and fit_orders copies nothing."""
    _, _, ns, no, _ = CORES[name]
    k, g, xs, s0, statics = _case(name, 6, device)
    shapes = [(T, B, C, H, W)] * no + [(B, C, H, W) if final_state else (T, B, C, H, W)] * ns
    grads = [torch.randn(*sh, generator=g).to(device) for sh in shapes]
    want = _run(k, xs, s0, statics, grads, final_state)

    moved = [channels_last(t) if grads_in == "channels-last" and t.dim() == 5 else t for t in grads]
    with watched("backward") as (copies, alts):
        for _ in range(2):  # the first call derives its launch, the second runs from the plans
            got = _run(k, [channels_last(x) for x in xs], s0, statics, moved, final_state)
    assert copies == [] and alts and all(a[0] != 0 for a in alts)
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("final_state", [False, True], ids=["seqs", "final"])
@pytest.mark.parametrize("name", list(CORES))
def test_a_forward_reads_contiguous_states_beside_channels_last_inputs(name: str, final_state: bool, device: torch.device) -> None:
    """A neuron carried over between calls in a channels-last network: its states come back contiguous when a caller
    made them so. Inference and the training forward read them where they lie (no copy) and write what the
    contiguous call writes, in the inputs' order."""
    _, ni, ns, _, _ = CORES[name]
    k, _, xs, s0, statics = _case(name, 7, device)
    xl = [channels_last(x) for x in xs]
    for op in (torch.ops.flexsn.inference, torch.ops.flexsn.training):
        want = op(k.handle, [*xs, *s0, *statics], final_state)
        with watched("") as (copies, alts), torch.no_grad():
            for _ in range(2):  # derived, then from the launch plan
                got = op(k.handle, [*xl, *s0, *statics], final_state)
        # the states are arguments ni .. ni + ns - 1: the second order's bits
        assert copies == [] and alts and all(a == (((1 << ns) - 1) << ni, C, H * W) for a in alts)
        for a, b in zip(got, want):
            assert a.dim() < 4 or a.stride() == (xl[0].stride() if a.dim() == 5 else xl[0][0].stride())
            torch.testing.assert_close(a, b, rtol=0, atol=0)


def _check_swap_index(shape: tuple[int, ...], launch: tuple[int, ...], own: tuple[int, ...]) -> bool:
    """Whether :func:`fit_orders` keeps a state laid out in ``own`` beside a launch in ``launch`` only where the
    kernels' swapped index (``addressing._offsets``) finds each neuron's element; returns whether it was kept."""
    t = torch.empty_strided(shape, layout.strides_in_order(shape, own))
    got, (mask, inner, mid) = fit_orders([t], launch, shape)
    if got[0] is not t:  # copied to the launch's order: the copy is in it
        assert got[0].stride() == torch.empty_strided(shape, layout.strides_in_order(shape, launch)).stride() or got[0].numel() <= 1
        return False
    if mask == 0:  # as it is: the launch's order up to size-1 dims
        assert all(s == w for s, w, n in zip(t.stride(), layout.strides_in_order(shape, launch), shape) if n != 1)
        return True
    ls = layout.strides_in_order(shape, launch)
    for m in itertools.product(*(range(n) for n in shape)):
        i = sum(a * b for a, b in zip(m, ls))
        block = inner * mid
        j = (i // block) * block + (i % inner) * mid + (i // inner) % mid
        assert j == sum(a * b for a, b in zip(m, t.stride())), (shape, launch, own, m)
    return True


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.data())
def test_the_swapped_index_finds_every_neuron_or_the_tensor_is_copied(data: st.DataObject) -> None:
    """Any step shape (sizes 1-4, rank 1-4), any launch order and any other order: a tensor is kept only where the
    kernels' index reads it right, and one whose order is the launch's with two innermost groups swapped is kept."""
    rank = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    launch = tuple(data.draw(st.permutations(range(rank))))
    own = tuple(data.draw(st.permutations(range(rank))))
    _check_swap_index(shape, launch, own)
    if rank >= 2:  # own = P + G2 + G1 for launch = P + G1 + G2: always kept
        p = data.draw(st.integers(0, rank - 2))
        k = data.draw(st.integers(p + 1, rank - 1))
        assert _check_swap_index(shape, launch, launch[:p] + launch[k:] + launch[p:k])


@pytest.mark.parametrize("op_name", ["inference", "training"])
def test_zero_steps_return_the_initial_states_in_the_strides_the_fake_plans(op_name: str, device: torch.device) -> None:
    """``T = 0`` returns clones of the initial states as the final states; a state in another order than the launch's
    (channels-last beside an empty sequence, whose launch is contiguous) is cloned into the launch's order, where the
    op's fake plans it (a compiled graph asserts those strides)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    k, _, _, _, _ = _case("lif", 8, device)
    x = torch.randn(0, B, C, H, W, device=device)
    v0 = channels_last(torch.randn(1, B, C, H, W, device=device))[0]
    op = getattr(torch.ops.flexsn, op_name)
    got = op(k.handle, [x, v0], True)
    mode = FakeTensorMode()
    with mode:
        fake = op(k.handle, [mode.from_tensor(x), mode.from_tensor(v0)], True)
    assert [t.stride() for t in got] == [t.stride() for t in fake]
    torch.testing.assert_close(got[1], v0, rtol=0, atol=0)
