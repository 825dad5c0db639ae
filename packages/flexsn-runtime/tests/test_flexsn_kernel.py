"""``FlexSNKernel`` end to end: results against the loop, eager fallbacks
with one warning naming the reason, and argument errors."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch

from flexsn_runtime import KERNEL_DTYPES, FlexSNKernel, eager_loop, validate_scan_args
from flexsn_trace.testing import unrolled_loop

T, SHAPE = 7, (3, 25)  # NCL = 75


def leaves(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    return [t.detach().clone().requires_grad_() for t in tensors]


@pytest.mark.parametrize("name", ["lif", "two"])
def test_inference_training_and_final_state(name: str, kernels: dict[str, Any], ref: Any,
                                            device: torch.device) -> None:
    k = kernels[name]
    c = ref.CORES[name]
    assert k.uses_kernels(torch.zeros(1, device=device))
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    want_out, want_seq = ref.loop(c, xs, s0)
    with torch.no_grad():
        got = k(*xs, *s0)
    for g, w in zip(got, [*want_out, *want_seq]):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    with torch.no_grad():
        got = k.final_state(*xs, *s0)
    for g, w in zip(got, [*want_out, *(s[-1] for s in want_seq)]):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)

    ls = leaves([*xs, *s0])
    out = k(*ls)
    gen = torch.Generator().manual_seed(8)
    grads = [torch.randn(o.shape, generator=gen).to(device) for o in out]
    torch.autograd.backward(list(out), grads)
    for k_, (leaf, w) in enumerate(zip(ls, ref.loop_grads(c, xs, s0, grads))):
        torch.testing.assert_close(leaf.grad, w, rtol=1e-4, atol=1e-5, msg=lambda m: f"gradient {k_}: {m}")


def test_broadcast_inputs_and_states_run_fused_on_copies(kernels: dict[str, Any], ref: Any, device: torch.device) -> None:
    """Per-step shapes [1, 25] and [25] beside [3, 25] run fused, equal to the loop on expanded tensors."""
    k, c = kernels["two"], ref.CORES["two"]
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    small = [xs[0], xs[1][:, :1], s0[0], s0[1][0]]
    full = [xs[0], xs[1][:, :1].expand(T, *SHAPE), s0[0], s0[1][0].expand(SHAPE)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # fused: no fallback warning
        with torch.no_grad():
            got = k(*small)
    want_out, want_seq = ref.loop(c, full[:2], full[2:])
    for g, w in zip(got, [*want_out, *want_seq]):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    assert k.shape_fits[((3, 25), (1, 25), (3, 25), (25,))] == SHAPE
    ls, lf = leaves(small), leaves(full)
    grads = [torch.ones(T, *SHAPE, device=device)] * 4
    torch.autograd.backward(list(k(*ls)), grads)
    outs, seqs = ref.loop(c, lf[:2], lf[2:])
    torch.autograd.backward([*outs, *seqs], grads)  # leaves of full shape: their gradients summed to the small shapes
    for a, b in zip(ls, lf):
        assert a.grad is not None and b.grad is not None
        torch.testing.assert_close(a.grad, b.grad.sum_to_size(a.shape), rtol=1e-4, atol=1e-4)


def test_zero_initial_states_by_default(kernels: dict[str, Any], ref: Any, device: torch.device) -> None:
    c = ref.CORES["two"]
    xs, _ = ref.make_data(c, T, SHAPE, device)
    zeros = [torch.zeros(SHAPE, device=device)] * 2
    with torch.no_grad():
        for a, b in zip(kernels["two"](*xs), kernels["two"](*xs, *zeros)):
            torch.testing.assert_close(a, b)


def test_t0(kernels: dict[str, Any], ref: Any, device: torch.device) -> None:
    k = kernels["lif"]
    x = torch.empty(0, *SHAPE, device=device)
    v = torch.randn(SHAPE, device=device)
    s, vs = k(x, v)
    assert s.shape == vs.shape == (0, *SHAPE)
    s, vf = k.final_state(x, v)
    assert s.shape == (0, *SHAPE)
    torch.testing.assert_close(vf, v)


def test_output_dtypes_are_what_a_call_stores() -> None:
    """Floating results in the inputs' dtype, a bool spike as bool: what a call returns, asked without one."""
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        spike = h >= 1.0
        return spike, h.half(), h * ~spike

    k = FlexSNKernel(core, 1, 1, 2)
    x = torch.rand(3, 4)
    assert k.output_dtypes(torch.float32) == tuple(y.dtype for y in k(x, torch.zeros(4))[:2]) == (torch.bool, torch.float32)
    with pytest.raises(TypeError, match="floating torch.dtype"):
        k.output_dtypes(torch.int32)


def test_t0_of_a_call_the_kernels_leave_to_the_loop_has_the_loops_shapes(device: torch.device) -> None:
    """A static input wider than a step sends the call to the eager loop, whose outputs take its shape; a
    ``T = 0`` call (no step runs) returns that shape too, from a step on fake tensors (before: input 0's)."""
    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * w
        return h * 2.0, h

    k = FlexSNKernel(core, 1, 1, 1, num_static=1)
    w, v = torch.rand(2, 3, device=device), torch.zeros(3, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback's warning
        full = k(torch.rand(4, 3, device=device), v, w)[0]
        for run in (k, k.final_state):
            y = run(torch.rand(0, 3, device=device), v, w)[0]
            assert full.shape == (4, 2, 3) and y.shape == (0, 2, 3) and y.dtype == full.dtype
    assert eager_loop(core, 1, 1, 1, [torch.rand(0, 3, device=device)], [v], static_inputs=[w])[0].shape == (0, 2, 3)


def test_eager_loop_reference(ref: Any, device: torch.device) -> None:
    """flexsn_runtime.eager_loop, the fallback path, against the loop written in these tests."""
    c = ref.CORES["two"]
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    want_out, want_seq = ref.loop(c, xs, s0)
    got = eager_loop(c.fn, c.ni, c.ns, c.no, xs, s0)
    for g, w in zip(got, [*want_out, *want_seq]):
        torch.testing.assert_close(g, w)
    got = eager_loop(c.fn, c.ni, c.ns, c.no, xs, s0, store_state_seqs=False)
    for g, w in zip(got, [*want_out, *(s[-1] for s in want_seq)]):
        torch.testing.assert_close(g, w)
    empty = [x[:0] for x in xs]
    got = eager_loop(c.fn, c.ni, c.ns, c.no, empty, s0)
    assert all(g.shape == (0, *SHAPE) for g in got)


# ---------------------------------------------------------------- fallbacks


def cumsum_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = 0.5 * v + torch.cumsum(x, 0)  # not elementwise: no lowering
    return torch.sigmoid(h), h


def test_unsupported_op_warns_once_naming_it_and_falls_back(device: torch.device) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k = FlexSNKernel(cumsum_core, 1, 1, 1)
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1, messages
    assert "aten.cumsum" in messages[0] and "eager" in messages[0]
    assert k.handle is None and not k.uses_kernels(torch.zeros(1, device=device))
    assert "aten.cumsum" in repr(k.fallback_reason)

    x = torch.randn(T, 6, device=device)
    v = torch.randn(6, device=device)
    xr, vr = leaves([x, v])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y, vs = k(xr, vr)
        k.final_state(x, v)
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], "warned again on use"
    h = v
    ys, hs = [], []
    for t in range(T):
        y_t, h = cumsum_core(x[t], h)
        ys.append(y_t)
        hs.append(h)
    torch.testing.assert_close(y, torch.stack(ys))
    torch.testing.assert_close(vs, torch.stack(hs))
    y.sum().backward()  # the fallback is differentiable
    assert xr.grad is not None and vr.grad is not None


def test_unsupported_op_in_the_backward_only(device: torch.device) -> None:
    class CumGrad(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
            return x * 2.0

        @staticmethod
        def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
            return torch.cumsum(g, 0)

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = CumGrad.apply(x) + 0.5 * v
        return h, h

    k = FlexSNKernel(core, 1, 1, 1)
    x = torch.randn(4, 5, device=device)
    with torch.no_grad():
        out, _ = k(x)
    torch.testing.assert_close(out[0], 2.0 * x[0])
    xg = x.clone().requires_grad_()
    with pytest.warns(RuntimeWarning, match=r"aten\.cumsum.*backward pass"):  # told when gradients are first needed
        out, _ = k(xg)
    out.sum().backward()  # the eager loop, with the core's own backward
    xr = x.clone().requires_grad_()
    (ref,), _ = unrolled_loop(core, 1, [xr], [torch.zeros(5, device=device)])
    ref.sum().backward()
    torch.testing.assert_close(xg.grad, xr.grad)


def test_cpu_without_interpreter_warns_and_falls_back(ref: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    k = FlexSNKernel(ref.lif, 1, 1, 1)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    x = torch.randn(T, 9) + 0.5
    v = torch.randn(9)
    assert not k.uses_kernels(x)
    with pytest.warns(RuntimeWarning, match="TRITON_INTERPRET=1") as record:
        s, vs = k(x, v)
    assert any("cpu" in str(w.message) for w in record)
    (ws,), (wv,) = ref.loop(ref.CORES["lif"], [x], [v])
    torch.testing.assert_close(s, ws)
    torch.testing.assert_close(vs, wv)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k(x, v)  # warned once per kernel and reason
        s2, vf = k.final_state(x, v)
    torch.testing.assert_close(vf, wv[-1])


def test_unsupported_dtype_falls_back(ref: Any, device: torch.device) -> None:
    assert torch.float64 not in KERNEL_DTYPES
    k = FlexSNKernel(ref.lif, 1, 1, 1)
    x = torch.randn(T, 9, dtype=torch.float64, device=device)
    v = torch.randn(9, dtype=torch.float64, device=device)
    with pytest.warns(RuntimeWarning, match="dtype torch.float64"):
        s, vs = k(x, v)
    assert s.dtype == torch.float64
    (ws,), (wv,) = ref.loop(ref.CORES["lif"], [x], [v])
    torch.testing.assert_close(vs, wv)


def test_core_without_differentiable_output_uses_inference_kernels(device: torch.device) -> None:
    def counter(x: torch.Tensor, n: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        fired = (x > 0).float()
        return fired, (n + fired).detach()

    k = FlexSNKernel(counter, 1, 1, 1)
    assert k.handle is not None and not k.has_training_kernels
    x = torch.randn(T, 10, device=device).requires_grad_()
    fired, n = k(x)
    torch.testing.assert_close(n[-1], (x.detach() > 0).float().sum(0))
    assert not fired.requires_grad


# ---------------------------------------------------------------- errors


@pytest.fixture(scope="module")
def k2(ref: Any) -> FlexSNKernel:
    c = ref.CORES["two"]
    return FlexSNKernel(c.fn, c.ni, c.ns, c.no)


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda d: [torch.zeros(3, 4, device=d)], ValueError,
         r"expected 2 input sequence\(s\) followed by 2 initial state\(s\), got 1 argument\(s\)"),
        (lambda d: [torch.zeros(3, 4, device=d)] * 5, ValueError, "got 5 argument"),
        (lambda d: [torch.zeros(3, 4, device=d), torch.zeros(2, 4, device=d)], ValueError,
         "share the time dimension T=3; input 1 has shape"),
        (lambda d: [torch.zeros(3, 4, device=d), torch.zeros(3, 5, device=d)], ValueError, "per-step shape"),
        (lambda d: [torch.zeros(3, 4, device=d), 1.0], TypeError,
         r"argument 1 \(input sequence\) must be a torch.Tensor, got float"),
        (lambda d: [torch.zeros(3, 4, device=d), torch.zeros(3, 4, device=d), [0.0] * 4, torch.zeros(4, device=d)],
         TypeError, r"argument 2 \(initial state\) must be a torch.Tensor, got list"),
        (lambda d: [torch.zeros(3, 4, device=d), torch.zeros(3, 4, device="meta")], ValueError, "one device"),
        (lambda d: [torch.zeros(3, 4, device=d), torch.zeros(3, 4, device=d, dtype=torch.float16)], TypeError,
         "share one dtype"),
        (lambda d: [torch.zeros(3, 4, device=d), torch.zeros(3, 4, device=d), torch.zeros(5, device=d),
                    torch.zeros(4, device=d)], ValueError, r"initial state 0 must have the per-step shape \(4,\)"),
        (lambda d: [torch.zeros((), device=d), torch.zeros((), device=d)], ValueError, "0-d"),
    ],
    ids=["too-few", "too-many", "different-T", "different-shape", "non-tensor-input", "non-tensor-state",
         "meta-device", "mixed-dtypes", "state-shape", "0-d"],
)
def test_argument_errors(make: Any, error: type[Exception], message: str, k2: FlexSNKernel,
                         device: torch.device) -> None:
    args = make(device)
    with pytest.raises(error, match=message):
        k2(*args)
    with pytest.raises(error, match=message):
        k2.final_state(*args)


def test_validate_scan_args_can_require_states() -> None:
    x = torch.zeros(3, 4)
    seqs, states = validate_scan_args([x], 1, 1)
    assert states is None and seqs[0] is x
    with pytest.raises(ValueError, match="followed by 1 initial state"):
        validate_scan_args([x], 1, 1, allow_missing_states=False)


@pytest.mark.parametrize(
    "core, counts, error, message",
    [
        (lambda x, v: (x, v, x + v), (1, 1, 1), ValueError, "returned 3 values, expected num_outputs \\+ num_states = 2"),
        (lambda x, v: x + v, (1, 1, 1), ValueError, "returned 1 values"),
        (lambda x, v: (x, 1.0), (1, 1, 1), ValueError, "must return a tensor or a list/tuple of tensors"),
        (lambda x, v: (x, v), (0, 2, 0), ValueError, "at least one input sequence"),
        (lambda x, v: (x, v), (1, 1, -1), ValueError, "num_outputs must be >= 0"),
        (lambda x, v: (x, v), (1, 1, 1.0), TypeError, "num_outputs must be an int"),
        ("not callable", (1, 1, 1), TypeError, "core must be callable"),
    ],
    ids=["too-many-returns", "too-few-returns", "non-tensor-return", "no-inputs", "negative", "float-count",
         "not-callable"],
)
def test_construction_errors(core: Any, counts: tuple[Any, ...], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        FlexSNKernel(core, *counts)


def test_example_inputs_of_the_wrong_count() -> None:
    with pytest.raises(ValueError, match="example_inputs must hold num_inputs \\+ num_states = 2 tensors"):
        FlexSNKernel(lambda x, v: (x, v), 1, 1, 1, example_inputs=[torch.zeros(4)])


def test_repr(k2: FlexSNKernel) -> None:
    assert "num_inputs=2, num_states=2, num_outputs=2" in repr(k2) and f"handle={k2.handle}" in repr(k2)
