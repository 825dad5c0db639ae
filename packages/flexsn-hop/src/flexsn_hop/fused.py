"""The fused implementation of ``flex_sn_scan``: which one is in effect, and how it is asked.

Without one, ``flex_sn_scan`` decomposes into the eager time loop when it
runs or is traced by AOTAutograd / Inductor (the loop unrolls). By default
the runtime's fused Triton kernels serve it
(:func:`flexsn_hop.runtime_fusion.runtime_fused_impl`, unless
``FLEXSN_HOP_FUSED=0``); :func:`register_fused_impl` installs another
implementation in its place (or none)::

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

import torch

from flexsn_runtime import warn_fallback
from flexsn_trace import broadcast_shape
from flexsn_trace.env import env_flag

from ._checks import ScanArgs
from ._types import CoreFn, DispatchPath, FusedScanCall
from .runtime_fusion import runtime_fused_impl
from .scalars import items_read_as_tensors
from .sizes import without_sizes

__all__ = [
    "FusedScanImpl",
    "enable_fused_kernels",
    "fused_kernels_enabled",
    "get_fused_impl",
    "register_fused_impl",
    "use_fused_impl",
]

#: A fused implementation: returns ``(*output_seqs, *state_seqs)`` (with
#: ``call.final_state``: ``(*output_seqs, *final_states)``) or ``None`` to
#: decline (the operator then runs the eager loop).
FusedScanImpl = Callable[[FusedScanCall], Sequence[torch.Tensor] | None]

class _Default:
    """The hook slot's initial value: :func:`runtime_fused_impl` while ``FLEXSN_HOP_FUSED`` allows it."""


_DEFAULT = _Default()
#: reasons a call skipped the hook, already warned about (one warning each)
_WARNED: set[str] = set()
_fused_impl: FusedScanImpl | None | _Default = _DEFAULT


def register_fused_impl(fn: FusedScanImpl | None) -> FusedScanImpl | None:
    """Install ``fn`` as the fused implementation of ``flex_sn_scan``.

    ``fn(call: FusedScanCall)`` returns ``num_outputs + num_states`` tensors
    (``[T, *shape]`` each, outputs first; the states ``[*shape]`` when
    ``call.final_state``) or ``None`` to fall back to the eager loop.
    ``None`` removes every fused implementation (the runtime's included).
    Returns the implementation in effect before, so callers can restore it.

    Raises:
        TypeError: ``fn`` is neither callable nor ``None``.
    """
    global _fused_impl
    if fn is not None and not callable(fn):
        raise TypeError(f"register_fused_impl expects a callable or None, got {type(fn).__name__}")
    previous = get_fused_impl()
    _fused_impl = fn
    return previous


def get_fused_impl() -> FusedScanImpl | None:
    """The fused implementation in effect, or ``None``.

    Until :func:`register_fused_impl` or :func:`enable_fused_kernels` is
    called: :func:`flexsn_hop.runtime_fusion.runtime_fused_impl` unless
    ``FLEXSN_HOP_FUSED=0`` (read now).
    """
    impl = _fused_impl
    if isinstance(impl, _Default):
        return runtime_fused_impl if env_flag("FLEXSN_HOP_FUSED") else None
    return impl


def enable_fused_kernels(enabled: bool = True) -> None:
    """Run ``flex_sn_scan`` on the runtime's fused kernels (or, with ``False``, never).

    Takes precedence over ``FLEXSN_HOP_FUSED``. Compiled graphs keep the path
    they were traced with: call ``torch._dynamo.reset()`` after changing this.
    """
    register_fused_impl(runtime_fused_impl if enabled else None)


def fused_kernels_enabled() -> bool:
    """Whether ``flex_sn_scan`` tries the runtime's fused kernels before the eager loop."""
    return get_fused_impl() is runtime_fused_impl


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


def run_fused_impl(core_fn: CoreFn, num_outputs: int, args: ScanArgs, dispatch: DispatchPath) -> tuple[torch.Tensor, ...] | None:
    """Ask the fused implementation in effect; ``None`` when there is none or it declines.

    Sizes among the lifted arguments (:mod:`flexsn_hop.sizes`) are not passed
    to the hook. The runtime's hook gets the body with a probe in their place
    (its kernels' shape check refuses a body that computes with one), or is
    not asked when there is no such body (one warning says why); another hook
    gets the body with the call's sizes bound in their places. The runtime's hook gets a
    body that reads lifted floats as the 0-d tensors they arrive in
    (:func:`flexsn_hop.scalars.items_read_as_tensors`).

    Raises ``RuntimeError`` when it returns the wrong number of values, an
    output whose leading dim is not ``T``, or states of the wrong shape:
    ``[T, *init_state.shape]`` sequences, or with ``final_state``
    ``[*init_state.shape]`` final states (with ``zero_init_states``, the
    state shape is input 0's per-step shape). A state may also come back in
    the shape the inputs' per-step shapes and the states broadcast to, which
    a broadcasting initial state takes in the loop's first step.
    """
    impl = get_fused_impl()
    if impl is None:
        return None
    c = args.contract
    body = core_fn
    if args.sizes.positions and impl is runtime_fused_impl:
        # the probe body is safe only where the kernels' shape check stands behind it
        probed = without_sizes(core_fn, c.num_inputs + c.num_states, args.sizes)
        if isinstance(probed, str):
            warn_fallback(_WARNED, f"flex_sn_scan: {probed}; the scan runs on the eager loop (compile with dynamic=False to fuse it)")
            return None
        body = probed
    elif args.sizes.positions:
        body = args.loop_core(core_fn)  # another hook may run the body: it gets the real sizes
    if impl is runtime_fused_impl:  # a float Dynamo lifted: read in place by the kernels, not through .item()
        body, only_items = items_read_as_tensors(body, c.num_inputs + c.num_states)
        if only_items:  # read as numbers only: no gradient, as in the loop
            c = c._replace(lifted_args=tuple(t.detach() if k in only_items else t for k, t in enumerate(c.lifted_args)))
    flat = c.flat_args
    requires_grad = dispatch == "autograd" and torch.is_grad_enabled() and any(t.requires_grad for t in flat)
    call = FusedScanCall(
        core_fn=body,
        num_inputs=c.num_inputs,
        num_states=c.num_states,
        num_outputs=num_outputs,
        input_seqs=c.input_seqs,
        init_states=c.init_states,
        lifted_args=c.lifted_args,
        output_template_specs=args.output_template_specs,
        T=c.T,
        dispatch=dispatch,
        requires_grad=requires_grad,
        tracing=_is_tracing(flat),
        final_state=c.final_state,
        zero_init_states=args.contract.zero_init_states,
    )
    result = impl(call)
    if result is None:
        return None
    values = tuple(result)
    expected = num_outputs + c.num_states
    if len(values) != expected or not all(isinstance(v, torch.Tensor) for v in values):
        raise RuntimeError(
            f"flex_sn_scan fused impl returned {len(values)} values, expected "
            f"num_outputs + num_states = {expected} tensors"
        )
    state_shapes = [c.step_shape] * c.num_states if args.contract.zero_init_states else [tuple(s.shape) for s in c.init_states]
    # a state that broadcasts with the inputs grows to their common shape in the first step of the loop, and the
    # runtime's kernels write it there (flexsn_runtime.fit_shapes): that shape is a state's too
    def common() -> tuple[int, ...] | None:  # asked only when a state's shape is not its initial one
        return broadcast_shape([*(tuple(x.shape[1:]) for x in c.input_seqs), *state_shapes])

    _check_result_shapes(values[:num_outputs], values[num_outputs:], state_shapes, c.T, c.final_state, common)
    return values


def _check_result_shapes(
    outputs: Sequence[torch.Tensor],
    states: Sequence[torch.Tensor],
    state_shapes: Sequence[tuple[int, ...]],
    T: int,
    final_state: bool,
    common: Callable[[], tuple[int, ...] | None] = lambda: None,
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
        if tuple(s.shape) == expected:
            continue
        grown = common()
        if grown is None or tuple(s.shape) != ((*grown,) if final_state else (T, *grown)):
            raise RuntimeError(
                f"flex_sn_scan fused impl returned {what} {j} of shape {tuple(s.shape)}, "
                f"expected {expected} (final_state={final_state})"
            )
