"""How a scan kernel addresses its tensors: its signature and first lines, each tensor's index, loads and stores.

Shared by the templates of :mod:`flexsn_codegen.templates` (inference, forward), :mod:`flexsn_codegen.bptt`
and :mod:`flexsn_codegen.chunked` (backward), whose calling conventions that module's docstring gives. Every
load or store of a tensor parameter ``p`` goes through ``o_{p}`` (:func:`_offsets`): the launch's memory order,
or the second one the ``ALT`` mask names; the static inputs are read, and their partial gradients stored, in the
launch's order. Values are computed in fp32 and stored in each pointer's element type through the step module's
``flexsn_to_storage`` helper (round to nearest even).
"""

from __future__ import annotations

from typing import Sequence

from .lowering import STORAGE_CAST

_JIT = '@triton.jit(do_not_specialize=["T"])'


def _prologue(params: Sequence[str], name: str, num_static: int = 0, reductions: bool = False) -> list[str]:
    dims = [d for k in range(num_static) for d in (f"inner{k}", f"mid{k}")]
    # ZERO_INIT: the initial states are zeros made in registers (their pointers are not read)
    constexprs = ["BLOCK_NCL: tl.constexpr", "ZERO_INIT: tl.constexpr = False"]
    if reductions:  # RED{k}: how static input k's gradient leaves a program (_static_grad_store)
        constexprs += [f"RED{k}: tl.constexpr = 0" for k in range(num_static)]
    # ALT and its two ints last, with defaults: a call that reads every tensor in the launch's order passes none
    constexprs += ["ALT: tl.constexpr = 0", "alt_inner=1", "alt_mid=1"]
    return [
        _JIT,
        f"def {name}({', '.join([*params, 'T', 'NCL', *dims, *constexprs])}):",
        # a neuron's index is NCL's integer type: Triton passes NCL >= 2**31 as int64, and an int32
        # program_id * BLOCK_NCL would wrap there; NCL * 0 is folded away when NCL is int32
        "    pid = tl.program_id(0) + NCL * 0",
        "    offs = pid * BLOCK_NCL + tl.arange(0, BLOCK_NCL)",
        "    mask = offs < NCL",
        *_offsets(params),
    ]


def _offsets(params: Sequence[str]) -> list[str]:
    """Lines setting ``o_{p}``, the index of this program's neurons in tensor parameter ``p``'s memory.

    ``offs`` (the launch's memory order), or for a tensor whose bit is set in the ``ALT`` mask (bit ``k``:
    parameter ``k``) the same neurons in the order whose two innermost groups of per-step dims are swapped:
    ``alt_inner`` elements of the launch's innermost group, ``alt_mid`` of the one outside it. A contiguous
    ``[B, C, H, W]`` state read beside channels-last sequences (``inner = C``, ``mid = H * W``), or the other way
    round, needs no copy then (``flexsn_runtime.layout.fit_orders``). ``ALT`` is a constexpr: with its bit clear a
    tensor's index is ``offs`` itself, so the compiler still sees its contiguity and vectorises the accesses.
    """
    lines = [
        "    if ALT != 0:",
        "        alt_block = alt_inner * alt_mid",
        "        alt = (offs // alt_block) * alt_block + (offs % alt_inner) * alt_mid + (offs // alt_inner) % alt_mid",
    ]
    for k, p in enumerate(params):
        lines += [f"    if (ALT >> {k}) & 1:", f"        o_{p} = alt", "    else:", f"        o_{p} = offs"]
    return lines


def _static_load(ptr: str, k: int) -> str:
    """Load static input ``k`` for this program's neurons (broadcast index; once, before the time loop)."""
    return f"tl.load({ptr} + (offs // inner{k}) % mid{k}, mask=mask, other=0.0).to(tl.float32)"


def _static_grad_store(ptr: str, k: int) -> list[str]:
    """Lines storing static ``k``'s time-summed gradient ``acc{k}``: per neuron (``RED{k}`` 0), summed over
    the program (1: its neurons share one element), or ``P = inner * mid`` sums (``P`` dividing ``BLOCK_NCL``:
    neuron ``j`` reads pattern element ``j % P``, e.g. a channels-last ``[C]`` static). Padding lanes are
    zeroed first; register sums, no atomics, so the result does not depend on scheduling.
    """
    acc, red = f"acc{k}", f"RED{k}"
    return [
        f"    {acc} = tl.where(mask, {acc}, 0.0)",
        f"    if {red} == 0:",
        f"        tl.store({ptr} + offs, {acc}, mask=mask)",
        f"    elif {red} == 1:",
        f"        tl.store({ptr} + pid, tl.sum({acc}, axis=0))",
        "    else:",
        f"        tl.store({ptr} + pid * {red} + tl.arange(0, {red}),"
        f" tl.sum(tl.reshape({acc}, [BLOCK_NCL // {red}, {red}]), axis=0))",
    ]


def _load(ptr: str) -> str:
    """Load a per-step tensor (an initial state or a final-state gradient)."""
    return f"tl.load({ptr} + o_{ptr}, mask=mask, other=0.0).to(tl.float32)"


def _init_states(s0: Sequence[str]) -> list[str]:
    """Kernel lines setting ``st{j}`` to initial state ``j``: loaded, or zeros when ``ZERO_INIT`` (no read of ``s0``)."""
    if not s0:
        return []
    return [
        "    if ZERO_INIT:",
        *(f"        st{j} = tl.zeros([BLOCK_NCL], tl.float32)" for j in range(len(s0))),
        "    else:",
        *(f"        st{j} = {_load(p)}" for j, p in enumerate(s0)),
    ]


def _store(ptr: str, value: str, seq: bool = True) -> str:
    at = f"{ptr} + base" if seq else ptr
    return f"tl.store({at} + o_{ptr}, {STORAGE_CAST}({value}, {ptr}.dtype.element_ty), mask=mask)"


def _rounded(value: str, ptr: str) -> str:
    return f"{STORAGE_CAST}({value}, {ptr}.dtype.element_ty).to(tl.float32)"


def _seq_load(ptr: str, time: str, shift: int) -> str:
    at = f"({time}) - 1" if shift == -1 else time
    # block-shaped validity: the interpreter cannot mask with a scalar
    valid = f"mask & ((offs * 0 + ({at})) >= 0) & ((offs * 0 + ({at})) < T)"
    return f"tl.load({ptr} + tl.cast({at}, tl.int64) * NCL + o_{ptr}, mask={valid}, other=0.0).to(tl.float32)"
