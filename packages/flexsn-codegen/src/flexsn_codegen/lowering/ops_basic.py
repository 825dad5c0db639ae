"""Lowerings of conversions, factories, arithmetic and the common activations."""

from __future__ import annotations

import math
from typing import Sequence

import torch

from .emit import Ctx, Lowering, UnsupportedOpError, _INF, _f, cast, lit
from .portable import clamp, expm1, fdiv, floor_divide, log1p, pow_tensor_scalar, pow_tensor_tensor, tanh, trunc
from .combinators import _alpha, _binary, _block_arg, _constant, _kw_or_arg, _x, _x_and_param


def _to_copy(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    dtype = kw.get("dtype")
    if dtype is None and len(args) > 1 and isinstance(args[1], torch.dtype):
        dtype = args[1]  # aten.to.dtype(self, dtype, ...)
    x = f"({_f(args[0])})"
    if dtype is None:
        return x
    assert isinstance(dtype, torch.dtype)
    return cast(x, dtype)


def _div_mode(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    mode = kw.get("rounding_mode", args[2] if len(args) > 2 else None)
    if mode is None:
        b = args[1]
        if isinstance(b, (int, float)) and not isinstance(b, bool) and b != 0 and math.isfinite(b):
            if abs(math.frexp(b)[0]) == 0.5:
                # x / 2**k == x * 2**-k exactly (both correctly rounded), and a
                # multiply is far cheaper than an IEEE division (LIF's "/ tau")
                return f"(({_f(args[0])}) * {lit(1.0 / b)})"
        return fdiv(_f(args[0]), _f(args[1]))
    if mode == "trunc":
        return trunc(fdiv(_f(args[0]), _f(args[1])), ctx)
    if mode == "floor":
        return floor_divide(_block_arg(ctx, args[0]), _block_arg(ctx, args[1]), ctx)
    raise UnsupportedOpError(ctx.op, f"rounding_mode={mode!r}")


def _where(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return f"tl.where({_f(args[0])}, {_f(args[1])}, {_f(args[2])})"


def _identity(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return _f(args[0])


def _full_like(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return _constant(ctx, args[1])


def _full(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return _constant(ctx, args[1])


def _new_full(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return _constant(ctx, args[2])


def _scalar_tensor(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return _constant(ctx, args[0])


def _const(value: float) -> Lowering:
    return lambda ctx, args, kw: _constant(ctx, value)


def _softplus(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    beta = lit(_kw_or_arg(args, kw, 1, "beta", 1.0))
    thr = lit(_kw_or_arg(args, kw, 2, "threshold", 20.0))
    xb = ctx.bind(f"{x} * {beta}")
    return f"tl.where({xb} > {thr}, {x}, {log1p(f'tl.exp({xb})', ctx)} / {beta})"


def _softplus_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", _x(ctx, args, 1)
    beta = lit(_kw_or_arg(args, kw, 2, "beta", 1.0))
    thr = lit(_kw_or_arg(args, kw, 3, "threshold", 20.0))
    return f"tl.where({x} * {beta} > {thr}, {g}, {g} * tl.sigmoid({x} * {beta}))"


def _hardtanh(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    lo = _kw_or_arg(args, kw, 1, "min_val", -1.0)
    hi = _kw_or_arg(args, kw, 2, "max_val", 1.0)
    return clamp(_f(args[0]), lo, hi, ctx)


def _hardtanh_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", _x(ctx, args, 1)
    lo, hi = lit(args[2]), lit(args[3])
    return f"tl.where(({x} <= {lo}) | ({x} >= {hi}), 0.0, {g})"


_leaky_relu = _x_and_param("negative_slope", 0.01, lambda x, slope: f"tl.where({x} > 0, {x}, {x} * {slope})")


def _leaky_relu_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", f"({_f(args[1])})"
    slope = lit(args[2])
    return f"tl.where({x} > 0, {g}, {g} * {slope})"


def _elu_form(ctx: Ctx, x: str, alpha: str, scale: str, iscale: str) -> str:
    x = ctx.bind(x)
    return f"tl.where({x} > 0, {x} * {scale}, {alpha} * {scale} * {expm1(f'{x} * {iscale}', ctx)})"


def _elu(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    alpha = lit(_kw_or_arg(args, kw, 1, "alpha", 1.0))
    scale = lit(_kw_or_arg(args, kw, 2, "scale", 1.0))
    iscale = lit(_kw_or_arg(args, kw, 3, "input_scale", 1.0))
    return _elu_form(ctx, _f(args[0]), alpha, scale, iscale)


def _celu(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    alpha = _kw_or_arg(args, kw, 1, "alpha", 1.0)
    assert isinstance(alpha, (int, float))
    return _elu_form(ctx, _f(args[0]), lit(float(alpha)), "1.0", lit(1.0 / float(alpha)))


def _elu_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g = ctx.bind(_f(args[0]))
    alpha, scale, iscale = lit(args[1]), lit(args[2]), lit(args[3])
    is_result, y = bool(args[4]), _x(ctx, args, 5)
    if is_result:
        neg = f"{g} * {iscale} * ({y} + {alpha} * {scale})"
    else:
        neg = f"{g} * {iscale} * {alpha} * {scale} * tl.exp({y} * {iscale})"
    return f"tl.where({y} > 0, {g} * {scale}, {neg})"


def _gelu(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    if kw.get("approximate", "none") == "tanh":
        inner = f"0.7978845608028654 * ({x} + 0.044715 * {x} * {x} * {x})"
        return f"0.5 * {x} * (1.0 + {tanh(inner, ctx)})"
    return f"0.5 * {x} * (1.0 + tl.math.erf({x} * 0.7071067811865476))"


def _gelu_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", _x(ctx, args, 1)
    if kw.get("approximate", "none") == "tanh":
        inner = f"0.7978845608028654 * ({x} + 0.044715 * {x} * {x} * {x})"
        t = ctx.bind(tanh(inner, ctx))
        d_inner = f"0.7978845608028654 * (1.0 + 0.134145 * {x} * {x})"
        return f"{g} * (0.5 * (1.0 + {t}) + 0.5 * {x} * (1.0 - {t} * {t}) * {d_inner})"
    cdf = f"(0.5 * (1.0 + tl.math.erf({x} * 0.7071067811865476)))"
    pdf = f"(0.3989422804014327 * tl.exp(-0.5 * {x} * {x}))"
    return f"{g} * ({cdf} + {x} * {pdf})"


def _threshold(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x, thr, value = _x(ctx, args), _f(args[1]), _f(args[2])
    return f"tl.where({x} <= {thr}, {value}, {x})"


def _threshold_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x, thr = f"({_f(args[0])})", f"({_f(args[1])})", lit(args[2])
    return f"tl.where({x} <= {thr}, 0.0, {g})"


_hardshrink = _x_and_param("lambd", 0.5, lambda x, lam: f"tl.where(({x} >= -{lam}) & ({x} <= {lam}), 0.0, {x})")
_softshrink = _x_and_param(
    "lambd", 0.5, lambda x, lam: f"tl.where({x} > {lam}, {x} - {lam}, tl.where({x} < -{lam}, {x} + {lam}, {x} * 0.0))"
)


def _shrink_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", _x(ctx, args, 1)
    lam = lit(args[2])
    return f"tl.where(({x} >= -{lam}) & ({x} <= {lam}), 0.0, {g})"


def _heaviside(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x, v = _x(ctx, args), f"({_f(args[1])})"
    return f"tl.where({x} == 0, {v}, tl.where({x} > 0, 1.0, 0.0))"


def _masked_fill(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return f"tl.where({_f(args[1])}, {_f(args[2])}, {_f(args[0])})"


def _lerp(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    """``torch.lerp``: exact at both ends (``w < 0.5`` from ``a``, else from ``b``)."""
    a, b, w = (ctx.bind(_f(x)) for x in args[:3])
    d = ctx.bind(f"{b} - {a}")
    return f"tl.where(tl.abs({w}) < 0.5, {a} + {w} * {d}, {b} - {d} * (1.0 - {w}))"


def _addcmul(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    a, b, c = (f"({_f(x)})" for x in args[:3])
    return f"{a} + {lit(kw.get('value', 1))} * {b} * {c}"


def _addcdiv(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    a, b, c = (f"({_f(x)})" for x in args[:3])
    scaled = f"{lit(kw.get('value', 1))} * {b}"
    return f"{a} + {fdiv(scaled, c)}"


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
    if ctx.out_dtype == torch.bool:
        # bool + bool is logical or in PyTorch (Triton's i1 add would wrap)
        return f"((({_f(args[0])}) != 0) | (({_f(args[1])}) != 0))"
    return f"(({_f(args[0])}) + {_alpha(f'({_f(args[1])})', args, kw)})"


def _mul(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    if ctx.out_dtype == torch.bool:
        return f"((({_f(args[0])}) != 0) & (({_f(args[1])}) != 0))"
    return f"({_f(args[0])}) * ({_f(args[1])})"


def _sub(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return f"(({_f(args[0])}) - {_alpha(f'({_f(args[1])})', args, kw)})"


def _rsub(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return f"(({_f(args[1])}) - {_alpha(f'({_f(args[0])})', args, kw)})"


def _pow_ts(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return pow_tensor_scalar(_f(args[0]), args[1], ctx)


def _pow_tt(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return pow_tensor_tensor(_f(args[0]), _f(args[1]), ctx)


def _pow_scalar(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    base = args[0]
    if isinstance(base, bool) or not isinstance(base, (int, float)):
        raise UnsupportedOpError(ctx.op, f"base {base!r}")
    e = _x(ctx, args, 1)
    if base == 1:
        return ctx.block("1.0")
    if base == 0:
        return f"tl.where({e} == 0, 1.0, tl.where({e} > 0, 0.0, tl.where({e} < 0, {_INF}, {e})))"
    if base < 0 or math.isnan(base) or math.isinf(base):
        return pow_tensor_tensor(ctx.block(lit(float(base))), e, ctx)
    return f"tl.exp2({e} * {lit(math.log2(base))})"
