"""The lowering table: aten op name -> lowering, and the lookup the code generator uses."""

from __future__ import annotations

from .emit import Lowering, UnsupportedOpError, _INF, _f
from .portable import (
    atan,
    atan2,
    clamp,
    erfc,
    erfinv,
    expm1,
    fdiv,
    floor_divide,
    fmod,
    log1p,
    pow_tensor_scalar,
    remainder,
    round_half_even,
    tanh,
    trunc,
)
from .combinators import _binary, _blocks2, _clamp, _fminmax, _minmax, _portable1, _portable2, _unary, _x
from .ops_basic import (
    _add,
    _addcdiv,
    _addcmul,
    _bitwise,
    _bitwise_not,
    _celu,
    _const,
    _div_mode,
    _elu,
    _elu_backward,
    _full,
    _full_like,
    _gelu,
    _gelu_backward,
    _hardshrink,
    _hardtanh,
    _hardtanh_backward,
    _heaviside,
    _identity,
    _leaky_relu,
    _leaky_relu_backward,
    _lerp,
    _logical,
    _masked_fill,
    _mul,
    _new_full,
    _pow_scalar,
    _pow_ts,
    _pow_tt,
    _rsub,
    _scalar_tensor,
    _shrink_backward,
    _softplus,
    _softplus_backward,
    _softshrink,
    _sub,
    _threshold,
    _threshold_backward,
    _to_copy,
    _where,
)
from .ops_special import (
    _acos,
    _acosh,
    _asin,
    _asinh,
    _atanh,
    _copysign,
    _hardsigmoid,
    _hardsigmoid_backward,
    _hardswish,
    _hardswish_backward,
    _hypot,
    _log_sigmoid_backward,
    _log_sigmoid_forward,
    _logaddexp,
    _logit,
    _logit_backward,
    _mish,
    _mish_backward,
    _nan_to_num,
    _relu,
    _round_decimals,
    _sigmoid_backward,
    _sign,
    _signbit,
    _silu_backward,
    _sinc,
    _sinh_cosh,
    _tanh_backward,
    _xlogy,
)


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
    raise UnsupportedOpError(display, _WHY_NOT.get(str(name), ""))


#: what a user wrote to get an op that has no lowering, where the op's name alone does not say it
_WHY_NOT = {
    # tracing writes an argument changed in place back with copy_
    "copy_": "the core changes one of its arguments in place (x.add_(1), v.mul_(0.5)), which the eager loop writes "
             "back into the caller's input sequence or state; write the step out of place (v = v * 0.5) to run fused",
}


def supported_ops() -> list[str]:
    """Names (packet or ``packet.overload``) of every lowered aten op, sorted."""
    return sorted(_TABLE)
