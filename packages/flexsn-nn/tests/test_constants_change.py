"""``FlexSN`` follows a number its core reads from outside (a global threshold) when it changes, on every backend."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import pytest
import torch

from flexsn_nn import FlexSN
from nn_reference import pick_device

V_TH = 1.0


def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = (v >= V_TH).to(x.dtype)
    return s, v * (1.0 - s)


@pytest.mark.parametrize("backend", ["triton", "inductor", "hop"])
def test_a_changed_global_threshold_is_followed(backend: str) -> None:
    global V_TH
    x = torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(0)) * 3
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend=backend)
    reference = FlexSN(core, 1, 1, 1, step_mode="m", backend="torch")
    try:
        for value in (1.0, 0.2):
            V_TH = value
            neuron.reset()
            reference.reset()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the retrace says so once; test_constants_retrace checks that
                out = neuron(x)
            torch.testing.assert_close(out, reference(x))
    finally:
        V_TH = 1.0


CFG = SimpleNamespace(neuron={"v_threshold": 1.0})


def config_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v = v + (x - v) / 2.0
    s = (v >= CFG.neuron["v_threshold"]).to(x.dtype)
    return s, v * (1.0 - s)


@pytest.mark.parametrize("backend", ["triton", "hop"])
def test_a_changed_threshold_in_a_config_object_is_followed(backend: str) -> None:
    """``cfg.neuron["v_threshold"] = 0.2`` after construction (an argparse-built config): the kernels follow it."""
    x = torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(1)) * 3
    neuron = FlexSN(config_core, 1, 1, 1, step_mode="m", backend=backend)
    reference = FlexSN(config_core, 1, 1, 1, step_mode="m", backend="torch")
    try:
        outs = []
        for value in (1.0, 0.2):
            CFG.neuron["v_threshold"] = value
            neuron.reset()
            reference.reset()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = neuron(x)
            torch.testing.assert_close(out, reference(x))
            outs.append(out)
            if value != 1.0 and backend == "triton":
                assert any("global CFG.neuron['v_threshold'] (1.0 -> 0.2)" in str(w.message) for w in caught)
        assert not torch.equal(outs[0], outs[1])
    finally:
        CFG.neuron["v_threshold"] = 1.0


def test_a_compiled_graph_refuses_to_run_with_a_number_changed_since_it_was_traced() -> None:
    """Under torch.compile the kernels' literals cannot follow ``V_TH``: the next call raises, never a stale result.

    A backward of a forward that ran before the change still runs (it must match that forward), and calling
    the module once eagerly then compiling again gives the new value's result.
    """
    global V_TH
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(3)) * 3).to(pick_device())  # fused: CUDA, or CPU interpreted
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    reference = FlexSN(core, 1, 1, 1, step_mode="m", backend="torch")
    compiled = torch.compile(neuron, backend="aot_eager", fullgraph=True)
    try:
        xg = x.clone().requires_grad_()
        out = compiled(xg)
        neuron.reset()
        V_TH = 0.2
        (out * torch.linspace(0.0, 1.0, 8, device=x.device)).sum().backward()  # the forward ran with 1.0: its backward may run
        assert xg.grad is not None
        for arg in (x, x.clone().requires_grad_()):  # the inference and the training forward op
            with pytest.raises(RuntimeError, match=r"global V_TH \(1.0 -> 0.2\) changed since these kernels were traced"):
                compiled(arg)
            neuron.reset()
        neuron.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            neuron(x)  # eager: traces the kernels again
        neuron.reset()
        torch._dynamo.reset()
        torch.testing.assert_close(torch.compile(neuron, backend="aot_eager", fullgraph=True)(x), reference(x))
    finally:
        V_TH = 1.0
        torch._dynamo.reset()
