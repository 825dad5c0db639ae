"""flex_sn_scan / eager_scan semantics, validation rules and autograd."""

from __future__ import annotations

import warnings

import pytest
import torch
from hop_reference import (
    assert_all_close,
    lif_by_hand,
    lif_core,
    lifted_core,
    python_loop,
    smooth_lif_core,
    two_by_two_by_hand,
    two_by_two_core,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import flexsn_hop
from flexsn_hop import eager_scan, eager_scan_final_state, flex_sn_scan

SCANS = [flex_sn_scan, eager_scan]
FINAL_SCANS = [eager_scan_final_state]


def test_public_api_and_registration() -> None:
    for name in flexsn_hop.__all__:
        assert hasattr(flexsn_hop, name), name
    assert isinstance(flex_sn_scan, flexsn_hop.FlexSNScan)
    assert flexsn_hop.hop_kernels_registered()
    assert flexsn_hop.dynamo_hop_available()
    assert isinstance(flex_sn_scan, torch._ops.HigherOrderOperator)
    assert torch.ops.higher_order.flex_sn_scan is flex_sn_scan


@pytest.mark.parametrize("scan", SCANS)
def test_lif_matches_hand_written_loop(scan) -> None:
    torch.manual_seed(0)
    x = torch.rand(7, 2, 3) * 3.0
    v0 = torch.rand(2, 3)
    spikes, vs = scan(lif_core, 1, 1, 1, x, v0)
    ref_spikes, ref_vs = lif_by_hand(x, v0)
    assert_all_close((spikes, vs), (ref_spikes, ref_vs))
    assert spikes.sum() > 0  # the threshold is actually crossed


@pytest.mark.parametrize("scan", SCANS)
def test_two_inputs_two_states_two_outputs(scan) -> None:
    torch.manual_seed(1)
    xs, ys = torch.randn(5, 4), torch.randn(5, 4)
    a0, b0 = torch.randn(4), torch.randn(4)
    out = scan(two_by_two_core, 2, 2, 2, xs, ys, a0, b0)
    assert len(out) == 4
    assert_all_close(out, two_by_two_by_hand(xs, ys, a0, b0))


@pytest.mark.parametrize("scan", SCANS)
def test_lifted_freevars_follow_initial_states(scan) -> None:
    torch.manual_seed(2)
    x, v0 = torch.randn(6, 3), torch.randn(3)
    w, bias = torch.randn(3), torch.randn(3)
    out = scan(lifted_core, 1, 1, 1, x, v0, w, bias)
    expected, _ = python_loop(lifted_core, 1, [x], [v0], [w, bias])
    assert_all_close(out, expected)


def test_single_tensor_return_and_no_states() -> None:
    x = torch.randn(4, 3)
    (y,) = flex_sn_scan(lambda x: x * 2.0, 1, 0, 1, x)
    torch.testing.assert_close(y, x * 2.0)


def test_final_state_variant_is_last_state() -> None:
    torch.manual_seed(3)
    xs, ys = torch.randn(5, 4), torch.randn(5, 4)
    a0, b0 = torch.randn(4), torch.randn(4)
    seqs = flex_sn_scan(two_by_two_core, 2, 2, 2, xs, ys, a0, b0)
    final = eager_scan_final_state(two_by_two_core, 2, 2, 2, xs, ys, a0, b0)
    assert_all_close(final[:2], seqs[:2])
    assert_all_close(final[2:], (seqs[2][-1], seqs[3][-1]))


# ---- T == 0 ---------------------------------------------------------------


@pytest.mark.parametrize("scan", SCANS)
def test_t0_with_templates_does_not_run_core(scan) -> None:
    def core(x, y, a, b):
        raise AssertionError("core_fn must not run when T == 0")

    xs, ys = torch.empty(0, 4), torch.empty(0, 4)
    a0, b0 = torch.randn(4), torch.randn(4, dtype=torch.float64)
    specs = (((4,), torch.float16), ((2, 3), torch.int64, torch.device("cpu")))
    out1, out2, sa, sb = scan(core, 2, 2, 2, xs, ys, a0, b0, output_template_specs=specs)
    assert out1.shape == (0, 4) and out1.dtype == torch.float16
    assert out2.shape == (0, 2, 3) and out2.dtype == torch.int64
    assert sa.shape == (0, 4) and sa.dtype == torch.float32
    assert sb.shape == (0, 4) and sb.dtype == torch.float64


def test_t0_final_state_returns_clones_of_initial_states() -> None:
    x, v0 = torch.empty(0, 3), torch.randn(3)
    y, v = eager_scan_final_state(
        lif_core, 1, 1, 1, x, v0, output_template_specs=(((3,), torch.float32),)
    )
    assert y.shape == (0, 3)
    torch.testing.assert_close(v, v0)
    assert v.data_ptr() != v0.data_ptr()


@pytest.mark.parametrize("templates", [True, False], ids=["templates", "fake_step"])
@pytest.mark.parametrize("scan", SCANS)
def test_t0_outputs_stay_in_the_autograd_graph(scan, templates: bool) -> None:
    """A backward through a ``T == 0`` call's outputs gives zero gradients (as through ``FlexSN``'s), where
    the outputs were once made outside the graph and ``backward`` raised "does not require grad"."""
    x = torch.randn(0, 3, requires_grad=True)
    v0 = torch.zeros(3)
    specs = (((3,), torch.float32),) if templates else None
    (y,) = scan(lif_core, 1, 1, 1, x, v0, output_template_specs=specs)[:1]
    assert y.shape == (0, 3) and y.requires_grad
    y.sum().backward()
    assert x.grad is not None and x.grad.shape == (0, 3)
    with torch.no_grad():  # and nothing is recorded where nothing asks for it
        (z,) = scan(lif_core, 1, 1, 1, x, v0, output_template_specs=specs)[:1]
    assert not z.requires_grad


def _reshaping_core(w: torch.Tensor):
    """Outputs of other shapes and dtypes than the input: a row sum, a bool spike, a float16 copy."""

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = v + (x - v) * w
        spike = h >= 1.0
        return h.sum(-1), spike, h.to(torch.float16)[None], h * (~spike)

    return core


@pytest.mark.parametrize("scan", [*SCANS, *FINAL_SCANS])
def test_t0_without_templates_takes_shapes_from_a_fake_step(scan) -> None:
    w = torch.nn.Parameter(torch.full((3,), 0.5))  # captured, real: read as a fake copy
    core, x, v0 = _reshaping_core(w), torch.rand(2, 4, 3), torch.zeros(4, 3)
    ref = scan(core, 1, 1, 3, x[:1], v0)  # one real step: the shapes and dtypes to expect
    out = scan(core, 1, 1, 3, x[:0], v0)
    for got, want in zip(out[:3], ref[:3]):
        assert got.shape == (0, *want.shape[1:]) and got.dtype == want.dtype
    assert w.grad is None and torch.equal(w, torch.full((3,), 0.5))


@pytest.mark.parametrize("scan", [*SCANS, *FINAL_SCANS])
def test_t0_without_templates_and_a_value_branching_core_raises(scan) -> None:
    def branching(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return (x, v) if bool((x > 0).any()) else (-x, v)  # a branch on a value: no fake run

    with pytest.raises(ValueError, match=r"T == 0 requires output_template_specs .*fake"):
        scan(branching, 1, 1, 1, torch.empty(0, 3), torch.zeros(3))


STATS: dict[str, torch.Tensor] = {}


@pytest.mark.parametrize("scan", [*SCANS, *FINAL_SCANS])
def test_t0_without_templates_never_runs_a_changing_core_on_fake_tensors(scan) -> None:
    def recording(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + x
        STATS["last"] = h  # the loop makes this change at every step, and no time at all when T == 0
        return h, h

    STATS.clear()
    with pytest.raises(ValueError, match=r"T == 0 requires output_template_specs .*STATS\["):
        scan(recording, 1, 1, 1, torch.empty(0, 3), torch.zeros(3))
    assert STATS == {}  # no fake tensor left in the user's state
    y, v = scan(recording, 1, 1, 1, torch.empty(0, 3), torch.zeros(3), output_template_specs=(((3,), torch.float32),))
    assert y.shape == (0, 3) and STATS == {}


def test_t0_without_outputs_needs_no_templates() -> None:
    (s,) = flex_sn_scan(lambda x, v: v + x, 1, 1, 0, torch.empty(0, 3), torch.zeros(3))
    assert s.shape == (0, 3)


@pytest.mark.parametrize("scan", SCANS)
def test_template_count_mismatch_raises(scan) -> None:
    with pytest.raises(ValueError, match="expected 1 output template specs .* got 2"):
        scan(
            lif_core,
            1,
            1,
            1,
            torch.empty(0, 3),
            torch.zeros(3),
            output_template_specs=(((3,), torch.float32), ((3,), torch.float32)),
        )


def test_malformed_templates_raise() -> None:
    x, v0 = torch.empty(0, 3), torch.zeros(3)
    with pytest.raises(ValueError, match="must be \\(shape, dtype\\)"):
        flex_sn_scan(lif_core, 1, 1, 1, x, v0, output_template_specs=(((3,),),))
    with pytest.raises(TypeError, match="dtype must be a torch.dtype"):
        flex_sn_scan(lif_core, 1, 1, 1, x, v0, output_template_specs=(((3,), "float32"),))
    with pytest.raises(TypeError, match="shape must be a sequence of ints"):
        flex_sn_scan(lif_core, 1, 1, 1, x, v0, output_template_specs=((("a",), torch.float32),))


# ---- arity and T validation -------------------------------------------------


@pytest.mark.parametrize("scan", [*SCANS, *FINAL_SCANS])
def test_mismatched_t_raises(scan) -> None:
    with pytest.raises(ValueError, match="input 1 has leading dim 4, expected T=5"):
        scan(two_by_two_core, 2, 2, 2, torch.zeros(5, 3), torch.zeros(4, 3), torch.zeros(3), torch.zeros(3))


@pytest.mark.parametrize("scan", [*SCANS, *FINAL_SCANS])
def test_too_few_tensor_args_raises(scan) -> None:
    with pytest.raises(ValueError, match="expected at least 4 tensor args .*got 3"):
        scan(two_by_two_core, 2, 2, 2, torch.zeros(5, 3), torch.zeros(5, 3), torch.zeros(3))


@pytest.mark.parametrize("scan", SCANS)
def test_core_signature_arity_mismatch_raises(scan) -> None:
    x, v0, w = torch.zeros(4, 3), torch.zeros(3), torch.zeros(3)
    # An extra lifted tensor that lif_core(x, v) cannot take.
    with pytest.raises(ValueError, match="expected 3 tensor args .*accepts exactly 2 positional"):
        scan(lif_core, 1, 1, 1, x, v0, w)
    # A lifted tensor missing for lifted_core(x, v, w, bias).
    with pytest.raises(ValueError, match="expected 3 tensor args .*accepts exactly 4 positional"):
        scan(lifted_core, 1, 1, 1, x, v0, w)


@pytest.mark.parametrize("scan", SCANS)
def test_core_returning_wrong_count_raises(scan) -> None:
    with pytest.raises(ValueError, match="core returned 1 values, expected num_outputs \\+ num_states = 2"):
        scan(lambda x, v: v + x, 1, 1, 1, torch.zeros(4, 3), torch.zeros(3))


def test_no_input_sequence_and_bad_counts_raise() -> None:
    with pytest.raises(ValueError, match="at least one input sequence"):
        flex_sn_scan(lambda v: (v, v), 0, 1, 1, torch.zeros(3))
    with pytest.raises(TypeError, match="num_states must be an int"):
        flex_sn_scan(lif_core, 1, 1.0, 1, torch.zeros(4, 3), torch.zeros(3))
    with pytest.raises(ValueError, match="num_outputs must be >= 0"):
        flex_sn_scan(lif_core, 1, 1, -1, torch.zeros(4, 3), torch.zeros(3))
    with pytest.raises(TypeError, match="flat_args\\[1\\] must be a torch.Tensor"):
        flex_sn_scan(lif_core, 1, 1, 1, torch.zeros(4, 3), 0.0)
    with pytest.raises(TypeError, match="core_fn must be callable"):
        flex_sn_scan(None, 1, 1, 1, torch.zeros(4, 3), torch.zeros(3))
    with pytest.raises(ValueError, match="got a 0-dim tensor"):
        flex_sn_scan(lif_core, 1, 1, 1, torch.tensor(1.0), torch.zeros(()))


# ---- autograd -----------------------------------------------------------------


def test_gradcheck_flex_sn_scan_float64() -> None:
    torch.manual_seed(4)
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    v0 = torch.randn(3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    bias = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda *a: flex_sn_scan(lifted_core, 1, 1, 1, *a), (x, v0, w, bias)
    )
    assert torch.autograd.gradcheck(
        lambda x, v0: flex_sn_scan(smooth_lif_core, 1, 1, 1, x, v0), (x, v0)
    )


def test_gradcheck_two_by_two_float64() -> None:
    torch.manual_seed(5)
    args = tuple(torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in [(3, 2), (3, 2), (2,), (2,)])
    assert torch.autograd.gradcheck(lambda *a: flex_sn_scan(two_by_two_core, 2, 2, 2, *a), args)
    assert torch.autograd.gradcheck(lambda *a: eager_scan_final_state(two_by_two_core, 2, 2, 2, *a), args)


def test_grads_match_unrolled_loop() -> None:
    torch.manual_seed(6)
    leaves = [torch.randn(*s, requires_grad=True) for s in [(6, 3), (3,), (3,), (3,)]]
    out = flex_sn_scan(lifted_core, 1, 1, 1, *leaves)
    loss = (out[0] * torch.arange(6.0)[:, None]).sum() + out[1].pow(2).sum()
    grads = torch.autograd.grad(loss, leaves)

    expected, _ = python_loop(lifted_core, 1, leaves[:1], leaves[1:2], leaves[2:])
    ref_loss = (expected[0] * torch.arange(6.0)[:, None]).sum() + expected[1].pow(2).sum()
    assert_all_close(grads, torch.autograd.grad(ref_loss, leaves))


# ---- tracing without Dynamo ---------------------------------------------------


def test_make_fx_unrolls_into_aten_ops() -> None:
    from torch.fx.experimental.proxy_tensor import make_fx

    x, v0 = torch.rand(3, 2) * 3, torch.zeros(2)
    for mode in ("real", "fake"):
        gm = make_fx(lambda x, v: flex_sn_scan(lif_core, 1, 1, 1, x, v), tracing_mode=mode)(x, v0)
        targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
        assert flex_sn_scan not in targets
        assert targets.count(torch.ops.aten.stack.default) == 2
        assert_all_close(gm(x, v0), lif_by_hand(x, v0))


def test_inference_mode_and_fake_tensor_mode() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    x, v0 = torch.rand(5, 2) * 3, torch.zeros(2)
    with torch.inference_mode():
        assert_all_close(flex_sn_scan(lif_core, 1, 1, 1, x, v0), lif_by_hand(x, v0))
    with FakeTensorMode():
        out = flex_sn_scan(two_by_two_core, 2, 2, 2, torch.empty(5, 2), torch.empty(5, 2), torch.empty(2), torch.empty(2))
    assert [tuple(o.shape) for o in out] == [(5, 2)] * 4


@settings(max_examples=25, deadline=None, derandomize=True)  # reproducible in CI, as the other property tests
@given(
    T=st.integers(0, 6),
    shape=st.lists(st.integers(1, 3), min_size=0, max_size=2),
    seed=st.integers(0, 2**16),
)
def test_property_matches_python_loop(T: int, shape: list[int], seed: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    x = torch.rand((T, *shape), generator=gen) * 3
    v0 = torch.rand(tuple(shape), generator=gen)
    out = flex_sn_scan(lif_core, 1, 1, 1, x, v0, output_template_specs=((tuple(shape), torch.float32),))
    final = eager_scan_final_state(lif_core, 1, 1, 1, x, v0, output_template_specs=((tuple(shape), torch.float32),))
    if T == 0:
        assert out[0].shape == (0, *shape) and out[1].shape == (0, *shape)
        torch.testing.assert_close(final[1], v0)
        return
    assert_all_close(out, lif_by_hand(x, v0))
    torch.testing.assert_close(final[1], out[1][-1])


def test_torch_func_transforms() -> None:
    torch.manual_seed(11)
    x, v0 = torch.randn(4, 3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)

    def loss(x: torch.Tensor) -> torch.Tensor:
        y, v = flex_sn_scan(smooth_lif_core, 1, 1, 1, x, v0)
        return y.sum() + v.pow(2).sum()

    def ref_loss(x: torch.Tensor) -> torch.Tensor:
        (y, v), _ = python_loop(smooth_lif_core, 1, [x], [v0])
        return y.sum() + v.pow(2).sum()

    torch.testing.assert_close(torch.func.grad(loss)(x), torch.func.grad(ref_loss)(x))
    batch = torch.randn(2, 4, 3) + 1.5  # drive enough to fire: the batched spikes are compared too
    batched = torch.vmap(lambda xb: flex_sn_scan(lif_core, 1, 1, 1, xb, torch.zeros(3)))(batch)
    expected = tuple(torch.stack(s) for s in zip(*(lif_by_hand(b, torch.zeros(3)) for b in batch)))
    assert expected[0].any() and not expected[0].all()
    assert_all_close(batched, expected)


def test_flex_sn_scan_refuses_sparse_and_nested_tensors_by_name() -> None:
    x = torch.rand(3, 4) * 3
    with pytest.raises(TypeError, match=r"flat_args\[0\] has layout torch\.sparse_coo"):
        flex_sn_scan(lif_core, 1, 1, 1, x.to_sparse(), torch.zeros(4))
    with pytest.raises(TypeError, match=r"flat_args\[1\] has layout torch\.sparse_coo"):
        flex_sn_scan(lif_core, 1, 1, 1, x, torch.zeros(4).to_sparse())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nested tensors' prototype note
        nested = torch.nested.nested_tensor([x, x])
    with pytest.raises(TypeError, match=r"flat_args\[0\] is a nested tensor"):
        flex_sn_scan(lif_core, 1, 1, 1, nested, torch.zeros(4))
