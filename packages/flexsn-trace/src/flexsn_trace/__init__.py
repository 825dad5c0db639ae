"""flexsn-trace: trace single-step neuron functions into aten FX graphs.

Layer 1 of FlexSN. Public API (seed 004 and seed 002 "Function Info"):
:func:`generate_inference_graph`, :func:`generate_forward_and_backward_graph`,
:func:`trace_training_graphs`, :class:`FlexSNInfo`, :func:`extract_info`.
"""

from .__about__ import __version__
from .graphs import (
    TrainingGraphs,
    as_tensor_tuple,
    generate_forward_and_backward_graph,
    generate_inference_graph,
    trace_training_graphs,
)
from .saved import minimize_saved
from .info import FlexSNInfo, SavedSource, extract_info, graph_output_nodes, placeholders

__all__ = [
    "FlexSNInfo",
    "SavedSource",
    "TrainingGraphs",
    "__version__",
    "as_tensor_tuple",
    "extract_info",
    "generate_forward_and_backward_graph",
    "generate_inference_graph",
    "graph_output_nodes",
    "minimize_saved",
    "placeholders",
    "trace_training_graphs",
]
