"""The fused-implementation hook of ``flex_sn_scan`` (seam for a later lowering).

``flex_sn_scan`` always decomposes into the eager time loop when it runs or
is traced by AOTAutograd / Inductor (seed 003, milestone M2: "AOTAutograd
tracing works by unrolling the scan"). A higher layer that can do better,
e.g. the runtime's fused Triton kernels, registers ONE function here::

    from flexsn_hop import FusedScanCall, register_fused_impl

    def fused(call: FusedScanCall) -> tuple[torch.Tensor, ...] | None:
        if not supported(call.core_fn):
            return None                      # -> eager loop
        return run_kernels(call)             # (*output_seqs, *state_seqs)
                                             # or, with call.final_state,
                                             # (*output_seqs, *final_states)

    register_fused_impl(fused)

Every kernel of the operator (Autograd, CompositeExplicitAutograd,
Functionalize, the FunctionalTensor / Proxy / Fake dispatch modes and the
``torch.func`` transforms) asks
the hook first, after argument validation, and falls back to the eager loop
when no hook is registered or the hook returns ``None``. Exceptions raised by
the hook propagate: a hook that cannot build a kernel should warn and return
``None`` itself.

What the hook must guarantee:

* return ``num_outputs`` output sequences ``[T, *out_shape]`` followed by
  ``num_states`` state sequences ``[T, *state_shape]`` or, when
  ``call.final_state`` is set, ``num_states`` final states
  ``[*state_shape]`` (``state_shape`` being each initial state's shape; the
  operator checks the count and shapes and raises ``RuntimeError``
  otherwise);
* on ``call.dispatch == "autograd"`` with ``call.requires_grad`` the result
  must carry its own autograd (e.g. ``torch.library`` custom ops with a
  registered autograd formula), because the operator does not differentiate
  through the hook;
* under tracing (``call.tracing``) it must use only traceable operations
  (custom ops with fake/meta kernels), because they end up in the graph.

Compiled graphs bake in the path taken when they were traced: register the
hook before the first ``torch.compile`` call (or call
``torch._dynamo.reset()`` afterwards).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import torch

from ._types import CoreFn, OutputTemplateSpecs

__all__ = [
    "DispatchPath",
    "FusedScanCall",
    "FusedScanImpl",
    "get_fused_impl",
    "register_fused_impl",
    "use_fused_impl",
]

#: Which kernel of the operator consulted the hook.
DispatchPath = Literal[
    "autograd", "dense", "functionalize", "proxy", "fake", "functorch", "eager"
]


@dataclass(frozen=True)
class FusedScanCall:
    """One ``flex_sn_scan`` call, validated and split, as seen by the hook.

    ``input_seqs`` are ``[T, *shape]`` tensors, ``init_states`` ``[*shape]``
    tensors and ``lifted_args`` the extra tensors passed unchanged to every
    step (closures captured by Dynamo, in the body's argument order).
    ``core_fn`` is the user's step function or, under ``torch.compile``, the
    ``torch.fx.GraphModule`` Dynamo traced from it; either way it is called
    as ``core_fn(*step_inputs, *states, *lifted_args)``.
    ``output_template_specs`` is ``None`` or ``num_outputs`` items of
    ``(shape, dtype[, device])`` (always present when Dynamo captured the
    call). ``dispatch`` names the operator kernel that asks (``"functorch"``:
    under a ``torch.func`` transform, with wrapped tensors; ``"eager"``: the
    operator could not be registered as a HOP), ``requires_grad``
    says whether autograd must flow (only ever ``True`` on ``"autograd"``) and
    ``tracing`` whether the tensors are fake / proxied (AOTAutograd, Inductor,
    ``make_fx``) rather than real. ``final_state`` is the operator's
    ``final_state`` keyword: the hook must then return the final states
    ``[*state_shape]`` in place of the state sequences (state sequences
    need not be computed at all). ``zero_init_states`` is the operator's
    ``zero_init_states`` keyword: no initial states were passed, so
    ``init_states`` is empty and the states start as zeros of input 0's
    per-step shape, dtype and device; a hook should create them inside its
    op (a hook that cannot should return ``None``). Seed 003, ``FlexSNScan``.
    """

    core_fn: CoreFn
    num_inputs: int
    num_states: int
    num_outputs: int
    input_seqs: tuple[torch.Tensor, ...]
    init_states: tuple[torch.Tensor, ...]
    lifted_args: tuple[torch.Tensor, ...]
    output_template_specs: OutputTemplateSpecs | None
    T: int
    dispatch: DispatchPath
    requires_grad: bool
    tracing: bool
    final_state: bool = False
    zero_init_states: bool = False

    @property
    def flat_args(self) -> tuple[torch.Tensor, ...]:
        """``(*input_seqs, *init_states, *lifted_args)``, the operator's order."""
        return (*self.input_seqs, *self.init_states, *self.lifted_args)


#: A fused implementation: returns ``(*output_seqs, *state_seqs)`` (with
#: ``call.final_state``: ``(*output_seqs, *final_states)``) or ``None`` to
#: decline (the operator then runs the eager loop).
FusedScanImpl = Callable[[FusedScanCall], Sequence[torch.Tensor] | None]

_fused_impl: FusedScanImpl | None = None


def register_fused_impl(fn: FusedScanImpl | None) -> FusedScanImpl | None:
    """Install ``fn`` as the fused implementation of ``flex_sn_scan``.

    ``fn(call: FusedScanCall)`` returns ``num_outputs + num_states`` tensors
    (``[T, *shape]`` each, outputs first; the states ``[*shape]`` when
    ``call.final_state``) or ``None`` to fall back to the eager loop. ``None`` removes the hook. Returns the previously registered
    function so callers can restore it. Raises ``TypeError`` when ``fn`` is
    neither callable nor ``None``. The seam left for wiring the runtime's
    Triton kernels to the seed-003 operator.
    """
    global _fused_impl
    if fn is not None and not callable(fn):
        raise TypeError(f"register_fused_impl expects a callable or None, got {type(fn).__name__}")
    previous = _fused_impl
    _fused_impl = fn
    return previous


def get_fused_impl() -> FusedScanImpl | None:
    """Return the registered fused implementation, or ``None`` (seed 003 seam)."""
    return _fused_impl


@contextlib.contextmanager
def use_fused_impl(fn: FusedScanImpl | None) -> Iterator[None]:
    """Context manager: register ``fn`` for the ``with`` block, then restore
    the previous hook (also on error). Same contract as
    :func:`register_fused_impl`."""
    previous = register_fused_impl(fn)
    try:
        yield
    finally:
        register_fused_impl(previous)


def _is_tracing(tensors: Sequence[torch.Tensor]) -> bool:
    """Best effort: fake tensors, functional wrappers or an active proxy mode."""
    try:
        from torch._subclasses.fake_tensor import is_fake
        from torch.fx.experimental.proxy_tensor import get_proxy_mode

        if get_proxy_mode() is not None:
            return True
        return any(is_fake(t) for t in tensors)
    except Exception:  # private API drift: assume real tensors
        return False


def run_fused_impl(
    core_fn: CoreFn,
    num_inputs: int,
    num_states: int,
    num_outputs: int,
    input_seqs: tuple[torch.Tensor, ...],
    init_states: tuple[torch.Tensor, ...],
    lifted_args: tuple[torch.Tensor, ...],
    output_template_specs: OutputTemplateSpecs | None,
    T: int,
    dispatch: DispatchPath,
    final_state: bool = False,
    zero_init_states: bool = False,
) -> tuple[torch.Tensor, ...] | None:
    """Ask the registered hook; ``None`` when there is none or it declines.

    Raises ``RuntimeError`` when the hook returns the wrong number of
    values, an output whose leading dim is not ``T``, or states of the wrong
    shape: ``[T, *init_state.shape]`` sequences, or with ``final_state``
    ``[*init_state.shape]`` final states (with ``zero_init_states``, the
    state shape is input 0's per-step shape).
    """
    impl = _fused_impl
    if impl is None:
        return None
    flat = (*input_seqs, *init_states, *lifted_args)
    requires_grad = (
        dispatch == "autograd"
        and torch.is_grad_enabled()
        and any(t.requires_grad for t in flat)
    )
    call = FusedScanCall(
        core_fn=core_fn,
        num_inputs=num_inputs,
        num_states=num_states,
        num_outputs=num_outputs,
        input_seqs=input_seqs,
        init_states=init_states,
        lifted_args=lifted_args,
        output_template_specs=output_template_specs,
        T=T,
        dispatch=dispatch,
        requires_grad=requires_grad,
        tracing=_is_tracing(flat),
        final_state=final_state,
        zero_init_states=zero_init_states,
    )
    result = impl(call)
    if result is None:
        return None
    values = tuple(result)
    expected = num_outputs + num_states
    if len(values) != expected or not all(isinstance(v, torch.Tensor) for v in values):
        raise RuntimeError(
            f"flex_sn_scan fused impl returned {len(values)} values, expected "
            f"num_outputs + num_states = {expected} tensors"
        )
    if zero_init_states:
        step_shape = tuple(input_seqs[0].shape[1:])
        state_shapes = [step_shape] * num_states
    else:
        state_shapes = [tuple(s.shape) for s in init_states]
    _check_result_shapes(values[:num_outputs], values[num_outputs:], state_shapes, T, final_state)
    return values


def _check_result_shapes(
    outputs: Sequence[torch.Tensor],
    states: Sequence[torch.Tensor],
    state_shapes: Sequence[tuple[int, ...]],
    T: int,
    final_state: bool,
) -> None:
    for i, y in enumerate(outputs):
        if y.dim() == 0 or y.shape[0] != T:
            raise RuntimeError(
                f"flex_sn_scan fused impl returned output {i} of shape {tuple(y.shape)}, "
                f"expected a sequence [T={T}, *shape]"
            )
    what = "final state" if final_state else "state sequence"
    for j, (s, shape0) in enumerate(zip(states, state_shapes)):
        expected = tuple(shape0) if final_state else (T, *shape0)
        if tuple(s.shape) != expected:
            raise RuntimeError(
                f"flex_sn_scan fused impl returned {what} {j} of shape {tuple(s.shape)}, "
                f"expected {expected} (final_state={final_state})"
            )
