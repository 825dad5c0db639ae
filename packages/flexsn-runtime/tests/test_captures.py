"""Tensors a core captures (closure cells, module parameters and buffers, globals, object attributes,
a partial's arguments, and lists, dicts and namespaces held by any of these) are lifted into static inputs: the kernels run fused, read the live values, and return their
gradients, equal to autograd through the Python loop."""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any, Callable

import pytest
import torch
from torch import nn

from flexsn_runtime import FlexSNKernel
from flexsn_trace import ScanContract, find_captures, reference_scan
from flexsn_trace.testing import SpikeWithAlpha
from captures_reference import C, N, T, check_fused_with_gradients, follows_a_change, spike

GLOBAL_DECAY = torch.full((C,), 0.3)


def global_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(GLOBAL_DECAY)
    return spike(h - 1.0), h * 0.5


class Neuron(nn.Module):
    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.linspace(-0.5, 0.5, C, device=device))
        self.th = nn.Parameter(torch.ones(N, 1, device=device))
        self.register_buffer("bias", torch.full((C,), 0.1, device=device))
        self.unused = nn.Parameter(torch.ones(7, device=device))  # never read by the step

    def step(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x + self.bias - v) * torch.sigmoid(self.w)
        return spike(h - self.th), h * 0.5

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.step(x, v)


class PlainAttributes(nn.Module):
    """Tensors held as plain attributes (not parameters or buffers), one of them in a submodule."""

    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.th = torch.linspace(0.8, 1.2, C, device=device).requires_grad_()  # a plain attribute, not a buffer
        self.inner = nn.Module()
        self.inner.decay = torch.full((N, 1), 0.3, device=device, requires_grad=True)
        self.cache = torch.ones(7, device=device)  # never read by the step
        self.w = nn.Parameter(torch.tensor(0.2, device=device))

    def forward(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(self.inner.decay + self.w)
        return spike(h - self.th), h * 0.5


class Decay:
    """A callable object holding its parameter as an attribute."""

    def __init__(self, w: torch.Tensor) -> None:
        self.w = w

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(self.w)
        return spike(h - 1.0), h * 0.5


def closure_core(w: torch.Tensor) -> Callable[..., Any]:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(w)
        return spike(h - 1.0), h * 0.5

    return core


def default_core(w: torch.Tensor) -> Callable[..., Any]:
    """The parameter bound as a default argument, a SpikingJelly-style surrogate (``../shared/bench/bench_plif.py``'s core)."""

    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor = w) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(w)
        s = SpikeWithAlpha.apply(h - 1.0, 4.0)
        return s, h * (1.0 - s)

    return core


def kwdefault_core(th: torch.Tensor) -> Callable[..., Any]:
    def core(x: torch.Tensor, v: torch.Tensor, *, th: torch.Tensor = th) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * 0.5
        return spike(h - th), h * 0.5

    return core


GLOBAL_PARAMS: dict[str, torch.Tensor] = {}


def dict_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(GLOBAL_PARAMS["decay"])
    return spike(h - 1.0), h * 0.5


def list_core(ws: list[torch.Tensor]) -> Callable[..., Any]:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(ws[0])
        return spike(h - ws[1]), h * 0.5

    return core


def namespace_core(cfg: SimpleNamespace) -> Callable[..., Any]:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(cfg.neuron.w)
        return spike(h - 1.0), h * 0.5

    return core


def keyword_core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(w)
    return spike(h - 1.0), h * 0.5


#: helpers whose globals are other modules' (written as such modules' code runs): ``fire`` reads its module's
#: ``th`` and calls ``gate`` of a third module, which reads that module's ``gain``
GATE_MODULE: dict[str, Any] = {"torch": torch}
exec("gain = torch.tensor(1.0)\ndef gate(h):\n    return torch.sigmoid(gain * h)\n", GATE_MODULE)
OTHER_MODULE: dict[str, Any] = {"torch": torch, "gate": GATE_MODULE["gate"]}
exec("th = torch.tensor(1.0)\ndef fire(h):\n    return torch.sigmoid(4.0 * (h - th)) * gate(h)\n", OTHER_MODULE)
other_fire = OTHER_MODULE["fire"]


def other_module_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    return other_fire(h), h * 0.5


HELPER_TH = torch.linspace(0.9, 1.1, C)
HELPER_CFG: dict[str, torch.Tensor] = {}


def _fire(h: torch.Tensor) -> torch.Tensor:
    """A helper of this module reading a module global, called by name."""
    return spike(h - HELPER_TH)


def _charge(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """A helper calling another by name (two calls deep), reading a global's entry."""
    return v + (x - v) * torch.sigmoid(HELPER_CFG["decay"])


def helper_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = _charge(x, v)
    return _fire(h), h * 0.5


def closure_helper_core() -> Callable[..., Any]:
    def fire(h: torch.Tensor) -> torch.Tensor:  # a local helper, a closure cell of the core, reading a module global
        return spike(h - HELPER_TH)

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * 0.5
        return fire(h), h * 0.5

    return core


def _cases(device: torch.device) -> dict[str, tuple[Callable[..., Any], list[torch.Tensor], tuple[str, ...]]]:
    w = torch.linspace(-1.0, 1.0, C, device=device).requires_grad_()
    neuron = Neuron(device)
    GLOBAL_DECAY.data = GLOBAL_DECAY.data.to(device)
    GLOBAL_DECAY.requires_grad_()
    a = torch.full((N, 1), 0.2, device=device, requires_grad=True)
    wd = nn.Parameter(torch.tensor(0.3, device=device))
    th = torch.linspace(0.8, 1.2, C, device=device).requires_grad_()
    decay = torch.linspace(-0.3, 0.3, C, device=device).requires_grad_()
    GLOBAL_PARAMS["decay"] = decay
    lw = torch.full((N, 1), 0.4, device=device, requires_grad=True)
    lth = torch.linspace(0.9, 1.1, C, device=device).requires_grad_()
    nw = torch.linspace(-0.6, 0.6, C, device=device).requires_grad_()
    pw = nn.Parameter(torch.tensor(-0.2, device=device))
    global HELPER_TH
    HELPER_TH = torch.linspace(0.9, 1.1, C, device=device).requires_grad_()  # fresh per case: two cases read it
    HELPER_CFG["decay"] = torch.linspace(-0.4, 0.4, C, device=device).requires_grad_()
    plain = PlainAttributes(device)
    OTHER_MODULE["th"] = torch.linspace(0.8, 1.2, C, device=device).requires_grad_()
    GATE_MODULE["gain"] = torch.full((N, 1), 0.7, device=device, requires_grad=True)
    return {
        "other modules' helpers": (other_module_core, [OTHER_MODULE["th"], GATE_MODULE["gain"]],
                                   ("global th (read by fire)", "global gain (read by gate)")),
        "plain module attributes": (plain, [plain.th, plain.inner.decay, plain.w], ("self.w", "self.th", "self.inner.decay")),
        "helper": (helper_core, [HELPER_TH, HELPER_CFG["decay"]],
                   ("global HELPER_CFG['decay'] (read by _charge)", "global HELPER_TH (read by _fire)")),
        "closure helper": (closure_helper_core(), [HELPER_TH], ("global HELPER_TH (read by fire)",)),
        "list": (list_core([lw, lth]), [lw, lth], ("closure ws[0]", "closure ws[1]")),
        "dict": (dict_core, [decay], ("global GLOBAL_PARAMS['decay']",)),
        "namespace": (namespace_core(SimpleNamespace(neuron=SimpleNamespace(w=nw))), [nw], ("closure cfg.neuron.w",)),
        "partial": (functools.partial(keyword_core, w=pw), [pw], ("partial keyword w",)),
        "closure": (closure_core(w), [w], ("closure w",)),
        "method": (neuron.step, [neuron.w, neuron.th], ("self.w", "self.th", "self.bias")),
        "module": (neuron, [neuron.w, neuron.th], ("self.w", "self.th", "self.bias")),
        "global": (global_core, [GLOBAL_DECAY], ("global GLOBAL_DECAY",)),
        "attribute": (Decay(a), [a], ("self.w",)),
        "default": (default_core(wd), [wd], ("default w",)),
        "kwdefault": (kwdefault_core(th), [th], ("default th",)),
    }


@pytest.mark.parametrize(
    "case", ["closure", "method", "module", "global", "attribute", "default", "kwdefault", "list", "dict", "namespace", "partial",
             "helper", "closure helper", "plain module attributes", "other modules' helpers"]
)
def test_captured_tensors_run_fused_with_gradients(case: str, device: torch.device, monkeypatch: pytest.MonkeyPatch) -> None:
    core, params, names = _cases(device)[case]
    check_fused_with_gradients(core, params, names, device, monkeypatch)  # only what the step reads ("unused" is not lifted)


def test_the_kernels_read_the_live_values(device: torch.device) -> None:
    neuron = Neuron(device)
    k = FlexSNKernel(neuron.step, 1, 1, 1)
    x = torch.rand(T, N, C, device=device) * 2
    opt = torch.optim.SGD(neuron.parameters(), lr=0.5)
    y, _ = k(x)
    y.sum().backward()
    opt.step()  # in place: the kernels must see the new values
    neuron.bias = torch.full((C,), -0.4, device=device)  # reassigned: read by name at the next call
    with torch.no_grad():
        y2, _ = k(x)
        want, _ = reference_scan(neuron.step, ScanContract(1, 1, 1, (x,), ()))
    torch.testing.assert_close(y2, want)
    assert not torch.allclose(y2, y.detach())


def test_a_capture_the_kernels_cannot_read_falls_back_naming_it(device: torch.device) -> None:
    k = FlexSNKernel(closure_core(torch.ones(N, 1, 2, device=device)), 1, 1, 1)  # [3, 1, 2] beside steps [3, 4]
    x = torch.rand(T, N, C, device=device)
    with pytest.warns(RuntimeWarning, match=r"the captured tensor closure w of shape \(3, 1, 2\) does not broadcast"):
        with pytest.raises(RuntimeError):  # then the loop runs the core, and PyTorch refuses the shapes
            k(x)


def test_find_captures_takes_only_floating_tensors() -> None:
    ints = torch.arange(3)
    flt = torch.ones(3)

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x + flt + ints, v

    found = find_captures(core)
    assert found.names() == ("closure flt",)
    lifted = found.lifted()
    out, _ = lifted(torch.zeros(3), torch.zeros(3), torch.full((3,), 2.0))
    torch.testing.assert_close(out, torch.full((3,), 2.0) + ints)  # the lifted value replaced the captured one


def test_a_default_the_call_fills_is_not_lifted(device: torch.device) -> None:
    unused = torch.full((C,), 5.0, device=device, requires_grad=True)
    w = torch.linspace(-1.0, 1.0, C, device=device).requires_grad_()

    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor = unused) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(w)
        return spike(h - 1.0), h * 0.5

    k = FlexSNKernel(core, 1, 1, 1, num_static=1)
    assert k.captures.names() == ()  # the static input fills w: the default is never read
    x = torch.rand(T, N, C, device=device) * 2
    y, _ = k(x, w)
    y.sum().backward()
    want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), (), (w,)))
    torch.testing.assert_close(y, want)
    assert unused.grad is None and w.grad is not None


def test_a_reassigned_default_is_read_at_the_next_call(device: torch.device) -> None:
    core = default_core(torch.tensor(0.3, device=device))
    k = FlexSNKernel(core, 1, 1, 1)
    x = torch.rand(T, N, C, device=device) * 2
    with torch.no_grad():
        before, _ = k(x)
        core.__defaults__ = (torch.tensor(2.0, device=device),)  # what the eager loop now reads too
        y, v = k(x)
        want, want_v = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))
    assert want.any(), "the new default must let the neurons fire"
    torch.testing.assert_close(y, want)
    torch.testing.assert_close(v, want_v)
    assert not torch.allclose(y, before)  # the old default's result differs: the comparisons above can fail


def test_a_tensor_in_a_container_is_read_live(device: torch.device) -> None:
    """An in-place change and a new tensor put in its place are both seen, as the eager loop sees them."""
    ws = [torch.full((N, 1), 0.4, device=device), torch.ones(C, device=device)]
    core = list_core(ws)
    k = FlexSNKernel(core, 1, 1, 1)
    x = torch.rand(T, N, C, device=device) * 2
    with torch.no_grad():
        before, _ = k(x)
        ws[0].fill_(-1.0)
        ws[1] = torch.full((C,), 0.3, device=device)
        y, _ = k(x)
        want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))
    torch.testing.assert_close(y, want)
    assert not torch.allclose(y, before)
    assert ws[1].shape == (C,) and float(ws[0][0, 0]) == -1.0  # binding for the trace left the user's list alone


def test_a_helpers_reassigned_global_is_read_at_the_next_call(device: torch.device) -> None:
    global HELPER_TH
    saved = HELPER_TH

    def change() -> None:
        global HELPER_TH
        HELPER_TH = torch.full((C,), 0.2, device=device)
        HELPER_CFG["decay"].fill_(1.5)

    try:
        HELPER_TH = torch.linspace(0.9, 1.1, C, device=device)
        HELPER_CFG["decay"] = torch.zeros(C, device=device)
        follows_a_change(helper_core, change, device)
    finally:
        HELPER_TH = saved


def test_other_modules_globals_are_read_at_the_next_call_and_left_alone(device: torch.device) -> None:
    """The globals of helpers in other modules, two modules deep: a reassignment and an in-place change are seen;
    binding for the trace rebuilt the helpers on copies, never on the modules themselves."""
    OTHER_MODULE["th"] = torch.linspace(0.8, 1.2, C, device=device)
    GATE_MODULE["gain"] = torch.ones(N, 1, device=device)
    fire, gate = OTHER_MODULE["fire"], OTHER_MODULE["gate"]

    def change() -> None:
        OTHER_MODULE["th"] = torch.full((C,), 0.3, device=device)
        GATE_MODULE["gain"].fill_(-2.0)

    follows_a_change(other_module_core, change, device)
    assert OTHER_MODULE["fire"] is fire and OTHER_MODULE["gate"] is gate and other_fire is fire
    assert fire.__globals__ is OTHER_MODULE and gate.__globals__ is GATE_MODULE


def test_a_captured_place_that_now_holds_a_number_runs_the_loop(device: torch.device) -> None:
    ws = [torch.full((N, 1), 0.4, device=device), torch.ones(C, device=device)]
    core = list_core(ws)
    k = FlexSNKernel(core, 1, 1, 1)
    x = torch.rand(T, N, C, device=device) * 2
    ws[1] = 0.3  # what the eager loop reads as a number
    with torch.no_grad(), pytest.warns(RuntimeWarning, match=r"the captured tensor closure ws\[1\] is a float, not a tensor"):
        y, _ = k(x)
    want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))
    torch.testing.assert_close(y, want)
