"""The aten -> Triton lowering: emit context, portable math, combinators, op lowerings, table (spikingjelly.activation_based.triton_kernel.torch2triton's graph-to-Triton step).

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

from .emit import ROUND_BY_HAND, STORAGE_CAST, Ctx, Lowering, UnsupportedOpError, cast, lit
from .table import LOWERINGS, VIEW_OPS, lowering_for, supported_ops

__all__ = [
    "LOWERINGS",
    "ROUND_BY_HAND",
    "STORAGE_CAST",
    "VIEW_OPS",
    "Ctx",
    "Lowering",
    "UnsupportedOpError",
    "cast",
    "lit",
    "lowering_for",
    "supported_ops",
]
