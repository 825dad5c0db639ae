"""The call cache of ``FlexSNKernel`` (#14): what a call signature holds, when no signature is made,
and that cached calls (functional form, captured parameters) equal the loop."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import flexsn_runtime.call_cache as call_cache_module
import flexsn_runtime.flexsn_kernel as flexsn_kernel_module
from flexsn_runtime import FlexSNKernel
from flexsn_runtime.call_cache import CallCache, call_key, interpreted, tensor_signature
from flexsn_trace.testing import count_calls, lif_core, unrolled_loop


def counting_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    return count_calls(monkeypatch, flexsn_kernel_module, "check_scan_args")


def test_the_key_holds_shape_dtype_device_requires_grad_grad_mode_and_variant(device: torch.device) -> None:
    x = torch.rand(4, 3, device=device)
    base = call_key((x,), (), (), True)
    assert base is not None
    variants = [
        call_key((torch.rand(4, 5, device=device),), (), (), True),
        call_key((x.half(),), (), (), True),
        call_key((x.clone().requires_grad_(),), (), (), True),
        call_key((x,), (torch.zeros(3, device=device),), (), True),
        call_key((x,), (), (torch.zeros(3, device=device),), True),
        call_key((x,), (), (), False),
        call_key((x, x), (), (), True),
    ]
    with torch.no_grad():
        variants.append(call_key((x,), (), (), True))
    assert len({base, *variants}) == len(variants) + 1
    assert call_key((x.clone(),), (), (), True) == base  # other values, same signature


@pytest.mark.parametrize("grad", [False, True])
def test_the_one_sequence_key_is_the_general_form(device: torch.device, grad: bool) -> None:
    """``call_key`` builds the usual one-sequence call's key inline: it must be the key the general form gives, or a
    call recorded one way would miss the other (and take the checked path every time)."""
    x = torch.rand(4, 3, device=device).requires_grad_(grad)
    with torch.set_grad_enabled(grad):
        general = (True, grad, interpreted(x.device), tensor_signature([x]), (), ())
        assert call_key((x,), (), (), True) == general
        assert hash(call_key([x], [], [], True)) == hash(general)


def test_no_key_for_subclasses_non_tensors_and_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    class Sub(torch.Tensor):
        pass

    x = torch.rand(4, 3)
    assert call_key((x.as_subclass(Sub),), (), (), True) is None
    assert call_key((x,), (), ([1.0],), True) is None
    assert call_key((), (), (), True) is None
    assert call_key((x,), (), (nn.Parameter(torch.ones(3)),), True) is not None  # parameters are plain
    monkeypatch.setattr(call_cache_module, "_compiling", lambda: True)
    assert call_key((x,), (), (), True) is None


def test_the_cache_is_bounded() -> None:
    cache = CallCache(size=3)
    for k in range(7):
        cache.record(k, lambda: None)
        assert len(cache) <= 3
    assert 6 in cache


def test_functional_calls_are_checked_once_per_signature(device: torch.device, monkeypatch: pytest.MonkeyPatch) -> None:
    checks = counting_checks(monkeypatch)
    k = FlexSNKernel(lif_core, 1, 1, 1)
    x = torch.rand(5, 2, 3, device=device) * 2
    v0 = torch.rand(2, 3, device=device)
    for _ in range(3):
        s, vs = k(x)
        (ref_s,), (ref_vs,) = unrolled_loop(lif_core, 1, [x], [torch.zeros_like(v0)])
        torch.testing.assert_close(s, ref_s)
        torch.testing.assert_close(vs, ref_vs)
        s, vf = k.final_state(x, v0)
        (ref_s,), (ref_vs,) = unrolled_loop(lif_core, 1, [x], [v0])
        torch.testing.assert_close(s, ref_s)
        torch.testing.assert_close(vf, ref_vs[-1])
    assert len(checks) == 2 and len(k.calls) == 2
    with pytest.raises(ValueError):
        k(x, v0, v0)  # wrong arity: never cached, still checked


class Decay(nn.Module):
    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.linspace(-0.5, 0.5, 3, device=device))

    def step(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(self.w)
        return torch.sigmoid(4.0 * (h - 1.0)), h * 0.5


def test_a_captured_parameter_is_read_live_and_its_signature_counts(device: torch.device) -> None:
    n = Decay(device)
    k = FlexSNKernel(n.step, 1, 1, 1)
    assert len(k.captures) == 1
    x = torch.rand(4, 2, 3, device=device) * 2
    for value in (0.0, 1.0):
        with torch.no_grad():
            n.w.fill_(value)
        for grad in (False, True):
            n.w.requires_grad_(grad)
            n.w.grad = None
            s, _ = k.final_state(x)
            (ref_s,), _ = unrolled_loop(n.step, 1, [x], [torch.zeros_like(x[0])])
            torch.testing.assert_close(s, ref_s)
            assert s.requires_grad is grad
            if grad:
                s.sum().backward()
                w_grad = n.w.grad
                n.w.grad = None
                unrolled_loop(n.step, 1, [x], [torch.zeros_like(x[0])])[0][0].sum().backward()
                torch.testing.assert_close(w_grad, n.w.grad, rtol=1e-4, atol=1e-5)
    assert len(k.calls) == 2  # requires_grad off / on; the values are not part of the signature
