"""flexsn_hop: the FlexSN time loop as the ``flex_sn_scan`` higher-order operator.

Layer 4 of FlexSN. A step function
``core(*step_inputs, *states, *lifted) -> (*step_outputs, *next_states)``
runs over ``[T, *shape]`` input sequences from ``[*shape]`` initial states:

* :data:`flex_sn_scan` (:class:`FlexSNScan`): the operator; eager, autograd,
  AOTAutograd / Inductor (by decomposing into the time loop) and
  ``torch.compile`` (one graph node with a traced body); ``final_state=True``
  returns final states instead of state sequences;
* :func:`eager_scan`, :func:`eager_scan_final_state`: the Python time loop;
* :func:`lowerable_scan`, :func:`lowerable_while_loop_scan` and their
  ``_final_state`` forms: the loop through PyTorch's ``scan`` / ``while_loop``
  operators, with the ``*_available`` probes;
* :func:`runtime_fused_impl`: the default fused implementation, which asks
  ``flexsn_runtime.route`` and runs the runtime's Triton scan kernels
  (:func:`enable_fused_kernels`, ``FLEXSN_HOP_FUSED=0`` to opt out, read at
  call time); :func:`register_fused_impl` and :class:`FusedScanCall` install
  another implementation in its place.

* :func:`fuse_neighbours`: under ``torch.compile`` (Inductor), pointwise
  producers of a scan's input sequences (BatchNorm's normalisation, scaling,
  bias, residual adds) and pointwise consumers of its outputs run inside its
  step (:mod:`flexsn_hop.neighbour_pass`; on by default, with or without CUDA
  graphs; ``enable_neighbour_fusion(False)`` or ``FLEXSN_FUSE_NEIGHBOURS=0`` off).
* :func:`enable_template_lowering` (experimental, off by default): Inductor lowers
  inference scans to a ``TritonTemplate`` and fuses pointwise neighbours into its
  loads and stores itself (:mod:`flexsn_hop.template_lowering`; CUDA).

The Dynamo support (:func:`dynamo_hop_available` tells whether it worked)
and the neighbour pass are registered when ``torch._dynamo`` and
``torch._inductor.config`` are imported (by ``torch.compile``; at once when
they already are), so importing the package does not import them
(:mod:`flexsn_hop.on_import`).
"""

from __future__ import annotations

from .__about__ import __version__
from ._types import CoreFn, FusedScanCall, OutputTemplateSpec, OutputTemplateSpecs, ScanResult
from .dynamo import dynamo_hop_available, install_dynamo_support
from .fused import (
    FusedScanImpl,
    enable_fused_kernels,
    fused_kernels_enabled,
    get_fused_impl,
    register_fused_impl,
    use_fused_impl,
)
from .runtime_fusion import fused_kernel_for, runtime_fused_impl
from .neighbour_pass import enable_neighbour_fusion, fuse_neighbours, install_neighbour_pass, neighbour_fusion_enabled
from .on_import import install_when_imported
from .template_lowering import enable_template_lowering, template_lowering_enabled
from .lowerable import (
    lowerable_scan,
    lowerable_scan_available,
    lowerable_scan_final_state,
    lowerable_while_loop_available,
    lowerable_while_loop_scan,
    lowerable_while_loop_scan_final_state,
)
from .scan import (
    FlexSNScan,
    eager_scan,
    eager_scan_final_state,
    flex_sn_scan,
    hop_kernels_registered,
)

install_when_imported("torch._dynamo", install_dynamo_support)
install_when_imported("torch._inductor.config", install_neighbour_pass)

__all__ = [
    "CoreFn",
    "FlexSNScan",
    "FusedScanCall",
    "FusedScanImpl",
    "OutputTemplateSpec",
    "OutputTemplateSpecs",
    "ScanResult",
    "__version__",
    "dynamo_hop_available",
    "eager_scan",
    "eager_scan_final_state",
    "enable_fused_kernels",
    "enable_neighbour_fusion",
    "enable_template_lowering",
    "flex_sn_scan",
    "fuse_neighbours",
    "fused_kernel_for",
    "fused_kernels_enabled",
    "get_fused_impl",
    "hop_kernels_registered",
    "install_dynamo_support",
    "install_neighbour_pass",
    "lowerable_scan",
    "lowerable_scan_available",
    "lowerable_scan_final_state",
    "lowerable_while_loop_available",
    "lowerable_while_loop_scan",
    "lowerable_while_loop_scan_final_state",
    "neighbour_fusion_enabled",
    "register_fused_impl",
    "runtime_fused_impl",
    "template_lowering_enabled",
    "use_fused_impl",
]
