"""Launch wrappers and their rules: ``T == 0``, ``None`` gradients, templates, NCL buckets."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from flexsn_codegen import backward_saved_args, final_state_forward_returns
from flexsn_runtime import (
    ScanKernel,
    build_inference_final_state_kernel,
    build_inference_kernel,
    build_training_kernels,
    flexsn_backward,
    flexsn_backward_ncl_bucket,
    flexsn_forward,
    flexsn_forward_final_state,
    flexsn_inference,
    flexsn_inference_final_state,
)

T, SHAPE = 6, (5, 13)  # NCL = 65: not a power of two, one partial block on a GPU


class NoLaunch:
    """A kernel stand-in proving a wrapper did not launch (T == 0, all-None gradients)."""

    final_state: Any = None
    output_dtypes: tuple[Any, ...] = ()  # outputs in the inputs' dtype
    output_dtype = ScanKernel.output_dtype

    def launch(self, *args: Any, **kwargs: Any) -> None:
        raise AssertionError("the wrapper launched a kernel")


@pytest.fixture(scope="module")
def built(ref: Any) -> dict[str, Any]:
    out = {}
    for name in ("lif", "two"):
        c = ref.CORES[name]
        inf, info = build_inference_kernel(c.fn, c.ni, c.ns, c.no)
        fin, fin_info = build_inference_final_state_kernel(c.fn, c.ni, c.ns, c.no)
        fwd, bwd, tinfo = build_training_kernels(c.fn, c.ni, c.ns, c.no)
        out[name] = dict(core=c, inf=inf, info=info, fin=fin, fin_info=fin_info, fwd=fwd, bwd=bwd, tinfo=tinfo)
    return out


def _saved(tinfo: Any, xs: list[torch.Tensor], s0: list[torch.Tensor], rets: Any) -> list[torch.Tensor]:
    pool = {"input": xs, "return": rets, "init_state": s0}
    return [pool[kind][idx] for kind, idx in backward_saved_args(tinfo)]


# ---------------------------------------------------------------- forward wrappers


@pytest.mark.parametrize("name", ["lif", "two"])
def test_omitted_initial_states_are_zeros_made_in_the_kernel(name: str, built: dict[str, Any], ref: Any, device: torch.device) -> None:
    """No zeros tensor is made for omitted initial states: their slots point at input 0, which the kernel does not read."""
    from flexsn_runtime.launchers import launch_args

    b = built[name]
    c = b["core"]
    xs, _ = ref.make_data(c, T, SHAPE, device)
    la = launch_args(b["info"], xs)
    assert la.zero_init and all(t is la.tensors[0] for t in la.tensors[c.ni :])
    zeros = [torch.zeros(SHAPE, device=device) for _ in range(c.ns)]
    assert not launch_args(b["info"], [*xs, *zeros]).zero_init
    for fn, info in ((flexsn_inference, b["info"]), (flexsn_inference_final_state, b["fin_info"])):
        kernel = b["inf"] if fn is flexsn_inference else b["fin"]
        for got, want in zip(fn(kernel, info, *xs), fn(kernel, info, *xs, *zeros)):
            torch.testing.assert_close(got, want, rtol=0, atol=0)
    for final_state in (False, True):
        f = b["fwd"].final_state if final_state else b["fwd"]
        for got, want in zip(flexsn_forward(f, b["tinfo"], *xs, final_state=final_state),
                             flexsn_forward(f, b["tinfo"], *xs, *zeros, final_state=final_state)):
            torch.testing.assert_close(got, want, rtol=0, atol=0)
    empty = [x[:0] for x in xs]  # T == 0: the final states are the (zero) initial states, no launch
    for got in flexsn_inference_final_state(NoLaunch(), b["fin_info"], *empty)[c.no :]:  # type: ignore[arg-type]
        assert got.shape == SHAPE and not got.any()


@pytest.mark.parametrize("name", ["lif", "two"])
def test_inference_matches_the_loop(name: str, built: dict[str, Any], ref: Any, device: torch.device) -> None:
    b = built[name]
    xs, s0 = ref.make_data(b["core"], T, SHAPE, device)
    # a non-contiguous input sequence is accepted (made contiguous before the launch)
    xs[0] = xs[0].transpose(1, 2).contiguous().transpose(1, 2)
    assert not xs[0].is_contiguous()
    want_out, want_seq = ref.loop(b["core"], xs, s0)
    got = flexsn_inference(b["inf"], b["info"], *xs, *s0)
    assert len(got) == b["core"].no + b["core"].ns
    for g, w in zip(got, [*want_out, *want_seq]):
        assert g.shape == (T, *SHAPE) and g.dtype == torch.float32
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)

    got = flexsn_inference_final_state(b["fin"], b["fin_info"], *xs, *s0)
    for g, w in zip(got, [*want_out, *(s[-1] for s in want_seq)]):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["lif", "two"])
def test_t0_forward_wrappers(name: str, built: dict[str, Any], ref: Any, device: torch.device) -> None:
    b = built[name]
    c = b["core"]
    xs, s0 = ref.make_data(c, 0, SHAPE, device)
    out = flexsn_inference(NoLaunch(), b["info"], *xs, *s0)  # type: ignore[arg-type]
    assert len(out) == c.no + c.ns
    assert all(o.shape == (0, *SHAPE) and o.device.type == device.type for o in out)

    out = flexsn_inference_final_state(NoLaunch(), b["fin_info"], *xs, *s0)  # type: ignore[arg-type]
    assert all(o.shape == (0, *SHAPE) for o in out[: c.no])
    for final, init in zip(out[c.no :], s0):
        assert torch.equal(final, init)
        assert final.data_ptr() != init.data_ptr(), "final states must be clones, not the initial states"

    out = flexsn_forward(NoLaunch(), b["tinfo"], *xs, *s0)  # type: ignore[arg-type]
    assert len(out) == b["tinfo"].num_fwd_kernel_returns
    assert all(o.shape == (0, *SHAPE) for o in out)

    out = flexsn_forward_final_state(NoLaunch(), b["tinfo"], *xs, *s0)  # type: ignore[arg-type]
    assert len(out) == len(final_state_forward_returns(b["tinfo"])) + c.ns
    for final, init in zip(out[c.no : c.no + c.ns], s0):
        assert torch.equal(final, init) and final.data_ptr() != init.data_ptr()


@pytest.mark.parametrize("wrapper", [flexsn_inference, flexsn_inference_final_state, flexsn_forward,
                                     flexsn_forward_final_state])
def test_wrong_number_of_tensors(wrapper: Any, built: dict[str, Any], ref: Any, device: torch.device) -> None:
    b = built["two"]
    info = b["tinfo"] if "forward" in wrapper.__name__ else b["info"]
    xs, s0 = ref.make_data(b["core"], T, SHAPE, device)
    with pytest.raises(ValueError, match=r"expected 4 tensors \(num_inputs=2 input sequences, then num_states=2 "
                                         r"initial states\), got 3"):
        wrapper(NoLaunch(), info, *xs, s0[0])


# ---------------------------------------------------------------- backward


def _forward(b: dict[str, Any], xs: list[torch.Tensor], s0: list[torch.Tensor]) -> tuple[Any, ...]:
    return flexsn_forward(b["fwd"], b["tinfo"], *xs, *s0)


@pytest.mark.parametrize("name", ["lif", "two"])
def test_backward_matches_autograd(name: str, built: dict[str, Any], ref: Any, device: torch.device) -> None:
    b = built[name]
    c = b["core"]
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    rets = _forward(b, xs, s0)
    want_out, want_seq = ref.loop(c, xs, s0)
    for g, w in zip(rets, [*want_out, *want_seq]):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    gen = torch.Generator().manual_seed(1)
    grads = [torch.randn(T, *SHAPE, generator=gen).to(device) for _ in range(c.no + c.ns)]
    got = flexsn_backward(b["bwd"], b["tinfo"], *grads, *_saved(b["tinfo"], xs, s0, rets),
                          input_templates=xs, state_templates=s0)
    want = ref.loop_grads(c, xs, s0, grads)
    assert len(got) == c.ni + c.ns
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=lambda m: f"gradient {k}: {m}")


def test_none_gradients_count_as_zero(built: dict[str, Any], ref: Any, device: torch.device) -> None:
    b = built["two"]
    c = b["core"]
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    rets = _forward(b, xs, s0)
    saved = _saved(b["tinfo"], xs, s0, rets)
    gen = torch.Generator().manual_seed(2)
    g1 = torch.randn(T, *SHAPE, generator=gen).to(device)
    g_state = torch.randn(T, *SHAPE, generator=gen).to(device)
    zeros = torch.zeros(T, *SHAPE, device=device)
    with_none = flexsn_backward(b["bwd"], b["tinfo"], None, g1, g_state, None, *saved,
                                input_templates=xs, state_templates=s0)
    explicit = flexsn_backward(b["bwd"], b["tinfo"], zeros, g1, g_state, zeros, *saved,
                               input_templates=xs, state_templates=s0)
    for a, e in zip(with_none, explicit):
        torch.testing.assert_close(a, e)
    want = ref.loop_grads(c, xs, s0, [None, g1, g_state, None])
    for a, w in zip(with_none, want):
        torch.testing.assert_close(a, w, rtol=1e-4, atol=1e-5)


def test_all_none_gradients_give_zeros_following_the_templates(built: dict[str, Any], device: torch.device) -> None:
    b = built["two"]
    x_t = torch.empty(T, *SHAPE, dtype=torch.bfloat16, device=device)
    s_t = torch.empty(*SHAPE, dtype=torch.float16, device=device)
    out = flexsn_backward(NoLaunch(), b["tinfo"], None, None, None, None,  # type: ignore[arg-type]
                          input_templates=[x_t, x_t], state_templates=[s_t, s_t])
    assert [o.shape for o in out] == [x_t.shape, x_t.shape, s_t.shape, s_t.shape]
    assert [o.dtype for o in out] == [torch.bfloat16, torch.bfloat16, torch.float16, torch.float16]
    assert all(torch.count_nonzero(o) == 0 for o in out)


@pytest.mark.parametrize("final_state", [False, True])
def test_t0_backward_gives_zeros_following_the_templates(final_state: bool, built: dict[str, Any], ref: Any,
                                                         device: torch.device) -> None:
    b = built["lif"]
    xs, s0 = ref.make_data(b["core"], 0, SHAPE, device)
    g_out = torch.empty(0, *SHAPE, device=device)
    g_state = torch.randn(*SHAPE, device=device) if final_state else torch.empty(0, *SHAPE, device=device)
    saved = [torch.empty(0, *SHAPE, device=device) if kind != "init_state" else s0[0]
             for kind, _ in backward_saved_args(b["tinfo"])]
    gx, gv = flexsn_backward(NoLaunch(), b["tinfo"], g_out, g_state, *saved,  # type: ignore[arg-type]
                             input_templates=xs, state_templates=s0, final_state=final_state)
    assert gx.shape == (0, *SHAPE)
    assert gv.shape == SHAPE
    if final_state:
        torch.testing.assert_close(gv, g_state)  # with no step, the final state is the initial state
    else:
        assert torch.count_nonzero(gv) == 0


def test_single_input_core_needs_no_templates_when_gradients_are_given(built: dict[str, Any], ref: Any,
                                                                       device: torch.device) -> None:
    b = built["lif"]
    c = b["core"]
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    rets = _forward(b, xs, s0)
    gen = torch.Generator().manual_seed(4)
    grads = [torch.randn(T, *SHAPE, generator=gen).to(device) for _ in range(2)]
    gx, gv = flexsn_backward(b["bwd"], b["tinfo"], *grads, *_saved(b["tinfo"], xs, s0, rets))
    assert gx.shape == (T, *SHAPE) and gv.shape == SHAPE  # the state gradient drops the time axis
    want = ref.loop_grads(c, xs, s0, grads)
    torch.testing.assert_close(gx, want[0], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(gv, want[1], rtol=1e-4, atol=1e-5)


def test_final_state_backward_matches_autograd(built: dict[str, Any], ref: Any, device: torch.device) -> None:
    b = built["two"]
    c = b["core"]
    xs, s0 = ref.make_data(c, T, SHAPE, device)
    out = flexsn_forward_final_state(b["fwd"].final_state, b["tinfo"], *xs, *s0)
    want_out, want_seq = ref.loop(c, xs, s0)
    for g, w in zip(out[: c.no + c.ns], [*want_out, *(s[-1] for s in want_seq)]):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
    stored = final_state_forward_returns(b["tinfo"])
    rets = {k: (out[k] if k < c.no else out[c.ns + stored.index(k)]) for k in stored}
    gen = torch.Generator().manual_seed(5)
    gy = [torch.randn(T, *SHAPE, generator=gen).to(device) for _ in range(c.no)]
    gf = [torch.randn(*SHAPE, generator=gen).to(device), None]
    got = flexsn_backward(b["bwd"].final_state, b["tinfo"], *gy, *gf, *_saved(b["tinfo"], xs, s0, rets),
                          input_templates=xs, state_templates=s0, final_state=True)
    want = ref.loop_grads(c, xs, s0, [*gy, *gf], final_state=True)
    for k, (g, w) in enumerate(zip(got, want)):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=lambda m: f"gradient {k}: {m}")


@pytest.mark.parametrize(
    "case, message",
    [
        ("all-none", "input_templates are required when all incoming FlexSN gradients are None"),
        ("multi-input", "input_templates are required when FlexSN has multiple input sequences"),
        ("no-output-grad", "input_templates are required when FlexSN output-sequence gradients are all None"),
        ("input-count", r"input_templates must provide one template per FlexSN input sequence \(2\), got 1"),
        ("state-count", r"state_templates must provide one template per FlexSN initial state \(2\), got 3"),
        ("all-none-no-states", "state_templates are required when all incoming FlexSN gradients are None"),
        ("state-grad-none", "state_templates are required when any incoming FlexSN state-sequence gradient is None"),
        ("saved-count", "the backward kernel takes"),
        ("saved-none", "saved tensor 0 passed to the FlexSN backward kernel is None"),
    ],
)
def test_backward_template_errors(case: str, message: str, built: dict[str, Any], ref: Any,
                                  device: torch.device) -> None:
    two_b, lif_b = built["two"], built["lif"]
    g = torch.zeros(T, *SHAPE, device=device)
    x = torch.zeros(T, *SHAPE, device=device)
    s = torch.zeros(*SHAPE, device=device)
    n_saved = len(backward_saved_args(two_b["tinfo"]))
    saved = [g] * n_saved
    calls = {
        "all-none": lambda: flexsn_backward(NoLaunch(), lif_b["tinfo"], None, None),
        "multi-input": lambda: flexsn_backward(NoLaunch(), two_b["tinfo"], g, g, g, g, *saved),
        "no-output-grad": lambda: flexsn_backward(NoLaunch(), lif_b["tinfo"], None, g, state_templates=[s]),
        "input-count": lambda: flexsn_backward(NoLaunch(), two_b["tinfo"], g, g, g, g, *saved, input_templates=[x]),
        "state-count": lambda: flexsn_backward(NoLaunch(), two_b["tinfo"], g, g, g, g, *saved,
                                               input_templates=[x, x], state_templates=[s, s, s]),
        "all-none-no-states": lambda: flexsn_backward(NoLaunch(), two_b["tinfo"], None, None, None, None,
                                                      input_templates=[x, x]),
        "state-grad-none": lambda: flexsn_backward(NoLaunch(), two_b["tinfo"], g, g, g, None, *saved,
                                                   input_templates=[x, x]),
        "saved-count": lambda: flexsn_backward(NoLaunch(), two_b["tinfo"], g, g, g, g, *saved, g,
                                               input_templates=[x, x], state_templates=[s, s]),
        "saved-none": lambda: flexsn_backward(NoLaunch(), two_b["tinfo"], g, g, g, g, None, *saved[1:],
                                              input_templates=[x, x], state_templates=[s, s]),
    }
    with pytest.raises(ValueError, match=message):
        calls[case]()


# ---------------------------------------------------------------- NCL buckets


@pytest.mark.parametrize(
    "ncl, bucket",
    [(0, 0), (1, 0), (4096, 0), (4097, 1), (131072, 1), (131073, 2), (1048576, 2), (1048577, 3), (8388608, 3),
     (8388609, 4), (1 << 30, 4)],
)
def test_ncl_bucket_boundaries(ncl: int, bucket: int) -> None:
    assert flexsn_backward_ncl_bucket(ncl) == bucket


@pytest.mark.parametrize("bad, error", [(4096.0, TypeError), (True, TypeError), ("4096", TypeError), (-1, ValueError)])
def test_ncl_bucket_rejects_bad_values(bad: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        flexsn_backward_ncl_bucket(bad)
