"""``generate_triton_code_str`` and ``check_graph_supported``: the module they
produce, naming, multi-output functions, constants, views, and errors."""

from __future__ import annotations

import operator
import warnings
from typing import Any, Callable

import pytest
import torch
from torch import fx

from flexsn_codegen import (
    UnsupportedOpError,
    check_graph_supported,
    compile_triton_code_str,
    generate_triton_code_str,
    sanitize_name,
)
from flexsn_trace import generate_inference_graph, trace_training_graphs

A = torch.ops.aten
N = 45


def _inputs(n: int, device: torch.device, seed: int = 0) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(N, generator=g) * 2).to(device) for _ in range(n)]


@pytest.mark.parametrize(
    "raw, expected",
    [("lif", "lif"), ("my-core.step", "my_core_step"), ("1abc", "f_1abc"), ("class", "f_class"), ("", "f_"),
     ("<lambda>_fwd", "_lambda__fwd")],
)
def test_sanitize_name(raw: str, expected: str) -> None:
    assert sanitize_name(raw) == expected
    assert sanitize_name(raw).isidentifier()


def test_module_defines_the_named_jit_function() -> None:
    graph = generate_inference_graph(lambda x, v: (x + v, v * 0.5), (torch.zeros(4), torch.zeros(4)))
    code, name = generate_triton_code_str(graph, "my neuron")
    assert name == "my_neuron"
    assert code.startswith("import triton\nimport triton.language as tl\n")
    ns: dict[str, Any] = {}
    fn = compile_triton_code_str(code, name, name_space=ns)
    assert ns[name] is fn
    assert "flexsn_to_storage" in ns  # the storage-cast helper every module carries


def test_verbose_prints_the_source(capsys: pytest.CaptureFixture[str]) -> None:
    graph = generate_inference_graph(lambda x: x * 3.0, (torch.zeros(4),))
    code, _ = generate_triton_code_str(graph, "loud", verbose=True)
    assert code.strip() in capsys.readouterr().out


def test_multi_output_function_matches_torch(device: torch.device, run_elementwise: Callable[..., Any]) -> None:
    """A generic (non-neuron) elementwise function with three outputs, as a codegen-only user would write it."""

    def fn(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = torch.sigmoid(a) * b - 0.25
        return h, torch.where(h > 0, h, a), (a * b).abs() + 1.0

    xs = _inputs(2, device)
    graph = generate_inference_graph(fn, xs)
    got = run_elementwise(graph, xs, [torch.float32] * 3)
    for g, w in zip(got, fn(*xs)):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6)


def test_outputs_aliasing_inputs_and_each_other(device: torch.device, run_elementwise: Callable[..., Any]) -> None:
    """Returning an input, or one value twice, still gives one graph value per output."""

    def fn(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
        c = a * 2.0
        return a, c, c, b

    xs = _inputs(2, device)
    graph = generate_inference_graph(fn, xs)
    got = run_elementwise(graph, xs, [torch.float32] * 4)
    for g, w in zip(got, fn(*xs)):
        torch.testing.assert_close(g, w)


def test_constants_the_function_makes_are_inlined(device: torch.device, run_elementwise: Callable[..., Any]) -> None:
    def fn(a: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return a * torch.tensor(0.75) + torch.tensor(2.0), torch.full_like(a, 3.5), torch.zeros_like(a)

    xs = _inputs(1, device)
    graph = generate_inference_graph(fn, [xs[0].cpu()])
    # the third output is all zero on purpose: the kernel must write the zeros (outputs start as NaN)
    got = run_elementwise(graph, xs, [torch.float32] * 3)
    want = fn(xs[0].cpu())
    for g, w in zip(got, want):
        torch.testing.assert_close(g.cpu(), w)


def test_a_tensor_read_from_outside_is_never_inlined() -> None:
    """Its value could change after the trace: inlined, the kernel would keep the old one without a word.

    ``flexsn_runtime.FlexSNKernel`` lifts the tensors ``find_captures`` finds into arguments; one the
    trace still meets as a constant (here: nothing lifted it) is refused, whatever its size.
    """
    scale = torch.tensor(0.75)
    holder = [torch.tensor(2.0)]

    for fn in (lambda a: a * scale, lambda a: a + holder[0]):
        graph = generate_inference_graph(fn, [torch.randn(4)])
        with pytest.raises(UnsupportedOpError, match=r"captured tensor \(\[\] float32\) from outside its arguments"):
            generate_triton_code_str(graph, "outside")


def test_shape_preserving_views_are_identities(device: torch.device, run_elementwise: Callable[..., Any]) -> None:
    def fn(a: torch.Tensor) -> torch.Tensor:
        return (a.reshape(-1).reshape(5, 9).unsqueeze(0).squeeze(0) * 2.0).view(-1)

    x = torch.randn(5, 9)
    graph = generate_inference_graph(fn, [x])
    (got,) = run_elementwise(graph, [x.reshape(-1).to(device)], [torch.float32])
    torch.testing.assert_close(got.cpu(), fn(x).reshape(-1))


def test_none_outputs_become_zero_blocks(device: torch.device, run_elementwise: Callable[..., Any]) -> None:
    """Backward graphs return None for inputs without gradient."""
    graphs = trace_training_graphs(lambda x, v: (x * 2.0, x + 0.0 * v.detach()), (torch.zeros(4), torch.zeros(4)))
    code, _ = generate_triton_code_str(graphs.bwd, "bwd")
    assert "tl.zeros_like" in code
    n_in = sum(1 for n in graphs.bwd.nodes if n.op == "placeholder")
    xs = _inputs(n_in, device)
    got = run_elementwise(graphs.bwd, xs, [torch.float32, torch.float32])
    assert torch.count_nonzero(got[1]) == 0
    assert torch.count_nonzero(got[0]) > 0


def test_multi_output_op_results_are_indexed(device: torch.device, run_elementwise: Callable[..., Any]) -> None:
    def fn(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, buffer = A.log_sigmoid_forward(a)
        return out * 2.0, buffer + out

    # Traced and evaluated on the CPU, like the runtime traces cores: CUDA's
    # log_sigmoid_forward returns an empty buffer (only the CPU kernel fills it).
    xs = _inputs(1, torch.device("cpu"))
    graph = generate_inference_graph(fn, xs)
    assert any(n.target is operator.getitem for n in graph.nodes)
    got = run_elementwise(graph, [x.to(device) for x in xs], [torch.float32] * 2)
    scale = 4.0 if device.type == "cuda" else 1.0  # compiled CUDA exp is ex2.approx: a few ulp more
    for g, w in zip(got, fn(*xs)):
        assert w.numel() == N
        torch.testing.assert_close(g, w.to(device), rtol=1e-5 * scale, atol=1e-6 * scale)


def test_repeated_subexpressions_are_bound_once() -> None:
    """Nested portable forms stay linear in size (each lowering binds its temporaries)."""
    depth = 6

    def fn(a: torch.Tensor) -> torch.Tensor:
        for _ in range(depth):
            a = torch.tanh(torch.atan(a))
        return a

    graph = generate_inference_graph(fn, (torch.zeros(4),))
    code, _ = generate_triton_code_str(graph, "deep")
    single, _ = generate_triton_code_str(
        generate_inference_graph(lambda a: torch.tanh(torch.atan(a)), (torch.zeros(4),)), "one"
    )
    assert len(code) < depth * len(single) * 1.2


def test_graph_without_placeholders_is_rejected() -> None:
    g = fx.Graph()
    g.output(g.call_function(A.scalar_tensor.default, (1.0,)))
    with pytest.raises(ValueError, match="no placeholder"):
        generate_triton_code_str(g, "empty")


@pytest.mark.parametrize(
    "fn, example, op, words",
    [
        (lambda x: torch.cumsum(x, 0), torch.randn(6), "aten.cumsum.default", ""),
        (lambda x: x.t() + 1.0, torch.randn(3, 4), "aten.t", "reorders or broadcasts"),
        (lambda x: x * torch.tensor([1.0, 2.0, 3.0]), torch.randn(3), "captured tensor", "single-element"),
        (lambda x: x * torch.nn.Parameter(torch.tensor(0.5)), torch.randn(3), "captured tensor", "requires grad"),
        (lambda x: (x.int() & 3).float(), torch.randn(3), "aten.bitwise_and.Scalar", "boolean"),
        (lambda x: torch.view_as_real(torch.view_as_complex(x) * 2), torch.randn(3, 2), "aten.view_as_complex", ""),
        (lambda x: torch.max(x, 0)[0] + x, torch.randn(3), "aten.max.dim", ""),
    ],
    ids=["cumsum", "transpose", "captured-vector", "parameter", "int-bitwise", "complex", "max-dim"],
)
def test_unsupported_graphs_raise_naming_the_op(fn: Callable[..., Any], example: torch.Tensor, op: str, words: str) -> None:
    graph = generate_inference_graph(fn, (example,))
    with pytest.raises(UnsupportedOpError) as info:
        check_graph_supported(graph)
    assert info.value.op.startswith(op)
    assert op in str(info.value) and words in str(info.value)
    with pytest.raises(UnsupportedOpError):
        generate_triton_code_str(graph, "bad")


def test_broadcasting_between_tensors_is_rejected() -> None:
    """``[4] + [3, 4]`` would pair unrelated lanes; only equal shapes or single elements are elementwise."""
    graph = generate_inference_graph(lambda x, y: x + y, (torch.randn(3, 4), torch.randn(4)))
    with pytest.raises(UnsupportedOpError, match=r"broadcasts a \[4\] tensor to \[3, 4\]") as info:
        generate_triton_code_str(graph, "bcast")
    assert info.value.op == "aten.add.Tensor"


def test_getitem_on_a_non_multi_output_value_is_rejected() -> None:
    g = fx.Graph()
    x = g.placeholder("x")
    y = g.call_function(A.exp.default, (x,))
    g.output(g.call_function(operator.getitem, (y, 0)))
    with pytest.raises(UnsupportedOpError) as info:
        generate_triton_code_str(g, "bad")
    assert info.value.op == "operator.getitem"


def test_unlowerable_argument_forms_name_the_op() -> None:
    g = fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_function(A.pow.Tensor_Scalar, (x, "two")))
    with pytest.raises(UnsupportedOpError) as info:
        generate_triton_code_str(g, "bad")
    assert "aten.pow.Tensor_Scalar" in str(info.value)


def test_boolean_placeholders_are_made_boolean(device: torch.device, run_elementwise: Callable[..., Any]) -> None:
    """A mask the forward saved for the backward arrives as an fp32 block; tl.where
    (deprecated on non-boolean conditions) and bitwise ops must get int1."""
    g = fx.Graph()
    m1, m2, x = g.placeholder("m1"), g.placeholder("m2"), g.placeholder("x")
    for node, dtype in ((m1, torch.bool), (m2, torch.bool), (x, torch.float32)):
        node.meta["val"] = torch.zeros(4, dtype=dtype)
    both = g.call_function(A.bitwise_and.Tensor, (m1, m2))
    both.meta["val"] = torch.zeros(4, dtype=torch.bool)
    g.output(g.call_function(A.where.self, (both, x, g.call_function(A.neg.default, (x,)))))
    gen = torch.Generator().manual_seed(0)
    masks = [(torch.rand(N, generator=gen) > 0.5).float().to(device) for _ in range(2)]
    xv = torch.randn(N, generator=gen).to(device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (got,) = run_elementwise(g, [*masks, xv], [torch.float32])
    want = torch.where((masks[0] > 0) & (masks[1] > 0), xv, -xv)
    torch.testing.assert_close(got, want)
