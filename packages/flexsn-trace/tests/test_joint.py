"""The recorder and the joint trace's split (flexsn_trace.recorder / flexsn_trace.joint) against autograd."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any, Callable

import pytest
import torch
from torch import fx

from flexsn_trace import generate_inference_graph, trace_training_graphs
from flexsn_trace.info import graph_output_nodes, placeholders
from flexsn_trace.joint import _vjp, partition_joint, trace_joint
from flexsn_trace.recorder import functional_in_place, functional_overload
from flexsn_trace.recorder import record


def _run(graph: fx.Graph, *args: Any) -> Any:
    return fx.GraphModule(graph.owning_module or torch.nn.Module(), graph)(*args)


def test_tracing_imports_no_compiler() -> None:
    """Inference and training traces leave torch._dynamo / torch._inductor unimported (make_fx and AOTAutograd import them).

    Nor sympy, where ``import torch`` leaves it out: ``torch.autograd.grad``'s tangent
    check imports it (2.3 s of a fresh process without bytecode), the joint trace does not call it.
    """
    code = textwrap.dedent(
        """
        import sys, torch
        sympy_by_torch = "sympy" in sys.modules
        from flexsn_trace import generate_inference_graph, trace_training_graphs
        def lif(x, v):
            h = v + (x - v) * 0.5
            s = (h >= 1.0).to(h.dtype)
            return s, h * (1.0 - s)
        generate_inference_graph(lif, (torch.zeros(4), torch.zeros(4)))
        g = trace_training_graphs(lambda x, v: (torch.sigmoid(x * v), v * 0.5 + x), (torch.zeros(4), torch.zeros(4)), num_inputs=1)
        assert g.fwd is not None and g.bwd is not None
        names = ("torch._dynamo", "torch._inductor") + (() if sympy_by_torch else ("sympy",))
        print(sorted(m for m in names if m in sys.modules))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_vjp_equals_autograd_grad() -> None:
    """The joint trace's engine call gives torch.autograd.grad's gradients, None for an unused input, and defers to it otherwise."""
    x, y, u = (torch.randn(3, 4, dtype=torch.float64, requires_grad=True) for _ in range(3))

    def outs() -> tuple[torch.Tensor, torch.Tensor]:
        return torch.sigmoid(x * y), (x.exp() * 2.0).sum(0)

    a, b = outs()
    tangents = (torch.randn_like(a), torch.randn_like(b))
    got = _vjp((a, b), (x, y, u), tangents)
    a, b = outs()
    want = torch.autograd.grad((a, b), (x, y, u), tangents, allow_unused=True)
    assert got[2] is None and want[2] is None
    for g, w in zip(got[:2], want[:2]):
        torch.testing.assert_close(g, w, rtol=0, atol=0)
    a, b = outs()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):  # a wrong tangent shape: autograd's own error
        _vjp((b,), (x, y), (torch.randn(7, dtype=torch.float64),))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, v: (torch.sigmoid(x) * v + torch.tensor(0.25), torch.where(x > 0, x, -v)),
        lambda x, v: (torch.exp(-x.abs()) * v.clamp(0.0, 1.0), (x * v).to(torch.float64)),
        lambda x, v: (x.clone().mul_(2.0).add_(v), v),
    ],
    ids=["constant", "where-cast", "in-place"],
)
def test_inference_graph_computes_what_the_function_does(fn: Callable[..., Any]) -> None:
    x, v = torch.randn(5), torch.randn(5)
    graph = generate_inference_graph(fn, (x, v))
    got = _run(graph, x, v)
    want = fn(x, v)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and torch.equal(g, w)
    assert not any(getattr(n.target, "_schema", None) is not None and n.target._schema.is_mutable for n in graph.nodes)


def test_reading_a_value_on_the_host_is_refused() -> None:
    def branchy(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return (x * 2, v) if float(x.sum()) > 0 else (x, v)

    with pytest.raises(ValueError, match="reads a tensor's value on the host .*torch.where"):
        generate_inference_graph(branchy, (torch.ones(3), torch.ones(3)))


def test_record_names_and_meta() -> None:
    gm = record(lambda a, b: (a * b + a,), [torch.ones(2, 3), torch.ones(2, 3, dtype=torch.float64)], ["x", "w"])
    assert [p.name for p in placeholders(gm.graph)] == ["x", "w"]
    add = graph_output_nodes(gm.graph)[0]
    assert add.name == "add" and add.meta["val"].dtype == torch.float64 and tuple(add.meta["val"].shape) == (2, 3)


CORES: dict[str, tuple[Callable[..., Any], int]] = {
    "lif-sigmoid": (lambda x, v: (torch.sigmoid(4.0 * (v * 0.5 + x - 1.0)), (v * 0.5 + x) * 0.9), 1),
    "recompute": (lambda x, v: (torch.tanh(torch.sigmoid(x + v)), torch.sigmoid(x + v) * torch.exp(v)), 1),
    "unused-input": (lambda x, y, v: (x * v, v * 0.5 + x), 2),
    "static": (lambda x, v, w: (torch.sigmoid(w) * v + x, torch.sigmoid(w) * x), 1),
    "hard-output": (lambda x, v: ((v + x >= 1.0).to(x.dtype), (v + x) * 0.5), 1),
    "in-place": (lambda x, v: (torch.sigmoid(v.clone().mul_(0.5).add_(x)), v.clone().mul_(0.5).add_(x) * 0.9), 1),
}


@pytest.mark.parametrize("name", list(CORES))
def test_split_pair_gives_autograds_gradients(name: str) -> None:
    """Forward graph then backward graph (fed the saved values and ones tangents) equals autograd through the step."""
    fn, _ = CORES[name]
    n = 2 + (name in ("unused-input", "static"))
    torch.manual_seed(0)
    examples = [torch.randn(6, dtype=torch.float64) for _ in range(n)]
    leaves = [e.clone().requires_grad_() for e in examples]
    outs = fn(*leaves)
    diff = [o for o in outs if o.requires_grad]
    want = torch.autograd.grad(diff, leaves, [torch.ones_like(o) for o in diff], allow_unused=True)

    joint = trace_joint(fn, examples, [True] * n, outs)
    fwd, bwd = partition_joint(joint.graph, n, len(outs))
    results = _run(fwd, *examples)
    for got, ref in zip(results[: len(outs)], outs):
        torch.testing.assert_close(got, ref.detach())
    saved = results[len(outs) :]
    grads = _run(bwd, *saved, *[torch.ones_like(o) for o in diff])
    for g, w in zip(grads, want):
        if w is None:
            assert g is None
        else:
            torch.testing.assert_close(g, w)


def test_in_place_step_saves_its_result_not_a_copy() -> None:
    """A functionalized in-place step: the backward reads the sigmoid result itself (no extra sequence)."""
    fn, ni = CORES["in-place"]
    graphs = trace_training_graphs(fn, (torch.zeros(4), torch.zeros(4)), num_inputs=ni)
    outs = graph_output_nodes(graphs.fwd)
    assert outs[2:] and all(s is outs[0] or (isinstance(s, fx.Node) and s.op == "placeholder") for s in outs[2:])


def test_cheap_values_are_recomputed_not_saved() -> None:
    """sigmoid(x + v) feeds both results: the pair saves the two step arguments and recomputes the rest."""
    fn, ni = CORES["recompute"]
    graphs = trace_training_graphs(fn, (torch.zeros(4), torch.zeros(4)), num_inputs=ni)
    saved = graph_output_nodes(graphs.fwd)[2:]
    assert saved and all(isinstance(s, fx.Node) and s.op == "placeholder" for s in saved)


def _in_place_fresh(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    y = torch.zeros_like(x)
    y.fill_(2.0)
    z = x > 0
    z.logical_or_(x < -1)
    return y * x, z


def _in_place_read_before(x: torch.Tensor) -> tuple[torch.Tensor]:
    y = x.clone()
    w = y * 3
    y.fill_(1.0)
    return (w + y,)


def _in_place_seen_by_a_view(x: torch.Tensor) -> tuple[torch.Tensor]:
    y = x.clone()
    v = y.view(-1)
    y.fill_(1.0)
    return (v * 2,)


def _in_place_powers(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """As SpikingJelly's Erf / SoftSign backward formulas write: ``pow_`` of a fresh tensor by a number."""
    a = (x.abs() + 0.5).pow_(2)
    b = (x * 0.3).exp().pow_(x.abs())
    c = (x.abs() + 1.0).double().float_power_(3).to(x.dtype)
    return a, b, c


@pytest.mark.parametrize("fn, rewritten", [(_in_place_fresh, True), (_in_place_read_before, True), (_in_place_seen_by_a_view, False),
                                           (_in_place_powers, True)])
def test_in_place_calls_become_functional_only_where_nothing_else_sees_the_memory(fn: Callable[..., Any], rewritten: bool) -> None:
    """Backward formulas write fresh tensors in place (torch 2.11); a write a view would see is left to functionalize."""
    x = torch.randn(7)
    gm = record(fn, [x])
    assert functional_in_place(gm.graph) is rewritten
    if rewritten:
        gm.recompile()
        for got, want in zip(gm(x), fn(x)):
            assert torch.equal(got, want)


def test_an_in_place_op_becomes_the_functional_overload_of_its_own_arguments() -> None:
    """Matched by schema, not by overload name: ``pow_.Scalar`` is ``(Tensor self, Scalar exponent)`` but
    ``pow.Scalar`` is ``(Scalar self, Tensor exponent)`` (before, the rewrite took it, and a core whose
    gradient squares in place trained on the eager loop: "cannot lower op 'aten.pow.Scalar'")."""
    aten = torch.ops.aten
    assert functional_overload(aten.pow_.Scalar) is aten.pow.Tensor_Scalar
    assert functional_overload(aten.pow_.Tensor) is aten.pow.Tensor_Tensor
    assert functional_overload(aten.float_power_.Scalar) is aten.float_power.Tensor_Scalar
    assert functional_overload(aten.fill_.Scalar) is aten.fill.Scalar
    assert functional_overload(aten.add_.Tensor) is aten.add.Tensor
    checked = 0
    for name in dir(aten):
        if not name.endswith("_") or name.startswith("_"):
            continue
        packet = getattr(aten, name)
        for overload in packet.overloads():
            op = getattr(packet, overload)
            found = functional_overload(op)
            if found is None:
                continue
            checked += 1
            assert not found._schema.is_mutable
            assert [(a.name, str(a.type)) for a in found._schema.arguments] == [(a.name, str(a.type)) for a in op._schema.arguments], op
    assert checked > 100
