"""Per-signature call cache (#14): a second call of a signature skips the checks, and every change of
signature takes the checked path again, so results, gradients and errors stay those of the eager loop."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import flexsn_nn.module as module_mod
from flexsn_nn import FlexSN, ParametricLIFNode
from flexsn_trace.testing import count_calls
from nn_reference import SG, lif_core, python_loop

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def counting_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count FlexSN's argument checks (flexsn_trace.check_scan_args as the module calls it)."""
    return count_calls(monkeypatch, module_mod, "check_scan_args")


def reference(x: torch.Tensor, v0: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    outs, _, finals = python_loop(lif_core, 1, [x], [torch.zeros_like(x[0]) if v0 is None else v0])
    return outs[0], finals[0]


def test_a_repeated_call_is_checked_once_and_matches_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    checks = counting_checks(monkeypatch)
    m = FlexSN(lif_core, 1, 1, 1)
    for i in range(3):
        x = torch.rand(6, 2, 5, device=DEVICE) * 2
        m.reset()
        with torch.no_grad():
            s = m(x)
        ref_s, ref_v = reference(x)
        torch.testing.assert_close(s, ref_s)
        torch.testing.assert_close(m.states[0], ref_v)
    assert len(checks) == 1 and len(m.kernel.calls) == 1


def test_training_calls_from_the_cache_give_the_loops_gradients(monkeypatch: pytest.MonkeyPatch) -> None:
    checks = counting_checks(monkeypatch)
    m = FlexSN(lif_core, 1, 1, 1)
    g = torch.rand(6, 7, device=DEVICE)
    for _ in range(2):
        x = (torch.rand(6, 7, device=DEVICE) * 2).requires_grad_()
        m.reset()
        s = m(x)
        (gx,) = torch.autograd.grad(s, x, g)
        xr = x.detach().clone().requires_grad_()
        (gr,) = torch.autograd.grad(reference(xr)[0], xr, g)
        torch.testing.assert_close(gx, gr, rtol=1e-4, atol=1e-5)
    assert len(checks) == 1


def test_states_carried_between_calls_are_their_own_signature(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without reset() the next call starts from the last final state: a second signature, then cached too."""
    checks = counting_checks(monkeypatch)
    m = FlexSN(lif_core, 1, 1, 1)
    xs = [torch.rand(4, 9, device=DEVICE) * 2 for _ in range(4)]
    v = torch.zeros(9, device=DEVICE)
    with torch.no_grad():
        for x in xs:
            s = m(x)
            ref_s, v = reference(x, v)
            torch.testing.assert_close(s, ref_s)
            torch.testing.assert_close(m.states[0], v)
    assert len(checks) == 2  # zero states, then carried states


@pytest.mark.parametrize(
    "bad, error, message",
    [
        (lambda d: torch.rand(6, 2, 5, device=d).to(torch.int32), TypeError, "floating"),
        (lambda d: [1.0] * 6, TypeError, "torch.Tensor"),
    ],
)
def test_bad_inputs_still_raise_after_good_calls(bad: Any, error: type[Exception], message: str) -> None:
    m = FlexSN(lif_core, 1, 1, 1)
    with torch.no_grad():
        m(torch.rand(6, 2, 5, device=DEVICE))
        m.reset()
        with pytest.raises(error, match=message):
            m(bad(DEVICE))


def test_a_dtype_without_kernels_falls_back_with_its_warning_after_fused_calls() -> None:
    m = FlexSN(lif_core, 1, 1, 1)
    with torch.no_grad():
        m(torch.rand(6, 5, device=DEVICE))
        m.reset()
        x = torch.rand(6, 5, device=DEVICE, dtype=torch.float64) * 2
        with pytest.warns(RuntimeWarning, match="dtype torch.float64"):
            s = m(x)
    torch.testing.assert_close(s, reference(x)[0])


def test_a_state_of_the_wrong_shape_still_raises_after_good_calls() -> None:
    m = FlexSN(lif_core, 1, 1, 1)
    with torch.no_grad():
        m(torch.rand(3, 4, device=DEVICE))
        m(torch.rand(3, 4, device=DEVICE))  # carried states: cached
        m.states = [torch.zeros(5, device=DEVICE)]
        with pytest.raises(ValueError, match=r"per-step shape is \(4,\)"):
            m(torch.rand(3, 4, device=DEVICE))


def test_a_call_of_another_arity_still_raises() -> None:
    m = FlexSN(lif_core, 1, 1, 1)
    x = torch.rand(3, 4, device=DEVICE)
    with torch.no_grad():
        m(x)
        m.reset()
        with pytest.raises(ValueError, match="expected 1"):
            m(x, x)


def test_grad_mode_and_requires_grad_pick_the_route_per_call() -> None:
    """The same shapes with and without gradients: inference results carry no graph, training ones do."""
    m = FlexSN(lif_core, 1, 1, 1)
    x = torch.rand(5, 8, device=DEVICE) * 2
    xg = x.clone().requires_grad_()
    for _ in range(2):
        m.reset()
        assert not m(x).requires_grad
        m.reset()
        s = m(xg)
        assert s.requires_grad
        m.reset()
        with torch.no_grad():
            assert not m(xg).requires_grad
    assert len(m.kernel.calls) == 3


def test_a_learnable_parameter_toggled_off_and_on_keeps_its_gradient() -> None:
    """PLIF's decay ``w`` (a static input): its requires_grad is part of the signature."""
    torch.manual_seed(0)
    m = ParametricLIFNode(init_tau=2.0, surrogate_function=SG, step_mode="m").to(DEVICE)
    x = torch.rand(6, 10, device=DEVICE) * 2
    grads = []
    for flag in (True, False, True):
        m.w.requires_grad_(flag)
        m.w.grad = None
        m.reset()
        y = m(x)
        if flag:
            y.sum().backward()
            assert m.w.grad is not None
            grads.append(m.w.grad.clone())
        else:
            assert not y.requires_grad
    torch.testing.assert_close(grads[0], grads[1])
    ref = ParametricLIFNode(init_tau=2.0, surrogate_function=SG, backend="torch", step_mode="m").to(DEVICE)
    ref(x).sum().backward()
    torch.testing.assert_close(grads[0], ref.w.grad, rtol=1e-4, atol=1e-5)


def test_a_module_moved_to_another_dtype_takes_the_checked_path() -> None:
    m = FlexSN(lif_core, 1, 1, 1)
    x = torch.rand(4, 6, device=DEVICE) * 2
    with torch.no_grad():
        m(x)
        m.reset()
        s16 = m(x.half())
        fresh = FlexSN(lif_core, 1, 1, 1)(x.half())
    assert s16.dtype == torch.float16 and len(m.kernel.calls) == 2
    torch.testing.assert_close(s16, fresh, rtol=0, atol=0)
