"""Tracing step functions into aten FX graphs.

Graphs are checked by running them (as ``GraphModule``) against the
function itself, and the training pair against ``torch.autograd`` on the
function: the forward graph's visible results must equal the function's
and the backward graph, fed the saved values and output gradients, must
give the vector-Jacobian product.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import pytest
import torch
from torch import fx

from flexsn_trace import (
    FOREIGN_PREFIX,
    TrainingGraphs,
    as_tensor_tuple,
    generate_forward_and_backward_graph,
    generate_inference_graph,
    graph_output_nodes,
    placeholders,
    trace_training_graphs,
)
from flexsn_trace.testing import Spike, lif_core as lif, two_by_two_core as two


def run(graph: fx.Graph, *args: torch.Tensor) -> tuple[Any, ...]:
    out = fx.GraphModule(torch.nn.Module(), graph)(*args)
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def rand(n: int, shape: Sequence[int] = (5, 3), seed: int = 0) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=g) * 1.5 for _ in range(n)]


def call_ops(graph: fx.Graph) -> list[Any]:
    return [n.target for n in graph.nodes if n.op == "call_function"]


@pytest.mark.parametrize("core, n", [(lif, 2), (two, 4)], ids=["lif", "two"])
def test_inference_graph_computes_the_function(core: Callable[..., Any], n: int) -> None:
    graph = generate_inference_graph(core, [torch.zeros(4) for _ in range(n)])
    assert len(placeholders(graph)) == n
    assert len(graph_output_nodes(graph)) == len(core(*rand(n)))
    for op in call_ops(graph):
        assert isinstance(op, torch._ops.OpOverload) and op.namespace == "aten", op
    args = rand(n, seed=1)  # other shapes and values than the examples: the graph is elementwise
    for got, want in zip(run(graph, *args), core(*args)):
        torch.testing.assert_close(got, want)


def test_one_example_tensor_passed_for_several_arguments() -> None:
    """make_fx maps tensors to placeholders by identity; a repeated example must not merge arguments."""
    z = torch.zeros(4)
    graph = generate_inference_graph(lif, (z, z))
    assert len(placeholders(graph)) == 2
    x, v = rand(2)
    for got, want in zip(run(graph, x, v), lif(x, v)):
        torch.testing.assert_close(got, want)


def test_in_place_ops_are_functionalized() -> None:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v.clone()
        h.mul_(0.5).add_(x)
        s = (h >= 1.0).float()
        h.masked_fill_(h >= 1.0, 0.0)
        return s, h

    graph = generate_inference_graph(core, (torch.zeros(4), torch.zeros(4)))
    for op in call_ops(graph):
        assert not op._schema.is_mutable, f"mutating op {op} left in the graph"
    x, v = rand(2)
    for got, want in zip(run(graph, x, v), core(x, v)):
        torch.testing.assert_close(got, want)


def test_single_tensor_return_and_aliased_outputs() -> None:
    graph = generate_inference_graph(lambda x: x * 2.0, (torch.zeros(3),))
    assert len(graph_output_nodes(graph)) == 1

    def aliasing(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = v * 0.5 + x
        return x, h, h, v.view(-1).view(v.shape)

    graph = generate_inference_graph(aliasing, (torch.zeros(3), torch.zeros(3)))
    outs = graph_output_nodes(graph)
    ph = set(placeholders(graph))
    assert all(isinstance(o, fx.Node) and o not in ph for o in outs), "outputs must be graph values, not inputs"
    assert len(set(outs)) == len(outs), "each output must be its own value"
    x, v = rand(2, shape=(3,))  # views bake in the traced shape
    for got, want in zip(run(graph, x, v), aliasing(x, v)):
        torch.testing.assert_close(got, want)


@pytest.mark.parametrize(
    "result, message",
    [(3.0, "got float"), ([torch.zeros(2), 1], r"containing \['Tensor', 'int'\]"), (None, "got NoneType"),
     ({"a": torch.zeros(2)}, "got dict")],
    ids=["float", "list-with-int", "none", "dict"],
)
def test_non_tensor_returns_are_value_errors(result: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate_inference_graph(lambda x: result, (torch.zeros(2),))
    with pytest.raises(ValueError, match=message):
        trace_training_graphs(lambda x: result, (torch.zeros(2),))


def test_as_tensor_tuple() -> None:
    t = torch.zeros(2)
    assert as_tensor_tuple(t) == (t,)
    assert as_tensor_tuple([t, t]) == (t, t)
    with pytest.raises(ValueError, match="my core must return"):
        as_tensor_tuple(1, "my core")


@pytest.mark.parametrize(
    "examples, message",
    [(torch.zeros(2), "must be a tuple of tensors, got Tensor"), ((torch.zeros(2), 1.0), r"example_inputs\[1\] must be a torch.Tensor, got float"),
     ([None], r"example_inputs\[0\] must be a torch.Tensor, got NoneType")],
    ids=["bare-tensor", "float", "none"],
)
def test_non_tensor_example_inputs_are_type_errors(examples: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        generate_inference_graph(lambda *a: a[0] * 2, examples)
    with pytest.raises(TypeError, match=message):
        trace_training_graphs(lambda *a: a[0] * 2, examples)


def test_tracing_failures_are_value_errors_with_the_cause() -> None:
    def bad(x: torch.Tensor) -> torch.Tensor:
        raise KeyError("boom")

    with pytest.raises(ValueError, match="tracing the core function failed: KeyError"):
        generate_inference_graph(bad, (torch.zeros(2),))
    with pytest.raises(ValueError, match="KeyError"):
        trace_training_graphs(bad, (torch.zeros(2),))


HELD = torch.tensor([0.5, 2.0])


@pytest.mark.parametrize("read", ["tolist", "numpy", "asarray", "item"])
@pytest.mark.parametrize("whose", ["an input's", "a held tensor's"])
def test_a_host_read_of_tensor_values_fails_the_trace(read: str, whose: str) -> None:
    """A trace keeps what a host read returned as a constant, whatever the tensor holds at the next call: ``.tolist()``,
    ``.numpy()`` and ``numpy.asarray`` of a CPU tensor never reach the dispatcher, so they went unnoticed (a buffer
    read as ``self.th.tolist()[0]`` kept its traced value, silently); ``.item()`` reaches it as
    ``aten._local_scalar_dense``. Each fails the trace, whose callers fall back with its message."""
    np = pytest.importorskip("numpy")
    reads = {
        "tolist": lambda t: t.tolist()[0], "numpy": lambda t: float(t.numpy()[0]),
        "asarray": lambda t: float(np.asarray(t)[0]), "item": lambda t: t[0].item(),
    }

    def core(x: torch.Tensor) -> torch.Tensor:
        return x * reads[read](x if whose == "an input's" else HELD)

    with pytest.raises(ValueError, match="reads a tensor's value on the host"):
        generate_inference_graph(core, (torch.ones(2),))
    # an input that requires grad: torch's own numpy() refusal may come first
    with pytest.raises(ValueError, match=r"reads a tensor's value on the host|Can't call numpy\(\)"):
        trace_training_graphs(core, (torch.ones(2),))


def _check_training_pair(core: Callable[..., Any], graphs: TrainingGraphs, args: Sequence[torch.Tensor],
                         requires_grad: Sequence[bool]) -> None:
    fwd_out = run(graphs.fwd, *args)
    want = core(*args)
    assert graphs.num_results == len(want)
    for got, w in zip(fwd_out[: graphs.num_results], want):
        torch.testing.assert_close(got, w)
    saved = list(fwd_out[graphs.num_results :])
    g = torch.Generator().manual_seed(11)
    grads = [torch.randn(w.shape, generator=g) for w in want]
    tangents = [gr for gr, m in zip(grads, graphs.tangent_mask) if m]
    got_grads = run(graphs.bwd, *saved, *tangents)

    leaves = [a.detach().clone().requires_grad_(r) for a, r in zip(args, requires_grad)]
    outs = core(*leaves)
    pairs = [(o, gr) for o, gr in zip(outs, grads) if o.requires_grad]
    torch.autograd.backward([o for o, _ in pairs], [gr for _, gr in pairs])
    assert len(got_grads) == len(args)
    for i, (got, leaf) in enumerate(zip(got_grads, leaves)):
        assert graphs.grad_mask[i] == (leaf.grad is not None)
        if leaf.grad is None:
            assert got is None
        else:
            torch.testing.assert_close(got, leaf.grad, msg=lambda m: f"gradient {i}: {m}")


@pytest.mark.parametrize("core, n", [(lif, 2), (two, 4)], ids=["lif", "two"])
def test_training_graphs_give_outputs_and_vjp(core: Callable[..., Any], n: int) -> None:
    graphs = trace_training_graphs(core, [torch.zeros(4) for _ in range(n)])
    assert graphs.tangent_mask == (True,) * graphs.num_results
    assert graphs.grad_mask == (True,) * n
    _check_training_pair(core, graphs, rand(n, seed=2), [True] * n)


def test_requires_grad_mask_drops_gradients() -> None:
    graphs = trace_training_graphs(two, [torch.zeros(4) for _ in range(4)], requires_grad=[True, False, True, False])
    assert graphs.grad_mask == (True, False, True, False)
    _check_training_pair(two, graphs, rand(4, seed=3), [True, False, True, False])


def test_hard_threshold_output_has_no_tangent() -> None:
    def hard(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = 0.5 * v + x
        s = (h >= 1.0).float()
        return s, h * (1.0 - s)

    graphs = trace_training_graphs(hard, (torch.zeros(4), torch.zeros(4)))
    assert graphs.tangent_mask == (False, True)
    n_tangents = sum(1 for p in placeholders(graphs.bwd) if p.name.startswith("tangents"))
    assert n_tangents == 1
    _check_training_pair(hard, graphs, rand(2, seed=4), [True, True])


def test_integer_examples_are_not_differentiable_by_default() -> None:
    graphs = trace_training_graphs(lambda x, k: (x * k, x + 1.0), (torch.zeros(4), torch.ones(4, dtype=torch.int64)))
    assert graphs.grad_mask == (True, False)


def test_requires_grad_of_the_wrong_length() -> None:
    with pytest.raises(ValueError, match="requires_grad has 1 entries but there are 2 example inputs"):
        trace_training_graphs(lif, (torch.zeros(4), torch.zeros(4)), requires_grad=[True])


def test_no_differentiable_output() -> None:
    with pytest.raises(ValueError, match="no output of the core function is differentiable"):
        trace_training_graphs(lambda x, v: ((x > v).float(), torch.floor(v).detach()), (torch.zeros(4), torch.zeros(4)))
    with pytest.raises(ValueError, match=r"requires_grad=\[False, False\]"):
        trace_training_graphs(lif, (torch.zeros(4), torch.zeros(4)), requires_grad=[False, False])


def test_generate_forward_and_backward_graph_matches_trace_training_graphs() -> None:
    fwd, bwd = generate_forward_and_backward_graph(lif, (torch.zeros(4), torch.zeros(4)))
    graphs = trace_training_graphs(lif, (torch.zeros(4), torch.zeros(4)))
    assert str(fwd) == str(graphs.fwd) and str(bwd) == str(graphs.bwd)
    assert len(placeholders(fwd)) == 2
    assert len(graph_output_nodes(bwd)) == 2


def test_graph_output_nodes_needs_an_output() -> None:
    g = fx.Graph()
    g.placeholder("x")
    with pytest.raises(ValueError, match="no output node"):
        graph_output_nodes(g)



def _normalised_lif(x: torch.Tensor, r: torch.Tensor, v: torch.Tensor, mean: torch.Tensor, invstd: torch.Tensor,
                    w: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch-normalised input plus a residual into a LIF step (the neighbour pass's fused step): a saved
    value the backward recomputes reaches an input and a static input at once."""
    h = v + ((x - mean) * invstd * w + b + r - v) / 2.0
    s = Spike.apply(h - 1.0)
    return s, h * (1.0 - s)


def test_the_saved_values_come_in_the_same_order_every_trace() -> None:
    """The kernels' argument order follows the saved values: it must not follow a set's hash order
    (it did: 2 orders in 20 traces of this core)."""
    examples = tuple(torch.zeros(4) for _ in range(7))

    def saved_order() -> tuple[str, ...]:
        g = trace_training_graphs(_normalised_lif, examples, num_inputs=2, num_static=4)
        return tuple(str(n) for n in graph_output_nodes(g.fwd))

    orders = {saved_order() for _ in range(20)}
    assert len(orders) == 1, orders


class _Outside:
    th = torch.tensor(1.0)


def test_tensors_read_from_outside_are_foreign_constants_made_inside_are_not() -> None:
    """Codegen must never inline a tensor whose value may change after the trace (``FOREIGN_PREFIX``)."""

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x - _Outside.th + torch.tensor(2.0), v

    graph = generate_inference_graph(core, (torch.zeros(4), torch.zeros(4)))
    names = [str(n.target) for n in graph.nodes if n.op == "get_attr"]
    assert len(names) == 2 and names[0].startswith(FOREIGN_PREFIX) and not names[1].startswith(FOREIGN_PREFIX)


def test_a_foreign_tensor_on_another_device_is_traced_not_a_device_error() -> None:
    """A CUDA parameter in a class attribute beside CPU examples: the trace completes (meta stands in for CUDA here)."""
    saved = _Outside.th
    _Outside.th = torch.tensor([1.0, 2.0, 3.0, 4.0], device="meta")
    try:
        graph = generate_inference_graph(lambda x, v: (x * _Outside.th, v), (torch.zeros(4), torch.zeros(4)))
    finally:
        _Outside.th = saved
    (const,) = [n for n in graph.nodes if n.op == "get_attr"]
    assert str(const.target).startswith(FOREIGN_PREFIX)
    assert getattr(graph.owning_module, str(const.target)).device.type == "cpu"
