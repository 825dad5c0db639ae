"""The eager training hot path (``flexsn_runtime.training_plan``) against the unrolled loop, and its shared tensors."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from flexsn_runtime import FlexSNKernel
from flexsn_runtime.layout import stored_shape
from flexsn_runtime.step_buffers import cached_scratch, cached_zeros
from flexsn_runtime.training_plan import plan_for

T, NCL = 7, 37


def test_cached_zeros_are_shared_zeros_per_shape_and_dtype() -> None:
    a = cached_zeros((3, 5), torch.float32, torch.device("cpu"))
    assert torch.equal(a, torch.zeros(3, 5))
    assert cached_zeros((3, 5), torch.float32, torch.device("cpu")) is a
    assert cached_zeros((5, 3), torch.float32, torch.device("cpu")) is not a
    b = cached_zeros((3, 5), torch.bfloat16, torch.device("cpu"))
    assert b.dtype == torch.bfloat16 and b is not a


def test_cached_scratch_never_aliases_the_zeros() -> None:
    z = cached_zeros((11,), torch.float32, torch.device("cpu"))
    s0 = cached_scratch((11,), torch.float32, torch.device("cpu"), 0)
    s1 = cached_scratch((11,), torch.float32, torch.device("cpu"), 1)
    assert len({z.data_ptr(), s0.data_ptr(), s1.data_ptr()}) == 3
    assert cached_scratch((11,), torch.float32, torch.device("cpu"), 0) is s0


def test_cache_is_bounded() -> None:
    first = cached_zeros((1, 1, 1), torch.float32, torch.device("cpu"))
    for n in range(2, 40):
        cached_zeros((n,), torch.float32, torch.device("cpu"))
    assert cached_zeros((1, 1, 1), torch.float32, torch.device("cpu")) is not first


def test_static_partials_are_per_thread_and_fresh_under_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    """``StepBuffers.partials``: one buffer set per layout and thread (two threads launching on one stream never
    share one), and fresh ones while a CUDA graph is captured (the graph's memory must be its own)."""
    import threading

    from flexsn_runtime import step_buffers as sb
    from flexsn_runtime.statics import partials_layout

    bufs = sb.StepBuffers((4, 8), torch.float32, torch.device("cpu"), torch.zeros(4, 8))
    layout = partials_layout((8, 4), 32, 32)  # a per-channel static: one sum per channel
    assert layout.reduced
    mine = bufs.partials(layout)
    assert bufs.partials(layout) is mine
    theirs: list[Any] = []
    worker = threading.Thread(target=lambda: theirs.append(bufs.partials(layout)))
    worker.start()
    worker.join()
    assert theirs[0] is not mine and theirs[0].bufs[0].data_ptr() != mine.bufs[0].data_ptr()
    # under capture (a CUDA device, stood in for: no buffer is made on it) a fresh set per call
    made: list[torch.device] = []

    class Layout:
        def allocate(self, device: torch.device) -> object:
            made.append(device)
            return object()

    cuda = sb.StepBuffers((4, 8), torch.float32, torch.device("cuda", 0), torch.zeros(4, 8))
    monkeypatch.setattr(sb, "_capturing", lambda: True)
    assert cuda.partials(Layout()) is not cuda.partials(Layout())  # type: ignore[arg-type]
    assert len(made) == 2


@pytest.mark.parametrize("name", ["lif", "two"])
def test_repeated_steps_with_omitted_states_match_the_loop(ref: Any, device: torch.device, kernels: dict[str, Any], name: str) -> None:
    """Omitted (zero) initial states and dropped final-state gradients use the shared tensors; repeated
    steps must neither corrupt them nor drift from autograd on the unrolled loop."""
    core, k = ref.CORES[name], kernels[name]
    for seed in range(3):
        xs, _ = ref.make_data(core, T, (NCL,), device, seed=seed)
        leaves = [x.clone().requires_grad_() for x in xs]
        res = k.final_state(*leaves)
        assert len(res) == core.no + core.ns  # saved-for-backward tensors are not outputs
        g = torch.Generator().manual_seed(100 + seed)
        grads = [torch.randn(T, NCL, generator=g).to(device) for _ in range(core.no)]
        torch.autograd.backward(list(res[: core.no]), grads)
        zeros = [torch.zeros(NCL, device=device) for _ in range(core.ns)]
        (outs, seqs) = ref.loop(core, xs, zeros)
        for got, want in zip(res, [*outs, *(s[-1] for s in seqs)]):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
        want_grads = ref.loop_grads(core, xs, zeros, [*grads, *([None] * core.ns)], final_state=True)
        for leaf, want in zip(leaves, want_grads):
            torch.testing.assert_close(leaf.grad, want, rtol=1e-4, atol=1e-5)
        assert torch.count_nonzero(cached_zeros((NCL,), torch.float32, device)) == 0


def _given_states_match_the_loop(ref: Any, core: Any, k: Any, device: torch.device, seed: int, g: float) -> None:
    """A final-state training call with initial states passed: every input's and state's gradient against the loop's."""
    xs, s0 = ref.make_data(core, T, (NCL,), device, seed=seed)
    leaves = [t.clone().requires_grad_() for t in [*xs, *s0]]
    res = k.final_state(*leaves)
    grads = [torch.full_like(r, g) for r in res]
    torch.autograd.backward(list(res), grads)
    want = ref.loop_grads(core, xs, s0, grads, final_state=True)
    for leaf, w in zip(leaves, want):
        torch.testing.assert_close(leaf.grad, w, rtol=1e-4, atol=1e-5)


def test_state_gradients_flow_when_states_are_given(ref: Any, device: torch.device, kernels: dict[str, Any]) -> None:
    _given_states_match_the_loop(ref, ref.CORES["two"], kernels["two"], device, 5, 0.25)


def test_plan_needs_training_kernels(device: torch.device) -> None:
    def counter(x: torch.Tensor, n: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        fired = (x > 0).float()
        return fired, (n + fired).detach()

    k = FlexSNKernel(counter, 1, 1, 1)
    assert k.handle is not None
    with pytest.raises(RuntimeError, match="training kernels are unavailable"):
        plan_for(k.handle, True)


def test_plan_is_worked_out_once_per_flag(kernels: dict[str, Any]) -> None:
    h = kernels["lif"].handle
    assert plan_for(h, True) is plan_for(h, True)
    assert plan_for(h, False) is not plan_for(h, True)
    # no state sequence kept: the final-state forward returns the states only where its backward reads them
    # (LIF's backward recomputes the steps between checkpoints, flexsn_trace.recompute)
    fin = plan_for(h, True)
    assert fin.info.chunk > 1
    assert [stored_shape(fin.info, k, (32, 4)) for k in fin.stored] == [(32, 4), (-(-32 // fin.info.chunk), 4)]


def test_no_shared_tensors_under_fake_mode() -> None:
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    real = cached_zeros((6,), torch.float32, torch.device("cpu"))
    with FakeTensorMode():
        fake = cached_zeros((6,), torch.float32, torch.device("cpu"))
        assert isinstance(fake, FakeTensor)
    assert cached_zeros((6,), torch.float32, torch.device("cpu")) is real


def test_step_buffers_are_shared_per_key_and_withheld_under_a_dispatch_mode() -> None:
    from torch.utils._python_dispatch import TorchDispatchMode

    from flexsn_runtime.step_buffers import step_buffers

    cpu = torch.device("cpu")
    a = step_buffers((13,), torch.float32, cpu)
    assert a is not None and a is step_buffers((13,), torch.float32, cpu)
    assert torch.count_nonzero(a.zeros) == 0 and a.zeros.shape == (13,)
    assert a.scratch(1) is a.scratch(1) and a.scratch(0).data_ptr() != a.scratch(1).data_ptr()
    assert step_buffers((13,), torch.float64, cpu) is not a

    class Passthrough(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return func(*args, **(kwargs or {}))

    with Passthrough():
        assert step_buffers((13,), torch.float32, cpu) is None  # a tracer would capture shared tensors
        assert cached_zeros((13,), torch.float32, cpu) is not a.zeros


def _counting_training_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the TrainingCalls the training paths make (they are made through the names routing imported)."""
    from flexsn_runtime import routing
    from flexsn_runtime.training_plan import TrainingCall

    made: list[int] = []

    class Counted(TrainingCall):
        def __init__(self, *args: Any) -> None:
            made.append(1)
            super().__init__(*args)

    monkeypatch.setattr(routing, "TrainingCall", Counted)
    return made


def test_calls_of_one_signature_share_one_training_call(
    ref: Any, device: torch.device, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call signature's bookkeeping is worked out once; every call of it still matches autograd through the loop."""
    core = ref.CORES["two"]
    k = FlexSNKernel(core.fn, core.ni, core.ns, core.no)
    made = _counting_training_calls(monkeypatch)
    for seed in range(4):
        _given_states_match_the_loop(ref, core, k, device, seed, 0.5)
    # the first (checked) call and the signature's runner each make one; later calls make none
    assert len(made) == 2


def test_a_static_input_in_another_layout_gets_its_own_training_call(device: torch.device, monkeypatch: pytest.MonkeyPatch) -> None:
    """A per-feature ``[N]`` static that is not contiguous is prepared to ``[1, N]`` (another layout form than the
    signature's first call passed): that call gets its own bookkeeping, and every call's gradients are right."""

    def core(x: torch.Tensor, v: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * 0.5
        s = torch.sigmoid(4.0 * (h - th))
        return s, h * (1.0 - s)

    k = FlexSNKernel(core, 1, 1, 1, num_static=1)
    x = torch.randn(T, 3, 5, device=device) + 0.5
    made = _counting_training_calls(monkeypatch)
    for strided in (False, False, True, False):
        leaf = (torch.rand(10 if strided else 5, device=device) + 0.5).requires_grad_()
        th = leaf[::2] if strided else leaf
        xl = x.clone().requires_grad_()
        s, v = k.final_state(xl, th)
        (s.sum() + 0.5 * v.sum()).backward()
        xr, thr = x.clone().requires_grad_(), th.detach().clone().requires_grad_()
        vr = torch.zeros(3, 5, device=device)
        outs = []
        for t in range(T):
            st, vr = core(xr[t], vr, thr)
            outs.append(st)
        (torch.stack(outs).sum() + 0.5 * vr.sum()).backward()
        torch.testing.assert_close(xl.grad, xr.grad, rtol=1e-4, atol=1e-5)
        assert leaf.grad is not None
        torch.testing.assert_close(leaf.grad[::2] if strided else leaf.grad, thr.grad, rtol=1e-4, atol=1e-5)
    # checked first call, the signature's shared one, then one for the call whose static input was prepared
    assert len(made) == 3
