"""The recomputing BPTT kernel: states read every ``chunk`` steps, the steps between recomputed in registers.

Rendered by :func:`flexsn_codegen.render_backward_kernel` for a pair whose
saved values are the step's own arguments (``FlexSNInfo.chunk > 1``,
:mod:`flexsn_trace.recompute`). Same calling convention as the saved-value
backward kernel (:mod:`flexsn_codegen.bptt`); in the final-state variant the
state "sequences" it takes are the forward's checkpoints
(:func:`flexsn_codegen.checkpoint_rows`), otherwise it reads the state
sequences at every ``chunk``-th row.

For each chunk of ``K = chunk`` steps, from the last: the states before
the chunk's first step are read (the initial states for the first chunk),
the chunk's ``K`` input steps and incoming gradients are loaded together
(independent loads, in flight at once), the forward step runs ``K - 1`` times to restate each
step's states, rounded to their storage type as the forward rounded them,
and the backward step then runs for the ``K`` steps in reverse. The chunk
is unrolled in the rendered source (one set of names per step), so every
value stays in registers. Steps past ``T`` in the last chunk read zeros,
store nothing and leave the carried gradients unchanged.
"""

from __future__ import annotations

from typing import Sequence

from flexsn_trace import FlexSNInfo

from .cache import interpreter_enabled
from .addressing import _rounded, _seq_load, _store
from .templates import Hoisted, _backward_head, _backward_tail, _module, _prologue_call

__all__ = ["Steps", "render_chunked_backward"]

#: the forward step a recomputing backward also runs: ``(module source, function name, hoisted prologue)``
Steps = tuple[str, str, "Hoisted | None"]


def _call(fn: str, args: Sequence[str], rets: Sequence[str]) -> str:
    lhs = ", ".join(rets) if len(rets) > 1 else rets[0]
    return f"        {lhs} = {fn}({', '.join(args)})"


def render_chunked_backward(
    step_code: str, step_name: str, info: FlexSNInfo, tangent_mask: Sequence[bool], final_state: bool,
    hoisted: Hoisted | None, forward: Steps, bwd_invariants: Sequence[int],
) -> tuple[str, str]:
    """Render the recomputing reverse-time kernel (see the module docstring).

    Args:
        step_code, step_name: the backward step ``[*inputs, *states, *statics, *tangents] -> [*grads]``.
        info: the pair's :class:`~flexsn_trace.FlexSNInfo` (``info.chunk > 1``; its saved values are
            the step's arguments in order).
        tangent_mask, final_state: as :func:`flexsn_codegen.render_backward_kernel`.
        hoisted: the backward step's hoisted prologue, taking the saved values at ``bwd_invariants``
            (the static inputs).
        forward: the forward step ``[*inputs, *states, *statics] -> [*outputs, *new_states, ...]``.

    Returns:
        ``(code, kernel_name)``.

    Raises:
        ValueError: ``info.chunk < 2``, or saved values that are not the step's arguments.
    """
    K = info.chunk
    ni, ns, no, nw = info.num_inputs, info.num_states, info.num_outputs, info.num_static
    expected = [("input", i) for i in range(ni)] + [("prev_state", j) for j in range(ns)] + [("static", k) for k in range(nw)]
    if K < 2 or [tuple(s) for s in info.saved_sources] != expected:
        raise ValueError("a recomputing backward needs chunk >= 2 and the step's arguments as its saved values")
    frame, lines = _backward_head(info, final_state)  # init{j} and stat{k} loaded: all are saved arguments here
    gy, gs, saved, sv, gx = frame.gy, frame.gs, frame.saved, frame.sv, frame.gx
    xs = [sv[saved.index(("input", i))] for i in range(ni)]
    seqs = [sv[saved.index(("return", no + j))] for j in range(ns)]
    stats = [f"stat{k}" for k in range(nw)]
    fwd_code, fwd_name, fwd_hoisted = forward
    fpro, finvs = _prologue_call(fwd_hoisted, stats, "finv")
    bpro, binvs = _prologue_call(hoisted, [f"stat{info.saved_sources[s].slot}" for s in bwd_invariants])
    lines += [*fpro, *bpro]
    lines.append(f"    NCH = (T + {K - 1}) // {K}")
    if interpreter_enabled():  # a while loop: see flexsn_codegen.templates._time_loop
        lines += ["    c = NCH", "    while c > 0:", "        c -= 1"]
    else:
        lines += ["    for ci in range(NCH):", "        c = NCH - 1 - ci"]
    lines.append(f"        t0 = c * {K}")
    # the states before the chunk: the initial states, or the final-state forward's checkpoint row c - 1
    # (flexsn_codegen.checkpoint_rows), or the state sequence's row t0 - 1
    row = "c" if final_state else "t0"
    for j in range(ns):
        lines.append(f"        st{j} = tl.where((offs * 0 + t0) > 0, {_seq_load(seqs[j], row, -1)}, init{j})")
    # every load of the chunk first: 2K-odd independent loads in flight while the steps compute
    for k in range(K):
        lines += [f"        x{i}_{k} = {_seq_load(p, f't0 + {k}', 0)}" for i, p in enumerate(xs)]
        lines += [f"        tan_y{m}_{k} = {_seq_load(gy[m], f't0 + {k}', 0)}" for m in range(no) if tangent_mask[m]]
        if not final_state:
            lines += [f"        gseq{j}_{k} = {_seq_load(gs[j], f't0 + {k}', 0)}" for j in range(ns) if tangent_mask[no + j]]
    n_fwd = len(info.fwd_core_returns)
    for k in range(K):
        lines += [f"        p{j}_{k} = st{j}" for j in range(ns)]
        if k < K - 1:  # the states after the chunk's last step are not needed
            args = [*(f"x{i}_{k}" for i in range(ni)), *(f"st{j}" for j in range(ns)), *stats, *finvs]
            rets = [f"f_{r}" for r in range(n_fwd)]
            lines.append(_call(fwd_name, args, rets))
            lines += [f"        st{j} = {_rounded(rets[no + j], seqs[j])}" for j in range(ns)]
    n_grad = ni + ns
    for k in reversed(range(K)):
        lines += [f"        t = t0 + {k}", "        base = tl.cast(t, tl.int64) * NCL", "        live = (offs * 0 + t) < T"]
        args = [*(f"x{i}_{k}" for i in range(ni)), *(f"p{j}_{k}" for j in range(ns)), *stats]
        args += [f"tan_y{m}_{k}" for m in range(no) if tangent_mask[m]]
        for j in range(ns):
            if tangent_mask[no + j]:
                lines.append(f"        tan_s{j} = carry{j}" if final_state else f"        tan_s{j} = gseq{j}_{k} + carry{j}")
                args.append(f"tan_s{j}")
        rets = [f"r_{r}" for r in range(n_grad + nw)]
        lines.append(_call(step_name, [*args, *binvs], rets))
        lines += [f"        {_store(p, rets[i]).replace('mask=mask)', 'mask=mask & live)')}" for i, p in enumerate(gx)]
        lines += [f"        carry{j} = tl.where(live, {rets[ni + j]}, carry{j})" for j in range(ns)]
        lines += [f"        acc{w} = acc{w} + tl.where(live, {rets[n_grad + w]}, 0.0)" for w in range(nw)]
    lines += _backward_tail(frame)
    extra = [fwd_code, *([fwd_hoisted[0]] if fwd_hoisted else [])]
    return _module(step_code, "\n".join(lines) + "\n", hoisted, *extra), frame.name
