"""The inference scan as the source of an Inductor ``TritonTemplate`` (experimental, #16).

Inductor fuses pointwise producers into a template's loads and pointwise consumers into its stores
when the template reads and writes through its ``load_input`` / ``store_output`` hooks
(``torch/_inductor/select_algorithm.py``, ``TritonTemplateKernel``; PyTorch's mm template calls
``load_input`` inside its loop over K, ``kernel/templates/triton_mm.py.jinja``). This module renders
the scan of :func:`flexsn_codegen.templates.render_inference_kernel` in that form: one program per
``BLOCK_NCL`` neurons walks the time axis with the states in fp32 registers; every input sequence
is read through ``load_input`` and output 0 written through ``store_output``, at indices
``(t, *neuron's step index)`` from which Inductor computes each tensor's address in its own layout;
initial states, static inputs, the other outputs and the final states (or state sequences) are
plain loads and stores at the same per-dim indices times the strides the lowering gives (the written
ones are the template's mutated inputs, as FlexAttention writes its log-sum-exp; a static input's
stride is 0 along the dims it is broadcast over). A program's neurons are consecutive in the memory
order the lowering names (``order``: the step dims outermost first, e.g. channels-last's ``C`` last),
so its accesses are coalesced in that layout. The step function and its helpers come from the module the inference
kernels were rendered in (:func:`step_parts`), unchanged, so the template computes the same
recurrence, stored in the same dtypes (``flexsn_to_storage``).

Template arguments, in ``def_kernel`` order: ``x{i}`` (input sequences ``[T, *step]``),
``s0_{j}`` (initial states ``[*step]``, absent with zero states), ``w{k}`` (static inputs),
``y{k}`` for outputs ``k >= 1``, then ``sf{j}`` (final states) or ``sq{j}`` (state sequences). The
constexpr ``BLOCK_NCL`` comes from the template's choice; Inductor's ``def_kernel`` defines ``INDEX_DTYPE``.
"""

from __future__ import annotations

import re
from typing import Mapping, NamedTuple, Sequence

from .addressing import _JIT
from .lowering import ROUND_BY_HAND, STORAGE_CAST

__all__ = ["StepParts", "render_inference_template", "step_parts", "template_argnames"]

# the lines of a rendered module this reads: the scan kernel's decorator (addressing._JIT), its call of the
# step (templates._step_call: ``r_0, r_1 = step(...)``) and of the hoisted prologue (templates._prologue_call)
_KERNEL_START = re.compile(rf"^{re.escape(_JIT)}\s*$", re.M)
_STEP_CALL = re.compile(r"^\s+r_\d+(?:, r_\d+)* = (\w+)\(", re.M)
_HOISTED_CALL = re.compile(r"^\s+(inv\d+(?:, inv\d+)*) = (\w+)\(", re.M)


class StepParts(NamedTuple):
    """What a rendered inference module holds beside its kernel: ``helpers`` (the step function, the
    storage cast, the hoisted prologue), the step's name, and the prologue's name and value count
    (``None, 0`` without one)."""

    helpers: str
    step_name: str
    hoisted_name: str | None
    num_hoisted: int


def step_parts(module_code: str, round_by_hand: bool = False) -> StepParts:
    """Split an inference kernel module (:func:`flexsn_codegen.templates.render_inference_kernel`) into its parts.

    ``round_by_hand``: the value the helpers' ``FLEXSN_ROUND_BY_HAND`` gets (``True`` only where the
    template's kernel runs in Triton's interpreter; :mod:`flexsn_codegen.cache` sets it so for kernels
    it loads).

    Raises:
        ValueError: the module does not have the rendered form (no kernel, no step call).
    """
    starts = [m.start() for m in _KERNEL_START.finditer(module_code)]
    step = _STEP_CALL.search(module_code)
    if not starts or step is None:
        raise ValueError("not a rendered FlexSN inference kernel module (no scan kernel or step call found)")
    kernel = module_code[starts[-1]:]
    helpers = "\n".join(
        line for line in module_code[: starts[-1]].splitlines() if line not in ("import triton", "import triton.language as tl")
    ).strip("\n")
    flag = f"{ROUND_BY_HAND} = tl.constexpr("
    helpers = helpers.replace(f"{flag}True)", f"{flag}{round_by_hand})").replace(f"{flag}False)", f"{flag}{round_by_hand})")
    hoisted = _HOISTED_CALL.search(kernel)
    if hoisted is None:
        return StepParts(helpers, step.group(1), None, 0)
    return StepParts(helpers, step.group(1), hoisted.group(2), len(hoisted.group(1).split(", ")))


def template_argnames(num_inputs: int, num_states: int, num_outputs: int, num_static: int,
                      zero_init: bool, final_state: bool) -> list[str]:
    """The template's argument names in ``def_kernel`` order (see the module docstring)."""
    return [
        *(f"x{i}" for i in range(num_inputs)),
        *(() if zero_init else (f"s0_{j}" for j in range(num_states))),
        *(f"w{k}" for k in range(num_static)),
        *(f"y{k}" for k in range(1, num_outputs)),
        *((f"sf{j}" if final_state else f"sq{j}") for j in range(num_states)),
    ]


def _address(strides: Sequence[int], dims: Sequence[str]) -> str:
    """``sum(index * stride)`` over the dims whose stride is not 0, as a block of ``BLOCK_NCL`` offsets."""
    terms = [f"{d} * {st}" if st != 1 else d for d, st in zip(dims, strides) if st != 0]
    return " + ".join(["offs * 0", *terms]) if not terms else " + ".join(terms)


def render_inference_template(
    parts: StepParts, num_inputs: int, num_states: int, num_outputs: int, num_static: int,
    step_rank: int, zero_init: bool, final_state: bool,
    strides: Mapping[str, Sequence[int]], order: Sequence[int] | None = None,
) -> str:
    """The Jinja source of the inference scan template (see the module docstring).

    Args:
        parts: the step function and helpers (:func:`step_parts`).
        num_inputs, num_states, num_outputs, num_static: the kernels' arity (``num_static`` counts
            lifted captures too).
        step_rank: the number of per-step dims of the input sequences (``x0`` is ``[T, *step]``).
        zero_init: the states start from zeros made in registers (no ``s0_{j}`` argument).
        final_state: store the final states (``sf{j}``) instead of state sequences (``sq{j}``).
        strides: per plain tensor argument (``s0_{j}``, ``w{k}``, ``y{k}``, ``sf{j}``, ``sq{j}``), its
            strides in elements: over the step dims, with the time dim first for sequences (``y{k}``,
            ``sq{j}``); 0 where a static input is broadcast.
        order: the step dims (1 to ``step_rank``) from the outermost to the innermost in memory; a
            program's neurons are consecutive in it. Default: ``1, ..., step_rank`` (contiguous).

    Raises:
        ValueError: no input, no output, ``step_rank < 1``, ``order`` not a permutation of the step dims, or
            an argument without strides.
    """
    if num_inputs < 1 or num_outputs < 1 or step_rank < 1:
        raise ValueError(
            f"the template needs an input sequence, an output and a per-step shape; got {num_inputs} input(s), "
            f"{num_outputs} output(s), step rank {step_rank}"
        )
    order = list(order) if order is not None else list(range(1, step_rank + 1))
    if sorted(order) != list(range(1, step_rank + 1)):
        raise ValueError(f"order must list the step dims 1..{step_rank} once each, got {order}")
    names = template_argnames(num_inputs, num_states, num_outputs, num_static, zero_init, final_state)

    def size(d: int) -> str:  # a Jinja call of the template's size hook
        return f'{{{{size("x0", {d})}}}}'

    step_idx = [f"idx_{d}" for d in range(1, step_rank + 1)]
    hook_idx = "(" + ", ".join(f'"{i}"' for i in ["idx_t", *step_idx]) + ",)"

    def address(name: str, seq: bool) -> str:
        given = strides.get(name)
        if given is None:
            raise ValueError(f"no strides for template argument {name!r}")
        return _address(given, ["idx_t", *step_idx] if seq else step_idx)

    lines = [
        f'{{{{def_kernel({", ".join(repr(n) for n in names)})}}}}',
        f"    T = {size(0)}",
        f"    NCL = {' * '.join(size(d) for d in range(1, step_rank + 1))}",
        "    offs = tl.program_id(0).to(INDEX_DTYPE) * BLOCK_NCL + tl.arange(0, BLOCK_NCL).to(INDEX_DTYPE)",
        "    mask = offs < NCL",
    ]
    # the neuron's index in each step dim, unravelled innermost first in the memory order
    rest = "offs"
    for k, d in enumerate(reversed(order)):
        if k == step_rank - 1:
            lines.append(f"    idx_{d} = {rest}")
        else:
            lines += [f"    idx_{d} = {rest} % {size(d)}", f"    rest_{d} = {rest} // {size(d)}"]
            rest = f"rest_{d}"
    for j in range(num_states):
        init = ("tl.zeros([BLOCK_NCL], tl.float32)" if zero_init
                else f"tl.load(s0_{j} + ({address(f's0_{j}', False)}), mask=mask, other=0.0).to(tl.float32)")
        lines.append(f"    st{j} = {init}")
    lines += [
        f"    stat{k} = tl.load(w{k} + ({address(f'w{k}', False)}), mask=mask, other=0.0).to(tl.float32)"
        for k in range(num_static)
    ]
    invs = [f"inv{k}" for k in range(parts.num_hoisted)]
    if parts.hoisted_name is not None:
        lines.append(f"    {', '.join(invs)} = {parts.hoisted_name}({', '.join(f'stat{k}' for k in range(num_static))})")
    lines += ["    for t in range(T):", "        idx_t = tl.full([BLOCK_NCL], t, INDEX_DTYPE)"]
    for i in range(num_inputs):
        lines += [
            f'        {{{{load_input("x{i}", "in{i}", {hook_idx}, mask="mask", indent_width=8, index_shape=("BLOCK_NCL",))}}}}',
            f"        in{i} = in{i}.to(tl.float32)",
        ]
    rets = [f"r_{k}" for k in range(num_outputs + num_states)]
    args = [*(f"in{i}" for i in range(num_inputs)), *(f"st{j}" for j in range(num_states)),
            *(f"stat{k}" for k in range(num_static)), *invs]
    lines.append(f"        {', '.join(rets)} = {parts.step_name}({', '.join(args)})")
    for k in range(1, num_outputs):
        lines.append(f"        tl.store(y{k} + ({address(f'y{k}', True)}), {STORAGE_CAST}(r_{k}, y{k}.dtype.element_ty), mask=mask)")
    for j in range(num_states):
        ptr = f"sf{j}" if final_state else f"sq{j}"
        lines.append(f"        st{j} = {STORAGE_CAST}(r_{num_outputs + j}, {ptr}.dtype.element_ty).to(tl.float32)")
        if not final_state:
            lines.append(f"        tl.store({ptr} + ({address(ptr, True)}), {STORAGE_CAST}(st{j}, {ptr}.dtype.element_ty), mask=mask)")
    # output 0 last in the step: the epilogue Inductor fuses here reads nothing the lines above change
    lines.append(
        f'        {{{{store_output({hook_idx}, "r_0", "mask", indent_width=8, val_shape=("BLOCK_NCL",))}}}}'
    )
    if final_state:
        lines += [
            f"    tl.store(sf{j} + ({address(f'sf{j}', False)}), {STORAGE_CAST}(st{j}, sf{j}.dtype.element_ty), mask=mask)"
            for j in range(num_states)
        ]
    # the step module's functions after the kernel, as FlexAttention's templates append their utilities;
    # raw: Jinja must not read the generated code
    return "\n".join(lines) + "\n\n\n{% raw %}\n" + parts.helpers + "\n{% endraw %}\n"
