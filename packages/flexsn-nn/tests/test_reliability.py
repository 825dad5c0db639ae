"""No silent wrong answers: values read through modules, shape-dependent cores, pickling and loading,
retained graphs, higher-order gradients and public ops fed tensors the kernels cannot take.

Each test compares with the eager loop (autograd through it) or checks for a clear error.
"""

from __future__ import annotations

import copy
import gc
import io
import pickle
import re
import subprocess
import sys
import textwrap
import types
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch

from flexsn_nn import FlexSN
from flexsn_runtime import flexsn_inference_op
from flexsn_trace import ScanContract, reference_scan
from flexsn_trace.testing import Spike, lif_core
from nn_reference import final_state_loop

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
SRC = [str(p) for p in sorted(Path(__file__).resolve().parents[2].glob("*/src"))]


def test_a_value_read_through_a_module_is_part_of_the_cache_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(tmp_path))
    cfg = types.ModuleType("cfg_for_test")
    cfg.TAU = 2.0  # type: ignore[attr-defined]

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / cfg.TAU  # type: ignore[attr-defined]
        return h, h

    x = torch.full((3, 5), 1.0, device=DEVICE)
    first = FlexSN(core, 1, 1, 1)(x)
    cfg.TAU = 4.0  # type: ignore[attr-defined]
    second = FlexSN(core, 1, 1, 1)(x)  # same code, same names: a new value must give a new kernel
    torch.testing.assert_close(second, final_state_loop(core, x)[0])
    assert not torch.allclose(first, second)


def test_a_shape_dependent_core_falls_back_with_a_warning_and_stays_right() -> None:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + x / x.shape[-1]
        return h, h

    with pytest.warns(RuntimeWarning, match=r"shape.*x\.shape\[-1\]"):
        m = FlexSN(core, 1, 1, 1)
    x = torch.ones(4, 16, device=DEVICE)
    assert not m.uses_kernels(x)
    torch.testing.assert_close(m(x), final_state_loop(core, x)[0])  # 0.0625 per step, not 0.25


class _SpikePerWidth(Spike):
    """:class:`Spike` whose backward (only) reads a shape: its surrogate gradient divided by ``x.shape[-1]``."""

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return Spike.backward(ctx, g) / x.shape[-1]


def test_a_backward_that_reads_a_shape_trains_on_the_loop_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    """The forward is shape-free (inference stays fused); the training kernels would bake the traced width in."""
    monkeypatch.setenv("FLEXSN_TRACE_CACHE", "0")

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = 0.5 * v + x
        s = _SpikePerWidth.apply(h - 1.0)
        return s, h * (1.0 - s)

    m = FlexSN(core, 1, 1, 1)
    x = (torch.rand(5, 3, 8, device=DEVICE) * 2).requires_grad_()
    assert m.uses_kernels(x.detach())
    with pytest.warns(RuntimeWarning, match=r"shape-dependent step.*backward reads a tensor's shape"):
        y = m(x)
    y.sum().backward()
    xr = x.detach().clone().requires_grad_()
    yr = final_state_loop(core, xr)[0]
    yr.sum().backward()
    torch.testing.assert_close(y, yr)
    torch.testing.assert_close(x.grad, xr.grad)


def _trained(backend: str = "triton") -> tuple[FlexSN, torch.Tensor]:
    m = FlexSN(lif_core, 1, 1, 1, backend=backend)
    x = (torch.rand(6, 9, device=DEVICE) * 2).requires_grad_()
    m(x).sum().backward()  # one training forward: kernels, plans and states with history
    return m, x


def test_pickle_deepcopy_and_torch_save_after_training_rebuild_their_own_kernels() -> None:
    m, _ = _trained()
    x = torch.rand(6, 9, device=DEVICE) * 2
    m.reset()
    want = m(x)
    for copy_of in (lambda a: pickle.loads(pickle.dumps(a)), copy.deepcopy, _torch_roundtrip):
        twin = copy_of(m)
        assert twin.states == [] or twin is not m
        twin.reset()
        torch.testing.assert_close(twin(x), want)
    clone = pickle.loads(pickle.dumps(m))
    del m
    gc.collect()
    clone.reset()
    torch.testing.assert_close(clone(x), want)  # owns its handle: the original is gone


def _torch_roundtrip(m: FlexSN) -> FlexSN:
    buf = io.BytesIO()
    torch.save(m, buf)
    buf.seek(0)
    loaded: FlexSN = torch.load(buf, weights_only=False)
    return loaded


def test_a_neuron_pickled_in_one_process_runs_its_own_core_in_another(tmp_path: Path) -> None:
    module = tmp_path / "cores_for_pickle.py"
    module.write_text(textwrap.dedent("""
        import torch

        def double(x, v):
            return 2.0 * x + 0.0 * v, v + 1.0

        def other(x, v):
            return x - 100.0, v
    """))
    script = textwrap.dedent(f"""
        import pickle, sys, torch
        sys.path[:0] = {[str(tmp_path), *SRC]!r}
        import cores_for_pickle as c
        from flexsn_nn import FlexSN
        if sys.argv[1] == "save":
            open(sys.argv[2], "wb").write(pickle.dumps(FlexSN(c.double, 1, 1, 1)))
        else:
            FlexSN(c.other, 1, 1, 1)  # takes the handle numbers the saving process used
            m = pickle.loads(open(sys.argv[2], "rb").read())
            y = m(torch.ones(3, 4))
            assert torch.equal(y, torch.full((3, 4), 2.0)), y
            print("OK")
    """)
    blob = tmp_path / "neuron.pkl"
    for mode in ("save", "load"):
        proc = subprocess.run([sys.executable, "-c", script, mode, str(blob)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout


def test_a_retained_graph_keeps_its_kernels_after_the_module_is_gone() -> None:
    m = FlexSN(lif_core, 1, 1, 1)
    x = (torch.rand(5, 8, device=DEVICE) * 2).requires_grad_()
    loss = m(x).sum()
    del m
    gc.collect()
    loss.backward(retain_graph=True)
    first = x.grad.clone()  # type: ignore[union-attr]
    gc.collect()
    loss.backward()
    torch.testing.assert_close(x.grad, 2 * first)
    xr = x.detach().clone().requires_grad_()
    final_state_loop(lif_core, xr)[0].sum().backward()
    torch.testing.assert_close(first, xr.grad, rtol=1e-4, atol=1e-5)


def test_higher_order_gradients_raise_instead_of_detaching() -> None:
    m = FlexSN(lif_core, 1, 1, 1)
    x = (torch.rand(5, 8, device=DEVICE) * 2).requires_grad_()
    with pytest.raises(RuntimeError, match="create_graph=True"):
        torch.autograd.grad(m(x).sum(), x, create_graph=True)


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda d: [torch.zeros(3, 4, device=d), torch.zeros(5, device=d)], ValueError, r"initial state 0 must have the per-step shape \(4,\)"),
        (lambda d: [torch.zeros(3, 4, device=d), torch.zeros(4, device=d, dtype=torch.float16)], TypeError, "share one dtype"),
        (lambda d: [torch.zeros(3, 4, device=d, dtype=torch.float64)], TypeError, "kernels take"),
        (lambda d: [torch.zeros(3, 4, device=d), torch.zeros(4, device=d), torch.zeros(4, device=d)], ValueError, "got 3 argument"),
    ],
    ids=["state-too-small", "mixed-dtypes", "float64", "too-many"],
)
def test_public_ops_check_their_tensors_before_a_launch(make, error, message) -> None:  # type: ignore[no-untyped-def]
    k = FlexSN(lif_core, 1, 1, 1).kernel
    assert k.handle is not None
    for final_state in (False, True):
        with pytest.raises(error, match=message):
            flexsn_inference_op(k.handle, make(DEVICE), final_state)


def test_launchers_check_their_tensors_before_a_launch() -> None:
    from flexsn_runtime import flexsn_inference
    from flexsn_runtime.registry import lookup_flexsn_kernel_handle

    k = FlexSN(lif_core, 1, 1, 1).kernel
    bundle = lookup_flexsn_kernel_handle(k.handle)
    assert bundle.inference_kernel is not None and bundle.inference_info is not None
    x = torch.zeros(3, 4, device=DEVICE)
    with pytest.raises(ValueError, match=r"initial state 0 must have the per-step shape"):
        flexsn_inference(bundle.inference_kernel, bundle.inference_info, x, torch.zeros(2, device=DEVICE))


def test_an_op_without_an_autograd_formula_runs_inference_fused_and_says_why_training_cannot() -> None:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = torch.heaviside(h - 1.0, torch.zeros_like(h))
        return s, h * (1.0 - s)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the training trace waits for a call that needs gradients
        m = FlexSN(core, 1, 1, 1)
    x = torch.rand(6, 10, device=DEVICE) * 3
    assert m.kernel.handle is not None and m.uses_kernels(x)
    with torch.no_grad():
        torch.testing.assert_close(m(x), final_state_loop(core, x)[0])
    m.reset()
    xg = x.clone().requires_grad_()
    with pytest.warns(RuntimeWarning, match="heaviside.*need gradients run the eager") as told:
        y = m(xg)  # the eager loop: the same numbers, and PyTorch's own error at backward
    assert len([w for w in told if "heaviside" in str(w.message)]) == 1
    torch.testing.assert_close(y.detach(), final_state_loop(core, x)[0])
    with pytest.raises(RuntimeError, match="heaviside"):
        y.sum().backward()


@pytest.mark.parametrize("backend", ["triton", "torch", "hop"])
def test_t0_outputs_stay_connected_and_give_zero_gradients(backend: str) -> None:
    m = FlexSN(lif_core, 1, 1, 1, backend=backend, example_outputs=[torch.zeros(7)])
    x = torch.rand(0, 7, device=DEVICE, requires_grad=True)
    y = m(x)
    assert y.shape == (0, 7) and y.grad_fn is not None
    y.sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape


def test_threads_build_and_call_neurons_at_once() -> None:
    """Four threads build neurons while two call one module (a fresh process: nothing traced before)."""
    script = textwrap.dedent(f"""
        import sys, threading, torch
        sys.path[:0] = {SRC!r}
        from flexsn_nn import FlexSN
        from flexsn_trace import ScanContract, reference_scan
        from flexsn_trace.testing import lif_core, two_by_two_core

        errors = []

        def build(i):
            try:
                scale = 1.0 + i
                FlexSN(lambda x, v: lif_core(x * scale, v), 1, 1, 1)
            except BaseException as exc:
                errors.append(repr(exc))

        threads = [threading.Thread(target=build, args=(i,)) for i in range(4)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        m = FlexSN(lif_core, 1, 1, 1)
        x = torch.rand(5, 300) * 2
        want = reference_scan(lif_core, ScanContract(1, 1, 1, (x,), (torch.zeros(300),), final_state=True))[0]

        def call():
            try:
                for _ in range(3):
                    torch.testing.assert_close(m.kernel.final_state(x)[0], want)
            except BaseException as exc:
                errors.append(repr(exc))

        threads = [threading.Thread(target=call) for _ in range(2)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        from torch.fx import _symbolic_trace
        assert getattr(_symbolic_trace, "_CURRENT_PATCHER", None) is None, "fx's patcher stayed installed"
        assert not errors, errors
        print("OK")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "FLEXSN_TRACE_CACHE": "0"})
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stdout + proc.stderr


def test_a_core_that_runs_but_cannot_be_traced_falls_back_with_a_warning() -> None:
    from flexsn_nn.surrogate import Sigmoid

    sg = Sigmoid()
    w = torch.randn(4, 4)

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + x @ w.to(x.device)  # not elementwise, and a custom autograd.Function after it
        s = sg(h - 1.0)
        return s, h * (1.0 - s)

    # w is lifted into a static input, so the core traces; the matmul then has no lowering
    with pytest.warns(RuntimeWarning, match="cannot lower op 'aten.dot.default'"):
        m = FlexSN(core, 1, 1, 1)
    x = torch.rand(3, 5, 4, device=DEVICE)
    assert not m.uses_kernels(x)
    torch.testing.assert_close(m(x), final_state_loop(core, x)[0])


def test_a_captured_tensor_is_lifted_and_trained_fused() -> None:
    """A tensor the core captures no longer sends it to the eager loop: it becomes a static input."""
    w = torch.tensor(0.5, requires_grad=True)

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v * w.to(x.device) + x
        return h, h

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = FlexSN(core, 1, 1, 1)
    assert m.kernel.captures.names() == ("closure w",)
    x = torch.rand(3, 5, device=DEVICE, requires_grad=True)
    y = m(x)
    y.sum().backward()
    got = w.grad.clone()  # type: ignore[union-attr]
    w.grad = None
    xr = x.detach().clone().requires_grad_()
    final_state_loop(core, xr)[0].sum().backward()
    torch.testing.assert_close(x.grad, xr.grad)
    torch.testing.assert_close(got, w.grad)


def test_a_core_that_fails_in_pytorch_still_raises_its_own_error() -> None:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        raise KeyError("my bug")

    with pytest.raises(ValueError, match="KeyError"):
        FlexSN(core, 1, 1, 1)


def test_fallback_messages_speak_the_users_terms() -> None:
    def branches(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if (x > 0).any():
            return x, v
        return -x, v

    with pytest.warns(RuntimeWarning, match="torch.where") as record:
        FlexSN(branches, 1, 1, 1)
    assert not any("FlexSN: FlexSN" in str(w.message) or "make_fx" in str(w.message) for w in record)

    def cums(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.cumsum(x, 0), v + x

    with pytest.warns(RuntimeWarning, match="cumsum") as record:
        FlexSN(cums, 1, 1, 1)
    assert not any("FlexSN: FlexSN" in str(w.message) for w in record)


def test_meta_tensors_are_not_told_to_set_a_variable_that_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from flexsn_runtime import route

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    k = FlexSN(lif_core, 1, 1, 1).kernel
    r = route(k, ScanContract(1, 1, 1, (torch.zeros(3, 4, device="meta"),), (), uniform=True))
    assert r.path == "eager" and r.reason is not None and "TRITON_INTERPRET=1 is set" in r.reason


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_outputs_keep_the_dtype_the_core_returns(dtype: torch.dtype) -> None:
    def spikes_and_counts(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = h >= 1.0  # a bool spike
        n = s.to(torch.int32) + 4243  # 4243 / 4244: integers fp16 cannot hold (it would store 4244 as 4240)
        return s, n, torch.where(s, torch.zeros_like(h), h)

    fused, eager = FlexSN(spikes_and_counts, 1, 1, 2), FlexSN(spikes_and_counts, 1, 1, 2, backend="torch")
    # halves over 3 steps: every value exact in fp16 and bf16, so spikes cannot differ by rounding
    x = (torch.randint(0, 7, (3, 9), device=DEVICE) / 2).to(dtype)
    assert fused.uses_kernels(x)
    got, want = fused(x), eager(x)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w)
    assert got[0].dtype == torch.bool and got[1].dtype == torch.int32
    xg = x.float().requires_grad_()  # training: the bool / int outputs carry no gradient, the state does
    fused.reset()
    s, n = fused(xg)
    assert s.dtype == torch.bool and not s.requires_grad and n.dtype == torch.int32
    fused.states[0].sum().backward()
    xr = x.float().requires_grad_()
    reference_scan(spikes_and_counts, ScanContract(1, 1, 2, (xr,), (torch.zeros(9, device=DEVICE),), final_state=True))[
        2
    ].sum().backward()
    torch.testing.assert_close(xg.grad, xr.grad)


def _lif_bundle():  # type: ignore[no-untyped-def]
    from flexsn_runtime import ensure_training_kernels

    k = FlexSN(lif_core, 1, 1, 1).kernel
    return k, ensure_training_kernels(k.handle)


def test_launchers_fill_omitted_initial_states_with_zeros() -> None:
    from flexsn_runtime import flexsn_inference

    k, bundle = _lif_bundle()
    x = torch.rand(5, 6, device=DEVICE) * 2
    for final_state in (False, True):
        kernel = bundle.inference_final_state_kernel if final_state else bundle.inference_kernel
        info = bundle.inference_final_state_info if final_state else bundle.inference_info
        implicit = flexsn_inference(kernel, info, x, final_state=final_state)
        explicit = flexsn_inference(kernel, info, x, torch.zeros(6, device=DEVICE), final_state=final_state)
        for a, b in zip(implicit, explicit):
            torch.testing.assert_close(a, b)


def test_backward_at_t0_without_state_templates_and_with_a_wrong_count() -> None:
    from flexsn_codegen import backward_saved_args
    from flexsn_runtime import flexsn_backward

    k, bundle = _lif_bundle()
    info = bundle.training.info
    saved = [torch.zeros(0, 6, device=DEVICE) if kind != "init_state" else torch.zeros(6, device=DEVICE)
             for kind, _ in backward_saved_args(info)]
    gy, gv = torch.zeros(0, 6, device=DEVICE), torch.zeros(0, 6, device=DEVICE)
    gx, gv0 = flexsn_backward(bundle.training.backward, info, gy, gv, *saved)
    assert gx.shape == (0, 6) and gv0.shape == (6,) and not gv0.any()
    with pytest.raises(ValueError, match="saved tensors"):  # one gradient short: the count is off
        flexsn_backward(bundle.training.backward, info, gy, *saved)
    with pytest.raises(ValueError, match="2 gradients"):
        flexsn_backward(bundle.training.backward, info, gy)


def test_arguments_are_checked_before_tracing_in_spikingjellys_words() -> None:
    with pytest.raises(ValueError, match="same number of elements"):
        FlexSN(lif_core, 1, 1, 1, example_inputs=[torch.zeros(4), torch.zeros(5)])
    with pytest.raises(ValueError, match="requires_grad must have the same length"):
        FlexSN(lif_core, 1, 1, 1, requires_grad=[True])
    with pytest.raises(ValueError, match="expected 1 example output tensors"):
        FlexSN(lif_core, 1, 1, 1, example_outputs=[torch.zeros(4), torch.zeros(4)])


def test_a_captured_integer_mask_is_never_frozen_into_the_kernels() -> None:
    """A per-neuron int mask (not a static input: the kernels read floats) runs the loop and says why.

    On the default ``[4]`` tracing examples the ``[8]`` mask cannot even broadcast: the error says to pass
    ``example_inputs`` of the per-step shape.
    """
    mask = torch.tensor([1, 0, 1, 0, 1, 1, 0, 1])

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = (h >= 1.0).to(x.dtype) * mask
        return s, h * (1.0 - s)

    with pytest.raises(ValueError, match=r"default one-step examples of shape \[4\].*example_inputs="):
        FlexSN(core, 1, 1, 1)
    with pytest.warns(RuntimeWarning, match=r"captured tensor \(\[8\] int64\).*floating-point tensors only"):
        neuron = FlexSN(core, 1, 1, 1, example_inputs=[torch.zeros(8), torch.zeros(8)])
    x = torch.rand(5, 3, 8, generator=torch.Generator().manual_seed(2)) * 3
    mask[:4] = 1  # after construction: the loop reads it, as the user's eager code would
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = neuron(x)
    want, _ = reference_scan(core, ScanContract(1, 1, 1, (x,), ()))
    torch.testing.assert_close(out, want)


def test_pickling_a_neuron_whose_core_is_a_lambda_or_local_says_what_to_do() -> None:
    """``pickle``'s own error ("Can't pickle local object 'outer.<locals>.core'") names neither the neuron nor a
    remedy; the neuron's says both. A core defined at module level pickles (the tests above)."""
    def local_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = x + v
        return (h >= 1.0).to(x.dtype), h * 0.5

    for core, name in [(local_core, "local_core"), (lambda x, v: ((x + v >= 1).to(x.dtype), (x + v) * 0.5), "<lambda>")]:
        neuron = FlexSN(core, 1, 1, 1, step_mode="m")
        with pytest.raises(pickle.PicklingError, match=rf"FlexSN: the neuron cannot be pickled .*{re.escape(name)}.*module level"):
            pickle.dumps(neuron)
        with pytest.raises(pickle.PicklingError, match="state_dict"):
            torch.save(neuron, io.BytesIO())
