"""The aten -> Triton lowering table (spikingjelly.activation_based.triton_kernel.torch2triton's graph-to-Triton step).

Every lowering returns a Triton expression over already-named values (a
tuple of expressions for a multi-output op); subexpressions used several
times are named with ``Ctx.bind`` and emitted as statements before it.
Numerics are fp32: kernels load every tensor as fp32 and cast only when
storing. All forms here are *portable*: they use only ``tl`` core math
(``tl.exp``, ``tl.log``, ``tl.sqrt``, ``tl.floor``, ``tl.math.erf``, ...) so
that one generated source runs compiled on CUDA and under
``TRITON_INTERPRET=1``, where ``libdevice`` calls fail (Triton 3.6's
interpreter has no ``tl.extra.cuda.libdevice``). Functions without a core primitive (tanh, expm1,
log1p, atan, pow, round, fmod, erfc, erfinv, ...) are written from exact
identities or published approximations, and NaN semantics follow PyTorch
explicitly: ``tl.maximum``/``tl.minimum`` have IEEE maxNum semantics (a NaN
operand is dropped; NumPy's ``fmax`` under the interpreter), PyTorch's
``maximum``/``minimum``/``clamp`` propagate NaN.
"""

from __future__ import annotations

import math
import re
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
# A multi-output op (``log_sigmoid_forward``) returns one expression per
# result; ``operator.getitem`` nodes then pick them.
Lowering = Callable[["Ctx", Sequence[object], dict[str, object]], "str | tuple[str, ...]"]


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
        if _SIMPLE.fullmatch(expr):
            return expr
        name = f"{self.prefix}_{len(self.pre)}"
        self.pre.append((name, expr))
        return name


_SIMPLE = re.compile(r"\(*(?:[A-Za-z_]\w*|-?\d+(?:\.\d*)?(?:e[-+]?\d+)?)\)*")


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


#: Name of the ``@triton.jit`` helper every generated module defines (see
#: ``flexsn_codegen.codegen``): ``STORAGE_CAST(x, dtype)`` converts a value to
#: a storage dtype rounding to nearest even, also under the interpreter.
STORAGE_CAST = "flexsn_to_storage"
#: Module-level ``tl.constexpr`` of generated sources: round bfloat16 by hand (interpreter only).
ROUND_BY_HAND = "FLEXSN_ROUND_BY_HAND"


def cast(x: str, dtype: torch.dtype) -> str:
    """Triton expression casting ``x`` to ``dtype`` with fp32 compute.

    Half-precision casts round through the narrow type and come back to
    fp32, so arithmetic stays fp32 while matching PyTorch's rounding.
    """
    if dtype == torch.bool:
        return f"({x} != 0)"
    if dtype in (torch.float16, torch.bfloat16):
        return f"{STORAGE_CAST}({x}, {_TL_DTYPES[dtype]}).to(tl.float32)"
    if dtype in _TL_DTYPES:
        return f"{x}.to({_TL_DTYPES[dtype]})"
    raise UnsupportedOpError("aten._to_copy.default", f"cast to {dtype}")


def _f(x: object) -> str:
    return x if isinstance(x, str) else lit(x)


# Portable building blocks. Each takes argument expressions (strings) and an
# optional ``Ctx``; with a context, repeated subexpressions are bound to
# temporaries, without one they are parenthesised inline.
_INF = 'float("inf")'
_NAN = 'float("nan")'
_LN2 = "0.6931471805599453"
_PI = "3.141592653589793"


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
    return f"tl.where(({d} > 0.5) | (({d} == 0.5) & {odd}), {r} + 1.0, {r})"


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


def _leaky_relu(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    slope = lit(_kw_or_arg(args, kw, 1, "negative_slope", 0.01))
    return f"tl.where({x} > 0, {x}, {x} * {slope})"


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


def _hardshrink(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    lam = lit(_kw_or_arg(args, kw, 1, "lambd", 0.5))
    return f"tl.where(({x} >= -{lam}) & ({x} <= {lam}), 0.0, {x})"


def _softshrink(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    lam = lit(_kw_or_arg(args, kw, 1, "lambd", 0.5))
    return f"tl.where({x} > {lam}, {x} - {lam}, tl.where({x} < -{lam}, {x} + {lam}, {x} * 0.0))"


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


def _asin(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    return f"tl.where(tl.abs({x}) > 1.0, {_NAN}, {atan2(x, f'tl.sqrt((1.0 - {x}) * (1.0 + {x}))', ctx)})"


def _acos(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    return f"tl.where(tl.abs({x}) > 1.0, {_NAN}, {atan2(f'tl.sqrt((1.0 - {x}) * (1.0 + {x}))', x, ctx)})"


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


def _sign(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    # torch.sign(nan) == 0
    x = _x(ctx, args)
    return f"tl.where({x} > 0, 1.0, tl.where({x} < 0, -1.0, 0.0))"


def _relu(ctx: Ctx, args: Sequence[object], kw: dict[str, object]) -> str:
    x = _x(ctx, args)
    return f"tl.where({x} <= 0, 0.0, {x})"


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


_TABLE: dict[str, Lowering] = {
    # arithmetic
    "add": _add,
    "sub": _sub,
    "rsub": _rsub,
    "mul": _mul,
    "div": _div_mode,
    "true_divide": lambda ctx, a, kw: fdiv(_f(a[0]), _f(a[1])),
    "floor_divide": _blocks2(floor_divide),
    "neg": _unary("-{x}"),
    "reciprocal": lambda ctx, a, kw: fdiv("1.0", _f(a[0])),
    "square": lambda ctx, a, kw: pow_tensor_scalar(_f(a[0]), 2, ctx),
    "lerp": _lerp,
    "addcmul": _addcmul,
    "addcdiv": _addcdiv,
    "fmod": _blocks2(fmod),
    "remainder": _blocks2(remainder),
    "pow.Tensor_Scalar": _pow_ts,
    "pow.Tensor_Tensor": _pow_tt,
    "pow.Scalar": _pow_scalar,
    "hypot": _hypot,
    "copysign": _copysign,
    "deg2rad": _unary("{x} * 0.017453292519943295"),
    "rad2deg": _unary("{x} * 57.29577951308232"),
    # transcendentals
    "exp": _unary("tl.exp({x})"),
    "exp2": _unary("tl.exp2({x})"),
    "expm1": _portable1(expm1),
    "log": _unary("tl.log({x})"),
    "log2": _unary("tl.log2({x})"),
    "log10": _unary("tl.log({x}) * 0.4342944819032518"),
    "log1p": _portable1(log1p),
    "logaddexp": _logaddexp(False),
    "logaddexp2": _logaddexp(True),
    "xlogy": _xlogy,
    # sqrt_rn: IEEE like PyTorch (tl.sqrt is sqrt.approx.f32 on NVIDIA GPUs)
    "sqrt": _unary("tl.sqrt_rn(tl.cast({x}, tl.float32))"),
    "rsqrt": _unary("tl.rsqrt({x})"),
    "sin": _unary("tl.sin({x})"),
    "cos": _unary("tl.cos({x})"),
    "tan": _unary("tl.sin({x}) / tl.cos({x})"),
    "sinc": _sinc,
    "tanh": _portable1(tanh),
    "sinh": lambda ctx, a, kw: _sinh_cosh(_f(a[0]), ctx, cosh=False),
    "cosh": lambda ctx, a, kw: _sinh_cosh(_f(a[0]), ctx, cosh=True),
    "asinh": _asinh,
    "acosh": _acosh,
    "atanh": _atanh,
    "atan": _portable1(atan),
    "atan2": _portable2(atan2),
    "asin": _asin,
    "acos": _acos,
    "erf": _unary("tl.math.erf({x})"),
    "erfc": _portable1(erfc),
    "erfinv": _portable1(erfinv),
    "sigmoid": _unary("tl.sigmoid({x})"),
    "logit": _logit,
    "abs": _unary("tl.abs({x})"),
    "sign": _sign,
    "sgn": _sign,
    "signbit": _signbit,
    "nan_to_num": _nan_to_num,
    # rounding
    "floor": _unary("tl.floor({x})"),
    "ceil": _unary("tl.ceil({x})"),
    "trunc": _portable1(trunc),
    "fix": _portable1(trunc),
    "round.default": _portable1(round_half_even),
    "round.decimals": _round_decimals,
    "frac": lambda ctx, a, kw: (lambda x: f"{x} - {trunc(x, ctx)}")(_x(ctx, a)),
    # activations
    "relu": _relu,
    "silu": lambda ctx, a, kw: (lambda x: f"{x} * tl.sigmoid({x})")(_x(ctx, a)),
    "gelu": _gelu,
    "softplus": _softplus,
    "hardtanh": _hardtanh,
    "leaky_relu": _leaky_relu,
    "elu": _elu,
    "celu": _celu,
    "hardsigmoid": _hardsigmoid,
    "hardswish": _hardswish,
    "mish": _mish,
    "log_sigmoid_forward": _log_sigmoid_forward,
    "threshold": _threshold,
    "hardshrink": _hardshrink,
    "softshrink": _softshrink,
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
    "isinf": _unary(f"tl.abs({{x}}) == {_INF}"),
    "isfinite": _unary(f"tl.abs({{x}}) < {_INF}"),
    "minimum": _minmax("minimum"),
    "maximum": _minmax("maximum"),
    "fmin": _fminmax("minimum"),
    "fmax": _fminmax("maximum"),
    "clamp": _clamp,
    "clip": _clamp,
    "clamp_min": lambda ctx, a, kw: clamp(_f(a[0]), a[1], None, ctx),
    "clamp_max": lambda ctx, a, kw: clamp(_f(a[0]), None, a[1], ctx),
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
    "empty_like": _const(0.0),
    "full_like": _full_like,
    "full": _full,
    "zeros": _const(0.0),
    "ones": _const(1.0),
    "new_zeros": _const(0.0),
    "new_ones": _const(1.0),
    "new_empty": _const(0.0),
    "new_full": _new_full,
    "_efficientzerotensor": _const(0.0),
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
    "hardsigmoid_backward": _hardsigmoid_backward,
    "hardswish_backward": _hardswish_backward,
    "mish_backward": _mish_backward,
    "log_sigmoid_backward": _log_sigmoid_backward,
    "logit_backward": _logit_backward,
    "hardshrink_backward": _shrink_backward,
    "softshrink_backward": _shrink_backward,
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
