"""flexsn-runtime: build, register and launch FlexSN scan kernels.

Layer 3 of FlexSN: kernel builders, launch wrappers
with SpikingJelly's ``T == 0`` and template rules, the handle registry,
``torch.library`` custom ops (``flexsn::*``) with fake and autograd
registrations, and :class:`FlexSNKernel`.
"""

from .__about__ import __version__
from .builders import (
    build_inference_final_state_kernel,
    build_inference_kernel,
    build_inference_kernels,
    build_training_kernels,
    build_training_variants,
    default_example_inputs,
)
from .flexsn_kernel import FlexSNKernel, eager_loop, stored_in
from .scan_args import validate_scan_args
from .scan_kernel import ScanKernel, kernels_usable, ncl_bucket
from .ops import (
    flexsn_backward_op,
    flexsn_inference_op,
    flexsn_training_op,
    run_inference,
    run_training,
)
from .call_cache import dual_level_active
from .routing import FUNCTORCH_REASON, KERNEL_DTYPES, Route, call_reason, dtype_reason, fit_shapes, route, run_route, warn_fallback
from .registry import (
    FlexSNKernelHandle,
    TrainingKernels,
    attach_flexsn_handle_finalizer,
    ensure_training_kernels,
    lookup_flexsn_kernel_handle,
    register_flexsn_kernel_handle,
    registered_handles,
    release_active_flexsn_kernel_handle,
    release_flexsn_kernel_handle,
    retain_flexsn_kernel_handle,
    retain_owner_flexsn_kernel_handle,
    revive_flexsn_kernel_handle,
    training_kernels,
)
from .tracecache import core_fingerprint
from .programs import load_program, save_program
from .backward_launchers import flexsn_backward
from .launchers import (
    flexsn_backward_ncl_bucket,
    flexsn_forward,
    flexsn_forward_final_state,
    flexsn_inference,
    flexsn_inference_final_state,
)

__all__ = [
    "FUNCTORCH_REASON",
    "KERNEL_DTYPES",
    "Route",
    "FlexSNKernel",
    "FlexSNKernelHandle",
    "ScanKernel",
    "TrainingKernels",
    "__version__",
    "attach_flexsn_handle_finalizer",
    "build_inference_final_state_kernel",
    "build_inference_kernel",
    "build_inference_kernels",
    "build_training_kernels",
    "build_training_variants",
    "call_reason",
    "dtype_reason",
    "core_fingerprint",
    "default_example_inputs",
    "dual_level_active",
    "eager_loop",
    "stored_in",
    "ensure_training_kernels",
    "fit_shapes",
    "flexsn_backward",
    "flexsn_backward_ncl_bucket",
    "flexsn_backward_op",
    "flexsn_forward",
    "flexsn_forward_final_state",
    "flexsn_inference",
    "flexsn_inference_final_state",
    "flexsn_inference_op",
    "flexsn_training_op",
    "kernels_usable",
    "load_program",
    "lookup_flexsn_kernel_handle",
    "ncl_bucket",
    "register_flexsn_kernel_handle",
    "registered_handles",
    "release_active_flexsn_kernel_handle",
    "release_flexsn_kernel_handle",
    "retain_flexsn_kernel_handle",
    "retain_owner_flexsn_kernel_handle",
    "revive_flexsn_kernel_handle",
    "route",
    "training_kernels",
    "run_route",
    "run_inference",
    "run_training",
    "save_program",
    "validate_scan_args",
    "warn_fallback",
]
