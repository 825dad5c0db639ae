"""The experimental template lowering of FlexSN inference scans (``flexsn_hop.enable_template_lowering``), on CUDA.

A per-channel affine in front of a neuron (BatchNorm's normalisation with given statistics) and a residual
add behind it, compiled with Inductor under ``no_grad`` with the neighbour pass off: with the lowering on,
the compiled code holds one template kernel (``triton_tem``) that reads the affine's input and writes the
sum, no opaque ``flexsn.inference`` call, and the result equals the eager network's (fp32: spikes equal
where the membrane is not within rounding of the threshold, states to 1e-5). Neurons: LIF (zero initial
states), ``ParametricLIFNode`` (a learnable decay lifted as a static input and a hoisted prologue), a
two-input, two-state, two-output core with given initial states and state sequences; LIF on ``backend="hop"``
(``flex_sn_scan``, whose compiled graph calls the same op). With the lowering
off again, the same function compiles to the opaque op (the on/off is in Inductor's cache key). The
template's own lines are checked on the CPU (``packages/flexsn-hop/tests/test_inductor_template.py``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
import torch._dynamo
from torch import nn

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="Inductor's template path needs CUDA")

import flexsn_hop  # noqa: E402
import flexsn_nn  # noqa: E402
from flexsn_nn.neurons import LIFNode  # noqa: E402
from flexsn_nn.neurons_learnable import ParametricLIFNode  # noqa: E402

T, B, C, L = 6, 4, 8, 50


@pytest.fixture(autouse=True)
def _lowering_on() -> Iterator[None]:
    fused = flexsn_hop.neighbour_fusion_enabled()
    flexsn_hop.enable_neighbour_fusion(False)  # the template, not the pass, fuses the neighbours here
    assert flexsn_hop.enable_template_lowering(True)
    torch._dynamo.reset()
    yield
    flexsn_hop.enable_template_lowering(False)
    flexsn_hop.enable_neighbour_fusion(fused)
    torch._dynamo.reset()


_SG = flexsn_nn.surrogate.Sigmoid()


def _two_by_two(x: torch.Tensor, y: torch.Tensor, v: torch.Tensor, a: torch.Tensor) -> tuple[torch.Tensor, ...]:
    h = 0.7 * v + x * torch.sigmoid(y)
    s = _SG(h - 1.0 - a)
    return s, h * 0.5, h * (1.0 - s), 0.9 * a + s


class Block(nn.Module):
    """``neuron((x - mean) * invstd * weight + bias) + residual`` with per-channel statistics ``[C, 1]``."""

    def __init__(self, neuron: nn.Module) -> None:
        super().__init__()
        self.neuron = neuron
        self.register_buffer("mean", torch.randn(C, 1) * 0.1)
        self.register_buffer("invstd", torch.rand(C, 1) + 0.5)
        self.weight = nn.Parameter(torch.rand(C, 1) + 0.5)
        self.bias = nn.Parameter(torch.randn(C, 1) * 0.1)

    def forward(self, x: torch.Tensor, r: torch.Tensor, *more: torch.Tensor) -> Any:
        flexsn_nn.functional.reset_net(self)
        out = self.neuron((x - self.mean) * self.invstd * self.weight + self.bias, *more)
        return (out[0] + r, *out[1:]) if isinstance(out, tuple) else out + r


NEURONS: dict[str, Callable[[], nn.Module]] = {
    "lif": lambda: LIFNode(step_mode="m"),
    "lif_hop": lambda: LIFNode(step_mode="m", backend="hop"),  # flex_sn_scan reaches the same op
    "plif": lambda: ParametricLIFNode(init_tau=3.0, step_mode="m"),
    "two_by_two": lambda: flexsn_nn.FlexSN(_two_by_two, num_inputs=2, num_states=2, num_outputs=2, step_mode="m",
                                           store_state_seqs=True),
}


def _compiled(fn: Callable[..., Any], *args: torch.Tensor) -> tuple[Any, str]:
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a call that stays opaque would say why
        out, codes = run_and_get_code(torch.compile(fn, fullgraph=True), *args)
    return out, "\n".join(codes)


def _opaque_calls(code: str) -> list[str]:
    """The lines of Inductor's output code that call ``flexsn::inference`` (its comments name the op too)."""
    return [line for line in code.splitlines() if "torch.ops.flexsn.inference.default(" in line and not line.strip().startswith("#")]


def _assert_close(got: Any, want: Any) -> None:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(NEURONS))
def test_template_fuses_the_affine_and_the_residual_add(name: str) -> None:
    torch.manual_seed(0)
    block = Block(NEURONS[name]()).cuda()
    x = torch.randn(T, B, C, L, device="cuda") * 1.5 + 0.7
    r = torch.randn(T, B, C, L, device="cuda")
    more = (torch.randn(T, B, C, L, device="cuda"),) if name == "two_by_two" else ()
    with torch.no_grad():
        want = block(x, r, *more)
        states = tuple(s.clone() for s in block.neuron.states)
    got, code = _compiled(block, x, r, *more)
    _assert_close(got, want)
    _assert_close(tuple(block.neuron.states), states)
    assert not _opaque_calls(code), "the scan stayed the opaque op"
    # prologue and epilogue fused: the template is the graph's one kernel (no other reads x or writes the sum)
    kernels = re.findall(r"(\w+) = async_compile\.triton\(", code)
    assert len(kernels) == 1 and kernels[0].startswith("triton_tem_"), kernels


def test_off_again_compiles_the_opaque_op() -> None:
    block = Block(LIFNode(step_mode="m")).cuda()
    x = torch.randn(T, B, C, L, device="cuda")
    r = torch.randn_like(x)
    _, code = _compiled(block, x, r)
    assert "triton_tem_" in code
    flexsn_hop.enable_template_lowering(False)
    with torch.no_grad():
        want = block(x, r)
    got, code = _compiled(block, x, r)
    assert "triton_tem_" not in code and _opaque_calls(code)
    _assert_close(got, want)


def test_with_the_neighbour_pass_on_the_results_agree() -> None:
    flexsn_hop.enable_neighbour_fusion(True)
    torch.manual_seed(1)
    block = Block(ParametricLIFNode(step_mode="m")).cuda()
    x = torch.randn(T, B, C, L, device="cuda") + 0.5
    r = torch.randn_like(x)
    with torch.no_grad():
        want = block(x, r)
    got, code = _compiled(block, x, r)
    _assert_close(got, want)
    assert "triton_tem_" in code


def test_bad_argument() -> None:
    with pytest.raises(TypeError, match="takes a bool"):
        flexsn_hop.enable_template_lowering("yes")  # type: ignore[arg-type]


def test_channels_last_convolution_output() -> None:
    """A neuron reading a channels-last convolution output (an extern kernel: no prologue to fuse) walks its
    neurons in that memory order and writes its outputs in it, without a transposing copy."""
    torch.manual_seed(2)
    conv = nn.Conv2d(3, C, 3, padding=1, bias=False).cuda().to(memory_format=torch.channels_last)
    neuron = LIFNode(step_mode="m")

    def step(x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        neuron.reset()
        y = conv(x.flatten(0, 1)).unflatten(0, (T, B))
        return neuron(y) + r

    x = torch.randn(T, B, 3, 10, 10, device="cuda")
    x = x.flatten(0, 1).contiguous(memory_format=torch.channels_last).unflatten(0, (T, B))
    r = torch.randn(T, B, 10, 10, C, device="cuda").permute(0, 1, 4, 2, 3)  # channels-last too
    with torch.no_grad():
        want = step(x, r)
        want_v = neuron.v.clone()
    got, code = _compiled(step, x, r)
    _assert_close(got, want)
    _assert_close(neuron.v, want_v)
    assert not _opaque_calls(code)
    kernels = re.findall(r"(\w+) = async_compile\.triton\(", code)
    # the scan reads the convolution's output where it lies: no copy kernel; Inductor may keep the residual
    # add apart (run8 of tools/results/gpu-2026-11-30c: it did, beside a contiguous residual)
    assert sum(k.startswith("triton_tem_") for k in kernels) == 1, kernels
    assert all(k.startswith("triton_tem_") or re.fullmatch(r"triton_poi_fused_add_\d+", k) for k in kernels), kernels


@pytest.mark.parametrize("mode", ["eval", "train"])
def test_batchnorm_prologue_over_a_channels_last_convolution(mode: str) -> None:
    """With the pass off, BatchNorm's normalisation is the template's prologue (``train``: on batch statistics,
    as the convnet's inference step runs it). Inductor lays the convolution out channels-last (its layout
    optimisation, forced here) while the graph was traced contiguous: the template walks the neurons in the
    order the prologue reads the convolution's output (channels innermost: its first unravelled index is
    ``idx_2``; walked contiguously, the convnet's first layer took 492 µs against 137,
    ``tools/results/gpu-2026-11-30d/`` run2 and run7), and the normalisation is its prologue, not a kernel of
    its own."""
    torch.manual_seed(3)
    conv = nn.Conv2d(3, C, 3, padding=1, bias=False).cuda()
    bn = nn.BatchNorm2d(C).cuda().train(mode == "train")
    bn.running_mean.uniform_(-0.2, 0.2)
    bn.running_var.uniform_(0.5, 1.5)
    neuron = LIFNode(step_mode="m")

    def step(x: torch.Tensor) -> torch.Tensor:
        neuron.reset()
        y = bn(conv(x.flatten(0, 1))).unflatten(0, (T, B))
        return neuron(y).mean(0)

    x = torch.randn(T, B, 3, 10, 10, device="cuda") * 2.0
    saved = {k: v.clone() for k, v in bn.state_dict().items()}
    with torch.no_grad():
        want = step(x)
        want_v = neuron.v.clone()
    bn.load_state_dict(saved)  # the running statistics as they were: the compiled call updates them once more
    with torch._inductor.config.patch(force_layout_optimization=True, fx_graph_cache=False):
        got, code = _compiled(step, x)
    _assert_close(got, want)
    _assert_close(neuron.v, want_v)
    assert not _opaque_calls(code)
    kernels = re.findall(r"(\w+) = async_compile\.triton\(", code)
    templates = [k for k in kernels if k.startswith("triton_tem_")]
    assert len(templates) == 1 and "batch_norm" in templates[0], kernels
    first = re.search(r"^\s+(idx_\d) = offs % ", code, re.M)
    assert first is not None and first.group(1) == "idx_2", first
    # the normalisation runs in the template's loads: no pointwise kernel writes it (run4 had one, a copy)
    assert not [k for k in kernels if k.startswith("triton_poi_") and "batch_norm" in k], kernels


def test_a_residual_sum_in_front_is_walked_as_it_is_written() -> None:
    """``neuron(bn(conv(x)) + r)`` with the pass off: the sum reads two sequences, more bytes than Inductor fuses
    as a template's prologue (``check_prologue_fusion_heuristics_fusable``), so it is written to memory, in the
    contiguous layout the template leaves it, and the template walks that order (its first unravelled index the
    innermost dim, ``idx_4``), not the channels-last order the sum reads its inputs in."""
    torch.manual_seed(4)
    conv = nn.Conv2d(3, C, 3, padding=1, bias=False).cuda()
    bn = nn.BatchNorm2d(C).cuda().eval()
    neuron = LIFNode(step_mode="m")

    def step(x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        neuron.reset()
        y = bn(conv(x.flatten(0, 1))).unflatten(0, (T, B))
        return neuron(y + r).mean(0)

    x = torch.randn(T, B, 3, 10, 10, device="cuda") * 2.0
    r = torch.randn(T, B, 10, 10, C, device="cuda").permute(0, 1, 4, 2, 3)  # channels-last, as the convolution's
    with torch.no_grad():
        want = step(x, r)
        want_v = neuron.v.clone()
    with torch._inductor.config.patch(force_layout_optimization=True, fx_graph_cache=False):
        got, code = _compiled(step, x, r)
    _assert_close(got, want)
    _assert_close(neuron.v, want_v)
    assert not _opaque_calls(code)
    kernels = re.findall(r"(\w+) = async_compile\.triton\(", code)
    assert sum(k.startswith("triton_tem_") for k in kernels) == 1, kernels
    first = re.search(r"^\s+(idx_\d) = offs % ", code, re.M)
    assert first is not None and first.group(1) == "idx_4", first
