"""A portable Triton math library: exact identities and published approximations over ``tl`` core math.

One generated source runs compiled on CUDA and under ``TRITON_INTERPRET=1``
(no ``libdevice``); NaN semantics follow PyTorch.
"""

from __future__ import annotations

import math

from .emit import Ctx, UnsupportedOpError, _INF, _NAN, _PI, _f, _let, lit


def expm1(x: str, ctx: Ctx | None = None) -> str:
    """``exp(x) - 1`` without cancellation near 0 (Kahan's trick).

    ``(u - 1) * (x / log(u))`` with ``u = exp(x)`` is accurate whatever the
    rounding of ``u`` as long as ``log`` is; the quotient is taken first so
    large ``x`` does not overflow before the result does.
    """
    x = _let(ctx, x)
    u = _let(ctx, f"tl.exp({x})")
    um1 = _let(ctx, f"{u} - 1.0")
    return (
        f"tl.where({u} == 1.0, {x}, tl.where({um1} == -1.0, -1.0, "
        f"tl.where({u} == {_INF}, {u}, {um1} * ({x} / tl.log({u})))))"
    )


def log1p(x: str, ctx: Ctx | None = None) -> str:
    """``log(1 + x)`` without cancellation near 0 (Goldberg's trick)."""
    x = _let(ctx, x)
    u = _let(ctx, f"1.0 + {x}")
    return f"tl.where({u} == 1.0, {x}, tl.where({u} == {_INF}, {u}, tl.log({u}) * ({x} / ({u} - 1.0))))"


def tanh(x: str, ctx: Ctx | None = None) -> str:
    """``tanh`` as musl's ``tanhf``, from ``t = expm1(2|x|)``.

    ``t / (t + 2)`` for ``|x| <= log(3)/2`` (no cancellation near 0) and
    ``1 - 2 / (t + 2)`` above, so values near +-1 are correctly rounded and
    ``1 - tanh(x)**2`` keeps its few significant bits; an overflowing ``t``
    gives exactly 1.
    """
    x = _let(ctx, x)
    a = _let(ctx, f"tl.abs({x})")
    t = _let(ctx, expm1(f"2.0 * {a}", ctx))
    mag = f"tl.where({a} > 0.5493061443340549, 1.0 - 2.0 / ({t} + 2.0), {t} / ({t} + 2.0))"
    return f"tl.where({x} < 0, -({mag}), {mag})"


def trunc(x: str, ctx: Ctx | None = None) -> str:
    """``torch.trunc``: round toward zero (the Triton expression for value ``x``, named once in ``ctx``)."""
    x = _let(ctx, x)
    return f"tl.where({x} >= 0, tl.floor({x}), tl.ceil({x}))"


def round_half_even(x: str, ctx: Ctx | None = None) -> str:
    """``torch.round``: nearest integer, ties to even.

    ``x - floor(x)`` is exact in binary floating point, so ties are decided
    without the rounding that ``floor(x + 0.5)`` suffers (0.49999997, or odd
    integers above 2**23).
    """
    x = _let(ctx, x)
    r = _let(ctx, f"tl.floor({x})")
    d = _let(ctx, f"{x} - {r}")
    odd = f"({r} - 2.0 * tl.floor({r} * 0.5) != 0.0)"
    up = _let(ctx, f"tl.where(({d} > 0.5) | (({d} == 0.5) & {odd}), {r} + 1.0, {r})")
    # -0.4 rounds up to floor's -1 + 1 = +0.0; PyTorch's round keeps x's sign (-0.0), as C's nearbyint does
    return f"tl.where({up} == 0.0, {x} * 0.0, {up})"


def atan(x: str, ctx: Ctx | None = None) -> str:
    """Cephes ``atanf``: reduce to ``|z| <= tan(pi/8)``, then an odd polynomial (~1 ulp)."""
    x = _let(ctx, x)
    a = _let(ctx, f"tl.abs({x})")
    big = _let(ctx, f"{a} > 2.414213562373095")
    mid = _let(ctx, f"{a} > 0.4142135623730950")
    z = _let(ctx, f"tl.where({big}, -1.0 / {a}, tl.where({mid}, ({a} - 1.0) / ({a} + 1.0), {a}))")
    y0 = f"tl.where({big}, 1.5707963267948966, tl.where({mid}, 0.7853981633974483, 0.0))"
    zz = _let(ctx, f"{z} * {z}")
    poly = (
        f"((((8.05374449538e-2 * {zz} - 1.38776856032e-1) * {zz} + 1.99777106478e-1) * {zz}"
        f" - 3.33329491539e-1) * {zz} * {z} + {z})"
    )
    return f"tl.where({x} < 0, -1.0, 1.0) * ({y0} + {poly})"


def atan2(y: str, x: str, ctx: Ctx | None = None) -> str:
    """C ``atan2``, signed zeros and infinities included."""
    y, x = _let(ctx, y), _let(ctx, x)
    base = _let(ctx, atan(f"{y} / {x}", ctx))
    ys = _let(ctx, f"tl.where({signbit(y)}, -1.0, 1.0)")
    both_inf = f"(tl.abs({x}) == {_INF}) & (tl.abs({y}) == {_INF})"
    inf_val = f"{ys} * tl.where({x} > 0, 0.7853981633974483, 2.356194490192345)"
    zero_x = f"tl.where({y} == 0, tl.where({signbit(x)}, {ys} * {_PI}, {y}), {ys} * ({_PI} / 2))"
    general = f"tl.where({x} > 0, {base}, tl.where({x} < 0, {base} + {ys} * {_PI}, {zero_x}))"
    nan = f"({x} != {x}) | ({y} != {y})"
    return f"tl.where({nan}, {x} + {y}, tl.where({both_inf}, {inf_val}, {general}))"


def fdiv(a: str, b: str) -> str:
    """IEEE (round-to-nearest) fp32 division, as PyTorch divides.

    Triton's ``/`` on fp32 compiles to ``div.full.f32`` on NVIDIA GPUs (up to
    2 ulp: ``4.6875 / 0.9375`` gives 5.0000005), which matters for the
    user-visible divisions (``div``, ``reciprocal``, ``trunc``/``floor``
    modes, ``round(decimals=)``): ``tl.div_rn`` is exact everywhere, NumPy's
    division under the interpreter.
    """
    return f"tl.div_rn(tl.cast({a}, tl.float32), tl.cast({b}, tl.float32))"


def _is_nan_literal(v: object) -> bool:
    return isinstance(v, float) and math.isnan(v)


def nan_max(a: str, b: object, ctx: Ctx | None = None) -> str:
    """``torch.maximum``: NaN in either operand gives NaN.

    ``tl.maximum`` alone would return the other operand (maxNum semantics,
    compiled and interpreted alike), so NaN is tested for explicitly.
    """
    a = _let(ctx, a)
    if isinstance(b, (int, float)) and not isinstance(b, bool) and not _is_nan_literal(b):
        return f"tl.where({a} != {a}, {a}, tl.maximum({a}, {lit(b)}))"
    bs = _let(ctx, _f(b))
    return f"tl.where({a} != {a}, {a}, tl.where({bs} != {bs}, {bs}, tl.maximum({a}, {bs})))"


def nan_min(a: str, b: object, ctx: Ctx | None = None) -> str:
    """``torch.minimum``: NaN in either operand gives NaN (see :func:`nan_max`)."""
    a = _let(ctx, a)
    if isinstance(b, (int, float)) and not isinstance(b, bool) and not _is_nan_literal(b):
        return f"tl.where({a} != {a}, {a}, tl.minimum({a}, {lit(b)}))"
    bs = _let(ctx, _f(b))
    return f"tl.where({a} != {a}, {a}, tl.where({bs} != {bs}, {bs}, tl.minimum({a}, {bs})))"


def clamp(x: str, lo: object, hi: object, ctx: Ctx | None = None) -> str:
    """``torch.clamp``: ``min(max(x, lo), hi)``, NaN in ``x`` or a tensor bound gives NaN."""
    out = x
    if lo is not None:
        out = nan_max(out, lo, ctx)
    if hi is not None:
        out = nan_min(out, hi, ctx)
    return out


def pow_tensor_scalar(x: str, e: object, ctx: Ctx | None = None) -> str:
    """``x ** e`` for a Python-number exponent, with C99 ``pow`` special cases."""
    if isinstance(e, bool) or not isinstance(e, (int, float)):
        raise UnsupportedOpError("aten.pow.Tensor_Scalar", f"exponent {e!r}")
    x = _let(ctx, x)
    small = {0: "(tl.zeros_like({x}) + 1.0)", 1: "{x}", 2: "({x} * {x})", 3: "({x} * {x} * {x})",
             4: "(({x} * {x}) * ({x} * {x}))", -1: "(1.0 / {x})", -2: "(1.0 / ({x} * {x}))",
             0.5: "tl.sqrt_rn(tl.cast({x}, tl.float32))", -0.5: "tl.rsqrt({x})"}
    if e in small:  # as PyTorch: x ** 0.5 is sqrt(x) (nan at -inf, unlike C pow)
        return small[e].format(x=x)
    if math.isnan(e):
        return f"tl.where({x} == 1.0, 1.0, {_NAN})"
    mag = _let(ctx, f"tl.exp2({lit(float(e))} * tl.log2(tl.abs({x})))")
    if math.isinf(e):
        return f"tl.where({x} == -1.0, 1.0, {mag})"
    if float(e).is_integer():
        if int(e) % 2:
            # the sign of x survives an odd power, -0.0 included
            return f"tl.where({signbit(x)} & ({x} == {x}), -{mag}, {mag})"
        return mag
    return f"tl.where(({x} < 0) & ({x} != -{_INF}), {_NAN}, {mag})"


def pow_tensor_tensor(x: str, e: str, ctx: Ctx | None = None) -> str:
    """``x ** e`` elementwise, with C99 ``pow`` special cases (``pow(1, nan) = 1``,
    ``pow(-inf, 0.5) = inf``, odd powers keep the sign of ``-0.0``, ...)."""
    x, e = _let(ctx, x), _let(ctx, e)
    mag = _let(ctx, f"tl.exp2({e} * tl.log2(tl.abs({x})))")
    integral = f"(tl.floor({e}) == {e})"
    odd = _let(ctx, f"{integral} & (tl.floor({e} * 0.5) * 2.0 != {e})")
    signed = f"tl.where({odd} & {signbit(x)} & ({x} == {x}), -{mag}, {mag})"
    nan = f"({x} < 0) & ({x} != -{_INF}) & (tl.abs({e}) != {_INF}) & (tl.floor({e}) != {e})"
    one = f"({e} == 0) | ({x} == 1.0) | (({x} == -1.0) & (tl.abs({e}) == {_INF}))"
    return f"tl.where({one}, 1.0, tl.where({nan}, {_NAN}, {signed}))"


def fmod(a: str, b: str, ctx: Ctx | None = None) -> str:
    """``torch.fmod`` (C ``fmod``): ``a - trunc(a / b) * b`` with the sign of ``a``.

    Computed in fp64, where ``trunc(a / b) * b`` is exact for quotients
    below 2**29, then corrected by one ``b`` when the quotient was rounded
    across an integer. A plain fp32 ``a - trunc(a / b) * b`` is off by a
    whole ``b`` in such cases (``fmod(5.5, 0.1)``).
    """
    a64 = _let(ctx, f"tl.cast({a}, tl.float64)")
    b64 = _let(ctx, f"tl.cast({b}, tl.float64)")
    q = _let(ctx, f"{a64} / {b64}")
    r = _let(ctx, f"{a64} - tl.where({q} >= 0, tl.floor({q}), tl.ceil({q})) * {b64}")
    babs = _let(ctx, f"tl.where({a64} < 0, -tl.abs({b64}), tl.abs({b64}))")
    r1 = _let(ctx, f"tl.where(({r} != 0) & (({r} < 0) != ({a64} < 0)), {r} + {babs}, {r})")
    r2 = _let(ctx, f"tl.where(tl.abs({r1}) >= tl.abs({b64}), {r1} - {babs}, {r1})")
    # zero results keep the sign of a, like C fmod; fmod(finite a, +-inf) = a
    r3 = f"tl.where(({r2} == 0) & ({a64} == {a64}), {a64} * 0.0, {r2})"
    return f"tl.where((tl.abs({b64}) == {_INF}) & (tl.abs({a64}) < {_INF}), {a64}, {r3}).to(tl.float32)"


def remainder(a: str, b: str, ctx: Ctx | None = None) -> str:
    """``torch.remainder`` (Python ``%``): ``fmod`` moved to the sign of ``b``."""
    b = _let(ctx, b)
    m = _let(ctx, fmod(a, b, ctx))
    return f"tl.where(({m} != 0) & (({b} < 0) != ({m} < 0)), {m} + {b}, {m})"


def floor_divide(a: str, b: str, ctx: Ctx | None = None) -> str:
    """``torch.div(a, b, rounding_mode="floor")``, as PyTorch computes it (via ``fmod``)."""
    a, b = _let(ctx, a), _let(ctx, b)
    m = _let(ctx, fmod(a, b, ctx))
    div = _let(ctx, fdiv(f"{a} - {m}", b))
    div = _let(ctx, f"tl.where(({m} != 0) & (({b} < 0) != ({m} < 0)), {div} - 1.0, {div})")
    fl = _let(ctx, f"tl.floor({div})")
    fl = _let(ctx, f"tl.where({div} - {fl} > 0.5, {fl} + 1.0, {fl})")
    q = fdiv(a, b)
    return f"tl.where({b} == 0, {q}, tl.where({div} != 0, {fl}, 0.0 * {q}))"


def erfc(x: str, ctx: Ctx | None = None) -> str:
    """Complementary error function with small relative error in both tails.

    Numerical Recipes' Chebyshev fit (fractional error < 1.2e-7) with the
    Gaussian factor split as ``exp(-h*h) * exp(-(z-h)(z+h) + ...)`` where
    ``h`` is ``z`` rounded to 1/16, so ``h*h`` is exact.
    """
    x = _let(ctx, x)
    # erfc(11) < 1e-52 rounds to 0 in fp32: clamping keeps inf out of the split below
    z = _let(ctx, f"tl.minimum(tl.abs({x}), 11.0)")
    t = _let(ctx, f"1.0 / (1.0 + 0.5 * {z})")
    poly = (
        f"-1.26551223 + {t} * (1.00002368 + {t} * (0.37409196 + {t} * (0.09678418 + {t} * (-0.18628806"
        f" + {t} * (0.27886807 + {t} * (-1.13520398 + {t} * (1.48851587 + {t} * (-0.82215223"
        f" + {t} * 0.17087277))))))))"
    )
    h = _let(ctx, f"tl.floor({z} * 16.0) * 0.0625")
    ans = _let(ctx, f"{t} * tl.exp(-{h} * {h}) * tl.exp(-({z} - {h}) * ({z} + {h}) + {poly})")
    return f"tl.where({x} != {x}, {x}, tl.where({x} >= 0, {ans}, 2.0 - {ans}))"


def erfinv(x: str, ctx: Ctx | None = None) -> str:
    """Inverse error function: Giles' single-precision approximation
    ("Approximating the erfinv function", GPU Computing Gems), then one
    Newton step on ``erf(y) = x`` away from the tails."""
    x = _let(ctx, x)
    w = _let(ctx, f"-tl.log((1.0 - {x}) * (1.0 + {x}))")
    ws = _let(ctx, f"{w} - 2.5")
    p1 = "2.81022636e-08"
    for c in ("3.43273939e-07", "-3.5233877e-06", "-4.39150654e-06", "0.00021858087", "-0.00125372503",
              "-0.00417768164", "0.246640727", "1.50140941"):
        p1 = f"({c} + {p1} * {ws})"
    wl = _let(ctx, f"tl.sqrt({w}) - 3.0")
    p2 = "-0.000200214257"
    for c in ("0.000100950558", "0.00134934322", "-0.00367342844", "0.00573950773", "-0.0076224613",
              "0.00943887047", "1.00167406", "2.83297682"):
        p2 = f"({c} + {p2} * {wl})"
    y = _let(ctx, f"tl.where({w} < 5.0, {p1}, {p2}) * {x}")
    newton = f"{y} - (tl.math.erf({y}) - {x}) / (1.1283791670955126 * tl.exp(-{y} * {y}))"
    y = _let(ctx, f"tl.where(tl.abs({x}) < 0.9, {newton}, {y})")
    return (
        f"tl.where(tl.abs({x}) > 1.0, {_NAN}, tl.where({x} == 1.0, {_INF}, "
        f"tl.where({x} == -1.0, -{_INF}, {y})))"
    )


def signbit(x: str) -> str:
    """Sign bit of an fp32 value (true for -0.0 and negative NaNs)."""
    return f"(({x}).to(tl.float32).to(tl.int32, bitcast=True) < 0)"
