"""Lowerings of hyperbolic and inverse functions, special functions and backward formulas."""

from __future__ import annotations

import math
from typing import Sequence

import torch

from .emit import Ctx, Lowering, UnsupportedOpError, _INF, _LN2, _NAN, _PI, _f, lit
from .portable import atan2, clamp, expm1, fdiv, log1p, round_half_even, signbit, tanh
from .combinators import _bound1, _kw_or_arg, _x


def _sinh_cosh(x: str, ctx: Ctx, cosh: bool) -> str:
    """``sinh``/``cosh`` of ``a = |x|``; above 20 the ``exp(-a)`` term is below
    fp32 resolution and ``0.5 * e^(a/2) * e^(a/2)`` avoids the early overflow
    of ``exp(a)`` (results stay finite up to ``a = 89.4``)."""
    x = ctx.bind(x)
    a = ctx.bind(f"tl.abs({x})")
    h = ctx.bind(f"tl.exp(0.5 * {a})")
    big = f"(0.5 * {h}) * {h}"
    if cosh:
        small = f"0.5 * (tl.exp({a}) + tl.exp(-{a}))"
        return f"tl.where({a} > 20.0, {big}, {small})"
    m = ctx.bind(expm1(a, ctx))
    small = f"0.5 * ({m} + {m} / ({m} + 1.0))"
    mag = f"tl.where({a} > 20.0, {big}, {small})"
    return f"tl.where({x} < 0, -({mag}), {mag})"


def _cos_of_asin(x: str) -> str:
    """``sqrt(1 - x**2)``, written so that it does not cancel near ``|x| = 1``."""
    return f"tl.sqrt((1.0 - {x}) * (1.0 + {x}))"


# asin / acos through atan2 of (x, sqrt(1 - x^2)); NaN outside [-1, 1] as in torch
_asin = _bound1(lambda x, ctx: f"tl.where(tl.abs({x}) > 1.0, {_NAN}, {atan2(x, _cos_of_asin(x), ctx)})")
_acos = _bound1(lambda x, ctx: f"tl.where(tl.abs({x}) > 1.0, {_NAN}, {atan2(_cos_of_asin(x), x, ctx)})")


def _asinh(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    a = ctx.bind(f"tl.abs({x})")
    small = log1p(f"{a} + {a} * {a} / (1.0 + tl.sqrt(1.0 + {a} * {a}))", ctx)
    mag = f"tl.where({a} > 4096.0, tl.log({a}) + {_LN2}, {small})"
    return f"tl.where({x} < 0, -({mag}), {mag})"


def _acosh(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    t = ctx.bind(f"{x} - 1.0")
    small = log1p(f"{t} + tl.sqrt(2.0 * {t} + {t} * {t})", ctx)
    return f"tl.where({x} < 1.0, {_NAN}, tl.where({x} > 4096.0, tl.log({x}) + {_LN2}, {small}))"


def _atanh(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    """``0.5 * (log1p(x) - log1p(-x))``: no quotient to round.

    The former ``0.5 * log1p(2x / (1 - x))`` needs the quotient correctly
    rounded: at ``x = -(1 - 2**-23)`` it is ``-(1 - 2**-24)`` and ``1 + q`` is
    ``2**-24``, but compiled CUDA's approximate ``/`` (``div.full.f32``, up to
    2 ulp) can round ``q`` to -1 and give ``log(0) = -inf``. Here ``1 + x`` and
    ``1 - x`` are exact for ``|x| >= 0.5`` and the two logs have opposite
    signs, so their difference never cancels (signed zeros survive too).
    """
    x = _x(ctx, args)
    mag = f"0.5 * ({log1p(x, ctx)} - {log1p(f'-{x}', ctx)})"
    return f"tl.where(tl.abs({x}) > 1.0, {_NAN}, {mag})"


# torch.sign(nan) == 0; relu(nan) == nan (the comparison is false)
_sign = _bound1(lambda x, ctx: f"tl.where({x} > 0, 1.0, tl.where({x} < 0, -1.0, 0.0))")
_relu = _bound1(lambda x, ctx: f"tl.where({x} <= 0, 0.0, {x})")


def _hardsigmoid(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return f"{clamp(f'({_f(args[0])}) + 3.0', 0.0, 6.0, ctx)} / 6.0"


def _hardsigmoid_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", _x(ctx, args, 1)
    return f"tl.where(({x} > -3.0) & ({x} < 3.0), {g} / 6.0, 0.0)"


def _hardswish(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    return f"{x} * {clamp(f'{x} + 3.0', 0.0, 6.0, ctx)} / 6.0"


def _hardswish_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = _x(ctx, args, 0), _x(ctx, args, 1)
    return f"tl.where({x} <= -3.0, 0.0, tl.where({x} < 3.0, {g} * ({x} / 3.0 + 0.5), {g}))"


def _softplus_1(x: str, ctx: Ctx) -> str:
    x = ctx.bind(x)
    return f"tl.where({x} > 20.0, {x}, {log1p(f'tl.exp({x})', ctx)})"


def _mish(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    return f"{x} * ({tanh(_softplus_1(x, ctx), ctx)})"


def _mish_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", _x(ctx, args, 1)
    t = ctx.bind(tanh(_softplus_1(x, ctx), ctx))
    return f"{g} * ({t} + {x} * tl.sigmoid({x}) * (1.0 - {t} * {t}))"


def _log_sigmoid_forward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> tuple[str, str]:
    """``(log(sigmoid(x)), buffer)``; the buffer is ``exp(-|x|)`` (PyTorch's CPU
    kernel; CUDA leaves it empty and the backward recomputes it)."""
    x = _x(ctx, args)
    z = ctx.bind(f"tl.exp(-tl.abs({x}))")
    return f"tl.minimum({x}, 0.0) - {log1p(z, ctx)}", z


def _log_sigmoid_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", _x(ctx, args, 1)
    z = ctx.bind(f"tl.exp(-tl.abs({x}))")
    return f"tl.where({x} < 0, 1.0 - {z} / (1.0 + {z}), {z} / (1.0 + {z})) * {g}"


def _logit(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    eps = _kw_or_arg(args, kw, 1, "eps", None)
    if eps is not None:
        assert isinstance(eps, (int, float))
        x = ctx.bind(clamp(x, float(eps), 1.0 - float(eps), ctx))
    return f"tl.log({x} / (1.0 - {x}))"


def _logit_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", _x(ctx, args, 1)
    eps = _kw_or_arg(args, kw, 2, "eps", None)
    d = f"{g} / ({x} * (1.0 - {x}))"
    if eps is None:
        return f"tl.where(({x} < 0.0) | ({x} > 1.0), {_NAN}, {d})"
    assert isinstance(eps, (int, float))
    return f"tl.where(({x} < {lit(float(eps))}) | ({x} > {lit(1.0 - float(eps))}), 0.0, {d})"


def _hypot(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    a, b = ctx.bind(f"tl.abs({_f(args[0])})"), ctx.bind(f"tl.abs({_f(args[1])})")
    hi = ctx.bind(f"tl.maximum({a}, {b})")
    lo = ctx.bind(f"tl.minimum({a}, {b})")
    r = ctx.bind(f"{lo} / tl.where({hi} == 0, 1.0, {hi})")
    core = f"{hi} * tl.sqrt(1.0 + {r} * {r})"
    nan = f"({a} != {a}) | ({b} != {b})"
    return f"tl.where(({a} == {_INF}) | ({b} == {_INF}), {_INF}, tl.where({nan}, {_NAN}, {core}))"


def _copysign(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    mag = ctx.bind(f"tl.abs({_f(args[0])})")
    b = args[1]
    if isinstance(b, (int, float)) and not isinstance(b, bool):
        return f"-{mag}" if math.copysign(1.0, b) < 0 else mag
    return f"tl.where({signbit(_f(b))}, -{mag}, {mag})"


def _signbit(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    return signbit(_f(args[0]))


def _logaddexp(base2: bool) -> Lowering:
    def lower(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
        a, b = _x(ctx, args, 0), _x(ctx, args, 1)
        m = ctx.bind(f"tl.maximum({a}, {b})")
        d = ctx.bind(f"-tl.abs({a} - {b})")
        tail = (
            f"{log1p(f'tl.exp2({d})', ctx)} * 1.4426950408889634" if base2 else log1p(f"tl.exp({d})", ctx)
        )
        nan = f"({a} != {a}) | ({b} != {b})"
        return f"tl.where({nan}, {a} + {b}, tl.where(({a} == {b}) & (tl.abs({a}) == {_INF}), {a}, {m} + {tail}))"

    return lower


def _xlogy(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x, y = _x(ctx, args, 0), _x(ctx, args, 1)
    return f"tl.where({y} != {y}, {y}, tl.where({x} == 0, 0.0, {x} * tl.log({y})))"


def _sinc(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    p = ctx.bind(f"{x} * {_PI}")
    return f"tl.where({x} == 0, 1.0, tl.sin({p}) / {p})"


def _nan_to_num(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    info = torch.finfo(ctx.out_dtype if ctx.out_dtype is not None and ctx.out_dtype.is_floating_point else torch.float32)
    nan = _kw_or_arg(args, kw, 1, "nan", None)
    pos = _kw_or_arg(args, kw, 2, "posinf", None)
    neg = _kw_or_arg(args, kw, 3, "neginf", None)
    nan_v = lit(float(nan)) if isinstance(nan, (int, float)) else "0.0"
    pos_v = lit(float(pos)) if isinstance(pos, (int, float)) else lit(float(info.max))
    neg_v = lit(float(neg)) if isinstance(neg, (int, float)) else lit(float(info.min))
    return f"tl.where({x} != {x}, {nan_v}, tl.where({x} == {_INF}, {pos_v}, tl.where({x} == -{_INF}, {neg_v}, {x})))"


def _round_decimals(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    decimals = _kw_or_arg(args, kw, 1, "decimals", 0)
    if not isinstance(decimals, int):
        raise UnsupportedOpError(ctx.op, f"decimals={decimals!r}")
    if decimals == 0:
        return round_half_even(_f(args[0]), ctx)
    ten_pow = lit(float(10 ** abs(decimals)))
    if decimals > 0:
        return fdiv(round_half_even(f"({_f(args[0])}) * {ten_pow}", ctx), ten_pow)
    return f"{round_half_even(fdiv(_f(args[0]), ten_pow), ctx)} * {ten_pow}"


def _sigmoid_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, y = f"({_f(args[0])})", _x(ctx, args, 1)
    return f"{g} * {y} * (1.0 - {y})"


def _tanh_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, y = f"({_f(args[0])})", _x(ctx, args, 1)
    return f"{g} * (1.0 - {y} * {y})"


def _silu_backward(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    g, x = f"({_f(args[0])})", _x(ctx, args, 1)
    s = ctx.bind(f"tl.sigmoid({x})")
    return f"{g} * {s} * (1.0 + {x} * (1.0 - {s}))"
