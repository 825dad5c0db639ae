"""flexsn-trace: trace single-step neuron functions into aten FX graphs.

Layer 1 of FlexSN. Public API (the interface of SpikingJelly's ``spikingjelly.activation_based.triton_kernel.torch2triton`` and ``flexsn.info``):
:func:`generate_inference_graph`, :func:`generate_forward_and_backward_graph`,
:func:`trace_training_graphs`, :class:`FlexSNInfo`, :func:`extract_info`.
"""

from .__about__ import __version__
from .abstract import OutputSpec, empty_sequences, fake_step_outputs
from .carrier import CarrierGraphs, find_carrier
from .capture import Captured, Captures, find_captures, used_arguments
from .constants import ArrayContents, Constant, Constants, NumberItems, autograd_function, find_constants, is_contents
from .hoist import SplitGraph, split_invariants
from .contract import (
    ScanContract,
    as_tensor_tuple,
    broadcast_shape,
    check_counts,
    check_scan_args,
    check_tensor_list,
    layout_problem,
)
from .graphs import (
    TrainingGraphs,
    generate_forward_and_backward_graph,
    generate_inference_graph,
    generate_joint_graph,
    private_generators,
    trace_training_graphs,
)
from .isolation import run_isolated
from .reach import ScanGrad, reached_arguments, scan_requires_grad
from .recorder import FOREIGN_PREFIX
from .reference import reference_scan
from .saved import minimize_saved
from .info import FlexSNInfo, SavedSource, arithmetic_signature, extract_info, graph_output_nodes, placeholders

__all__ = [
    "FOREIGN_PREFIX",
    "ArrayContents",
    "CarrierGraphs",
    "Constant",
    "Constants",
    "NumberItems",
    "OutputSpec",
    "Captured",
    "Captures",
    "SplitGraph",
    "split_invariants",
    "find_captures",
    "find_carrier",
    "autograd_function",
    "find_constants",
    "is_contents",
    "used_arguments",
    "reached_arguments",
    "scan_requires_grad",
    "FlexSNInfo",
    "ScanContract",
    "SavedSource",
    "ScanGrad",
    "TrainingGraphs",
    "__version__",
    "arithmetic_signature",
    "as_tensor_tuple",
    "broadcast_shape",
    "check_counts",
    "check_scan_args",
    "check_tensor_list",
    "empty_sequences",
    "extract_info",
    "fake_step_outputs",
    "generate_forward_and_backward_graph",
    "generate_inference_graph",
    "generate_joint_graph",
    "graph_output_nodes",
    "layout_problem",
    "minimize_saved",
    "placeholders",
    "private_generators",
    "reference_scan",
    "run_isolated",
    "trace_training_graphs",
]
