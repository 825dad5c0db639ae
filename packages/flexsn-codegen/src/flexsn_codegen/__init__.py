"""flexsn-codegen: elementwise FX graphs -> Triton, with a disk cache.

Layer 2 of FlexSN, usable on its own: trace any elementwise PyTorch
function with ``flexsn_trace.generate_inference_graph``, turn it into a
``@triton.jit`` function with :func:`generate_triton_code_str` and load it
with :func:`compile_triton_code_str`. The multi-step scan templates
(``get_flexsn_*_kernel``) serve the FlexSN runtime.
"""

from .__about__ import __version__
from .cache import (
    atomic_write,
    cache_dir,
    compile_triton_code_str,
    interpreter_enabled,
    load_launch_config,
    source_path,
    store_launch_config,
)
from .codegen import check_graph_supported, generate_triton_code_str, sanitize_name
from .lowering import LOWERINGS, UnsupportedOpError, supported_ops
from .bptt import backward_invariant_sources, get_flexsn_backward_kernel, render_backward_kernel
from .templates import (
    Hoisted,
    Rebuild,
    SavedArg,
    backward_saved_args,
    checkpoint_rows,
    final_state_forward_returns,
    get_flexsn_forward_kernel,
    get_flexsn_inference_final_state_kernel,
    get_flexsn_inference_kernel,
    render_forward_kernel,
    render_inference_kernel,
)

__all__ = [
    "Hoisted",
    "LOWERINGS",
    "Rebuild",
    "SavedArg",
    "UnsupportedOpError",
    "__version__",
    "atomic_write",
    "backward_invariant_sources",
    "backward_saved_args",
    "cache_dir",
    "check_graph_supported",
    "checkpoint_rows",
    "final_state_forward_returns",
    "compile_triton_code_str",
    "generate_triton_code_str",
    "get_flexsn_backward_kernel",
    "get_flexsn_forward_kernel",
    "get_flexsn_inference_final_state_kernel",
    "get_flexsn_inference_kernel",
    "interpreter_enabled",
    "load_launch_config",
    "render_backward_kernel",
    "render_forward_kernel",
    "render_inference_kernel",
    "sanitize_name",
    "source_path",
    "store_launch_config",
    "supported_ops",
]
