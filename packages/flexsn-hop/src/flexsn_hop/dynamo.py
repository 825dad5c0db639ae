"""Dynamo support for ``flex_sn_scan`` (registered with Dynamo).

Dynamo keeps a table from HigherOrderOperator name to the VariableTracker
class that traces calls to it. We add ``"flex_sn_scan"`` to that table.
Our tracker speculates ``core_fn`` once on one time step (``x[0]`` of every
input, or an empty ``[*shape]`` tensor when ``T == 0``) into an FX
subgraph, installs it as a ``GraphModule`` attribute of the outer graph and
emits ONE node::

    flex_sn_scan(body, num_inputs, num_states, num_outputs,
                 *input_seqs, *init_states, *lifted_args, *closure_tensors,
                 output_template_specs=((shape, dtype), ...)[, final_state=True]
                 [, zero_init_states=True])

Tensors the body captures from enclosing scopes (closures, globals,
module parameters) become extra body inputs appended after the explicit
arguments, which is the operator's lifted-freevar convention. The output
templates are read from the traced step so that ``T == 0`` also works
compiled. ``final_state`` must be a constant ``bool``; it is recorded
on the node only when ``True``. The node's example value comes from running
the operator (with the same keywords) on fake tensors, so with
``final_state=True`` the states come out as ``[*shape]`` final states.
``zero_init_states`` (a constant ``bool``, recorded only when ``True``)
means no initial states are among the tensors; the body is speculated on
zero states of the first step's shape.

Everything here touches private Dynamo APIs. Any failure while installing
is turned into a ``UserWarning``; ``dynamo_hop_available()`` then returns
``False`` and ``torch.compile`` graph-breaks around ``flex_sn_scan``,
which still runs eagerly.
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from typing import Any, Callable

import torch

from ._checks import check_final_state_flag, check_zero_init_states_flag, normalize_template_specs
from .scan import flex_sn_scan, hop_kernels_registered

__all__ = ["dynamo_hop_available", "install_dynamo_support"]

_HOP_NAME = "flexsn_hop.flex_sn_scan"
_installed: bool | None = None  # None: not tried yet


def _example_value(vt: Any) -> Any:
    try:
        return vt.as_proxy().node.meta.get("example_value")
    except Exception:
        return None


def _constant_flag(vt: Any, name: str, check: Callable[[object], bool], fail: Callable[[str], Any]) -> bool:
    """A ``bool`` keyword of the traced call (``False`` when absent); ``fail`` for anything but a constant bool."""
    if vt is None:
        return False
    if not vt.is_python_constant():
        fail(f"{name} must be a constant bool")
    try:
        return check(vt.as_python_constant())
    except TypeError as exc:
        fail(str(exc))
        raise  # fail() raises Dynamo's Unsupported; never reached


def _templates_from_body(body_leaves: list[Any], num_outputs: int) -> tuple[Any, ...] | None:
    specs = []
    for leaf in body_leaves[:num_outputs]:
        value = _example_value(leaf)
        if not isinstance(value, torch.Tensor):
            return None
        shape = tuple(value.shape)
        if not all(type(d) is int for d in shape):
            return None  # symbolic dims cannot be a constant kwarg
        specs.append((shape, value.dtype))
    return tuple(specs)


def _make_variable_class(hov: Any) -> type:
    builder = importlib.import_module("torch._dynamo.variables.builder")
    constant = importlib.import_module("torch._dynamo.variables.constant")
    Base = hov.TorchHigherOrderOperatorVariable
    speculate_subgraph = hov.speculate_subgraph
    make_attr = hov.make_attr
    discard_graph_changes = hov.discard_graph_changes
    unimplemented = hov.unimplemented
    wrap_fx_proxy = builder.wrap_fx_proxy
    ConstantVariable = constant.ConstantVariable
    speculate_params = inspect.signature(speculate_subgraph).parameters

    def fail(reason: str) -> Any:
        try:
            return unimplemented(
                gb_type="flex_sn_scan: unsupported call",
                context=reason,
                explanation=reason,
                hints=[],
            )
        except TypeError:  # older signature: unimplemented(msg)
            return unimplemented(f"flex_sn_scan: {reason}")

    def step_template(tx: Any, seq: Any) -> Any:
        value = _example_value(seq)
        if not isinstance(value, torch.Tensor) or value.dim() == 0:
            fail("every input sequence must be a tensor [T, *shape]")
        if value.shape[0] != 0:
            return seq.call_method(
                tx, "select", [ConstantVariable.create(0), ConstantVariable.create(0)], {}
            )
        shape = tuple(value.shape[1:])
        if not all(type(d) is int for d in shape):
            fail("T == 0 with symbolic step shapes")
        return seq.call_method(tx, "new_empty", [ConstantVariable.create(shape)], {})

    class FlexSNScanVariable(Base):  # type: ignore[misc, valid-type]
        _HOP_NAME = _HOP_NAME
        # A body Dynamo cannot trace graph-breaks to the eager operator
        # (or errors under fullgraph=True).
        _ALLOW_FALLBACK_TO_EAGER = True

        def call_function(self, tx: Any, args: Any, kwargs: Any) -> Any:
            return self._call_function(tx, args, kwargs)

        def _call_function(self, tx: Any, args: Any, kwargs: Any) -> Any:
            args = list(args)
            kwargs = dict(kwargs)
            specs_vt = kwargs.pop("output_template_specs", None)
            final_state_vt = kwargs.pop("final_state", None)
            zero_init_vt = kwargs.pop("zero_init_states", None)
            if kwargs:
                fail(f"unexpected keyword arguments {sorted(kwargs)}")
            if len(args) < 4:
                fail("expected core_fn, num_inputs, num_states, num_outputs, *tensors")
            body_fn = args[0]
            try:
                counts = [int(a.as_python_constant()) for a in args[1:4]]
            except Exception:
                return fail("num_inputs / num_states / num_outputs must be constant ints")
            num_inputs, num_states, num_outputs = counts
            flat_args = args[4:]
            zero_init = _constant_flag(zero_init_vt, "zero_init_states", check_zero_init_states_flag, fail)
            needed = num_inputs if zero_init else num_inputs + num_states
            if num_inputs < 1 or len(flat_args) < needed:
                fail(
                    f"expected at least {needed} tensor args and "
                    f"num_inputs >= 1, got {len(flat_args)} (num_inputs={num_inputs}, "
                    f"zero_init_states={zero_init})"
                )
            for arg in flat_args:
                if not isinstance(_example_value(arg), torch.Tensor):
                    fail("flat_args must all be tensors")
            explicit_specs = None
            if specs_vt is not None and not specs_vt.is_python_constant():
                fail("output_template_specs must be a Python constant")
            if specs_vt is not None:
                try:
                    explicit_specs = normalize_template_specs(
                        specs_vt.as_python_constant(), num_outputs
                    )
                except (TypeError, ValueError) as exc:
                    fail(str(exc))

            final_state = _constant_flag(final_state_vt, "final_state", check_final_state_flag, fail)

            with discard_graph_changes(tx):
                steps = [step_template(tx, seq) for seq in flat_args[:num_inputs]]
                zero_states = [
                    steps[0].call_method(tx, "new_zeros", [steps[0].call_method(tx, "size", [], {})], {})
                    for _ in range(num_states if zero_init else 0)
                ]
            body_args = [*steps, *zero_states, *flat_args[num_inputs:]]

            options: dict[str, Any] = {
                "source_target": self.value,
                "set_subgraph_inputs": "flatten_manual",
            }
            for name, value in (
                ("should_flatten_outputs", True),
                ("remove_consts_from_outputs", False),
                ("supports_input_mutation", False),
            ):
                if name in speculate_params:
                    options[name] = value
            speculated = speculate_subgraph(
                tx, body_fn, body_args, {}, "flex_sn_scan", **options
            )
            body_r, body_graph, lifted_freevars = speculated[:3]
            if isinstance(body_r, tuple):  # (output, OutputSpec) in torch >= 2.6
                body_r = body_r[0]
            leaves = list(getattr(body_r, "items", [body_r]))
            if len(leaves) != num_outputs + num_states:
                fail(
                    f"core returned {len(leaves)} values, expected num_outputs + "
                    f"num_states = {num_outputs + num_states}"
                )
            specs = explicit_specs
            if specs is None:
                specs = _templates_from_body(leaves, num_outputs)

            body_gm = torch.fx.GraphModule(dict(tx.output.nn_modules), body_graph)
            body_name = tx.output.install_subgraph("flex_sn_scan_body", body_gm)
            node_kwargs: dict[str, Any] = {}
            if specs is not None:
                node_kwargs["output_template_specs"] = specs
            if final_state:
                node_kwargs["final_state"] = True
            if zero_init:
                node_kwargs["zero_init_states"] = True
            proxy = tx.output.create_proxy(
                "call_function",
                self.value,
                args=(
                    make_attr(tx, body_name),
                    num_inputs,
                    num_states,
                    num_outputs,
                    *(arg.as_proxy() for arg in flat_args),
                    *lifted_freevars.keys(),
                ),
                kwargs=node_kwargs,
            )
            return wrap_fx_proxy(tx=tx, proxy=proxy)

    return FlexSNScanVariable


def install_dynamo_support() -> bool:
    """Register ``flex_sn_scan`` with Dynamo; ``True`` on success.

    Idempotent (the first answer is kept); called when ``torch._dynamo`` is
    imported (:mod:`flexsn_hop.on_import`). Never raises: drift in
    PyTorch's private Dynamo APIs produces a ``UserWarning`` and ``False``
    (the operator keeps working eagerly, ``torch.compile`` graph-breaks
    around it). As SpikingJelly's Dynamo registration of its ``flex_sn_scan``.
    """
    global _installed
    if _installed is not None:
        return _installed
    if not hop_kernels_registered():
        _installed = False
        return False
    try:
        hov = importlib.import_module("torch._dynamo.variables.higher_order_ops")
        table = hov._hop_name_to_variable_class
        if not isinstance(table, dict):
            raise TypeError("_hop_name_to_variable_class is not a dict")
        table[flex_sn_scan.__name__] = _make_variable_class(hov)
    except Exception as exc:
        warnings.warn(
            f"flexsn_hop: Dynamo support for flex_sn_scan could not be installed "
            f"({exc!r}); torch.compile will graph-break around flex_sn_scan, "
            "which runs eagerly",
            stacklevel=2,
        )
        _installed = False
        return False
    _installed = True
    return True


def dynamo_hop_available() -> bool:
    """``True`` when ``torch.compile`` captures ``flex_sn_scan`` as one graph
    node (our Dynamo registration succeeded); ``False`` when PyTorch
    internals drifted and calls fall back to eager (SpikingJelly's ``dynamo_hop_available``).

    Asking imports ``torch._dynamo`` (the registration runs then, if it has not yet).
    """
    return install_dynamo_support()
