"""A call with ``T == 0``: empty outputs shaped without running a core's side effects on fake tensors.

The eager loop runs the core no time at all on an empty sequence, so the outputs' per-step shapes and dtypes
come from ``example_outputs``, from the fused kernels' rule (the broadcast shape, the dtypes they store), or from
one step of the core on fake tensors (:func:`flexsn_trace.fake_step_outputs`). That fake step runs the core's
Python: a core that changes state outside its arguments (``STATS["last"] = h``, ``RECORD.append(h)``;
:func:`flexsn_trace.side_effects`) would make its change once, with a fake tensor left in the user's state where
the loop leaves nothing. Such a core is never run so: its outputs take the kernels' rule where that is exact, and
otherwise the call asks for ``example_outputs``, saying why. (Under ``torch.compile`` the step is traced by Dynamo on
its fake tensors, as :func:`flexsn_trace.fake_step_outputs` says.)
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from flexsn_trace import broadcast_shape, fake_step_outputs, find_constants

from .backends import KERNEL_BACKENDS
from .shapes import OutputSpec, empty_outputs

__all__ = ["empty_call_outputs"]


def empty_call_outputs(neuron: Any, seqs: Sequence[torch.Tensor], init: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
    """The output sequences ``[0, *shape]`` of ``neuron``'s call on the empty input sequences ``seqs``.

    Args:
        neuron: the :class:`~flexsn_nn.FlexSN` called (its core, counts, backend, kernel, ``example_outputs``).
        seqs: the call's checked input sequences ``[0, *shape]``.
        init: the call's initial states ``[*shape]`` (``[]`` where the kernels would make zeros).

    Returns:
        As :func:`flexsn_nn.shapes.empty_outputs`.

    Raises:
        ValueError: no ``example_outputs`` where neither the kernels' rule nor a fake step can tell the shapes (a
            core that cannot run on fake tensors, or that changes state outside its arguments: the message names
            the statement).
    """
    x0, no, ns = seqs[0], neuron.num_outputs, neuron.num_states
    who, statics = f"FlexSN(backend={neuron._backend!r})", neuron.static_inputs
    if getattr(neuron, "_outputs_like_inputs", False):  # the ready-made neurons: no fake step
        return empty_outputs(who, seqs, init, neuron._output_specs, no, [x0.dtype] * no)
    kernels = neuron._backend in KERNEL_BACKENDS and neuron.kernel.handle is not None
    fused: Sequence[torch.dtype] | None = neuron.kernel.output_dtypes(x0.dtype) if kernels else None
    fake: Callable[[], Sequence[OutputSpec]] = lambda: fake_step_outputs(neuron.core, seqs, init, statics, no, ns, who)
    # under torch.compile the step is traced on Dynamo's own fake tensors, which keeps no result of it (as before)
    if neuron._output_specs is None and not torch.compiler.is_compiling():
        # the kernel backends found them at construction (fused or not); the loops' backends search now
        on_kernels = neuron._backend in KERNEL_BACKENDS
        effects = neuron.kernel.constants.side_effects if on_kernels else find_constants(neuron.core).side_effects
        if effects:
            why = (f"the core changes state outside its arguments ({'; '.join(effects)}), so FlexSN does not run it "
                   "on fake tensors to find them")
            if not (kernels and _kernel_rule_exact(neuron, seqs, init, statics)):
                fused = None

            def refuse() -> Sequence[OutputSpec]:
                raise ValueError(why)

            fake = refuse  # the kernels' rule where it is exact, else the error asking for example_outputs
    return empty_outputs(who, seqs, init, neuron._output_specs, no, fused, fake)


def _kernel_rule_exact(neuron: Any, seqs: Sequence[torch.Tensor], init: Sequence[torch.Tensor], statics: Sequence[torch.Tensor]) -> bool:
    """Whether every result of a step has the broadcast per-step shape, as a call with steps would give it: each
    reads an input or a state (``FlexSNKernel.results_keep_step``), and the static inputs and captured tensors
    broadcast into the inputs' and states' per-step shape."""
    if not neuron.kernel.results_keep_step:
        return False
    step = broadcast_shape([*(tuple(x.shape[1:]) for x in seqs), *(tuple(s.shape) for s in init)])
    if step is None:
        return False
    lifted = [*statics, *neuron.kernel.captures.values()]
    return all(broadcast_shape([step, tuple(w.shape)]) == step for w in lifted)
