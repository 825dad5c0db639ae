"""What runs once while Dynamo compiles a call, rather than in the compiled graph.

Dynamo cannot trace ``warnings.warn`` (a graph break, an error under
``fullgraph=True``) nor a kernel build, and a compiled graph (a CUDA-graph
replay most of all) runs no Python of ours between calls. Two things must
still happen for a compiled call:

* a fallback is told, once, as an eager call tells it, and so is a number
  this torch's Dynamo cannot guard (:func:`tell_while_compiling`,
  :data:`GUARDS_CLASS_ATTRIBUTES`);
* kernels traced with a number the core no longer reads are traced again
  before the graph takes their handle (:func:`settle_while_compiling`).

Both are marked as :func:`torch.compiler.assume_constant_result` marks a
function (:func:`constant_under_compile`): Dynamo runs them once while it
traces and keeps their result as a constant. Their argument is a kernel's
serial name (:func:`enrol`), a ``str``: Dynamo passes a string it reads
from an object as it is, where under ``torch.compile(dynamic=True)`` an
``int`` attribute of a plain object becomes a symbolic size, which an
``assume_constant_result`` call cannot take (Dynamo's "argument conversion
failed", an error under ``fullgraph=True``). Guards on the numbers
themselves come from the caller reading them in traced code
(:meth:`flexsn_runtime.FlexSNKernel.run`): a later change fails the guard,
Dynamo compiles again and this module's functions run again.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any, Callable, Sequence, TypeVar

import torch
from torch.torch_version import TorchVersion

from flexsn_trace import Constant, autograd_function, is_contents, run_isolated
from flexsn_trace.kinds import CACHED

__all__ = [
    "GUARDS_CLASS_ATTRIBUTES", "constant_under_compile", "enrol", "enrolled", "guarded_by_dynamo", "settle_while_compiling",
    "tell_while_compiling", "uncomparable", "unguarded_warnings",
]

_F = TypeVar("_F", bound=Callable[..., Any])

#: serial name -> the kernel object it names (weakly: a dropped kernel leaves)
_ENROLLED: "weakref.WeakValueDictionary[str, Any]" = weakref.WeakValueDictionary()
_SERIALS = itertools.count(1)

#: whether this torch's Dynamo guards a class attribute it reads (``K.thr``): torch 2.11's did not, 2.13's does
#: (``tools/results/gpu-2026-12-01/class_guard.py``); 2.12 is taken not to
GUARDS_CLASS_ATTRIBUTES = TorchVersion(torch.__version__) >= "2.13"


def guarded_by_dynamo(value: object, in_class: bool) -> bool:
    """Whether Dynamo guards a watched number, flag (a ``str``, ``None``, an enum member) or function of this kind
    when traced code reads it (as :meth:`flexsn_trace.Constants.current` does), so that a change compiles again.

    Not a class attribute on a torch before 2.13 (:data:`GUARDS_CLASS_ATTRIBUTES`), nor a NumPy floating
    scalar other than ``np.float64``: Dynamo passes ``np.float32(0.5).item()`` into the graph as an
    unspecialised float, on which a comparison is "data-dependent" (an error under ``fullgraph=True``), where
    it specialises and guards on an ``np.float64`` (a ``float`` subclass) and on NumPy integers
    (``tools/results/gpu-2026-12-08/``'s probe, torch 2.13 CPU). Nor a NumPy array's contents
    (:func:`flexsn_trace.is_contents`; Dynamo would trace the read of its bytes, not guard it), nor a set's or a
    long list's; nor code no Dynamo we run can compare (:func:`uncomparable`).
    """
    if in_class and not GUARDS_CLASS_ATTRIBUTES or is_contents(value) or uncomparable(value):
        return False  # compared outside the graph instead, by the forward op (check_traced_constants)
    numpy_float = type(value).__module__ == "numpy" and "float" in type(value).__name__
    return not numpy_float or isinstance(value, float)


def uncomparable(value: object) -> bool:
    """Whether ``value`` is code Dynamo cannot compare in traced code: a user's ``autograd.Function`` class
    (:func:`flexsn_trace.autograd_function`) or a ``functools.cache`` / ``lru_cache`` wrapper (torch 2.11's Dynamo
    fails ``is not`` on two of them, an error under ``fullgraph=True``: ``tools/results/gpu-2026-11-29h/`` run1)."""
    return autograd_function(value) or isinstance(value, CACHED)


def unguarded_warnings(items: Sequence[Constant], guarded: Sequence[bool]) -> tuple[str, ...]:
    """What a compiled call tells, once, of the watched places Dynamo does not guard (:func:`guarded_by_dynamo`):
    a change to one after compiling is not a recompile but an error of the next compiled call (the forward op
    compares them before its kernels run: ``check_traced_constants``), and a CUDA-graph replay does not see it."""
    unguarded = [c for c, g in zip(items, guarded) if not g]
    numbers = ", ".join(c.name for c in unguarded if not uncomparable(c.value))
    classes = ", ".join(c.name for c in unguarded if uncomparable(c.value))
    out = []
    if numbers:
        out.append(
            f"FlexSN: Dynamo does not guard {numbers} (a class attribute on this torch, a NumPy float32 / float16 scalar, "
            "or an array's, a set's or a long list's contents): a change to it after compiling makes the next compiled "
            "call raise (a CUDA-graph replay does not see it); make it a Python float held by an instance or a global, "
            "or a static input"
        )
    if classes:
        out.append(
            f"FlexSN: Dynamo cannot compare {classes} (an autograd.Function class or a functools.cache wrapper): "
            "rebinding it after compiling makes "
            "the next compiled call raise (a CUDA-graph replay does not see it)"
        )
    return tuple(out)


def constant_under_compile(fn: _F) -> _F:
    """Mark ``fn`` as :func:`torch.compiler.assume_constant_result` does, without importing Dynamo.

    That decorator sets this one attribute (``torch/_dynamo/decorators.py``),
    but imports ``torch._dynamo`` (about half a second) at our import time;
    Dynamo reads the attribute when it meets a call to ``fn``: it runs
    ``fn`` once and uses the result as a constant instead of tracing into it.
    The compiled-training and compiled-fallback tests fail (a graph break
    under ``fullgraph=True``) if Dynamo stops honouring it.
    """
    fn._dynamo_marked_constant = True  # type: ignore[attr-defined]
    return fn


def enrol(kernel: Any) -> str:
    """A new serial name for ``kernel`` to this module's functions (held weakly; a string: see the module docstring)."""
    serial = f"flexsn-kernel-{next(_SERIALS)}"
    _ENROLLED[serial] = kernel
    return serial


def enrolled(serial: str) -> Any:
    """The kernel ``serial`` names, or ``None`` when it is gone."""
    return _ENROLLED.get(serial)


@constant_under_compile
def tell_while_compiling(serial: str, message: str, fallback: bool = True) -> bool:
    """Warn, once per message and kernel, for the kernel ``serial`` names; a constant to Dynamo.

    ``fallback``: ``message`` is why a call runs the eager loop, worded as an
    eager call words it (the kernel's ``tell_fallback``); else it is told as
    it is (the kernel's ``tell``). Returns ``True`` (what the compiled graph
    keeps: nothing).
    """
    kernel = enrolled(serial)
    if kernel is not None:
        (kernel.tell_fallback if fallback else kernel.tell)(message)
    return True


@constant_under_compile
def settle_while_compiling(serial: str) -> bool:
    """The kernel ``serial`` names, settled for a call (its ``settle``: a retrace if a number its core reads changed, with
    its warning); a constant to Dynamo.

    The build runs on a thread of its own (:func:`flexsn_trace.run_isolated`),
    away from what Dynamo has set on this one. Returns whether it retraced.
    """
    kernel = enrolled(serial)
    return kernel is not None and bool(run_isolated(kernel.settle, "flexsn-settle"))
