"""A step of 2**31 neurons or more: every neuron's index needs 64 bits.

Triton passes ``NCL >= 2**31`` as an int64, while ``tl.program_id(0) * BLOCK_NCL`` is int32 and would
wrap for the last programs, reading and writing before the start of every tensor. Neurons are
independent, so the kernels' outputs and input gradients on a slice of neurons are checked against the
eager loop run on that slice alone; the scalar static's gradient (summed over all neurons, the
``RED = 1`` partials) against the slices' sums plus the known contribution of the all-zero neurons.

GPU only (about 45 GB of device memory): the interpreter would take hours over 2**31 neurons.
"""

from __future__ import annotations

import pytest
import torch

from flexsn_nn import ParametricLIFNode

NCL = 2**31 + 4096  # past int32 by more than one block
T = 2
EDGE = 8192  # neurons checked at each end: the last ones have indices >= 2**31


def _free_bytes() -> int:
    return torch.cuda.mem_get_info()[0] if torch.cuda.is_available() else 0


pytestmark = pytest.mark.skipif(_free_bytes() < 60 * 2**30, reason="needs a GPU with 60 GiB free")


def _inputs() -> torch.Tensor:
    """fp16 ``[T, NCL]``: zeros except both ends, in quarters, so fp16 and fp32 steps round alike."""
    x = torch.zeros(T, NCL, dtype=torch.float16, device="cuda")
    g = torch.Generator(device="cuda").manual_seed(0)
    for part in (slice(0, EDGE), slice(NCL - EDGE, NCL)):
        x[:, part] = torch.randint(-4, 12, (T, EDGE), generator=g, device="cuda").to(torch.float16) / 4
    return x


def _reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Spikes, dL/dx and dL/dw (L = sum of spikes) of the eager loop over ``x`` (fp32 copy)."""
    ref = ParametricLIFNode(backend="torch", step_mode="m").cuda()
    xr = x.float().requires_grad_()
    with torch.enable_grad():  # also when the kernels' side runs under no_grad
        s = ref(xr)
        s.sum().backward()
    assert xr.grad is not None and ref.w.grad is not None
    return s.detach(), xr.grad, ref.w.grad


def test_inference_and_training_over_more_than_2_to_the_31_neurons() -> None:
    x = _inputs()
    ends = [slice(0, EDGE), slice(NCL - EDGE, NCL)]
    m = ParametricLIFNode(backend="triton", step_mode="m").cuda()
    with torch.no_grad():
        s = m(x)
        for part in ends:
            torch.testing.assert_close(s[:, part].float(), _reference(x[:, part])[0])
        assert s[:, EDGE:NCL - EDGE].count_nonzero().item() == 0
    del s
    m.reset()
    xg = x.requires_grad_()
    s = m(xg)
    s.sum().backward()
    assert xg.grad is not None and m.w.grad is not None
    w_grad = torch.zeros((), device="cuda")
    for part in ends:
        ref_s, ref_gx, ref_gw = _reference(x.detach()[:, part])
        torch.testing.assert_close(s.detach()[:, part].float(), ref_s)
        torch.testing.assert_close(xg.grad[:, part].float(), ref_gx, rtol=1e-3, atol=1e-3)
        w_grad += ref_gw
    zero_neuron = _reference(x.new_zeros(T, 1))[2]
    w_grad += zero_neuron * (NCL - 2 * EDGE)
    torch.testing.assert_close(m.w.grad, w_grad, rtol=1e-4, atol=0.0)
