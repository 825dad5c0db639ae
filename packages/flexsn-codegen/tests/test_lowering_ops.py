"""Every lowered aten op, run in a Triton kernel and compared with PyTorch.

One ``Case`` per op (several for ops with overloads or options). A case
traces a small function with ``flexsn_trace.generate_inference_graph`` (or,
for the few ops ``make_fx`` always decomposes, builds the one-node FX graph
by hand), checks that the op under test really is in the graph, lowers it
with ``generate_triton_code_str``, runs it elementwise in a probe kernel
(see conftest.py) and compares with PyTorch evaluating the same function on
the same device. Inputs cover each op's domain and its edges: zeros of both
signs, ties for rounding, NaN and infinities, values around thresholds, and
tiny arguments where the portable forms must not cancel.

The cases live in ``lowering_cases.py``. ``test_every_supported_op_has_a_case`` keeps the case list and
``flexsn_codegen.supported_ops()`` equal, so a new lowering cannot land
untested.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

import pytest
import torch
from torch import fx

from flexsn_codegen import LOWERINGS, UnsupportedOpError, generate_triton_code_str, supported_ops
from flexsn_trace import generate_inference_graph
from lowering_cases import CASES, N, Case  # the case table, beside this file (conftest puts it on sys.path)


def _key(target: Any) -> str | None:
    """The supported_ops() key a graph node's target resolves to (mirrors lowering_for)."""
    packet = getattr(getattr(target, "_overloadpacket", None), "__name__", None)
    if packet is None:
        return None
    overload = getattr(target, "_overloadname", "default")
    for key in (f"{packet}.{overload}", packet):
        if key in LOWERINGS:
            return key
    return None


class _Recorder(fx.Interpreter):
    def run_node(self, n: fx.Node) -> Any:
        out = super().run_node(n)
        n.meta["val"] = out
        return out


def case_graph(case: Case, inputs: Sequence[torch.Tensor]) -> fx.Graph:
    if case.build is None:
        assert case.fn is not None
        return generate_inference_graph(case.fn, inputs)
    g = fx.Graph()
    xs = [g.placeholder(f"x{i}") for i in range(len(inputs))]
    g.output(case.build(g, *xs))
    _Recorder(fx.GraphModule(torch.nn.Module(), g)).run(*inputs)
    return g


def _evaluate(case: Case, graph: fx.Graph, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    if case.build is None:
        assert case.fn is not None
        out = case.fn(*inputs)
    else:
        out = fx.GraphModule(torch.nn.Module(), graph)(*inputs)
    return list(out) if isinstance(out, (tuple, list)) else [out]


def reference(case: Case, graph: fx.Graph, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    out = _evaluate(case, graph, inputs)
    device = inputs[0].device
    if device.type != "cpu" and any(o.numel() == 0 for o in out):
        # CUDA's log_sigmoid_forward returns an empty buffer (only the CPU
        # kernel fills it); the lowerings follow the CPU semantics the graphs
        # are traced with, so take the reference from the CPU.
        out = [o.to(device) for o in _evaluate(case, graph, [x.cpu() for x in inputs])]
    return out


def _ids(cases: Sequence[Case]) -> list[str]:
    return [c.name for c in cases]


def _tensors(case: Case, device: torch.device, dtype: torch.dtype = torch.float32) -> list[torch.Tensor]:
    out = []
    for values in case.inputs:
        assert len(values) == N, f"{case.name}: input has {len(values)} values, expected {N}"
        out.append(torch.tensor(values, dtype=torch.float32).to(dtype).to(device))
    return out


def _compare(got: torch.Tensor, want: torch.Tensor, case: Case, rtol: float, atol: float, what: str) -> None:
    got, want = got.cpu(), want.cpu()
    if case.exact:
        rtol = atol = 0.0
    ok = torch.isclose(got.double(), want.double(), rtol=rtol, atol=atol, equal_nan=True)
    if case.signed_zero:  # 1 / round(-0.4) is -inf in PyTorch
        ok &= (want != 0) | (torch.signbit(got) == torch.signbit(want))
    if not bool(ok.all()):
        bad = (~ok).nonzero().flatten()[:8].tolist()
        raise AssertionError(
            f"{case.name} ({what}): {int((~ok).sum())} mismatches, e.g. at {bad}: "
            f"got {got[bad].tolist()} want {want[bad].tolist()}"
        )


def _tolerance_scale(device: torch.device) -> float:
    # Compiled CUDA code uses approximate exp/exp2 (ex2.approx): allow a few ulp more.
    return 4.0 if device.type == "cuda" else 1.0


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_op_fp32(case: Case, device: torch.device, run_elementwise: Callable[..., list[torch.Tensor]]) -> None:
    inputs = _tensors(case, device)
    graph = case_graph(case, inputs)
    used = {_key(n.target) for n in graph.nodes if n.op == "call_function"}
    assert case.op in used, f"{case.name}: the graph does not contain {case.op!r} (it has {sorted(map(str, used))})"
    want = reference(case, graph, inputs)
    got = run_elementwise(graph, inputs, [torch.float32] * len(want), name="step")
    scale = _tolerance_scale(device)
    for k, (g, w) in enumerate(zip(got, want)):
        _compare(g, w.to(torch.float32), case, case.rtol * scale, case.atol * scale, f"fp32 output {k}")


HALF_CASES = [c for c in CASES if c.half]
if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET", "0") not in ("1", "true", "yes", "on"):
    # Compiled, every case is one more kernel compilation per dtype; the storage
    # rounding under test is the same helper for all ops, so a sample (and every
    # cast) keeps the GPU run short.
    HALF_CASES = [c for i, c in enumerate(HALF_CASES) if i % 5 == 0 or c.op in ("_to_copy", "to")]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("case", HALF_CASES, ids=_ids(HALF_CASES))
def test_op_half_storage(
    case: Case, dtype: torch.dtype, device: torch.device, run_elementwise: Callable[..., list[torch.Tensor]]
) -> None:
    """Half inputs are computed in fp32 and stored in the input dtype.

    The reference is PyTorch on the same (half-rounded) values upcast to
    fp32, rounded to ``dtype`` at the end; results may differ by the last
    half-precision ulp where the fp32 results straddle a rounding boundary.
    """
    halves = _tensors(case, device, dtype)
    upcast = [x.float() for x in halves]
    graph = case_graph(case, upcast)
    want = [w.to(torch.float32).to(dtype) for w in reference(case, graph, upcast)]
    got = run_elementwise(graph, halves, [dtype] * len(want), name="step_half")
    ulp = 2.0 ** -10 if dtype == torch.float16 else 2.0 ** -7
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == dtype
        _compare(g, w, case, 1.01 * ulp, 1e-6, f"{dtype} output {k}")


def test_every_supported_op_has_a_case() -> None:
    covered = {c.op for c in CASES}
    missing = sorted(set(supported_ops()) - covered)
    unknown = sorted(covered - set(supported_ops()))
    assert not missing, f"lowered ops without a test case: {missing}"
    assert not unknown, f"test cases for ops that are not lowered: {unknown}"


def test_supported_ops_is_sorted_and_matches_table() -> None:
    ops = supported_ops()
    assert ops == sorted(ops)
    assert set(ops) == set(LOWERINGS)


def test_lowerings_use_no_libdevice(device: torch.device) -> None:
    """Every case's generated source sticks to portable ``tl`` functions."""
    for case in CASES:
        inputs = _tensors(case, torch.device("cpu"))
        code, _ = generate_triton_code_str(case_graph(case, inputs), "portable")
        assert "libdevice" not in code and "extra" not in code, f"{case.name}: {code}"


@pytest.mark.parametrize(
    "fn, op",
    [
        (lambda x: torch.cumsum(x, 0), "aten.cumsum.default"),
        (lambda x: x.sum() + x, "aten.sum.default"),
        (lambda x: torch.flip(x, [0]), "aten.flip.default"),
        (lambda x: x.max() * x, "aten.max.default"),
        (lambda x: torch.rand_like(x) + x, "aten.rand_like.default"),
    ],
    ids=["cumsum", "sum", "flip", "max-reduction", "rand_like"],
)
def test_unsupported_op_error_names_the_op(fn: Callable[..., Any], op: str) -> None:
    graph = generate_inference_graph(fn, (torch.randn(6),))
    with pytest.raises(UnsupportedOpError) as info:
        generate_triton_code_str(graph, "bad")
    assert info.value.op == op
    assert op in str(info.value)
    assert isinstance(info.value, NotImplementedError)


def test_training_graphs_of_every_case_lower() -> None:
    """The AOT forward and backward graphs of every differentiable case lower too.

    A backward formula may use ops the forward does not (``hardswish_backward``,
    ``empty_like`` for ``lerp``, ``_efficientzerotensor`` for ``sgn``); one
    missing lowering sends every training call of such a core to the eager loop.
    """
    from flexsn_codegen import check_graph_supported
    from flexsn_trace import trace_training_graphs

    failures = []
    traced = 0
    for case in CASES:
        if case.fn is None:
            continue
        g = torch.Generator().manual_seed(0)
        examples = [torch.rand(4, generator=g) + 0.5 for _ in case.inputs]
        try:
            graphs = trace_training_graphs(case.fn, examples)
        except ValueError:
            continue  # no differentiable output (comparisons, rounding, ...)
        traced += 1
        for which, graph in (("forward", graphs.fwd), ("backward", graphs.bwd)):
            try:
                check_graph_supported(graph)
            except UnsupportedOpError as exc:
                failures.append(f"{case.name} ({which}): {exc.op}")
    assert traced > 100
    assert not failures, "training graphs with unlowered ops:\n" + "\n".join(failures)
