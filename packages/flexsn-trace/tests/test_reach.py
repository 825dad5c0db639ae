"""Which results of a scan require grad: :mod:`flexsn_trace.reach` against the eager loop (``reference_scan``)."""

from __future__ import annotations

import itertools
from typing import Callable

import pytest
import torch

from flexsn_trace import ScanContract, reached_arguments, reference_scan, scan_requires_grad


def counter(x: torch.Tensor, v: torch.Tensor, n: torch.Tensor) -> tuple[torch.Tensor, ...]:
    h = v * 0.5 + x
    s = (h >= 1.0).to(x.dtype)  # no gradient
    return s, h * (1.0 - s), n + s


def swap(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return x * a, b * 1.0, a * 1.0


def chain(x: torch.Tensor, y: torch.Tensor, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
    # a <- x, b <- a, c <- b: a flag walks down the chain one step at a time; output 1 reads c and the static w
    return y * 2.0, c + w, x * 1.0, a * 0.5, b.detach() + b * 1.0


def detached(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return v.detach() + x.detach(), x.detach() * v  # the output never requires grad; the state follows v


# core, num_inputs, num_states, num_outputs, num_static
CORES: dict[str, tuple[Callable[..., tuple[torch.Tensor, ...]], int, int, int, int]] = {
    "counter": (counter, 1, 2, 1, 0),
    "swap": (swap, 1, 2, 1, 0),
    "chain": (chain, 2, 3, 2, 1),
    "detached": (detached, 1, 1, 1, 0),
}


def _reaches(name: str) -> tuple[tuple[int, ...], ...]:
    core, ni, ns, no, nst = CORES[name]
    leaves = [torch.rand(3).requires_grad_() for _ in range(ni + ns + nst)]
    return reached_arguments(core(*leaves), leaves)


def test_reached_arguments_follow_autograd_edges() -> None:
    assert _reaches("counter") == ((), (0, 1), (2,))  # the spike is a hard threshold; n only reaches itself
    assert _reaches("swap") == ((0, 1), (2,), (1,))
    assert _reaches("chain") == ((1,), (4, 5), (0,), (2,), (3,))
    assert _reaches("detached") == ((), (1,))


def test_an_argument_returned_as_it_is_reaches_itself() -> None:
    a, b = torch.rand(2).requires_grad_(), torch.rand(2)
    assert reached_arguments((a, b, a * b), (a, b)) == ((0,), (), (0,))


@pytest.mark.parametrize("T", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("name", sorted(CORES))
def test_scan_requires_grad_is_the_loops_answer(name: str, T: int) -> None:
    core, ni, ns, no, nst = CORES[name]
    reaches = _reaches(name)
    for flags in itertools.product([False, True], repeat=ni + ns + nst):
        def make(k: int, shape: tuple[int, ...]) -> torch.Tensor:
            return torch.rand(shape).requires_grad_(flags[k])

        seqs = tuple(make(i, (T, 3)) for i in range(ni))
        init = tuple(make(ni + j, (3,)) for j in range(ns))
        statics = tuple(make(ni + ns + k, (3,)) for k in range(nst))
        got = scan_requires_grad(reaches, ni, ns, no, flags, T)
        for final in (True, False):
            res = reference_scan(core, ScanContract(ni, ns, no, seqs, init, statics, final, True))
            if T == 0:  # no step: the loop's empty outputs follow SpikingJelly's rules, not the core's
                assert got.final_states == tuple(flags[ni : ni + ns]) and not any(got.outputs)
                continue
            want = [r.requires_grad for r in res]
            states = got.final_states if final else got.state_seqs
            assert [*got.outputs, *states] == want, (flags, final)


def test_an_unknown_step_count_takes_every_count_the_flags_reach() -> None:
    reaches = _reaches("swap")
    got = scan_requires_grad(reaches, 1, 2, 1, (False, True, False), None)
    assert got.final_states == (True, True) and got.state_seqs == (True, True)  # one of them at every T
    chain_reaches = _reaches("chain")
    got = scan_requires_grad(chain_reaches, 2, 3, 2, (True, False, False, False, False, False), None)
    assert got.outputs == (False, True) and got.final_states == (True, True, True)  # c after the third step


def test_scan_requires_grad_checks_its_arity() -> None:
    with pytest.raises(ValueError, match="reaches has 2 entries, expected 3"):
        scan_requires_grad(((0,), (1,)), 1, 2, 1, (True, False, False), 3)
    with pytest.raises(ValueError, match="arguments has 1 flags, expected at least 3"):
        scan_requires_grad(((0,), (1,), (2,)), 1, 2, 1, (True,), 3)
