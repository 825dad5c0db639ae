#!/usr/bin/env python3
"""``tools/bench.py``'s neurons and implementations: the LIF and 2x2 cores, the eager loop, FlexSN's module.

Split from ``tools/bench.py`` (one module per concern, each under 500 lines). The cores read the
spike function :func:`set_surrogate` selects; :func:`make_triton_impl` builds FlexSN's callable
(``flexsn_nn.FlexSN``, checked against :func:`make_loop`, else ``flexsn_runtime.FlexSNKernel``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch

Tensor = torch.Tensor
ImplFn = Callable[..., Sequence[Tensor]]

TAU = 2.0
V_TH = 1.0
ALPHA = 4.0
RHO = 0.9
BETA = 0.2


class SigmoidSurrogate(torch.autograd.Function):
    """Heaviside spike with a sigmoid surrogate gradient (``alpha = 4``)."""

    @staticmethod
    def forward(x: Tensor) -> Tensor:  # type: ignore[override, unused-ignore]
        """``(x >= 0)`` in ``x``'s dtype."""
        return (x >= 0).to(x.dtype)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        """Save the input for the surrogate gradient."""
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:  # type: ignore[override, unused-ignore]
        """``grad * alpha * sigmoid(alpha x) * (1 - sigmoid(alpha x))``."""
        (x,) = ctx.saved_tensors
        sg = torch.sigmoid(ALPHA * x)
        return grad * ALPHA * sg * (1.0 - sg)


def _own_spike(x: Tensor) -> Tensor:
    out: Tensor = SigmoidSurrogate.apply(x)  # type: ignore[no-untyped-call, unused-ignore]
    return out


_spike: Callable[[Tensor], Tensor] = _own_spike
_surrogate_name = "own"


def _nn_spike_fn() -> Callable[[Tensor], Tensor] | None:
    """``flexsn_nn.surrogate.Sigmoid`` as a callable spike function, if it exists and behaves."""
    try:
        from flexsn_nn import surrogate as sur  # type: ignore[attr-defined, unused-ignore]
    except Exception:
        return None
    cls = getattr(sur, "Sigmoid", None)
    if cls is None:
        return None
    candidates: list[Callable[[Tensor], Tensor]] = []
    if isinstance(cls, type) and issubclass(cls, torch.autograd.Function):
        candidates.append(lambda x: cls.apply(x))  # type: ignore[no-untyped-call, no-any-return, unused-ignore]
    else:
        for ctor_args in ((ALPHA,), ()):
            try:
                inst = cls(*ctor_args)
            except Exception:
                continue
            if callable(inst):
                candidates.append(inst)
                break
        if callable(cls) and not isinstance(cls, type):
            candidates.append(cls)
    for fn in candidates:
        try:
            x = torch.tensor([-1.0, -0.1, 0.0, 0.1, 1.0], requires_grad=True)
            y = fn(x)
            if not torch.equal(y.detach(), (x.detach() >= 0).float()):
                continue
            torch.autograd.backward([y.sum()])
            g = x.grad
            if g is None or not bool(torch.isfinite(g).all()) or float(g.abs().sum()) <= 0:
                continue
            return fn
        except Exception:
            continue
    return None


def set_surrogate(name: str) -> str:
    """Select the spike function the cores use: ``"own"``, ``"nn"`` or ``"auto"``.

    Returns the name actually in use (``"auto"`` resolves to ``"nn"`` when
    ``flexsn_nn.surrogate.Sigmoid`` is importable and sane, else ``"own"``).
    """
    global _spike, _surrogate_name
    fn = _nn_spike_fn() if name in ("auto", "nn") else None
    if fn is not None:
        _spike, _surrogate_name = fn, "nn"
    else:
        if name == "nn":
            print("note: flexsn_nn.surrogate.Sigmoid is not usable; using the built-in surrogate", flush=True)
        _spike, _surrogate_name = _own_spike, "own"
    return _surrogate_name


def lif_core(x: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
    """LIF step, hard reset to 0: ``h = v + (x - v)/tau; s = H(h - v_th); v = h (1 - s)``."""
    h = v + (x - v) / TAU
    s = _spike(h - V_TH)
    return s, h * (1.0 - s)


def alif_core(x: Tensor, g: Tensor, v: Tensor, a: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Adaptive-threshold LIF step (2 inputs, 2 states, 2 outputs).

    Inputs: current ``x`` and adaptation gate ``g``; states: membrane ``v``
    and threshold adaptation ``a``; outputs: spikes ``s`` and the pre-reset
    membrane ``h``.
    """
    h = v + (x - v) / TAU
    s = _spike(h - (V_TH + a))
    v_new = h * (1.0 - s)
    a_new = RHO * a + BETA * torch.sigmoid(g) * s
    return s, h, v_new, a_new


@dataclass(frozen=True)
class Neuron:
    """A benchmarked core and its arity."""

    name: str
    core: Callable[..., tuple[Tensor, ...]]
    ni: int
    ns: int
    no: int


NEURONS: dict[str, Neuron] = {
    "lif": Neuron("lif", lif_core, 1, 1, 1),
    "2x2": Neuron("2x2", alif_core, 2, 2, 2),
}


def case_parts(case: str) -> tuple[Neuron, bool]:
    """``"lif-training"`` -> (the LIF neuron, training=True)."""
    name, mode = case.split("-", 1)
    return NEURONS[name], mode == "training"


# --------------------------------------------------------------------------- impls


def make_loop(neuron: Neuron) -> ImplFn:
    """The eager Python loop over ``T`` calling ``neuron.core``: ``(*xs) -> (*output_seqs, *final_states)``."""
    core, ni, ns, no = neuron.core, neuron.ni, neuron.ns, neuron.no

    def loop(*xs: Tensor) -> tuple[Tensor, ...]:
        T = xs[0].shape[0]
        states = [torch.zeros_like(xs[0][0]) for _ in range(ns)]
        outs: list[list[Tensor]] = [[] for _ in range(no)]
        for t in range(T):
            res = core(*(x[t] for x in xs[:ni]), *states)
            for k in range(no):
                outs[k].append(res[k])
            states = list(res[no:])
        return (*(torch.stack(o) for o in outs), *states)

    return loop


def _as_tuple(res: Any) -> tuple[Tensor, ...]:
    return (res,) if isinstance(res, torch.Tensor) else tuple(res)


@dataclass
class TritonImpl:
    """Our backend for one neuron: the callable and how it was built."""

    fn: ImplFn
    api: str
    uses_kernels: Callable[[Sequence[Tensor]], bool]
    build_s: float
    notes: list[str] = field(default_factory=list)


def _check_close(a: Sequence[Tensor], b: Sequence[Tensor], n: int) -> str | None:
    for i in range(n):
        x, y = a[i].float(), b[i].float()
        if x.shape != y.shape:
            return f"output {i} shape {tuple(x.shape)} != {tuple(y.shape)}"
        bad = float((x - y).abs().gt(1e-3 + 1e-3 * y.abs()).float().mean())
        if bad > 0.01:
            return f"output {i} differs from the torch loop in {bad:.1%} of elements"
    return None


def _nn_impl(neuron: Neuron, device: torch.device, check: bool = True) -> TritonImpl:
    """``flexsn_nn.FlexSN(..., backend="triton", store_state_seqs=False)``, checked against the loop if ``check``."""
    from flexsn_nn import FlexSN  # type: ignore[attr-defined, unused-ignore]

    t0 = time.perf_counter()
    try:
        mod = FlexSN(neuron.core, neuron.ni, neuron.ns, neuron.no, backend="triton", store_state_seqs=False, step_mode="m")
    except TypeError:
        mod = FlexSN(neuron.core, neuron.ni, neuron.ns, neuron.no, backend="triton", store_state_seqs=False)
    mod = mod.to(device)
    build_s = time.perf_counter() - t0
    reset = getattr(mod, "reset", None)

    def fn(*xs: Tensor) -> tuple[Tensor, ...]:
        if callable(reset):
            reset()
        return _as_tuple(mod(*xs))

    def uses(xs: Sequence[Tensor]) -> bool:
        probe = getattr(mod, "uses_kernels", None)
        if not callable(probe):
            probe = getattr(getattr(mod, "kernel", None), "uses_kernels", None)
        if callable(probe):
            return bool(probe(*xs))
        return xs[0].device.type == "cuda" or os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")

    if not check:
        return TritonImpl(fn, "flexsn_nn.FlexSN", uses, build_s)
    # Numerical check (forward and input gradients) against the eager loop.
    gen = torch.Generator(device="cpu").manual_seed(0)
    xs = [(torch.randn(3, 64, generator=gen) * 2).to(device).requires_grad_() for _ in range(neuron.ni)]
    xr = [x.detach().clone().requires_grad_() for x in xs]
    out = fn(*xs)
    ref = make_loop(neuron)(*xr)
    if len(out) < neuron.no:
        raise RuntimeError(f"FlexSN returned {len(out)} tensors, expected at least {neuron.no}")
    why = _check_close(out, ref, neuron.no)
    if why:
        raise RuntimeError(why)
    torch.autograd.backward(list(out[: neuron.no]), [torch.ones_like(o) for o in out[: neuron.no]])
    torch.autograd.backward(list(ref[: neuron.no]), [torch.ones_like(o) for o in ref[: neuron.no]])
    why = _check_close([x.grad for x in xs if x.grad is not None], [x.grad for x in xr if x.grad is not None], neuron.ni)
    if why:
        raise RuntimeError("gradients: " + why)
    return TritonImpl(fn, "flexsn_nn.FlexSN", uses, build_s)


def make_triton_impl(neuron: Neuron, device: torch.device, api: str = "auto", check: bool = True) -> TritonImpl:
    """Our backend: ``flexsn_nn.FlexSN`` (api ``nn``/``auto`` when it works) else ``FlexSNKernel.final_state``.

    ``check``: run ``flexsn_nn.FlexSN`` once against the torch loop
    (forward and gradients) and fall back to ``FlexSNKernel`` if it differs
    (off for startup timing).
    """
    notes: list[str] = []
    if api in ("auto", "nn"):
        try:
            impl = _nn_impl(neuron, device, check)
            return impl
        except ImportError as exc:
            notes.append(f"flexsn_nn not usable ({exc}); FlexSNKernel used")
        except Exception as exc:  # noqa: BLE001 - any failure of the layer under construction
            notes.append(f"flexsn_nn.FlexSN failed ({type(exc).__name__}: {exc}); FlexSNKernel used")
    from flexsn_runtime import FlexSNKernel

    t0 = time.perf_counter()
    k = FlexSNKernel(neuron.core, neuron.ni, neuron.ns, neuron.no)
    build_s = time.perf_counter() - t0
    if k.handle is None:
        notes.append(f"FlexSNKernel fell back to the eager loop: {k.fallback_reason}")

    def fn(*xs: Tensor) -> tuple[Tensor, ...]:
        return k.final_state(*xs)

    return TritonImpl(fn, "FlexSNKernel.final_state", lambda xs: k.uses_kernels(*xs), build_s, notes)
