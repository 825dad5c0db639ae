"""No silent wrong answers in networks: a neuron whose core is the network's own method, deep-copied, pickled or
compiled before any eager call, reads its own parameters and numbers; a compiled neuron takes new shapes and
strided inputs, and a state left from another batch is a clear error.

Split from ``test_reliability.py``. Each test compares with the eager loop (autograd through it) or checks for a
clear error.
"""

from __future__ import annotations

import copy
import io
import pickle
import types
import warnings

import pytest
import torch

from flexsn_nn import FlexSN
from flexsn_trace import ScanContract, reference_scan
from flexsn_trace.testing import lif_core
from nn_reference import compiled_twice_then_another_shape, final_state_loop, traced_numbers

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class _Net(torch.nn.Module):
    """A network whose neuron's core is its own method, reading its parameter and a number (README's lifting)."""

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.linspace(-1.0, 1.0, 8))
        self.v_threshold = 1.0
        self.sn = FlexSN(self.step, 1, 1, 1)

    def step(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(self.w)
        s = torch.sigmoid(4.0 * (h - self.v_threshold))
        return s, h * (1.0 - s)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.sn(x)
        self.sn.reset()
        return out


def test_a_deep_copy_reads_its_own_parameters_and_numbers_not_the_originals() -> None:
    """``copy.deepcopy(net)`` (an EMA or target network): the copy's kernels read the copy's ``w`` and
    ``v_threshold``, its gradients reach the copy's ``w``, and the original is untouched."""
    net = _Net()
    x = torch.rand(5, 2, 8, generator=torch.Generator().manual_seed(4)) * 2
    net(x).sum().backward()  # the original ran (and filled its call caches) before the copy
    net.w.grad = None
    twin = copy.deepcopy(net)
    with torch.no_grad():
        twin.w.mul_(-2.0)
    twin.v_threshold = 0.4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the copy's retrace for its new threshold says so once
        out = twin(x)
    out.sum().backward()
    w_ref = twin.w.detach().clone().requires_grad_()
    v, spikes = torch.zeros(2, 8), []
    for t in range(x.shape[0]):  # the step written out, with the copy's values
        h = v + (x[t] - v) * torch.sigmoid(w_ref)
        s = torch.sigmoid(4.0 * (h - 0.4))
        spikes.append(s)
        v = h * (1.0 - s)
    want = torch.stack(spikes)
    want.sum().backward()
    torch.testing.assert_close(out, want)
    assert twin.w.grad is not None and net.w.grad is None
    torch.testing.assert_close(twin.w.grad, w_ref.grad, rtol=1e-4, atol=1e-5)
    with torch.no_grad():
        mine, _ = reference_scan(net.step, ScanContract(1, 1, 1, (x,), ()))
        torch.testing.assert_close(net(x), mine)


def test_a_compiled_call_that_runs_the_loop_compiles_with_fullgraph_and_says_why_once() -> None:
    """float64 (or CPU tensors without the interpreter): the loop is traced into the graph, never a Dynamo error,
    and the fallback is told once, while Dynamo compiles (it cannot trace ``warnings.warn`` itself)."""
    x = torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(5), dtype=torch.float64) * 3  # float64: never fused
    neuron = FlexSN(lif_core, 1, 1, 1)
    want, _ = reference_scan(lif_core, ScanContract(1, 1, 1, (x,), ()))
    caught = compiled_twice_then_another_shape(neuron, x, want)  # the second shape: compiled again, already told
    told = [str(w.message) for w in caught if "FlexSN" in str(w.message)]
    assert len(told) == 1 and "dtype torch.float64" in told[0] and "eager PyTorch loop" in told[0], told


def test_a_network_whose_neuron_runs_its_own_method_compiles_with_fullgraph_and_trains_fused() -> None:
    """``FlexSN(self.step)`` reading the network's parameter: compiled with ``fullgraph=True`` (before: Dynamo's
    ``Unsupported`` on the reader of ``self.w``), outputs and dL/dw as autograd through the eager loop."""
    net = _Net().to(DEVICE)
    x = torch.rand(5, 2, 8, generator=torch.Generator().manual_seed(9)).to(DEVICE) * 2
    torch._dynamo.reset()
    try:
        out = torch.compile(net, backend="aot_eager", fullgraph=True)(x)
        out.sum().backward()
        w_ref = net.w.detach().clone().requires_grad_()
        want, _ = reference_scan(lambda x, v: net.step.__func__(types.SimpleNamespace(w=w_ref, v_threshold=1.0), x, v),
                                 ScanContract(1, 1, 1, (x,), ()))
        want.sum().backward()
        torch.testing.assert_close(out, want)
        assert net.w.grad is not None and w_ref.grad is not None
        torch.testing.assert_close(net.w.grad, w_ref.grad, rtol=1e-4, atol=1e-5)
        assert net.sn.uses_kernels(x) == (DEVICE.type == "cuda" or _interpreted())
    finally:
        torch._dynamo.reset()


def _interpreted() -> bool:
    import os

    return os.environ.get("TRITON_INTERPRET") == "1"


def test_a_deep_copy_compiled_before_any_eager_call_reads_its_own_values() -> None:
    """A copy's first call under ``torch.compile(fullgraph=True)`` finds its own captures and numbers while Dynamo
    compiles (not traced into the graph), then runs fused with the copy's ``w`` and threshold."""
    net = _Net()
    x = torch.rand(5, 2, 8, generator=torch.Generator().manual_seed(7)).to(DEVICE) * 2
    net.to(DEVICE)
    net(x)
    twin = copy.deepcopy(net)
    with torch.no_grad():
        twin.w.mul_(-2.0)
    twin.v_threshold = 0.4
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the copy's retrace for its new threshold says so once
            out = torch.compile(twin, backend="aot_eager", fullgraph=True)(x)
        with torch.no_grad():
            want, _ = reference_scan(twin.step, ScanContract(1, 1, 1, (x,), ()))
        torch.testing.assert_close(out, want)
        assert traced_numbers(twin.sn.kernel.constants) == [0.4]
    finally:
        torch._dynamo.reset()


@pytest.mark.parametrize("how", ["pickle", "torch.save"])
def test_a_network_whose_neuron_runs_its_own_method_pickles_and_reads_its_own_values(how: str) -> None:
    """Unpickling ``_Net`` restores the neuron before the network's own attributes: the kernels are built at the
    first call (before: an ``AttributeError`` while loading), and they read the loaded copy's ``w`` and threshold."""
    net = _Net()
    x = torch.rand(5, 2, 8, generator=torch.Generator().manual_seed(6)) * 2
    net(x).sum().backward()
    if how == "pickle":
        loaded = pickle.loads(pickle.dumps(net))
    else:
        buf = io.BytesIO()
        torch.save(net, buf)
        buf.seek(0)
        loaded = torch.load(buf, weights_only=False)
    with torch.no_grad():
        loaded.w.mul_(-2.0)
    loaded.v_threshold = 0.4
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = loaded(x)
        want, _ = reference_scan(loaded.step, ScanContract(1, 1, 1, (x,), ()))
    torch.testing.assert_close(out, want)
    assert loaded.sn.kernel.captures.names() == ("self.w",)


@pytest.mark.parametrize("train", [False, True], ids=["inference", "training"])
def test_a_compiled_neuron_takes_new_shapes_and_strided_inputs(train: bool) -> None:
    """Calls of new sizes (Dynamo's dynamic shapes: symbolic sizes in the ops' fake implementations) with sliced and
    permuted inputs, under ``fullgraph=True``. Before, a slice after a first call failed in the fake implementation
    (sorting symbolic booleans: sympy's "BooleanAtom not allowed in this context")."""
    neuron = FlexSN(lif_core, 1, 1, 1)
    base = torch.rand(6, 5, 4, 8, generator=torch.Generator().manual_seed(10)).to(DEVICE) * 2
    inputs = [base[:, :3], base[:, :3, 1:], base[:, :2], base.permute(0, 2, 1, 3), base.permute(0, 3, 1, 2)[:, :5]]
    torch._dynamo.reset()
    try:
        compiled = torch.compile(neuron, backend="aot_eager", fullgraph=True)
        for x in inputs:
            x = x.detach().requires_grad_(train)
            neuron.reset()
            got = compiled(x)
            want, _ = final_state_loop(lif_core, x.detach().clone().requires_grad_(train))
            torch.testing.assert_close(got, want)
            if train:
                weights = torch.linspace(0.0, 1.0, x.shape[-1], device=x.device)
                (got * weights).sum().backward()
                ref_x = x.detach().clone().requires_grad_()
                want, _ = final_state_loop(lif_core, ref_x)
                (want * weights).sum().backward()
                torch.testing.assert_close(x.grad, ref_x.grad)
    finally:
        torch._dynamo.reset()


def test_a_state_left_from_another_batch_is_a_clear_error_under_compile_with_dynamic_sizes() -> None:
    """Dynamo's symbolic sizes (a second call of a new size): the check gives its own ``ValueError`` (chained by
    Dynamo under ``fullgraph=True``), not a ``TorchRuntimeError`` from inside ``torch.broadcast_shapes``."""
    neuron = FlexSN(lif_core, 1, 1, 1)
    x = torch.rand(6, 3, 8)
    torch._dynamo.reset()
    try:
        compiled = torch.compile(neuron, backend="aot_eager")
        compiled(x)
        compiled(x[:, :2].contiguous())  # the state is [3, 8]: no reset() between batches
    except ValueError as exc:
        assert "call reset() before feeding inputs of a new shape" in str(exc)
    else:
        pytest.fail("no error for a state of another batch shape")
    finally:
        torch._dynamo.reset()
