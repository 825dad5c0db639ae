"""FX graph -> Triton ``@triton.jit`` source (as spikingjelly.activation_based.triton_kernel.torch2triton's graph-to-Triton step)."""

from __future__ import annotations

import keyword
import operator
import re
from typing import Any

import torch
from torch import fx

from flexsn_trace import FOREIGN_PREFIX

from .lowering import ROUND_BY_HAND, STORAGE_CAST, VIEW_OPS, Ctx, UnsupportedOpError, lit, lowering_for

__all__ = ["check_graph_supported", "generate_step_body", "generate_triton_code_str", "sanitize_name"]

_HEADER = f'''import triton
import triton.language as tl

# Triton's interpreter truncates fp32 -> bfloat16 casts (and turns int1 into
# denormals) while compiled code rounds to nearest even in one instruction:
# round bfloat16 by hand only when interpreted. compile_triton_code_str sets
# this to whether the module runs in the interpreter.
{ROUND_BY_HAND} = tl.constexpr(True)


@triton.jit
def {STORAGE_CAST}(x, dtype: tl.constexpr):
    # fp32 -> storage dtype, rounding to nearest even.
    x = x.to(tl.float32)
    if {ROUND_BY_HAND}:
        if dtype == tl.bfloat16:
            bits = x.to(tl.int32, bitcast=True)
            bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & -65536
            x = tl.where(x != x, x, bits.to(tl.float32, bitcast=True))
    return x.to(dtype)
'''


def sanitize_name(name: str) -> str:
    """Turn an arbitrary string into a Python identifier (used for kernel names)."""
    out = re.sub(r"\W", "_", name)
    if not out or out[0].isdigit() or keyword.iskeyword(out):
        out = "f_" + out
    return out


def _meta(node: fx.Node) -> torch.Tensor | None:
    val = node.meta.get("val", node.meta.get("example_value"))
    return val if isinstance(val, torch.Tensor) else None


def _numel(node: object) -> int | None:
    if not isinstance(node, fx.Node):
        return None
    val = _meta(node)
    return None if val is None else val.numel()


def _constant_value(graph: fx.Graph, node: fx.Node) -> float | int | bool:
    gm = graph.owning_module
    target = str(node.target)
    value = getattr(gm, target, None) if gm is not None else None
    if not isinstance(value, torch.Tensor):
        raise UnsupportedOpError(f"get_attr '{target}'", "the graph has no module holding this constant")
    if target.startswith(FOREIGN_PREFIX):
        # read from outside the core's arguments where find_captures does not look: inlined, its
        # value would be frozen at the trace (and a parameter would get no gradient) without a word
        what = f"{list(value.shape)} {str(value.dtype).removeprefix('torch.')}" + (", requires grad" if value.requires_grad else "")
        where = (
            "at a place the kernels cannot read it from at every call (e.g. the global of a helper function reached "
            "through an object neither a global nor the core's closure holds, or through a class no global names, a "
            "class whose subclassing runs code, a helper called past the "
            "calls searched)"
            if value.is_floating_point()
            else "and the kernels read floating-point tensors only (a bool or integer mask: keep it as float)"
        )
        raise UnsupportedOpError(
            "captured tensor",
            message=f"FlexSN: the core reads a captured tensor ({what}) from outside its arguments {where}; fused, its "
            "value would stay as it was at tracing time. Pass it as a static input (FlexSN(..., static_inputs=(...))), "
            "register it as a buffer or parameter of the module, or keep it in a closure variable, a global, a default "
            "argument or a list, dict or namespace held by one",
        )
    if value.requires_grad:
        raise UnsupportedOpError(
            f"captured tensor '{target}'",
            "a captured tensor that requires grad (e.g. a learnable parameter) would get no gradient; "
            "pass it as a static input (FlexSN(..., static_inputs=(...)))",
        )
    if value.numel() != 1:
        raise UnsupportedOpError(
            f"captured tensor '{target}'", f"only single-element tensor constants can be inlined, got shape {tuple(value.shape)}"
        )
    item = value.item()
    assert isinstance(item, (bool, int, float))
    return item


def _check_no_broadcast(node: fx.Node, display: str, out: torch.Tensor | None) -> None:
    """Reject an op that broadcasts a tensor with several elements to a larger shape.

    Lowered code computes one element per lane: an argument with one element
    is a block of equal values, but ``[4] + [3, 4]`` would pair unrelated
    elements and silently compute garbage.
    """
    if out is None:
        return
    for arg in [*node.args, *node.kwargs.values()]:
        n = _numel(arg)
        if n is not None and n not in (1, out.numel()):
            val = _meta(arg)  # type: ignore[arg-type]
            shape = tuple(val.shape) if val is not None else "?"
            raise UnsupportedOpError(
                display,
                f"broadcasts a {list(shape)} tensor to {list(out.shape)}; only elementwise step functions "
                "(all tensors of one shape, or single-element constants) are supported",
            )


def generate_step_body(graph: fx.Graph, indent: str = "    ") -> tuple[list[str], list[str], list[str]]:
    """Lower a graph's nodes to Triton statements.

    Args:
        graph: an aten-level, elementwise FX graph.
        indent: prefix for each statement.

    Returns:
        ``(arg_names, lines, return_exprs)``: the Python names given to the
        placeholders in order, the statements computing every node, and one
        expression per graph output (``None`` outputs become zero blocks).

    Raises:
        UnsupportedOpError: an op (or argument form) has no lowering; its
            ``op`` attribute names it.
        ValueError: the graph has no placeholder (constants need a block
            shape to broadcast to).
    """
    names: dict[fx.Node, str] = {}
    multi: dict[fx.Node, tuple[str, ...]] = {}
    consts: dict[fx.Node, object] = {}
    lines: list[str] = []
    args: list[str] = []
    for node in graph.nodes:
        if node.op == "placeholder":
            names[node] = f"a_{sanitize_name(node.name)}"
            args.append(names[node])
            val = _meta(node)
            if val is not None and val.dtype == torch.bool:
                # Placeholders arrive as fp32 blocks; a boolean one (a mask the
                # forward saved for the backward) is made boolean again so
                # tl.where and bitwise ops get the int1 they require.
                lines.append(f"{indent}{names[node]} = {names[node]} != 0  # bool placeholder")
    if not args:
        raise ValueError("the graph has no placeholder: a step function needs at least one tensor argument")
    # block shape (and fp32 type) for constants: the first non-boolean placeholder
    like = next(
        (names[n] for n in graph.nodes if n.op == "placeholder" and getattr(_meta(n), "dtype", None) != torch.bool),
        args[0],
    )

    def fmt(a: Any) -> Any:
        if isinstance(a, fx.Node):
            if a in consts:
                return consts[a]
            return names[a]
        if isinstance(a, (list, tuple)):
            return type(a)(fmt(x) for x in a)
        return a

    for node in graph.nodes:
        if node.op in ("placeholder", "output"):
            continue
        if node.op == "get_attr":
            consts[node] = _constant_value(graph, node)
            continue
        if node.op != "call_function":
            raise UnsupportedOpError(f"{node.op} '{node.target}'")
        target = node.target
        if target is operator.getitem:
            src, index = node.args[0], node.args[1]
            if isinstance(src, fx.Node) and src in multi and isinstance(index, int) and 0 <= index < len(multi[src]):
                names[node] = multi[src][index]
                continue
            raise UnsupportedOpError("operator.getitem", "only results of lowered multi-output elementwise ops can be indexed")
        packet = getattr(getattr(target, "_overloadpacket", None), "__name__", "")
        out = _meta(node)
        if packet in VIEW_OPS:
            src = node.args[0]
            if isinstance(src, fx.Node) and out is not None:
                n_in = _numel(src)
                same = _meta(src) is not None and tuple(_meta(src).shape) == tuple(out.shape)  # type: ignore[union-attr]
                order_kept = packet in {"view", "_unsafe_view", "reshape", "squeeze", "unsqueeze", "flatten", "view_as"}
                if same or n_in == 1 or (order_kept and n_in == out.numel()):
                    if src in consts:
                        consts[node] = consts[src]
                    else:
                        names[node] = names[src]
                    continue
            raise UnsupportedOpError(
                f"aten.{packet}", "reorders or broadcasts elements; only elementwise step functions are supported"
            )
        display, lower = lowering_for(target)
        name = f"v_{sanitize_name(node.name)}"
        vals = node.meta.get("val", node.meta.get("example_value"))
        if isinstance(vals, (list, tuple)) and vals and isinstance(vals[0], torch.Tensor):
            out = vals[0]
        _check_no_broadcast(node, display, out)
        ctx = Ctx(like, display, out.dtype if out is not None else None, prefix=f"{name}_t")
        if out is not None and out.is_complex():
            raise UnsupportedOpError(display, "complex tensors are not supported")
        try:
            expr = lower(ctx, fmt(node.args), {k: fmt(v) for k, v in node.kwargs.items()})
        except UnsupportedOpError:
            raise
        except (TypeError, IndexError, KeyError, ValueError, AssertionError) as exc:
            raise UnsupportedOpError(display, f"unsupported arguments {node.args!r} {node.kwargs!r} ({exc})") from exc
        lines.extend(f"{indent}{tmp} = {value}" for tmp, value in ctx.pre)
        if isinstance(expr, tuple):
            multi[node] = tuple(f"{name}_{i}" for i in range(len(expr)))
            for part, e in zip(multi[node], expr):
                lines.append(f"{indent}{part} = {e}  # {display}")
            continue
        names[node] = name
        lines.append(f"{indent}{name} = {expr}  # {display}")

    returns: list[str] = []
    for node in graph.nodes:
        if node.op != "output":
            continue
        outs = node.args[0] if isinstance(node.args[0], (list, tuple)) else [node.args[0]]
        for o in outs:
            if o is None:
                returns.append(f"tl.zeros_like({like})")
            elif isinstance(o, fx.Node) and o in consts:
                returns.append(f"(tl.zeros_like({like}) + {lit(consts[o])})")
            elif isinstance(o, fx.Node):
                returns.append(names[o])
            else:
                returns.append(f"(tl.zeros_like({like}) + {lit(o)})")
    return args, lines, returns


def check_graph_supported(graph: fx.Graph) -> None:
    """Raise :class:`UnsupportedOpError` if any op in ``graph`` cannot be lowered."""
    generate_step_body(graph)


def generate_triton_code_str(graph: fx.Graph, fn_name: str, verbose: bool = False) -> tuple[str, str]:
    """Generate a Triton module source for an elementwise FX graph.

    Args:
        graph: aten-level FX graph (e.g. from
            ``flexsn_trace.generate_inference_graph``) whose ops are all
            elementwise and listed in :data:`flexsn_codegen.LOWERINGS`.
        fn_name: name of the original function; the Triton function is
            named after it.
        verbose: print the generated source.

    Returns:
        ``(code, name)``: ``code`` is a complete module (it imports
        ``triton`` and ``triton.language as tl``) defining the
        ``@triton.jit`` function ``name`` that takes the graph's placeholders
        in order, as fp32 blocks, and returns its outputs (one value for one
        output, else a tuple). The module also defines the helper
        ``flexsn_to_storage(x, dtype)`` (fp32 to a storage dtype, rounded to
        nearest even on every backend), which callers storing results should
        use instead of ``x.to(dtype)``.

    Raises:
        UnsupportedOpError: an op has no lowering (``exc.op`` names it).
        ValueError: the graph has no placeholder.
    """
    args, lines, returns = generate_step_body(graph)
    name = sanitize_name(fn_name)
    body = "\n".join(lines) if lines else "    pass"
    ret = returns[0] if len(returns) == 1 else ", ".join(returns)
    code = f"{_HEADER}\n\n@triton.jit\ndef {name}({', '.join(args)}):\n{body}\n    return {ret}\n"
    if verbose:
        print(code)
    return code, name
