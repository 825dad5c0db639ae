"""Activation checkpointing (``torch.utils.checkpoint``) over neurons that keep states between calls.

The recomputation inside the backward pass used to start from the states the original call had left, so
gradients came from another trajectory while outputs and shapes matched (dL/dx off by 0.11 for a LIF
block here, on every backend, nothing said). Now a recomputed call starts from the states the original call
started from (:mod:`flexsn_nn.replay`), and a recomputation that cannot be matched to one call raises.
Reference: the same block run without checkpointing, with autograd through it (parameters' gradients too).
"""

from __future__ import annotations

import copy
import pickle
from typing import Callable

import pytest
import torch
from torch.utils.checkpoint import checkpoint

from flexsn_nn import LIFNode, ParametricLIFNode, functional, surrogate
from nn_reference import pick_device

BACKENDS = ("triton", "inductor", "torch", "hop")
NEURONS: dict[str, Callable[[str, str], torch.nn.Module]] = {
    "lif": lambda backend, mode: LIFNode(step_mode=mode, backend=backend, surrogate_function=surrogate.Sigmoid(4.0)),
    "plif": lambda backend, mode: ParametricLIFNode(step_mode=mode, backend=backend, surrogate_function=surrogate.ATan()),
}


class Block(torch.nn.Module):
    """linear -> neuron over ``[T, B, N]``."""

    def __init__(self, name: str, backend: str, mode: str = "m") -> None:
        super().__init__()
        self.fc = torch.nn.Linear(12, 12)
        self.sn = NEURONS[name](backend, mode)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.sn(self.fc(x))  # type: ignore[no-any-return]


def _pair(name: str, backend: str, mode: str = "m") -> tuple[Block, Block]:
    torch.manual_seed(5)
    block = Block(name, backend, mode).to(pick_device())
    return block, copy.deepcopy(block)


def _x() -> torch.Tensor:
    gen = torch.Generator().manual_seed(9)
    return (torch.rand(5, 3, 12, generator=gen) * 2.0).to(pick_device())


def _grads(block: torch.nn.Module, x: torch.Tensor) -> list[torch.Tensor]:
    return [x.grad, *(p.grad for p in block.parameters())]  # type: ignore[list-item]


def _assert_same_grads(a: torch.nn.Module, xa: torch.Tensor, b: torch.nn.Module, xb: torch.Tensor) -> None:
    for ga, gb in zip(_grads(a, xa), _grads(b, xb)):
        torch.testing.assert_close(ga, gb, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reentrant", [False, True], ids=["non-reentrant", "reentrant"])
@pytest.mark.parametrize("name", list(NEURONS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_checkpointed_block_matches_the_plain_block(backend: str, name: str, reentrant: bool) -> None:
    ckpt, plain = _pair(name, backend)
    x = _x()
    xa, xb = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    g = torch.randn_like(x)
    functional.reset_net(ckpt)
    out = checkpoint(ckpt, xa, use_reentrant=reentrant)
    v_after_forward = ckpt.sn.v
    (out * g).sum().backward()
    functional.reset_net(plain)
    ref = plain(xb)
    (ref * g).sum().backward()
    torch.testing.assert_close(out, ref)
    _assert_same_grads(ckpt, xa, plain, xb)
    assert ckpt.sn.v is v_after_forward, "the backward pass changed the neuron's state"


@pytest.mark.parametrize("backend", ["triton", "torch"])
def test_carried_state_reset_before_backward_and_backward_twice(backend: str) -> None:
    """Truncated BPTT: the call starts from a carried (detached) state; the user resets before backward;
    the graph is backpropagated twice (``retain_graph=True``)."""
    ckpt, plain = _pair("lif", backend)
    x = _x()
    v0 = torch.rand(3, 12, device=x.device)
    xa, xb = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    ckpt.sn.v = v0
    out = checkpoint(ckpt, xa, use_reentrant=False)
    functional.reset_net(ckpt)
    out.sum().backward(retain_graph=True)
    out.sum().backward()
    plain.sn.v = v0
    ref = plain(xb)
    ref.sum().backward(retain_graph=True)
    ref.sum().backward()
    _assert_same_grads(ckpt, xa, plain, xb)


@pytest.mark.parametrize("backend", ["triton", "torch"])
def test_consecutive_truncated_bptt_windows(backend: str) -> None:
    ckpt, plain = _pair("plif", backend)
    xs = [_x() * (1.0 + 0.2 * k) for k in range(3)]
    for block, use in ((ckpt, True), (plain, False)):
        functional.reset_net(block)
        for x in xs:
            out = checkpoint(block, x, use_reentrant=False) if use else block(x)
            out.sum().backward()
            block.sn.v = block.sn.v.detach()
    _assert_same_grads(ckpt, xs[0], plain, xs[0])  # the parameters' gradients, summed over the windows


@pytest.mark.parametrize("backend", ["triton", "torch"])
def test_step_mode_loop_that_resets_itself(backend: str) -> None:
    ckpt, plain = _pair("lif", backend, mode="s")
    x = _x()
    xa, xb = x.clone().requires_grad_(True), x.clone().requires_grad_(True)

    def loop(block: Block, seq: torch.Tensor) -> torch.Tensor:
        functional.reset_net(block)
        return torch.stack([block(seq[t]) for t in range(seq.shape[0])])

    out = checkpoint(loop, ckpt, xa, use_reentrant=False)
    out.sum().backward()
    loop(plain, xb).sum().backward()
    _assert_same_grads(ckpt, xa, plain, xb)


def test_one_checkpoint_per_step_is_refused() -> None:
    """The recomputations of per-step checkpoints run in reverse order: nothing tells which call each is."""
    ckpt, _ = _pair("lif", "triton", mode="s")
    x = _x().requires_grad_(True)
    functional.reset_net(ckpt)
    out = torch.stack([checkpoint(ckpt, x[t], use_reentrant=False) for t in range(x.shape[0])])
    with pytest.raises(RuntimeError, match="activation checkpointing recomputes"):
        out.sum().backward()


def test_copies_and_pickles_do_not_keep_what_a_recomputation_starts_from() -> None:
    block, _ = _pair("lif", "torch")
    block.sn.v = torch.ones(3, 12, device=pick_device())
    block(_x())
    assert block.sn._replay is not None
    assert copy.deepcopy(block).sn._replay is None
    assert pickle.loads(pickle.dumps(block)).sn._replay is None


def test_compiled_checkpoint_recomputes_from_its_graph_inputs() -> None:
    """Under ``torch.compile`` the replay bookkeeping is off; the compiled checkpoint reads the states it was given."""
    torch._dynamo.reset()
    ckpt, plain = _pair("lif", "triton")
    run = torch.compile(lambda block, x: checkpoint(block, x, use_reentrant=False), backend="aot_eager")
    x = _x()
    v0 = torch.rand(3, 12, device=x.device)
    xa, xb = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    try:
        ckpt.sn.v = v0
        run(ckpt, xa).sum().backward()
    finally:
        torch._dynamo.reset()
    plain.sn.v = v0
    plain(xb).sum().backward()
    _assert_same_grads(ckpt, xa, plain, xb)
