"""The emit context and the literals, casts and names every lowering writes with."""

from __future__ import annotations

import math
import re
from typing import Callable, Sequence

import torch

class UnsupportedOpError(NotImplementedError):
    """Raised when a graph holds an op (or an argument form) with no lowering.

    Attributes:
        op: the op's name as PyTorch prints it, e.g. ``"aten.cumsum.default"``.
    """

    def __init__(self, op: str, detail: str = "", *, message: str | None = None) -> None:
        self.op = op
        msg = f"FlexSN cannot lower op '{op}' to Triton"
        if detail:
            msg += f": {detail}"
        super().__init__(message if message is not None else msg)  # message: what blocks the lowering is not an op


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
