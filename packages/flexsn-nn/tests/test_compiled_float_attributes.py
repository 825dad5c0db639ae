"""A neuron's float attributes changed between compiled calls (a threshold annealed, a surrogate's ``alpha``
scheduled), for every fused backend, with Dynamo's default and ``dynamic=True``: outputs and gradients equal the
``torch`` backend's at every value.

``backend="hop"`` before: with ``dynamic=True`` Dynamo lifted the float as a ``SymFloat`` and ``flex_sn_scan`` raised a
``TypeError`` while compiling; by default the first change compiled a body reading the float through ``.item()``, which
the kernels could not trace, so the scan fell back to the eager loop with a warning. Now the kernels read the float as a
scalar static input (``flexsn_hop.scalars``) and stay fused.
"""

from __future__ import annotations

import warnings

import pytest
import torch

import flexsn_nn
from nn_reference import loss_and_grad, pick_device


@pytest.mark.parametrize("dynamic", [None, True], ids=["default", "dynamic=True"])
@pytest.mark.parametrize("backend", ["hop", "triton"])
def test_float_attributes_changed_between_compiled_calls(backend: str, dynamic: bool | None) -> None:
    dev = pick_device()
    m = flexsn_nn.LIFNode(tau=2.0, step_mode="m", backend=backend)
    ref = flexsn_nn.LIFNode(tau=2.0, step_mode="m", backend="torch")
    torch._dynamo.reset()
    run = torch.compile(m, backend="aot_eager", fullgraph=True, dynamic=dynamic)
    told: list[str] = []
    try:
        for thr, alpha in ((1.0, 4.0), (0.8, 4.0), (0.6, 2.0), (0.5, 3.0)):
            for neuron in (m, ref):
                neuron.v_threshold = thr
                neuron.surrogate_function = flexsn_nn.surrogate.Sigmoid(alpha=alpha)  # immutable: a new one
            x = (torch.rand(5, 2, 3, 4, generator=torch.Generator().manual_seed(int(thr * 10))) * 3).to(dev)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                m.reset()
                got = loss_and_grad(run, x)
            told += [str(w.message) for w in caught]
            ref.reset()
            for a, b in zip(got, loss_and_grad(ref, x)):
                torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    finally:
        torch._dynamo.reset()
    assert not [t for t in told if "eager loop" in t or "unavailable" in t], told
