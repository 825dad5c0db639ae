"""The reverse-time BPTT kernel template (SpikingJelly's ``flexsn`` backward template), beside
:mod:`flexsn_codegen.templates`' inference and forward templates, whose helpers and calling
conventions it shares (see that module's docstring)."""

from __future__ import annotations

from typing import Any, Sequence

from flexsn_trace import FlexSNInfo

from .cache import compile_triton_code_str
from .chunked import Steps, render_chunked_backward
from .addressing import _rounded, _seq_load, _store
from .templates import Hoisted, Rebuild, SavedArg, _backward_head, _backward_tail, _module, _prologue_call, _step_call, _time_loop

__all__ = ["backward_invariant_sources", "get_flexsn_backward_kernel", "render_backward_kernel"]


def backward_invariant_sources(info: FlexSNInfo) -> list[int]:
    """The saved sources (indices into ``info.saved_sources``) that are the same at every step.

    Static inputs, and a carrier's guard (computed from them once per program): what
    the backward step's hoisted prologue may take (:func:`flexsn_trace.split_invariants`
    positions; the kernel passes them in this order).
    """
    return [s for s, src in enumerate(info.saved_sources) if src.kind in ("static", "guard")]


def render_backward_kernel(
    step_code: str,
    step_name: str,
    info: FlexSNInfo,
    tangent_mask: Sequence[bool],
    final_state: bool = False,
    hoisted: Hoisted | None = None,
    rebuild: Rebuild | None = None,
    forward: Steps | None = None,
) -> tuple[str, str]:
    """Render the reverse-time BPTT kernel.

    The step function is the backward graph ``[*saved, *tangents] ->
    [*grad_inputs, *grad_states]`` where ``tangents`` exist only for forward
    results with ``tangent_mask[r]`` true. The kernel keeps the calling
    convention of the template whatever the mask (SpikingJelly's "shim"):
    it takes a gradient for every output and state and simply does not read
    those the step function has no tangent for.

    At step ``t`` the gradient reaching new state ``j`` is the incoming
    state-sequence gradient plus the gradient carried back from step
    ``t + 1``; after step 0 the carry is the initial-state gradient. With
    ``final_state=True`` the state gradients are ``[NCL]`` gradients of the
    final states only: they seed the carry and nothing else is read.

    With a carrier (``info.carrier >= 0``, :mod:`flexsn_trace.carrier`),
    ``rebuild`` holds its restate and guard functions: the carrier is read
    once per step (step ``t - 1``'s value is kept for step ``t - 1``), the
    states before step ``t`` are restated from it and rounded like the
    stored states, and a recovered input is read from memory only in
    programs (blocks of ``BLOCK_NCL`` neurons) where the guard is false for
    one of their neurons.

    With ``info.chunk > 1`` (:mod:`flexsn_trace.recompute`) the kernel
    recomputes the steps from states stored every ``info.chunk`` steps
    (:func:`flexsn_codegen.chunked.render_chunked_backward`); ``forward``
    is then the forward step it runs.

    Returns:
        ``(code, kernel_name)``.

    Raises:
        ValueError: ``tangent_mask`` has the wrong length, a carrier without ``rebuild``, or
            ``forward`` given exactly when ``info.chunk`` is 1.
    """
    n_vis = info.num_outputs + info.num_states
    if len(tangent_mask) != n_vis:
        raise ValueError(f"tangent_mask has {len(tangent_mask)} entries, expected {n_vis}")
    if (info.carrier >= 0) != (rebuild is not None):
        raise ValueError("a carrier's backward kernel needs its rebuild functions, and only a carrier's")
    if (info.chunk > 1) != (forward is not None):
        raise ValueError("a recomputing backward kernel (info.chunk > 1) needs the forward step, and only it")
    if forward is not None:
        return render_chunked_backward(
            step_code, step_name, info, tangent_mask, final_state, hoisted, forward, backward_invariant_sources(info)
        )
    frame, lines = _backward_head(info, final_state)
    gy, gs, saved, sv, gx = frame.gy, frame.gs, frame.saved, frame.sv, frame.gx
    loads: list[tuple[str, str, int]] = []
    step_args: list[str] = []
    post: list[str] = []
    stats = [f"stat{k}" for k in range(info.num_static)]
    carried, more, guard_line = _carrier_lines(info, rebuild, saved, sv, stats, lines, loads, post)
    for s, src in enumerate(info.saved_sources):
        if src.kind in ("restated_state", "fallback_input", "guard") or s in carried:
            pass  # set by _carrier_lines
        elif src.kind == "prev_state":
            seq = sv[saved.index(("return", info.num_outputs + src.slot))]
            loads.append((f"prev{s}", seq, -1))
            post.append(f"        saved{s} = tl.where((offs * 0 + t) > 0, prev{s}, init{src.slot})")
        elif src.kind == "static":
            post.append(f"        saved{s} = stat{src.slot}")
        else:
            arg: Any = (src.kind, src.slot)  # "input" or "return": the backward argument of that name
            loads.append((f"saved{s}", sv[saved.index(arg)], 0))
        step_args.append(f"saved{s}")
    for k in range(info.num_outputs):
        if tangent_mask[k]:
            loads.append((f"tan_y{k}", gy[k], 0))
            step_args.append(f"tan_y{k}")
    for j in range(info.num_states):
        if tangent_mask[info.num_outputs + j]:
            if final_state:
                post.append(f"        tan_s{j} = carry{j}")
            else:
                loads.append((f"gseq{j}", gs[j], 0))
                post.append(f"        tan_s{j} = gseq{j} + carry{j}")
            step_args.append(f"tan_s{j}")
    sources = info.saved_sources
    statics_read = ["ok" if sources[s].kind == "guard" else f"stat{sources[s].slot}" for s in backward_invariant_sources(info)]
    pro, invs = _prologue_call(hoisted, statics_read)
    step_args += invs
    _time_loop(lines, loads, reverse=True, once=[*guard_line, *pro])
    lines += post
    n_grad = info.num_inputs + info.num_states
    call, rets = _step_call(step_name, step_args, n_grad + info.num_static)
    lines.append(call)
    lines += [f"        {_store(p, rets[i])}" for i, p in enumerate(gx)]
    lines += [f"        carry{j} = {rets[info.num_inputs + j]}" for j in range(info.num_states)]
    # a static input's gradient: summed over time here, in fp32, then over the program's neurons
    lines += [f"        acc{k} = acc{k} + {rets[n_grad + k]}" for k in range(info.num_static)]
    lines += _backward_tail(frame)
    return _module(step_code, "\n".join(lines) + "\n", hoisted, *more), frame.name


def _carrier_lines(
    info: FlexSNInfo, rebuild: Rebuild | None, saved: list[SavedArg], sv: list[str], stats: list[str],
    lines: list[str], loads: list[tuple[str, str, int]], post: list[str],
) -> tuple[set[int], list[str], list[str]]:
    """Backward-kernel lines giving a carrier's saved values (``saved{s}``); returns the carried
    sources' indices, the helper modules to append and the guard's line (for the time loop's
    ``once``: after the first step's loads)."""
    if rebuild is None:
        return set(), [], []
    (restate_code, restate_fn), guard = rebuild
    ptr = sv[saved.index(("return", info.carrier))]
    guard_line = []
    if guard is not None:
        # one answer per program: where any of its neurons fails the guard, all of them read the
        # input back (exact). A per-neuron guard kept both paths live in every step, 144 registers
        # a thread against 128 (PLIF on an H200: back to back 0.294 against 0.312; LIF's kernel 47)
        guard_line.append(f"    ok = tl.min(tl.where(mask, {guard[1]}({', '.join(stats)}), 1).to(tl.int32), axis=0) != 0")
    # c[t] is the c[t - 1] of the step before (reverse time): one read of the carrier per step
    lines.append(f"    ccar = {_seq_load(ptr, 'T - 1', 0)}")
    loads.append(("cprev", ptr, -1))
    carried = {s for s, src in enumerate(info.saved_sources) if src == ("return", info.carrier)}
    post += [f"        saved{s} = ccar" for s in carried]
    restated = [(s, src.slot) for s, src in enumerate(info.saved_sources) if src.kind == "restated_state"]
    if restated:
        rets = [f"rs{j}" for _, j in restated]
        post.append(f"        {', '.join(rets)} = {restate_fn}({', '.join(['cprev', *stats])})")
        for (s, j), r in zip(restated, rets):
            init_ptr = sv[saved.index(("init_state", j))]
            post.append(f"        saved{s} = tl.where((offs * 0 + t) > 0, {_rounded(r, init_ptr)}, init{j})")
    for s, src in enumerate(info.saved_sources):
        if src.kind == "fallback_input":
            x = sv[saved.index(("input", src.slot))]
            post.append(
                # ok is one scalar per program: broadcast to the neurons' mask (Triton's interpreter
                # takes no scalar in a load mask)
                f"        saved{s} = tl.load({x} + base + o_{x}, mask=mask & ((offs * 0 + (ok == 0).to(tl.int32)) != 0), "
                "other=0.0).to(tl.float32)"
            )
        elif src.kind == "guard":
            post.append(f"        saved{s} = ok")
    if carried:
        post.append("        ccar = cprev")  # for step t - 1, after everything above read this step's values
    return carried, [restate_code, *([guard[0]] if guard else [])], guard_line


def get_flexsn_backward_kernel(
    step_code: str, step_name: str, info: FlexSNInfo, tangent_mask: Sequence[bool], final_state: bool = False
) -> tuple[Any, str]:
    """Compile the BPTT backward kernel; returns ``(JITFunction, source)``."""
    code, name = render_backward_kernel(step_code, step_name, info, tangent_mask, final_state)
    return compile_triton_code_str(code, name), code
