"""``explain`` and ``flexsn explain``: a core that lowers, and one blocked by ``torch.cumsum``
(named, with its source line and what to write instead)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from flexsn_nn import explain
from flexsn_nn.surrogate import Sigmoid

SRC = [str(p) for p in sorted(Path(__file__).resolve().parents[2].glob("*/src"))]
spike = Sigmoid()


def lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = spike(h - 1.0)
    return s, h * (1.0 - s)


def running(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + torch.cumsum(x, 0)  # couples the neurons of one step
    return h, h


def test_a_core_that_lowers() -> None:
    e = explain(lif, 1, 1, 1)
    assert e.lowers and e.trains_fused and e.reason is None and e.blocking_op is None
    assert set(e.sources) == {"inference", "forward", "backward"}
    for code, path in e.sources.values():
        assert "@triton.jit" in code and path.name.startswith("flexsn_")
    # inference reads x and writes s; training recomputes the steps (flexsn_trace.recompute): forward x -> s
    # and v every 4 steps, backward ds, x and v every 4 steps -> dx: 5.5 passes where saving h took 6
    assert e.bytes_per_element_step == {"inference": 8.0, "training": 22.0}
    assert e.saved_per_step == ["input 0", "return 1 (every 4 steps)", "init_state 0"]
    assert e.inference_graph is not None and "aten.sub.Tensor" in e.inference_graph
    assert "fused inference: yes" in str(e)
    assert e.dtype_fallbacks == {}  # every dtype runs fused
    assert e.unwatched == () and e.side_effects == ()


STEPS: list[int] = []
KEYS = {"which": "v_threshold"}


class _Config:
    v_threshold = 1.0


CFG = _Config()


def counting(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    STEPS.append(1)  # the eager loop counts every step
    h = v + (x - v) / 2.0
    s = spike(h - getattr(CFG, KEYS["which"]))  # a read the place search cannot follow
    return s, h * (1.0 - s)


def test_what_the_construction_warnings_tell_is_in_the_report() -> None:
    """Before, ``explain`` silenced the construction warnings and its report left these out."""
    e = explain(counting, 1, 1, 1)
    # the list's length is watched and each step changes it: the neuron runs the eager loop, which the report says
    assert not e.lowers and e.reason is not None and "changes numbers it also reads (len(global STEPS)" in e.reason
    assert [u.split(" in ", 1)[0] for u in e.side_effects] == ["STEPS.append(1)"]
    assert [u.split(" in ", 1)[0] for u in e.unwatched] == ["getattr(CFG, KEYS['which'])"]
    text = str(e)
    assert "changes outside its arguments, made at every step of the eager loop: STEPS.append(1)" in text
    assert "reads a later change does not reach" in text and "getattr(CFG, KEYS['which'])" in text


LAST: dict[str, torch.Tensor] = {}


def keeping_last(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    LAST["h"] = h  # written, never read: the kernels stay fused
    s = spike(h - 1.0)
    return s, h * (1.0 - s)


def test_a_change_to_a_place_the_core_never_reads_is_reported_as_made_only_while_tracing() -> None:
    e = explain(keeping_last, 1, 1, 1)
    assert e.lowers and e.reason is None
    assert "changes outside its arguments, made only while tracing: LAST['h'] = h" in str(e)


class _DtypeSlope(torch.autograd.Function):
    """Heaviside forward; the surrogate's slope picked by the gradient's dtype (the backward alone reads it)."""

    @staticmethod
    def forward(ctx: object, h: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(h)  # type: ignore[attr-defined]
        return (h >= 0).to(h.dtype)

    @staticmethod
    def backward(ctx: object, g: torch.Tensor) -> torch.Tensor:
        (h,) = ctx.saved_tensors  # type: ignore[attr-defined]
        alpha = 8.0 if g.dtype == torch.bfloat16 else 2.0
        return g * alpha * torch.sigmoid(alpha * h) * (1.0 - torch.sigmoid(alpha * h))


def slope_by_dtype(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = _DtypeSlope.apply(h - 1.0)
    return s, h * (1.0 - s)


def test_the_16_bit_dtypes_that_run_the_loop_are_named() -> None:
    """bfloat16 training of a core whose gradient reads the dtype runs the loop; its inference and float16 do not."""
    e = explain(slope_by_dtype, 1, 1, 1)
    assert e.lowers and e.trains_fused and list(e.dtype_fallbacks) == ["bfloat16 training"]
    assert "different gradient" in e.dtype_fallbacks["bfloat16 training"]
    assert "bfloat16 training runs the eager loop: " in str(e)


def test_without_recomputation_the_saved_membrane_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLEXSN_RECOMPUTE", "0")
    e = explain(lif, 1, 1, 1)
    # forward x -> s, h (saved), backward ds, h -> dx
    assert e.bytes_per_element_step == {"inference": 8.0, "training": 24.0}
    assert e.saved_per_step == ["return 2"]


def test_a_built_neuron_is_explained_from_its_own_arguments() -> None:
    """``explain(ParametricLIFNode(step_mode="m"))``: before, a TypeError asking for three counts the neuron already holds."""
    from flexsn_nn import LIFNode, ParametricLIFNode

    plif = explain(ParametricLIFNode(step_mode="m"))
    assert plif.lowers and plif.trains_fused and set(plif.sources) == {"inference", "forward", "backward"}
    assert "sigmoid" in (plif.inference_graph or "")  # its decay 1 / tau = sigmoid(w), read from the static input
    assert explain(LIFNode(tau=2.0, step_mode="m")).bytes_per_element_step == explain(LIFNode(tau=3.0, step_mode="m")).bytes_per_element_step
    with pytest.raises(TypeError, match=r"explain\(neuron\) reads the counts"):
        explain(LIFNode(step_mode="m"), 1, 1, 1)
    with pytest.raises(TypeError, match="a core function needs the three counts"):
        explain(lif)
    found = explain(lif, num_states=1)  # SpikingJelly 2.0's form: the other counts found as FlexSN finds them
    assert found.lowers and found.bytes_per_element_step == explain(lif, 1, 1, 1).bytes_per_element_step
    with pytest.raises(TypeError, match="or num_states alone without static inputs"):
        explain(lif, num_states=1, num_static=1)


def test_a_neuron_whose_calls_do_not_take_the_kernels_says_so() -> None:
    """The neurons default to SpikingJelly's ``step_mode="s"``: their calls run one step of the core each, whatever
    kernels ``explain`` reports, and the report says so (and what to set), as for ``backend="torch"``; a multi-step
    neuron on a kernel backend, and a core function, have nothing to add."""
    from flexsn_nn import FlexSN, LIFNode

    single = explain(LIFNode())
    assert single.module_route is not None and 'step_mode="m"' in single.module_route
    assert str(single).splitlines()[1].startswith('this module: step_mode="s"')
    loop = explain(LIFNode(step_mode="m", backend="torch"))
    assert loop.module_route is not None and loop.module_route.startswith('backend="torch" runs the eager loop')
    assert explain(LIFNode(step_mode="m")).module_route is None
    assert explain(FlexSN(lif, 1, 1, 1)).module_route is None  # FlexSN's own default is "m"
    assert explain(lif, 1, 1, 1).module_route is None


def test_a_core_with_cumsum_names_the_op_line_and_remedy() -> None:
    e = explain(running, 1, 1, 1)
    assert not e.lowers and not e.trains_fused
    assert e.blocking_op == "aten.cumsum.default"
    assert e.where is not None and e.where.endswith("h = v + torch.cumsum(x, 0)  # couples the neurons of one step")
    assert __file__ in e.where
    assert e.suggestion is not None and "state across time steps" in e.suggestion
    assert "cumsum" in str(e) and e.sources == {}


def in_place(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v.mul_(0.5).add_(x)  # changes the state it was given: the eager loop's state tensor
    return v * 1.0, v


def test_a_core_changing_an_argument_in_place_is_told_so() -> None:
    e = explain(in_place, 1, 1, 1)
    assert not e.lowers and e.blocking_op == "aten.copy_.default"
    assert e.reason is not None and "changes one of its arguments in place" in e.reason
    assert e.suggestion is not None and "out of place" in e.suggestion


def test_the_console_command(tmp_path: Path) -> None:
    (tmp_path / "my_neurons.py").write_text(textwrap.dedent("""
        import torch

        def running(x, v):
            h = v + torch.cumsum(x, 0)
            return h, h
    """))
    env = {"PYTHONPATH": ":".join([str(tmp_path), *SRC]), "TRITON_INTERPRET": "1", "PATH": "/usr/bin:/bin"}
    res = subprocess.run([sys.executable, "-m", "flexsn_nn.cli", "explain", "my_neurons:running"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 1, res.stderr  # does not lower
    assert "blocking op: aten.cumsum.default" in res.stdout
    assert "my_neurons.py:5: h = v + torch.cumsum(x, 0)" in res.stdout


def test_the_console_command_as_python_dash_m_flexsn_nn(tmp_path: Path) -> None:
    """``python -m flexsn_nn explain`` runs the command too (before: "No module named flexsn_nn.__main__")."""
    (tmp_path / "cores.py").write_text("def lif(x, v):\n    h = v + (x - v) / 2.0\n    s = (h >= 1.0).float()\n    return s, h * (1 - s)\n")
    env = {"PYTHONPATH": ":".join([str(tmp_path), *SRC]), "TRITON_INTERPRET": "1", "PATH": "/usr/bin:/bin"}
    res = subprocess.run([sys.executable, "-m", "flexsn_nn", "explain", "cores:lif"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("fused inference: yes; fused training: yes")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["no_such_module_here:lif"], "cannot import 'no_such_module_here': No module named 'no_such_module_here'"),
        (["cli_targets:no_such"], "cli_targets has no attribute 'no_such'"),
        (["cli_targets"], "expected module:function (or module:neuron), got 'cli_targets'"),
        (["cli_targets:NUMBER"], "expected a single-step core function or a FlexSN neuron, got int"),
        (["cli_targets:lif", "--num-states", "2"], "takes at least one input"),
        (["cli_targets:lif", "--num-inputs", "2"], "a core function needs the three counts"),
        (["cli_targets:holder.sn", "--num-states", "1"], "a built neuron holds its own counts and static inputs"),
    ],
    ids=["no-module", "no-attribute", "no-colon", "not-callable", "counts-that-do-not-fit", "counts-partly", "counts-for-a-neuron"],
)
def test_the_console_command_says_what_is_wrong_with_a_target(
    argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A target that cannot be loaded or explained: one line on stderr and exit status 2 (before: a traceback from
    importlib, getattr or the kernel build)."""
    from flexsn_nn.cli import main

    _write_targets(tmp_path, monkeypatch)
    assert main(["explain", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("flexsn explain: ") and message in err and "Traceback" not in err, err


def test_the_console_command_explains_a_built_neuron_and_a_neuron_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``module:object.neuron`` explains that neuron from its own arguments (before: the command passed it three
    counts, which ``explain(neuron)`` refuses); ``module:NeuronClass`` builds it with its defaults."""
    from flexsn_nn import ParametricLIFNode
    from flexsn_nn.cli import main

    _write_targets(tmp_path, monkeypatch)
    assert main(["explain", "cli_targets:holder.sn"]) == 0
    built = capsys.readouterr().out
    assert built == str(explain(ParametricLIFNode(step_mode="m"))) + "\n"
    assert main(["explain", "flexsn_nn:ParametricLIFNode"]) == 0
    assert capsys.readouterr().out == str(explain(ParametricLIFNode())) + "\n"  # step_mode="s": the report says so
    assert main(["explain", "cli_targets:lif", "--num-states", "1"]) == 0  # SpikingJelly 2.0's form
    assert capsys.readouterr().out == str(explain(lif, 1, 1, 1)) + "\n"


def _write_targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module ``cli_targets`` on ``sys.path``: a core, a number, and an object holding a built neuron."""
    (tmp_path / "cli_targets.py").write_text(textwrap.dedent("""
        import types
        from flexsn_nn import ParametricLIFNode
        from flexsn_nn.surrogate import Sigmoid

        spike = Sigmoid()

        def lif(x, v):
            h = v + (x - v) / 2.0
            s = spike(h - 1.0)
            return s, h * (1.0 - s)

        NUMBER = 3
        holder = types.SimpleNamespace(sn=ParametricLIFNode(step_mode="m"))
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cli_targets", raising=False)
