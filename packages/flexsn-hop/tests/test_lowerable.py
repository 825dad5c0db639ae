"""lowerable_scan / lowerable_while_loop_scan against the eager scan."""

from __future__ import annotations

import pytest
import torch
from hop_reference import assert_all_close, lif_core, lifted_core, python_loop, two_by_two_core

from flexsn_hop import (
    eager_scan,
    eager_scan_final_state,
    lowerable_scan,
    lowerable_scan_available,
    lowerable_scan_final_state,
    lowerable_while_loop_available,
    lowerable_while_loop_scan,
    lowerable_while_loop_scan_final_state,
)

needs_scan = pytest.mark.skipif(
    not lowerable_scan_available(), reason="torch.ops.higher_order.scan is not available"
)
needs_while = pytest.mark.skipif(
    not lowerable_while_loop_available(),
    reason="torch.ops.higher_order.while_loop is not available",
)

SEQ_VARIANTS = [
    pytest.param(lowerable_scan, marks=needs_scan, id="scan"),
    pytest.param(lowerable_while_loop_scan, marks=needs_while, id="while_loop"),
]
FINAL_VARIANTS = [
    pytest.param(lowerable_scan_final_state, marks=needs_scan, id="scan_final"),
    pytest.param(lowerable_while_loop_scan_final_state, marks=needs_while, id="while_loop_final"),
]


def _two_by_two_args() -> tuple[torch.Tensor, ...]:
    gen = torch.Generator().manual_seed(7)
    return (
        torch.randn(5, 4, generator=gen),
        torch.randn(5, 4, generator=gen),
        torch.randn(4, generator=gen),
        torch.randn(4, generator=gen),
    )


@pytest.mark.parametrize("scan", SEQ_VARIANTS)
def test_sequence_variants_equal_eager(scan) -> None:
    args = _two_by_two_args()
    assert_all_close(scan(two_by_two_core, 2, 2, 2, *args), eager_scan(two_by_two_core, 2, 2, 2, *args))
    x, v0 = torch.rand(6, 3) * 3, torch.zeros(3)
    assert_all_close(scan(lif_core, 1, 1, 1, x, v0), eager_scan(lif_core, 1, 1, 1, x, v0))


@pytest.mark.parametrize("scan", FINAL_VARIANTS)
def test_final_state_variants_equal_last_state(scan) -> None:
    args = _two_by_two_args()
    seqs = eager_scan(two_by_two_core, 2, 2, 2, *args)
    final = scan(two_by_two_core, 2, 2, 2, *args)
    assert_all_close(final, (*seqs[:2], seqs[2][-1], seqs[3][-1]))
    assert_all_close(final, eager_scan_final_state(two_by_two_core, 2, 2, 2, *args))


@pytest.mark.parametrize("scan", [*SEQ_VARIANTS, *FINAL_VARIANTS])
def test_lifted_args_and_aliasing_cores(scan) -> None:
    x, v0, w, bias = (torch.randn(*s) for s in [(4, 3), (3,), (3,), (3,)])
    expected, final = python_loop(lifted_core, 1, [x], [v0], [w, bias])
    out = scan(lifted_core, 1, 1, 1, x, v0, w, bias)
    assert_all_close(out[:1], expected[:1])
    assert_all_close(out[1:], expected[1:] if out[1].dim() == 2 else final)

    # A core returning its state unchanged and the same tensor twice.
    def aliasing(x, v):
        return x, x, v

    out = scan(aliasing, 1, 1, 2, x, v0)
    assert_all_close(out[:2], (x, x))


@pytest.mark.parametrize("scan", [*SEQ_VARIANTS, *FINAL_VARIANTS])
def test_t0_and_validation(scan) -> None:
    x, v0 = torch.empty(0, 3), torch.randn(3)
    y, v = scan(lif_core, 1, 1, 1, x, v0, output_template_specs=(((3,), torch.float32),))
    assert y.shape == (0, 3)
    assert v.shape == ((0, 3) if scan in (lowerable_scan, lowerable_while_loop_scan) else (3,))
    (y,) = scan(lif_core, 1, 1, 1, x, v0)[:1]  # no templates: the shapes of one fake step
    assert y.shape == (0, 3) and y.dtype == torch.float32

    def branching(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return (x, v) if bool((x > 0).any()) else (-x, v)

    with pytest.raises(ValueError, match="T == 0 requires output_template_specs"):
        scan(branching, 1, 1, 1, x, v0)
    seen: list[torch.Tensor] = []

    def recording(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        seen.append(x)  # a change the loop makes at every step: never run on fake tensors
        return x, v

    with pytest.raises(ValueError, match=r"T == 0 requires output_template_specs .*seen\.append"):
        scan(recording, 1, 1, 1, x, v0)
    assert seen == []
    with pytest.raises(ValueError, match="input 1 has leading dim 4, expected T=5"):
        scan(two_by_two_core, 2, 2, 2, torch.zeros(5, 3), torch.zeros(4, 3), v0, v0)
    with pytest.raises(ValueError, match="expected 3 tensor args"):
        scan(lif_core, 1, 1, 1, torch.zeros(5, 3), v0, v0)


@pytest.mark.parametrize("scan", SEQ_VARIANTS)
def test_gradients_equal_eager(scan) -> None:
    torch.manual_seed(8)
    leaves = [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in [(4, 3), (3,), (3,), (3,)]]
    loss = sum(o.sum() for o in scan(lifted_core, 1, 1, 1, *leaves))
    ref = sum(o.sum() for o in eager_scan(lifted_core, 1, 1, 1, *leaves))
    assert_all_close(torch.autograd.grad(loss, leaves), torch.autograd.grad(ref, leaves))


@pytest.mark.parametrize("scan", SEQ_VARIANTS)
def test_compiled_no_grad_keeps_one_loop_node(scan) -> None:
    graphs: list[torch.fx.GraphModule] = []

    def record(gm: torch.fx.GraphModule, example_inputs: object) -> object:
        graphs.append(gm)
        return gm.forward

    x, v0, w, bias = (torch.randn(*s) for s in [(6, 3), (3,), (3,), (3,)])
    compiled = torch.compile(lambda *a: scan(lifted_core, 1, 1, 1, *a), backend=record, fullgraph=True)
    with torch.no_grad():
        out = compiled(x, v0, w, bias)
    assert_all_close(out, eager_scan(lifted_core, 1, 1, 1, x, v0, w, bias))
    (gm,) = graphs
    loops = [
        n for n in gm.graph.nodes
        if n.op == "call_function" and getattr(n.target, "__name__", "") in ("scan", "while_loop")
    ]
    assert len(loops) == 1
    # Not unrolled: the step's tanh appears at most once outside the loop body
    # (the while_loop variant peels step 0).
    assert sum(1 for n in gm.graph.nodes if n.target is torch.tanh) <= 1


@pytest.mark.parametrize("scan", [*SEQ_VARIANTS, *FINAL_VARIANTS])
def test_stateless_core(scan) -> None:
    x = torch.randn(4, 3)
    (y,) = scan(lambda x: torch.sin(x), 1, 0, 1, x)
    torch.testing.assert_close(y, torch.sin(x))
