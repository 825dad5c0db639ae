"""The aten -> Triton lowering table (seed 004 "Graph to Triton").

Every lowering returns a Triton expression over already-named values.
Numerics are fp32: kernels load every tensor as fp32 and cast only when
storing. All forms here are *portable*: they use only ``tl`` core math
(``tl.exp``, ``tl.log``, ``tl.sqrt``, ``tl.floor``, ``tl.math.erf``, ...) so
that one generated source runs compiled on CUDA and under
``TRITON_INTERPRET=1``, where ``libdevice`` calls fail (design.md,
"Portability facts"). Functions without a core primitive (tanh, expm1,
log1p, atan, pow, round, fmod) are written from exact identities.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import torch

__all__ = ["LOWERINGS", "UnsupportedOpError", "lowering_for", "supported_ops"]


class UnsupportedOpError(NotImplementedError):
    """Raised when a graph holds an op (or an argument form) with no lowering.

    Attributes:
        op: the op's name as PyTorch prints it, e.g. ``"aten.cumsum.default"``.
    """

    def __init__(self, op: str, detail: str = "") -> None:
        self.op = op
        msg = f"FlexSN cannot lower op '{op}' to Triton"
        if detail:
            msg += f": {detail}"
        super().__init__(msg)


# A lowering receives the formatted positional args and kwargs (values are
# variable names, literals, or nested lists) and a helper context.
Lowering = Callable[["Ctx", Sequence[object], dict[str, object]], str]


class Ctx:
    """Per-node context given to lowerings.

    Attributes:
        like: name of a block-shaped fp32 value (first placeholder), used to
            materialize constants as blocks.
        op: the op's display name, for errors.
        out_dtype: the node's result dtype from tracing metadata, if known.
        prefix: prefix for temporaries bound with :meth:`bind`.
        pre: ``(name, expression)`` statements a lowering asked for, to be
            emitted (in order) before the node's own statement.
    """

    def __init__(self, like: str, op: str, out_dtype: torch.dtype | None, prefix: str = "tmp") -> None:
        self.like = like
        self.op = op
        self.out_dtype = out_dtype
        self.prefix = prefix
        self.pre: list[tuple[str, str]] = []

    def block(self, value: str) -> str:
        """A block of ``value`` with the shape of the step's tensors."""
        return f"(tl.zeros_like({self.like}) + {value})"

    def bind(self, expr: str) -> str:
        """Name ``expr`` with a temporary (a statement before the node's own).

        Portable forms use a subexpression several times; binding it keeps
        the source linear in size and evaluates it once under the
        interpreter.
        """
        name = f"{self.prefix}_{len(self.pre)}"
        self.pre.append((name, expr))
        return name


def _let(ctx: Ctx | None, expr: str) -> str:
    return ctx.bind(expr) if ctx is not None else f"({expr})"


def lit(value: object) -> str:
    """Format a Python scalar as a Triton literal (fp32 semantics)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else '(-float("inf"))'
        return repr(value)
    raise TypeError(f"not a scalar literal: {value!r}")


_TL_DTYPES = {
    torch.float32: "tl.float32",
    torch.float64: "tl.float32",  # computed in fp32 (kernel numerics contract)
    torch.float16: "tl.float16",
    torch.bfloat16: "tl.bfloat16",
    torch.int8: "tl.int8",
    torch.int16: "tl.int16",
    torch.int32: "tl.int32",
    torch.int64: "tl.int64",
    torch.uint8: "tl.uint8",
}


def cast(x: str, dtype: torch.dtype) -> str:
    """Triton expression casting ``x`` to ``dtype`` with fp32 compute.

    Half-precision casts round through the narrow type and come back to
    fp32, so arithmetic stays fp32 while matching PyTorch's rounding.
    """
    if dtype == torch.bool:
        return f"({x} != 0)"
    if dtype in (torch.float16, torch.bfloat16):
        return f"{x}.to({_TL_DTYPES[dtype]}).to(tl.float32)"
    if dtype in _TL_DTYPES:
        return f"{x}.to({_TL_DTYPES[dtype]})"
    raise UnsupportedOpError("aten._to_copy.default", f"cast to {dtype}")


def _f(x: object) -> str:
    return x if isinstance(x, str) else lit(x)


# Portable building blocks (strings with {} placeholders are expanded by
# ``str.format``; each argument is parenthesised so precedence is safe).
def expm1(x: str) -> str:
    # Kahan's trick: exact near 0 where exp(x) - 1 cancels.
    u = f"tl.exp({x})"
    return f"tl.where({u} == 1.0, {x}, tl.where({u} - 1.0 == -1.0, -1.0, ({u} - 1.0) * {x} / tl.log({u})))"


def log1p(x: str) -> str:
    u = f"(1.0 + {x})"
    return f"tl.where({u} == 1.0, {x}, tl.log({u}) * {x} / ({u} - 1.0))"


def tanh(x: str) -> str:
    # tanh(x) = -sign(x) * m / (2 + m) with m = expm1(-2|x|): no cancellation.
    m = expm1(f"(-2.0 * tl.abs({x}))")
    return f"tl.where({x} < 0, 1.0, -1.0) * ({m}) / (2.0 + ({m}))"


def trunc(x: str) -> str:
    return f"tl.where({x} >= 0, tl.floor({x}), tl.ceil({x}))"


def round_half_even(x: str) -> str:
    r = f"tl.floor({x} + 0.5)"
    # ties (x + 0.5 integral) go to the even neighbour, as torch.round does
    return f"tl.where(({r} - {x} == 0.5) & ({r} - 2.0 * tl.floor({r} * 0.5) != 0.0), {r} - 1.0, {r})"


def atan(x: str) -> str:
    # Cephes atanf: reduce to |z| <= tan(pi/8), then an odd polynomial (~1 ulp).
    a = f"tl.abs({x})"
    big = f"({a} > 2.414213562373095)"
    mid = f"({a} > 0.4142135623730950)"
    z = f"tl.where({big}, -1.0 / {a}, tl.where({mid}, ({a} - 1.0) / ({a} + 1.0), {a}))"
    y0 = f"tl.where({big}, 1.5707963267948966, tl.where({mid}, 0.7853981633974483, 0.0))"
    zz = f"(({z}) * ({z}))"
    poly = (
        f"((((8.05374449538e-2 * {zz} - 1.38776856032e-1) * {zz} + 1.99777106478e-1) * {zz}"
        f" - 3.33329491539e-1) * {zz} * ({z}) + ({z}))"
    )
    return f"tl.where({x} < 0, -1.0, 1.0) * ({y0} + {poly})"


def atan2(y: str, x: str) -> str:
    base = atan(f"({y} / {x})")
    pi = "3.141592653589793"
    return (
        f"tl.where({x} > 0, {base}, tl.where({x} < 0, tl.where({y} >= 0, {base} + {pi}, {base} - {pi}),"
        f" tl.where({y} > 0, {pi} / 2, tl.where({y} < 0, -{pi} / 2, 0.0))))"
    )


def pow_tensor_scalar(x: str, e: object) -> str:
    if isinstance(e, bool) or not isinstance(e, (int, float)):
        raise UnsupportedOpError("aten.pow.Tensor_Scalar", f"exponent {e!r}")
    small = {0: "(tl.zeros_like({x}) + 1.0)", 1: "{x}", 2: "({x} * {x})", 3: "({x} * {x} * {x})",
             4: "(({x} * {x}) * ({x} * {x}))", -1: "(1.0 / {x})", -2: "(1.0 / ({x} * {x}))",
             0.5: "tl.sqrt({x})", -0.5: "tl.rsqrt({x})"}
    if e in small:
        return small[e].format(x=x)
    mag = f"tl.exp2({lit(float(e))} * tl.log2(tl.abs({x})))"
    if float(e).is_integer():
        if int(e) % 2:
            return f"tl.where({x} < 0, -{mag}, {mag})"
        return mag
    return f"tl.where({x} < 0, float(\"nan\"), {mag})"


def pow_tensor_tensor(x: str, e: str) -> str:
    mag = f"tl.exp2({e} * tl.log2(tl.abs({x})))"
    integral = f"(tl.floor({e}) == {e})"
    odd = f"(tl.floor({e} * 0.5) * 2.0 != {e})"
    neg = f"tl.where({integral}, tl.where({odd}, -{mag}, {mag}), float(\"nan\"))"
    return f"tl.where({e} == 0, 1.0, tl.where({x} < 0, {neg}, {mag}))"


def _alpha(b: str, kw: dict[str, object]) -> str:
    alpha = kw.get("alpha", 1)
    return b if alpha == 1 else f"({b} * {lit(alpha)})"


def _args(n: int) -> Callable[[Callable[..., str]], Lowering]:
    def deco(fn: Callable[..., str]) -> Lowering:
        def lower(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
            vals = [_f(a) if not isinstance(a, (list, tuple)) or a is None else a for a in args[:n]]
            return fn(*vals)

        return lower

    return deco


def _unary(template: str) -> Lowering:
    return _args(1)(lambda x: template.format(x=f"({x})"))


def _binary(template: str) -> Lowering:
    return _args(2)(lambda a, b: template.format(a=f"({a})", b=f"({b})"))


def _kw_or_arg(args: Sequence[object], kw: dict[str, object], i: int, name: str, default: object) -> object:
    if len(args) > i:
        return args[i]
    return kw.get(name, default)


def _constant(ctx: Ctx, value: object) -> str:
    if ctx.out_dtype == torch.bool:
        return f"({ctx.block(lit(value))} != 0)"
    if ctx.out_dtype is not None and not ctx.out_dtype.is_floating_point:
        return cast(ctx.block(lit(value)), ctx.out_dtype)
    return ctx.block(lit(float(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) else lit(value))


def _clamp(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    lo = _kw_or_arg(args, kw, 1, "min", None)
    hi = _kw_or_arg(args, kw, 2, "max", None)
    out = x
    if lo is not None:
        out = f"tl.maximum({out}, {_f(lo)})"
    if hi is not None:
        out = f"tl.minimum({out}, {_f(hi)})"
    # keep NaN like torch.clamp
    return f"tl.where({x} != {x}, {x}, {out})"


def _minmax(fn: str) -> Lowering:
    def lower(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
        a, b = f"({_f(args[0])})", f"({_f(args[1])})"
        return f"tl.where({a} != {a}, {a}, tl.where({b} != {b}, {b}, tl.{fn}({a}, {b})))"

    return lower


def _to_copy(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    dtype = kw.get("dtype")
    x = f"({_f(args[0])})"
    if dtype is None:
        return x
    assert isinstance(dtype, torch.dtype)
    return cast(x, dtype)


def _div_mode(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    q = f"(({_f(args[0])}) / ({_f(args[1])}))"
    mode = kw.get("rounding_mode", args[2] if len(args) > 2 else None)
    if mode is None:
        return q
    if mode == "trunc":
        return trunc(q)
    if mode == "floor":
        return f"tl.floor({q})"
    raise UnsupportedOpError(ctx.op, f"rounding_mode={mode!r}")


def _where(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return f"tl.where({_f(args[0])}, {_f(args[1])}, {_f(args[2])})"


def _identity(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return _f(args[0])


def _full_like(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return _constant(ctx, args[1])


def _full(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return _constant(ctx, args[1])


def _scalar_tensor(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return _constant(ctx, args[0])


def _const(value: float) -> Lowering:
    return lambda ctx, args, kw: _constant(ctx, value)


def _softplus(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    beta = lit(_kw_or_arg(args, kw, 1, "beta", 1.0))
    thr = lit(_kw_or_arg(args, kw, 2, "threshold", 20.0))
    return f"tl.where({x} * {beta} > {thr}, {x}, {log1p(f'tl.exp({x} * {beta})')} / {beta})"


def _softplus_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", f"({_f(args[1])})"
    beta = lit(_kw_or_arg(args, kw, 2, "beta", 1.0))
    thr = lit(_kw_or_arg(args, kw, 3, "threshold", 20.0))
    return f"tl.where({x} * {beta} > {thr}, {g}, {g} * tl.sigmoid({x} * {beta}))"


def _hardtanh(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    lo = _kw_or_arg(args, kw, 1, "min_val", -1.0)
    hi = _kw_or_arg(args, kw, 2, "max_val", 1.0)
    return _clamp(ctx, [args[0], lo, hi], {})


def _hardtanh_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", f"({_f(args[1])})"
    lo, hi = lit(args[2]), lit(args[3])
    return f"tl.where(({x} <= {lo}) | ({x} >= {hi}), 0.0, {g})"


def _leaky_relu(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    slope = lit(_kw_or_arg(args, kw, 1, "negative_slope", 0.01))
    return f"tl.where({x} > 0, {x}, {x} * {slope})"


def _leaky_relu_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", f"({_f(args[1])})"
    slope = lit(args[2])
    return f"tl.where({x} > 0, {g}, {g} * {slope})"


def _elu(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    alpha = lit(_kw_or_arg(args, kw, 1, "alpha", 1.0))
    scale = lit(_kw_or_arg(args, kw, 2, "scale", 1.0))
    iscale = lit(_kw_or_arg(args, kw, 3, "input_scale", 1.0))
    return f"tl.where({x} > 0, {x} * {scale}, {alpha} * {scale} * {expm1(f'({x} * {iscale})')})"


def _elu_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g = f"({_f(args[0])})"
    alpha, scale, iscale = lit(args[1]), lit(args[2]), lit(args[3])
    is_result, y = bool(args[4]), f"({_f(args[5])})"
    if is_result:
        neg = f"{g} * {iscale} * ({y} + {alpha} * {scale})"
    else:
        neg = f"{g} * {iscale} * {alpha} * {scale} * tl.exp({y} * {iscale})"
    return f"tl.where({y} > 0, {g} * {scale}, {neg})"


def _gelu(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    if kw.get("approximate", "none") == "tanh":
        inner = f"(0.7978845608028654 * ({x} + 0.044715 * {x} * {x} * {x}))"
        return f"0.5 * {x} * (1.0 + {tanh(inner)})"
    return f"0.5 * {x} * (1.0 + tl.math.erf({x} * 0.7071067811865476))"


def _gelu_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", f"({_f(args[1])})"
    if kw.get("approximate", "none") == "tanh":
        inner = f"(0.7978845608028654 * ({x} + 0.044715 * {x} * {x} * {x}))"
        t = f"({tanh(inner)})"
        d_inner = f"0.7978845608028654 * (1.0 + 0.134145 * {x} * {x})"
        return f"{g} * (0.5 * (1.0 + {t}) + 0.5 * {x} * (1.0 - {t} * {t}) * {d_inner})"
    cdf = f"(0.5 * (1.0 + tl.math.erf({x} * 0.7071067811865476)))"
    pdf = f"(0.3989422804014327 * tl.exp(-0.5 * {x} * {x}))"
    return f"{g} * ({cdf} + {x} * {pdf})"


def _threshold_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x, thr = f"({_f(args[0])})", f"({_f(args[1])})", lit(args[2])
    return f"tl.where({x} <= {thr}, 0.0, {g})"


def _heaviside(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x, v = f"({_f(args[0])})", f"({_f(args[1])})"
    return f"tl.where({x} == 0, {v}, tl.where({x} > 0, 1.0, 0.0))"


def _masked_fill(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return f"tl.where({_f(args[1])}, {_f(args[2])}, {_f(args[0])})"


def _lerp(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    a, b, w = (f"({_f(x)})" for x in args[:3])
    return f"{a} + {w} * ({b} - {a})"


def _addcmul(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    a, b, c = (f"({_f(x)})" for x in args[:3])
    return f"{a} + {lit(kw.get('value', 1))} * {b} * {c}"


def _addcdiv(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    a, b, c = (f"({_f(x)})" for x in args[:3])
    return f"{a} + {lit(kw.get('value', 1))} * {b} / {c}"


def _logical(op: str) -> Lowering:
    return _binary("((({a}) != 0) " + op + " (({b}) != 0))")


def _bitwise(op: str) -> Lowering:
    def lower(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
        if ctx.out_dtype is not None and ctx.out_dtype != torch.bool:
            raise UnsupportedOpError(ctx.op, f"only boolean operands are supported, got {ctx.out_dtype}")
        return f"(({_f(args[0])}) {op} ({_f(args[1])}))"

    return lower


def _bitwise_not(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    if ctx.out_dtype is not None and ctx.out_dtype != torch.bool:
        raise UnsupportedOpError(ctx.op, f"only boolean operands are supported, got {ctx.out_dtype}")
    return f"(({_f(args[0])}) == 0)"


def _add(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return f"(({_f(args[0])}) + {_alpha(f'({_f(args[1])})', kw)})"


def _sub(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return f"(({_f(args[0])}) - {_alpha(f'({_f(args[1])})', kw)})"


def _rsub(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return f"(({_f(args[1])}) - {_alpha(f'({_f(args[0])})', kw)})"


def _pow_ts(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return pow_tensor_scalar(f"({_f(args[0])})", args[1])


def _pow_tt(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return pow_tensor_tensor(f"({_f(args[0])})", f"({_f(args[1])})")


def _pow_scalar(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    base = args[0]
    e = f"({_f(args[1])})"
    if not isinstance(base, (int, float)):
        raise UnsupportedOpError(ctx.op, f"base {base!r}")
    if base == 0:
        return f"tl.where({e} == 0, 1.0, tl.where({e} > 0, 0.0, float(\"inf\")))"
    if base < 0:
        return pow_tensor_tensor(ctx.block(lit(float(base))), e)
    return f"tl.exp2({e} * {lit(math.log2(base))})"


def _sinh(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    m = f"({expm1(x)})"
    return f"0.5 * ({m} + {m} / ({m} + 1.0))"


def _cosh(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    return f"0.5 * (tl.exp({x}) + tl.exp(-{x}))"


def _asin(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    return f"tl.where(tl.abs({x}) > 1.0, float(\"nan\"), {atan2(x, f'tl.sqrt((1.0 - {x}) * (1.0 + {x}))')})"


def _acos(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    return f"tl.where(tl.abs({x}) > 1.0, float(\"nan\"), {atan2(f'tl.sqrt((1.0 - {x}) * (1.0 + {x}))', x)})"


def _sign(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    return f"tl.where({x} > 0, 1.0, tl.where({x} < 0, -1.0, {x} * 0.0))"


def _relu(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    return f"tl.where({x} > 0, {x}, {x} * 0.0)"


def _hardsigmoid(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    return f"tl.minimum(tl.maximum({x} / 6.0 + 0.5, 0.0), 1.0)"


def _hardswish(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    return f"{x} * tl.minimum(tl.maximum({x} + 3.0, 0.0), 6.0) / 6.0"


def _mish(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = f"({_f(args[0])})"
    sp = f"tl.where({x} > 20.0, {x}, {log1p(f'tl.exp({x})')})"
    return f"{x} * ({tanh(sp)})"


def _fmod(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    a, b = f"({_f(args[0])})", f"({_f(args[1])})"
    return f"({a} - {trunc(f'({a} / {b})')} * {b})"


def _remainder(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    a, b = f"({_f(args[0])})", f"({_f(args[1])})"
    r = f"({a} - tl.floor({a} / {b}) * {b})"
    return r


def _sigmoid_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, y = f"({_f(args[0])})", f"({_f(args[1])})"
    return f"{g} * {y} * (1.0 - {y})"


def _tanh_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, y = f"({_f(args[0])})", f"({_f(args[1])})"
    return f"{g} * (1.0 - {y} * {y})"


def _silu_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", f"({_f(args[1])})"
    s = f"tl.sigmoid({x})"
    return f"{g} * {s} * (1.0 + {x} * (1.0 - {s}))"


_TABLE: dict[str, Lowering] = {
    # arithmetic
    "add": _add,
    "sub": _sub,
    "rsub": _rsub,
    "mul": _binary("{a} * {b}"),
    "div": _div_mode,
    "true_divide": _binary("{a} / {b}"),
    "neg": _unary("-{x}"),
    "reciprocal": _unary("1.0 / {x}"),
    "square": _unary("{x} * {x}"),
    "lerp": _lerp,
    "addcmul": _addcmul,
    "addcdiv": _addcdiv,
    "fmod": _fmod,
    "remainder": _remainder,
    "pow.Tensor_Scalar": _pow_ts,
    "pow.Tensor_Tensor": _pow_tt,
    "pow.Scalar": _pow_scalar,
    # transcendentals
    "exp": _unary("tl.exp({x})"),
    "exp2": _unary("tl.exp2({x})"),
    "expm1": lambda ctx, a, kw: expm1(f"({_f(a[0])})"),
    "log": _unary("tl.log({x})"),
    "log2": _unary("tl.log2({x})"),
    "log10": _unary("tl.log({x}) * 0.4342944819032518"),
    "log1p": lambda ctx, a, kw: log1p(f"({_f(a[0])})"),
    "sqrt": _unary("tl.sqrt({x})"),
    "rsqrt": _unary("tl.rsqrt({x})"),
    "sin": _unary("tl.sin({x})"),
    "cos": _unary("tl.cos({x})"),
    "tan": _unary("tl.sin({x}) / tl.cos({x})"),
    "tanh": lambda ctx, a, kw: tanh(f"({_f(a[0])})"),
    "sinh": _sinh,
    "cosh": _cosh,
    "atan": lambda ctx, a, kw: atan(f"({_f(a[0])})"),
    "atan2": lambda ctx, a, kw: atan2(f"({_f(a[0])})", f"({_f(a[1])})"),
    "asin": _asin,
    "acos": _acos,
    "erf": _unary("tl.math.erf({x})"),
    "erfc": _unary("1.0 - tl.math.erf({x})"),
    "sigmoid": _unary("tl.sigmoid({x})"),
    "abs": _unary("tl.abs({x})"),
    "sign": _sign,
    "sgn": _sign,
    # rounding
    "floor": _unary("tl.floor({x})"),
    "ceil": _unary("tl.ceil({x})"),
    "trunc": lambda ctx, a, kw: trunc(f"({_f(a[0])})"),
    "fix": lambda ctx, a, kw: trunc(f"({_f(a[0])})"),
    "round.default": lambda ctx, a, kw: round_half_even(f"({_f(a[0])})"),
    "frac": lambda ctx, a, kw: f"(({_f(a[0])}) - {trunc(f'({_f(a[0])})')})",
    # activations
    "relu": _relu,
    "silu": _unary("{x} * tl.sigmoid({x})"),
    "gelu": _gelu,
    "softplus": _softplus,
    "hardtanh": _hardtanh,
    "leaky_relu": _leaky_relu,
    "elu": _elu,
    "hardsigmoid": _hardsigmoid,
    "hardswish": _hardswish,
    "mish": _mish,
    "heaviside": _heaviside,
    # comparisons and logic
    "eq": _binary("{a} == {b}"),
    "ne": _binary("{a} != {b}"),
    "lt": _binary("{a} < {b}"),
    "le": _binary("{a} <= {b}"),
    "gt": _binary("{a} > {b}"),
    "ge": _binary("{a} >= {b}"),
    "logical_and": _logical("&"),
    "logical_or": _logical("|"),
    "logical_xor": _logical("^"),
    "logical_not": _unary("{x} == 0"),
    "bitwise_and": _bitwise("&"),
    "bitwise_or": _bitwise("|"),
    "bitwise_xor": _bitwise("^"),
    "bitwise_not": _bitwise_not,
    "isnan": _unary("{x} != {x}"),
    "isinf": _unary('tl.abs({x}) == float("inf")'),
    "isfinite": _unary('tl.abs({x}) < float("inf")'),
    "minimum": _minmax("minimum"),
    "maximum": _minmax("maximum"),
    "fmin": _binary("tl.minimum({a}, {b})"),
    "fmax": _binary("tl.maximum({a}, {b})"),
    "clamp": _clamp,
    "clip": _clamp,
    "clamp_min": lambda ctx, a, kw: _clamp(ctx, [a[0], a[1], None], {}),
    "clamp_max": lambda ctx, a, kw: _clamp(ctx, [a[0], None, a[1]], {}),
    "where.self": _where,
    "where.ScalarSelf": _where,
    "where.ScalarOther": _where,
    "where.Scalar": _where,
    "masked_fill": _masked_fill,
    # casts, copies and constants
    "_to_copy": _to_copy,
    "to": _to_copy,
    "clone": _identity,
    "alias": _identity,
    "detach": _identity,
    "lift_fresh_copy": _identity,
    "lift_fresh": _identity,
    "contiguous": _identity,
    "positive": _identity,
    "copy": lambda ctx, a, kw: _f(a[1]),
    "scalar_tensor": _scalar_tensor,
    "zeros_like": _const(0.0),
    "ones_like": _const(1.0),
    "full_like": _full_like,
    "full": _full,
    "zeros": _const(0.0),
    "ones": _const(1.0),
    "fill.Scalar": _full_like,
    # backward-only ops produced by AOTAutograd
    "sigmoid_backward": _sigmoid_backward,
    "tanh_backward": _tanh_backward,
    "threshold_backward": _threshold_backward,
    "silu_backward": _silu_backward,
    "gelu_backward": _gelu_backward,
    "softplus_backward": _softplus_backward,
    "hardtanh_backward": _hardtanh_backward,
    "leaky_relu_backward": _leaky_relu_backward,
    "elu_backward": _elu_backward,
}

#: Public view of the table: op name (packet, or ``packet.overload``) -> lowering.
LOWERINGS: dict[str, Lowering] = _TABLE

# View-like ops are identities on per-element values; the graph checker
# makes sure they do not reorder or broadcast real tensors.
VIEW_OPS = frozenset(
    {"view", "_unsafe_view", "reshape", "expand", "squeeze", "unsqueeze", "flatten", "expand_as", "view_as",
     "broadcast_to", "t", "permute", "transpose", "select", "slice"}
)


def lowering_for(target: object) -> tuple[str, Lowering]:
    """Find the lowering for an aten op overload.

    Args:
        target: an ``OpOverload`` such as ``torch.ops.aten.add.Tensor``.

    Returns:
        ``(display_name, lowering)``.

    Raises:
        UnsupportedOpError: nothing lowers ``target``.
    """
    packet = getattr(target, "_overloadpacket", None)
    overload = getattr(target, "_overloadname", "default")
    name = getattr(packet, "__name__", None) or getattr(target, "__name__", repr(target))
    ns = getattr(target, "namespace", "aten")
    display = f"{ns}.{name}.{overload}"
    if ns != "aten":
        raise UnsupportedOpError(display)
    for key in (f"{name}.{overload}", name):
        if key in _TABLE:
            return display, _TABLE[key]
    raise UnsupportedOpError(display)


def supported_ops() -> list[str]:
    """Names (packet or ``packet.overload``) of every lowered aten op, sorted."""
    return sorted(_TABLE)
