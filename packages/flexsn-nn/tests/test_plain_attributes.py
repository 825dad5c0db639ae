"""A network whose neuron reads a tensor held as a plain attribute (``self.th = torch.tensor(...)``, not a
parameter or buffer): lifted like the module's parameters, so the kernels run fused, read the live value and
return its gradient, equal to autograd through the Python loop, on every backend, eager and compiled."""

from __future__ import annotations

import copy
import io
import warnings

import pytest
import torch
from torch import nn

from flexsn_nn import FlexSN
from flexsn_trace import ScanContract, reference_scan

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
T, B, C = 5, 2, 6


class Net(nn.Module):
    """``th`` and ``gain`` are plain attributes; ``gain`` lives on a submodule."""

    def __init__(self, backend: str = "triton") -> None:
        super().__init__()
        self.th = torch.linspace(0.8, 1.2, C, requires_grad=True)
        self.scale = nn.Module()
        self.scale.gain = torch.tensor(1.5)
        self.sn = FlexSN(self.step, 1, 1, 1, step_mode="m", backend=backend)

    def step(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x * self.scale.gain - v) * 0.5
        s = torch.sigmoid(4.0 * (h - self.th))
        return s, h * (1.0 - s)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.sn.reset()
        out: torch.Tensor = self.sn(x)
        return out


def loop(net: Net, x: torch.Tensor) -> torch.Tensor:
    """The spikes of ``net.step`` run over time by the reference loop (autograd's reference)."""
    spikes, _ = reference_scan(net.step, ScanContract(1, 1, 1, (x,), ()))
    return spikes


def _inputs(seed: int) -> torch.Tensor:
    return (torch.rand(T, B, C, generator=torch.Generator().manual_seed(seed)) * 2).to(DEVICE)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("backend", ["triton", "inductor", "hop", "torch"])
def test_a_plain_tensor_attribute_is_lifted_trained_and_read_live(backend: str, compiled: bool) -> None:
    net = Net(backend)
    net.th = net.th.detach().to(DEVICE).requires_grad_()  # plain attributes do not follow .to()
    net.scale.gain = net.scale.gain.to(DEVICE)
    f = torch.compile(net, backend="aot_eager", fullgraph=True) if compiled else net
    x = _inputs(1)
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no fallback: the kernels read both attributes
            out = f(x)
        if backend != "torch":
            assert net.sn.kernel.captures.names() == ("self.th", "self.scale.gain")
        out.sum().backward()
        got, net.th.grad = net.th.grad, None
        want = loop(net, x)
        want.sum().backward()
        torch.testing.assert_close(out, want)
        assert got is not None and net.th.grad is not None
        torch.testing.assert_close(got, net.th.grad, rtol=1e-4, atol=1e-5)
        net.th = torch.full((C,), 0.3, device=DEVICE)  # reassigned: the next call reads it, as the loop does
        with torch.no_grad():
            net.scale.gain.fill_(0.5)  # in place: seen too
            torch.testing.assert_close(f(x), loop(net, x))
    finally:
        torch._dynamo.reset()


@pytest.mark.parametrize("how", ["deepcopy", "torch.save"])
def test_a_copy_reads_its_own_plain_attributes(how: str) -> None:
    net = Net()
    x = _inputs(2)
    with torch.no_grad():
        net.th = net.th.to(DEVICE)
        net.scale.gain = net.scale.gain.to(DEVICE)
        before = net(x)
    if how == "deepcopy":
        twin = copy.deepcopy(net)
    else:
        buf = io.BytesIO()
        torch.save(net, buf)
        buf.seek(0)
        twin = torch.load(buf, weights_only=False)
    twin.th = torch.full((C,), 0.2, device=DEVICE)
    with torch.no_grad():
        torch.testing.assert_close(twin(x), loop(twin, x))
        torch.testing.assert_close(net(x), before)  # the original still reads its own
    assert not torch.allclose(before, loop(twin, x))


@pytest.mark.skipif(DEVICE.type != "cuda", reason="a CPU attribute beside CUDA inputs needs a GPU")
def test_a_plain_attribute_left_on_the_cpu_by_to() -> None:
    """``net.cuda()`` moves parameters and buffers, not plain attributes: a 0-d one is read as PyTorch reads a CPU
    scalar beside CUDA tensors; any other runs the loop (PyTorch's own device error) with a warning naming it."""
    net = Net().to(DEVICE)
    net.th = torch.tensor(1.0)  # 0-d, CPU
    x = _inputs(3)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.testing.assert_close(net(x), loop(net, x))
    net.th = torch.linspace(0.8, 1.2, C)  # [C], CPU
    with torch.no_grad(), pytest.warns(RuntimeWarning, match=r"self\.th.*is on cpu"):
        with pytest.raises(RuntimeError, match="device"):
            net(x)
