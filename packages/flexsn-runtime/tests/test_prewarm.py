"""A first backward's kernel compiled ahead (#13 startup, ``flexsn_runtime.prewarm``).

The guess of the launch is checked against the launch the backward then makes
(any device); on CUDA, that the compile started on the first call, that the
backward used it instead of compiling again, and that the results are the loop's.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from flexsn_runtime import FlexSNKernel, op_autograd
from flexsn_runtime.prewarm import BackwardLaunch, guess_backward_launch, prewarm_backward
from flexsn_runtime.scan_kernel import NO_ALT, ScanKernel
from flexsn_runtime.training_plan import plan_for


def decay(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """PLIF-like: a learnable decay ``w`` and a per-channel threshold ``th``."""
    from flexsn_trace.testing import Spike

    h = v + (x - v) * torch.sigmoid(w)
    s: torch.Tensor = Spike.apply(h - th)  # type: ignore[no-untyped-call]
    return s, h * (1.0 - s)


def record(monkeypatch: pytest.MonkeyPatch) -> tuple[list[BackwardLaunch | None], list[BackwardLaunch]]:
    """(guesses made by first calls, launches of backward kernels), with nothing compiled ahead."""
    guesses: list[BackwardLaunch | None] = []
    launches: list[BackwardLaunch] = []

    def spy(plan: Any, flat_args: Any, derived: Any) -> bool:
        guesses.append(guess_backward_launch(plan, flat_args, derived))
        return False

    real = ScanKernel.launch

    def launch(self: ScanKernel, args: list[torch.Tensor], T: int, ncl: int, ref: torch.Tensor, dims: Any = (),
               zero_init: bool = False, reds: Any = (), alt: Any = NO_ALT) -> None:
        if "backward" in self.kind:  # "half_backward...": the pair 16-bit sequences run
            launches.append(BackwardLaunch(tuple(a.dtype for a in args), T, ncl, tuple(dims), zero_init, tuple(reds), alt))
        real(self, args, T, ncl, ref, dims, zero_init, reds, alt)

    monkeypatch.setattr(op_autograd, "prewarm_backward", spy)
    monkeypatch.setattr(ScanKernel, "launch", launch)
    return guesses, launches


CASES = {
    # name: (core, ni, ns, no, num_static, step shape, explicit states, final_state, dtype, channels_last)
    "lif": ("lif", 1, 1, 1, 0, (2, 3), False, True, torch.float32, False),
    "lif-explicit-seqs": ("lif", 1, 1, 1, 0, (2, 3), True, False, torch.float32, False),
    "two": ("two", 2, 2, 2, 0, (3, 4), False, True, torch.float32, False),
    "statics": ("decay", 1, 1, 1, 2, (2, 3, 4), False, True, torch.float32, False),
    "statics-channels-last": ("decay", 1, 1, 1, 2, (2, 3, 2, 2), False, True, torch.float32, True),
    "bf16": ("lif", 1, 1, 1, 0, (2, 3), False, True, torch.bfloat16, False),
}


def _inputs(case: tuple[Any, ...], ref: Any, device: torch.device) -> tuple[list[torch.Tensor], list[torch.Tensor], list[torch.Tensor]]:
    name, ni, ns, _, n_static, shape, explicit, _, dtype, channels_last = case
    core = ref.CORES[name] if name != "decay" else ref.CORES["lif"]
    xs, s0 = ref.make_data(core, 5, shape, device, dtype=dtype)
    if channels_last:  # [T, B, C, H, W] whose [T * B] view is channels-last, as a convolution writes it
        xs = [x.flatten(0, 1).contiguous(memory_format=torch.channels_last).view(x.shape) for x in xs]
    statics = []
    if n_static:
        statics = [torch.tensor(0.3, device=device), torch.linspace(0.8, 1.2, shape[1], device=device).view(-1, *[1] * (len(shape) - 2))]
    return xs, (s0 if explicit else []), statics


@pytest.mark.parametrize("case", list(CASES))
def test_the_guess_is_the_launch_a_first_backward_makes(case: str, device: torch.device, ref: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    spec = CASES[case]
    name, ni, ns, no, n_static, _, _, final_state, _, _ = spec
    fn = decay if name == "decay" else ref.CORES[name].fn
    k = FlexSNKernel(fn, ni, ns, no, num_static=n_static)
    guesses, launches = record(monkeypatch)
    xs, s0, statics = _inputs(spec, ref, device)
    leaves = [t.detach().clone().requires_grad_() for t in [*xs, *s0, *statics]]
    out = (k.final_state if final_state else k)(*leaves)
    sum(o.float().sum() for o in out[:no]).backward()  # the usual loss: the outputs, not the states
    assert len(guesses) == 1 and len(launches) == 1
    assert guesses[0] == launches[0]


def test_a_first_call_starts_at_most_one_compile(device: torch.device, ref: Any) -> None:
    k = FlexSNKernel(ref.CORES["lif"].fn, 1, 1, 1)
    xs, _ = ref.make_data(ref.CORES["lif"], 4, (2, 3), device)
    x = xs[0].requires_grad_()
    k.final_state(x)[0].sum().backward()
    assert k.handle is not None
    plan = plan_for(k.handle, True, x.dtype)
    assert plan.backward.prewarmed  # tried on the first call, never again
    assert not prewarm_backward(plan, [x], op_autograd.derived_backward)
    assert plan.backward.warming is None  # a started compile was waited for by the backward launch


@pytest.mark.skipif(not torch.cuda.is_available(), reason="compiles ahead only for CUDA launches")
def test_first_backward_uses_the_kernel_compiled_ahead(ref: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    device = torch.device("cuda")
    started: list[bool] = []
    real = op_autograd.prewarm_backward

    def spy(plan: Any, flat_args: Any, derived: Any) -> bool:
        started.append(real(plan, flat_args, derived))
        return started[-1]

    monkeypatch.setattr(op_autograd, "prewarm_backward", spy)
    # kernels of one source share their JITFunction across handles and tests: a core of its own,
    # so its backward's specialisations are the ones this call makes
    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return decay(x, v, w, th + 0.0123)

    k = FlexSNKernel(core, 1, 1, 1, num_static=2)
    xs, _, statics = _inputs(CASES["statics"], ref, device)
    leaves = [t.detach().clone().requires_grad_() for t in [*xs, *statics]]
    s, v = k.final_state(*leaves)
    assert k.handle is not None
    plan = plan_for(k.handle, True, torch.float32)
    assert started == [True] and plan.backward.warming is not None
    g = torch.randn_like(s)
    s.backward(g)
    assert plan.backward.warming is None
    cache = plan.backward.jit_function().device_caches[torch.cuda.current_device()][0]
    assert len(cache) == 1  # the compile made ahead is the one launched: no second specialisation
    r_leaves = [t.detach().clone().requires_grad_() for t in [*xs, *statics]]
    fn = lambda x, v: core(x, v, *r_leaves[1:])  # noqa: E731
    outs, _ = ref.loop(ref.Core(fn, 1, 1, 1), r_leaves[:1], [torch.zeros_like(xs[0][0])])
    torch.testing.assert_close(s, outs[0])
    outs[0].backward(g)
    for a, b in zip(leaves, r_leaves):
        assert a.grad is not None and b.grad is not None
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)
