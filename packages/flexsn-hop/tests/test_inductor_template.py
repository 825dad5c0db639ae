"""The inference scan rendered as an Inductor ``TritonTemplate`` (flexsn_codegen.inductor_template), checked on the CPU.

Inductor's template path needs a GPU, so here the template's four hooks are replaced by what Inductor
renders for them without fusion (``def_kernel``: the signature; ``size``: the static size;
``load_input`` / ``store_output``: a load and a store at the address the per-dim indices give in a
contiguous tensor) and the kernel runs in Triton's interpreter. Its outputs and states are compared with
the eager time loop: the template's own lines (neuron index unravelling, states, statics at their
broadcast index, the hoisted prologue, the step call, the stores and their dtypes) are what is tested.
The lowering itself (Inductor, fusion) runs in the GPU suite (``tests-integration/test_template_lowering.py``).
"""

from __future__ import annotations

import importlib.util
import math
import re
from typing import Any, Callable

import pytest
import torch
import triton

from flexsn_codegen import interpreter_enabled
from flexsn_codegen.inductor_template import render_inference_template, step_parts, template_argnames
from flexsn_runtime import FlexSNKernel
from flexsn_runtime.layout import strides_in_order
from flexsn_runtime.op_impls import inference_kernel
from flexsn_runtime.registry import lookup_flexsn_kernel_handle
from hop_reference import python_loop

torch.manual_seed(0)
# compiled on CUDA where there is one, else in Triton's interpreter (CI sets TRITON_INTERPRET=1)
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
pytestmark = pytest.mark.skipif(
    DEVICE.type == "cpu" and not interpreter_enabled(), reason="Triton kernels need CUDA or TRITON_INTERPRET=1"
)


def lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    s = (h >= 1.0).to(x.dtype)
    return s, h * (1.0 - s)


def two_by_two(x: torch.Tensor, y: torch.Tensor, v: torch.Tensor, a: torch.Tensor) -> tuple[torch.Tensor, ...]:
    h = 0.7 * v + x * torch.sigmoid(y)
    s = (h >= 1.0 + a).to(x.dtype)
    return s, h * 0.5, h * (1.0 - s), 0.9 * a + s


def plif(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(w)  # sigmoid(w) is hoisted out of the time loop
    s = (h >= th).to(x.dtype)
    return s, h - s * th


CASES: dict[str, tuple[Callable[..., Any], int, int, int, Callable[[tuple[int, ...]], list[torch.Tensor]]]] = {
    "lif": (lif, 1, 1, 1, lambda step: []),
    "two_by_two": (two_by_two, 2, 2, 2, lambda step: []),
    # a scalar decay parameter and a per-channel threshold ([C, 1] beside steps [B, C, L])
    "plif_per_channel": (plif, 1, 1, 1, lambda step: [torch.tensor(0.3), torch.rand(step[1], 1) + 0.5]),
}


def _plain(source: str, argnames: list[str], size: list[int], hook_strides: dict[str, list[int]]) -> str:
    """The template with its hooks rendered as Inductor renders them without fusion (``hook_strides``: the
    strides of the tensors the hooks read and write: ``x{i}`` and the output ``out0``)."""
    src = source.replace("{% raw %}", "").replace("{% endraw %}", "")
    src = re.sub(r'\{\{size\("x0", (\d+)\)\}\}', lambda m: str(size[int(m.group(1))]), src)
    params = ", ".join([*argnames, "out0", "BLOCK_NCL: tl.constexpr"])
    # def_kernel also defines the index dtype, as a constexpr of the kernel's body
    src = re.sub(r"\{\{def_kernel\(.*?\)\}\}",
                 f"@triton.jit\ndef template_kernel({params}):\n    INDEX_DTYPE: tl.constexpr = tl.int64", src)

    def address(tensor: str, indices: str) -> str:
        names = re.findall(r'"(\w+)"', indices)
        return " + ".join(f"{n} * {s}" for n, s in zip(names, hook_strides[tensor]))

    src = re.sub(
        r'\{\{load_input\("(\w+)", "(\w+)", (\(.*?\)), mask="mask".*?\)\}\}',
        lambda m: f"{m.group(2)} = tl.load({m.group(1)} + ({address(m.group(1), m.group(3))}), mask=mask, other=0.0)", src,
    )
    src = re.sub(
        r'\{\{store_output\((\(.*?\)), "(\w+)", "mask".*?\)\}\}',
        lambda m: f"tl.store(out0 + ({address('out0', m.group(1))}), {m.group(2)}, mask=mask)", src,
    )
    assert "{{" not in src and "{%" not in src, src
    return "import triton\nimport triton.language as tl\n\n" + src


def _run_template(kernel: FlexSNKernel, seqs: list[torch.Tensor], init: list[torch.Tensor], statics: list[torch.Tensor],
                  final_state: bool, order: list[int], tmp_path: Any) -> list[torch.Tensor]:
    """The rendered template run over ``seqs`` laid out in ``order`` (the sequences' dims, outermost first)."""
    scan, info = inference_kernel(lookup_flexsn_kernel_handle(kernel.handle), final_state)
    ni, ns, no, nw = info.num_inputs, info.num_states, info.num_outputs, info.num_static
    size = tuple(seqs[0].shape)
    step = size[1:]
    zero_init = not init
    step_order = tuple(d - 1 for d in order[1:])  # time is outermost in every order here
    seq_strides, step_strides = list(strides_in_order(size, step_order)), list(strides_in_order(step, step_order))
    strides: dict[str, list[int]] = {f"s0_{j}": list(s.stride()) for j, s in enumerate(init)}
    for k, w in enumerate(statics):
        shape = (1,) * (len(step) - w.dim()) + tuple(w.shape)
        strides[f"w{k}"] = [0 if n == 1 else st for n, st in zip(shape, strides_in_order(shape, tuple(range(len(shape)))))]
    strides.update({f"y{k}": seq_strides for k in range(1, no)})
    strides.update({(f"sf{j}" if final_state else f"sq{j}"): (step_strides if final_state else seq_strides) for j in range(ns)})
    source = render_inference_template(step_parts(scan.code, round_by_hand=DEVICE.type == "cpu"), ni, ns, no, nw,
                                       len(step), zero_init, final_state, strides, order[1:])
    names = template_argnames(ni, ns, no, nw, zero_init, final_state)
    hook_strides = {f"x{i}": list(x.stride()) for i, x in enumerate(seqs)}
    hook_strides["out0"] = seq_strides
    path = tmp_path / f"template_{len(list(tmp_path.iterdir()))}.py"
    path.write_text(_plain(source, names, list(size), hook_strides))
    spec = importlib.util.spec_from_file_location(path.stem, path)  # a real module: Triton reads its source
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def empty(shape: tuple[int, ...], st: list[int]) -> torch.Tensor:
        return torch.empty_strided(shape, st, device=DEVICE)

    outs = [empty(size, seq_strides) for _ in range(no)]
    states = [empty(step, step_strides) if final_state else empty(size, seq_strides) for _ in range(ns)]
    args = [*seqs, *init, *[w.contiguous() for w in statics], *outs[1:], *states, outs[0]]
    module.template_kernel[(triton.cdiv(math.prod(step), 64),)](*args, BLOCK_NCL=64)
    return [*outs, *states]


#: the sequences' memory orders ([T, B, C, L], outermost first): contiguous, and channels-last (C innermost)
ORDERS = {"contiguous": [0, 1, 2, 3], "channels_last": [0, 1, 3, 2]}


@pytest.mark.parametrize("layout", sorted(ORDERS))
@pytest.mark.parametrize("final_state", [True, False], ids=["final_state", "state_seqs"])
@pytest.mark.parametrize("zero_init", [True, False], ids=["zero_init", "given_states"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_template_scan_matches_the_loop(case: str, zero_init: bool, final_state: bool, layout: str, tmp_path: Any) -> None:
    core, ni, ns, no, make_statics = CASES[case]
    T, step = 5, (2, 3, 7)  # [B, C, L]: 42 neurons, a partial last program of 64
    order = ORDERS[layout]
    statics = [w.to(DEVICE) for w in make_statics(step)]
    kernel = FlexSNKernel(core, ni, ns, no, num_static=len(statics))
    step_order = tuple(d - 1 for d in order[1:])
    seqs = [torch.empty_strided((T, *step), strides_in_order((T, *step), step_order), device=DEVICE).normal_().mul_(1.5).add_(0.5)
            for _ in range(ni)]
    init = [] if zero_init else [torch.rand(*step, device=DEVICE) for _ in range(ns)]
    got = _run_template(kernel, seqs, init, statics, final_state, order, tmp_path)
    seq_results, final = python_loop(core, no, seqs, init or [torch.zeros(step, device=DEVICE) for _ in range(ns)], statics)
    want = [*seq_results[:no], *final] if final_state else list(seq_results)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, k
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6, msg=lambda m: f"result {k}: {m}")


def test_step_parts_finds_the_step_and_the_hoisted_prologue() -> None:
    kernel = FlexSNKernel(plif, 1, 1, 1, num_static=2)
    scan, _ = inference_kernel(lookup_flexsn_kernel_handle(kernel.handle), True)
    parts = step_parts(scan.code)
    assert parts.step_name in parts.helpers and f"def {parts.step_name}(" in parts.helpers
    assert parts.hoisted_name is not None and parts.num_hoisted >= 1
    assert "flexsn_inference" not in parts.helpers  # the eager kernel is left out
    assert "FLEXSN_ROUND_BY_HAND = tl.constexpr(False)" in parts.helpers  # compiled kernels round in one instruction
    with pytest.raises(ValueError, match="not a rendered FlexSN inference kernel"):
        step_parts("import triton\n")


def test_render_refuses_a_scan_without_inputs_or_outputs() -> None:
    kernel = FlexSNKernel(lif, 1, 1, 1)
    scan, _ = inference_kernel(lookup_flexsn_kernel_handle(kernel.handle), True)
    parts = step_parts(scan.code)
    with pytest.raises(ValueError, match="needs an input sequence, an output and a per-step shape"):
        render_inference_template(parts, 1, 1, 1, 0, 0, True, True, {})
    with pytest.raises(ValueError, match="order must list the step dims"):
        render_inference_template(parts, 1, 1, 1, 0, 2, True, True, {"sf0": [1, 1]}, [1, 1])
    with pytest.raises(ValueError, match="no strides for template argument 'sf0'"):
        render_inference_template(parts, 1, 1, 1, 0, 2, True, True, {})


def test_a_program_walks_the_neurons_in_memory_order() -> None:
    """Coalescing (not values: every address comes from the per-dim indices): the innermost index in
    memory is unravelled first, so consecutive lanes of a program are consecutive in memory."""
    kernel = FlexSNKernel(lif, 1, 1, 1)
    scan, _ = inference_kernel(lookup_flexsn_kernel_handle(kernel.handle), True)
    parts = step_parts(scan.code)
    for order, innermost in [([1, 2, 3], 3), ([1, 3, 2], 2)]:  # [B, C, L] contiguous; channels-last (C innermost)
        source = render_inference_template(parts, 1, 1, 1, 0, 3, True, True, {"sf0": [21, 7, 1]}, order)
        first = next(line.strip() for line in source.splitlines() if line.strip().startswith("idx_"))
        assert first == f'idx_{innermost} = offs % {{{{size("x0", {innermost})}}}}', first
