"""Lowering combinators: build a table entry from a template, a portable function or an arity."""

from __future__ import annotations

from typing import Callable, Sequence

import torch

from .emit import Ctx, Lowering, _f, cast, lit
from .portable import clamp, nan_max, nan_min


def _alpha(b: str, args: Sequence[object], kw: dict[str, object]) -> str:
    # alpha is a keyword for add/sub but positional for rsub.Scalar
    alpha = _kw_or_arg(args, kw, 2, "alpha", 1)
    return b if alpha == 1 else f"({b} * {_f(alpha)})"


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


def _portable1(fn: Callable[[str, Ctx | None], str]) -> Lowering:
    """A lowering from a one-argument portable form."""
    return lambda ctx, a, kw: fn(f"({_f(a[0])})", ctx)


def _portable2(fn: Callable[[str, str, Ctx | None], str]) -> Lowering:
    """A lowering from a two-argument portable form."""
    return lambda ctx, a, kw: fn(f"({_f(a[0])})", f"({_f(a[1])})", ctx)


def _bound1(fn: Callable[[str, Ctx], str]) -> Lowering:
    """A lowering from a one-argument form that uses its argument several times (bound to a temporary)."""
    return lambda ctx, a, kw: fn(_x(ctx, a), ctx)


def _x_and_param(name: str, default: object, fn: Callable[[str, str], str]) -> Lowering:
    """A lowering of ``x`` (bound) and one scalar parameter: argument 1, or keyword ``name``, or ``default``."""
    return lambda ctx, a, kw: fn(_x(ctx, a), lit(_kw_or_arg(a, kw, 1, name, default)))


def _block_arg(ctx: Ctx, value: object) -> str:
    """A formatted argument, Python numbers as fp32 blocks (for forms that cast or test per element)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ctx.block(lit(float(value)))
    return f"({_f(value)})"


def _blocks2(fn: Callable[[str, str, Ctx | None], str]) -> Lowering:
    """A two-argument portable form whose scalar arguments are made blocks."""
    return lambda ctx, a, kw: fn(_block_arg(ctx, a[0]), _block_arg(ctx, a[1]), ctx)


def _kw_or_arg(args: Sequence[object], kw: dict[str, object], i: int, name: str, default: object) -> object:
    if len(args) > i:
        return args[i]
    return kw.get(name, default)


def _x(ctx: Ctx, args: Sequence[object], i: int = 0) -> str:
    """Argument ``i`` bound to a temporary (it is used several times)."""
    return ctx.bind(_f(args[i]))


def _constant(ctx: Ctx, value: object) -> str:
    if ctx.out_dtype == torch.bool:
        return f"({ctx.block(lit(value))} != 0)"
    if ctx.out_dtype is not None and not ctx.out_dtype.is_floating_point:
        return cast(ctx.block(lit(value)), ctx.out_dtype)
    return ctx.block(lit(float(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) else lit(value))


def _clamp(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    lo = _kw_or_arg(args, kw, 1, "min", None)
    hi = _kw_or_arg(args, kw, 2, "max", None)
    return clamp(_f(args[0]), lo, hi, ctx)


def _minmax(fn: str) -> Lowering:
    def lower(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
        return (nan_min if fn == "minimum" else nan_max)(_f(args[0]), args[1], ctx)

    return lower


def _fminmax(fn: str) -> Lowering:
    """``torch.fmin``/``fmax``: NaN only when both operands are NaN."""

    def lower(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
        a, b = _x(ctx, args, 0), _x(ctx, args, 1)
        return f"tl.where({a} != {a}, {b}, tl.where({b} != {b}, {a}, tl.{fn}({a}, {b})))"

    return lower
