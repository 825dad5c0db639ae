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


def _loss_and_grad(module: torch.nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    xg = x.clone().requires_grad_()
    out = module(xg)
    (out * torch.linspace(0.0, 1.0, out.shape[-1], device=x.device)).sum().backward()
    assert xg.grad is not None
    return out.detach(), xg.grad


def smooth_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``core`` with a sigmoid in place of the step, so that its output has a gradient."""
    v = v + (x - v) / 2.0
    s = torch.sigmoid(4.0 * (v - V_TH))
    return s, v * (1.0 - s)


@pytest.mark.parametrize("train", [False, True], ids=["inference", "training"])
def test_a_compiled_call_follows_a_number_changed_since_it_was_compiled(train: bool) -> None:
    """Under torch.compile the numbers are Dynamo guards: ``V_TH = 0.2`` compiles again and traces the kernels again
    (one warning naming it), so the next compiled call gives the new value's result, never the old kernels'.

    A backward of a forward that ran before the change still runs (it must match that forward).
    """
    global V_TH
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(3)) * 3).to(pick_device())  # fused: CUDA, or CPU interpreted
    step = smooth_core if train else core
    neuron = FlexSN(step, 1, 1, 1, step_mode="m", backend="triton")
    reference = FlexSN(step, 1, 1, 1, step_mode="m", backend="torch")
    torch._dynamo.reset()
    compiled = torch.compile(neuron, backend="aot_eager", fullgraph=True)

    def call(module: torch.nn.Module) -> tuple[torch.Tensor, ...]:
        module.reset()  # type: ignore[operator]
        if train:
            return _loss_and_grad(module, x)
        with torch.no_grad():
            return (module(x),)

    try:
        for got, want in zip(call(compiled), call(reference)):
            torch.testing.assert_close(got, want)
        if train:  # a graph kept from before the change: its backward runs with the forward's kernels
            xg = x.clone().requires_grad_()
            neuron.reset()
            out = compiled(xg)
            V_TH = 0.2
            out.sum().backward()
            assert xg.grad is not None
        V_TH = 0.2
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            after = call(compiled)
        for got, want in zip(after, call(reference)):
            torch.testing.assert_close(got, want)
        assert any("global V_TH (1.0 -> 0.2) changed since the kernels were traced" in str(w.message) for w in caught)
        assert neuron.kernel.constants.traced == (0.2,)
    finally:
        V_TH = 1.0
        torch._dynamo.reset()


def test_an_exported_program_refuses_to_run_with_a_changed_number() -> None:
    """``torch.export`` keeps the handle it traced, without guards: its forward op raises naming the number rather
    than compute with the old one; the module itself, called again, follows the change."""
    global V_TH
    x = (torch.rand(6, 3, 8, generator=torch.Generator().manual_seed(8)) * 3).to(pick_device())
    neuron = FlexSN(core, 1, 1, 1, step_mode="m", backend="triton")
    reference = FlexSN(core, 1, 1, 1, step_mode="m", backend="torch")

    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.sn = neuron

        def forward(self, t: torch.Tensor) -> torch.Tensor:
            self.sn.reset()
            return self.sn(t)  # type: ignore[no-any-return]

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # export: "a tensor attribute was assigned" (the neuron's state)
            program = torch.export.export(Wrapped(), (x,)).module()
        torch.testing.assert_close(program(x), reference(x))
        V_TH = 0.2
        with pytest.raises(RuntimeError, match=r"global V_TH \(1.0 -> 0.2\) changed since these kernels were traced"):
            program(x)
        reference.reset()
        neuron.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.testing.assert_close(neuron(x), reference(x))
    finally:
        V_TH = 1.0
        torch._dynamo.reset()
