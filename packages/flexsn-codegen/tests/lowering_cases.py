"""The lowered aten ops' test cases: one ``Case`` per op (several for overloads and options) and the input sets.

Each input set covers an op's domain and its edges: zeros of both signs, ties for rounding, NaN and
infinities, values around thresholds, tiny arguments where the portable forms must not cancel.
``test_lowering_ops.py`` runs every case in a Triton kernel against PyTorch; kept apart so that file stays
a test module and this one a table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F
from torch import fx

A = torch.ops.aten
NAN, INF = math.nan, math.inf
N = 77  # elements per case: more than one probe block (64), not a multiple of it


# ---------------------------------------------------------------- input sets
def _fill(edges: Sequence[float], rest: Callable[[torch.Generator, int], torch.Tensor], seed: int) -> list[float]:
    g = torch.Generator().manual_seed(seed)
    extra = rest(g, N - len(edges)).tolist()
    return [float(v) for v in edges] + extra


def _randn(scale: float) -> Callable[[torch.Generator, int], torch.Tensor]:
    return lambda g, n: torch.randn(n, generator=g) * scale


def _uniform(lo: float, hi: float) -> Callable[[torch.Generator, int], torch.Tensor]:
    return lambda g, n: torch.rand(n, generator=g) * (hi - lo) + lo


_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1e-8, -1e-8, 1e-3, -1e-3, 3.0, -3.0, 7.25,
          -20.0, 20.0, 100.0, -100.0]
ANY = _fill([*_EDGES, NAN, INF, -INF], _randn(3.0), 1)
ANY2 = _fill([0.0, 1.0, -1.0, 2.0, -0.5, 0.5, -2.5, 1e-3, 3.0, 3.0, NAN, -4.0, 0.25, -1e-8, 1.0, INF, -INF, 5.0,
              -5.0, 0.0, NAN, 2.0, 1.5, -1.5], _randn(3.0), 2)
FINITE = _fill(_EDGES, _randn(3.0), 3)
FINITE2 = _fill([1.0, 0.0, 2.0, -0.5, 0.5, -2.5, 1e-3, 3.0, 3.0, -4.0, 0.25, -1e-8, 1.0, 5.0, -5.0, 0.7, 2.0, 1.5,
                 -1.5, 7.0, -7.0], _randn(3.0), 4)
POS = _fill([0.0, 1e-30, 1e-8, 1e-3, 0.5, 1.0, 2.0, 10.0, 1e4, 3e38, INF, NAN, 1.0 + 1e-6, 0.999999],
            lambda g, n: torch.exp(torch.randn(n, generator=g) * 3), 5)
POS_FINITE = _fill([1e-30, 1e-8, 1e-3, 0.5, 1.0, 2.0, 10.0, 1e4, 1.0 + 1e-6, 0.999999],
                   lambda g, n: torch.exp(torch.randn(n, generator=g) * 2), 6)
SMALL = _fill([0.0, -0.0, 1e-30, -1e-30, 1e-10, -1e-10, 1e-7, -1e-7, 3e-6, -3e-6, 1e-5, -1e-5, 1e-3, -1e-3, 0.1,
               -0.1], lambda g, n: torch.randn(n, generator=g) * 10 ** torch.randint(-9, -1, (n,), generator=g), 7)
UNIT = _fill([-1.0, 1.0, 0.0, -0.0, 0.5, -0.5, 1e-8, 0.999, -0.999, 0.9999999, -0.9999999, -1.5, 2.0, NAN, 1e-4],
             _uniform(-1.0, 1.0), 8)
OPEN01 = _fill([1e-6, 0.5, 0.999, 1e-3, 0.25, 0.0, 1.0, -0.1, 1.1, NAN], _uniform(0.0, 1.0), 9)
OPEN01_FINITE = [0.5 if v != v else v for v in OPEN01]
PROB = _fill([0.0, 1.0, 0.5, 1e-8, 0.99999994, 0.25], _uniform(0.0, 1.0), 15)
UNIT_FINITE = [0.25 if v != v else v for v in UNIT]
TIES = _fill([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 8388609.0, -8388609.0, 4194304.5,
              -4194304.5, 1e20, -1e20, 0.0, -0.0, NAN, INF, -INF, 2.4999998, 3.5000002, 1.25, -1.25, 0.05, 0.15],
             lambda g, n: torch.round(torch.randn(n, generator=g) * 10) + 0.5 * torch.randint(0, 2, (n,), generator=g),
             10)
AROUND20 = _fill([19.9, 20.0, 20.1, 25.0, 50.0, 88.0, 89.0, 100.0, -20.0, -50.0, -88.0, -100.0, 0.0, 2.4, 2.5,
                  2.6, 4.99, 5.0, 5.01, NAN], _randn(10.0), 11)
# (88.72, 89.42) is left out: sinh/cosh are finite there, PyTorch's CPU kernels overflow
BIG = _fill([0.0, 19.0, -19.0, 20.5, -20.5, 30.0, -30.0, 60.0, -60.0, 88.0, -88.0, 88.5, -88.5, 89.5, -89.5,
             100.0, -100.0, 1e-6, -1e-6, NAN, INF, -INF], _randn(20.0), 12)
DIVISOR = _fill([0.1, -0.1, 0.7, 2.5, -2.5, 3.0, -2.0, 1.0, 1e-3, 1e3, 0.3, -0.3, 7.0, 0.0, 0.1, 2.0], _randn(2.0), 13)
DIVIDEND = _fill([5.5, -5.5, 1e6 + 0.3125, 7.0, 3.0, -0.1, 1.0, 1.0, 0.6, 0.0, -0.0, -7.0, 21.0, 1.0, 0.3, -3.0],
                 _randn(10.0), 14)
NONZERO = [v if v != 0 else 1.0 for v in FINITE2]


# ---------------------------------------------------------------- cases
@dataclass
class Case:
    """One op test.

    op: the supported_ops() key the case covers.
    fn: function traced with generate_inference_graph (or None with build).
    inputs: one value list per function argument (all length N).
    build: for ops make_fx decomposes, ``build(graph, *placeholders) -> node``.
    exact: compare bit for bit (selections, rounding, comparisons).
    signed_zero: compare a zero's sign too (rounding, which C and CUDA define to keep it: ``round(-0.4)`` is
        ``-0.0``; other ops' zeros differ in sign between PyTorch's own CPU and CUDA code).
    rtol/atol: fp32 tolerances (defaults 1e-5 / 1e-6).
    half: also run with fp16/bf16 inputs.
    """

    op: str
    fn: Callable[..., Any] | None
    inputs: tuple[list[float], ...]
    id: str = ""
    build: Callable[..., fx.Node] | None = None
    exact: bool = False
    rtol: float = 1e-5
    atol: float = 1e-6
    half: bool = True
    extra_ops: tuple[str, ...] = field(default_factory=tuple)
    signed_zero: bool = False

    @property
    def name(self) -> str:
        return self.id or self.op


def C(op: str, fn: Callable[..., Any] | None, *inputs: list[float], **kw: Any) -> Case:
    return Case(op, fn, tuple(inputs), **kw)


def unary(op: str, fn: Callable[..., Any], values: list[float] = ANY, **kw: Any) -> Case:
    return C(op, fn, values, **kw)


def near0(op: str, fn: Callable[..., Any]) -> Case:
    # relative accuracy at tiny arguments: no absolute slack
    return C(op, fn, SMALL, id=f"{op}[near0]", atol=0.0, rtol=4e-6, half=False)


def built(op: str, overload: Any, n: int, *extra: Any, inputs: Sequence[list[float]] | None = None,
          pre: Callable[..., Any] | None = None, **kw: Any) -> Case:
    """A case whose graph is one call of ``overload`` built by hand."""

    def build(g: fx.Graph, *xs: fx.Node) -> fx.Node:
        args = pre(g, *xs) if pre is not None else xs
        return g.call_function(overload, (*args, *extra))

    ins = tuple(inputs) if inputs is not None else tuple([ANY, ANY2][:n])
    return Case(op, None, ins, build=build, **kw)


CASES: list[Case] = [
    # arithmetic
    C("add", lambda x, y: x + y, ANY, ANY2),
    C("add", lambda x, y: torch.add(x, y, alpha=-2.5), ANY, ANY2, id="add[alpha]"),
    C("add", lambda x: x + 1.5, ANY, id="add[Scalar]"),
    C("add", lambda x, y: (x > 0) + (y > 0), ANY, ANY2, id="add[bool]", exact=True),
    C("sub", lambda x, y: x - y, ANY, ANY2),
    C("sub", lambda x, y: torch.sub(x, y, alpha=0.5), ANY, ANY2, id="sub[alpha]"),
    C("rsub", lambda x: 2.0 - x, ANY),
    C("rsub", lambda x: torch.rsub(x, 3.0, alpha=2.0), ANY, id="rsub[alpha]"),
    C("mul", lambda x, y: x * y, ANY, ANY2),
    C("mul", lambda x: x * -0.75, ANY, id="mul[Scalar]"),
    C("mul", lambda x, y: (x > 0) * (y > 0), ANY, ANY2, id="mul[bool]", exact=True),
    C("div", lambda x, y: x / y, ANY, ANY2),
    C("div", lambda x, y: torch.div(x, y, rounding_mode="trunc"), DIVIDEND, DIVISOR, id="div[trunc]", exact=True),
    C("div", lambda x, y: torch.div(x, y, rounding_mode="floor"), DIVIDEND, DIVISOR, id="div[floor]", exact=True),
    C("div", lambda x, y: torch.div(x, y, rounding_mode="floor"), ANY, ANY2, id="div[floor-any]"),
    built("true_divide", A.true_divide.Tensor, 2),
    C("floor_divide", torch.floor_divide, DIVIDEND, DIVISOR, exact=True),
    C("neg", torch.neg, ANY, exact=True),
    C("reciprocal", torch.reciprocal, ANY),
    built("square", A.square.default, 1),
    C("lerp", lambda x, y: torch.lerp(x, y, 0.3), ANY, ANY2, id="lerp[Scalar]"),
    C("lerp", lambda x, y: torch.lerp(x, y, 1.0), FINITE, FINITE2, id="lerp[w=1]", exact=True),
    C("lerp", lambda x, y: torch.lerp(x, y, torch.sigmoid(y) * 1.5 - 0.25), FINITE, FINITE2, id="lerp[Tensor]"),
    C("addcmul", lambda x, y: torch.addcmul(x, x, y, value=0.5), ANY, ANY2),
    C("addcdiv", lambda x, y: torch.addcdiv(x, x, y, value=-2.0), ANY, ANY2),
    C("fmod", torch.fmod, DIVIDEND, DIVISOR, atol=0.0),
    C("fmod", lambda x: torch.fmod(x, 1.5), ANY, id="fmod[Scalar]", atol=0.0),
    C("remainder", torch.remainder, DIVIDEND, DIVISOR, atol=0.0),
    C("remainder", lambda x: torch.remainder(x, -0.7), FINITE, id="remainder[Scalar]"),
    C("pow.Tensor_Scalar", lambda x: x ** 2.5, ANY, id="pow.Tensor_Scalar[2.5]"),
    C("pow.Tensor_Scalar", lambda x: x ** 3, ANY, id="pow.Tensor_Scalar[3]"),
    C("pow.Tensor_Scalar", lambda x: x ** 5, FINITE, id="pow.Tensor_Scalar[5]", rtol=2e-5),
    C("pow.Tensor_Scalar", lambda x: x ** -2, ANY, id="pow.Tensor_Scalar[-2]"),
    C("pow.Tensor_Scalar", lambda x: x ** 0.5, ANY, id="pow.Tensor_Scalar[0.5]"),
    C("pow.Tensor_Scalar", lambda x: x ** -0.5, POS, id="pow.Tensor_Scalar[-0.5]"),
    C("pow.Tensor_Scalar", lambda x: x ** 0, ANY, id="pow.Tensor_Scalar[0]", exact=True),
    C("pow.Tensor_Scalar", lambda x: x ** 4.0, FINITE, id="pow.Tensor_Scalar[4.0]"),
    C("pow.Tensor_Scalar", lambda x: x ** -3, FINITE, id="pow.Tensor_Scalar[-3]", rtol=2e-5),
    C("pow.Tensor_Tensor", lambda x, y: torch.pow(x, y), FINITE, [round(v) if i % 2 else v for i, v in enumerate(FINITE2)],
      rtol=2e-5),
    C("pow.Tensor_Tensor", lambda x, y: torch.pow(x, y), [1.0, 1.0, 2.0, -2.0, 0.0, 0.0, NAN, 3.0] + ANY[8:],
      [NAN, INF, 0.0, 0.0, -1.0, 2.0, 0.0, 0.5] + ANY2[8:], id="pow.Tensor_Tensor[edges]", rtol=2e-5),
    C("pow.Scalar", lambda x: 2.0 ** x, FINITE, id="pow.Scalar[2]"),
    C("pow.Scalar", lambda x: 0.5 ** x, FINITE, id="pow.Scalar[0.5]"),
    C("pow.Scalar", lambda x: 0.0 ** x, ANY, id="pow.Scalar[0]", exact=True),
    C("pow.Scalar", lambda x: 1.0 ** x, ANY, id="pow.Scalar[1]", exact=True),
    C("pow.Scalar", lambda x: (-2.0) ** x, [round(v) for v in FINITE], id="pow.Scalar[-2]", rtol=2e-5),
    C("hypot", torch.hypot, ANY, ANY2),
    C("hypot", torch.hypot, [3e30, 1e-30, 3.0, 0.0] + FINITE[4:], [4e30, 1e-30, 4.0, 0.0] + FINITE2[4:],
      id="hypot[scale]"),
    C("copysign", torch.copysign, ANY, ANY2, exact=True),
    C("copysign", lambda x: torch.copysign(x, -0.0), ANY, id="copysign[Scalar]", exact=True),
    C("deg2rad", torch.deg2rad, ANY),
    C("rad2deg", torch.rad2deg, ANY),
    # transcendentals
    unary("exp", torch.exp),
    unary("exp2", torch.exp2),
    unary("expm1", torch.expm1, BIG),
    unary("expm1", torch.expm1, ANY, id="expm1[any]"),
    near0("expm1", torch.expm1),
    unary("log", torch.log, POS),
    unary("log2", torch.log2, POS),
    unary("log10", torch.log10, POS),
    unary("log1p", torch.log1p, POS),
    unary("log1p", torch.log1p, UNIT, id="log1p[unit]"),
    near0("log1p", torch.log1p),
    C("logaddexp", torch.logaddexp, ANY, ANY2),
    C("logaddexp", torch.logaddexp, [INF, -INF, INF, 0.0, 100.0, -100.0] + ANY[6:],
      [INF, -INF, -INF, 0.0, -100.0, -100.0] + ANY2[6:], id="logaddexp[inf]"),
    C("logaddexp2", torch.logaddexp2, ANY, ANY2),
    C("xlogy", torch.xlogy, [0.0, 0.0, 0.0, 1.0, 2.0, -1.0] + ANY[6:], [NAN, 0.0, -1.0, 0.0, 3.0, 0.5] + POS[6:]),
    unary("sqrt", torch.sqrt, ANY),
    unary("rsqrt", torch.rsqrt, POS),
    unary("sin", torch.sin, ANY),
    unary("cos", torch.cos, ANY),
    unary("tan", torch.tan, ANY, rtol=2e-5),
    unary("sinc", torch.sinc, ANY),
    unary("tanh", torch.tanh, ANY),
    unary("tanh", torch.tanh, BIG, id="tanh[big]"),
    near0("tanh", torch.tanh),
    unary("sinh", torch.sinh, BIG),
    unary("sinh", torch.sinh, ANY, id="sinh[any]"),
    near0("sinh", torch.sinh),
    unary("cosh", torch.cosh, BIG),
    unary("asinh", torch.asinh, ANY),
    unary("asinh", torch.asinh, [1e30, -1e30, 4096.5, 4095.5, 3e38] + BIG[5:], id="asinh[big]"),
    near0("asinh", torch.asinh),
    unary("acosh", torch.acosh, [1.0, 1.0 + 1e-6, 1.5, 0.5, 4096.5, 4095.0, 1e30, 3e38, NAN, INF] + POS[10:]),
    unary("atanh", torch.atanh, UNIT),
    near0("atanh", torch.atanh),
    unary("atan", torch.atan, ANY),
    unary("atan", torch.atan, [0.41421, 0.41422, 2.4142, 2.4143, -0.41421, -2.4143, 1e8, -1e8] + BIG[8:],
          id="atan[branches]"),
    near0("atan", torch.atan),
    C("atan2", torch.atan2, FINITE, FINITE2),
    C("atan2", torch.atan2, [0.0, 1.0, -1.0, 0.0, 2.0, -2.0] + FINITE[6:], [1.0, 0.0, 0.0, -1.0, -2.0, -2.0] + FINITE2[6:],
      id="atan2[axes]"),
    unary("asin", torch.asin, UNIT),
    unary("acos", torch.acos, UNIT),
    unary("erf", torch.erf, ANY),
    unary("erfc", torch.erfc, ANY),
    unary("erfc", torch.erfc, _fill([0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 9.0, -9.0], _uniform(-9.0, 9.0), 21),
          id="erfc[tails]", atol=1e-37, rtol=2e-5),
    unary("erfinv", torch.erfinv, UNIT, rtol=2e-5),
    unary("sigmoid", torch.sigmoid, ANY),
    unary("logit", torch.logit, OPEN01),
    C("logit", lambda x: torch.logit(x, eps=1e-3), OPEN01, id="logit[eps]"),
    unary("abs", torch.abs, ANY, exact=True),
    unary("sign", torch.sign, ANY, exact=True),
    unary("sgn", torch.sgn, ANY, exact=True),
    unary("signbit", torch.signbit, ANY, exact=True),
    unary("nan_to_num", torch.nan_to_num, ANY, exact=True),
    C("nan_to_num", lambda x: torch.nan_to_num(x, nan=1.5, posinf=7.0, neginf=-7.0), ANY, id="nan_to_num[values]",
      exact=True),
    # rounding
    unary("floor", torch.floor, TIES, exact=True, signed_zero=True),
    unary("ceil", torch.ceil, TIES, exact=True, signed_zero=True),
    unary("trunc", torch.trunc, TIES, exact=True, signed_zero=True),
    built("fix", A.fix.default, 1, inputs=[TIES], exact=True, signed_zero=True),
    unary("round.default", torch.round, TIES, exact=True, signed_zero=True),
    C("round.decimals", lambda x: torch.round(x, decimals=1), TIES, exact=True, signed_zero=True),
    C("round.decimals", lambda x: torch.round(x, decimals=-1), TIES, id="round.decimals[-1]", exact=True, signed_zero=True),
    unary("frac", torch.frac, TIES, exact=True, signed_zero=True),
    # activations
    unary("relu", torch.relu, ANY, exact=True),
    unary("silu", F.silu, ANY),
    # gelu(+-inf) differs between PyTorch's own CPU code paths (nan or inf)
    unary("gelu", F.gelu, FINITE),
    C("gelu", lambda x: F.gelu(x, approximate="tanh"), FINITE, id="gelu[tanh]"),
    unary("softplus", F.softplus, AROUND20),
    C("softplus", lambda x: F.softplus(x, beta=2.0, threshold=5.0), AROUND20, id="softplus[beta]"),
    unary("hardtanh", F.hardtanh, ANY, exact=True),
    C("hardtanh", F.relu6, ANY, id="hardtanh[relu6]", exact=True),
    unary("leaky_relu", F.leaky_relu, ANY, exact=True),
    C("leaky_relu", lambda x: F.leaky_relu(x, 0.2), ANY, id="leaky_relu[0.2]", exact=True),
    unary("elu", F.elu, ANY),
    C("elu", F.selu, ANY, id="elu[selu]"),
    near0("elu", F.elu),
    C("celu", lambda x: F.celu(x, 0.5), ANY),
    unary("hardsigmoid", F.hardsigmoid, ANY),
    unary("hardswish", F.hardswish, ANY),
    unary("mish", F.mish, AROUND20),
    unary("mish", F.mish, ANY, id="mish[any]"),
    unary("log_sigmoid_forward", F.logsigmoid, ANY),
    C("log_sigmoid_forward", lambda x: A.log_sigmoid_forward(x)[1], FINITE, id="log_sigmoid_forward[buffer]"),
    C("threshold", lambda x: F.threshold(x, 0.5, -2.0), ANY, exact=True),
    C("hardshrink", lambda x: F.hardshrink(x, 0.5), [0.5, -0.5] + ANY[2:], exact=True),
    C("softshrink", lambda x: F.softshrink(x, 0.5), [0.5, -0.5] + ANY[2:]),
    C("heaviside", torch.heaviside, ANY, ANY2, exact=True),
    # comparisons and logic
    *[C(op, fn, ANY, ANY2, exact=True) for op, fn in [
        ("eq", torch.eq), ("ne", torch.ne), ("lt", torch.lt), ("le", torch.le), ("gt", torch.gt), ("ge", torch.ge)]],
    C("eq", lambda x: x == 1.0, ANY, id="eq[Scalar]", exact=True),
    C("ge", lambda x: x >= 0.5, ANY, id="ge[Scalar]", exact=True),
    C("logical_and", lambda x, y: torch.logical_and(x > 0, y), ANY, ANY2, exact=True),
    C("logical_or", lambda x, y: torch.logical_or(x > 0, y), ANY, ANY2, exact=True),
    C("logical_xor", lambda x, y: torch.logical_xor(x, y > 1), ANY, ANY2, exact=True),
    C("logical_not", torch.logical_not, ANY, exact=True),
    C("bitwise_and", lambda x, y: (x > 0) & (y > 0), ANY, ANY2, exact=True),
    C("bitwise_or", lambda x, y: (x > 0) | (y < 1), ANY, ANY2, exact=True),
    C("bitwise_xor", lambda x, y: (x > 0) ^ (y > 0), ANY, ANY2, exact=True),
    C("bitwise_not", lambda x: ~(x > 0), ANY, exact=True),
    unary("isnan", torch.isnan, ANY, exact=True),
    unary("isinf", torch.isinf, ANY, exact=True),
    built("isfinite", A.isfinite.default, 1, exact=True),
    C("minimum", torch.minimum, ANY, ANY2, exact=True),
    C("maximum", torch.maximum, ANY, ANY2, exact=True),
    C("fmin", torch.fmin, ANY, ANY2, exact=True),
    C("fmax", torch.fmax, ANY, ANY2, exact=True),
    C("clamp", lambda x: torch.clamp(x, -1.0, 2.0), ANY, exact=True),
    C("clamp", lambda x: torch.clamp(x, min=0.5), ANY, id="clamp[min]", exact=True),
    C("clamp", lambda x: torch.clamp(x, max=0.5), ANY, id="clamp[max]", exact=True),
    C("clamp", lambda x, y: torch.clamp(x, min=y), ANY, ANY2, id="clamp.Tensor[min]", exact=True),
    C("clamp", lambda x, y: torch.clamp(x, max=y), ANY, ANY2, id="clamp.Tensor[max]", exact=True),
    C("clamp", lambda x, y: torch.clamp(x, y, y + 1.0), ANY, ANY2, id="clamp.Tensor[both]", exact=True),
    C("clamp", lambda x, y: torch.clamp(x, y + 1.0, y), ANY, ANY2, id="clamp.Tensor[crossed]", exact=True),
    built("clip", A.clip.default, 1, -1.0, 0.5, exact=True),
    C("clamp_min", lambda x: torch.clamp_min(x, 0.25), ANY, exact=True),
    C("clamp_min", torch.clamp_min, ANY, ANY2, id="clamp_min.Tensor", exact=True),
    C("clamp_max", lambda x: torch.clamp_max(x, 0.25), ANY, exact=True),
    C("clamp_max", torch.clamp_max, ANY, ANY2, id="clamp_max.Tensor", exact=True),
    C("where.self", lambda x, y: torch.where(x > y, x, y), ANY, ANY2, exact=True),
    C("where.self", lambda x: torch.where(x > 0, 1.0, x), ANY, id="where.self[scalar]", exact=True),
    built("where.ScalarSelf", A.where.ScalarSelf, 1,
          pre=lambda g, x: (g.call_function(A.gt.Scalar, (x, 0.0)), 2.0, x), exact=True, extra_ops=("gt",)),
    built("where.ScalarOther", A.where.ScalarOther, 1, -2.0,
          pre=lambda g, x: (g.call_function(A.gt.Scalar, (x, 0.0)), x), exact=True, extra_ops=("gt",)),
    built("where.Scalar", A.where.Scalar, 1, 1.5, -1.5, pre=lambda g, x: (g.call_function(A.gt.Scalar, (x, 0.0)),),
          exact=True, extra_ops=("gt",)),
    C("masked_fill", lambda x: x.masked_fill(x > 1.0, -3.0), ANY, exact=True),
    C("masked_fill", lambda x, y: x.masked_fill(y > 0, torch.tensor(2.5)), ANY, ANY2, id="masked_fill.Tensor",
      exact=True),
    # casts, copies and constants
    C("_to_copy", lambda x: x.to(torch.float16), ANY, id="_to_copy[f16]", exact=True),
    C("_to_copy", lambda x: x.to(torch.bfloat16), ANY, id="_to_copy[bf16]", exact=True),
    C("_to_copy", lambda x: x.to(torch.int32), FINITE, id="_to_copy[i32]", exact=True),
    C("_to_copy", lambda x: (x > 0).float() * x, ANY, id="_to_copy[bool->f32]", exact=True),
    C("_to_copy", lambda x: x.bool(), ANY, id="_to_copy[bool]", exact=True),
    C("_to_copy", lambda x: x.double() * 2, ANY, id="_to_copy[f64]", exact=True),
    built("to", A.to.dtype, 1, torch.float16, inputs=[ANY], exact=True),
    C("clone", lambda x: x.clone() * 1.0, ANY, exact=True),
    C("alias", lambda x: A.alias(x) * 2.0, ANY, exact=True),
    C("detach", lambda x: x.detach() * 2.0, ANY, exact=True),
    C("lift_fresh_copy", lambda x: x + torch.tensor(2.5), ANY, exact=True),
    built("lift_fresh", A.add.Tensor, 1, pre=lambda g, x: (x, g.call_function(A.lift_fresh.default, (x,))),
          exact=True, id="lift_fresh", extra_ops=("add",)),
    built("contiguous", A.contiguous.default, 1, exact=True),
    built("positive", A.positive.default, 1, exact=True),
    C("copy", lambda x, y: x.clone().copy_(y), ANY, ANY2, exact=True),
    C("scalar_tensor", lambda x: torch.where(x > 0, 2.0, -3.0), ANY, exact=True),
    C("zeros_like", lambda x: torch.zeros_like(x) + x * 0.5, ANY, exact=True),
    C("ones_like", lambda x: torch.ones_like(x) - x, ANY, exact=True),
    C("empty_like", lambda x: torch.empty_like(x).fill_(3.0) * x, ANY, exact=True),
    C("full_like", lambda x: torch.full_like(x, -2.5) * x, ANY, exact=True),
    C("full", lambda x: torch.full((N,), 1.25, device=x.device) + x, ANY, exact=True),
    C("zeros", lambda x: torch.zeros(N, device=x.device) - x, ANY, exact=True),
    C("ones", lambda x: torch.ones(N, device=x.device) + x, ANY, exact=True),
    C("new_zeros", lambda x: x.new_zeros(x.shape) + x, ANY, exact=True),
    C("new_ones", lambda x: x.new_ones(x.shape) + x, ANY, exact=True),
    C("new_empty", lambda x: x.new_empty(x.shape).fill_(0.5) + x, ANY, exact=True),
    C("new_full", lambda x: x.new_full(x.shape, 4.0) + x, ANY, exact=True),
    built("_efficientzerotensor", A.add.Tensor, 1,
          pre=lambda g, x: (x, g.call_function(A._efficientzerotensor.default, ([N],))), exact=True,
          id="_efficientzerotensor", extra_ops=("add",)),
    C("fill.Scalar", lambda x: torch.zeros_like(x).fill_(3.0) + x, ANY, exact=True),
    # backward-only ops produced by AOTAutograd; x is finite: for NaN inputs
    # PyTorch's vectorized and scalar CPU paths of these kernels disagree
    C("sigmoid_backward", A.sigmoid_backward, ANY2, PROB),
    C("tanh_backward", A.tanh_backward, ANY2, UNIT_FINITE),
    C("threshold_backward", lambda g, x: A.threshold_backward(g, x, 0.5), ANY2, ANY, exact=True),
    C("silu_backward", A.silu_backward, ANY2, FINITE),
    C("gelu_backward", A.gelu_backward, ANY2, FINITE),
    C("gelu_backward", lambda g, x: A.gelu_backward(g, x, approximate="tanh"), ANY2, ANY, id="gelu_backward[tanh]"),
    C("softplus_backward", lambda g, x: A.softplus_backward(g, x, 2.0, 5.0), ANY2, AROUND20),
    C("hardtanh_backward", lambda g, x: A.hardtanh_backward(g, x, -1.0, 1.0), ANY2, [1.0, -1.0] + FINITE[2:], exact=True),
    C("leaky_relu_backward", lambda g, x: A.leaky_relu_backward(g, x, 0.1, False), ANY2, FINITE),
    C("elu_backward", lambda g, x: A.elu_backward(g, 1.0, 1.0, 1.0, False, x), ANY2, FINITE),
    C("elu_backward", lambda g, x: A.elu_backward(g, 1.67, 1.05, 1.0, True, F.selu(x)), ANY2, FINITE,
      id="elu_backward[result]", extra_ops=("elu",)),
    C("hardsigmoid_backward", A.hardsigmoid_backward, ANY2, [3.0, -3.0] + FINITE[2:]),
    C("hardswish_backward", A.hardswish_backward, ANY2, [3.0, -3.0] + FINITE[2:]),
    C("mish_backward", A.mish_backward, ANY2, AROUND20),
    C("log_sigmoid_backward", lambda g, x: A.log_sigmoid_backward(g, x, torch.exp(-x.abs())), ANY2, FINITE),
    C("logit_backward", A.logit_backward, ANY2, OPEN01_FINITE),
    C("logit_backward", lambda g, x: A.logit_backward(g, x, 1e-3), ANY2, OPEN01_FINITE, id="logit_backward[eps]"),
    C("hardshrink_backward", lambda g, x: A.hardshrink_backward(g, x, 0.5), ANY2, [0.5, -0.5] + FINITE[2:], exact=True),
    C("softshrink_backward", lambda g, x: A.softshrink_backward(g, x, 0.5), ANY2, [0.5, -0.5] + FINITE[2:], exact=True),
]
